"""Where a learner's stage went wrong, in words: the structure first (message count, head and tail
kept, tool results changed), then the first message or block that differs, with text around it.
"""

from __future__ import annotations

import json
from typing import Any

from ..offline.markers import read_compacted, read_persisted, read_placeholder, read_snip
from ..pipeline.formats import REFERENCE
from ..pipeline.messages import (
    has_tool_use,
    is_tool_result_message,
    iter_tool_results,
    joined_text,
    plain_text,
)
from ..pipeline.validation import pairing_problems
from ..texts import register, say

CONTEXT = 40

register({
    "fb.not_list": {"en": "it returned {kind}, not a list of messages",
                    "zh": "它返回的是 {kind}，不是消息列表"},
    "fb.count": {"en": "it returned {got} messages; {want} were expected",
                 "zh": "它返回了 {got} 条消息，应为 {want} 条"},
    "fb.kept": {"en": "kept from the input: the first {head} and the last {tail} messages "
                      "expected; yours kept the first {got_head} and the last {got_tail}",
                "zh": "应保留输入的前 {head} 条和后 {tail} 条消息；"
                      "你的保留了前 {got_head} 条和后 {got_tail} 条"},
    "fb.pair": {"en": " (message {at} holds tool results answering message {before}: a cut "
                      "between them leaves an orphan the API refuses)",
                "zh": "（第 {at} 条消息里的工具结果回答的是第 {before} 条的调用："
                      "在两者之间切开会留下 API 拒绝的孤立结果）"},
    "fb.results": {"en": "tool results changed (numbered oldest first): expected {want}; "
                         "yours {got}",
                   "zh": "被改动的工具结果（从最早的开始编号）应为：{want}；你的是：{got}"},
    "fb.none": {"en": "none", "zh": "无"},
    "fb.and": {"en": ", ", "zh": "，"},                  # between two changed results
    "fb.message": {"en": "message {i}: expected {want}, got {got}",
                   "zh": "第 {i} 条消息：应为{want}，得到{got}"},
    "fb.block": {"en": "message {i}, block {j}: expected {want}, got {got}",
                 "zh": "第 {i} 条消息的第 {j} 个块：应为{want}，得到{got}"},
    "fb.same_kind": {"en": "{where}: {kind} in both, but they differ",
                     "zh": "{where}：两边都是{kind}，但内容不同"},
    "fb.where.message": {"en": "message {i}", "zh": "第 {i} 条消息"},
    "fb.where.block": {"en": "message {i}, block {j}", "zh": "第 {i} 条消息的第 {j} 个块"},
    "fb.text_at": {"en": "first difference at character {at}:\n  expected …{want}…\n  got      …{got}…",
                   "zh": "第一个不同出现在第 {at} 个字符：\n  应为 …{want}…\n  得到 …{got}…"},
    "fb.kind.placeholder": {"en": "a placeholder", "zh": "一个占位符"},
    "fb.kind.persisted": {"en": "a persisted-output block ({chars:,} chars)",
                          "zh": "一个转存块（{chars:,} 字符）"},
    "fb.kind.snip": {"en": "a snip marker of {count} messages", "zh": "一个省略 {count} 条消息的标记"},
    "fb.kind.compacted": {"en": "a {label} message", "zh": "一条 {label} 消息"},
    "fb.kind.text": {"en": "text of {chars:,} chars", "zh": "一段 {chars:,} 字符的文本"},
    "fb.kind.blocks": {"en": "blocks [{kinds}]", "zh": "一组块 [{kinds}]"},
})


def describe(content: Any) -> str:
    """What a message's or a block's content is, in a few words."""
    if isinstance(content, list):
        return say("fb.kind.blocks", kinds=", ".join(
            str(b.get("type")) if isinstance(b, dict) else type(b).__name__ for b in content))
    text = content if isinstance(content, str) else repr(content)
    if read_placeholder(text):
        return say("fb.kind.placeholder")
    if read_persisted(text) is not None:
        return say("fb.kind.persisted", chars=len(text))
    if (snip := read_snip(text)) is not None:
        return say("fb.kind.snip", count=snip.count)
    if (compacted := read_compacted(text)) is not None:
        return say("fb.kind.compacted", label=f"[{compacted.label}]")
    return say("fb.kind.text", chars=len(text))


def _contrast(key: str, want: Any, got: Any, **where: int) -> str:
    """"expected X, got Y" for message or block ``where``; one phrase when X and Y read alike."""
    kinds = describe(want), describe(got)
    if kinds[0] == kinds[1]:
        return say("fb.same_kind", where=say(f"fb.where.{key}", **where), kind=kinds[0])
    return say(f"fb.{key}", want=kinds[0], got=kinds[1], **where)


def text_difference(want: str, have: str) -> str:
    """The first differing character of two texts, with context on both sides."""
    at = next((k for k, (a, b) in enumerate(zip(want, have, strict=False)) if a != b),
              min(len(want), len(have)))
    start = max(at - CONTEXT, 0)
    return say("fb.text_at", at=at, want=repr(want[start:at + CONTEXT])[1:-1],
               got=repr(have[start:at + CONTEXT])[1:-1])


def _kept(given: list, out: list) -> tuple[int, int]:
    """How many of the input's first and last messages ``out`` keeps as they were."""
    shorter = min(len(given), len(out))
    head = next((k for k, (a, b) in enumerate(zip(given, out, strict=False)) if a != b), shorter)
    tail = next((k for k, (a, b) in enumerate(zip(reversed(given), reversed(out), strict=False))
                 if a != b), shorter)
    return min(head, len(out)), min(tail, len(out) - min(head, len(out)))


def changed(given: list, out: list) -> dict:
    """The input's tool results ``out`` changed: tool_use_id → (its number from 1, the new content)."""
    now = {b.get("tool_use_id"): b.get("content") for _, _, b in iter_tool_results(out)}
    return {b.get("tool_use_id"): (n, now[b.get("tool_use_id")])
            for n, (_, _, b) in enumerate(iter_tool_results(given), 1)
            if b.get("tool_use_id") in now and now[b.get("tool_use_id")] != b.get("content")}


def _changed(given: list, out: list) -> str:
    """Which of the input's tool results ``out`` changed, and into what."""
    changes = [f"#{n} → {describe(content)}" for n, content in changed(given, out).values()]
    return say("fb.and").join(changes) or say("fb.none")


def structure(expected: list, got: list, given: list) -> list[str]:
    """The shape of the difference: message counts, what was kept, which results changed."""
    lines = [say("fb.count", got=len(got), want=len(expected))] if len(got) != len(expected) else []
    (head, tail), (got_head, got_tail) = _kept(given, expected), _kept(given, got)
    if (head, tail) != (got_head, got_tail) and len(expected) < len(given):
        line = say("fb.kept", head=head, tail=tail, got_head=got_head, got_tail=got_tail)
        for cut in (got_head, len(given) - got_tail):     # where yours cut the input
            if 0 < cut < len(given) and is_tool_result_message(given[cut]) \
                    and has_tool_use(given[cut - 1]):
                line += say("fb.pair", at=cut, before=cut - 1)
                break
        lines.append(line)
    want_changes, got_changes = _changed(given, expected), _changed(given, got)
    if want_changes != got_changes:
        lines.append(say("fb.results", want=want_changes, got=got_changes))
    return lines


def first_difference(expected: list, got: list) -> str:
    """The first message, or block, that differs; for text, where."""
    for i, (want, have) in enumerate(zip(expected, got, strict=False)):
        if want == have:
            continue
        wc = want.get("content") if isinstance(want, dict) else want
        hc = have.get("content") if isinstance(have, dict) else have
        if isinstance(wc, list) and isinstance(hc, list) and len(wc) == len(hc):
            j = next(j for j, (a, b) in enumerate(zip(wc, hc, strict=True)) if a != b)
            wb, hb = wc[j], hc[j]
            wt, ht = (joined_text(x.get("content", x.get("text"))) if isinstance(x, dict) else x
                      for x in (wb, hb))
            return (_contrast("block", wt, ht, i=i, j=j)
                    + "\n" + text_difference(str(wt), str(ht)))
        line = _contrast("message", wc, hc, i=i)
        both_text = isinstance(wc, str) and isinstance(hc, str)
        return line + ("\n" + text_difference(wc, hc) if both_text else "")
    return ""


def difference(expected: list, got: Any, given: list) -> str | None:
    """Where ``got`` differs from ``expected`` (both from the input ``given``), or None."""
    if not isinstance(got, list):
        return say("fb.not_list", kind=type(got).__name__)
    if got == expected:
        return None
    return "\n".join(line for line in [*structure(expected, got, given),
                                       first_difference(expected, got)] if line)


# The lesson's known pitfalls, recognised in a learner's output and named first in the checker's
# report: the summary not JSON-encoded, a cut between a tool_use and its result, the wrong end of
# the list kept. (A changed input is named by the checker itself.)

register({
    "mistake.unencoded": {
        "en": "likely mistake: the summary is not passed through json.dumps(summary, "
              "ensure_ascii=False); as raw text a line inside it could pose as a section",
        "zh": "可能的错误：摘要没有经过 json.dumps(summary, ensure_ascii=False)；作为原始文本，"
              "其中的一行就可能冒充成一个部分"},
    "mistake.unpaired": {
        "en": "likely mistake: your cut separates a tool_use from its tool_result ({problem}); "
              "move the cut so the pair stays whole",
        "zh": "可能的错误：你的切分把 tool_use 和它的 tool_result 分开了（{problem}）；"
              "移动切点，让这一对保持完整"},
    "mistake.wrong_end": {
        "en": "likely mistake: it keeps the oldest results whole and replaces the newest; keep "
              "the newest (the end of the list) and replace the older ones",
        "zh": "可能的错误：它让最早的结果保持完整，却替换了最新的；应保留最新的（列表末尾），替换较早的"},
})


def unencoded(got: list) -> bool:
    """The reference state after the header is raw text, not one JSON string."""
    text = plain_text(got[0]) if got and isinstance(got[0], dict) else ""
    _, found, reference = text.partition(f"\n\n{REFERENCE}\n")
    if not found:
        return False
    try:
        return not isinstance(json.loads(reference), str)
    except ValueError:
        return True


def likely_mistake(stage: str, given: list, expected: list, got: list) -> str | None:
    """The pitfall ``got`` shows, if it is one the lesson is known for."""
    if stage in ("compact_history", "reactive_compact") and unencoded(got):
        return say("mistake.unencoded")
    problems = pairing_problems(got) if not pairing_problems(given) else []
    if stage in ("snip_compact", "reactive_compact") and problems:
        return say("mistake.unpaired", problem=problems[0])
    ids, want, have = [b.get("tool_use_id") for _, _, b in iter_tool_results(given)], \
        list(changed(given, expected)), list(changed(given, got))
    if stage == "micro_compact" and want and have and want != have and \
            set(have) <= set(ids[len(ids) - len(have):]) and set(want) <= set(ids[:len(want)]):
        return say("mistake.wrong_end")
    return None

"""The "write it yourself" checker: ``check("micro_compact", my_micro_compact)`` runs every case
of ``stage_cases`` and says, in plain words, which pass and, for each that fails, where the stage
went wrong: the pitfall it shows, if the lesson is known for it, the structure (message count,
head and tail kept, tool results changed), then the first message or block that differs.
"""

from __future__ import annotations

import copy
import html
import inspect
import json
import os
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..offline.markers import read_compacted, read_persisted, read_placeholder, read_snip
from ..pipeline import Context
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
from .reveal import CHECK_CLAIMS, is_solution
from .stage_cases import SIGNATURE, Case, cases

CONTEXT = 40

register({   # the checker's report and its feedback
    "check.headline": {"en": "{stage}: {good} of {total} cases pass ({verdict})",
                       "zh": "{stage}：{total} 个用例中通过 {good} 个（{verdict}）"},
    "check.all_pass": {"en": "all pass", "zh": "全部通过"},
    "check.split": {"en": "{stage}: the lesson's {lesson} cases: {verdict}; "
                          "the {fixes} fixes (beyond the lesson): {fixed} of {fixes}",
                    "zh": "{stage}：课程的 {lesson} 个用例：{verdict}；"
                          "{fixes} 个修正（超出课程）：{fixes} 个中通过 {fixed} 个"},
    "check.some_pass": {"en": "{good} of {total} pass, {count} fail",
                        "zh": "{total} 个中通过 {good} 个，{count} 个未通过"},
    "check.solution": {"en": "this checked the package's worked solution, not yours: delete the line "
                             "marked '← delete this line' to check your own",
                       "zh": "这次检查的是包里的参考答案，不是你写的：删掉行尾标着「←」的那一行导入，"
                             "再检查你自己的函数"},
    "check.fail": {"en": "{count} fail", "zh": "{count} 个未通过"},
    "check.not_written": {"en": "not written yet (it raises NotImplementedError)",
                          "zh": "还没有写（它抛出 NotImplementedError）"},
    "check.raised": {"en": "it raised {kind}: {error} (line {line} of {where})",
                     "zh": "它抛出了 {kind}：{error}（{where} 的第 {line} 行）"},
    "check.mutated": {"en": "it changed the list it was given; build and return a new list (copy a "
                            "message or block before changing it), so a failing step loses nothing",
                      "zh": "它改动了传入的列表；请构建并返回一个新列表（改动消息或块之前先复制），"
                            "这样某一步失败时什么也不会丢"},
    "check.not_function": {"en": "check needs a function {signature}, got {kind}",
                           "zh": "check 需要一个函数 {signature}，得到的是 {kind}"},
    "check.this_function": {"en": "this function", "zh": "这个函数"},
    "check.signature": {"en": "{name}{actual} cannot be called as {signature}; give it those parameters",
                        "zh": "{name}{actual} 不能按 {signature} 调用；请给它这些参数"},
    "case.source.lesson": {"en": "lesson", "zh": "课程"},
    "case.source.fix": {"en": "fix", "zh": "修正"},
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
    # the lesson's known pitfalls, recognised in a learner's output and named first in the report
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


# The case names in Chinese, keyed by the English name (a test asserts every case has both).
ZH = {
    "the largest result goes to disk first, and the stage stops as soon as the batch fits the "
    "200,000 budget": "最大的结果最先转存到磁盘，一旦这批结果不超过 200,000 的预算就停止",
    "several results go to disk, largest first, until the batch fits":
        "多条结果依次转存到磁盘（从最大的开始），直到这批结果不超过预算",
    "results no longer than persist_threshold (30,000) stay, even when the batch is over the budget":
        "不超过 persist_threshold（30,000）的结果保留在上下文中，即使这批结果超出了预算",
    "a batch within the budget is left alone, however big one result is":
        "预算之内的一批结果保持不变，不管其中一条有多大",
    "only the newest batch counts: an older result is never persisted":
        "只看最新一批结果：更早的结果永远不会被转存",
    "a history with no tool results at all is left alone": "没有任何工具结果的历史保持不变",
    "60 messages become the first 3, one [snipped 10 messages] marker and the last 47":
        "60 条消息变成最初 3 条、一个 [snipped 10 messages] 标记和最后 47 条",
    "50 messages are left alone": "50 条消息保持不变",
    "the head grows forward so a tool_use keeps its results":
        "开头部分向后延伸，让 tool_use 和它的结果留在一起",
    "the tail start moves back so a tool_result keeps its tool_use":
        "结尾部分的起点向前移，让 tool_result 和它的 tool_use 留在一起",
    "both cuts move when both would part a pair (3 → 4 at the head, 13 → 12 at the tail)":
        "两处切点都会拆开一对调用和结果时，两处都移动（开头 3 → 4，结尾 13 → 12）",
    "a marker is not counted as a message: a list snipped to 50 plus its marker is left alone":
        "标记不算作消息：已裁剪到 50 条再加一个标记的列表保持不变",
    "snipping again adds the old marker's count to the new one": "再次裁剪时，旧标记的条数累加到新标记上",
    "all but the 3 newest results become the placeholder, if longer than 120 chars":
        "除最新的 3 条结果外，超过 120 字符的结果都替换为占位符",
    "three or fewer results are left alone": "不超过三条结果时保持不变",
    "a placeholder is never replaced again (running twice changes nothing)":
        "占位符不会再被替换（运行两次结果相同）",
    "results the model has not seen yet (after the last assistant message) are never replaced: a "
    "batch of 5 keeps all 5":
        "模型还没看到的结果（最后一条 assistant 消息之后的）永远不会被替换：一批 5 条全部保留",
    "a persisted result's placeholder keeps the path to the full output":
        "已转存结果的占位符保留完整输出的文件路径",
    "the history becomes ONE [Compacted] message: the request verbatim, then the summary as a "
    "JSON string": "整段历史变成一条 [Compacted] 消息：先原样写出请求，再以 JSON 字符串写出摘要",
    "the whole history is saved to .transcripts/ first, one JSON message a line":
        "先把完整历史保存到 .transcripts/，每行一条 JSON 消息",
    "the request comes from the caller, never from the last role=user message (here a tool result "
    "holding planted text)":
        "请求来自调用方，而不是最后一条 role=user 消息（这里是一条藏有植入文本的工具结果）",
    "a summary that imitates a section header stays inside the JSON string":
        "模仿分节标题的摘要仍然留在 JSON 字符串内部",
    "keeps the last 5 messages and summarises only what is before them into a [Reactive compact] "
    "message": "保留最后 5 条消息，只把它们之前的内容总结成一条 [Reactive compact] 消息",
    "the cut moves back one message so a tool_result keeps its tool_use":
        "切点向前移一条消息，让 tool_result 和它的 tool_use 留在一起",
    "the whole history is saved to .transcripts/ first": "先把完整历史保存到 .transcripts/",
    "with nothing before the last 5 messages the history is left as it is (no summary call could "
    "help)": "最后 5 条消息之前没有内容时，历史保持原样（调用摘要也无济于事）",
}
register({f"case.{english}": {"en": english, "zh": chinese} for english, chinese in ZH.items()})


def case_name(case: object) -> str:
    """``[lesson] the rule`` of a case, in the chosen language."""
    source = say(f"case.source.{case.source}")
    return f"[{source}] {say(f'case.{case.name}')}"


@dataclass(frozen=True)
class Outcome:
    case: Case
    passed: bool
    message: str = ""           # why it failed, in plain words


def run_case(case: Case, fn: Callable[..., Any], workdir: str | Path) -> Outcome:
    """Run one case in ``workdir`` (empty, so what lands on disk can be checked)."""
    workdir = Path(workdir)
    history = case.history()
    given = copy.deepcopy(history)
    try:
        got = fn(history, Context(workdir, case.limits, case.request, case.summarize))
    except NotImplementedError:
        return Outcome(case, False, say("check.not_written"))
    except Exception as error:     # a learner's bug is a result to report, not a crash
        where = traceback.extract_tb(error.__traceback__)[-1]
        return Outcome(case, False, say("check.raised", kind=type(error).__name__, error=error,
                                        line=where.lineno, where=where.name))
    expected = got if case.expected is None else case.expected(given)   # None: disk only
    problem = difference(expected, got, given)
    named = [say("check.mutated")] if history != given else []
    if problem and isinstance(got, list):        # the pitfall it shows, named first
        named += [m for m in [likely_mistake(case.stage, given, expected, got)] if m]
    if problem is None and case.disk is not None:
        problem = case.disk(workdir, given)
    if named or problem:
        problem = "\n".join([*named, *([problem] if problem else [])])
    return Outcome(case, problem is None, problem or "")


@dataclass(frozen=True)
class Report:
    stage: str
    outcomes: tuple[Outcome, ...]
    solution: bool = False        # the function checked is the package's worked solution

    @property
    def passed(self) -> bool:
        return all(o.passed for o in self.outcomes)

    @property
    def failed(self) -> list[str]:
        """The names of the cases that failed."""
        return [o.case.name for o in self.outcomes if not o.passed]

    def _lines(self) -> list[tuple[bool, str, str]]:
        return [(o.passed, case_name(o.case), o.message) for o in self.outcomes]

    def headline(self) -> str:
        """How many cases pass; the lesson's cases and the fixes apart when a fix fails."""
        good = sum(o.passed for o in self.outcomes)
        verdict = say("check.all_pass") if self.passed else say("check.fail", count=len(self.outcomes) - good)
        fixes = [o for o in self.outcomes if o.case.source == "fix"]
        if self.passed or not fixes:
            return say("check.headline", stage=self.stage, good=good, total=len(self.outcomes),
                       verdict=verdict)
        lesson = [o for o in self.outcomes if o.case.source != "fix"]
        passing = sum(o.passed for o in lesson)
        verdict = say("check.all_pass") if passing == len(lesson) else say(
            "check.some_pass", good=passing, total=len(lesson), count=len(lesson) - passing)
        return say("check.split", stage=self.stage, lesson=len(lesson), verdict=verdict,
                   fixes=len(fixes), fixed=sum(o.passed for o in fixes))

    def __str__(self) -> str:
        lines = [self.headline()] + ([say("check.solution")] if self.solution else [])
        for ok, name, message in self._lines():
            lines.append(f"  {'✓' if ok else '✗'} {name}")
            if not ok:
                lines += [f"      {'→' if k == 0 else ' '} {line}"
                          for k, line in enumerate(message.splitlines())]
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        pre = "color:black;white-space:pre-wrap;margin:2px 0 6px 1.2em;font-size:90%"
        items = "".join(
            f"<li style='color:{'#117733' if ok else '#AA3377'}'>{'✓' if ok else '✗'} "
            f"{html.escape(name)}" + ("" if ok else f"<pre style='{pre}'>→ {html.escape(message)}</pre>")
            + "</li>" for ok, name, message in self._lines())
        note = f"<br><i>{html.escape(say('check.solution'))}</i>" if self.solution else ""
        return (f"<div class='exercise-report'><b>{html.escape(self.headline())}</b>{note}"
                f"<ul style='list-style:none;padding-left:1em'>{items}</ul></div>")


def check(stage: str, fn: Callable[..., Any], strict: bool = True) -> Report:
    """Run every case of ``stage`` against ``fn``, each in its own empty folder; the report. Under the
    test suite (``COMPACT_CHECK_CLAIMS=1``) a failing one raises, unless ``strict=False``."""
    stage_cases = cases(stage)              # an unknown stage is a ValueError naming the known ones
    signature = SIGNATURE.format(stage=stage)
    if not callable(fn):
        raise TypeError(say("check.not_function", signature=signature, kind=type(fn).__name__))
    try:
        inspect.signature(fn).bind("messages", "ctx")
    except TypeError:
        raise TypeError(say("check.signature", name=getattr(fn, "__name__", say("check.this_function")),
                            actual=inspect.signature(fn), signature=signature)) from None
    except ValueError:          # a builtin without a signature: let the cases find out
        pass
    outcomes = []
    for case in stage_cases:
        with tempfile.TemporaryDirectory(prefix="check-") as folder:
            outcomes.append(run_case(case, fn, folder))
    report = Report(stage, tuple(outcomes), is_solution(fn))
    if strict and os.environ.get(CHECK_CLAIMS) and not report.passed:   # notebooks under test
        raise AssertionError(str(report))
    return report

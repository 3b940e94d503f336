"""The lesson's known pitfalls, recognised in a learner's output and named first in the
checker's report: the summary not JSON-encoded, a cut between a tool_use and its result, the
wrong end of the list kept. (A changed input is named by the checker itself.)"""

from __future__ import annotations

import json

from ..pipeline.formats import REFERENCE
from ..pipeline.messages import iter_tool_results, plain_text
from ..pipeline.validation import pairing_problems
from ..texts import register, say

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


def changed_ids(given: list, out: list) -> list:
    """The tool_use_ids of the input's results ``out`` changed, oldest first."""
    now = {b.get("tool_use_id"): b.get("content") for _, _, b in iter_tool_results(out)}
    return [b.get("tool_use_id") for _, _, b in iter_tool_results(given)
            if b.get("tool_use_id") in now and now[b.get("tool_use_id")] != b.get("content")]


def likely_mistake(stage: str, given: list, expected: list, got: list) -> str | None:
    """The pitfall ``got`` shows, if it is one the lesson is known for."""
    if stage in ("compact_history", "reactive_compact") and unencoded(got):
        return say("mistake.unencoded")
    problems = pairing_problems(got) if not pairing_problems(given) else []
    if stage in ("snip_compact", "reactive_compact") and problems:
        return say("mistake.unpaired", problem=problems[0])
    ids, want, have = [b.get("tool_use_id") for _, _, b in iter_tool_results(given)], \
        changed_ids(given, expected), changed_ids(given, got)
    if stage == "micro_compact" and want and have and want != have and \
            set(have) <= set(ids[len(ids) - len(have):]) and set(want) <= set(ids[:len(want)]):
        return say("mistake.wrong_end")
    return None

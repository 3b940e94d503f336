"""The checker's case names in Chinese: each case of ``stage_cases`` is named by its rule in
plain words; ``case_name(case)`` gives it in the chosen language (a test asserts every case
has both). Keyed by the English name, which stays the case's identity in the tests."""

from __future__ import annotations

from ..texts import register, say

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
        "两处切口都会拆开一对调用和结果时，两处都移动（开头 3 → 4，结尾 13 → 12）",
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
        "切口向前移一条消息，让 tool_result 和它的 tool_use 留在一起",
    "the whole history is saved to .transcripts/ first": "先把完整历史保存到 .transcripts/",
    "with nothing before the last 5 messages the history is left as it is (no summary call could "
    "help)": "最后 5 条消息之前没有内容时，历史保持原样（调用摘要也无济于事）",
}
register({f"case.{english}": {"en": english, "zh": chinese} for english, chinese in ZH.items()})
register({
    "case.source.lesson": {"en": "lesson", "zh": "课程"},
    "case.source.fix": {"en": "fix", "zh": "修正"},
})


def case_name(case: object) -> str:
    """``[lesson] the rule`` of a case, in the chosen language."""
    source = say(f"case.source.{case.source}")
    return f"[{source}] {say(f'case.{case.name}')}"

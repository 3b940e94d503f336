"""Every text the study's plots and tables show (notebooks 07 and 08), in English and Chinese.
Strategy names stay as the code spells them; their descriptions and the probes' names are
translated (the English is the study's own ``description`` and ``Probe.name``)."""

from __future__ import annotations

from typing import Any

from ..study.api_session import API_STRATEGIES
from ..study.strategies import STRATEGIES
from ..study.workload import PROBES
from ..texts import register, say

register({
    "study.plot.measure.plain": {"en": "input tokens sent (every token at full price)",
                                 "zh": "发送的输入 token（每个 token 按全价计）"},
    "study.plot.measure.cache-aware": {"en": "cost with prompt caching (plain-token equivalents)",
                                       "zh": "计入提示缓存的成本（折合成全价 token）"},
    "study.plot.axis.plain": {"en": "cumulative input tokens", "zh": "累计输入 token"},
    "study.plot.axis.cache-aware": {"en": "cumulative cost (tokens)", "zh": "累计成本（token）"},
    "study.plot.turn": {"en": "user turn", "zh": "用户轮次"},
    "study.plot.total": {"en": "{strategy}: {millions:.2f} M", "zh": "{strategy}：共 {millions:.2f} M"},
    "study.plot.legend": {"en": "strategy: total", "zh": "策略：合计"},
    "study.plot.cheapest": {
        "en": "With prompt caching, {strategy} costs {saving:.0%} less than no compaction",
        "zh": "计入提示缓存后，{strategy} 比不压缩便宜 {saving:.0%}"},
    "study.plot.retention": {"en": "Where the {count} probe facts are at the end",
                             "zh": "结束时，{count} 条探针事实各在哪里"},
    "study.plot.summary.axis": {"en": "summary (chars)", "zh": "摘要长度（字符）"},
    "study.plot.summary.line": {"en": "{strategy}: {count} summaries", "zh": "{strategy}：{count} 份摘要"},
    "study.plot.summary.cut": {"en": "cut off at the summary call's max_tokens",
                               "zh": "在摘要调用的 max_tokens 处被截断"},
    "study.plot.summary.cap": {"en": "{strategy}'s cap: {cap:,} chars",
                               "zh": "{strategy} 的上限：{cap:,} 字符"},
    "study.plot.summary.title": {"en": "Each summary's length, at the user turn it was written",
                                 "zh": "每份摘要的长度，标在写下它的用户轮次"},
    "study.place.context": {"en": "context", "zh": "上下文"},
    "study.place.archive": {"en": "archive", "zh": "存档"},
    "study.place.workspace": {"en": "workspace", "zh": "工作区"},
    "study.place.lost": {"en": "lost", "zh": "丢失"},
    "study.column.strategy": {"en": "strategy", "zh": "策略"},
    "study.column.input tokens": {"en": "input tokens", "zh": "输入 token"},
    "study.column.saved": {"en": "saved", "zh": "节省"},
    "study.column.cache-aware cost": {"en": "cache-aware cost", "zh": "计入缓存的成本"},
    "study.column.saved (cache-aware)": {"en": "saved (cache-aware)", "zh": "节省（计入缓存）"},
    "study.column.floor": {"en": "floor", "zh": "下限"},
    "study.column.÷ floor": {"en": "÷ floor", "zh": "相对下限的倍数"},
    "study.column.read from cache": {"en": "read from cache", "zh": "缓存读取占比"},
    "study.column.peak chars": {"en": "peak chars", "zh": "峰值字符数"},
    "study.column.summary calls": {"en": "summary calls", "zh": "摘要调用"},
    "study.column.re-reads": {"en": "re-reads", "zh": "重复读取"},
    "study.column.probes": {"en": "probes: {places}", "zh": "探针：{places}"},
    "study.column.summaries": {"en": "summaries", "zh": "摘要次数"},
    "study.column.largest seen (chars)": {"en": "largest seen (chars)", "zh": "单次请求最多可见字符数"},
    "study.column.what it is": {"en": "what it is", "zh": "是什么"},
    "study.column.stages it runs": {"en": "stages it runs", "zh": "运行的步骤"},
    "study.column.built with": {"en": "built with", "zh": "实现类"},
    "study.column.numbers": {"en": "numbers", "zh": "数值"},
    "study.column.turn": {"en": "turn", "zh": "轮次"},
    "study.column.the user's request at that turn": {"en": "the user's request at that turn",
                                                     "zh": "这一轮用户的请求（原文发送）"},
    "study.column.the fact": {"en": "the fact", "zh": "事实"},
    "study.column.exact text looked for": {"en": "exact text looked for", "zh": "查找的原文"},
    "study.table.title": {
        "en": "Input tokens and cache-aware cost (read {read}×, written {write}×, summary calls {uncached}×)",
        "zh": "输入 token 与计入缓存的成本（缓存读取 {read}×，写入 {write}×，摘要调用 {uncached}×）"},
    "study.table.note": {
        "en": "cache-aware: read {read}×, written {write}×, uncached and summary calls {uncached}×; "
              "floor: the same requests if no cached prefix were ever broken; read from cache: share "
              "of agent tokens read from cache",
        "zh": "计入缓存：读取 {read}×，写入 {write}×，未缓存的部分和摘要调用 {uncached}×；下限：同样的"
              "请求、假如缓存前缀从未被打断时的成本；缓存读取占比：Agent 调用的 token 中从缓存读取的比例"},
    "study.table.all_stages": {"en": "the lesson's 4 + reactive", "zh": "课程的 4 步 + reactive"},
    "study.table.no_stage": {"en": "none", "zh": "无"},
    "study.table.lesson_numbers": {"en": "the lesson's", "zh": "课程的默认值"},
})

_STRATEGIES_ZH = {
    "none": "不压缩（窗口大到足以跑完整个会话）",
    "pipeline": "课程的四步，默认数值",
    "micro only": "模拟 API 的 clear_tool_uses：超过 100k token 触发，保留最近 3 次工具调用",
    "summary only": "模拟 API 的 compact_20260112：超过 150k token 时做摘要",
    "archiving": "课程的四步，移除的内容全部先存档",
    "cache-friendly": "存档，每到 50k 字符才集中压缩一次，合并摘要 ≤ 6k",
    # notebook 08's, on the API
    "lesson pipeline": "课程的四步，在客户端运行，默认数值",
    "context editing": "服务器上的 clear_tool_uses_20250919：触发阈值 50k，保留最近 3 次",
    "server compaction": "服务器上的 compact_20260112：触发阈值 50k token",
    "both": "服务器上先 clear_tool_uses，再 compact_20260112",
}
_PROBES_ZH = {   # by the user turn that plants the fact
    2: "用户的约束（第 2 轮）",
    4: "config.toml 里的端口（第 4 轮）",
    7: "src/app.py 里的函数（第 7 轮）",
    12: "grep 找到的 TODO（第 12 轮）",
    25: "42 KB 测试输出里失败的测试（第 25 轮）",
    40: "用户提到的发布标签（第 40 轮）",
    55: "220 KB 日志里的慢请求（第 55 轮）",
    80: "写进笔记的决定（第 80 轮）",
}
register({f"study.strategy.{s.name}": {"en": s.description, "zh": _STRATEGIES_ZH[s.name]}
          for s in [*STRATEGIES, *API_STRATEGIES]})
register({f"study.probe.{p.name}": {"en": p.name, "zh": _PROBES_ZH[p.turn]} for p in PROBES})
_PROBE_NAMES = {p.name for p in PROBES}


def column(name: str, **fields: Any) -> str:
    """A column's header, by its English name."""
    return say(f"study.column.{name}", **fields)


def description(strategy: Any) -> str:
    """What ``strategy`` is: one of the package's own in the chosen language, any other in its
    own words."""
    own = any(strategy is s for s in [*STRATEGIES, *API_STRATEGIES])
    return say(f"study.strategy.{strategy.name}") if own else strategy.description


def probe_name(name: str) -> str:
    """A planted fact's name (``Probe.name``, a key of ``SessionReport.retention``), shown."""
    return say(f"study.probe.{name}") if name in _PROBE_NAMES else name

"""Every English text the notebooks' own code prints, titles or labels, and its Chinese.

A notebook cell writes ``print(translated("turn {turn}: {chars:,} chars sent", turn=t, chars=n))``:
the English stays readable in the code, which is the same in both languages; in a Chinese notebook
(``language("zh")``) the Chinese of the same entry is printed, with the same fields filled in.
``show(value, title=...)`` translates its title the same way. A text that is not an entry is
returned as it is (its fields filled in); the tests read every ``translated(...)`` and ``title=``
of the notebooks and fail unless it is an entry, so a Chinese notebook prints no English sentence.
"""

from __future__ import annotations

from ..texts import register, say

TEXTS = {
    # -- 00–03 ------------------------------------------------------------------------------
    "the whole session": "整个会话",
    "the offline model's answer": "离线模型的回答",
    "experiment 3, compaction on": "实验三，开启压缩",
    "experiment 3, compaction off": "实验三，关闭压缩",
    "what the model now sees instead of build.log": "模型现在看到的内容（代替 build.log）",
    "the answer from a 500-char preview": "根据 500 字符预览给出的回答",
    # -- 04–05 ------------------------------------------------------------------------------
    "the offline model's answer, written after compaction": "离线模型在压缩之后写出的回答",
    "s09_memory/README.md in the demo course": "演示课程中的 s09_memory/README.md",
    "the end of the transcript saved at compaction: the closed turn":
        "压缩时保存的 transcript 的结尾：已结束的那一轮",
    "reactive_compact at turn {turn}: refused at {tokens:,} tokens, under 50,000 chars":
        "reactive_compact 在第 {turn} 轮：{tokens:,} 个 token 时被拒绝，不到 50,000 字符",
    # -- 06–08 ------------------------------------------------------------------------------
    "refused": "被拒绝",
    "keep_recent_results = {keep}: {placeholders} placeholders, {turns} turns":
        "keep_recent_results = {keep}：{placeholders} 个占位符，共 {turns} 轮",
    "lab.run raised: {error}": "lab.run 抛出了异常：{error}",
    "{turns} turns, {rereads} of its tool calls repeat an earlier one":
        "共 {turns} 轮，其中 {rereads} 次工具调用重复了之前的调用",
    "failure: {failure}; stages fired: {fired}": "失败：{failure}；触发的步骤：{fired}",
    "experiment {n}": "实验 {n}",
    "baseline": "对照组",
    "Experiment {n}": "实验 {n}",
    "Baseline (no compaction), experiment {n}": "对照组（不压缩），实验 {n}",
    "each run took: {times}": "每次运行的耗时：{times}",
    "{chars:,} chars in {messages} messages; {error}": "{messages} 条消息，共 {chars:,} 个字符；{error}",
    "starting": "开始",
    "{strategy}: turn {done} of {turns}": "{strategy}：第 {done} 轮，共 {turns} 轮",
    "replayed": "已重放",
    "all {kept} sessions remembered": "{kept} 个会话全部直接载入（之前重放过）",
    "{kept} of {total} sessions remembered, the rest replayed":
        "{total} 个会话中 {kept} 个直接载入，其余重放",
    "{done} in {seconds:.1f} s": "{done}，用时 {seconds:.1f} 秒",
    "each session's replay took: {times}": "每个会话的重放耗时：{times}",
    "the pipeline: {pipeline:.2f}× its floor; no compaction {none:.2f}×; cache-friendly {friendly:.2f}×":
        "pipeline：其下限的 {pipeline:.2f}×；不压缩：{none:.2f}×；cache-friendly：{friendly:.2f}×",
    "the pipeline saves {tokens:.1%} of the input tokens, {cost:.1%} of the cache-aware cost":
        "pipeline 节省了 {tokens:.1%} 的输入 token、{cost:.1%} 的计入缓存的成本",
    "the pipeline's summary: {first:,} → {last:,} chars; cache-friendly: at most {most:,}":
        "pipeline 的摘要：{first:,} → {last:,} 个字符；cache-friendly：最多 {most:,} 个字符",
    "[… {lines} lines left out …]": "[…… 中间省略 {lines} 行 ……]",
    "the cache-friendly strategy's last summary: its first and last lines":
        "cache-friendly 策略的最后一份摘要：开头和结尾几行",
    "read {read}×, write {write}×: {ranked}": "读取 {read}×，写入 {write}×：{ranked}",
    "live: real Claude": "在线：真实的 Claude",
    "offline: the offline model's server, window 200,000 tokens":
        "离线：离线模型的服务器，窗口 200,000 token",
    "{turns} user turns, with notebook 07's probe facts planted along the way\n":
        "{turns} 轮用户请求，途中埋入 notebook 07 的探针事实\n",
    "    client stages: {stages};  context_management: {sent}":
        "    客户端步骤：{stages}；context_management：{sent}",
    "none": "无",
    "{name:<18} {turns} turns, {requests} requests, {seconds:5.1f} s":
        "{name:<18} {turns} 轮，{requests} 次请求，{seconds:5.1f} 秒",
    " (remembered: loaded, not replayed)": "（已记住：直接载入，没有重放）",
    "pipeline {pipeline:,} tokens; context editing {editing:,}; server compaction {compaction:,}; "
    "both {both:,}":
        "课程的管线 {pipeline:,} 个 token；上下文编辑 {editing:,}；服务端压缩 {compaction:,}；"
        "两者同时使用 {both:,}",
    "cache-aware: context editing {editing:,.0f}, server compaction {compaction:,.0f}":
        "计入缓存：上下文编辑 {editing:,.0f}，服务端压缩 {compaction:,.0f}",
    "applied edit {type}: cleared_tool_uses {uses}, cleared_input_tokens {tokens:,}":
        "应用的编辑 {type}：cleared_tool_uses {uses}，cleared_input_tokens {tokens:,}",
    "usage.iterations: {type}, {input:,} in, {output:,} out":
        "usage.iterations：{type}，输入 {input:,}，输出 {output:,}",
    "usage (top level): {input:,} in, {output:,} out": "usage（顶层）：输入 {input:,}，输出 {output:,}",
    "\nthe compaction block, its first 12 lines (each cut at 150 chars):\n{lines}":
        "\ncompaction 块的前 12 行（每行截到 150 个字符）：\n{lines}",
    "\nsent back: {messages} messages; the model is shown {shown}: the summary, nothing before it":
        "\n发回 {messages} 条消息；模型看到其中 {shown} 条：摘要，它之前的内容都看不到",
}
register({f"notebook.{en}": {"en": en, "zh": zh} for en, zh in TEXTS.items()})


def translated(text: str, **fields: object) -> str:
    """``text`` (an entry of ``TEXTS``) in the chosen language, its fields filled in; any other
    text as it is, its fields filled in."""
    return say(f"notebook.{text}", **fields) if text in TEXTS else text.format(**fields)

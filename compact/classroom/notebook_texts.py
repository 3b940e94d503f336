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
    "the start of s09_memory/README.md in the demo course": "演示课程中 s09_memory/README.md 的开头",
    "the end of the transcript saved at compaction: the closed turn":
        "压缩时保存的 transcript 的结尾：已结束的那一轮",
    "reactive_compact at turn {turn}: refused at {tokens:,} tokens, under 50,000 chars":
        "reactive_compact 在第 {turn} 轮：{tokens:,} 个 token 时被拒绝，不到 50,000 字符",
    "stored as: {start} ...": "存储形式：{start} ...",
    "{path}: {count:,} messages, exactly those compacted: {same}":
        "{path}：{count:,} 条消息，正好是被压缩的那些：{same}",
    "the last role=user message, a tool result: {line}": "最后一条 role=user 消息，一条工具结果：{line}",
    "the Authoritative request: {request}": "权威请求：{request}",
    "the Reference state says: {notes}": "参考状态里写着：{notes}",
    "turns sent from the [Compacted] message: {turns}": "从 [Compacted] 消息出发发送的轮次：{turns}",
    "{chars:,} chars of log; on disk: {{\"lesson's order\": {ordered}, 'swapped': {swapped}}}":
        "{chars:,} 字符的日志；是否在磁盘上：按课程的顺序 {ordered}，颠倒顺序 {swapped}",
    "swapped, the log in the context: {log}": "颠倒顺序后，上下文中的日志：{log}",
    "cheap stages first, the stage that fired:": "便宜的步骤在前，触发的那一步：",
    "the summary first, the stage that fired:": "摘要在前，触发的那一步：",
    "summary calls: cheap first {cheap}, summary first {summary}":
        "摘要调用次数：便宜的步骤在前 {cheap} 次，摘要在前 {summary} 次",
    "in the transcript on disk: {found}": "在磁盘上的 transcript 里：{found}",
    "prose": "普通文字",
    "code with quotes": "带引号的代码",
    "{label:>16}: len(str(messages)) {lesson:>7,}   wire JSON {wire:>7,}":
        "{label:>16}：len(str(messages)) {lesson:>7,}   发送的 JSON {wire:>7,}",
    "the lesson's summary input, {chars:,} chars: {refusal}": "课程的摘要输入，{chars:,} 字符：{refusal}",
    "compact_history fired at turns {turns} | summaries: {sizes}":
        "compact_history 在第 {turns} 轮触发 | 摘要：{sizes}",
    "{chars:,} chars": "{chars:,} 字符",
    "the second one's history starts with: {line}": "第二次压缩时，历史的开头是：{line}",
    "the model's window: {tokens:,} tokens": "模型的上下文窗口：{tokens:,} 个 token",
    "the refused request": "被拒绝的请求",
    "turn 2: {chars:,} chars before the pipeline (limit 50,000), refused {times} time, then sent "
    "{tokens:,} tokens after {stages}":
        "第 2 轮：进入管线前 {chars:,} 字符（阈值 50,000），被拒绝 {times} 次，经过 {stages} 之后"
        "发送了 {tokens:,} 个 token",
    "raised to the caller: {refusal}": "抛给调用方：{refusal}",
    "the model: {reply}": "模型：{reply}",
    "s07: {count:,} messages, nothing compacted, then refused: {refusal}":
        "s07：{count:,} 条消息，没有任何压缩，随后被拒绝：{refusal}",
    "s08: {fired} fired; answered after {calls:,} model calls, {count:,} messages kept":
        "s08：触发了 {fired}；调用模型 {calls:,} 次后给出回答，保留 {count:,} 条消息",
    "tools: {names}": "工具：{names}",
    "{found:,} of {total:,} quoted lines are in compact/loop.py":
        "引用的 {total:,} 行中有 {found:,} 行出现在 compact/loop.py 里",
    "    the lesson's test: {lesson}; the package's: {package}":
        "    课程的判断：{lesson}；包的判断：{package}",
    "English": "英文",
    "Chinese": "中文",
    "{language}: {chars:,} chars → {tokens:,} tokens = {per_token:.1f} chars per token":
        "{language}：{chars:,} 字符 → {tokens:,} 个 token = 每个 token {per_token:.1f} 个字符",
    # -- 06–08 ------------------------------------------------------------------------------
    "refused": "被拒绝",
    "the cache-friendly strategy's last summary": "cache-friendly 策略的最后一份摘要",
}
register({f"notebook.{en}": {"en": en, "zh": zh} for en, zh in TEXTS.items()})


def translated(text: str, **fields: object) -> str:
    """``text`` (an entry of ``TEXTS``) in the chosen language, its fields filled in; any other
    text as it is, its fields filled in."""
    return say(f"notebook.{text}", **fields) if text in TEXTS else text.format(**fields)

"""Every English text the notebooks' own code prints, and its Chinese: a cell writes
``print(translated("turn {turn}: {chars:,} chars sent", turn=t, chars=n))`` and a Chinese
notebook prints the Chinese of the same entry (``show``'s titles too); a text that is no entry
is returned as it is, its fields filled in.
"""

from __future__ import annotations

from ..texts import register, say

TEXTS = {
    # -- 00–03 ------------------------------------------------------------------------------
    "the offline model's answer": "离线模型的回答",
    "experiment 3, compaction off": "实验三，关闭压缩",
    "turn {turn}: {error}": "第 {turn} 轮：{error}",
    "what the model now sees instead of build.log": "模型现在看到的内容（代替 build.log）",
    "the answer from a 500-char preview": "根据 500 字符预览给出的回答",
    "turn 1 sent {chars:,} chars of messages; the model counted {tokens:,} tokens":
        "第 1 轮发送了 {chars:,} 个字符的消息；模型统计为 {tokens:,} 个 token",
    "  the question alone:  {tokens:,} tokens ({ratio:.1f} chars per token)":
        "  只算问题本身：  {tokens:,} 个 token（每个 token {ratio:.1f} 个字符）",
    "  + a {system:,}-char system prompt and {tools} tool definitions: {tokens:,} tokens":
        "  加上 {system:,} 个字符的 system 提示词和 {tools} 个工具定义：{tokens:,} 个 token",
    "typed: {typed}\n(the REPL took {seconds:.1f} s, starting a new Python included)\n":
        "输入：{typed}\n（REPL 用了 {seconds:.1f} 秒，包括启动一个新的 Python）\n",
    "each result, chars before: {sizes}": "每条结果之前的字符数：{sizes}",
    "each result, chars after:  {sizes}": "每条结果之后的字符数：{sizes}",
    "the batch (the three results together): {before:,} → {after:,} chars, against the 200,000 budget":
        "这一批结果（三条合计）：{before:,} → {after:,} 个字符，预算是 200,000",
    "{path}: {size:,} bytes, the same as the result": "{path}：{size:,} 字节，与结果完全相同",
    "… {count} more lines like these …": "……还有 {count} 行同样的内容……",
    "on disk: {paths}": "磁盘上：{paths}",
    "turn {turn}: the whole message list (the picture's title, the run table): {before:,} → {sent:,} chars":
        "第 {turn} 轮：整个消息列表（开头那张图的标题、运行表）：{before:,} → {sent:,} 个字符",
    "turn {turn}: the newest batch's tool-result text (this plot): {arrived:,} → {sent:,} chars":
        "第 {turn} 轮：最新一批工具结果的文本（这张图）：{arrived:,} → {sent:,} 个字符",
    "experiment 2, forgetful vs right: {found}": "实验二，健忘的版本与正确版本相比：{found}",
    "pass {number} wrote: {files}": "第 {number} 次写入：{files}",
    "nothing": "什么也没写",
    "check: not yet, pass 2 wrote {files}": "检查：还没有，第 2 次写入了 {files}",
    "check: done, pass 2 wrote nothing": "检查：完成，第 2 次什么也没写",
    "no difference": "没有差别",
    "the lesson's ranking puts first: {first}": "按课程的排序，排在第一的是：{first}",
    "text[:2000] ends with {end!r}: a broken family": "text[:2000] 的结尾是 {end!r}：一个残缺的家庭表情",
    "the package's preview: {chars:,} chars, ending with {end!r}":
        "本包的预览：{chars:,} 个字符，结尾是 {end!r}",
    "the model: {reply}": "模型：{reply}",
    "the copy's list is a valid history: every tool_use is answered in the next message":
        "改写版裁剪后的列表是有效的历史：每个 tool_use 都在下一条消息里得到了回应",
    "the package stopped the copy's list: {reason}": "本包拦下了改写版裁剪后的列表：{reason}",
    "write my_uncut_snip first: it still raises NotImplementedError":
        "先写 my_uncut_snip：它还在抛出 NotImplementedError",
    "head_end {head} | tail_start {tail} of {count} | the model accepted it and replied: {accepted}":
        "head_end {head} | tail_start {tail}（共 {count} 条）| 模型接受了它并作出回复：{accepted}",
    "{before} → {after} messages; the constraint is still in the context: {there}":
        "{before} → {after} 条消息；这条约束还在上下文中：{there}",
    "experiment 1 alone: at most {alone} messages; in the long session the snip fired at turns "
    "{turns}, and at most {most} messages were sent":
        "单独运行实验一：最多 {alone} 条消息；在长会话中，省略在第 {turns} 轮触发，发送的消息最多 {most} 条",
    "lesson : {first} then {second}": "课程：{first}，然后 {second}",
    "package: {marker} (10 + 2 messages of the conversation are gone)":
        "本包：{marker}（对话中共有 10 + 2 条消息被删去）",
    "the transcript holds the {count} snipped messages; the constraint among them: {found}":
        "transcript 中保存着被省略的 {count} 条消息；那条约束在其中：{found}",
    "lesson : {texts}": "课程：{texts}",
    "package: {texts}": "本包：{texts}",
    "notes": "有笔记",
    "no notes": "无笔记",
    "input tokens without notes: {extra:+.1%} (the notes cost tokens too; the re-runs cost tool calls)":
        "不记笔记时的输入 token：{extra:+.1%}（笔记本身也花 token；重新执行要花工具调用）",
    # -- 04–05 ------------------------------------------------------------------------------
    "the offline model's answer, written after compaction": "离线模型在压缩之后写出的回答",
    "the start of s09_memory/README.md in the demo course": "演示课程中 s09_memory/README.md 的开头",
    "the end of the transcript saved at compaction: the closed turn":
        "压缩时保存的 transcript 的结尾：已闭合的回合",
    "stored as: {start} ...": "存储形式：{start} ...",
    "{path}: {count:,} messages, exactly those compacted: {same}":
        "{path}：{count:,} 条消息，正好是被压缩的那些：{same}",
    "the last role=user message, a tool result: {line}": "最后一条 role=user 消息，一条工具结果：{line}",
    "the Authoritative request: {request}": "权威请求：{request}",
    "the Reference state says: {notes}": "参考状态里写着：{notes}",
    "turns sent from the [Compacted] message: {first} to {last}":
        "从 [Compacted] 消息出发发送的轮次：第 {first} 到 {last} 轮",
    "{chars:,} chars of log; on disk: {{\"lesson's order\": {ordered}, 'swapped': {swapped}}}":
        "{chars:,} 字符的日志；是否在磁盘上：按课程的顺序 {ordered}，颠倒顺序 {swapped}",
    "swapped, the log in the context: {log}": "颠倒顺序后，上下文中的日志：{log}",
    "cheap stages first, the stage that fired:": "低成本的步骤在前，触发的那一步：",
    "the summary first, the stage that fired:": "摘要在前，触发的那一步：",
    "summary calls: cheap first {cheap}, summary first {summary}":
        "摘要调用次数：低成本的步骤在前 {cheap} 次，摘要在前 {summary} 次",
    "in the transcript on disk: {found}": "在磁盘上的 transcript 里：{found}",
    "prose": "普通文字",
    "code with quotes": "带引号的代码",
    "len(str(messages)) {lesson:>7,}   wire JSON {wire:>7,}   ({label})":
        "len(str(messages)) {lesson:>7,}   发送的 JSON {wire:>7,}   （{label}）",
    "the lesson's summary input, {chars:,} chars: {refusal}": "课程的摘要输入，{chars:,} 字符：{refusal}",
    "compact_history fired at turns {first} and {second} | summaries: {one:,} and {two:,} chars":
        "compact_history 在第 {first}、{second} 轮触发 | 摘要：{one:,} 与 {two:,} 个字符",
    "the second one's history starts with: {line}": "第二次压缩时，历史的开头是：{line}",
    "turn 1: {chars:,} chars sent, ÷ 4 ≈ {estimate:,} tokens; the model counted {tokens:,} "
    "({alone:,} for the messages, {overhead:,} for the system prompt and tools)":
        "第 1 轮：发送了 {chars:,} 个字符，÷ 4 ≈ {estimate:,} 个 token；模型统计为 {tokens:,} 个"
        "（消息本身 {alone:,} 个，system 提示词和工具定义 {overhead:,} 个）",
    "turn 2: {chars:,} chars before the pipeline (limit 50,000), refused {times} time, then sent "
    "{tokens:,} tokens after {stages}":
        "第 2 轮：进入管线前 {chars:,} 字符（阈值 50,000），被拒绝 {times} 次，经过 {stages} 之后"
        "发送了 {tokens:,} 个 token",
    "raised to the caller: {refusal}": "抛给调用方：{refusal}",
    "the model's last reply": "模型的最后一条回复",
    "turn {turn}, tool calls: {calls}": "第 {turn} 轮的工具调用：{calls}",
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
    "keep_recent_results = {keep}: {placeholders} placeholders, {turns} turns":
        "keep_recent_results = {keep}：{placeholders} 个占位符，共 {turns} 轮",
    "what the last turn sent: which results are placeholders": "最后一轮发送的消息：哪些结果已是占位符",
    "lab.run raised: {error}":
        "lab.run 抛出了异常（下面是循环的英文原话，意思是：Agent 没能在轮数上限内完成，历史完整保留；"
        "可以提高 max_turns，或查看 error.trace）：{error}",
    "{turns} turns, {rereads} of its tool calls repeat an earlier one":
        "共 {turns} 轮，其中 {rereads} 次工具调用重复了之前的调用",
    "failure: {failure}; stages fired: {fired}": "失败：{failure}；触发的步骤：{fired}",
    "Experiment 1": "实验一",
    "Experiment 2": "实验二",
    "Experiment 3": "实验三",
    "Baseline (no compaction), experiment 3": "对照组（不压缩），实验三",
    "{name} took {ms:,.0f} ms": "{name}用时 {ms:,.0f} 毫秒",
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
    ("read from cache: the pipeline {pipeline:.0%} of what it sends "
     "(the other {written:.0%} written again at 1.25×); no compaction {none:.0%}"):
        "从缓存读取：pipeline 发送内容的 {pipeline:.0%}（其余 {written:.0%} 按 1.25× 重新写入）；"
        "不压缩：{none:.0%}",
    "micro only and summary only send {micro:.1f}× and {summary:.1f}× the pipeline's input tokens":
        "只用一步的两种策略发送的输入 token 分别是 pipeline 的 {micro:.1f}×（只清除旧结果）"
        "和 {summary:.1f}×（只做摘要）",
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
    "count_tokens: input_tokens {tokens:,}, context_management.original_input_tokens {original:,}":
        "count_tokens：编辑后 input_tokens {tokens:,}，"
        "编辑前 context_management.original_input_tokens {original:,}",
    "messages.create: usage.input_tokens {tokens:,}":
        "messages.create：模型读到的 usage.input_tokens {tokens:,}",
    "applied edit {type}: cleared_tool_uses {uses}, cleared_input_tokens {tokens:,}":
        "应用的编辑 {type}：cleared_tool_uses {uses}，cleared_input_tokens {tokens:,}",
    "usage.iterations: {type}, {input:,} in, {output:,} out":
        "usage.iterations：{type}，输入 {input:,}，输出 {output:,}",
    "usage (top level): {input:,} in, {output:,} out": "usage（顶层）：输入 {input:,}，输出 {output:,}",
    "the compaction block, its first 12 lines (each cut at 150 chars):\n{lines}":
        "compaction 块的前 12 行（每行截到 150 个字符）：\n{lines}",
    "\nsent back: {messages} messages; the model is shown {shown}: the summary, nothing before it":
        "\n发回 {messages} 条消息；模型看到其中 {shown} 条：摘要，它之前的内容都看不到",
    "the REPL's answer (notebook 04 reads it whole)": "REPL 的回答（notebook 04 会完整地细读它）",
    "the summary on config.toml: {note}": "摘要里关于 config.toml 的内容：{note}",
    # s40-nba
    "the API refused: {reply}": "API 拒绝：{reply}",
    "{name:>8}: {calls:>2} tool calls ({rereads} re-reads), {tokens:,} input tokens":
        "{name}：{calls:>2} 次工具调用（其中 {rereads} 次重复读取），{tokens:,} 个输入 token",
    "check: done, the second marker is {marker}: 10 + 2 messages, its file on disk":
        "检查：完成，第二个标记是 {marker}：10 + 2 条消息，文件就在磁盘上",
    "check: not yet, the second marker is {marker}": "检查：还没有，第二个标记是 {marker}",
    "write my_v8_snip first: it still raises NotImplementedError":
        "先写 my_v8_snip：它还在抛出 NotImplementedError",
}
register({f"notebook.{en}": {"en": en, "zh": zh} for en, zh in TEXTS.items()})


def translated(text: str, **fields: object) -> str:
    """``text`` (an entry of ``TEXTS``) in the chosen language, its fields filled in; any other
    text as it is, its fields filled in."""
    return say(f"notebook.{text}", **fields) if text in TEXTS else text.format(**fields)

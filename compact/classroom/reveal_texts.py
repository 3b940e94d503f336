"""Every explanation a notebook's ``reveal`` gives, in English and Chinese, keyed
``why.<notebook>.<name>``; the fields are the run's numbers, formatted here (``{size:,}``)."""

from __future__ import annotations

from ..texts import register

SAME_RUN_HINT = {   # the tail several "is yours the same run?" explanations share
    "en": "(a wrong stage shows up as a different size on some turn: {found})",
    "zh": "（写错的话，某一轮发送的大小就会不同：{found}）",
}

SOLUTION_RAN = {   # how the "same run" explanations begin when the worked solution ran
    "en": "the worked solution ran, not yours (delete the line marked ← to run yours): ",
    "zh": "运行的是参考答案，不是你写的（删掉行尾标着“←”的那一行导入，运行的才是你自己的）：",
}

register({
    "why.none_here": {"en": "none here", "zh": "这里没有"},

    # 00 · the context window
    "why.00.refused_turn": {
        "en": "each turn reads one whole code file and keeps it: turn {turn} would have sent "
              "both files, {size:,} chars, which the model counts as {tokens:,} tokens, over its "
              "{window:,}-token window",
        "zh": "每一轮都读入一个完整的代码文件并把它留在上下文中：第 {turn} 轮本要同时发送两个文件，"
              "共 {size:,} 个字符，模型算作 {tokens:,} 个 token，超出了它 {window:,} token 的窗口"},
    "why.00.largest_kind": {
        "en": "the file the agent read is {share:.1%} of the characters of that request; the "
              "question, the model's short reply and its tool call are {rest} characters in all",
        "zh": "Agent 读取的文件占那次请求字符数的 {share:.1%}；问题、模型简短的回复和它的工具调用"
              "加起来只有 {rest} 个字符"},
    "why.00.question_tokens": {
        "en": "the system prompt and the tool definitions ride along on every call: they are "
              "{extra} of the {tokens} tokens",
        "zh": "system 提示词和工具定义每次调用都会一起发送：{tokens} 个 token 中有 {extra} 个是它们"},
    "why.00.finishes": {
        "en": "at turn {turn} the history ({before:,} chars) was over 50,000, so compact_history "
              "replaced it with one [Compacted] message: {sent:,} chars were sent, and the agent "
              "finished from the summary",
        "zh": "第 {turn} 轮时，历史（{before:,} 个字符）超过了 50,000，于是 compact_history 把它替换成"
              "一条 [Compacted] 消息：只发送了 {sent:,} 个字符，Agent 依据摘要完成了任务"},

    # 01 · step 1, tool_result_budget
    "why.01.build_log": {
        "en": "build.log, the largest, went first; the batch was then {size:,} chars, within the "
              "budget, so the stage stopped and test.log stayed whole, although it is over the "
              "threshold",
        "zh": "最大的 build.log 最先转存；这批结果随后只剩 {size:,} 个字符，已在预算以内，所以这一步"
              "停了下来，test.log 虽然超过阈值，仍保持完整"},
    "why.01.single": {
        "en": "the batch is under 200,000 characters, so the stage has nothing to do: a large "
              "result that arrives alone is left to the later stages (micro_compact, then "
              "compact_history)",
        "zh": "这批结果不到 200,000 个字符，所以这一步无事可做：单独到达的大结果留给后面的步骤处理"
              "（先是 micro_compact，然后是 compact_history）"},
    "why.01.same_run": {
        "en": "the stage you passed in persisted the same file and left the same path and preview "
              + SAME_RUN_HINT["en"],
        "zh": "你传进去的这一步转存了同一个文件，留下了同样的路径和预览" + SAME_RUN_HINT["zh"]},
    "why.01.preview_fields": {
        "en": "the file is {size:,} characters, but its first record ends {ends:,} characters in, "
              "inside the 2,000-character preview (had it not been, the agent would have to read "
              "the file back in parts: see the Recap)",
        "zh": "这个文件有 {size:,} 个字符，但第一条记录在第 {ends:,} 个字符处就结束了，落在 2,000 "
              "字符的预览之内（假如不在，Agent 就得把文件分段读回来：见小结）"},
    "why.01.at_50k": {
        "en": "after build.log the batch still held over 50,000 chars, so test.log went too; "
              "setup.cfg is under the threshold and the batch fitted by then",
        "zh": "转存 build.log 之后，这批结果仍超过 50,000 个字符，所以 test.log 也被转存；setup.cfg "
              "低于阈值，而且到这时这批结果已在预算以内"},
    "why.01.at_zero": {
        "en": "the threshold still applies: setup.cfg is far shorter than 30,000 characters, so "
              "it stays whatever the budget",
        "zh": "阈值仍然起作用：setup.cfg 远短于 30,000 个字符，所以无论预算是多少，它都留在上下文中"},
    "why.01.body_at_500": {
        "en": "the first record ends {ends:,} characters in: a 500-char preview cuts it off, and "
              "the model says more fields may follow. Try 1_000.",
        "zh": "第一条记录在第 {ends:,} 个字符处结束：500 字符的预览把它截断了，模型会说后面可能"
              "还有字段。试试 1_000。"},

    # 02 · step 2, snip_compact
    "why.02.snipped_count": {
        "en": "3 + 47 = 50 messages stay (messages 0–2, then the last 47 from message 28 on), so "
              "the 25 in between, messages 3–27, become one marker: 75 → 51 messages",
        "zh": "留下 3 + 47 = 50 条消息（第 0–2 条，以及从第 28 条起的最后 47 条），所以中间的 25 条，"
              "即第 3–27 条，变成一条省略标记：75 → 51 条消息"},
    "why.02.naive": {
        "en": "the API answers 400 invalid_request_error: every tool_use must be answered by a "
              "tool_result in the very next message, and t0's call (message 2) is now followed by "
              "the marker; the tail's first message is a result whose call was cut",
        "zh": "API 返回 400 invalid_request_error：每个 tool_use 都必须在紧接着的下一条消息里由一个 "
              "tool_result 答复，而 t0 的调用（第 2 条消息）后面现在跟着的是省略标记；结尾的第一条"
              "消息是一条结果，它的调用已被切掉"},
    "why.02.same_run": {
        "en": "the stage you passed in makes the same cut as the package's on every turn; a stage "
              "one message off, or one that counts its own marker, would send other messages and "
              "draw another line below",
        "zh": "你传进去的这一步每一轮都和本包的切在同一个位置；差一条消息的实现，或者把自己的省略标记"
              "也算进去的实现，会发送不同的消息，下面的图也会画出另一条线"},
    "why.02.length": {
        "en": "more than max_messages messages become the first 3, one marker and the last "
              "max_messages − 3; otherwise all 60 stay. At 59 one message is cut and the marker "
              "takes its place",
        "zh": "消息超过 max_messages 条时，变成最初 3 条、一条省略标记和最近 max_messages − 3 条；"
              "否则 60 条全部保留。设为 59 时，有一条消息被裁掉，省略标记占了它的位置"},

    # 03 · step 3, micro_compact
    "why.03.placeholders": {
        "en": "the three newest (c, d, e) stay whole; of the older three, VERSION is under 120 "
              "characters, so only a.cfg and b.cfg become placeholders",
        "zh": "最新的三条（c、d、e）保持完整；较早的三条中，VERSION 不到 120 个字符，所以只有 a.cfg "
              "和 b.cfg 变成占位符"},
    "why.03.same_run": {
        "en": "experiment 1 reads one file per turn and persists nothing, so the lesson's rule is "
              "all it needs " + SAME_RUN_HINT["en"],
        "zh": "实验一每轮读取一个文件，不转存任何内容，所以课程的规则就够用了" + SAME_RUN_HINT["zh"]},
    "why.03.keep_one": {
        "en": "at the last request the newest result, the last README, is one the model has not "
              "read yet and stays whole; the five before it are all over 120 characters, so all "
              "five are placeholders, the glob listing and four READMEs",
        "zh": "最后一次请求时，最新的那条结果（最后一个 README）模型还没读过，保持完整；它之前的五条"
              "都超过 120 个字符，所以五条全是占位符：glob 的文件列表和四个 README"},
    "why.03.floor": {
        "en": "the three newest READMEs stay as before; of the older three, the glob listing "
              "({listing:,} characters) is now under the floor and stays whole, so only the first "
              "two READMEs are placeholders",
        "zh": "最新的三个 README 照旧保留；较早的三条中，glob 的文件列表（{listing:,} 个字符）现在低于"
              "下限，保持完整，所以只有前两个 README 是占位符"},
    "why.03.titles": {
        "en": "the model wrote a one-line note about each file in its own text as it read it "
              "(the offline model writes them as lines 'Note [file]: …'; what a real model keeps "
              "in its text is its own choice), and micro_compact never touches assistant text; an "
              "agent that keeps no notes must re-read (Going further)",
        "zh": "模型每读一个文件，就在自己的文字里为它写下一行笔记（离线模型写成“笔记 [文件]：…”这样"
              "的行；真实模型在文字里记下什么，由它自己决定），而 micro_compact 从不改动 assistant 的文字；"
              "不做笔记的 Agent 只能重新读取（见“延伸”）"},

    # 04 · step 4, compact_history
    "why.04.stages": {
        "en": "stage 1 waits for a batch over 200,000 chars, stage 2 for more than 50 messages, "
              "stage 3 for more than 3 results; none fired, the size was still over 50,000, so "
              "stage 4 ran",
        "zh": "第一步要等一批结果超过 200,000 个字符，第二步要等消息超过 50 条，第三步要等结果超过 "
              "3 条；它们都没有触发，大小仍超过 50,000，所以第四步运行了"},
    "why.04.planted": {
        "en": "the Authoritative request is the active_request the caller passed in, not the last "
              "role=user message (the tool result above); what the summariser kept of the file "
              "sits in the Reference state, data the agent is told never to take as authorization",
        "zh": "权威请求（Authoritative request:）是调用方传入的 active_request，而不是最后一条 "
              "role=user 消息（上面那条工具结果）；摘要器从这个文件里记下的内容放在参考状态中，"
              "Agent 被告知那只是数据，绝不能当作授权"},
    "why.04.same_run": {
        "en": "a stage that writes the lesson's two sections byte for byte sends what the "
              "package's sends (a summary not json.dumps'd shows up as other sizes: {found})",
        "zh": "逐字节写出课程那两个部分的实现，发送的内容与本包的完全相同（摘要没有经过 json.dumps "
              "时，发送的大小就会不同：{found}）"},
    "why.04.swapped": {
        "en": "stage 3 replaced the log before stage 1 saw it, and a placeholder is not over the "
              "persist threshold, so nothing was saved: no copy of the log exists until the tool is "
              "run again. A re-run would bring a new {chars:,}-char batch that stage 1 then "
              "persists, but only if the build still fails the same way: a re-run may not "
              "reproduce the log. In the lesson's order stage 1 saves it first. (The package's "
              "micro_compact leaves this batch alone in either order: the model has not read it "
              "yet; notebook 03, “the newest batch, not yet seen”)",
        "zh": "第三步在第一步看到日志之前就把它替换了，而占位符没有超过转存阈值，所以什么也没有保存："
              "在重新执行工具之前，这份日志没有任何副本。重新执行会带回新的一批 {chars:,} 个字符的结果，"
              "第一步这时会把它转存；但前提是构建仍以同样的方式失败：重新执行未必能再现这份日志。"
              "按课程的顺序，第一步会先把它保存下来。（本包的 micro_compact 无论顺序如何都不会动这批"
              "结果：模型还没读到它们，见 notebook 03 的“最新一批结果，模型还没看到”）"},
    "why.04.port": {
        "en": "the summariser was sent the whole of this {lines}-line file, line {line} included, and "
              "kept what it chose: of a text file, the offline summariser notes its size and first "
              "line (a model might keep the port, or not). The transcript keeps it for people and "
              "tools, and nothing in the context even says where. What must outlive compaction is "
              "written on purpose to memory: chapter s09",
        "zh": "摘要器收到了这个 {lines} 行文件的全部内容，第 {line} 行也在其中，但只留下了它选中的内容："
              "对一个文本文件，离线摘要器只记下它的大小和第一行（换成模型，可能留下端口，也可能不留）。"
              "transcript 为人和工具保存着这一行，但上下文里连它在哪里都没有提到。需要跨压缩保留的信息，"
              "要有意写进记忆：见 s09 一章"},
    "why.04.turns": {
        "en": "stage 4 fires on a turn whose context is still over {limit:,} chars after stages "
              "1–3; {outcome}",
        "zh": "经过第一步到第三步之后，上下文仍超过 {limit:,} 个字符的那一轮，第四步就会触发；{outcome}"},
    "why.04.refused": {"en": "this run was refused: {error}", "zh": "这次运行被拒绝了：{error}"},
    "why.04.finished": {"en": "this run finished", "zh": "这次运行完成了"},
    "why.04.slip": {
        "en": "every line break and quote of the summary is one character where JSON writes two",
        "zh": "摘要里的每个换行和引号都只占一个字符，而 JSON 会把它们写成两个字符"},

    # 05 · after a refusal, in the loop, the compact tool
    "why.05.same_rescue": {
        "en": "the stage you passed in cut at the same place and summarised the same messages; a tail one "
              "message short, or a summary of the whole history, would send other messages from "
              "turn 2 on and move the points below",
        "zh": "你传进去的这一步在同一个位置切分，摘要了同样的消息；结尾少留一条消息，或者摘要整段历史，"
              "都会从第 2 轮起发送不同的消息，下图中的点也会移动"},
    "why.05.first_message": {
        "en": "messages[:] = ... replaces the contents of the list the caller passed in; "
              "messages = ... would only rebind the loop's own name, and the caller's history "
              "would keep the whole conversation and send it all again with the next query",
        "zh": "messages[:] = ... 替换的是调用方传进来的那个列表的内容；messages = ... 只会让循环"
              "自己的变量名指向一个新列表，调用方的 history 仍保留整段对话，并在处理下一个 query 时"
              "把它全部再发送一遍"},
    "why.05.wrong_way": {
        "en": "the results answer tool_use blocks that are no longer in the history: orphan "
              "tool_results, which the API refuses. Closing the batch first keeps every pair whole",
        "zh": "这些结果答复的 tool_use 块已经不在历史里了：它们成了孤立的 tool_result，API 会拒绝。"
              "先闭合批次，每一对就都保持完整"},

    # 06 · the lab
    "why.06.keep_one": {
        "en": "only the newest result stays whole, so the five older ones, all over 120 "
              "characters, become placeholders",
        "zh": "只有最新的一条结果保持完整，所以较早的五条（都超过 120 个字符）全部变成占位符"},
    "why.06.max_messages": {
        "en": "with its first reads snipped away the agent starts over (glob, s01, s02, ...) and "
              "reads in circles until the turn limit; the dashboard shows the error in red above "
              "the plot and in the stage events",
        "zh": "最早的几次读取被裁掉后，Agent 从头开始（glob、s01、s02……），原地打转地反复读取，"
              "直到达到轮数上限；仪表盘在图的上方和步骤事件中用红色显示这个错误"},
    "why.06.high_limit": {
        "en": "at 100,000 chars compact_history never fires, so the request passes the model's "
              "window; reactive_compact keeps the last 5 messages and this history has only 5, so "
              "there is nothing before them to summarise and the refusal stands",
        "zh": "设为 100,000 个字符时 compact_history 从不触发，于是请求超出了模型的窗口；"
              "reactive_compact 保留最近 5 条消息，而这段历史一共只有 5 条，前面没有可以摘要的内容，"
              "所以拒绝依然成立"},

    # 07 · comparing strategies
    "why.07.fewest_sent": {
        "en": "it compacts before every call, so no call sends more than {peak:,} chars: "
              "{tokens:,} input tokens in all, against {uncompacted:,} without compaction; "
              "archiving sends the same plus the paths it keeps",
        "zh": "它在每次调用之前都做压缩，所以任何一次调用发送的都不超过 {peak:,} 个字符：总共 "
              "{tokens:,} 个输入 token，而不压缩时是 {uncompacted:,} 个；archiving 发送的内容与它"
              "相同，外加它保留的路径"},
    "why.07.cheapest_cached": {
        "en": "its prompt only grows between its large steps, so {share:.0%} of what it sends is "
              "read from cache; the lesson's pipeline sends fewer tokens but reads only "
              "{pipeline_share:.0%} of them from cache",
        "zh": "在两次大幅压缩之间，它的提示只增长、不改写，所以它发送的内容中有 {share:.0%} 从缓存"
              "读取；课程的管线发送的 token 更少，但其中只有 {pipeline_share:.0%} 从缓存读取"},
    "why.07.lost": {
        "en": "snip_compact drops the middle of the history and micro_compact's placeholders keep "
              "nothing, so 4 facts leave before the first summary (turn 25) could keep them, the "
              "user's turn-2 constraint among them; the fifth, turn 80's decision, falls after the "
              "cut of a summary cut off at max_tokens",
        "zh": "snip_compact 丢掉历史的中间部分，micro_compact 的占位符什么也不保留，所以有 4 条探针事实"
              "在第一次摘要（第 25 轮）来得及保留之前就离开了上下文，其中包括用户在第 2 轮提出的约束；"
              "第 5 条，即第 80 轮的决定，落在一份在 max_tokens 处被截断的摘要的截断点之后"},

    # 08 · from the lesson to the API
    "why.08.fewest_sent": {
        "en": "its limit is 50,000 characters, a quarter of the API's smallest trigger, so it "
              "compacts early and often: {tokens:,} input tokens, against {server_tokens:,} for "
              "server compaction",
        "zh": "它的上限是 50,000 个字符，只有 API 最小触发阈值的四分之一，所以它压缩得早，也压缩得勤："
              "共 {tokens:,} 个输入 token，而服务端压缩是 {server_tokens:,} 个"},
    "why.08.cheapest_cached": {
        "en": "it costs {cost:,.0f} with caching, server compaction {server_cost:,.0f}; context "
              "editing breaks the cached prefix on every request once over its trigger and costs "
              "{editing_cost:,.0f}",
        "zh": "按计入缓存的成本，它是 {cost:,.0f}，服务端压缩是 {server_cost:,.0f}；上下文编辑一旦超过"
              "触发阈值，每个请求都会打断缓存前缀，成本是 {editing_cost:,.0f}"},
    "why.08.both": {
        "en": "the offline server clears first and compares the compaction trigger with what is "
              "left: with old results cleared the context never reaches 50,000 tokens again (an "
              "order the documentation does not fix)",
        "zh": "离线服务器先清除，再拿剩下的内容与压缩触发阈值比较：旧结果清除之后，上下文再也"
              "达不到 50,000 个 token（这个顺序文档并没有规定）"},
    # when the run used the worked solution, the marked import line not yet deleted (reveal picks
    # "<key>.solution" when its stage= is the solution): the reveal must not say "your stage"
    "why.01.same_run.solution": {
        "en": SOLUTION_RAN["en"] + "it persisted the same file as the package's stage and left the "
              "same path and preview " + SAME_RUN_HINT["en"],
        "zh": SOLUTION_RAN["zh"] + "它和本包的这一步转存了同一个文件，留下了同样的路径和预览"
              + SAME_RUN_HINT["zh"]},
    "why.02.same_run.solution": {
        "en": SOLUTION_RAN["en"] + "it makes the package's cut on every turn (the lesson's rule and "
              "the two fixes); a stage one message off, or one that counts its own marker, would send "
              "other messages and draw another line below",
        "zh": SOLUTION_RAN["zh"] + "它每一轮都和本包切在同一个位置（课程的规则加上两处修正）；差一条消息"
              "的实现，或者把自己的省略标记也算进去的实现，会发送不同的消息，下面的图也会画出另一条线"},
    "why.03.same_run.solution": {
        "en": SOLUTION_RAN["en"] + "it follows the lesson's rule, and experiment 1 reads one file per "
              "turn and persists nothing, so that rule is all it needs " + SAME_RUN_HINT["en"],
        "zh": SOLUTION_RAN["zh"] + "它按课程的规则写成；实验一每轮读取一个文件，不转存任何内容，"
              "所以课程的规则就够用了" + SAME_RUN_HINT["zh"]},
    "why.04.same_run.solution": {
        "en": SOLUTION_RAN["en"] + "it writes the lesson's two sections byte for byte, so it sends "
              "what the package's sends (a summary not json.dumps'd shows up as other sizes: {found})",
        "zh": SOLUTION_RAN["zh"] + "它逐字节写出课程那两个部分，所以发送的内容与本包的完全相同"
              "（摘要没有经过 json.dumps 时，发送的大小就会不同：{found}）"},
    # when a learner's stage made the run go another way (reveal picks "<key>.otherwise")
    "why.01.same_run.otherwise": {
        "en": "the stage you passed in made another run than the package's: {found}. Check which "
              "results it persisted and what it left in their place",
        "zh": "你传进去的这一步跑出了和本包不同的运行：{found}。检查它转存了哪些结果、在原处留下了什么"},
    "why.01.preview_fields.otherwise": {
        "en": "the answer does not name all four fields: what your stage left in the context does "
              "not show the first record (it ends {ends:,} characters into the {size:,}-character "
              "file), or the run stopped before the model could answer",
        "zh": "回答没有说出全部四个字段：你的这一步留在上下文里的内容没有展示出第一条记录（它在这个 "
              "{size:,} 字符的文件中第 {ends:,} 个字符处结束），或者运行在模型回答之前就停了"},
    "why.02.same_run.otherwise": {
        "en": "the stage you passed in cut somewhere else than the package's on some turn, so other "
              "messages were sent: see the table and the two lines below",
        "zh": "你传进去的这一步在某一轮切在了和本包不同的位置，所以发送的消息不同：请看表格和下面的两条线"},
    "why.03.same_run.otherwise": {
        "en": "the stage you passed in made another run than the package's: {found}. Check how many "
              "results it keeps whole, and which end of the list it keeps",
        "zh": "你传进去的这一步跑出了和本包不同的运行：{found}。检查它保留了几条完整的结果、"
              "保留的是列表的哪一端"},
    "why.03.titles.otherwise": {
        "en": "with your stage the answer misses some titles: a result the model needed was replaced "
              "before it could note it, or the run stopped first (see its last line above)",
        "zh": "用你的这一步时，回答漏掉了一些标题：模型需要的某条结果在它记下笔记之前就被替换了，"
              "或者运行先停了下来（见上面最后一行）"},
    "why.04.same_run.otherwise": {
        "en": "your stage sent other messages than the package's: {found}. The usual cause is a "
              "summary not passed through json.dumps, or sections not written byte for byte",
        "zh": "你的这一步发送的消息和本包的不同：{found}。常见原因是摘要没有经过 json.dumps，"
              "或者两个部分没有逐字节写出"},
    "why.05.same_rescue.otherwise": {
        "en": "your reactive_compact sent other messages than the package's after the refusal: "
              "check where it cuts (the last 5 messages, moved back for a tool pair) and that it "
              "summarises only what comes before them",
        "zh": "拒绝之后，你的 reactive_compact 发送的消息和本包的不同：检查它在哪里切分（最后 5 条"
              "消息，遇到工具调用配对时往前挪），以及它是否只摘要了这之前的内容"},
    # s40-nbb
    "why.08.checked_first": {
        "en": "run (b)'s last request is {tokens:,} tokens as sent, before clearing: a trigger checked "
              "first sees that many and compacts, so \"both\" would summarise too. Here it is the other "
              "way round: {order}",
        "zh": "(b) 的最后一个请求在清除之前有 {tokens:,} 个 token：先检查的触发阈值看到的就是这个数，"
              "于是会压缩，“两者同时使用”也就会生成摘要。这里的顺序正好相反：{order}"},
})

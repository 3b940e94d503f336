"""Every text the lab shows, in English and Chinese (slider names are ``Limits`` fields and stay
as they are; HTML markup is part of a text)."""

from __future__ import annotations

from ..texts import register

register({
    "lab.button.1": {"en": "Experiment 1 · micro_compact", "zh": "实验一 · micro_compact"},
    "lab.button.2": {"en": "Experiment 2 · tool_result_budget", "zh": "实验二 · tool_result_budget"},
    "lab.button.3": {"en": "Experiment 3 · compact_history", "zh": "实验三 · compact_history"},
    "lab.button.baseline": {"en": "Baseline · no compaction", "zh": "对照组 · 不做压缩"},
    "lab.tip.context_limit": {"en": "experiment 3: when compact_history fires",
                              "zh": "实验三：compact_history 何时触发"},
    "lab.tip.keep_recent_results": {"en": "experiment 1: how many newest results stay whole",
                                    "zh": "实验一：最新的几条结果保持完整"},
    "lab.tip.max_messages": {"en": "snip_compact: above this many messages the middle goes",
                             "zh": "snip_compact：消息超过这个条数时裁掉中间部分"},
    "lab.tip.tool_result_budget": {
        "en": "experiment 2: results a batch may hold before the largest go to disk",
        "zh": "实验二：一批工具结果的总字符预算，超出后最大的结果转存到磁盘"},
    "lab.tip.persist_threshold": {"en": "experiment 2: only results longer than this are persisted",
                                  "zh": "实验二：只有比这更长的结果才会转存"},
    "lab.tip.preview_chars": {"en": "experiment 2: how much of a persisted result stays",
                              "zh": "实验二：转存后的结果在上下文中保留多少字符的预览"},
    "lab.explains.baseline": {"en": "no compaction: the context just grows until the model refuses it",
                              "zh": "不做压缩：上下文一直增长，直到模型拒绝请求"},
    "lab.explains.1": {"en": "micro_compact: the {keep} newest results stay whole, older ones over "
                             "{minimum:,} chars become a placeholder",
                       "zh": "micro_compact：最新的 {keep} 条结果保持完整，更早且超过 {minimum:,} "
                             "字符的结果替换为占位符"},
    "lab.explains.2": {"en": "tool_result_budget: when a batch of results passes {budget:,} chars, "
                             "the largest over {threshold:,} go to disk with a {preview:,}-char preview",
                       "zh": "tool_result_budget：一批结果超过 {budget:,} 字符时，其中超过 "
                             "{threshold:,} 字符的最大结果转存到磁盘，只留 {preview:,} 字符的预览"},
    "lab.explains.3": {"en": "compact_history: past {limit:,} chars the history becomes one "
                             "[Compacted] message",
                       "zh": "compact_history：超过 {limit:,} 字符后，整段历史变成一条 "
                             "[Compacted] 消息"},
    "lab.label.experiment": {"en": "experiment {n}", "zh": "实验{n}"},
    "lab.label.baseline": {"en": "baseline", "zh": "对照组"},
    "lab.heading.experiment": {"en": "Experiment {n}", "zh": "实验{n}"},
    "lab.heading.baseline": {"en": "Baseline", "zh": "对照组"},
    "lab.events": {"en": "<b>Stage events</b> ({what}):", "zh": "<b>步骤事件</b>（{what}）："},
    "lab.event": {"en": "turn {turn}: {event}", "zh": "第 {turn} 轮：{event}"},
    "lab.none_fired": {"en": "none fired", "zh": "没有步骤触发"},
    "lab.no_answer_failed": {"en": "(no answer: the run failed)", "zh": "（没有回答：运行失败了）"},
    "lab.no_answer_refused": {"en": "(no answer: the request was refused)",
                              "zh": "（没有回答：请求被拒绝了）"},
    "lab.answer": {"en": "<b>Answer</b> after {turns} turns:", "zh": "<b>回答</b>（共 {turns} 轮）："},
    "lab.bytes": {"en": "{size:,} bytes", "zh": "{size:,} 字节"},
    "lab.removed": {"en": "removed since", "zh": "之后已删除"},
    "lab.files": {"en": "<b>Files in {transcripts}/ and {results}/</b> (in {workdir}):",
                  "zh": "<b>{transcripts}/ 和 {results}/ 中的文件</b>（位于 {workdir}）："},
    "lab.none": {"en": "none", "zh": "无"},
    "lab.reset": {"en": "Lesson's numbers", "zh": "恢复课程数值"},
    "lab.reset_tip": {"en": "put every slider back to the lesson's number",
                      "zh": "把每个滑块恢复为课程中的数值"},
    "lab.idle": {"en": "idle", "zh": "空闲"},
    "lab.press": {"en": "Press a button to run an experiment.", "zh": "按下一个按钮来运行实验。"},
    "lab.events_empty": {"en": "Stage events appear here after a run.",
                         "zh": "运行之后，步骤事件会显示在这里。"},
    "lab.clear": {"en": "Clear old runs", "zh": "清理旧运行"},
    "lab.clear_tip": {"en": "delete this lab's run folders except the one shown, and those of closed labs",
                      "zh": "删除本实验台除当前显示之外的运行文件夹，以及已关闭实验台的运行文件夹"},
    "lab.turn": {"en": "turn", "zh": "轮次"},
    "lab.inspect": {"en": "Inspect the message list as sent at a turn:",
                    "zh": "查看某一轮实际发送的消息列表："},
    "lab.tab.events": {"en": "Stage events", "zh": "步骤事件"},
    "lab.tab.answer": {"en": "Answer", "zh": "回答"},
    "lab.tab.files": {"en": "Files", "zh": "文件"},
    "lab.tab.inspector": {"en": "Inspector", "zh": "消息查看器"},
    "lab.saved": {"en": "The lab's dashboard: run this cell to show it (widgets need a live kernel).",
                  "zh": "实验台面板：运行这个单元格即可显示（控件需要正在运行的内核）。"},
    "lab.busy_click": {"en": "<span class='lab-busy'>Still running: the click on {label} was ignored.</span>",
                       "zh": "<span class='lab-busy'>仍在运行：对「{label}」的点击已忽略。</span>"},
    "lab.busy_clear": {"en": "<span class='lab-busy'>Still running: nothing was cleared.</span>",
                       "zh": "<span class='lab-busy'>仍在运行：没有清理任何内容。</span>"},
    "lab.progress.running": {"en": "running {label}", "zh": "正在运行{label}"},
    "lab.progress.failed": {"en": "failed", "zh": "失败"},
    "lab.progress.done": {"en": "done", "zh": "完成"},
    "lab.progress.turn": {"en": "turn {turn}", "zh": "第 {turn} 轮"},
    "lab.state.running": {"en": "<i>Run {run} · running {label}…</i>",
                          "zh": "<i>第 {run} 次运行 · 正在运行{label}……</i>"},
    "lab.state.failed": {"en": "Run {run} · <span class='lab-error'>{label} failed: {failure}</span>",
                         "zh": "第 {run} 次运行 · <span class='lab-error'>{label} 失败：{failure}</span>"},
    "lab.state.done": {"en": "Run {run} · <b>{label}</b>{timing}: {what}.{note}{ignored}",
                       "zh": "第 {run} 次运行 · <b>{label}</b>{timing}：{what}。{note}{ignored}"},
    "lab.state.timing": {"en": " in {seconds:.1f} s", "zh": "，用时 {seconds:.1f} 秒"},
    "lab.state.stale": {"en": " <span class='lab-stale'>The sliders have changed since ({changed}): "
                              "press a button to run with them.</span>",
                        "zh": " <span class='lab-stale'>滑块在这次运行之后改动过（{changed}）："
                              "按下按钮，用新的数值运行。</span>"},
    "lab.state.ignored": {"en": " <span class='lab-busy'>{count} click(s) during the run were "
                                "ignored.</span>",
                          "zh": " <span class='lab-busy'>运行期间的 {count} 次点击已忽略。</span>"},
    "lab.failed_title": {"en": "{label} failed after {turns} turns: {error}",
                         "zh": "{label} 在 {turns} 轮后失败：{error}"},
    "lab.inspector": {"en": "Turn {turn}: {count} messages, {chars:,} chars sent, stages: {stages}",
                      "zh": "第 {turn} 轮：{count} 条消息，发送 {chars:,} 字符，触发的步骤：{stages}"},
    "lab.runs_kept": {"en": "{count} run folder(s) kept in {root} ({mb:.1f} MB): this lab keeps its "
                            "newest {keep} of each experiment; Clear old runs removes the rest, except "
                            "the run shown and runs another open lab uses.",
                      "zh": "{root} 中保留了 {count} 个运行文件夹（{mb:.1f} MB）：本实验台为每个实验保留"
                            "最新的 {keep} 个；「清理旧运行」会删除其余的，但当前显示的运行和其他打开的"
                            "实验台正在使用的运行除外。"},
})

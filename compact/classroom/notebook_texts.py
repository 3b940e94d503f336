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
    "the cache-friendly strategy's last summary": "cache-friendly 策略的最后一份摘要",
}
register({f"notebook.{en}": {"en": en, "zh": zh} for en, zh in TEXTS.items()})


def translated(text: str, **fields: object) -> str:
    """``text`` (an entry of ``TEXTS``) in the chosen language, its fields filled in; any other
    text as it is, its fields filled in."""
    return say(f"notebook.{text}", **fields) if text in TEXTS else text.format(**fields)

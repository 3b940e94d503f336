"""The words a question is about, as stems that can be matched against identifiers.

English words are stemmed with the Snowball stemmer (``manages`` and ``manager`` →
``manag``); a question in Chinese is read through a glossary of common programming words
(``上下文`` → context, ``出错`` → error), since Chinese has no spaces to split at. An
identifier is split at underscores, case changes and path separators
(``persist_large_output``, ``MemoryStore``, ``.memory/notes.jsonl``) and stemmed the same
way, so the question's own words pick the names that bear on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import snowballstemmer

_STEMMER = snowballstemmer.stemmer("english")
_STOP = set("""a an the and or but of to in on at by for with from into as if then than so also
how what which where when why who whom whose does do did done doing is are was were be been being
has have had each both every either any all some it its they them their this that these those
there here me us you your we our my i please can could would should will shall may might must
explain describe compare comparison contrast tell show say list give between differ differs
different difference differences versus vs code program programs module modules script scripts
file's one other way ways thing things something about work works""".split())
# Common programming words in Chinese → the English word they are matched as.
_GLOSSARY = {
    "上下文": "context", "提示词": "prompt", "提示": "prompt", "消息": "message", "历史": "history",
    "窗口": "window", "令牌": "token", "记忆": "memory", "内存": "memory", "持久": "persistent",
    "存储": "store", "保存": "save", "存放": "store", "存在哪里": "store",
    "磁盘": "disk", "文件": "file", "写入": "write", "读取": "read", "数据": "data",
    "数据库": "database", "错误": "error", "出错": "error", "异常": "exception", "失败": "fail",
    "重试": "retry", "缓存": "cache", "队列": "queue", "日志": "log", "配置": "config",
    "摘要": "summary", "总结": "summary", "压缩": "compact", "裁剪": "snip", "管理": "manage",
    "处理": "handle", "当前": "current", "会话": "session", "工具": "tool", "结果": "result",
    "预算": "budget", "限制": "limit", "索引": "index", "检索": "retrieve", "搜索": "search",
    "整理": "consolidate", "合并": "merge", "删除": "delete", "过期": "expire", "超时": "timeout",
    "锁": "lock", "线程": "thread", "并发": "concurrency", "用户": "user", "模型": "model",
    "请求": "request", "响应": "response", "测试": "test", "权限": "permission", "任务": "task",
    "计划": "plan", "路径": "path", "目录": "directory", "文件夹": "folder", "转存": "persist",
    "清理": "clean", "状态": "state", "调度": "schedule", "作业": "job", "消费": "consume",
}
_CJK = re.compile(r"[\u3400-\u9fff]")
_ENGLISH = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]|[A-Za-z]")
_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


@dataclass(frozen=True)
class Word:
    text: str            # as the question writes it
    stem: str


def stem(word: str) -> str:
    return _STEMMER.stemWord(word.lower().strip("'-"))


def question_words(question: str) -> list[Word]:
    """The content words of a question, once each, in the order written."""
    found: list[tuple[int, Word]] = []
    for match in _ENGLISH.finditer(question):
        word = match.group().lower()
        if word not in _STOP and len(word) > 2:
            found.append((match.start(), Word(match.group(), stem(word))))
    taken: set[int] = set()
    for term in sorted(_GLOSSARY, key=len, reverse=True):      # longest first: 数据库 before 数据
        for match in re.finditer(re.escape(term), question):
            span = set(range(match.start(), match.end()))
            if not span & taken:
                taken |= span
                found.append((match.start(), Word(term, stem(_GLOSSARY[term]))))
    words: dict[str, Word] = {}
    for _, word in sorted(found, key=lambda item: item[0]):
        words.setdefault(word.stem, word)
    return list(words.values())


def identifier_stems(name: str) -> list[str]:
    """``persist_large_output`` → persist, larg, output; ``MemoryStore`` → memori, store."""
    return [stem(part) for part in _PARTS.findall(name) if len(part) > 1]


def stems_match(a: str, b: str) -> bool:
    """The same stem, or one the start of the other (``handl`` / ``handler``)."""
    short, long = sorted((a, b), key=len)
    return short == long or (len(short) >= 4 and long.startswith(short))


def carries(name: str, word: Word) -> bool:
    return any(stems_match(word.stem, part) for part in identifier_stems(name))


def is_cjk(text: str) -> bool:
    return bool(_CJK.search(text))

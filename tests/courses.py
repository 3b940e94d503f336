"""Four deterministic course-like workspaces, unlike the demo and each other: nine chapters with
READMEs (each course's own title and Markdown style), two long programs built from a ``Program``
description and a large JSON data file, so tests check answers against the files.
"""

from __future__ import annotations

import json
import random
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

_VERBS = ["load", "save", "score", "merge", "split", "render", "check", "count", "trim", "index",
          "parse", "format", "collect", "select", "rank", "expire", "refresh", "estimate"]
_NOUNS = ["entry", "block", "turn", "record", "batch", "header", "snapshot", "digest", "window",
          "budget", "marker", "segment", "catalog", "ledger", "excerpt", "cursor"]
_WORDS = ("the agent reads a file and keeps a short note so that the next turn can use it "
          "without reading it again while the window stays small and every tool call is "
          "answered before the model continues with its plan").split()


@dataclass
class Program:
    path: str
    docstring: str
    classes: dict[str, list[str]]          # class → its main methods (helpers are added)
    functions: list[str]                   # module-level functions named by the design
    constants: dict[str, str]              # name → Python expression
    paths: list[str]                       # folders/files it writes, as string literals
    target_chars: int
    style: str                             # "classes" or "functions"
    exceptions: list[str] = field(default_factory=list)         # classes derived from Exception
    catches: dict[str, list[str]] = field(default_factory=dict)  # function → what it catches
    raises: dict[str, str] = field(default_factory=dict)         # function → what it raises
    writes: dict[str, str] = field(default_factory=dict)         # function → path expression


@dataclass
class Course:
    name: str
    chapters: list[str]
    titles: dict[str, str]                 # chapter → README title (English README)
    titles_zh: dict[str, str]
    readme_style: str
    data_path: str
    data_shape: str                        # "array" or "keyed"
    programs: tuple[Program, Program]
    readme_names: dict[str, list[str]] = field(default_factory=dict)   # code names per chapter
    question: dict[str, str] = field(default_factory=dict)   # experiment 3's question, by language


def titled(chapters: list[str], template: str, *columns: list[str]) -> dict[str, str]:
    """Chapter → ``template`` filled with its number and its entry in each column."""
    return {c: template.format(i, *cells) for i, (c, *cells) in
            enumerate(zip(chapters, *columns, strict=True), 1)}


def _sentence(rng: random.Random, n: int = 14) -> str:
    words = [rng.choice(_WORDS) for _ in range(n)]
    return " ".join(words).capitalize() + "."


def _paragraph(rng: random.Random, sentences: int = 4) -> str:
    return " ".join(_sentence(rng, rng.randint(9, 18)) for _ in range(sentences))


def _body(rng: random.Random, name: str, uses: list[str], lines: int,
          program: Program | None = None) -> str:
    """A plausible function body using ``uses``: what ``program``'s design says this function
    catches, raises or writes, it does."""
    out = [f'"""{_sentence(rng, 8)}"""', "result = []"]
    if program is not None and name in program.writes:
        out.append(f"with open({program.writes[name]}, \"a\", encoding=\"utf-8\") as handle:\n"
                   "    handle.write(json.dumps(result) + \"\\n\")")
    if program is not None and name in program.catches:
        caught = program.catches[name]
        what = caught[0] if len(caught) == 1 else f"({', '.join(caught)})"
        out.append(f"try:\n    result.append(args[{rng.randint(0, 3)}])\n"
                   f"except {what} as error:\n    result.append((\"failed\", str(error)))")
    if program is not None and name in program.raises:
        out.append(f"if len(result) > {rng.randint(40, 90)}:\n"
                   f"    raise {program.raises[name]}(\"{' '.join(rng.choice(_WORDS) for _ in range(4))}\")")
    for k in range(lines):
        use = uses[k % len(uses)] if uses else "None"
        out.append(rng.choice([
            f"if len(result) > {rng.randint(2, 90)}:\n    result = result[-{rng.randint(2, 9)}:]",
            f"result.append(({use!r}, {rng.randint(1, 999)}))",
            f"total_{k} = sum(len(str(item)) for item in result)",
            f"for index, item in enumerate(result[:{rng.randint(2, 20)}]):\n"
            f"    result[index] = (item, index * {rng.randint(2, 7)})",
            f"note_{k} = \"{' '.join(rng.choice(_WORDS) for _ in range(6))}\"",
        ]))
    return textwrap.indent("\n".join([*out, "return result"]), "    ")


def program_text(program: Program, seed: int) -> str:
    rng = random.Random(seed)
    constants = "\n".join(f"{k} = {v}" for k, v in program.constants.items())
    parts = [f'"""{program.docstring}\n\n{textwrap.fill(_paragraph(rng, 5), 88)}\n"""',
             "from __future__ import annotations\n\nimport json\nimport os\nimport sqlite3\n"
             "import subprocess\nfrom pathlib import Path",
             constants]
    parts += [f"class {name}(Exception):\n    \"\"\"{_sentence(rng, 8)}\"\"\"" for name in program.exceptions]
    uses = list(program.constants) + [repr(p) for p in program.paths]
    extra = iter(f"{v}_{n}" for v in _VERBS for n in _NOUNS)
    for name, methods in program.classes.items():
        lines = [f"class {name}:", f'    """{_sentence(rng, 10)}"""', ""]
        for method in methods:
            body = textwrap.indent(_body(rng, method, uses, rng.randint(6, 12), program), "    ")
            lines.append(f"    def {method}(self, *args):\n{body}\n")
        parts.append("\n".join(lines))
    for function in program.functions:
        parts.append(f"def {function}(*args):\n{_body(rng, function, uses, rng.randint(6, 12), program)}")
    text = "\n\n\n".join(parts) + "\n"
    while len(text) < program.target_chars:     # helpers until it is as long as real code
        name = next(extra)
        if program.style == "classes":
            body = textwrap.indent(_body(rng, name, uses, rng.randint(8, 14)), "    ")
            text = text.rstrip("\n") + f"\n\n    def {name}(self, *args):\n{body}\n"
        else:
            text += f"\n\ndef {name}(*args):\n{_body(rng, name, uses, rng.randint(8, 14))}\n"
    return text + '\n\nif __name__ == "__main__":\n    print(json.dumps({"ok": True}))\n'


def _readme(course: Course, chapter: str, lang: str, rng: random.Random) -> str:
    title = course.titles[chapter] if lang == "en" else course.titles_zh[chapter]
    names = course.readme_names.get(chapter, [])
    sections = ["How it works", "Why it matters", "Try it"] if lang == "en" else \
        ["工作原理", "为什么需要", "试一下"]
    body = []
    for index, section in enumerate(sections):
        text = _paragraph(rng, 6)
        if names and index == 0:
            text += " The program names " + ", ".join(f"`{n}`" for n in names) + "."
        if course.readme_style == "setext":
            body.append(f"{section}\n{'-' * len(section)}\n\n{text}")
        else:
            body.append(f"## {section}\n\n{text}")
    if course.readme_style == "setext":
        head = (f"---\ntitle: {chapter}\norder: {course.chapters.index(chapter) + 1}\n---\n\n"
                f"{title}\n{'=' * len(title)}\n")
    else:
        head = ("<!-- generated from the course outline; do not edit -->\n"
                f"# {title}\n\n[English](README.md) · [中文](README.zh.md)\n")
    return head + "\n" + "\n\n".join(body) + "\n"


def data_text(course: Course) -> str:
    rng = random.Random(7)
    if course.data_shape == "array":
        records = []
        for chapter in course.chapters:
            for locale in ("en", "zh", "ja"):
                records.append({"chapter": chapter.split("_")[0], "lang": locale,
                                "heading": course.titles[chapter], "tags": ["agent", locale],
                                "meta": {"words": rng.randint(900, 4000), "updated": "2026-02-01"},
                                "markdown": "\n\n".join(_paragraph(rng, 8) for _ in range(14))})
        return json.dumps(records, indent=2, ensure_ascii=False)
    entries = {}
    for k in range(1, 1_900):
        chapter = course.chapters[k % len(course.chapters)]
        entries[f"e{k:04d}"] = {"chapter": chapter, "anchor": f"section-{k % 7}",
                                "text": _sentence(rng, 12), "weight": round(rng.random(), 3)}
    return json.dumps({"course": {"name": course.name, "version": 3, "chapters": len(course.chapters)},
                       "search": {"built": "2026-02-01", "entries": entries}}, indent=1,
                      ensure_ascii=False)


def build(course: Course, root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=False)
    rng = random.Random(len(course.name))
    for chapter in course.chapters:
        folder = root / chapter
        folder.mkdir()
        (folder / "README.md").write_text(_readme(course, chapter, "en", rng), encoding="utf-8")
        (folder / "README.zh.md").write_text(_readme(course, chapter, "zh", rng), encoding="utf-8")
    for seed, program in enumerate(course.programs):
        (root / program.path).write_text(program_text(program, seed), encoding="utf-8")
    data = root / course.data_path
    data.parent.mkdir(parents=True, exist_ok=True)
    data.write_text(data_text(course), encoding="utf-8")
    (root / "README.md").write_text(f"# {course.name}\n\nNine chapters.\n", encoding="utf-8")
    return root


WORKSHOP_CHAPTERS = ["ch01_hello_agent", "ch02_tools", "ch03_guardrails", "ch04_delegation",
                     "ch05_planning", "ch06_skills", "ch07_tasks", "ch08_context_window",
                     "ch09_long_term_memory"]
_WORKSHOP_TOPICS = ["Hello Agent", "Tools", "Guardrails", "Delegation", "Planning", "Skills",
                    "Tasks", "Context Window", "Long-Term Memory"]
_WORKSHOP_ZH = ["你好，智能体", "工具", "护栏", "委派", "计划", "技能", "任务", "上下文窗口", "长期记忆"]

WORKSHOP = Course(
    name="Agents Workshop",
    chapters=WORKSHOP_CHAPTERS,
    titles=titled(WORKSHOP_CHAPTERS, "Chapter {0} · {1} | {2}", _WORKSHOP_TOPICS, _WORKSHOP_ZH),
    titles_zh=titled(WORKSHOP_CHAPTERS, "第{0}章 · {1}", _WORKSHOP_ZH),
    readme_style="setext",
    data_path="site/data/lessons.json",
    data_shape="array",
    readme_names={"ch08_context_window": ["ContextWindow", "trim_history", ".agent/transcripts"],
                  "ch09_long_term_memory": ["MemoryBank", "remember", "recall", "memory/facts.jsonl"]},
    programs=(
        Program("ch08_context_window/agent.py",
                "Keeps the context window small: old turns are trimmed, big results are saved "
                "to .agent/results and the oldest history is summarised into one note.",
                {"ContextWindow": ["trim_history", "persist_big_result", "summarize_old_turns",
                                   "estimate_size", "rebuild_messages"],
                 "TranscriptWriter": ["open_transcript", "append_turn", "close"]},
                ["run_agent", "main_loop"],
                {"WINDOW_CHARS": "48_000", "KEEP_TURNS": "6", "RESULT_LIMIT": "20_000",
                 "STATE_DIR": 'Path(".agent")', "TRANSCRIPTS": 'STATE_DIR / "transcripts"',
                 "RESULTS": 'STATE_DIR / "results"'},
                [".agent/transcripts", ".agent/results"], 31_000, "classes"),
        Program("ch09_long_term_memory/agent.py",
                "Remembers facts across sessions: a MemoryBank appends them to memory/facts.jsonl "
                "and recalls them by keyword into the system prompt.",
                {"MemoryBank": ["remember", "recall", "forget", "save_index", "load_index"],
                 "Fact": ["to_line", "from_line"]},
                ["build_system_prompt", "run_agent"],
                {"MEMORY_DIR": 'Path("memory")', "FACTS_FILE": 'MEMORY_DIR / "facts.jsonl"',
                 "INDEX_FILE": 'MEMORY_DIR / "INDEX.md"', "RECALL_LIMIT": "5"},
                ["memory/facts.jsonl", "memory/INDEX.md"], 33_000, "classes"),
    ),
)

BOOTCAMP_CHAPTERS = ["lesson-1-loop", "lesson-2-tools", "lesson-3-rules", "lesson-4-helpers",
                     "lesson-5-todo", "lesson-6-skills", "lesson-7-jobs", "lesson-8-squeeze",
                     "lesson-9-recall"]
_BOOTCAMP_ZH = ["循环", "工具", "规则", "助手", "待办", "技能", "作业", "压缩", "回忆"]
_BOOTCAMP_EN = ["The Loop", "Tools", "Rules", "Helpers", "Todo", "Skills", "Jobs", "Squeeze",
                "Recall"]

BOOTCAMP = Course(
    name="Agent Bootcamp",
    chapters=BOOTCAMP_CHAPTERS,
    titles=titled(BOOTCAMP_CHAPTERS, "第{0}课：{1} / {2}", _BOOTCAMP_ZH, _BOOTCAMP_EN),
    titles_zh=titled(BOOTCAMP_CHAPTERS, "第{0}课：{1}", _BOOTCAMP_ZH),
    readme_style="atx",
    data_path="data/course.json",
    data_shape="keyed",
    readme_names={"lesson-8-squeeze": ["squeeze_history", "spill_to_disk", "outbox/"],
                  "lesson-9-recall": ["write_note", "recall_notes", "notes/journal.md"]},
    programs=(
        Program("lesson-8-squeeze/main.py",
                "Squeezes the history before each call: long outputs spill to outbox/, old "
                "tool results shrink to a stub, and a summary replaces the rest.",
                {}, ["squeeze_history", "spill_to_disk", "shrink_old_results", "summarise_rest",
                     "history_size", "agent_turn"],
                {"LIMIT": "40_000", "SPILL_AT": "10_000", "OUTBOX": '"outbox/"'},
                ["outbox/", "outbox/index.json"], 27_000, "functions"),
        Program("lesson-9-recall/main.py",
                "Recalls what earlier sessions learned: notes are written to notes/journal.md "
                "and the newest ones are read back into the prompt.",
                {}, ["write_note", "recall_notes", "journal_path", "prompt_with_notes",
                     "agent_turn"],
                {"JOURNAL": '"notes/journal.md"', "MAX_NOTES": "12"},
                ["notes/journal.md", "notes/archive/"], 26_000, "functions"),
    ),
)

SEMINAR_CHAPTERS = ["week-01-loop", "week-02-tools", "week-03-rules", "week-04-teams",
                    "week-05-plans", "week-06-skills", "week-07-jobs", "week-08-cache",
                    "week-09-queue"]
_SEMINAR_QUESTIONS = ["Why does an agent need a loop?", "How does a model call a tool?",
                      "When should an agent ask first?", "Who does the work in a team of agents?",
                      "What makes a plan worth keeping?", "Where do skills come from?",
                      "How long can a job run?", "What should a cache forget?",
                      "How does a queue stay fair?"]
_SEMINAR_ZH = ["智能体为什么需要循环？", "模型怎样调用工具？", "什么时候应该先问一句？",
               "一群智能体里谁来干活？", "什么样的计划值得保留？", "技能从哪里来？", "一个作业能跑多久？",
               "缓存应该忘掉什么？", "队列怎样保持公平？"]

SEMINAR = Course(
    name="Agent Seminar",
    chapters=SEMINAR_CHAPTERS,
    titles=titled(SEMINAR_CHAPTERS, "Lesson {0} | {1}", _SEMINAR_QUESTIONS),
    titles_zh=titled(SEMINAR_CHAPTERS, "第{0}课 | {1}", _SEMINAR_ZH),
    readme_style="atx",
    data_path="site/lessons.json",
    data_shape="array",
    readme_names={"week-08-cache": ["LruCache", "load_through", "cache-spill/"],
                  "week-09-queue": ["retry_later", "dead_letter", "queue/dead-letters.jsonl"]},
    question={"en": "Compare {a} and ./{b}, and explain how each handles errors.",
              "zh": "请比较 ./{a} 和 {b}，\n说明它们分别怎样处理错误。"},
    programs=(
        Program("week-08-cache/store.py",
                "A least-recently-used cache for tool results: entries expire after a time to "
                "live, and a miss falls back to the loader.",
                {"LruCache": ["get", "put", "evict", "expire", "load_through"],
                 "CacheEntry": ["is_fresh", "touch"]},
                ["make_cache", "warm_up"],
                {"MAX_ENTRIES": "256", "TTL_SECONDS": "300", "SPILL_DIR": 'Path("cache-spill")',
                 "SPILL_INDEX": 'SPILL_DIR / "index.json"'},
                ["cache-spill/index.json"], 30_000, "classes",
                exceptions=["CacheError", "LoaderFailed"],
                catches={"get": ["KeyError"], "load_through": ["OSError", "TimeoutError"],
                         "warm_up": ["ValueError"]},
                raises={"load_through": "LoaderFailed", "put": "CacheError"},
                writes={"evict": "SPILL_INDEX"}),
        Program("week-09-queue/worker.py",
                "A job queue with retries: a failed job goes back with a delay, and a job that "
                "keeps failing lands in a dead-letter file.",
                {}, ["enqueue", "dequeue", "run_job", "retry_later", "dead_letter", "drain"],
                {"MAX_RETRIES": "4", "BACKOFF_SECONDS": "2.5",
                 "DEAD_LETTERS": '"queue/dead-letters.jsonl"'},
                ["queue/dead-letters.jsonl", "queue/pending/"], 28_000, "functions",
                exceptions=["JobFailed", "QueueFull"],
                catches={"run_job": ["JobFailed", "subprocess.TimeoutExpired"],
                         "drain": ["QueueFull"], "dead_letter": ["OSError"]},
                raises={"enqueue": "QueueFull", "run_job": "JobFailed"},
                writes={"dead_letter": "DEAD_LETTERS"}),
    ),
)

JIANGTANG_CHAPTERS = ["c01_loop", "c02_tools", "c03_rules", "c04_teams", "c05_plans", "c06_skills",
                      "c07_tasks", "c08_ledger", "c09_inbox"]
_JIANGTANG_NAMES = ["循环", "工具", "权限", "分工", "计划", "技能", "任务", "账本", "收件箱"]
_JIANGTANG_PHRASES = ["让模型一直工作下去", "给模型一双手", "动手之前先问一句", "把任务交给子智能体",
                      "看得见的待办清单", "用到时才加载", "比一次对话更长久", "每一笔都写进文件",
                      "消息一条也不丢"]

JIANGTANG = Course(
    name="智能体讲堂",
    chapters=JIANGTANG_CHAPTERS,
    titles=titled(JIANGTANG_CHAPTERS, "第{0}课：{1}——{2}", _JIANGTANG_NAMES, _JIANGTANG_PHRASES),
    titles_zh=titled(JIANGTANG_CHAPTERS, "第{0}课：{1}", _JIANGTANG_NAMES),
    readme_style="setext",
    data_path="data/index.json",
    data_shape="keyed",
    readme_names={"c08_ledger": ["append_entry", "daily_totals", "ledger/entries.csv"],
                  "c09_inbox": ["Inbox", "archive_read", "inbox/messages.db"]},
    question={"en": "Compare {a} and {b}: where does each keep its data, and what does it do "
                    "when something fails?",
              "zh": "请比较 {a} 和 {b}，说明它们分别把数据存在哪里，出错时怎么处理。"},
    programs=(
        Program("c08_ledger/ledger.py",
                "An append-only ledger: every entry is written as one CSV line to "
                "ledger/entries.csv, and the daily totals go to ledger/totals.json.",
                {}, ["append_entry", "read_entries", "daily_totals", "write_totals", "check_entry"],
                {"MAX_AMOUNT": "1_000_000", "LEDGER_DIR": 'Path("ledger")',
                 "ENTRIES": 'LEDGER_DIR / "entries.csv"', "TOTALS": 'LEDGER_DIR / "totals.json"'},
                [], 29_000, "functions",
                exceptions=["LedgerError"],
                catches={"read_entries": ["ValueError", "OSError"]},
                raises={"check_entry": "LedgerError"},
                writes={"append_entry": "ENTRIES", "write_totals": "TOTALS"}),
        Program("c09_inbox/inbox.py",
                "A message inbox: messages are kept in one SQLite file, and read ones are "
                "moved to an archive folder.",
                {"Inbox": ["receive", "mark_read", "archive_read", "unread", "count"],
                 "Message": ["to_row", "from_row"]},
                ["open_inbox"],
                {"PAGE_SIZE": "50", "DB_PATH": '"inbox/messages.db"', "ARCHIVE_DIR": '"inbox/archive/"'},
                ["inbox/messages.db", "inbox/archive/"], 31_000, "classes",
                exceptions=["InboxClosed"],
                catches={"receive": ["sqlite3.IntegrityError"], "archive_read": ["OSError"]},
                raises={"receive": "InboxClosed"},
                writes={"archive_read": 'Path(ARCHIVE_DIR) / "read.jsonl"'}),
    ),
)

COURSES = {"workshop": WORKSHOP, "bootcamp": BOOTCAMP, "seminar": SEMINAR, "jiangtang": JIANGTANG}


def prompts(course: Course, lang: str) -> dict[int, str]:
    """The lesson's three prompts for ``course``, in English or in the lesson's Chinese."""
    first, fifth = course.chapters[0], course.chapters[4]
    a, b = (p.path for p in course.programs)
    lesson = {"zh": "请比较 ./{a} 和 {b}，\n说明它们分别怎样管理当前上下文和持久记忆。",
              "en": "Compare {a} and ./{b}, and explain how each manages the current context and "
                    "persistent memory."}
    third = course.question.get(lang, lesson[lang]).format(a=a, b=b)
    if lang == "zh":
        return {1: f"请读取 {first} 到 {fifth} 五节课程的 README.md，\n"
                   "比较它们的一级标题，并总结这些标题的命名规律。",
                2: f"请分析 {course.data_path} 的数据结构，\n并说明一条课程记录包含哪些主要字段。",
                3: third}
    return {1: f"Read the README.md of the five lessons {first} to {fifth}, compare their H1 "
               "titles, and summarise the naming pattern of these titles.",
            2: f"Analyse the data structure of ./{course.data_path} and explain which main fields "
               "a course record contains.",
            3: third}

"""The demo workspace: a small course repository for the offline agent to work in.

``make_workspace(dest)`` copies ``compact/demo/files/`` and writes one large generated file,
``web/src/data/generated/docs.json`` (the bulky tool output that makes compaction necessary),
deterministically: the same call always produces the same bytes."""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

__all__ = ["DOCS_JSON_PATH", "LESSONS", "LESSON_TITLES", "build_docs", "docs_json_text",
           "expected_titles", "make_workspace", "static_files"]

FILES_DIR = Path(__file__).resolve().parent / "files"
DOCS_JSON_PATH = "web/src/data/generated/docs.json"

# Lesson folder -> H1 text of its README (without the leading "# ").
LESSON_TITLES: dict[str, str] = {
    "s01_agent_loop": "s01: The Agent Loop — one loop is all an agent needs",
    "s02_tool_use": "s02: Tool Use — giving the model hands",
    "s03_permissions": "s03: Permissions — asking before touching anything that matters",
    "s04_subagents": "s04: Subagents — delegating work to a clean context",
    "s05_todo_write": "s05: Todo Write — a plan the model can see and update",
    "s06_skills": "s06: Skills — loading knowledge only when it is needed",
    "s07_task_system": "s07: Task System — work that outlives a single conversation",
    "s08_context_compact": "s08: Context Compact — forgetting on purpose so the agent can keep going",
    "s09_memory": "s09: Memory — notes that survive between sessions",
}
LESSONS: tuple[str, ...] = tuple(sorted(LESSON_TITLES))

# Never part of the workspace, even if they appear in FILES_DIR (e.g. after an import by path).
_SKIP_DIRS = {"__pycache__", ".pytest_cache", ".ruff_cache"}
_SKIP_SUFFIXES = {".pyc", ".pyo"}


def expected_titles() -> dict[str, str]:
    """Lesson folder -> exact README H1 text (without "# ") for s01..s05."""
    return {folder: LESSON_TITLES[folder] for folder in LESSONS[:5]}


def static_files() -> list[str]:
    """Relative POSIX paths of the static workspace files, sorted."""
    return sorted(path.relative_to(FILES_DIR).as_posix() for path in FILES_DIR.rglob("*")
                  if path.is_file() and path.suffix not in _SKIP_SUFFIXES
                  and not _SKIP_DIRS & set(path.relative_to(FILES_DIR).parts))


def make_workspace(dest: str | os.PathLike[str]) -> Path:
    """Create the demo workspace at ``dest`` (new or empty, else FileExistsError); its path."""
    root = Path(dest)
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise FileExistsError(f"cannot create demo workspace: {root} is a file or not empty; "
                              "pass a new or empty directory")
    root.mkdir(parents=True, exist_ok=True)
    for relative in [*static_files(), DOCS_JSON_PATH]:
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(docs_json_text().encode("utf-8") if relative == DOCS_JSON_PATH
                           else (FILES_DIR / relative).read_bytes())
    return root


# ---- docs.json: the generated course data ---------------------------------------------------

_SEED = 20260101
_UPDATED_BASE = (2025, 9)  # year, first month of the "updated" dates
# Body lengths in characters: long English bodies, short Chinese and Japanese digests; together
# about 271,000 characters (about 292,000 UTF-8 bytes), both measures within 260k-300k.
_EN_BODY_CHARS = (28_000, 30_000)
_CJK_BODY_CHARS = (400, 600)

_SLUGS = {folder: folder.split("_", 1)[1].replace("_", "-") for folder in LESSON_TITLES}

_TITLES = {"en": LESSON_TITLES, "zh": {
    "s01_agent_loop": "s01: 智能体循环 — 一个循环就足够",
    "s02_tool_use": "s02: 工具调用 — 给模型一双手",
    "s03_permissions": "s03: 权限 — 动手之前先询问",
    "s04_subagents": "s04: 子智能体 — 把工作交给干净的上下文",
    "s05_todo_write": "s05: 待办清单 — 模型看得见、改得了的计划",
    "s06_skills": "s06: 技能 — 需要时才加载知识",
    "s07_task_system": "s07: 任务系统 — 比一次对话更长久的工作",
    "s08_context_compact": "s08: 上下文压缩 — 有意遗忘，才能继续工作",
    "s09_memory": "s09: 记忆 — 跨会话保留的笔记",
}, "ja": {
    "s01_agent_loop": "s01: エージェントループ — ループ一つで十分",
    "s02_tool_use": "s02: ツールの利用 — モデルに手を与える",
    "s03_permissions": "s03: 権限 — 大事なものに触れる前に確認する",
    "s04_subagents": "s04: サブエージェント — きれいなコンテキストに仕事を任せる",
    "s05_todo_write": "s05: ToDo リスト — モデルが見て更新できる計画",
    "s06_skills": "s06: スキル — 必要なときだけ知識を読み込む",
    "s07_task_system": "s07: タスクシステム — 会話より長く続く仕事",
    "s08_context_compact": "s08: コンテキスト圧縮 — 意図して忘れ、作業を続ける",
    "s09_memory": "s09: メモリ — セッションをまたいで残るメモ",
}}

_SUMMARIES = {
    "en": {
        "s01_agent_loop": "Builds the loop that calls the model, runs the tools it asks for and stops "
                          "when it answers.",
        "s02_tool_use": "Adds file and shell tools behind a dispatch table so the loop itself never "
                        "changes.",
        "s03_permissions": "Puts a rule-based gate in front of every tool call that allows, asks or "
                           "refuses.",
        "s04_subagents": "Lets the agent hand a question to a child agent with a fresh context and keep "
                         "only the answer.",
        "s05_todo_write": "Gives the model a checklist tool so that long tasks keep their plan in view.",
        "s06_skills": "Splits specialist knowledge into skills that are loaded only when a task needs "
                      "them.",
        "s07_task_system": "Stores tasks with owners and dependencies on disk so work can span sessions "
                           "and agents.",
        "s08_context_compact": "Keeps the message list under a budget with four steps: persist, snip, "
                               "replace and summarise.",
        "s09_memory": "Saves short notes in a JSONL store and recalls them by keyword in later sessions.",
    },
    "zh": {
        "s01_agent_loop": "搭建调用模型、执行工具并在模型作答时停止的基本循环。",
        "s02_tool_use": "通过分发表加入文件和命令行工具，循环本身保持不变。",
        "s03_permissions": "在每次工具调用前加一道基于规则的关卡：放行、询问或拒绝。",
        "s04_subagents": "把问题交给拥有全新上下文的子智能体，只保留它的答案。",
        "s05_todo_write": "为模型提供清单工具，让长任务的计划始终可见。",
        "s06_skills": "把专门知识拆成技能，只在任务需要时加载。",
        "s07_task_system": "把带负责人和依赖关系的任务存到磁盘，让工作跨越会话。",
        "s08_context_compact": "用持久化、裁剪、替换和总结四个步骤把消息列表控制在预算内。",
        "s09_memory": "把简短笔记存入 JSONL 文件，并在之后的会话中按关键词召回。",
    },
    "ja": {
        "s01_agent_loop": "モデルを呼び出し、求められたツールを実行し、答えが出たら止まるループを作ります。",
        "s02_tool_use": "ディスパッチ表の後ろにファイルとシェルのツールを加え、ループ自体は変えません。",
        "s03_permissions": "すべてのツール呼び出しの前に、許可・確認・拒否を決めるルールの関門を置きます。",
        "s04_subagents": "新しいコンテキストを持つ子エージェントに質問を任せ、答えだけを受け取ります。",
        "s05_todo_write": "長い作業でも計画が見えるように、モデルにチェックリストのツールを与えます。",
        "s06_skills": "専門知識をスキルに分け、作業に必要なときだけ読み込みます。",
        "s07_task_system": "担当者と依存関係を持つタスクをディスクに保存し、セッションをまたいで作業します。",
        "s08_context_compact": "保存・削除・置換・要約の四段階でメッセージリストを予算内に保ちます。",
        "s09_memory": "短いメモを JSONL に保存し、後のセッションでキーワードから呼び出します。",
    },
}

# Lesson-specific nouns used to flavour the generated prose.
_TOPIC_NOUNS = {
    "s01_agent_loop": ["stop reason", "reply", "message list", "tool call", "turn"],
    "s02_tool_use": ["dispatch table", "input schema", "handler", "tool description", "path"],
    "s03_permissions": ["rule", "verdict", "plan mode", "deny list", "prompt to the user"],
    "s04_subagents": ["child agent", "delegation prompt", "final report", "task tool", "parent"],
    "s05_todo_write": ["todo list", "status", "reminder", "checklist item", "plan"],
    "s06_skills": ["skill", "front matter", "skill description", "SKILL.md file", "catalogue"],
    "s07_task_system": ["task file", "blocker", "owner", "atomic rename", "task graph"],
    "s08_context_compact": ["token budget", "persisted output", "placeholder", "summary", "snip notice"],
    "s09_memory": ["note", "keyword index", "archive", "consolidation pass", "recall query"],
}

_SUBJECTS = ["loop", "model", "agent", "tool handler", "message list", "system prompt", "session",
             "dispatcher", "transcript", "user", "test suite", "console"]
_VERBS = [(verb + "s", verb) for verb in ["read", "write", "check", "record", "trim", "replace",
                                          "forward", "validate", "collect", "return", "append",
                                          "inspect", "reject", "cache", "sort", "load", "update"]]
_OBJECTS = ["tool result", "file", "request", "budget", "plan", "note", "preview", "reply", "schema",
            "turn", "token estimate", "error message", "output", "working directory"]
_EVENTS = ["the model stops", "a tool fails", "the budget runs out", "the session ends",
           "the user interrupts", "the call returns", "a file changes", "the limit is reached",
           "a new turn starts", "the process restarts"]
_ADJECTIVES = ["small", "careful", "predictable", "stateless", "explicit", "cheap", "deterministic",
               "short", "boring", "well-tested"]
_STATES = ["valid", "small", "readable", "predictable", "in order", "consistent", "honest"]
_OUTCOMES = ["stay readable", "fail loudly", "recover quickly", "waste tokens", "repeat work",
             "lose track of the plan", "finish sooner", "surprise the user"]
_GERUNDS = ["checking", "saving", "reading", "recording", "validating", "counting"]

_EN_TEMPLATES = [
    "The {subject} {verb} the {object} before {event}.",
    "When {event}, the agent {verb} the {object} and {verb2} the {topic}.",
    "A {adj} {topic} keeps the {object} {state}.",
    "In practice, agents that {verb_base} the {topic} early tend to {outcome}.",
    "This is why the {subject} never {verb} the {topic} without {gerund} the {object} first.",
    "Compare this with lesson {other}, where the {subject} only {verb} the {object}.",
    "Nothing about the {topic} is clever; it simply {verb} the {object} when {event}.",
    "If the {topic} is missing, the {subject} {verb} the {object} instead.",
    "Keep the {topic} {adj}: most bugs here come from trying to {verb_base} too much.",
    "The test for the {topic} {verb} the {object} twice and compares the results.",
    "Users notice the {topic} only when {event}, which is exactly when it must be {state}.",
    "A good rule of thumb: {verb_base} the {object}, then {verb2_base} the {topic}.",
]

_EN_HEADINGS = ["How the {topic} works", "Why the {topic} exists", "Common mistakes with the {topic}",
                "Testing the {topic}", "Edge cases around the {topic}", "Design notes on the {topic}",
                "Measuring the cost of the {topic}", "Questions about the {topic}",
                "Reading the {topic} code", "Variations on the {topic}", "Debugging the {topic}",
                "When not to use the {topic}"]

_ZH = {
    "subjects": ["循环", "模型", "智能体", "工具处理函数", "消息列表", "系统提示词", "会话", "用户"],
    "verbs": ["读取", "写入", "检查", "记录", "裁剪", "替换", "验证", "收集", "总结", "返回", "追加"],
    "objects": ["工具结果", "文件", "请求", "预算", "计划", "笔记", "预览", "占位符", "摘要", "回复"],
    "events": ["模型停止输出", "工具出错", "预算用完", "会话结束", "用户打断", "调用返回"],
    "adjectives": ["简单", "谨慎", "可预测", "明确", "廉价", "稳定"],
    "states": ["有效", "简短", "可读", "一致", "有序"],
    "templates": [
        "{subject}在{event}之前会{verb}{object}。",
        "当{event}时，智能体先{verb}{object}，再{verb2}{object2}。",
        "{adj}的{subject}能让{object}保持{state}。",
        "这也是为什么{subject}从不在没有{verb}{object2}的情况下{verb2}{object}。",
        "和第 {other} 课相比，这里的{subject}只会{verb}{object}。",
        "实践中，{verb}{object}越早，{subject}就越{adj}。",
    ],
    "headings": ["工作原理", "为什么需要它", "常见错误", "如何测试", "边界情况", "设计说明", "练习"],
    "notice": "> 本页是摘要译文，完整内容请见英文版。",
}
_JA = {
    "subjects": ["ループ", "モデル", "エージェント", "ツールハンドラ", "メッセージリスト",
                 "システムプロンプト", "セッション", "ユーザー"],
    "verbs": [("読み込みます", "読み込んで"), ("書き込みます", "書き込んで"), ("確認します", "確認して"),
              ("記録します", "記録して"), ("削ります", "削って"), ("置き換えます", "置き換えて"),
              ("検証します", "検証して"), ("集めます", "集めて"), ("要約します", "要約して"),
              ("返します", "返して"), ("追加します", "追加して")],
    "objects": ["ツールの結果", "ファイル", "リクエスト", "予算", "計画", "メモ", "プレビュー",
                "プレースホルダー", "要約", "返答"],
    "events": ["モデルが止まる", "ツールが失敗する", "予算が尽きる", "セッションが終わる",
               "ユーザーが中断する", "呼び出しが戻る"],
    "adjectives": ["小さな", "慎重な", "予測しやすい", "明示的な", "安価な", "安定した"],
    "states": ["有効に", "短く", "読みやすく", "一貫して", "順序どおりに"],
    "templates": [
        "{subject}は{event}前に{object}を{verb}。",
        "{event}とき、エージェントはまず{object}を{verb_te}、次に{object2}を{verb2}。",
        "{adj}{subject}は{object}を{state}保ちます。",
        "第 {other} 課と比べると、ここでの{subject}は{object}を扱うだけです。",
        "実際には、{object}を早めに{verb_te}おくと{subject}が落ち着きます。",
        "{subject}は{object2}を{verb_te}から{object}を{verb2}。",
    ],
    "headings": ["仕組み", "なぜ必要か", "よくある間違い", "テストの方法", "境界ケース", "設計メモ", "練習"],
    "notice": "> このページは要約訳です。全文は英語版をご覧ください。",
}

_CODE_SNIPPETS = [
    'def {name}(messages):\n    """{doc}"""\n    total = 0\n    for message in messages:\n'
    '        total += len(str(message.get("content", "")))\n    return total\n',
    "def {name}(state, limit={num}):\n    if len(state) <= limit:\n        return state\n"
    "    return state[:1] + state[-(limit - 1):]\n",
    'def {name}(path):\n    text = path.read_text(encoding="utf-8")\n'
    "    return [line for line in text.splitlines() if line.strip()][:{num}]\n",
    "{name}_LIMIT = {num}\n\n\ndef {name}(items):\n"
    '    return sorted(items, key=lambda item: item["id"])[:{name}_LIMIT]\n',
]
_CODE_DOCS = ["Rough size of the message list in characters.", "Count what the next call will send.",
              "Return a number the loop can compare with its budget."]


def _slot_words(rng: random.Random, lesson: str) -> dict[str, str]:
    """One random choice for every template slot of the English generator (in this order)."""
    verb, verb_base = rng.choice(_VERBS)
    verb2, verb2_base = rng.choice(_VERBS)
    return {"subject": rng.choice(_SUBJECTS), "verb": verb, "verb_base": verb_base, "verb2": verb2,
            "verb2_base": verb2_base, "object": rng.choice(_OBJECTS), "event": rng.choice(_EVENTS),
            "adj": rng.choice(_ADJECTIVES), "state": rng.choice(_STATES),
            "outcome": rng.choice(_OUTCOMES), "gerund": rng.choice(_GERUNDS),
            "topic": rng.choice(_TOPIC_NOUNS[lesson]), "other": f"s{rng.randint(1, 9):02d}"}


def _capitalise(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


def _en_paragraph(rng: random.Random, lesson: str) -> str:
    return " ".join(_capitalise(rng.choice(_EN_TEMPLATES).format(**_slot_words(rng, lesson)))
                    for _ in range(rng.randint(3, 6)))


def _code_block(rng: random.Random, lesson: str) -> str:
    name = rng.choice(["measure", "trim", "collect", "render", "select", "count"])
    name += "_" + rng.choice(_TOPIC_NOUNS[lesson]).split()[0].lower().replace(".", "_")
    snippet = rng.choice(_CODE_SNIPPETS).format(name=name, doc=rng.choice(_CODE_DOCS),
                                                num=rng.choice([4, 8, 12, 20, 50]))
    return "```python\n" + snippet.replace(f"{name}_LIMIT", f"{name.upper()}_LIMIT") + "```"


def _en_section(rng: random.Random, lesson: str, heading: str) -> str:
    parts = [f"## {heading}"] + [_en_paragraph(rng, lesson) for _ in range(rng.randint(2, 4))]
    extra = rng.random()
    if extra < 0.35:
        parts += [_code_block(rng, lesson), _en_paragraph(rng, lesson)]
    elif extra < 0.6:                   # a bullet list
        parts.append("\n".join(f"- {_capitalise(w['verb_base'])} the {w['topic']} when {w['event']}."
                               for w in [_slot_words(rng, lesson) for _ in range(rng.randint(3, 5))]))
    return "\n\n".join(parts)


def _cjk_sentence(rng: random.Random, words: dict) -> str:
    verb, verb2 = rng.choice(words["verbs"]), rng.choice(words["verbs"])
    verb_masu, verb_te = verb if isinstance(verb, tuple) else (verb, verb)
    return rng.choice(words["templates"]).format(
        subject=rng.choice(words["subjects"]), verb=verb_masu, verb_te=verb_te,
        verb2=verb2[0] if isinstance(verb2, tuple) else verb2, object=rng.choice(words["objects"]),
        object2=rng.choice(words["objects"]), event=rng.choice(words["events"]),
        adj=rng.choice(words["adjectives"]), state=rng.choice(words["states"]),
        other=f"s{rng.randint(1, 9):02d}")


def _cjk_body(rng: random.Random, lesson: str, locale: str, target: int) -> str:
    """A short translated digest: the translations cover only the key points."""
    words = _ZH if locale == "zh" else _JA
    parts, used = [words["notice"]], set()
    length = len(parts[0])
    while length < target:
        base = rng.choice(words["headings"])
        heading = base if base not in used else f"{base}（{len(used) + 1}）"
        used.add(heading)
        section = [f"## {heading}"] + ["".join(_cjk_sentence(rng, words) for _ in range(rng.randint(3, 5)))
                                       for _ in range(rng.randint(2, 3))]
        if rng.random() < 0.5:
            section.append(_code_block(rng, lesson))
        parts.append("\n\n".join(section))
        length += len(parts[-1]) + 2
    return "\n\n".join(parts)


def _en_body(rng: random.Random, lesson: str, target: int) -> str:
    readme = (FILES_DIR / lesson / "README.md").read_text(encoding="utf-8")
    parts = [readme.split("\n", 1)[1].strip()]
    used = {line[3:] for line in parts[0].splitlines() if line.startswith("## ")}
    length = len(parts[0])
    while length < target:
        topic = rng.choice(_TOPIC_NOUNS[lesson])
        heading = rng.choice(_EN_HEADINGS).format(topic=topic)
        if heading in used:
            heading = f"{heading} (part {sum(h.startswith(heading) for h in used) + 1})"
        used.add(heading)
        parts.append(_en_section(rng, lesson, heading))
        length += len(parts[-1]) + 2
    return "\n\n".join(parts)


_FIRST_BODY = (
    "Start here. This lesson builds the smallest useful agent: a loop that sends "
    "the conversation to the model, runs any tool the model asks for, and sends "
    "the results back until the model answers in plain text.\n\n"
    "## In this lesson\n\n"
    "- the `messages` list as working memory\n"
    "- stop reasons and when a turn ends\n"
    "- one `bash` tool\n\n"
    "## Try it\n\n"
    "Run `python code.py` and ask for a file listing."
)
_WORD = re.compile(r"[A-Za-z0-9_'-]+|[\u3040-\u30ff\u3400-\u9fff]")   # a CJK character is a word


def build_docs() -> dict:
    """Build the course-data structure that is written as docs.json."""
    docs = []
    for locale_index, locale in enumerate(("en", "zh", "ja")):
        for order, lesson in enumerate(LESSONS, start=1):
            rng = random.Random(_SEED + 100 * locale_index + order)
            year, month = _UPDATED_BASE
            month += rng.randint(0, 3)
            updated = f"{year}-{month:02d}-{rng.randint(1, 28):02d}"
            if locale == "en" and order == 1:
                body = _FIRST_BODY
            elif locale == "en":
                body = _en_body(rng, lesson, rng.randint(*_EN_BODY_CHARS))
            else:
                body = _cjk_body(rng, lesson, locale, rng.randint(*_CJK_BODY_CHARS))
            docs.append({"id": f"{lesson}-{locale}", "lesson": lesson[:3], "slug": _SLUGS[lesson],
                         "title": _TITLES[locale][lesson], "locale": locale, "order": order,
                         "summary": _SUMMARIES[locale][lesson],
                         "headings": [line[3:].strip() for line in body.splitlines()
                                      if line.startswith("## ")],
                         "word_count": len(_WORD.findall(body)), "updated": updated, "body": body})
    return {"schema": "course-docs/v1", "generated": "2026-01-01T00:00:00Z", "docs": docs}


def docs_json_text() -> str:
    """The exact text of docs.json."""
    return json.dumps(build_docs(), indent=2, ensure_ascii=False) + "\n"

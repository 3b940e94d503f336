"""The lesson's three experiments on generated courses (``courses.py``), in English and Chinese,
default Limits and model: each finishes, fires its stage, reads only files that exist, and gives
facts checked against the files."""

from __future__ import annotations

import ast
import functools
import json
import re
from pathlib import Path

import pytest
from courses import COURSES, build, prompts

from compact import Compactor, Limits, agent_loop, summarizer_for
from compact.classroom.stage_cases import results as tool_results
from compact.offline import MODEL_NAME, OfflineModel
from compact.offline.markers import read_persisted
from compact.pipeline.storage import TOOL_RESULTS_DIR
from compact.tools import Workspace

CASES = [(course, lang) for course in COURSES for lang in ("en", "zh")]


class Run:
    def __init__(self, course: str, lang: str, n: int, root: Path) -> None:
        self.course = COURSES[course]
        self.root = build(self.course, root)
        self.prompt = prompts(self.course, lang)[n]
        client = OfflineModel().client()
        self.compactor = Compactor(self.root, Limits(), summarize=summarizer_for(client, MODEL_NAME))
        self.messages = [{"role": "user", "content": self.prompt}]
        self.trace = agent_loop(self.messages, self.prompt, client=client,
                                compactor=self.compactor, workspace=Workspace(self.root),
                                log=lambda line: None)
        self.answer = self.trace.answer
        self.fired = [stage for t in self.trace.turns for stage in t.stages]

    def reads(self) -> list[str]:
        """The paths the model read, each checked to be a file of the workspace."""
        paths = [c[1]["path"] for t in self.trace.turns for c in t.tool_calls if c[0] == "read_file"]
        assert paths and all((self.root / p).is_file() for p in paths), paths
        return paths


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """``run(course, lang, n)``: experiment n of the course, run once in this module."""
    @functools.cache
    def get(course: str, lang: str, n: int) -> Run:
        return Run(course, lang, n, tmp_path_factory.mktemp(f"{course}-{lang}-{n}") / "ws")
    return get


@pytest.mark.parametrize(("course", "lang"), CASES)
def test_experiment_1_titles_and_their_pattern(run, course, lang):
    result = run(course, lang, 1)
    assert "micro_compact" in result.fired      # what it keeps: test_experiments' experiment 1
    five = result.course.chapters[:5]
    assert result.reads() == [f"{c}/README.md" for c in five]
    for chapter in five:
        title = result.course.titles[chapter]
        assert title in (result.root / chapter / "README.md").read_text(encoding="utf-8")
        assert (f"{chapter}: {title}" if lang == "en" else f"{chapter}：“{title}”") in result.answer
    expected = {("workshop", "en"): "`Chapter N · <English name> | <Chinese name>`",
                ("workshop", "zh"): "`Chapter N · <英文名称> | <中文名称>`",
                ("bootcamp", "en"): "`第N课：<Chinese name> / <English name>`",
                ("bootcamp", "zh"): "`第N课：<中文名称> / <英文名称>`",
                ("seminar", "en"): "`Lesson N | <question>`",
                ("seminar", "zh"): "`Lesson N | <问题>`",
                ("jiangtang", "en"): "`第N课：<Name>——<phrase>`",
                ("jiangtang", "zh"): "`第N课：<名称>——<短语>`"}[course, lang]
    label = "Naming pattern: every title is " if lang == "en" else "命名规律：每个标题都是 "
    assert label + expected in result.answer


FACTS = {"en": ("{where} holds the records: {seen} complete record",
                "the total number of records is not visible", "persisted at {saved_at}"),
         "zh": ("{where} 包含这些记录：可见 {seen} 条完整记录", "所见文本中看不到记录总数",
                "已保存到 {saved_at}")}


def _complete_records_in(preview: str, start: str) -> int:
    """Records that end inside the preview, found with json's own decoder."""
    decoder = json.JSONDecoder()
    count = 0
    for match in re.finditer(start, preview):
        try:
            decoder.raw_decode(preview, match.end())
            count += 1
        except ValueError:
            break
    return count


@pytest.mark.parametrize(("course", "lang"), CASES)
def test_experiment_2_persists_the_data_and_names_its_fields(run, course, lang):
    result = run(course, lang, 2)
    assert result.fired == ["tool_result_budget"] and result.reads()
    original = (result.root / result.course.data_path).read_text(encoding="utf-8")
    [saved] = sorted((result.root / TOOL_RESULTS_DIR).glob("*.txt"))    # whole: test_experiments
    block = read_persisted(tool_results(result.trace.turns[-1].sent)[0])
    assert block is not None and block.preview == original[:2_000]
    data = json.loads(original)
    if result.course.data_shape == "array":
        record, start, where = data[0], r"\n  (?=\{)", "the top-level array"
    else:
        entries = data["search"]["entries"]
        record, start, where = next(iter(entries.values())), r'"e\d{4}": (?=\{)', '"search.entries"'
    for field in record:
        named = f"{field} (" if lang == "en" else f"{field}（"
        assert named in result.answer, f"field {field!r} not named"
    seen = _complete_records_in(block.preview, start)
    saved_at = saved.relative_to(result.root).as_posix()
    if lang == "zh":                            # asked in Chinese: the same facts in Chinese
        where = {"the top-level array": "顶层数组"}.get(where, where)
    for fact in FACTS[lang]:
        assert fact.format(where=where, seen=seen, saved_at=saved_at) in result.answer


@pytest.mark.parametrize(("course", "lang"), CASES)
def test_experiment_3_compacts_and_answers_from_the_files(run, course, lang):
    result = run(course, lang, 3)
    assert "compact_history" in result.fired    # its transcript and message: test_experiments
    answer = result.answer
    assert ("from the summary's notes" if lang == "en" else "根据摘要中的笔记") in answer
    first, second = result.course.programs
    # The program noted before compaction: its real classes and functions are named.
    tree = ast.parse((result.root / first.path).read_text(encoding="utf-8"))
    functions = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    for name in [n.name for n in tree.body if isinstance(n, ast.ClassDef)] + functions[:6]:
        assert re.search(rf"\b{re.escape(name)}\b", answer), f"{name} missing for {first.path}"
    for method in next(iter(first.classes.values()), []):
        assert method in answer
    # Both: what each says it is, and what its README explains (the careful agent read it).
    readme = "README.md" if lang == "en" else "README.zh.md"
    for program in (first, second):
        assert program.docstring.split(":")[0] in answer
        folder = program.path.split("/")[0]
        assert f"{folder}/{readme}" in result.reads()
        for name in result.course.readme_names[folder]:
            assert name in answer
    # Nothing invented: every definition named for a program exists in that program.
    for program in (first, second):
        text = (result.root / program.path).read_text(encoding="utf-8")
        block = answer.split(f"\n{program.path}\n", 1)[1].split("\n\n", 1)[0]
        structure = next(line for line in block.splitlines() if line.startswith("- ")
                         and ("structure" in line or "结构" in line))
        for part in re.split(r"; |；", structure):
            if re.search(r"\b(functions?|class|classes): |个类：|个顶层函数：", part):
                for name in re.findall(r"[A-Za-z_]\w{2,}", re.split(r"[:：]", part, maxsplit=1)[-1]):
                    if name not in ("methods", "class", "classes"):
                        assert re.search(rf"\b(def|class) {name}\b", text), name
        for excerpt, unseen, nothing, some in EXCERPT:      # honest about what it did not see
            if excerpt in structure:
                assert unseen in structure and (nothing in structure or some in structure)


EXCERPT = [("(an excerpt", "the middle not seen", "no function or class definitions in the part seen",
            "at least"),
           ("（节选", "中间部分未看到", "所见部分中没有函数或类的定义", "至少")]


def _section(answer: str, heading: str) -> list[str]:
    """The ``- program: ...`` lines under one heading of the answer."""
    if heading not in answer:
        return []
    lines = answer.split(heading, 1)[1].splitlines()[1:]
    return [line for line in lines[:2] if line.startswith("- ")]


def _caught_and_raised(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            types = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            found |= {ast.unparse(t) for t in types}
        elif isinstance(node, ast.Raise) and node.exc is not None:
            found.add(ast.unparse(node.exc.func if isinstance(node.exc, ast.Call) else node.exc))
    return found


def _written(program) -> set[str]:
    """The paths the program's design writes, worked out by running its constants."""
    namespace = {"Path": Path}
    exec("\n".join(f"{k} = {v}" for k, v in program.constants.items()), namespace)
    values = [eval(expression, namespace) for expression in program.writes.values()]
    return {v if isinstance(v, str) else v.as_posix() for v in values}


HEADINGS = {"stores": {"en": "What each stores, and where", "zh": "各自保存什么、存在哪里"},
            "prompt": {"en": "What each keeps in the prompt", "zh": "各自在提示中保留什么"},
            "errors": {"en": "How each handles errors", "zh": "各自如何处理错误"}}
ASKED = {"seminar": ["errors"], "jiangtang": ["stores", "errors"]}


@pytest.mark.parametrize(("course", "lang"), [c for c in CASES if c[0] in ASKED])
def test_experiment_3_answers_the_question_it_was_asked(run, course, lang):
    """Neither program is about context or memory: the answer is about what was asked (errors;
    where the data is kept), from what each program contains, with nothing invented."""
    result = run(course, lang, 3)
    answer = result.answer
    for part, heading in HEADINGS.items():
        assert (heading[lang] in answer) == (part in ASKED[course]), (part, answer)
    assert not re.search(r"context|memory|上下文|记忆", answer, re.I)
    first, second = result.course.programs
    errors = _section(answer, HEADINGS["errors"][lang])
    assert [line.split(":")[0] for line in errors] == [f"- {first.path}", f"- {second.path}"]
    # The program read whole: every exception it catches or raises, and nothing else.
    named = set(re.findall(r"([\w.]+) \(", errors[0].split(": ", 1)[1]))
    assert named == _caught_and_raised(result.root / first.path)
    # The one the summariser saw in part: what it names is there, and it says it saw a part.
    assert ("in the part seen" if lang == "en" else "所见部分中") in errors[1]
    assert set(re.findall(r"([\w.]+) \(", errors[1])) <= _caught_and_raised(result.root / second.path)
    if "stores" in ASKED[course]:
        stores = _section(answer, HEADINGS["stores"][lang])
        assert set(re.findall(r"([\w./-]+) \(", stores[0].split(": ", 1)[1])) == _written(first)

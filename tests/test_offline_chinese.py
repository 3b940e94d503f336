"""Asked in Chinese, the offline model answers in Chinese: the same stages, the same facts.

An English sentence is three or more ASCII words in a row, once code, quotations, markers,
paths and identifiers are taken out; none may be in what the model writes in Chinese.
"""

import json
import re

import pytest
from conftest import run_agent
from histories import tool_round, user
from served import answered

from compact.classroom.experiments import PROMPTS, PROMPTS_ZH, run_experiment
from compact.client import summarizer_for
from compact.demo import expected_titles
from compact.offline import OfflineModel
from compact.offline.phrases import CATALOGS, LANGUAGES, forms, phrase
from compact.offline.summarizer import Entry, offline_summary
from compact.offline.view import read_view
from compact.pipeline.formats import COMPACTED, compacted_message, parse_compacted
from compact.pipeline.summary import SUMMARY_SYSTEM, render_history
from compact.texts import language
from compact.tools import Workspace

_TAKEN_OUT = re.compile(
    r"`[^`]*`"                                   # code spans
    r"|“[^”]*”|\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'"   # quotations of what was read
    r"|\[[^\]\n]*\]"                             # the lesson's markers, a note's key
    r"|[A-Za-z0-9_.{}…*/-]*[_./\d{}][A-Za-z0-9_.{}…*/-]*"   # paths and identifiers
    r"|\b[A-Z][A-Z0-9_]+\b")                     # constants
_SENTENCE = re.compile(r"\b[A-Za-z]+(?:(?:\s+\(?|\)\s+)[A-Za-z]+){2,}\b")
FIELDS = ("id", "lesson", "slug", "title", "locale", "order", "summary", "headings",
          "word_count", "updated", "body")


def english_sentences(text: str) -> list[str]:
    return _SENTENCE.findall(_TAKEN_OUT.sub(" ", text))


def model_texts(result) -> list[str]:
    """Every text the model wrote in a run: its turns' texts and the summaries it gave."""
    texts = [t.text for t in result.trace.turns if t.text]
    for message in result.messages:
        content = message["content"]
        if isinstance(content, str) and (parsed := parse_compacted(content)):
            texts.append(str(parsed[1]))
    return texts


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("chinese")
    found = {}
    try:
        for lang in ("en", "zh"):
            language(lang)
            for n in (1, 2, 3):
                found[lang, n] = run_experiment(n, workdir=root / f"{lang}{n}")
    finally:
        language("en")
    return found


def test_the_sentence_rule_finds_english_and_spares_facts():
    assert english_sentences("结构: Python, 499 lines (parsed whole); 1 class: ToolError")
    assert not english_sentences('笔记 [s01/README.md]：一级标题 "s01: The Agent Loop — one loop"；'
                                 "42 个顶层函数：to_plain, micro_compact；常量：MAX_TOKENS = 8000")


@pytest.mark.parametrize("n", [1, 2, 3])
def test_each_experiment_fires_the_same_stages_at_the_same_turns(runs, n):
    english, chinese = runs["en", n], runs["zh", n]
    assert chinese.prompt == PROMPTS_ZH[n] and english.prompt == PROMPTS[n]
    def stage_turns(result) -> list[tuple[int, list[str]]]:
        return [(t.turn, t.stages) for t in result.trace.turns if t.stages]
    assert stage_turns(chinese) == stage_turns(english) and stage_turns(chinese)
    assert len(chinese.trace.turns) == len(english.trace.turns)
    assert [c for t in chinese.trace.turns for c in t.tool_calls] == \
        [c for t in english.trace.turns for c in t.tool_calls]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_no_english_sentence_in_what_the_model_writes_in_chinese(runs, n):
    texts = model_texts(runs["zh", n])
    assert texts and all(re.search(r"[\u4e00-\u9fff]", t) for t in texts)
    found = {s for t in texts for s in english_sentences(t)}
    assert found == set()
    assert english_sentences("\n".join(model_texts(runs["en", n])))     # the rule can fail


def test_experiment_1_names_the_titles_and_pattern_in_chinese(runs):
    chinese = runs["zh", 1].answer          # English: test_experiments' test_experiment_1
    for title in expected_titles().values():
        assert f"“{title}”" in chinese
    assert "`sNN: <名称> — <短语>`" in chinese
    assert "命名规律：每个标题都是" in chinese


def test_experiment_2_names_the_same_eleven_fields(runs):
    english, chinese = runs["en", 2].answer, runs["zh", 2].answer
    for name in FIELDS:
        assert f"{name} (" in english and f"{name}（" in chinese
    assert "1 complete record visible" in english and "可见 1 条完整记录" in chinese
    assert "the 2nd cut off" in english and "第 2 条在所见文本结尾处被截断" in chinese
    assert "headings (array of string)" in english and "headings（字符串数组）" in chinese


def _names(text: str) -> set[str]:
    """The identifiers and paths an answer cites (the facts a comparison is made of)."""
    return set(re.findall(r"[A-Za-z_.][A-Za-z0-9_./{}…-]*[_./][A-Za-z0-9_./{}…-]*"
                          r"[A-Za-z0-9_/{}…()-]", text))


def test_experiment_3_compares_with_the_same_facts(runs):
    english, chinese = runs["en", 3].answer, runs["zh", 3].answer
    assert _names(chinese) == _names(english) and len(_names(english)) > 30
    for fact in ("772", "209", "CONTEXT_LIMIT", "persist_large_output", "MEMORY_DIR",
                 "build_system_prompt()", "archive.jsonl"):
        assert fact in english and fact in chinese
    # s09's code.py reached the summariser as an excerpt: its line count is of what was seen
    assert "Python, 209 lines seen (an excerpt" in english and "Python，所见 209 行（节选" in chinese
    assert "（根据摘要中的笔记）" in chinese and "(from the summary's notes)" in english


def _conversation(lang: str) -> list[Entry]:
    request = PROMPTS_ZH[2] if lang == "zh" else PROMPTS[2]
    records = json.dumps({"docs": [{"id": "a", "title": "t"}, {"id": "b", "title": "u"}]})
    return [Entry("user", request),
            Entry("tool_use", name="read_file", id="t1",
                  input={"path": "web/src/data/generated/docs.json"}),
            Entry("tool_result", records, id="t1"),
            Entry("assistant", phrase("next", lang, step=phrase("next_read", lang, path="x.md")))]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_summary_round_trips_in_either_language(lang):
    summary = offline_summary(_conversation(lang))
    assert summary.splitlines()[0] == phrase("summary_label", lang)
    compacted = compacted_message(COMPACTED, _conversation(lang)[0].text, summary)["content"]
    view = read_view([{"role": "user", "content": compacted}])
    assert view.compacted_before and view.lang == lang
    assert "web/src/data/generated/docs.json" in view.notes
    again = offline_summary([Entry("user", compacted), Entry("user", _conversation(lang)[0].text)])
    assert "web/src/data/generated/docs.json" in again and "x.md" not in again.split("\n")[1]
    assert phrase("goal", lang, goal=_conversation(lang)[0].text) in again


def test_every_phrase_has_both_languages_with_the_same_values():
    names = [key.removeprefix("offline.") for key in CATALOGS[0] if key.startswith("offline.")]
    assert len(CATALOGS) == len(LANGUAGES) and len(names) > 100
    for key in names:
        written = [catalog[f"offline.{key}"] for catalog in CATALOGS]
        assert all(written), key
        values = {v: 1 for text in written for v in re.findall(r"\{(\w+)", text)}
        assert all(phrase(key, lang, **values) for lang in LANGUAGES), key
    assert forms("note") == ("Note [{key}]: {fact}", "笔记 [{key}]：{fact}")


def _chinese_history() -> list[dict]:
    code = '"""压缩：让历史保持短小。"""\n\nLIMIT = 50_000\n\ndef write_transcript(messages):\n    pass\n'
    return [user("请读取 s08/code.py，并说明它怎样保存记录。不要修改文件。"),
            *tool_round(("t1", "s08/code.py", code))]


def test_summaries_asked_every_way_of_a_chinese_conversation_are_chinese():
    rendered = render_history(_chinese_history())
    ours = answered({"system": SUMMARY_SYSTEM, "messages": [{"role": "user", "content":
                     f"Summarise this conversation.\n\n<conversation>\n{rendered}\n</conversation>"}]})
    server = answered({"messages": _chinese_history(), "compaction": {"type": "summarize"}},
                      {"anthropic-beta": "compact-2026-09-04"})
    for reply in (ours, server):
        summary = "".join(b.get("text") or b.get("content") or "" for b in reply["content"])
        assert summary.startswith(phrase("summary_label", "zh")), summary
        assert re.search(r"笔记 \[s08/code\.py\]：Python，\d 行（完整解析）", summary)
        assert "剩余工作：" in summary and "用户约束：不要修改文件。" in summary
        assert not english_sentences(summary)


@pytest.mark.parametrize("request_text", ["写入 notes.md，内容为 'hello world'，然后压缩对话。",
                                          "把对话压缩之前，先写入 notes.md，内容是「hello world」"])
def test_a_write_then_compact_request_in_chinese_is_done_once_and_answered_in_chinese(tmp_path, request_text):
    """Notebook 05's compact-tool request, as its Chinese edition asks it: the file written once,
    the compact tool called in the same batch, and the answer in Chinese."""
    client = OfflineModel().client()
    trace = run_agent([{"role": "user", "content": request_text}], client, Workspace(tmp_path),
                      summarize=summarizer_for(client))
    assert [name for turn in trace.turns for name, _ in turn.tool_calls] == ["write_file", "compact"]
    assert (tmp_path / "notes.md").read_text() == "hello world"
    assert "compact_tool" in trace.turns[0].stages
    assert trace.answer.startswith("（离线模型）") and english_sentences(trace.answer) == []

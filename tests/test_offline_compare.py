"""The comparison skill on layouts of its own: an answer shaped by the question's words, in
English and Chinese."""

from __future__ import annotations

import textwrap

from conftest import run_agent

from compact import summarizer_for
from compact.offline import OfflineModel
from compact.offline.compare import carries, question_of, question_words
from compact.offline.read_code import describe_code

CACHE = textwrap.dedent('''\
    """A cache server: answers lookups from a dict and spills it to spill/cache.json."""
    import json
    from pathlib import Path

    SPILL = Path("spill") / "cache.json"


    def lookup(table, key):
        try:
            return table[key]
        except KeyError:
            return None


    def spill(table):
        with open(SPILL, "w", encoding="utf-8") as handle:
            json.dump(table, handle)


    if __name__ == "__main__":
        spill({"a": 1})
    ''')
QUEUE = textwrap.dedent('''\
    """A queue that retries: a job that fails is put back, at most three times."""
    import collections

    MAX_TRIES = 3


    class Retry(Exception):
        """Raised to put a job back."""


    def work(queue, job):
        for attempt in range(MAX_TRIES):
            try:
                return job()
            except (Retry, TimeoutError):
                queue.append(job)
        raise RuntimeError("gave up")
    ''')


def _run(tmp_path, files: dict[str, str], request: str):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    client = OfflineModel().client()
    return run_agent([{"role": "user", "content": request}], client, tmp_path,
                     summarize=summarizer_for(client))


def test_a_question_that_asks_nothing_in_particular_gets_every_part_the_notes_have(tmp_path):
    files = {"a/cache_server.py": CACHE, "b/queue.py": QUEUE}
    trace = _run(tmp_path, files, "比较 a/cache_server.py 和 b/queue.py")
    answer = trace.answer
    assert "各自保存什么、存在哪里（写入的文件）：\n- a/cache_server.py: spill/cache.json (spill)\n" \
           "- b/queue.py: 不写任何文件" in answer
    assert "各自如何处理错误（捕获和抛出的异常）：" in answer
    assert "各自在提示中保留什么" not in answer          # neither sends a model anything


def test_question_words_are_stemmed_and_read_in_chinese():
    words = question_words("How does each handle errors and retries?")
    assert [w.text for w in words] == ["handle", "errors", "retries"]
    assert carries("ToolError", words[1]) and carries("handle_timeout", words[0])
    assert not carries("terror_level", words[1])          # a word, not a substring
    zh = question_words("说明它们分别怎样管理当前上下文和持久记忆")
    assert [w.text for w in zh] == ["管理", "当前", "上下文", "持久", "记忆"]
    assert carries("CONTEXT_LIMIT", zh[2]) and carries("persist_large_output", zh[3])
    assert carries("MemoryStore", zh[4])


def test_the_names_of_the_programs_are_not_the_question():
    assert question_of("比较 s08_context_compact 和 s09_memory", []) == "比较 … 和 …"
    assert question_of("How does a/cache.py differ from b/queue.py?", []) == \
        "How does … differ from …?"
    assert question_words(question_of("Compare lab1_cache and lab2_queue", [])) == []


def test_what_code_does_is_read_from_lines_when_it_does_not_parse():
    from_lines = describe_code("function save(items) {\n  try {\n    fs.writeFileSync('a');\n"
                               "  } catch (e) {}\n}\nwith open(LOG, 'a') as f:\n"
                               "    raise Full('x')\n", "queue.js")
    assert "writes: in the part seen, LOG (save)" in from_lines
    assert "errors: in the part seen, raises Full (save)" in from_lines
    cut = describe_code(QUEUE[:-60], "queue.py", "an excerpt")
    assert "errors: in the part seen, catches Retry (work), TimeoutError (work)" in cut


def test_names_shared_beyond_what_the_notes_list_are_not_denied(tmp_path):
    def program(prefix: str) -> str:
        return "".join(f"def {prefix}{i:02}():\n    return {i}\n\n\n" for i in range(28)) \
            + "def main():\n    return 0\n"
    answer = _run(tmp_path, {"a/one.py": program("a"), "b/two.py": program("b")},
                  "Compare a/one.py and b/two.py").answer
    assert "Names in both notes: none. The notes list only some of the names of a/one.py, " \
           "b/two.py: the files themselves may share more." in answer      # both define main
    small = _run(tmp_path / "small", {"a/cache_server.py": CACHE, "b/queue.py": QUEUE},
                 "Compare a/cache_server.py and b/queue.py")
    assert "Names in both notes: none." in small.answer and "may share more" not in small.answer
    # no README beside either program: the glob that matched nothing lists no files
    assert [c for t in small.turns for c in t.tool_calls if c[0] == "glob"], "it looks for READMEs"
    notes = [t.text for t in small.turns if "Note [glob" in t.text]
    assert notes and all("files: (no matches)" in n and "(no," not in n for n in notes)
    assert "no README beside it" in small.answer

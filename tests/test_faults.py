"""Faults: a full or unwritable disk, a broken summariser, a failing model API, a bad tool.
In every case the caller's list is as it was before the failing step, nothing already on disk
changes, no temp file is left behind, and the error says what failed and what to do."""

from __future__ import annotations

import contextlib
import copy
import errno
import io
import os
import time
from pathlib import Path

import anthropic
import httpx2
import pytest
from conftest import fake_summary, make_files, run_agent
from histories import session, user
from replies import Script, api_error, client_for, reply, text, tool_call
from test_real_files import running

from compact import Compactor, LoopOptions, StorageError, SummaryError, Workspace, summarizer_for
from compact.model_call import ModelResponseError
from compact.offline import OfflineModel
from compact.pipeline import storage


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


@contextlib.contextmanager
def untouched(history: list, root: Path):
    """The block leaves ``history`` as it was, every file under ``root`` as it was, no temp file."""
    before, on_disk = copy.deepcopy(history), files(root)
    yield
    assert history == before and files(root) == on_disk and list(root.rglob(".tmp-*.part")) == []


@pytest.fixture
def workdir(tmp_path):
    """A workdir that already holds a transcript and a persisted result from earlier."""
    return make_files(tmp_path, {".transcripts/transcript-0001.jsonl": '{"role":"user"}\n',
                                 ".task_outputs/tool-results/t0_0.txt": "an older persisted result"})


def enospc(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


OVERLOADED = api_error(529, "overloaded_error", "Overloaded")


class HalfWriter(io.FileIO):
    """The disk fills after half the bytes."""
    def write(self, data):
        super().write(data[: len(data) // 2])
        enospc()


def break_storage(monkeypatch, fault: str, folder: Path) -> None:
    real_mkstemp = storage.tempfile.mkstemp

    def mkstemp(dir, **kw):
        if Path(dir) == folder:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_mkstemp(dir=dir, **kw)
    if fault == "unwritable":             # EACCES, simulated: as root, chmod does not stop writes
        monkeypatch.setattr(storage.tempfile, "mkstemp", mkstemp)
    elif fault == "halfway":
        monkeypatch.setattr(storage.os, "fdopen", lambda fd, mode: HalfWriter(fd, mode))
    else:
        monkeypatch.setattr(storage.os, fault, enospc)


TRANSCRIPTS, TOOL_RESULTS = ".transcripts", ".task_outputs/tool-results"


@pytest.mark.parametrize(("fault", "folder", "method"), [
    ("fsync", TRANSCRIPTS, "compact_history"), ("fsync", TRANSCRIPTS, "reactive_compact"),
    ("halfway", TRANSCRIPTS, "compact_history"), ("unwritable", TRANSCRIPTS, "compact_history"),
    ("link", TOOL_RESULTS, "tool_result_budget"), ("link", TOOL_RESULTS, "prepare"),
    ("unwritable", TOOL_RESULTS, "tool_result_budget"),
])
def test_a_full_or_unwritable_folder_changes_nothing_and_says_so(workdir, monkeypatch, fault, folder,
                                                                  method):
    """No half file under a real name, no temp file, and the error names the folder and the fix."""
    history = session([["a" * 500], ["b" * 500], ["c" * 500], ["z" * 250_000]])   # reactive acts
    break_storage(monkeypatch, fault, workdir / folder)
    stage = getattr(Compactor(workdir, summarize=fake_summary), method)
    with untouched(history, workdir), pytest.raises(StorageError) as caught:
        stage(history) if method == "tool_result_budget" else stage(history, "task")
    what, why = ("transcript" if folder == TRANSCRIPTS else "tool-results",
                 "Permission denied" if fault == "unwritable" else "No space left on device")
    assert f"cannot write the {what} in {workdir / folder}: {why}. Free some disk space or make the " \
           "folder writable; the history was left unchanged." in str(caught.value)


def test_folder_linked_outside_the_workdir_is_refused(tmp_path):
    """``ln -s /somewhere .transcripts`` from bash must not redirect compaction's writes."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "work").mkdir()
    for name in (".transcripts", ".task_outputs"):
        (tmp_path / "work" / name).symlink_to(tmp_path / "outside")
    history = session([["z" * 250_000]])
    compactor = Compactor(tmp_path / "work", summarize=fake_summary)
    with untouched(history, tmp_path):
        for call in (lambda: compactor.compact_history(history, "task"),
                     lambda: compactor.tool_result_budget(history)):
            with pytest.raises(StorageError, match="leads outside the workdir"):
                call()


def no_links(src, dst):
    raise PermissionError(errno.EPERM, "Operation not permitted")


@pytest.mark.parametrize("link", [os.link, no_links], ids=["links", "no-links"])
def test_transcripts_are_new_files_never_overwrites(workdir, monkeypatch, link):
    """Some mounted drives refuse hard links (EPERM): then reserve the name and rename onto it."""
    monkeypatch.setattr(storage.os, "link", link)
    history = session([["a" * 500]])
    compactor = Compactor(workdir, summarize=fake_summary)
    on_disk = files(workdir)
    compactor.compact_history(history, "task")
    compactor.compact_history(history, "task")
    now = files(workdir)
    assert {k: now[k] for k in on_disk} == on_disk          # old files byte-identical
    assert sorted(set(now) - set(on_disk)) == [".transcripts/.gitignore",   # issue 23: out of git
                                                ".transcripts/transcript-0002.jsonl",
                                                ".transcripts/transcript-0003.jsonl"]
    assert storage.read_transcript(workdir / ".transcripts" / "transcript-0002.jsonl") == history
    assert list(workdir.rglob(".tmp-*.part")) == []


def test_disk_full_inside_agent_loop_keeps_the_last_valid_state(tmp_path, monkeypatch):
    ws = make_files(tmp_path / "ws", {"one.py": '"""Module one."""\n' + "x = 1\n" * 5_000,
                                      "two.py": '"""Module two."""\n' + "y = 2\n" * 5_000})
    break_storage(monkeypatch, "unwritable", ws / TRANSCRIPTS)
    client = OfflineModel().client()
    messages = [user("Compare one.py and two.py")]
    snapshots = []
    with pytest.raises(StorageError, match="transcript"):
        run_agent(messages, client, ws, summarizer_for(client),
                  options=LoopOptions(on_turn=lambda turn: snapshots.append(copy.deepcopy(messages))))
    assert len(snapshots) >= 2 and messages == snapshots[-1]   # the turn before, untouched
    assert not (ws / ".transcripts").exists() or list((ws / ".transcripts").glob("*.jsonl")) == []


def raising(error: Exception):
    def summarize(messages):
        raise error
    return summarize


def read_timeout(request):
    raise httpx2.ReadTimeout("read timed out", request=request)


def answered(handler):
    """The summariser of an SDK client whose HTTP answers come from ``handler``."""
    return summarizer_for(client_for(handler))


@pytest.mark.parametrize(("summarize", "words"), [
    (raising(RuntimeError("summariser crashed")), "RuntimeError: summariser crashed"),
    (raising(TimeoutError("the summariser took too long")), "TimeoutError: the summariser took too long"),
    (lambda m: "", "returned no text"),
    (lambda m: "   \n", "returned no text"),
    (lambda m: None, "returned no text"),
    (answered(read_timeout), r"the summariser failed \(APITimeoutError"),
    (answered(lambda r: OVERLOADED), "the summariser failed"),
    (answered(lambda r: httpx2.Response(200, text="<html>proxy login</html>",
                                        headers={"content-type": "text/html"})), "the summariser failed"),
    (answered(lambda r: httpx2.Response(200, json={"content": "not a list"})), "the summariser failed"),
], ids=["crash", "timeout", "empty", "blank", "none", "client-timeout", "client-529", "client-html",
        "client-wrong-shape"])
@pytest.mark.parametrize("method", ["compact_history", "reactive_compact", "prepare"])
def test_summariser_fails(tmp_path, summarize, words, method):
    # > 50,000 chars (micro_compact leaves a 100-char result), and it precedes reactive's tail of 5
    history = session([["a" * 100], ["b" * 30_000], ["c" * 30_000], ["d" * 10]])
    before = copy.deepcopy(history)
    with pytest.raises(SummaryError, match=words) as caught:
        getattr(Compactor(tmp_path, summarize=summarize), method)(history, "task")
    assert "left unchanged" in str(caught.value) and "retry" in str(caught.value)
    if "APITimeoutError" in words:
        assert isinstance(caught.value.__cause__, anthropic.APITimeoutError)
    assert history == before
    saved = list((tmp_path / ".transcripts").glob("*.jsonl"))
    assert len(saved) == 1 and storage.read_transcript(saved[0]) == before   # nothing lost


@pytest.mark.parametrize(("handler", "error", "notes"), [
    (lambda r: OVERLOADED, anthropic.InternalServerError, ("retry later", "just before this call")),
    (read_timeout, anthropic.APITimeoutError, ("ANTHROPIC_BASE_URL",)),
], ids=["529", "timeout"])
def test_a_failing_model_call_is_raised_unchanged_and_a_retry_carries_on(tmp_path, handler, error,
                                                                         notes):
    """The list left by a failed call is a valid history: calling again simply continues."""
    messages = session([["a" * 500]], request="do it") + [
        {"role": "assistant", "content": [{"type": "text", "text": "reading"}]}, user("go on")]
    before = copy.deepcopy(messages)
    with pytest.raises(error) as caught:
        run_agent(messages, client_for(handler), tmp_path, request="do it", model="scripted")
    assert messages == before
    if error is anthropic.InternalServerError:
        assert caught.value.status_code == 529
    if hasattr(caught.value, "add_note"):
        assert all(note in " ".join(caught.value.__notes__) for note in notes)
    trace = run_agent(messages, Script(reply(text("done"))).client, tmp_path, request="do it",
                      model="scripted")
    assert trace.answer == "done" and messages == [*before, {"role": "assistant", "content": [
        text("done")]}]


def test_model_overloaded_after_compaction_keeps_the_compacted_state(tmp_path):
    """The documented state: this turn's compaction applied (transcript saved), no reply."""
    messages = session([["a" * 30_000], ["b" * 30_000]], request="do it")
    before = copy.deepcopy(messages)
    with pytest.raises(anthropic.InternalServerError):
        run_agent(messages, client_for(lambda r: OVERLOADED), tmp_path, request="do it",
                  model="scripted")
    assert len(messages) == 1 and messages[0]["content"].startswith(
        "[Compacted]\n\nAuthoritative request:\ndo it\n\n")
    assert storage.read_transcript(next((tmp_path / ".transcripts").glob("*.jsonl"))) == before


@pytest.mark.parametrize("answer", [
    httpx2.Response(200, text="<html>Sign in to the proxy</html>",
                    headers={"content-type": "text/html"}),
    httpx2.Response(200, content=b'{"type": "message", "content": [', headers={
        "content-type": "application/json"}),
    httpx2.Response(200, json={"hello": "world"}),
    httpx2.Response(200, json=[1, 2, 3]),
    httpx2.Response(200, json={**reply(), "content": "text instead of blocks"}),
    httpx2.Response(200, json=reply({"type": "tool_use", "name": "bash"}, stop="tool_use")),
    httpx2.Response(200, json=reply({"text": "no type"})),
    httpx2.Response(200, json={**reply(text("hi")), "usage": None}),
], ids=["html", "truncated-json", "wrong-object", "array", "content-str", "tool-use-no-id",
        "block-no-type", "no-usage"])
def test_malformed_model_reply_is_a_model_response_error(tmp_path, answer):
    messages = [user("do it")]
    with pytest.raises(ModelResponseError) as caught:
        run_agent(messages, client_for(lambda r: answer), tmp_path, model="scripted")
    assert "ANTHROPIC_BASE_URL" in str(caught.value) and "call agent_loop again" in str(caught.value)
    assert messages == [user("do it")]


class BrokenWorkspace(Workspace):
    def read_file(self, path, limit=None):
        raise RuntimeError("disk on fire")


def test_a_tool_that_raises_becomes_an_error_result_and_the_loop_goes_on(tmp_path):
    client = Script(tool_call("read_file", {"path": "a.txt"}), reply(text("could not read it"))).client
    messages = [user("read a.txt")]
    trace = run_agent(messages, client, BrokenWorkspace(tmp_path), model="scripted")
    result = messages[2]["content"][0]
    assert result["tool_use_id"] == "toolu_1"
    assert result["content"].startswith("Error: read_file failed unexpectedly "
                                        "(RuntimeError: disk on fire)")
    assert "Try another tool or approach" in result["content"]
    assert trace.answer == "could not read it"
    (tmp_path / "a.txt").write_text("alpha")                   # the offline model carries on too
    messages, client = [user("Read a.txt")], OfflineModel().client()
    trace = run_agent(messages, client, BrokenWorkspace(tmp_path), summarizer_for(client))
    assert "Error: read_file failed unexpectedly" in messages[2]["content"][0]["content"]
    assert "(offline model)" in trace.answer and "disk on fire" in trace.answer


SLEEP = 60_000 + os.getpid() % 10_000 * 2          # unique to this run: no other sleep matches
HANGS = f"exec >&-; (sleep {SLEEP}; touch late.txt) & sleep {SLEEP + 1}"   # closes its output, hangs


@pytest.mark.parametrize(("command", "timeout", "within", "ending"), [
    (HANGS, 0.3, 2, f"Error: command timed out after 0.3 s and was stopped: '{HANGS}'; "
     "run a shorter step, or raise Workspace.bash_timeout"),
    ("yes", 10, 5, "[... output truncated at 1000 chars; the command was stopped there]"),
], ids=["hangs", "floods"])     # ids: SLEEP differs in each xdist worker, and workers must collect alike
def test_a_command_is_stopped_in_time(tmp_path, command, timeout, within, ending):
    started = time.monotonic()
    out = Workspace(tmp_path, bash_timeout=timeout, max_output_chars=1_000).run("bash", {"command": command})
    assert time.monotonic() - started < within and out.endswith(ending) and len(out) < 1_100
    assert running(f"sleep {SLEEP}") == running(f"sleep {SLEEP + 1}") == []   # the whole group

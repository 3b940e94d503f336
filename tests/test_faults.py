"""Faults: a full or unwritable disk, a broken summariser, a failing model API, a bad tool.
In every case the caller's list is as it was before the failing step, nothing already on disk
changes, no temp file is left behind, and the error says what failed and what to do."""

from __future__ import annotations

import copy
import errno
import os
import time
from pathlib import Path

import anthropic
import httpx2
import pytest
from conftest import fake_summary
from histories import session, user

from compact import (
    Compactor,
    Limits,
    LoopOptions,
    StorageError,
    SummaryError,
    Workspace,
    agent_loop,
    summarizer_for,
)
from compact.model_call import ModelResponseError
from compact.offline import OfflineModel
from compact.pipeline import storage

# ---- helpers ------------------------------------------------------------------------------


def files(root: Path) -> dict[str, bytes]:
    """Every file under root, byte for byte (to prove nothing on disk changed)."""
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def temp_files(root: Path) -> list[Path]:
    return list(root.rglob(".tmp-*.part"))


@pytest.fixture
def workdir(tmp_path):
    """A workdir that already holds a transcript and a persisted result from earlier."""
    (tmp_path / ".transcripts").mkdir()
    (tmp_path / ".transcripts" / "transcript-0001.jsonl").write_text('{"role":"user"}\n')
    results = tmp_path / ".task_outputs" / "tool-results"
    results.mkdir(parents=True)
    (results / "t0_0.txt").write_text("an older persisted result")
    return tmp_path


def enospc(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def client_for(handler) -> anthropic.Anthropic:
    """A real SDK client whose HTTP answers come from ``handler`` (no network)."""
    return anthropic.Anthropic(api_key="x", base_url="http://offline.invalid", max_retries=0,
                               http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))


def reply(*content: dict, stop: str = "end_turn") -> dict:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "scripted",
            "content": list(content), "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5}}


def scripted(*replies) -> anthropic.Anthropic:
    """A client that answers each call with the next reply (a dict or an httpx2.Response)."""
    queue = list(replies)

    def handler(request: httpx2.Request) -> httpx2.Response:
        answer = queue.pop(0)
        return answer if isinstance(answer, httpx2.Response) else httpx2.Response(200, json=answer)
    return client_for(handler)


def tool_call(name: str, tool_input: dict, call_id: str = "toolu_1") -> dict:
    return reply({"type": "tool_use", "id": call_id, "name": name, "input": tool_input},
                 stop="tool_use")


OVERLOADED = httpx2.Response(529, json={"type": "error", "error": {
    "type": "overloaded_error", "message": "Overloaded"}})

# ---- storage: full or unwritable disk -----------------------------------------------------


@pytest.mark.parametrize("method", ["compact_history", "reactive_compact"])
def test_transcript_folder_full(workdir, monkeypatch, method):
    history = session([["a" * 500], ["b" * 500], ["c" * 500], ["d" * 500]])  # reactive acts
    before, on_disk = copy.deepcopy(history), files(workdir)
    monkeypatch.setattr(storage.os, "fsync", enospc)
    with pytest.raises(StorageError) as caught:
        getattr(Compactor(workdir, summarize=fake_summary), method)(history, "task")
    message = str(caught.value)
    assert "transcript" in message and str(workdir / ".transcripts") in message
    assert "No space left on device" in message and "Free some disk space" in message
    assert history == before
    assert files(workdir) == on_disk and temp_files(workdir) == []


def test_transcript_write_stops_halfway(workdir, monkeypatch):
    """The disk fills after half the bytes: no half file under a real name, no temp file."""
    real_fdopen = os.fdopen

    class HalfWriter:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            self.handle.write(data[: len(data) // 2])
            self.handle.flush()
            enospc()

    monkeypatch.setattr(storage.os, "fdopen", lambda fd, mode: HalfWriter(real_fdopen(fd, mode)))
    history = session([["a" * 5_000]])
    before, on_disk = copy.deepcopy(history), files(workdir)
    with pytest.raises(StorageError, match="cannot write the transcript"):
        Compactor(workdir, summarize=fake_summary).compact_history(history, "task")
    assert history == before
    assert files(workdir) == on_disk and temp_files(workdir) == []


def test_tool_results_folder_full(workdir, monkeypatch):
    history = session([["z" * 250_000, "y" * 250_000]])
    before, on_disk = copy.deepcopy(history), files(workdir)
    monkeypatch.setattr(storage.os, "link", enospc)
    compactor = Compactor(workdir, summarize=fake_summary)
    for call in (compactor.tool_result_budget, lambda m: compactor.prepare(m, "task")):
        with pytest.raises(StorageError) as caught:
            call(history)
        assert str(workdir / ".task_outputs" / "tool-results") in str(caught.value)
        assert "Free some disk space or make the folder writable" in str(caught.value)
        assert history == before
        assert files(workdir) == on_disk and temp_files(workdir) == []


@pytest.mark.parametrize(("folder", "method"), [(".task_outputs/tool-results", "tool_result_budget"),
                                                (".transcripts", "compact_history")])
def test_folder_unwritable(workdir, monkeypatch, folder, method):
    """EACCES (simulated: the tests run as root, where chmod does not stop writes)."""
    real_mkstemp = storage.tempfile.mkstemp

    def mkstemp(dir, **kw):
        if Path(dir) == workdir / folder:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_mkstemp(dir=dir, **kw)
    monkeypatch.setattr(storage.tempfile, "mkstemp", mkstemp)
    history = session([["z" * 250_000]])
    before, on_disk = copy.deepcopy(history), files(workdir)
    compactor = Compactor(workdir, summarize=fake_summary)
    args = (history, "task") if method == "compact_history" else (history,)
    with pytest.raises(StorageError, match="Permission denied. .*make the folder writable"):
        getattr(compactor, method)(*args)
    assert history == before and files(workdir) == on_disk


def test_folder_linked_outside_the_workdir_is_refused(tmp_path):
    """``ln -s /somewhere .transcripts`` from bash must not redirect compaction's writes."""
    outside = tmp_path / "outside"
    outside.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    (work / ".transcripts").symlink_to(outside)
    (work / ".task_outputs").symlink_to(outside)
    history = session([["z" * 250_000]])
    before = copy.deepcopy(history)
    compactor = Compactor(work, summarize=fake_summary)
    with pytest.raises(StorageError, match="leads outside the workdir"):
        compactor.compact_history(history, "task")
    with pytest.raises(StorageError, match="leads outside the workdir"):
        compactor.tool_result_budget(history)
    assert history == before and list(outside.iterdir()) == []


def test_transcripts_are_new_files_never_overwrites(workdir):
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
    assert temp_files(workdir) == []


def test_no_hard_links_falls_back_to_rename_without_overwriting(workdir, monkeypatch):
    """Some mounted drives refuse hard links (EPERM): reserve the name, then rename onto it."""
    def no_links(src, dst):
        raise PermissionError(errno.EPERM, "Operation not permitted")
    monkeypatch.setattr(storage.os, "link", no_links)
    history = session([["a" * 500]])
    on_disk = files(workdir)
    Compactor(workdir, summarize=fake_summary).compact_history(history, "task")
    assert storage.read_transcript(workdir / ".transcripts" / "transcript-0002.jsonl") == history
    assert {k: files(workdir)[k] for k in on_disk} == on_disk and temp_files(workdir) == []


def test_disk_full_inside_agent_loop_keeps_the_last_valid_state(tmp_path, monkeypatch):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "one.py").write_text('"""Module one."""\n' + "x = 1\n" * 5_000)
    (ws / "two.py").write_text('"""Module two."""\n' + "y = 2\n" * 5_000)
    real_mkstemp = storage.tempfile.mkstemp

    def mkstemp(dir, **kw):
        if Path(dir).name == ".transcripts":
            enospc()
        return real_mkstemp(dir=dir, **kw)
    monkeypatch.setattr(storage.tempfile, "mkstemp", mkstemp)
    client = OfflineModel().client()
    messages = [user("Compare one.py and two.py")]
    snapshots = []
    with pytest.raises(StorageError, match="transcript"):
        agent_loop(messages, "Compare one.py and two.py", client=client, workspace=ws,
                   compactor=Compactor(ws, summarize=summarizer_for(client)), log=lambda line: None,
                   options=LoopOptions(on_turn=lambda turn: snapshots.append(copy.deepcopy(messages))))
    assert len(snapshots) >= 2 and messages == snapshots[-1]   # the turn before, untouched
    assert not (ws / ".transcripts").exists() or list((ws / ".transcripts").glob("*.jsonl")) == []

# ---- the summariser -----------------------------------------------------------------------


def _boom(messages):
    raise RuntimeError("summariser crashed")


def _timeout(messages):
    raise TimeoutError("the summariser took too long")


@pytest.mark.parametrize(("summarize", "words"), [
    (_boom, "RuntimeError: summariser crashed"),
    (_timeout, "TimeoutError: the summariser took too long"),
    (lambda m: "", "returned no text"),
    (lambda m: "   \n", "returned no text"),
    (lambda m: None, "returned no text"),
])
@pytest.mark.parametrize("method", ["compact_history", "reactive_compact", "prepare"])
def test_summariser_fails(tmp_path, summarize, words, method):
    # > 50,000 chars (micro_compact leaves a 100-char result), and it precedes reactive's tail of 5
    history = session([["a" * 100], ["b" * 30_000], ["c" * 30_000], ["d" * 10]])
    before = copy.deepcopy(history)
    with pytest.raises(SummaryError, match=words) as caught:
        getattr(Compactor(tmp_path, summarize=summarize), method)(history, "task")
    assert "left unchanged" in str(caught.value) and "retry" in str(caught.value)
    assert history == before
    saved = list((tmp_path / ".transcripts").glob("*.jsonl"))
    assert len(saved) == 1 and storage.read_transcript(saved[0]) == before   # nothing lost


def read_timeout(request):
    raise httpx2.ReadTimeout("read timed out", request=request)


@pytest.mark.parametrize("handler", [
    read_timeout,
    lambda r: OVERLOADED,
    lambda r: httpx2.Response(200, text="<html>proxy login</html>", headers={"content-type": "text/html"}),
    lambda r: httpx2.Response(200, json={"content": "not a list"}),
], ids=["timeout", "529", "html", "wrong-shape"])
def test_summariser_client_fails(tmp_path, handler):
    history = session([["a" * 500]])
    before = copy.deepcopy(history)
    with pytest.raises(SummaryError, match="the summariser failed") as caught:
        Compactor(tmp_path, summarize=summarizer_for(client_for(handler))).compact_history(history, "t")
    if handler is read_timeout:
        assert isinstance(caught.value.__cause__, anthropic.APITimeoutError)
        assert "APITimeoutError" in str(caught.value)
    assert history == before and len(list((tmp_path / ".transcripts").glob("*.jsonl"))) == 1

# ---- the model API ------------------------------------------------------------------------


def run_loop(ws: Path | Workspace, client, messages: list, request: str, limits: Limits = Limits(),
             **kw):
    root = ws.root if isinstance(ws, Workspace) else ws
    return agent_loop(messages, request, client=client, workspace=ws, options=LoopOptions(model="scripted"),
                      compactor=Compactor(root, limits, summarize=fake_summary),
                      log=lambda line: None, **kw)


def test_model_overloaded_529_is_raised_unchanged_list_intact(tmp_path):
    messages = session([["a" * 500]], request="do it") + [
        {"role": "assistant", "content": [{"type": "text", "text": "reading"}]}, user("go on")]
    before = copy.deepcopy(messages)
    with pytest.raises(anthropic.InternalServerError) as caught:
        run_loop(tmp_path, client_for(lambda r: OVERLOADED), messages, "do it")
    assert caught.value.status_code == 529 and isinstance(caught.value, anthropic.APIStatusError)
    assert messages == before
    notes = " ".join(getattr(caught.value, "__notes__", []))
    if hasattr(caught.value, "add_note"):
        assert "retry later" in notes and "just before this call" in notes


def test_model_overloaded_after_compaction_keeps_the_compacted_state(tmp_path):
    """The documented state: this turn's compaction applied (transcript saved), no reply."""
    messages = session([["a" * 30_000], ["b" * 30_000]], request="do it")
    before = copy.deepcopy(messages)
    with pytest.raises(anthropic.InternalServerError):
        run_loop(tmp_path, client_for(lambda r: OVERLOADED), messages, "do it")
    assert len(messages) == 1 and messages[0]["content"].startswith(
        "[Compacted]\n\nAuthoritative request:\ndo it\n\n")
    transcript = next((tmp_path / ".transcripts").glob("*.jsonl"))
    assert storage.read_transcript(transcript) == before


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
    httpx2.Response(200, json={**reply({"type": "text", "text": "hi"}), "usage": None}),
], ids=["html", "truncated-json", "wrong-object", "array", "content-str", "tool-use-no-id",
        "block-no-type", "no-usage"])
def test_malformed_model_reply_is_a_model_response_error(tmp_path, answer):
    messages = [user("do it")]
    with pytest.raises(ModelResponseError) as caught:
        run_loop(tmp_path, client_for(lambda r: answer), messages, "do it")
    assert "ANTHROPIC_BASE_URL" in str(caught.value) and "call agent_loop again" in str(caught.value)
    assert messages == [user("do it")]


def test_model_call_times_out_list_intact(tmp_path):
    messages = [user("do it")]
    with pytest.raises(anthropic.APITimeoutError) as caught:
        run_loop(tmp_path, client_for(read_timeout), messages, "do it")
    assert messages == [user("do it")]
    if hasattr(caught.value, "add_note"):
        assert "ANTHROPIC_BASE_URL" in " ".join(caught.value.__notes__)


def test_a_retry_after_a_fault_carries_on(tmp_path):
    """The list left by a failed call is a valid history: calling again simply continues."""
    messages = [user("do it")]
    with pytest.raises(anthropic.InternalServerError):
        run_loop(tmp_path, client_for(lambda r: OVERLOADED), messages, "do it")
    trace = run_loop(tmp_path, scripted(reply({"type": "text", "text": "done"})), messages, "do it")
    assert trace.answer == "done" and [m["role"] for m in messages] == ["user", "assistant"]

# ---- tools --------------------------------------------------------------------------------


class BrokenWorkspace(Workspace):
    def read_file(self, path, limit=None):
        raise RuntimeError("disk on fire")


def test_a_tool_that_raises_becomes_an_error_result_and_the_loop_goes_on(tmp_path):
    client = scripted(tool_call("read_file", {"path": "a.txt"}),
                      reply({"type": "text", "text": "could not read it"}))
    messages = [user("read a.txt")]
    trace = run_loop(BrokenWorkspace(tmp_path), client, messages, "read a.txt")
    result = messages[2]["content"][0]
    assert result["tool_use_id"] == "toolu_1"
    assert result["content"].startswith("Error: read_file failed unexpectedly "
                                        "(RuntimeError: disk on fire)")
    assert "Try another tool or approach" in result["content"]
    assert trace.answer == "could not read it"


def test_offline_agent_survives_a_raising_tool(tmp_path):
    (tmp_path / "a.txt").write_text("alpha")
    messages = [user("Read a.txt")]
    client = OfflineModel().client()
    trace = agent_loop(messages, "Read a.txt", client=client, workspace=BrokenWorkspace(tmp_path),
                       compactor=Compactor(tmp_path, summarize=summarizer_for(client)), log=lambda line: None)
    assert "Error: read_file failed unexpectedly" in messages[2]["content"][0]["content"]
    assert "(offline model)" in trace.answer and "disk on fire" in trace.answer


def test_a_hanging_tool_times_out_and_the_loop_goes_on(tmp_path):
    client = scripted(tool_call("bash", {"command": "sleep 5"}),
                      reply({"type": "text", "text": "it hung"}))
    messages = [user("wait")]
    started = time.monotonic()
    trace = run_loop(Workspace(tmp_path, bash_timeout=0.5), client, messages, "wait")
    assert time.monotonic() - started < 3
    assert messages[2]["content"][0]["content"].startswith(
        "Error: command timed out after 0.5 s and was stopped")
    assert "raise Workspace.bash_timeout" in messages[2]["content"][0]["content"]
    assert trace.answer == "it hung"


def test_a_timed_out_command_leaves_no_process_behind(tmp_path):
    ws = Workspace(tmp_path, bash_timeout=0.3)
    out = ws.run("bash", {"command": "(sleep 1; touch late.txt) & sleep 5"})
    assert "timed out" in out
    time.sleep(1.5)
    assert not (tmp_path / "late.txt").exists()          # the whole process group was stopped


def test_a_command_that_closes_its_output_and_hangs_still_times_out(tmp_path):
    started = time.monotonic()
    out = Workspace(tmp_path, bash_timeout=0.3).run("bash", {"command": "exec >&-; sleep 5"})
    assert "timed out" in out and time.monotonic() - started < 2


def test_endless_output_is_stopped_at_the_cap(tmp_path):
    ws = Workspace(tmp_path, bash_timeout=10, max_output_chars=1_000)
    started = time.monotonic()
    out = ws.run("bash", {"command": "yes"})
    assert time.monotonic() - started < 5                   # not the 10 s timeout
    assert out.endswith("[... output truncated at 1000 chars; the command was stopped there]")
    assert len(out) < 1_100


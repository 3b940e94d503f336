"""The live code path (ANTHROPIC_API_KEY set) against the offline model served over loopback HTTP."""

import subprocess
import sys
import threading

import anthropic
import pytest
from browser.jupyterlab import free_port

from compact import banner, make_client
from compact.classroom.experiments import run_experiment
from compact.client import default_model, is_offline
from compact.offline import OfflineModel
from compact.offline.server import make_server


@pytest.fixture
def served():
    server = make_server(OfflineModel(), port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def test_make_client_is_offline_without_a_key(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    client = make_client(quiet=True)
    assert isinstance(client, anthropic.Anthropic)
    assert banner(client).startswith("[offline] model offline-compact-1")


def test_live_path_over_http_matches_in_process(served, monkeypatch, tmp_path):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", served)
    monkeypatch.setenv("MODEL_ID", "offline-compact-1")
    live = make_client(quiet=True)
    # A key is set, but the endpoint says what it is: the banner never calls it live.
    assert banner(live).startswith("[offline] model offline-compact-1 served at http://127.0.0.1:")
    assert "not Claude" in banner(live) and "[live]" not in banner(live)
    assert not getattr(live, "_compact_offline", False)     # the real live client, real HTTP

    for n in (1, 2, 3):
        over_http = run_experiment(n, client=live, workdir=tmp_path / f"http{n}")
        in_process = run_experiment(n, workdir=tmp_path / f"local{n}")
        assert over_http.answer == in_process.answer
        assert [(t.tool_calls, t.stages, t.size_sent, t.input_tokens)
                for t in over_http.trace.turns] == [
            (t.tool_calls, t.stages, t.size_sent, t.input_tokens) for t in in_process.trace.turns]


def test_a_dummy_key_and_the_served_model_is_never_called_live(served, monkeypatch, capsys):
    """The lesson's own way of pointing a client elsewhere: a dummy key, a loopback URL."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", served)
    monkeypatch.delenv("MODEL_ID", raising=False)
    client = make_client()
    printed = capsys.readouterr().err
    assert printed.startswith(f"[offline] model offline-compact-1 served at {served}")
    assert "claude-sonnet" not in printed
    reply = client.messages.create(model=default_model(client), max_tokens=50,
                                   messages=[{"role": "user", "content": "hello"}])
    assert reply.model == "offline-compact-1"


def test_an_endpoint_that_does_not_answer_stays_live(monkeypatch):
    """Nothing listens on the port: the probe fails at once and the banner says live."""
    port = free_port()                         # closed again: nothing listens there
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
    monkeypatch.delenv("MODEL_ID", raising=False)
    client = make_client(quiet=True)
    assert banner(client).startswith(f"[live] model claude-sonnet-5-5 via http://127.0.0.1:{port}")
    assert not is_offline(client)


def test_serve_command_answers_any_client_over_loopback():
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "compact.offline", "serve", "--port", str(port)],
                              stdout=subprocess.PIPE, text=True)
    try:
        banner_line = server.stdout.readline()
        assert banner_line.startswith(f"offline model offline-compact-1 serving on http://127.0.0.1:{port}")
        client = anthropic.Anthropic(api_key="anything", base_url=f"http://127.0.0.1:{port}",
                                     max_retries=0)
        reply = client.messages.create(model="any", max_tokens=50,
                                       messages=[{"role": "user", "content": "Say hello"}])
        assert reply.model == "offline-compact-1" and reply.content[0].text.startswith("(offline model)")
        count = client.messages.count_tokens(model="any", messages=[{"role": "user", "content": "hi"}])
        assert count.input_tokens > 0
    finally:
        server.terminate()
        server.wait(timeout=10)

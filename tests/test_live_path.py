"""The live code path (ANTHROPIC_API_KEY set) against the offline model served over loopback HTTP."""

import threading

import anthropic
import pytest

from compact import banner, make_client
from compact.experiments import run_experiment
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
    assert banner(live).startswith("[live] model offline-compact-1 via http://127.0.0.1:")
    assert not getattr(live, "_compact_offline", False)     # the real live client, real HTTP

    for n in (1, 2, 3):
        over_http = run_experiment(n, client=live, workdir=tmp_path / f"http{n}")
        in_process = run_experiment(n, workdir=tmp_path / f"local{n}")
        assert over_http.answer == in_process.answer
        assert [(t.tool_calls, t.stages, t.size_sent, t.input_tokens)
                for t in over_http.trace.turns] == [
            (t.tool_calls, t.stages, t.size_sent, t.input_tokens) for t in in_process.trace.turns]

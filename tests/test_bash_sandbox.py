"""bash in bubblewrap: writes only inside the workspace, no home folder, no network, no
credential from the environment, no PATH into the workspace. (``make test`` installs
bubblewrap, so the sandbox is there; what asks first, sandboxed or not: test_asking.py.)"""

from __future__ import annotations

import os
import socket
import threading

import pytest
from conftest import make_files
from test_real_files import running

from compact import Workspace, shell
from compact.__main__ import main as repl_main


@pytest.fixture
def ws(tmp_path):
    return Workspace(make_files(tmp_path / "ws", {"kept.txt": "keep me"}), confirm=lambda command: True)


def test_bubblewrap_works_here_and_the_workspace_and_the_repl_say_so(ws, tmp_path, monkeypatch, capsys):
    assert shell.bubblewrap() and ws.sandboxed
    assert "[sandbox]" in ws.describe() and "no network" in ws.describe()
    bare = Workspace(ws.root, sandbox="off")
    assert not bare.sandboxed and "[no sandbox]" in bare.describe()
    monkeypatch.setattr("builtins.input", lambda prompt: "q")
    assert repl_main(["--workdir", str(tmp_path)]) == 0
    assert "[sandbox] bash runs in bubblewrap" in capsys.readouterr().out


def test_bash_writes_only_inside_the_workspace(ws, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    out = ws.run("bash", {"command": f"echo x > {outside}/planted.txt; touch /etc/compact-probe;"
                                     " echo inside > made.txt; cat made.txt"})
    assert out.endswith("inside") and "Read-only file system" in out and list(outside.iterdir()) == []
    assert (ws.root / "made.txt").read_text() == "inside\n"
    # nor can it make / writable again: as root, without --cap-drop ALL, `mount -o remount,rw /` did
    out = ws.run("bash", {"command": "grep CapEff /proc/self/status"})
    assert out.split() == ["CapEff:", "0000000000000000"]


def test_bash_has_no_network_unless_asked_for(ws):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        threading.Thread(target=lambda: server.accept()[0].close(), daemon=True).start()
        connect = ("python3 -c \"import socket; socket.create_connection(('127.0.0.1', "
                   f"{server.getsockname()[1]}), 3); print('connected')\" 2>&1 | tail -1")
        assert "connected" not in ws.run("bash", {"command": connect})
        with_network = Workspace(ws.root, sandbox="network", confirm=None)
        assert with_network.sandboxed and "has the network" in with_network.describe()
        assert with_network.run("bash", {"command": connect}) == "connected"


def test_bash_sees_no_home_folder_credentials_nor_a_path_into_the_workspace(ws, tmp_path,
                                                                             monkeypatch):
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY")
    monkeypatch.setenv("HOME", str(home))
    out = ws.run("bash", {"command": "cat ~/.ssh/id_ed25519; ls -A ~ /root | wc -w"})
    assert "PRIVATE KEY" not in out and "No such file" in out
    assert out.splitlines()[-1].strip() == "2"              # just the two headers ls prints
    secrets = {"ANTHROPIC_API_KEY": "sk-ant-secret-1", "GITHUB_TOKEN": "ghp_secret2",
               "AWS_SECRET_ACCESS_KEY": "aws-secret-3", "DB_PASSWORD": "hunter4",
               "DATABASE_URL": "postgres://me:pw5@db.example/x", "ANTHROPIC_BASE_URL": "http://s6"}
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("COMPACT_VISIBLE", "plain value")
    out = ws.run("bash", {"command": "env"})
    assert "COMPACT_VISIBLE=plain value" in out and "PATH=" in out
    for value in secrets.values():
        assert value not in out
    unsandboxed = Workspace(ws.root, sandbox="off", confirm=None)
    assert "sk-ant-secret-1" not in unsandboxed.run("bash", {"command": "env"})
    (ws.root / "bin").mkdir()
    for folder in (ws.root, ws.root / "bin"):           # a planted `ls`, on a PATH of "." or bin/
        (folder / "ls").write_text("#!/bin/sh\necho planted\n")
        (folder / "ls").chmod(0o755)
    monkeypatch.setenv("PATH", f".::{ws.root / 'bin'}:{os.environ['PATH']}")
    for workspace in (ws, unsandboxed):
        assert "planted" not in workspace.run("bash", {"command": "ls"})


def test_nothing_started_outlives_the_call_even_in_a_new_session(ws):
    """setsid leaves the process group; the sandbox's own process namespace still ends it."""
    seconds = 50_000 + os.getpid() % 10_000           # unique to this run: no other sleep matches
    out = ws.run("bash", {"command": f"setsid sleep {seconds} > /dev/null 2>&1 & echo started"})
    assert out == "started" and running(f"sleep {seconds}") == []


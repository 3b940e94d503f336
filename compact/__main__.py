"""python -m compact — the lesson's REPL (prompt ``s08 >>``, ``q`` to quit), offline by default.
Ctrl-C or a failed turn returns to the prompt with the history valid; a line that is not UTF-8
is refused, and what the terminal cannot show is escaped."""

from __future__ import annotations

import argparse
import sys
import tempfile
from typing import Any

import anthropic

from .client import banner, make_client
from .demo import make_workspace
from .loop import agent_loop
from .pipeline import CompactError
from .texts import LANGUAGES, language, say
from .tools import LONE_SURROGATE, Workspace


def robust_streams() -> None:
    """Non-UTF-8 input arrives as lone surrogates (then refused); unprintable output is escaped."""
    for stream, errors in ((sys.stdin, "surrogateescape"), (sys.stdout, "backslashreplace"),
                           (sys.stderr, "backslashreplace")):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors=errors)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.lang:
        language(args.lang)
    workdir = args.workdir
    if args.demo:
        workdir = str(make_workspace(tempfile.mkdtemp(prefix="compact-demo-") + "/ws"))
    robust_streams()
    client = make_client(quiet=True)
    workspace = Workspace(workdir)
    print(banner(client))
    print(say("repl.workspace", folder=workdir))
    print(workspace.describe())
    history: list = []
    while True:
        try:
            query = input("\033[36ms08 >> \033[0m" if sys.stdin.isatty() else "s08 >> ")
        except (EOFError, KeyboardInterrupt):
            print()
            break
        if query.strip().lower() in ("q", "exit", ""):
            break
        if LONE_SURROGATE.search(query):
            print(say("repl.not_utf8"), flush=True)
            continue
        history.append({"role": "user", "content": query})
        run_query(history, query, client, workspace)
    return 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m compact")
    parser.add_argument("--workdir", default=".", help="workspace folder (default: here)")
    parser.add_argument("--demo", action="store_true",
                        help="work in a fresh copy of the demo course workspace")
    parser.add_argument("--lang", choices=LANGUAGES, default=None,
                        help="the language of every message (default: COMPACT_LANG or the locale)")
    return parser.parse_args(argv)


def run_query(history: list, query: str, client: Any, workspace: Workspace) -> None:
    """One turn of the REPL: the answer, or what stopped it (the history stays valid)."""
    try:
        trace = agent_loop(history, query, client=client, workspace=workspace,
                           log=lambda line: print(line, flush=True))
    except KeyboardInterrupt:
        print(say("repl.interrupted"), flush=True)
        return
    except (CompactError, anthropic.APIError, UnicodeError) as error:
        print(say("repl.error", kind=type(error).__name__, error=error), flush=True)
        for note in getattr(error, "__notes__", []):
            print(note, flush=True)
        return
    print(trace.answer, flush=True)     # a refusal or a cut-off answer was logged above


if __name__ == "__main__":
    sys.exit(main())

"""python -m compact — the lesson's REPL (prompt ``s08 >>``, ``q`` to quit), offline by default."""

from __future__ import annotations

import argparse
import sys
import tempfile

from .client import banner, make_client
from .demo import make_workspace
from .loop import agent_loop


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m compact")
    parser.add_argument("--workdir", default=".", help="workspace folder (default: here)")
    parser.add_argument("--demo", action="store_true",
                        help="work in a fresh copy of the demo course workspace")
    args = parser.parse_args(argv)
    workdir = args.workdir
    if args.demo:
        workdir = str(make_workspace(tempfile.mkdtemp(prefix="compact-demo-") + "/ws"))
    client = make_client(quiet=True)
    print(banner(client))
    print(f"workspace: {workdir}")
    history: list = []
    while True:
        try:
            query = input("\033[36ms08 >> \033[0m" if sys.stdin.isatty() else "s08 >> ")
        except (EOFError, KeyboardInterrupt):
            print()
            break
        if query.strip().lower() in ("q", "exit", ""):
            break
        history.append({"role": "user", "content": query})
        trace = agent_loop(history, query, client=client, workspace=workdir,
                           log=lambda line: print(line, flush=True))
        print(trace.answer, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""python -m compact.offline serve --port 8765 [--window-tokens N] [--allow-origin URL]

The served window defaults to a real model's (200,000 tokens), so any client of the
lesson's shape runs its whole session; ``--window-tokens 16000`` gives the teaching
window the notebooks use in-process.
"""

from __future__ import annotations

import argparse

from .api import MODEL_NAME, SERVE_WINDOW_TOKENS
from .model import OfflineModel
from .server import make_server


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m compact.offline")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="answer the Messages API on loopback")
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument("--window-tokens", type=int, default=SERVE_WINDOW_TOKENS,
                       help="refuse prompts over this many tokens (default %(default)s; "
                            "the notebooks' teaching window is 16000)")
    serve.add_argument("--allow-origin", action="append", default=[], metavar="URL",
                       help="let a web page from this origin use the server (repeatable); "
                            "browsers' requests are refused otherwise")
    args = parser.parse_args()
    server = make_server(OfflineModel(window_tokens=args.window_tokens), args.port,
                         allowed_origins=tuple(args.allow_origin))
    print(f"offline model {MODEL_NAME} serving on http://127.0.0.1:{server.server_port} "
          f"(window {args.window_tokens:,} tokens; set ANTHROPIC_BASE_URL to this and "
          "ANTHROPIC_API_KEY to anything)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

"""python -m compact.offline serve --port 8765 [--window-tokens N]"""

from __future__ import annotations

import argparse

from .api import DEFAULT_WINDOW_TOKENS, OfflineModel
from .server import make_server


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m compact.offline")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="answer the Messages API on loopback")
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument("--window-tokens", type=int, default=DEFAULT_WINDOW_TOKENS)
    args = parser.parse_args()
    server = make_server(OfflineModel(window_tokens=args.window_tokens), args.port)
    print(f"offline model offline-compact-1 serving on http://127.0.0.1:{server.server_port} "
          "(set ANTHROPIC_BASE_URL to this and ANTHROPIC_API_KEY to anything)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

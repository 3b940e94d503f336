"""Serve the offline model over real HTTP on loopback, for any Anthropic client."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .api import OfflineModel
from .identity import HEADER, MODEL_NAME


def make_server(model: OfflineModel, port: int = 8765, host: str = "127.0.0.1"
                ) -> ThreadingHTTPServer:
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length)
            with lock:                       # one model, one request at a time
                status, reply = model.answer(self.command, self.path.split("?")[0], body)
            data = json.dumps(reply).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header(HEADER, MODEL_NAME)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_POST = do_GET = _answer

        def log_message(self, *args: object) -> None:
            pass

    return ThreadingHTTPServer((host, port), Handler)

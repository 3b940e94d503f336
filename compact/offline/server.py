"""Serve the offline model over real HTTP on loopback, for any Anthropic client (SECURITY.md):
every request gets an answer, none can hold a thread, only loopback Host names and allowed
origins are answered."""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .api import CONTENT_TYPE, HEADER, MODEL_NAME, SERVE_WINDOW_TOKENS, error_answer, event_stream
from .model import Answer, OfflineModel

MAX_BODY_BYTES = 32 * 1024 * 1024        # the Messages API's request size limit
READ_TIMEOUT = 10.0                      # seconds a client may take to send its request
REQUEST_DEADLINE = 30.0                  # seconds a client may take to send its whole request
LINGER_SECONDS, LINGER_BYTES = 1.0, 4 * 1024 * 1024   # what is read after an early answer


def is_loopback(host: str) -> bool:
    """Whether a Host header names this machine, port or not (``[::1]:8765``, ``localhost``)."""
    name = host.strip().lower()
    if name.startswith("["):
        name = name[1:].split("]", 1)[0]
    elif name.count(":") == 1:
        name = name.rsplit(":", 1)[0]
    try:
        return name in ("localhost", "localhost.") or ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def guard_problem(headers, allowed_origins: tuple[str, ...]) -> tuple[int, dict] | None:
    """The refusal of a request by its Host and Origin headers, or None."""
    host = headers.get("host")
    if not host or not is_loopback(host):
        return error_answer(403, f"Host {host!r} is not a loopback name: this server answers "
                            "only http://127.0.0.1, http://localhost or http://[::1]")
    origin = headers.get("origin")
    if origin is not None and origin not in allowed_origins:
        return error_answer(403, f"Origin {origin!r} is not allowed: a web page may not use this "
                            f"server; start it with `serve --allow-origin {origin}` to allow that page")
    return None


def length_problem(headers) -> tuple[int | None, tuple[int, dict] | None]:
    """(the body's length, None), or (None, the answer to a length that cannot be read)."""
    if "chunked" in (headers.get("transfer-encoding") or "").lower():
        return None, error_answer(411, "chunked bodies are not accepted: send Content-Length")
    raw = (headers.get("content-length") or "0").strip()
    if not raw.isascii() or not raw.isdigit() or len(raw) > 18:
        shown = raw[:40] + ("…" if len(raw) > 40 else "")
        return None, error_answer(400, f"Content-Length {shown!r} is not a non-negative integer "
                                  "of at most 18 digits")
    if int(raw) > MAX_BODY_BYTES:
        return None, error_answer(413, "Request exceeds the maximum size")
    return int(raw), None


class Handler(BaseHTTPRequestHandler):
    """One request per connection, answered with the model; ``make_server`` sets the class
    attributes of each server's handler (``timeout``: the seconds each read may wait)."""

    model: OfflineModel
    lock: threading.Lock               # one model, one request at a time
    seconds: float                     # the whole request may take this long to arrive
    allowed_origins: tuple[str, ...]   # web pages that may use the server

    def setup(self) -> None:
        super().setup()
        self.expired = False
        self.deadline = threading.Timer(self.seconds, self._expire)
        self.deadline.daemon = True
        self.deadline.start()

    def _expire(self) -> None:
        """Shut the reading side of a connection whose request has not arrived in time."""
        self.expired = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RD)   # a blocked read returns at once

    def finish(self) -> None:
        self.deadline.cancel()
        super().finish()

    def _body(self) -> tuple[bytes | None, tuple[int, dict] | None]:
        """(body, None), or (None, the error answer) for a length that cannot be read."""
        length, problem = length_problem(self.headers)
        if problem:
            return None, problem
        chunks, got = [], 0
        while got < length:              # read1: what has arrived, so a stall is counted
            try:
                chunk = self.rfile.read1(min(length - got, 1 << 16))
            except TimeoutError:
                break
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got < length:
            late = (f" within the {self.seconds:g} s this server gives a whole request"
                    if self.expired else "")
            return None, error_answer(400, f"the request body ended after {got} of {length} bytes "
                                      f"(Content-Length){late}; send the whole body")
        return b"".join(chunks), None

    def _answer(self) -> None:
        self.close_connection = True     # one request per connection, then close
        problem = guard_problem(self.headers, self.allowed_origins)
        body, problem = self._body() if problem is None else (None, problem)
        self.deadline.cancel()
        if problem:
            answer = Answer(*problem)
        elif self.command == "OPTIONS":
            answer = Answer(204, {})     # a preflight from an allowed origin
        else:
            with self.lock:     # the model answers 500 for its own failures
                answer = self.model.answer(self.command, self.path.split("?")[0], body, self.headers)
        try:
            self._send(answer)
            self._linger()
        except OSError:                  # the client went away (or stopped reading)
            pass

    def _send(self, answer: Answer) -> None:
        """A JSON body with its length, or server-sent events ended by closing."""
        origin, headers, chunks = self.headers.get("origin"), {HEADER: MODEL_NAME}, []
        if origin is not None and origin in self.allowed_origins:
            headers.update({"access-control-allow-origin": origin, "access-control-allow-headers": "*",
                            "access-control-allow-methods": "GET, POST, OPTIONS", "vary": "Origin"})
        if answer.stream:
            headers.update({"content-type": CONTENT_TYPE, "cache-control": "no-cache"})
            chunks = event_stream(answer.body)
        elif answer.status != 204:
            chunks = [json.dumps(answer.body).encode()]
            headers.update({"content-type": "application/json", "content-length": str(len(chunks[0]))})
        self.send_response(answer.status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(chunk)
            self.wfile.flush()

    def _linger(self) -> None:
        """Read what the client still sends (a body refused unread) before closing: closing
        with unread bytes resets the connection, and the client could lose the answer."""
        self.connection.shutdown(socket.SHUT_WR)
        self.connection.settimeout(min(self.timeout, LINGER_SECONDS))
        drained = 0
        while drained < LINGER_BYTES and (chunk := self.connection.recv(1 << 16)):
            drained += len(chunk)

    do_POST = do_GET = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _answer   # 404s too

    def log_message(self, *args: object) -> None:
        pass


class Server(ThreadingHTTPServer):
    daemon_threads = True                    # a stuck client never keeps the process alive
    request_queue_size = 128                 # a burst of clients waits instead of being reset


def make_server(model: OfflineModel, port: int = 8765, timeout: float = READ_TIMEOUT,
                deadline: float = REQUEST_DEADLINE, allowed_origins: tuple[str, ...] = ()) -> Server:
    """The model served on 127.0.0.1:``port`` (0: any free port)."""
    bound = type("BoundHandler", (Handler,), {"model": model, "lock": threading.Lock(), "timeout": timeout,
                                              "seconds": deadline, "allowed_origins": tuple(allowed_origins)})
    return Server(("127.0.0.1", port), bound)


def main() -> None:
    """``python -m compact.offline serve --port 8765 [--window-tokens N] [--allow-origin URL]``."""
    parser = argparse.ArgumentParser(prog="python -m compact.offline")
    serve = parser.add_subparsers(dest="command", required=True).add_parser(
        "serve", help="answer the Messages API on loopback")
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

"""Serve the offline model over real HTTP on loopback, for any Anthropic client.

Any client means any bytes: every request gets an answer (a 4xx error with the API's error
shape when it is malformed), none can drop the connection, and none can hold a thread
forever: a body larger than the API's 32 MB limit is refused unread, a client that stops
sending halfway is answered after ``timeout`` seconds, and the whole request must arrive
within ``deadline`` seconds however slowly it trickles in. Only loopback Host names are
answered, and no web page unless ``allowed_origins`` names its origin (``request_guard``).
A streamed reply is sent as server-sent events, the connection closing after the last.
"""

from __future__ import annotations

import json
import socket
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .api import Answer, OfflineModel, event_stream
from .identity import HEADER, MODEL_NAME
from .request_guard import REQUEST_DEADLINE, Deadline, guard_problem
from .streaming import CONTENT_TYPE
from .validation import error_answer

MAX_BODY_BYTES = 32 * 1024 * 1024        # the Messages API's request size limit
READ_TIMEOUT = 10.0                      # seconds a client may take to send its request
LINGER_SECONDS, LINGER_BYTES = 1.0, 4 * 1024 * 1024   # what is read after an early answer


@dataclass(frozen=True)
class Settings:
    model: OfflineModel
    lock: threading.Lock               # one model, one request at a time
    timeout: float                     # seconds each read may wait
    deadline: float                    # seconds the whole request may take to arrive
    allowed_origins: tuple[str, ...]   # web pages that may use the server


class Handler(BaseHTTPRequestHandler):
    """One request per connection, answered with the model (``settings``, set per server)."""

    settings: Settings

    def setup(self) -> None:
        super().setup()
        self.deadline = Deadline(self.connection, self.settings.deadline)

    def finish(self) -> None:
        self.deadline.cancel()
        super().finish()

    def _body(self) -> tuple[bytes | None, tuple[int, dict] | None]:
        """(body, None), or (None, the error answer) for a length that cannot be read."""
        if "chunked" in (self.headers.get("transfer-encoding") or "").lower():
            return None, error_answer(411, "invalid_request_error",
                                      "chunked bodies are not accepted: send Content-Length")
        raw = self.headers.get("content-length") or "0"
        if not raw.strip().isdigit():
            return None, error_answer(400, "invalid_request_error",
                                      f"Content-Length {raw!r} is not a non-negative integer")
        length = int(raw)
        if length > MAX_BODY_BYTES:
            return None, error_answer(413, "request_too_large",
                                      "Request exceeds the maximum size")
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
        body = b"".join(chunks)
        if len(body) < length:
            late = (f" within the {self.settings.deadline:g} s this server gives a whole request"
                    if self.deadline.expired else "")
            return None, error_answer(400, "invalid_request_error",
                                      f"the request body ended after {len(body)} of {length} "
                                      f"bytes (Content-Length){late}; send the whole body")
        return body, None

    def _answer(self) -> None:
        self.close_connection = True     # one request per connection, then close
        problem = guard_problem(self.headers, self.settings.allowed_origins)
        body = None
        if problem is None:
            body, problem = self._body()
        self.deadline.cancel()
        answer = Answer(*problem) if problem else None
        if answer is None and self.command == "OPTIONS":
            answer = Answer(204, {})     # a preflight from an allowed origin
        if answer is None:
            try:
                with self.settings.lock:               # one model, one request at a time
                    answer = self.settings.model.answer(self.command, self.path.split("?")[0], body,
                                          self.headers)
            except Exception as error:   # a bug must answer 500, never drop the client
                answer = Answer(*error_answer(500, "api_error", f"the offline model failed: "
                                              f"{type(error).__name__}: {error}"))
        try:
            self._send(answer)
            self._linger()
        except OSError:                  # the client went away (or stopped reading)
            pass

    def _send(self, answer: Answer) -> None:
        """A JSON body with its length, or server-sent events ended by closing."""
        self.send_response(answer.status)
        self.send_header(HEADER, MODEL_NAME)
        origin = self.headers.get("origin")
        if origin is not None and origin in self.settings.allowed_origins:
            self.send_header("access-control-allow-origin", origin)
            self.send_header("access-control-allow-headers", "*")
            self.send_header("access-control-allow-methods", "GET, POST, OPTIONS")
            self.send_header("vary", "Origin")
        if answer.status == 204:
            self.end_headers()
            return
        if answer.stream:
            self.send_header("content-type", CONTENT_TYPE)
            self.send_header("cache-control", "no-cache")
            self.end_headers()
            for event in event_stream(answer.body):
                self.wfile.write(event)
                self.wfile.flush()
            return
        data = json.dumps(answer.body).encode()
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _linger(self) -> None:
        """Read what the client still sends (a body refused unread) before closing: closing
        with unread bytes resets the connection, and the client could lose the answer."""
        self.connection.shutdown(socket.SHUT_WR)
        self.connection.settimeout(min(self.settings.timeout, LINGER_SECONDS))
        drained = 0
        while drained < LINGER_BYTES and (chunk := self.connection.recv(1 << 16)):
            drained += len(chunk)

    do_POST = do_GET = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _answer   # 404s too

    def log_message(self, *args: object) -> None:
        pass



def make_server(model: OfflineModel, port: int = 8765, host: str = "127.0.0.1",
                timeout: float = READ_TIMEOUT, deadline: float = REQUEST_DEADLINE,
                allowed_origins: tuple[str, ...] = ()) -> ThreadingHTTPServer:
    settings = Settings(model, threading.Lock(), timeout, deadline, tuple(allowed_origins))
    bound = type("BoundHandler", (Handler,), {"settings": settings,
                                              "timeout": timeout})   # a socket timeout on every read
    return Server((host, port), bound)


class Server(ThreadingHTTPServer):
    daemon_threads = True                    # a stuck client never keeps the process alive
    request_queue_size = 128                 # a burst of clients waits instead of being reset

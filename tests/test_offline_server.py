"""The loopback server answers every malformed request with a 4xx error and never hangs.

Raw sockets, not the SDK: a real SDK never sends these bytes, other clients might.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from compact.offline import OfflineModel
from compact.offline.server import make_server

TIMEOUT = 0.5          # the server's read timeout in these tests


@pytest.fixture
def serve():
    servers = []

    def start(timeout: float = TIMEOUT) -> int:
        server = make_server(OfflineModel(), port=0, timeout=timeout)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        return server.server_port
    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def port(serve):
    return serve()


def exchange(port: int, data: bytes, pause_after: int | None = None) -> tuple[int, dict]:
    """Send ``data`` (stopping after ``pause_after`` bytes, connection held open) and read the
    whole answer: (status, JSON body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data if pause_after is None else data[:pause_after])
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def post(body: bytes, length: str | None = None) -> bytes:
    length = str(len(body)) if length is None else length
    return (b"POST /v1/messages HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
            + f"content-length: {length}\r\n\r\n".encode() + body)


def request(**fields) -> bytes:
    return json.dumps({"model": "offline-compact-1", "max_tokens": 100, **fields}).encode()


MALFORMED = {
    "a JSON array": (post(b"[1, 2, 3]"), 400, "valid dictionary"),
    "not JSON": (post(b"{nope"), 400, "not valid JSON"),
    "messages not objects": (post(request(messages=["hi", 3])), 400,
                             "messages.0: Input should be a valid dictionary"),
    "messages not a list": (post(request(messages="hi")), 400, "messages: Input should be a valid list"),
    "deep nesting": (post(b"[" * 200_000 + b"]" * 200_000), 400, "nested too deeply"),
    "deep nesting in a message": (post(request(messages=[{"role": "user", "content": "x"}],
                                               metadata=[[[[[[]]]]]]).replace(
        b"[[[[[[]]]]]]", b"[" * 100_000 + b"]" * 100_000)), 400, "nested too deeply"),
    "a lone surrogate, escaped": (post(request(messages=[{"role": "user", "content": "a\\ud800b"}])
                                       .replace(b"\\\\ud800", b"\\ud800")), 400, "lone surrogate"),
    "a lone surrogate, raw bytes": (post(request(messages=[{"role": "user", "content": "aXb"}])
                                         .replace(b"X", b"\xed\xa0\x80")), 400, "lone surrogate"),
    "invalid UTF-8": (post(request(messages=[{"role": "user", "content": "aXb"}])
                           .replace(b"X", b"\xff")), 400, "not valid JSON"),
    "a huge Content-Length": (post(b"{}", length=str(10 ** 15)), 413, "maximum size"),
    "a negative Content-Length": (post(b"{}", length="-5"), 400, "not a non-negative integer"),
    "a Content-Length that is no number": (post(b"{}", length="lots"), 400, "non-negative"),
    "a chunked body": (b"POST /v1/messages HTTP/1.1\r\nHost: x\r\ntransfer-encoding: chunked\r\n\r\n"
                       b"2\r\n{}\r\n0\r\n\r\n", 411, "Content-Length"),
    "an empty body": (post(b""), 400, "model: Field required"),
    "an unknown route": (post(b"{}").replace(b"/v1/messages", b"/v1/other"), 404, "not served"),
    "another method": (post(b"{}").replace(b"POST", b"PUT"), 404, "not served"),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_requests_get_a_4xx_error_with_the_api_shape(port, name):
    data, status, words = MALFORMED[name]
    got, body = exchange(port, data)
    assert got == status
    assert body["type"] == "error" and words in body["error"]["message"]
    assert body["error"]["type"] in ("invalid_request_error", "request_too_large", "not_found_error")


def test_a_half_sent_body_is_answered_after_the_timeout_and_the_server_goes_on(port):
    data = post(request(messages=[{"role": "user", "content": "hello"}]))
    started = time.monotonic()
    status, body = exchange(port, data, pause_after=len(data) - 10)      # 10 bytes never come
    assert status == 400 and "ended after" in body["error"]["message"]
    assert time.monotonic() - started < 5                                  # not held forever
    status, body = exchange(port, data)                                     # still serving
    assert status == 200 and body["content"][0]["text"].startswith("(offline model)")


def test_a_silent_client_is_dropped_after_the_timeout_without_holding_a_thread(port):
    before = threading.active_count()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        assert sock.recv(100) == b""            # the server closes the idle connection
    deadline = time.monotonic() + 5
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert threading.active_count() <= before


def test_many_bad_requests_in_parallel_leave_it_serving(serve):
    port = serve(timeout=10)            # 45 clients on 2 cores: slow senders are not stalled ones
    bad = [data for data, _, _ in MALFORMED.values()] * 3
    answers: list[int] = []
    threads = [threading.Thread(target=lambda d=d: answers.append(exchange(port, d)[0]))
               for d in bad]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(answers) == len(bad) and all(400 <= a < 500 for a in answers)
    status, _ = exchange(port, post(request(messages=[{"role": "user", "content": "hi"}])))
    assert status == 200

"""The loopback server answers every malformed request (raw socket bytes) with a 4xx and never hangs."""

from __future__ import annotations

import json
import socket
import threading
import time
from contextlib import ExitStack

import pytest
from served import serving

TIMEOUT = 0.5          # the server's read timeout in these tests


@pytest.fixture
def serve():
    """``serve(timeout, **make_server's options)``: the port of a server stopped after the test."""
    with ExitStack() as servers:
        yield lambda timeout=TIMEOUT, **options: servers.enter_context(
            serving(timeout=timeout, **options)).port


@pytest.fixture
def port(serve):
    return serve()


def answer(port: int, data: bytes) -> bytes:
    """The whole answer to ``data``, whose rest never comes (the connection held open)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        return b"".join(iter(lambda: sock.recv(65536), b""))


def exchange(port: int, data: bytes) -> tuple[int, dict]:
    head, _, body = answer(port, data).partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def post(body: bytes, length: str | None = None, host: str = "127.0.0.1", extra: str = "") -> bytes:
    length = str(len(body)) if length is None else length
    return (f"POST /v1/messages HTTP/1.1\r\nHost: {host}\r\ncontent-type: application/json\r\n"
            f"{extra}content-length: {length}\r\n\r\n").encode() + body


def request(**fields) -> bytes:
    return json.dumps({"model": "offline-compact-1", "max_tokens": 100, **fields}).encode()


MALFORMED = {
    "a JSON array": (post(b"[1, 2, 3]"), 400, "valid dictionary"),
    "not JSON": (post(b"{nope"), 400, "not valid JSON"),
    "messages not objects": (post(request(messages=["hi", 3])), 400,
                             "messages.0: Input should be a valid dictionary"),
    "messages not a list": (post(request(messages="hi")), 400, "messages: Input should be a valid list"),
    "deep nesting": (post(b"[" * 200_000 + b"]" * 200_000), 400, "nested too deeply"),
    "deep nesting in a tool input": (post(request(messages=[
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "x", "input": {"a": 0}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}]
    ).replace(b'{"a": 0}', b'{"a": ' + b"[" * 150 + b"]" * 150 + b"}")), 400, "nested too deeply"),
    "a huge Content-Length": (post(b"{}", length=str(10 ** 15)), 413, "maximum size"),
    "a negative Content-Length": (post(b"{}", length="-5"), 400, "not a non-negative integer"),
    "a non-ASCII Content-Length": (post(b"{}", length="X").replace(b": X", b": \xb2"), 400, "non-negative"),
    "a 5,000-digit Content-Length": (post(b"{}", length="9" * 5_000), 400, "at most 18 digits"),
    "a chunked body": (b"POST /v1/messages HTTP/1.1\r\nHost: localhost\r\ntransfer-encoding: chunked\r\n\r\n"
                       b"2\r\n{}\r\n0\r\n\r\n", 411, "Content-Length"),
    "an empty body": (post(b""), 400, "model: Field required"),
    "an unknown route": (post(b"{}").replace(b"/v1/messages", b"/v1/other"), 404, "not served"),
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
    status, body = exchange(port, data[:-10])                             # 10 bytes never come
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


# ---- hardening (issue 23): a deadline for the whole request, Host and Origin, nesting --------

HELLO = request(messages=[{"role": "user", "content": "hello"}])


def trickled(port: int, data: bytes, slow_from: int) -> tuple[float, bytes]:
    """Seconds taken and the answer, when ``data`` after its first ``slow_from`` bytes comes a byte
    each 0.1 s (well within the read timeout; the whole request is not)."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data[:slow_from])
        try:
            for byte in data[slow_from:]:
                sock.sendall(bytes([byte]))
                time.sleep(0.1)
        except OSError:
            pass                              # the server stopped reading: expected
        sock.settimeout(5)
        answer = b"".join(iter(lambda: sock.recv(65536), b""))
    return time.monotonic() - started, answer


def test_a_client_sending_a_byte_at_a_time_is_cut_off_at_the_deadline(serve):
    data = post(HELLO)
    seconds, answer = trickled(serve(timeout=0.5, deadline=1.0), data, data.index(b"\r\n\r\n") + 4)
    assert seconds < 4                                    # not len(body) × 0.1 s = 8 s
    assert b" 400 " in answer.split(b"\r\n")[0] and b"within the 1 s" in answer


def test_trickled_headers_are_cut_off_at_the_deadline(serve):
    head = b"POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nx-slow: " + b"a" * 60
    seconds, answer = trickled(serve(timeout=0.5, deadline=1.0), head, 0)
    assert seconds < 9 and b" 200 " not in answer


@pytest.mark.parametrize("host,status", [("127.0.0.1:8765", 200), ("localhost", 200), ("[::1]:1", 200),
                                         ("127.3.4.5", 200), ("attacker.example", 403),
                                         ("attacker.example:8765", 403), ("192.168.1.10", 403)])
def test_only_loopback_host_names_are_answered(port, host, status):
    got, body = exchange(port, post(HELLO, host=host))
    assert got == status
    if status == 403:
        assert body["error"]["type"] == "permission_error" and "loopback" in body["error"]["message"]


def test_a_web_page_is_refused_unless_its_origin_is_allowed(serve):
    page = "Origin: http://attacker.example\r\n"
    got, body = exchange(serve(), post(HELLO, extra=page))
    assert got == 403 and "--allow-origin http://attacker.example" in body["error"]["message"]
    port = serve(allowed_origins=("http://attacker.example",))
    allowed = answer(port, post(HELLO, extra=page))
    assert b" 200 " in allowed.split(b"\r\n")[0]
    assert b"access-control-allow-origin: http://attacker.example" in allowed.lower()
    got, _ = exchange(port, post(HELLO, extra="Origin: http://other.example\r\n"))
    assert got == 403


def test_an_allowed_origin_gets_its_preflight_answered(serve):
    preflight = answer(serve(allowed_origins=("http://localhost:3000",)), (
        b"OPTIONS /v1/messages HTTP/1.1\r\nHost: localhost\r\nOrigin: http://localhost:3000"
        b"\r\nAccess-Control-Request-Method: POST\r\ncontent-length: 0\r\n\r\n"))
    assert b" 204 " in preflight.split(b"\r\n")[0] and b"access-control-allow-methods" in preflight.lower()


"""Who may talk to the loopback server, and for how long.

- **Host**: only a loopback name (``localhost``, ``127.x.x.x``, ``[::1]``, with any port).
  A page on another site that makes the browser resolve its own name to 127.0.0.1 (DNS
  rebinding) sends its own name as Host, and is refused.
- **Origin**: browsers send it on every cross-site request; a request with one is refused
  unless ``serve --allow-origin URL`` allowed that origin (then the answer carries the CORS
  header, and a preflight ``OPTIONS`` is answered). SDKs and other programs send no Origin.
- **Deadline**: the whole request (request line, headers and body) must arrive within
  ``deadline`` seconds, however slowly it trickles in; then the reading side is shut, so a
  client sending a byte at a time cannot hold a thread past it.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Iterable

from .validation import error_answer

REQUEST_DEADLINE = 30.0                  # seconds a client may take to send its whole request
LOOPBACK_NAMES = ("localhost", "localhost.")


def host_name(header: str) -> str:
    """The name of a Host header, without its port (``[::1]:8765`` → ``::1``)."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def is_loopback(name: str) -> bool:
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def guard_problem(headers, allowed_origins: Iterable[str]) -> tuple[int, dict] | None:
    """The refusal of a request by its Host and Origin headers, or None."""
    host = headers.get("host")
    if not host or not is_loopback(host_name(host)):
        return error_answer(403, "permission_error", f"Host {host!r} is not a loopback name: this "
                            "server answers only http://127.0.0.1, http://localhost or http://[::1]")
    origin = headers.get("origin")
    if origin is not None and origin not in set(allowed_origins):
        return error_answer(403, "permission_error", f"Origin {origin!r} is not allowed: a web page "
                            "may not use this server; start it with `serve --allow-origin "
                            f"{origin}` to allow that page")
    return None


class Deadline:
    """Shuts the reading side of a connection when its request has not arrived in time."""

    def __init__(self, connection: socket.socket, seconds: float) -> None:
        self.expired = False
        self._connection = connection
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def _expire(self) -> None:
        self.expired = True
        try:
            self._connection.shutdown(socket.SHUT_RD)   # a blocked read returns at once
        except OSError:
            pass

    def cancel(self) -> None:
        """The request has arrived (or the connection is done): no more deadline."""
        self._timer.cancel()

"""An endpoint URL as the banner shows it: scheme, host, port and path, nothing else.

``ANTHROPIC_BASE_URL`` may carry a user and password (``https://me:pw@host``), a query
(``?token=...``) or a fragment; none of them is shown, in a notebook output, the lab or the
REPL. A URL that cannot be read is shown as ``(unreadable URL)``, never as written.
"""

from __future__ import annotations

from urllib.parse import urlsplit


def shown_url(url: str) -> str:
    try:
        parts = urlsplit(url.strip())
        host, port = parts.hostname, parts.port
    except ValueError:                      # a port that is not a number, a bad IPv6 host
        return "(unreadable URL)"
    if not parts.scheme or not host:
        return "(unreadable URL)"
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}{f':{port}' if port is not None else ''}{parts.path}"

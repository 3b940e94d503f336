"""The environment a tool's command gets: the caller's, less every credential.

A variable is left out when its name says it holds a secret (``ANTHROPIC_API_KEY`` and every
``ANTHROPIC_*``, names holding KEY, TOKEN, SECRET, PASSWORD, PASSWD, PASS, CREDENTIAL, AUTH,
COOKIE, SESSION or PRIVATE) or its value is a URL with a user or password in it
(``postgres://me:pw@host``). ``BASH_ENV`` and ``ENV`` go too: a shell would run the file they
name before every command, past the destructive-command check.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|CREDENTIAL|AUTH|COOKIE|"
                          r"SESSION|PRIVATE|^ANTHROPIC_", re.IGNORECASE)
_URL_WITH_USER = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s@]+@", re.IGNORECASE)
_SHELL_STARTUP = frozenset({"BASH_ENV", "ENV"})


def is_secret(name: str, value: str) -> bool:
    return bool(_SECRET_NAME.search(name) or _URL_WITH_USER.search(value)) \
        or name in _SHELL_STARTUP


def without_credentials(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` less every variable ``is_secret`` names."""
    return {name: value for name, value in environ.items() if not is_secret(name, value)}

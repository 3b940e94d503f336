"""estimate_size and validate_history, remembered per message, so a turn costs only what is new.

A caller that keeps its whole history asks ``prepare`` about the same thousands of messages
every turn; serialising and validating all of them again costs more than everything else the
pipeline does. ``SizeCache.measure`` gives exactly ``estimate_size(messages)`` (after the
checks of ``validate_history``) but serialises and checks only messages it has not seen.

Why it cannot go stale: an entry holds the message itself (so its ``id`` is never reused)
and a snapshot of it — a copy of every dict and list whose leaves are the same immutable
objects, numbers wrapped to compare by type and spelling. An entry is used only while the
message still equals its snapshot, a comparison CPython runs in C (shared strings compare by
identity). Any in-place edit — a new string, an appended block, ``1`` turned into ``True``
or ``1.0``, a nested input changed — makes it unequal, and the message is measured and
validated again. Messages holding anything else (SDK objects, sets) are never cached.

The wire JSON of a list is ``[`` + the items joined by ``,`` + ``]``, so its length is the
sum of the messages' lengths plus the separators: the total is exact, not estimated.
"""

from __future__ import annotations

from typing import Any

from .messages import estimate_size, validate_history

_FIRST = object()             # the "predecessor" of message 0


class _Number:
    """A number in a snapshot: equal only to a number of the same type that prints the same
    (``1 == True == 1.0`` in Python, but their JSON differs)."""

    __slots__ = ("kind", "text")

    def __init__(self, value: Any) -> None:
        self.kind, self.text = type(value), repr(value)

    def __eq__(self, other: object) -> bool:
        return type(other) is self.kind and repr(other) == self.text

    __hash__ = None  # type: ignore[assignment]


class _Volatile(Exception):
    """Raised while snapshotting something that could change without our noticing."""


def _snapshot(value: Any) -> Any:
    kind = type(value)
    if kind is str or value is None:
        return value
    if kind in (int, float, bool):
        return _Number(value)
    if isinstance(value, dict):
        if not all(type(key) is str for key in value):
            raise _Volatile
        return {key: _snapshot(item) for key, item in value.items()}
    if kind is list:
        return [_snapshot(item) for item in value]
    if kind is tuple:
        return tuple(_snapshot(item) for item in value)
    raise _Volatile           # SDK objects, sets, bytes, subclasses: measure every time


def snapshot(message: Any) -> Any | None:
    """A copy that equals ``message`` for as long as its wire JSON stays the same, or None
    if it holds something that cannot be watched this way."""
    try:
        return _snapshot(message)
    except (_Volatile, RecursionError):
        return None


class SizeCache:
    """Per-message sizes and validity, kept exact under in-place edits (see the module doc).

    Also counts its work (``serialised``: messages it had to serialise; ``validated_from``:
    the index validation restarted at, last call) so tests can check that a turn touches
    only what is new, without timing anything.
    """

    def __init__(self) -> None:
        # id(message) -> (message, snapshot, size, predecessor it was validated after)
        self._entries: dict[int, tuple[Any, Any, int, Any]] = {}
        self._recent: list[list] = [[], []]   # the last two lists measured, for pruning
        self.serialised = 0
        self.validated_from = 0

    def _known(self, messages: list) -> int:
        """How many leading messages are unchanged and were validated after the same
        predecessor (so validation can start there)."""
        entries, before = self._entries, _FIRST
        for index, message in enumerate(messages):
            entry = entries.get(id(message))
            if entry is None or entry[0] is not message or entry[3] is not before \
                    or not entry[1] == message:
                return index
            before = message
        return len(messages)

    def measure(self, messages: Any) -> int:
        """``validate_history(messages)`` then ``estimate_size(messages)``, from the cache
        wherever a message is unchanged. Raises HistoryError exactly as they do."""
        if not isinstance(messages, list):
            validate_history(messages)        # raises the usual error
        start = self._known(messages)
        self.validated_from = start
        if start < len(messages):
            validate_history(messages, start)
        entries, total, before = self._entries, 0, _FIRST
        for index, message in enumerate(messages):
            entry = entries.get(id(message)) if index < start else None
            if entry is None:
                entry = self._measure_one(message, before)
            total += entry[2]
            before = message
        self._recent = [self._recent[1], list(messages)]
        self._prune()
        return total + len(messages) + 1 if messages else 2

    def _measure_one(self, message: Any, before: Any) -> tuple:
        old = self._entries.get(id(message))
        if old is not None and old[0] is message and old[1] == message:
            copy, size = old[1], old[2]       # unchanged; only its predecessor is new
        else:
            copy, size = snapshot(message), estimate_size(message)
            self.serialised += 1
        entry = (message, copy, size, before)
        if copy is not None:
            self._entries[id(message)] = entry
        else:
            self._entries.pop(id(message), None)
        return entry

    def _prune(self) -> None:
        """Forget messages that are in neither of the last two lists measured (the history
        and what was sent), once the cache has grown well past them."""
        keep = len(self._recent[0]) + len(self._recent[1])
        if len(self._entries) > 2 * keep + 256:
            alive = {id(m) for recent in self._recent for m in recent}
            self._entries = {k: v for k, v in self._entries.items() if k in alive}

    def clear(self) -> None:
        self._entries.clear()
        self._recent = [[], []]

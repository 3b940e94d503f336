"""A measuring object for the Compactor: sizes and validity remembered per message, so a turn
on a long history costs only what is new. ``SizeCache.measure`` gives exactly
``validate_history`` then ``estimate_size``; an entry is used only while its message equals its
snapshot, so an in-place edit measures it again."""

from __future__ import annotations

import operator
from typing import Any, TypeVar

from ..pipeline.compactor import Compactor
from ..pipeline.messages import estimate_size, validate_history

_FIRST = object()             # the "predecessor" of message 0
REMEMBERED = 4                # lists remembered whole
CompactorT = TypeVar("CompactorT", bound=Compactor)


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
        # strings are most leaves: taken as they are, without a call each
        return {key: item if type(item) is str else _snapshot(item) for key, item in value.items()}
    if kind is list:
        return [item if type(item) is str else _snapshot(item) for item in value]
    if kind is tuple:
        return tuple(_snapshot(item) for item in value)
    raise _Volatile           # SDK objects, sets, bytes, subclasses: measure every time


def snapshot(message: Any) -> Any | None:
    """A copy that equals ``message`` for as long as its wire JSON stays the same, or None if it
    holds anything but JSON values (SDK objects, sets)."""
    try:
        return _snapshot(message)
    except (_Volatile, RecursionError):
        return None


class SizeCache:
    """Per-message sizes and validity; the last ``REMEMBERED`` lists are kept whole, so a list
    extending one is checked at C speed. ``serialised`` and ``validated_from`` count its work."""

    def __init__(self) -> None:
        # id(message) -> (message, snapshot, size, predecessor it was validated after)
        self._entries: dict[int, tuple[Any, Any, int, Any]] = {}
        # the last lists measured whole: (messages, snapshots, running sizes), newest last
        self._lists: list[tuple[list, list, list[int]]] = []
        self.serialised = 0
        self.validated_from = 0

    def _remembered_prefix(self, messages: list) -> tuple[tuple | None, int]:
        """The remembered list sharing the longest unchanged prefix with ``messages``."""
        best, length = None, 0
        for remembered in self._lists:
            refs, snaps, _ = remembered
            n = min(len(refs), len(messages))
            same = list(map(operator.is_, messages[:n], refs[:n]))
            k = same.index(False) if False in same else n
            if k > length:
                if messages[:k] != snaps[:k]:          # edited in place: find where
                    k = next(i for i in range(k) if messages[i] != snaps[i])
                if k > length:
                    best, length = remembered, k
        return best, length

    def _known(self, messages: list, start: int) -> int:
        """From ``start`` on, how far messages are unchanged and were validated after the
        same predecessor (so validation can start there)."""
        entries = self._entries
        before = messages[start - 1] if start else _FIRST
        for index in range(start, len(messages)):
            message = messages[index]
            entry = entries.get(id(message))
            if entry is None or entry[0] is not message or entry[3] is not before \
                    or not entry[1] == message:
                return index
            before = message
        return len(messages)

    def measure(self, messages: Any) -> int:
        """``validate_history`` then ``estimate_size``, cached where a message is unchanged."""
        if not isinstance(messages, list):
            validate_history(messages)        # raises the usual error
        remembered, prefix = self._remembered_prefix(messages)
        start = self._known(messages, prefix)
        self.validated_from = start
        if start < len(messages):
            validate_history(messages, start)
        snaps = remembered[1][:prefix] if remembered else []
        sums = remembered[2][:prefix + 1] if remembered else [0]
        total, before = sums[-1], messages[prefix - 1] if prefix else _FIRST
        for index in range(prefix, len(messages)):
            message = messages[index]
            entry = self._entries.get(id(message)) if index < start else None
            if entry is None:
                entry = self._measure_one(message, before)
            total += entry[2]
            snaps.append(entry[1])        # None, never cached, equals no message of a history
            sums.append(total)
            before = message
        self._remember((list(messages), snaps, sums), remembered, prefix)
        return total + len(messages) + 1 if messages else 2

    def _measure_one(self, message: Any, before: Any) -> tuple:
        old = self._entries.get(id(message))
        if old is not None and old[0] is message and old[1] == message:
            copy, size = old[1], old[2]       # unchanged; only its predecessor is new
        else:
            copy, size = snapshot(message), estimate_size([message]) - 2   # less its [ ]
            self.serialised += 1
        entry = (message, copy, size, before)
        if copy is not None:
            self._entries[id(message)] = entry
        else:
            self._entries.pop(id(message), None)
        return entry

    def _remember(self, measured: tuple, extended: tuple | None, prefix: int) -> None:
        """Keep this list in place of the one it extends (else the oldest); prune dead entries."""
        if extended is not None and prefix == len(extended[0]):
            self._lists.remove(extended)
        elif len(self._lists) == REMEMBERED:
            self._lists.pop(0)
        self._lists.append(measured)
        alive = sum(len(refs) for refs, _, _ in self._lists)
        if len(self._entries) > 2 * alive + 256:
            keep = {id(m) for refs, _, _ in self._lists for m in refs}
            self._entries = {k: v for k, v in self._entries.items() if k in keep}


def size_cached(compactor: CompactorT, cache: SizeCache | None = None) -> CompactorT:
    """``compactor``, measuring with ``cache`` (a new ``SizeCache`` when None)."""
    compactor.measure = (cache or SizeCache()).measure
    return compactor

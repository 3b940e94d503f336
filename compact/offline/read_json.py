"""JSON read by its structure, from a whole result or from the head of one (a preview): the
parts a cut went through are ``Cut*``, and ``describe_json`` says what it can and cannot see."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .phrases import listed, phrase


class CutList(list):
    """A JSON array the text ended inside."""


class CutDict(dict):
    """A JSON object the text ended inside."""


class CutStr(str):
    """A JSON string the text ended inside (the part that was there)."""


CUT_VALUE = CutStr("")           # a key whose value had not started when the text ended
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_LITERALS = {"true": True, "false": False, "null": None}
_WS = re.compile(r"[ \t\n\r]*")


class _Cut(Exception):
    """The text ended (or stopped being JSON) inside ``value``; None: before a value began."""

    def __init__(self, value: Any = None) -> None:
        super().__init__()
        self.value = value


@dataclass
class _Prefix:
    text: str
    pos: int = 0

    def skip(self) -> str:
        """The next character that is not white space."""
        self.pos = _WS.match(self.text, self.pos).end()
        if self.pos >= len(self.text):
            raise _Cut
        return self.text[self.pos]

    def value(self, depth: int = 0) -> Any:
        char = self.skip()
        if depth > 200:
            raise _Cut
        if char in "{[":
            return self.container(CutDict() if char == "{" else CutList(), depth)
        if char == '"':
            return self.string()
        match = _NUMBER.match(self.text, self.pos)
        if match:
            self.pos = match.end()
            if self.pos >= len(self.text):
                raise _Cut              # the number may go on
            return json.loads(match.group())
        word = next((w for w in _LITERALS if self.text.startswith(w, self.pos)), None)
        if word is None:
            raise _Cut
        self.pos += len(word)
        return _LITERALS[word]

    def string(self) -> str:
        try:
            text, self.pos = json.decoder.scanstring(self.text, self.pos + 1, False)
            return text
        except ValueError:       # unterminated: keep what is there, less a cut escape
            raw = self.text[self.pos + 1:]
            for trim in range(7):
                try:
                    part = json.loads('"' + raw[:len(raw) - trim] + '"', strict=False)
                    break
                except ValueError:
                    part = ""
            self.pos = len(self.text)
            raise _Cut(CutStr(part)) from None

    def key(self) -> str:
        if self.skip() != '"':
            raise _Cut
        try:
            key = self.string()
        except _Cut:
            raise _Cut from None        # a key cut off is no key
        if self.skip() != ":":
            raise _Cut
        self.pos += 1
        return key

    def container(self, into: CutDict | CutList, depth: int) -> Any:
        closer = "}" if isinstance(into, dict) else "]"
        self.pos += 1
        try:
            char = self.skip()
            while char != closer:
                if isinstance(into, dict):
                    key = self.key()
                    into[key] = CUT_VALUE
                    into[key] = self.value(depth + 1)
                else:
                    into.append(self.value(depth + 1))
                char = self.skip()
                if char not in (",", closer):
                    raise _Cut
                self.pos += char == ","
            self.pos += 1
            return dict(into) if isinstance(into, dict) else list(into)
        except _Cut as cut:        # the inner value the text ended in goes where the parser was
            if cut.value is not None and isinstance(into, list):
                into.append(cut.value)
            elif cut.value is not None and into:
                into[list(into)[-1]] = cut.value
            raise _Cut(into) from None


def parse_prefix(text: str) -> tuple[Any, bool]:
    """(the value, whether the text held it whole). Cut parts are Cut* instances."""
    try:
        return json.loads(text), True
    except (ValueError, RecursionError):
        pass
    try:
        return _Prefix(text).value(), False
    except _Cut as cut:
        return cut.value, False
    except (IndexError, RecursionError):
        return None, False


def is_cut(value: Any) -> bool:
    return isinstance(value, (CutList, CutDict, CutStr))

@dataclass
class Records:
    where: str                  # "the top-level array", '"docs"', '"course.chapters"'
    keyed: bool                 # an object of records (keyed by id) rather than a list
    items: list[dict]
    keys: list[str]             # for keyed records: the keys seen
    cut: bool                   # the collection itself was cut off

    @property
    def complete(self) -> list[dict]:
        return [item for item in self.items if not isinstance(item, CutDict)]


def find_records(value: Any, path: tuple[str, ...] = (), depth: int = 0) -> list[Records]:
    """Every collection of records (objects) up to four levels deep."""
    found: list[Records] = []
    where = f'"{".".join(path)}"' if path else "the top level"
    if isinstance(value, list):
        objects = [v for v in value if isinstance(v, dict)]
        if objects and len(objects) * 2 >= len(value):
            found.append(Records(where if path else "the top-level array", False, objects,
                                 [], isinstance(value, CutList)))
        children = [(str(i), v) for i, v in enumerate(value[:3])]
    elif isinstance(value, dict):
        objects = {k: v for k, v in value.items() if isinstance(v, dict)}
        shared = set.intersection(*map(set, objects.values())) if objects else set()
        first_of_many = (isinstance(value, CutDict) and len(objects) == len(value) >= 1
                         and len(objects[list(objects)[0]]) >= 2)   # a map cut after one record
        if (len(objects) >= 2 and len(objects) * 2 >= len(value) and shared) or first_of_many:
            found.append(Records(where, True, list(objects.values()), list(objects),
                                 isinstance(value, CutDict)))
        children = list(value.items())
    else:
        return found
    if depth < 4:
        for key, child in children:
            if isinstance(child, (list, dict)):
                found += find_records(child, (*path, key), depth + 1)
    return found


def kind(value: Any, inner: bool = True, lang: str = "en") -> str:
    """A JSON value's kind in words; an array's with the kinds of its items."""
    if value is None:
        return "null"
    if isinstance(value, list):
        kinds = sorted({kind(v, False, lang) for v in value}) if inner else []
        return phrase("array_of", lang, kinds="/".join(kinds)) if kinds else phrase("array", lang)
    return phrase("boolean" if isinstance(value, bool) else "number" if isinstance(value, (int, float))
                  else "string" if isinstance(value, str) else "object", lang)


def _field(name: str, values: list[Any], lang: str = "en") -> str:
    kinds = list(dict.fromkeys(kind(v, lang=lang) for v in values if v is not CUT_VALUE))
    array = phrase("array", lang)
    if any(k != array and k.startswith(array.split(" ")[0]) or k.endswith(" " + array)
           for k in kinds):
        kinds = [k for k in kinds if k != array]      # an empty list says nothing more
    label = "/".join(kinds) if kinds else phrase("not_visible", lang)
    objects = [v for v in values if isinstance(v, dict) and v]
    if objects:
        inner = list(dict.fromkeys(k for o in objects for k in o))
        label += f": {listed(inner, 8)}"
    if kinds and values and all(is_cut(v) for v in values):
        label += phrase("cut_off_field", lang)
    return phrase("field", lang, name=name, label=label)


_WHERE = {"the top level": "top_level", "the top-level array": "top_level_array"}   # phrases


def describe_json(text: str, total_chars: int | None = None, lang: str = "en") -> str:
    """What the structure of ``text`` shows, and what it cannot show when it was cut off."""
    value, whole = parse_prefix(text)
    if value is None and not whole:
        return phrase("json_unreadable", lang)
    seen = phrase("json_seen", lang, n=len(text),
                  total=phrase("of_total", lang, n=total_chars) if total_chars else "")
    seen = "" if whole else phrase("partial_paren", lang, how=seen)
    if isinstance(value, dict):
        keys = ", ".join(k + (phrase("cut_off", lang) if is_cut(v) else "") for k, v in value.items())
        head = phrase("json_object", lang, seen=seen, keys=keys or phrase("none", lang),
                      keys_seen="" if whole else phrase("keys_seen", lang))
    elif isinstance(value, list):
        head = phrase("json_array", lang, seen=seen,
                      items=phrase("of_items", lang, n=len(value)) if whole else "")
    else:
        return phrase("json_single", lang, kind=kind(value, lang=lang), value=repr(str(value)[:80]))
    # the main collection: most records; on a tie the deepest (the most specific)
    records = max(find_records(value), key=lambda r: (len(r.items), r.where.count(".")), default=None)
    parts = _record_parts(records, whole, lang) if records else [phrase("no_records", lang)]
    return phrase("sep", lang).join([head, *parts])


def _record_parts(records: Records, whole: bool, lang: str) -> list[str]:
    complete = len(records.complete)
    cut_items = len(records.items) - complete
    s = "" if complete == 1 else "s"
    where = phrase(_WHERE[records.where], lang) if records.where in _WHERE else records.where
    parts = []
    if whole or not (records.cut or cut_items):
        count = phrase("records_n", lang, n=complete, s=s)
        if records.keyed:
            count += phrase("keyed", lang, keys=listed(records.keys, 6))
        parts.append(phrase("holds", lang, where=where, count=count))
    else:
        visible = phrase("complete_visible", lang, n=complete, s=s)
        if cut_items:
            n = complete + 1
            suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
            visible += phrase("nth_cut", lang, nth=f"{n}{suffix}", n=n)
        parts.append(phrase("holds_partial", lang, where=where, visible=visible))
    fields: dict[str, list[Any]] = {}       # in order of first appearance
    for item in records.items:
        for key, value in item.items():
            fields.setdefault(key, []).append(value)
    only_cut = {name for name in fields
                if all(isinstance(item, CutDict) for item in records.items if name in item)}
    parts.append(phrase("fields", lang, fields=", ".join(_field(n, v, lang) for n, v in fields.items())))
    if only_cut and complete:
        parts.append(phrase("only_in_cut", lang, names=", ".join(sorted(only_cut))))
    if not complete and cut_items:
        parts.append(phrase("fields_from_cut", lang))
    return parts

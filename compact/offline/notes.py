"""How the offline model reads a tool result: one line of facts per file.

It writes these as ``Note [<path>]: <facts>`` in its own text, so the facts outlive the
tool result (micro_compact never touches assistant text) and reach the summary. The facts
come from the structure of what was read (``read_json``, ``read_markdown``, ``read_code``),
and say so when only part of it was seen (a persisted preview, an excerpt).
"""

from __future__ import annotations

from .markers import CLIPPED, read_persisted
from .read_code import describe_code
from .read_json import describe_json
from .read_markdown import describe_markdown
from .request_text import CODE_EXTENSIONS

NOTE_LIMIT = 1_800


def one_line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _kind(path: str, body: str) -> str:
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    if suffix in ("md", "markdown", "rst"):
        return "markdown"
    if suffix in CODE_EXTENSIONS:
        return "code"
    if suffix == "json" or (not suffix and body.lstrip()[:1] in ("{", "[")):
        return "json"
    return "text"


def describe(path: str, text: str) -> str:
    """The facts the model keeps about one read of ``path`` (a persisted preview or a clipped
    excerpt included: then the facts say how much was seen)."""
    if text.startswith("Error"):
        return f"error: {one_line(text, 200)}"
    persisted = read_persisted(text)
    body = persisted.preview if persisted else text
    clipped = CLIPPED.search(body)   # the marker pipeline.summary.clip leaves in a result
    omitted = int(clipped.group(1)) if clipped else 0
    partial = ""
    if persisted:
        total = f" of {persisted.total_chars:,}" if persisted.total_chars else ""
        partial = f"only the preview's first {len(body):,}{total} chars were seen"
    elif clipped:
        partial = (f"an excerpt: {len(body) - len(clipped.group(0)):,} of "
                   f"{len(body) - len(clipped.group(0)) + omitted:,} chars, the middle not seen")
    kind = _kind(path, body)
    if kind == "markdown":
        fact = describe_markdown(body, cut=bool(partial))
        if partial:
            fact += f" ({partial})"
    elif kind == "code":
        fact = describe_code(body, path, partial)
    elif kind == "json":
        head = body[:clipped.start()] if clipped else body
        fact = describe_json(head, persisted.total_chars if persisted else None,
                             preview=bool(persisted or clipped))
    else:
        lines = body.splitlines()
        fact = (f"{len(body)} chars; first line {one_line(lines[0] if lines else '', 160)!r}"
                + (f" ({partial})" if partial else ""))
    if persisted:
        size = f" ({persisted.total_chars} chars)" if persisted.total_chars else ""
        fact += f"; full output{size} persisted at {persisted.path}, facts taken from its preview"
    return fact


def note_line(key: str, fact: str) -> str:
    return f"Note [{key}]: {one_line(fact, NOTE_LIMIT)}"

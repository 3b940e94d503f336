"""Persistent memory: notes live in a JSONL file under .memory/ and are recalled by keyword search.

Lesson s09 of the course. Lesson s08 taught the agent to forget safely inside
one session: old results become placeholders and a long history becomes one
[Compacted] summary. This lesson is about the opposite: remembering the few
things that must survive compaction and the end of the session, such as the
user's preferences, the project's conventions and decisions made for a reason.
Memories go into the system prompt, which s08's stages never rewrite.

The design has three parts:

    write        The model calls `remember` with a short note, a kind and a
                 few tags. The note is appended as one JSON line to
                 .memory/notes.jsonl. Near-duplicates are merged on the spot.

    retrieve     At the start of a session the first user message is turned
                 into keywords and the best matching notes are placed in the
                 system prompt. The model can also call `recall` at any time.

    consolidate  From time to time (or with /consolidate) the store is cleaned:
                 duplicates are merged, superseded notes are archived, and old
                 notes that were never recalled are moved to the archive.

Nothing here needs a vector database. Keyword search with a little weighting
is easy to read, easy to debug and good enough for a few hundred notes, which
is more than a single project should ever collect.

Run it with `python code.py`. Commands inside the session: /memory lists notes,
/recall <words> searches, /consolidate cleans the store, /quit leaves (and
offers to save new notes).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

try:  # The store works without the SDK; only the agent loop needs it.
    from anthropic import Anthropic
except ImportError:  # pragma: no cover - exercised only without the SDK
    Anthropic = None  # type: ignore[assignment,misc]


# ---------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------

WORKDIR = Path(os.environ.get("AGENT_WORKDIR", Path.cwd())).resolve()
MODEL = os.environ.get("AGENT_MODEL", "claude-sonnet-4-5")
MAX_OUTPUT_TOKENS = 4096

MEMORY_DIR = WORKDIR / ".memory"
NOTES_FILE = MEMORY_DIR / "notes.jsonl"
ARCHIVE_FILE = MEMORY_DIR / "archive.jsonl"

# The kinds of note the agent may store. Anything else is rejected so that the
# store does not fill up with vague "facts" that nobody will ever look for.
KINDS = ("preference", "convention", "decision", "warning", "fact")

MAX_NOTE_CHARS = 400  # a note is a sentence or two, not a document
MAX_TAGS = 6
RECALL_LIMIT = 5  # notes placed in the system prompt
RECALL_MIN_SCORE = 0.15  # below this a match is noise
DUPLICATE_SIMILARITY = 0.8  # word overlap at which two notes are the same
STALE_AFTER_DAYS = 120  # never-recalled notes older than this are archived
CONSOLIDATE_AT = 60  # clean the store at session end once it is this big

# Notes of these kinds are always placed in the system prompt, whatever the
# query, because they guard against mistakes that are expensive to undo.
ALWAYS_RECALL_KINDS = ("warning",)

STOPWORDS = frozenset(
    """a an and are as at be but by can do does for from has have how i if in into
    is it its me my no not of on or our please should so that the their them then
    there these this to up us use used uses using was we were what when where which
    will with would you your""".split()
)

# Patterns that look like secrets. Memory is plain text on disk and may end up
# in a repository, so anything that matches is refused.
SECRET_PATTERNS = [
    re.compile(r"sk-[A-Za-z0-9_-]{16,}"),
    re.compile(r"AKIA[0-9A-Z]{16}"),
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    re.compile(r"(?i)\b(password|passwd|secret|token)\s*[:=]\s*\S+"),
]


def today() -> date:
    """The current date; AGENT_TODAY=YYYY-MM-DD pins it for tests and demos."""
    pinned = os.environ.get("AGENT_TODAY")
    return date.fromisoformat(pinned) if pinned else date.today()


# ---------------------------------------------------------------------------
# Notes
# ---------------------------------------------------------------------------


@dataclass
class Note:
    """One remembered fact. Stored as one line of JSON."""

    id: str
    kind: str
    text: str
    tags: list[str] = field(default_factory=list)
    created: str = ""
    updated: str = ""
    hits: int = 0
    last_hit: str = ""
    source: str = "agent"
    supersedes: list[str] = field(default_factory=list)

    def to_line(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=False)

    @classmethod
    def from_dict(cls, data: dict) -> Note:
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        note = cls(**known)
        note.tags = normalise_tags(note.tags)
        return note

    def age_days(self, now: date | None = None) -> int:
        reference = now or today()
        try:
            return (reference - date.fromisoformat(self.created)).days
        except ValueError:
            return 0

    def render(self) -> str:
        tags = f" [{', '.join(self.tags)}]" if self.tags else ""
        return f"{self.id} ({self.kind}){tags}: {self.text}"


def normalise_tags(tags: Iterable[str]) -> list[str]:
    """Lower-case, hyphenate and de-duplicate tags, keeping their order."""
    seen: list[str] = []
    for tag in tags:
        clean = re.sub(r"[^a-z0-9]+", "-", str(tag).lower()).strip("-")
        if clean and clean not in seen:
            seen.append(clean)
    return seen[:MAX_TAGS]


# ---------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------


class MemoryStoreError(Exception):
    """Raised for problems the model should hear about (bad kind, secrets...)."""


class MemoryStore:
    """A folder with an append-only notes file and an archive.

    Reading is tolerant: a line that is not valid JSON is skipped and reported
    once, so that a hand edit gone wrong does not lose the whole memory.
    Writing is either an append (new note) or a full rewrite through a
    temporary file and an atomic rename (updates, consolidation).
    """

    def __init__(self, folder: Path = MEMORY_DIR) -> None:
        self.folder = folder
        self.notes_file = folder / "notes.jsonl"
        self.archive_file = folder / "archive.jsonl"
        self.warnings: list[str] = []

    # -- reading ------------------------------------------------------------

    def load(self) -> list[Note]:
        return self._read(self.notes_file)

    def load_archive(self) -> list[Note]:
        return self._read(self.archive_file)

    def _read(self, path: Path) -> list[Note]:
        if not path.is_file():
            return []
        notes = []
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                notes.append(Note.from_dict(json.loads(line)))
            except (json.JSONDecodeError, TypeError) as error:
                message = f"{path.name}:{number}: skipped unreadable line ({error})"
                if message not in self.warnings:
                    self.warnings.append(message)
        return notes

    def get(self, note_id: str) -> Note | None:
        return next((note for note in self.load() if note.id == note_id), None)

    # -- writing ------------------------------------------------------------

    def next_id(self, notes: list[Note] | None = None) -> str:
        everything = (notes if notes is not None else self.load()) + self.load_archive()
        numbers = [int(note.id[1:]) for note in everything if re.fullmatch(r"n\d+", note.id)]
        return f"n{(max(numbers) + 1) if numbers else 1:04d}"

    def append(self, note: Note) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        with self.notes_file.open("a", encoding="utf-8", newline="\n") as handle:
            handle.write(note.to_line() + "\n")

    def rewrite(self, notes: list[Note]) -> None:
        self._atomic_write(self.notes_file, notes)

    def archive(self, notes: list[Note], reason: str) -> None:
        if not notes:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        with self.archive_file.open("a", encoding="utf-8", newline="\n") as handle:
            for note in notes:
                data = asdict(note)
                data["archived"] = today().isoformat()
                data["archived_reason"] = reason
                handle.write(json.dumps(data, ensure_ascii=False) + "\n")

    def _atomic_write(self, path: Path, notes: list[Note]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        handle, temp_name = tempfile.mkstemp(dir=self.folder, prefix=".notes-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
                for note in notes:
                    out.write(note.to_line() + "\n")
            os.replace(temp_name, path)
        except BaseException:
            Path(temp_name).unlink(missing_ok=True)
            raise


STORE = MemoryStore()


# ---------------------------------------------------------------------------
# Keywords and scoring
# ---------------------------------------------------------------------------


WORD = re.compile(r"[A-Za-z][A-Za-z0-9_+#.-]*")


def stem(word: str) -> str:
    """A deliberately tiny stemmer: enough to match 'tests' with 'test'."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def keywords(text: str) -> list[str]:
    """Split text into lower-case, stemmed words without stopwords.

    A dotted name such as `pyproject.toml` is also split into its parts, so a
    query for "pyproject" finds a note that mentions the full file name.
    """
    words = []
    for match in WORD.finditer(text):
        raw = match.group().lower().strip(".-")
        for piece in {raw, *re.split(r"[._-]", raw)}:
            if len(piece) >= 2 and piece not in STOPWORDS:
                words.append(stem(piece))
    return sorted(words)


def note_terms(note: Note) -> list[str]:
    """Keywords of a note; tags count twice because they were chosen on purpose."""
    return keywords(note.text) + [stem(tag) for tag in note.tags] * 2


def similarity(first: str, second: str) -> float:
    """Word-set overlap (Jaccard) between two texts, from 0.0 to 1.0."""
    a, b = set(keywords(first)), set(keywords(second))
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def document_frequencies(notes: list[Note]) -> Counter:
    counts: Counter = Counter()
    for note in notes:
        counts.update(set(note_terms(note)))
    return counts


def score(
    note: Note, query_terms: list[str], df: Counter, total: int, now: date | None = None
) -> float:
    """How well a note matches a query.

    The base is a tf-idf sum over the query terms, normalised by the note's
    length so that long notes do not win by size alone. Two small factors then
    favour notes that have been useful before (hits) and notes that are recent.
    """
    if not query_terms:
        return 0.0
    terms = Counter(note_terms(note))
    if not terms:
        return 0.0
    base = 0.0
    for term in set(query_terms):
        if term in terms:
            idf = math.log(1 + total / (1 + df.get(term, 0)))
            base += (1 + math.log(terms[term])) * idf
    if base == 0.0:
        return 0.0
    base /= math.sqrt(sum(terms.values()))
    usefulness = 1 + 0.1 * math.log1p(note.hits)
    recency = 1 / (1 + note.age_days(now) / 365)
    return round(base * usefulness * (0.7 + 0.3 * recency), 4)


def search(
    query: str, notes: list[Note], limit: int = RECALL_LIMIT, min_score: float = RECALL_MIN_SCORE
) -> list[tuple[float, Note]]:
    """Return up to `limit` (score, note) pairs, best first, ties by id."""
    terms = keywords(query)
    df = document_frequencies(notes)
    scored = [(score(note, terms, df, len(notes)), note) for note in notes]
    scored = [pair for pair in scored if pair[0] >= min_score]
    scored.sort(key=lambda pair: (-pair[0], pair[1].id))
    return scored[:limit]


# ---------------------------------------------------------------------------
# Writing notes
# ---------------------------------------------------------------------------


def check_text(text: str) -> str:
    """Validate and tidy the text of a new note."""
    clean = " ".join(text.split())
    if not clean:
        raise MemoryStoreError("a note needs some text")
    if len(clean) > MAX_NOTE_CHARS:
        raise MemoryStoreError(
            f"note is {len(clean)} characters; keep it under {MAX_NOTE_CHARS}. "
            "Store the conclusion, not the evidence."
        )
    for pattern in SECRET_PATTERNS:
        if pattern.search(clean):
            raise MemoryStoreError("note looks like it contains a secret; it was not stored")
    return clean


def remember(
    text: str,
    kind: str = "fact",
    tags: list[str] | None = None,
    source: str = "agent",
    store: MemoryStore = STORE,
) -> str:
    """Store a note, or strengthen an existing one that says the same thing."""
    if kind not in KINDS:
        raise MemoryStoreError(f"kind must be one of {', '.join(KINDS)}")
    clean = check_text(text)
    notes = store.load()
    now = today().isoformat()
    for note in notes:
        if note.kind == kind and similarity(note.text, clean) >= DUPLICATE_SIMILARITY:
            note.tags = normalise_tags(note.tags + list(tags or []))
            note.updated = now
            note.hits += 1
            store.rewrite(notes)
            return f"already known as {note.id}; tags updated"
    note = Note(
        id=store.next_id(notes),
        kind=kind,
        text=clean,
        tags=normalise_tags(tags or []),
        created=now,
        updated=now,
        source=source,
    )
    store.append(note)
    return f"remembered {note.id}: {note.text}"


def forget(note_id: str, reason: str = "", store: MemoryStore = STORE) -> str:
    """Move a note to the archive. Nothing is ever deleted outright."""
    notes = store.load()
    keep = [note for note in notes if note.id != note_id]
    if len(keep) == len(notes):
        raise MemoryStoreError(f"no note with id {note_id}")
    removed = [note for note in notes if note.id == note_id]
    store.archive(removed, reason or "forgotten on request")
    store.rewrite(keep)
    return f"forgot {note_id}"


def recall(
    query: str, limit: int = RECALL_LIMIT, store: MemoryStore = STORE, count_hits: bool = True
) -> list[Note]:
    """Find the notes that best match `query` and record that they were used."""
    notes = store.load()
    found = [note for _, note in search(query, notes, limit)]
    if count_hits and found:
        now = today().isoformat()
        ids = {note.id for note in found}
        for note in notes:
            if note.id in ids:
                note.hits += 1
                note.last_hit = now
        store.rewrite(notes)
    return found


# ---------------------------------------------------------------------------
# Consolidation
# ---------------------------------------------------------------------------


@dataclass
class ConsolidationReport:
    merged: list[tuple[str, str]] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    kept: int = 0

    def describe(self) -> str:
        parts = [f"kept {self.kept}"]
        if self.merged:
            parts.append("merged " + ", ".join(f"{b} into {a}" for a, b in self.merged))
        if self.superseded:
            parts.append("superseded " + ", ".join(self.superseded))
        if self.stale:
            parts.append("archived stale " + ", ".join(self.stale))
        return "; ".join(parts)


NEGATION = re.compile(r"\b(not|never|don't|do not|no longer|avoid|stop)\b", re.IGNORECASE)


def subject_key(note: Note) -> tuple[str, tuple[str, ...]]:
    """Notes with the same kind and the same tags are about the same subject."""
    return note.kind, tuple(sorted(note.tags))


def conflicts(older: Note, newer: Note) -> bool:
    """A crude contradiction test: same subject, similar words, opposite polarity."""
    if subject_key(older) != subject_key(newer) or not older.tags:
        return False
    if similarity(older.text, newer.text) < 0.3:
        return False
    return bool(NEGATION.search(older.text)) != bool(NEGATION.search(newer.text))


def consolidate(store: MemoryStore = STORE, now: date | None = None) -> ConsolidationReport:
    """Clean the store in three passes and rewrite it once.

    1. Merge near-duplicates: the older note survives, gains the newer note's
       tags and hit count, and the newer one is archived.
    2. Resolve conflicts: of two notes on the same subject with opposite
       polarity, the newer wins and the older is archived as superseded.
    3. Archive stale notes: never recalled and older than STALE_AFTER_DAYS.
       Warnings are exempt; they matter precisely because they are rare.
    """
    reference = now or today()
    notes = sorted(store.load(), key=lambda note: (note.created, note.id))
    report = ConsolidationReport()
    archived: dict[str, list[Note]] = {"duplicate": [], "superseded": [], "stale": []}

    survivors: list[Note] = []
    for note in notes:
        twin = next(
            (
                other
                for other in survivors
                if other.kind == note.kind
                and similarity(other.text, note.text) >= DUPLICATE_SIMILARITY
            ),
            None,
        )
        if twin is None:
            survivors.append(note)
            continue
        twin.tags = normalise_tags(twin.tags + note.tags)
        twin.hits += note.hits
        twin.updated = max(twin.updated, note.updated)
        report.merged.append((twin.id, note.id))
        archived["duplicate"].append(note)

    current: list[Note] = []
    for note in survivors:
        beaten = [old for old in current if conflicts(old, note)]
        for old in beaten:
            current.remove(old)
            note.supersedes.append(old.id)
            report.superseded.append(old.id)
            archived["superseded"].append(old)
        current.append(note)

    fresh: list[Note] = []
    for note in current:
        too_old = note.age_days(reference) > STALE_AFTER_DAYS
        if note.hits == 0 and too_old and note.kind not in ALWAYS_RECALL_KINDS:
            report.stale.append(note.id)
            archived["stale"].append(note)
        else:
            fresh.append(note)

    for reason, group in archived.items():
        store.archive(group, reason)
    store.rewrite(fresh)
    report.kept = len(fresh)
    return report


# ---------------------------------------------------------------------------
# Session start and end
# ---------------------------------------------------------------------------


BASE_SYSTEM = f"""You are a coding agent working in {WORKDIR}.
Use the tools to inspect and change files. Keep answers short.

You have a persistent memory. Use `remember` for things that will still be true
in a later session: the user's preferences, project conventions, decisions and
their reasons, and warnings about dangerous operations. Do not store what is
cheap to rediscover by reading a file, and never store secrets. Use `recall`
when a task touches something you may have been told before."""


def memory_section(notes: list[Note]) -> str:
    if not notes:
        return ""
    lines = ["", "", "Notes from earlier sessions (most relevant first):"]
    lines += [f"- {note.render()}" for note in notes]
    lines.append("If a note is wrong or outdated, call `forget` with its id.")
    return "\n".join(lines)


def build_system_prompt(first_message: str, store: MemoryStore = STORE) -> str:
    """The system prompt for a new session: base text plus relevant notes.

    Warnings are always included; the remaining slots go to the best matches
    for the user's first message. The prompt is built once per session so that
    it stays identical across calls and the prompt cache keeps working.
    """
    notes = store.load()
    always = [note for note in notes if note.kind in ALWAYS_RECALL_KINDS]
    slots = max(0, RECALL_LIMIT - len(always))
    matched = recall(first_message, limit=slots + len(always), store=store) if slots else []
    chosen = always + [note for note in matched if note not in always][:slots]
    return BASE_SYSTEM + memory_section(chosen)


REFLECT_PROMPT = """The session is ending. Read the conversation below and list
facts worth remembering in later sessions: preferences the user stated,
conventions of this project, decisions with their reasons, and warnings.
Answer with a JSON array only. Each item: {"text": ..., "kind": one of
preference/convention/decision/warning/fact, "tags": [...]}. Answer [] if
nothing is worth keeping."""


def transcript_text(messages: list[dict], limit: int = 40_000) -> str:
    lines = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            lines.append(f"{message['role']}: {content}")
            continue
        for block in content or []:
            plain = block if isinstance(block, dict) else block.model_dump()
            if plain.get("type") == "text":
                lines.append(f"{message['role']}: {plain['text']}")
    text = "\n".join(lines)
    return text[-limit:]


def parse_candidates(reply_text: str) -> list[dict]:
    """Pull the JSON array out of the model's reply, tolerating extra prose."""
    match = re.search(r"\[.*\]", reply_text, re.DOTALL)
    if not match:
        return []
    try:
        items = json.loads(match.group())
    except json.JSONDecodeError:
        return []
    return [item for item in items if isinstance(item, dict) and item.get("text")]


RULE_HINTS = re.compile(
    r"\b(always|never|prefer|please use|we use|don't|do not|remember that)\b", re.IGNORECASE
)


def offline_candidates(messages: list[dict]) -> list[dict]:
    """Without a model, propose user sentences that sound like standing rules."""
    found = []
    for message in messages:
        if message.get("role") != "user" or not isinstance(message.get("content"), str):
            continue
        for sentence in re.split(r"(?<=[.!?])\s+", message["content"]):
            if RULE_HINTS.search(sentence) and 10 <= len(sentence) <= MAX_NOTE_CHARS:
                kind = "warning" if re.search(r"(?i)\bnever\b", sentence) else "preference"
                found.append({"text": sentence.strip(), "kind": kind, "tags": []})
    return found


def reflect(messages: list[dict], client: Any = None) -> list[dict]:
    """Ask for note candidates at the end of a session."""
    if client is None:
        return offline_candidates(messages)
    reply = client.messages.create(
        model=MODEL,
        max_tokens=1500,
        messages=[
            {
                "role": "user",
                "content": f"{REFLECT_PROMPT}\n\n{transcript_text(messages)}",
            }
        ],
    )
    text = "".join(block.text for block in reply.content if block.type == "text")
    return parse_candidates(text)


def save_candidates(
    candidates: list[dict], ask: Callable[[str], str] = input, store: MemoryStore = STORE
) -> list[str]:
    """Show each candidate to the user and store the ones they accept."""
    results = []
    for item in candidates:
        kind = item.get("kind") if item.get("kind") in KINDS else "fact"
        answer = ask(f"  remember ({kind}) {item['text']!r}? [y/N] ").strip().lower()
        if answer not in {"y", "yes"}:
            continue
        try:
            results.append(remember(item["text"], kind, item.get("tags"), "reflect", store))
        except MemoryStoreError as error:
            results.append(f"skipped: {error}")
    return results


# ---------------------------------------------------------------------------
# Tools
# ---------------------------------------------------------------------------


class ToolError(Exception):
    """Raised by a tool handler; the message goes back to the model."""


def safe_path(relative: str) -> Path:
    path = (WORKDIR / relative).resolve()
    if path != WORKDIR and not path.is_relative_to(WORKDIR):
        raise ToolError(f"path {relative!r} is outside the workspace")
    if MEMORY_DIR == path or MEMORY_DIR in path.parents:
        raise ToolError("use the memory tools, not file tools, for .memory/")
    return path


def run_bash(command: str) -> str:
    if re.search(r"\.memory\b", command):
        raise ToolError("use the memory tools, not the shell, for .memory/")
    try:
        completed = subprocess.run(
            command, shell=True, cwd=WORKDIR, capture_output=True, text=True, timeout=120
        )
    except subprocess.TimeoutExpired as error:
        raise ToolError("command timed out after 120 seconds") from error
    output = (completed.stdout + completed.stderr).strip() or "(no output)"
    if completed.returncode:
        output = f"[exit code {completed.returncode}]\n{output}"
    return output[:30_000]


def read_file(path: str, limit: int = 1500) -> str:
    target = safe_path(path)
    if not target.is_file():
        raise ToolError(f"no such file: {path}")
    lines = target.read_text(encoding="utf-8", errors="replace").splitlines()
    shown = "\n".join(f"{n:6d}  {line}" for n, line in enumerate(lines[:limit], start=1))
    if len(lines) > limit:
        shown += f"\n... [{len(lines) - limit} more lines]"
    return shown or "(empty file)"


def remember_tool(text: str, kind: str = "fact", tags: list[str] | None = None) -> str:
    return remember(text, kind, tags)


def recall_tool(query: str, limit: int = RECALL_LIMIT) -> str:
    found = recall(query, limit=min(limit, 20))
    if not found:
        return "(no matching notes)"
    return "\n".join(note.render() for note in found)


def forget_tool(note_id: str, reason: str = "") -> str:
    return forget(note_id, reason)


def list_memory(kind: str = "") -> str:
    notes = [note for note in STORE.load() if not kind or note.kind == kind]
    if not notes:
        return "(memory is empty)"
    lines = [note.render() for note in notes]
    lines += [f"warning: {text}" for text in STORE.warnings]
    return "\n".join(lines)


HANDLERS: dict[str, Callable[..., str]] = {
    "bash": run_bash,
    "read_file": read_file,
    "remember": remember_tool,
    "recall": recall_tool,
    "forget": forget_tool,
    "list_memory": list_memory,
}


def schema(properties: dict, required: list[str]) -> dict:
    return {"type": "object", "properties": properties, "required": required}


STRING = {"type": "string"}

TOOLS = [
    {
        "name": "bash",
        "description": "Run a shell command in the workspace.",
        "input_schema": schema({"command": STRING}, ["command"]),
    },
    {
        "name": "read_file",
        "description": "Read a text file with line numbers.",
        "input_schema": schema({"path": STRING, "limit": {"type": "integer"}}, ["path"]),
    },
    {
        "name": "remember",
        "description": (
            "Save a short note for future sessions: a preference, convention, "
            "decision (with its reason), warning or fact. One or two sentences."
        ),
        "input_schema": schema(
            {
                "text": STRING,
                "kind": {"type": "string", "enum": list(KINDS)},
                "tags": {"type": "array", "items": STRING},
            },
            ["text", "kind"],
        ),
    },
    {
        "name": "recall",
        "description": "Search saved notes by keywords. Returns the best matches.",
        "input_schema": schema({"query": STRING, "limit": {"type": "integer"}}, ["query"]),
    },
    {
        "name": "forget",
        "description": "Archive a note that is wrong or outdated, by its id (e.g. n0012).",
        "input_schema": schema({"note_id": STRING, "reason": STRING}, ["note_id"]),
    },
    {
        "name": "list_memory",
        "description": "List every saved note, optionally only one kind.",
        "input_schema": schema({"kind": STRING}, []),
    },
]


def run_tool(block: dict) -> dict:
    name, args = block.get("name", ""), block.get("input", {})
    handler = HANDLERS.get(name)
    try:
        if handler is None:
            raise ToolError(f"unknown tool {name!r}")
        output, failed = handler(**args), False
    except (ToolError, MemoryStoreError) as error:
        output, failed = f"error: {error}", True
    except (TypeError, OSError) as error:
        output, failed = f"error: {error}", True
    result = {"type": "tool_result", "tool_use_id": block.get("id", ""), "content": output}
    if failed:
        result["is_error"] = True
    return result


# ---------------------------------------------------------------------------
# Agent loop and console
# ---------------------------------------------------------------------------


@dataclass
class Session:
    client: Any
    system: str = BASE_SYSTEM
    messages: list[dict] = field(default_factory=list)
    verbose: bool = True

    def log(self, text: str) -> None:
        if self.verbose:
            print(f"  {text}")


def plain_blocks(content: Iterable[Any]) -> list[dict]:
    return [
        block if isinstance(block, dict) else block.model_dump(exclude_none=True)
        for block in content
    ]


def agent_loop(session: Session, max_steps: int = 40) -> str:
    """The loop from s01, unchanged except that the system prompt carries notes."""
    for _ in range(max_steps):
        reply = session.client.messages.create(
            model=MODEL,
            system=session.system,
            messages=session.messages,
            tools=TOOLS,
            max_tokens=MAX_OUTPUT_TOKENS,
        )
        content = plain_blocks(reply.content)
        session.messages.append({"role": "assistant", "content": content})
        text = "\n".join(b["text"] for b in content if b.get("type") == "text").strip()
        if reply.stop_reason != "tool_use":
            return text
        results = []
        for block in content:
            if block.get("type") == "tool_use":
                session.log(f"> {block['name']}({json.dumps(block.get('input', {}))[:70]})")
                results.append(run_tool(block))
        session.messages.append({"role": "user", "content": results})
    return "(stopped: too many steps)"


def handle_command(session: Session, line: str) -> bool:
    command, _, rest = line.strip().partition(" ")
    if command in {"/quit", "/exit"}:
        return False
    if command == "/memory":
        print(list_memory())
    elif command == "/recall":
        print(recall_tool(rest or "project"))
    elif command == "/consolidate":
        print(f"  {consolidate().describe()}")
    else:
        print("  commands: /memory /recall <words> /consolidate /quit")
    return True


def end_session(session: Session) -> None:
    if not session.messages:
        return
    try:
        candidates = reflect(session.messages, session.client)
    except Exception as error:  # noqa: BLE001 - reflection is best effort
        print(f"  (reflection failed: {error})")
        candidates = offline_candidates(session.messages)
    for line in save_candidates(candidates):
        print(f"  {line}")
    if len(STORE.load()) >= CONSOLIDATE_AT:
        print(f"  consolidated: {consolidate().describe()}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="s09: an agent with persistent memory")
    parser.add_argument("--quiet", action="store_true", help="hide tool calls")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if Anthropic is None:
        print("The anthropic package is not installed; pip install anthropic")
        return 1
    session = Session(client=Anthropic(), verbose=not args.quiet)
    print(f"s09 agent in {WORKDIR}; {len(STORE.load())} notes in memory.")
    while True:
        try:
            line = input("s09 >> ")
        except (EOFError, KeyboardInterrupt):
            print()
            break
        if not line.strip():
            continue
        if line.startswith("/"):
            if not handle_command(session, line):
                break
            continue
        if not session.messages:
            session.system = build_system_prompt(line)
        session.messages.append({"role": "user", "content": line})
        print(agent_loop(session))
    end_session(session)
    return 0


if __name__ == "__main__":
    sys.exit(main())

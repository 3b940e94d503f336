"""A bash script as the simple commands it can run, read by bashlex (a port of bash's parser).

Every command anywhere in the script is listed: inside ``if``/``for``/``while``/``until``
bodies, ``{ }`` and ``( )`` groups, pipelines (``!`` included), ``&&``/``||``/``;``/``&``
lists, function bodies, and command or process substitutions (``$(...)``, backticks,
``<(...)``) in any word, assignment or redirection. A compound's own redirection
(``{ ...; } > file``) is listed as a command with no words.

A word is *literal* when bash would use it as written: no parameter, substitution, tilde,
glob or brace expansion in it. A script bashlex cannot read (``case``, ``[[ ]]``, ``$((...))``,
the ``time`` keyword, unbalanced quotes), a ``${...}`` that holds a command, or a
here-document that runs a substitution raises ``Unreadable``: the caller asks, never guesses.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

import bashlex

MAX_SCRIPT_CHARS = 100_000
_EXPANDS = re.compile(r"[*?]|\[.*\]|\{.*(?:,|\.\.).*\}")      # glob or brace expansion
_RUNS = ("$(", "`", "<(", ">(")


class Unreadable(ValueError):
    """The script cannot be read as bash: nobody can tell what it runs."""


@dataclass(frozen=True)
class Word:
    text: str                 # as bash passes it, quotes removed
    literal: bool = True      # bash would not expand it


@dataclass(frozen=True)
class Redirect:
    op: str                   # '>', '>>', '>|', '&>', '>&', '<>', '<', '<<', '<<<'
    target: Word | None       # None for a descriptor (2>&1)
    stdin_text: str | None = None      # what a here-document or here-string feeds in


@dataclass(frozen=True)
class _Walk:
    source: str                # the script, to read each word as written
    found: list                # the simple commands found so far


@dataclass
class Simple:
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    assigned: list[str] = field(default_factory=list)     # names set by NAME=value before it
    function: str | None = None        # set when this is the body's first command of function NAME

    @property
    def stdin_text(self) -> str | None:
        texts = [r.stdin_text for r in self.redirects if r.stdin_text is not None]
        return texts[-1] if texts else None


def simple_commands(script: str) -> list[Simple]:
    """Every simple command in ``script``, in source order; ``Unreadable`` if bash's grammar
    (as bashlex knows it) cannot read it."""
    if len(script) > MAX_SCRIPT_CHARS:
        raise Unreadable(f"the command is longer than {MAX_SCRIPT_CHARS:,} characters")
    try:
        trees = bashlex.parse(script)
    except Exception as error:     # bashlex raises many kinds (ParsingError, NotImplementedError...)
        raise Unreadable(f"bash's grammar cannot read it ({type(error).__name__}: "
                         f"{str(error)[:200]})") from None
    found: list[Simple] = []
    try:
        for tree in trees:
            _visit(tree, _Walk(script, found))
    except RecursionError:
        raise Unreadable("it is nested too deeply to read") from None
    return found


def _visit(node, walk: _Walk) -> None:
    kind = node.kind
    if kind == "command":
        walk.found.append(_simple(node, walk))
    elif kind == "function":
        _visit_function(node, walk)
    elif kind == "redirect":
        walk.found.append(Simple(redirects=[_redirect(node, walk)]))
    elif kind in ("word", "assignment"):
        _word(node, walk)
    elif kind == "parameter":
        _parameter(node)
    else:
        for child in (getattr(node, "parts", None) or []) + (getattr(node, "list", None) or []) \
                + (getattr(node, "redirects", None) or []):
            _visit(child, walk)
        if getattr(node, "command", None) is not None:       # $(...), `...`, <(...)
            _visit(node.command, walk)


def _visit_function(node, walk: _Walk) -> None:
    """A function's body counts as run (it may be called); its name is kept for the fork
    bomb check (a function that calls itself)."""
    name = node.parts[0].word
    start = len(walk.found)
    for child in node.parts[1:]:
        _visit(child, walk)
    for simple in walk.found[start:]:
        simple.function = name


def _simple(node, walk: _Walk) -> Simple:
    simple = Simple()
    for part in node.parts:
        if part.kind == "word":
            simple.words.append(_word(part, walk))
        elif part.kind == "assignment":
            _word(part, walk)
            simple.assigned.append(part.word.split("=", 1)[0].rstrip("+"))
        elif part.kind == "redirect":
            simple.redirects.append(_redirect(part, walk))
        else:
            _visit(part, walk)
    return simple


def _word(node, walk: _Walk) -> Word:
    """The word, after listing the commands its substitutions run. A literal word's text is
    its quotes removed from the source (bashlex's own ``word`` gets mixed quoting such as
    ``'a '"'"'b'"'"''`` wrong); one whose quoting cannot be read counts as not literal."""
    for part in getattr(node, "parts", None) or []:
        _visit(part, walk)
    if getattr(node, "parts", None) or _EXPANDS.search(node.word):
        return Word(node.word, literal=False)
    start, end = node.pos
    try:
        pieces = shlex.split(walk.source[start:end])
    except ValueError:
        pieces = []
    if len(pieces) != 1:
        return Word(node.word, literal=False)
    return Word(pieces[0])


def _parameter(node) -> None:
    value = getattr(node, "value", "") or ""
    if any(mark in value for mark in _RUNS):
        raise Unreadable(f"the expansion ${{{value}}} holds a command bashlex does not read")


def _redirect(node, walk: _Walk) -> Redirect:
    heredoc = getattr(node, "heredoc", None)
    output = node.output
    target = _word(output, walk) if hasattr(output, "kind") else None
    if heredoc is not None:
        body = heredoc.value.rsplit("\n", 1)[0] if "\n" in heredoc.value else ""
        if any(mark in body for mark in ("$(", "`", "${")):
            raise Unreadable("a here-document runs a command substitution")
        return Redirect(node.type, None, body + "\n")
    if node.type == "<<<" and target is not None:
        return Redirect(node.type, None, target.text + "\n")
    return Redirect(node.type, target)

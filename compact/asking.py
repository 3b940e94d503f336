"""Which bash commands run unasked, which are asked about first, and which never run.

Unasked runs only what is plainly read-only: bashlex (a port of bash's parser) reads it, and
every command in it, wherever it stands (pipelines, lists, ``( )``, ``{ }``, ``if``, ``while``,
``$(...)``, ``<(...)``), is a ``SAFE`` program (it changes no file's content, whatever its
arguments) or a ``CHECKED`` one without its writing options and with plain words; redirections
only read or write into ``/dev/null``. All else asks, ``judge(...).ask`` says why: another
program, a quoted, escaped or variable command word, an assignment, ``for``, a function, a
here-document, a ``${...}`` beyond a name, ``$'...'``, what bashlex cannot read. Never run,
even if confirmed (``.never``): ``sudo``, ``shutdown``, ``mkfs``, ``rm -r /`` or ``~``, a device
write, a fork bomb; looked for past wrappers (``timeout 5``) and in their scripts (``bash -c``).
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field

import bashlex

SAFE = frozenset("""cat head tail wc grep egrep fgrep ls echo pwd true false cd stat du df basename
    dirname realpath readlink cut tr diff cmp comm nl od hexdump md5sum sha1sum sha256sum sha512sum
    cksum sleep seq column tac rev fold paste join strings jq whoami id uname printenv nproc which
    yes ps free uptime locale getconf cal touch mkdir :""".split())
CHECKED = {   # program: (short option letters, long options or words) that write or run something
    "find": ("", tuple("-delete -exec -execdir -ok -okdir -fprint -fprint0 -fprintf -fls".split())),
    "sort": ("o", ("--output", "--compress-program")), "date": ("s", ("--set",)),
    "printf": ("v", ()), "test": ("vR", ()), "[": ("vR", ())}
QUIET = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
HARMLESS_DEVICE = re.compile(r"/dev/(?:null|zero|stdin|stdout|stderr|tty|fd/\d+)")
PLAIN_KINDS = frozenset({"list", "pipeline", "compound", "if", "while", "until", "operator",
                         "pipe", "reservedword", "tilde"})
SCRIPT_TAKERS = frozenset("sh bash rbash dash zsh ksh ash eval watch env flock xargs find su".split())
WRAPPERS = frozenset("""timeout nice nohup env command builtin exec eval stdbuf setsid time xargs
    ionice chrt taskset busybox unbuffer watch""".split())
NEVER = frozenset("sudo su doas pkexec shutdown reboot halt poweroff telinit".split())
_SKIPPED = re.compile(r"-.*|\d+[smhd]?|[A-Za-z_]\w*=.*")     # options, durations, NAME=value
_PARAMETER = re.compile(r"[A-Za-z_]\w*|\d|[@*#?$!-]")
_GLOB = re.compile(r"[*?\[{]")
_HOME = re.compile(r"(?:~|\$HOME|\$\{HOME\})/?\*?")
# As text, in a script bashlex cannot read (and its words, split at ; & | ( ) `, quotes dropped)
_NEVER_TEXT = re.compile(r">\s*/dev/(?!(?:null|zero|stdin|stdout|stderr|tty|fd/\d+)(?![\w/.-]))"
                         r"|:\s*\(\s*\)\s*\{")


@dataclass(frozen=True)
class Judgement:
    never: str | None = None          # why it must never run, even if confirmed
    ask: str | None = None            # why it is not plainly read-only (ask first)


@dataclass
class _Reading:
    source: str
    commands: list[list[str]] = field(default_factory=list)    # every command's words
    doubts: list[str] = field(default_factory=list)
    never: list[str] = field(default_factory=list)


def judge(command: str, depth: int = 4) -> Judgement:
    """Whether ``command`` must never run, must be asked about, or may run unasked."""
    reading = _Reading(command, doubts=["$'...' quoting, which /bin/sh reads otherwise"]
                       if "$'" in command else [])
    try:
        if len(command) > 100_000:
            raise ValueError("it is longer than 100,000 characters")
        for tree in bashlex.parse(command):
            _walk(tree, reading)
    except Exception as error:        # bashlex raises many kinds; deep nesting a RecursionError
        pieces = [p.split() for p in re.split(r"[;&|()`\n]", re.sub("[\"']", "", command))]
        never = next((r for words in pieces if (r := _never(words, 0))), None) \
            or ("a device write or a fork bomb" if _NEVER_TEXT.search(command) else None)
        return Judgement(never, "bash's grammar (as bashlex knows it) cannot read it "
                         f"({type(error).__name__}: {str(error)[:200]})")
    never = reading.never + [r for words in reading.commands if (r := _never(words, depth - 1))]
    return Judgement(never[0] if never else None, reading.doubts[0] if reading.doubts else None)


def _walk(node, reading: _Reading) -> None:
    kind = node.kind
    if kind == "command":
        _command(node, reading)
    elif kind == "redirect":
        _redirect(node, reading)
    elif kind == "function":
        _function(node, reading)
    elif kind in ("commandsubstitution", "processsubstitution"):
        if "\n" in (text := _text(node, reading)) or text[-1:] not in (")", "`"):
            raise ValueError("bashlex reads $(...), `...` or <(...) only up to a newline inside it")
        _walk(node.command, reading)
    elif kind == "parameter" and not _PARAMETER.fullmatch(getattr(node, "value", None) or ""):
        reading.doubts.append(f"the expansion {_text(node, reading)} is more than a name")
    elif kind not in PLAIN_KINDS | {"word", "assignment", "parameter"}:
        reading.doubts.append(f"{_text(node, reading)!r} ({kind}) is not a plain read")
    for child in [*getattr(node, "parts", []), *getattr(node, "list", []),
                  *getattr(node, "redirects", [])] if kind not in ("command", "function") else []:
        _walk(child, reading)


def _text(node, reading: _Reading) -> str:
    return reading.source[node.pos[0]:node.pos[1]]


def _function(node, reading: _Reading) -> None:
    name, start = node.parts[0].word, len(reading.commands)
    reading.doubts.append(f"it defines the function {name}")
    for child in node.parts[1:]:
        _walk(child, reading)
    if any(words[:1] == [name] for words in reading.commands[start:]):
        reading.never.append(f"the function {name} calls itself (a fork bomb)")


def _command(node, reading: _Reading) -> None:
    words = [part for part in node.parts if part.kind == "word"]
    for part in node.parts:
        if part.kind == "assignment":
            reading.doubts.append(f"it sets a variable ({_text(part, reading)})")
        _walk(part, reading)
    reading.commands.append([w.word for w in words])
    if words and (doubt := _program(words[0], words[1:], reading)):
        reading.doubts.append(doubt)


def _program(head, args: list, reading: _Reading) -> str | None:
    """Why the command ``head args`` is not plainly read-only, or None."""
    name = head.word
    if head.parts or _text(head, reading) != name:
        return f"the command word {_text(head, reading)!r} is not written plainly"
    if name in SAFE or (name == "exec" and not args):
        return None
    if name not in CHECKED:
        return f"{name} is not a read-only program"
    letters, words = CHECKED[name]
    for arg in args:
        if not _plain(arg, reading):
            return f"{name} gets {_text(arg, reading)!r}, which only bash knows"
        if _writing_option(arg.word, letters, words):
            return f"{name} {arg.word} writes or runs something"
    return None


def _plain(word, reading: _Reading) -> bool:
    """Bash passes ``word`` as written (quotes removed): no expansion, glob or escape."""
    text = _text(word, reading)
    try:
        pieces = shlex.split(text)
    except ValueError:
        return False
    quoted = len(text) > 1 and text[0] == text[-1] and text[0] in "'\""
    return not word.parts and pieces == [word.word] and (quoted or not _GLOB.search(text))


def _writing_option(arg: str, letters: str, words: tuple[str, ...]) -> bool:
    name = arg.split("=", 1)[0]                  # a long option may be abbreviated: --out, --del
    abbreviated = name[:2] == "--" and len(name) > 2 and any(w.startswith(name) for w in words)
    short = arg[:1] == "-" and arg[1:2] != "-" and any(c in letters for c in arg)
    return name in words or abbreviated or short


def _redirect(node, reading: _Reading) -> None:
    target = node.output if hasattr(node.output, "kind") else None
    text = target.word if target is not None else str(node.output)
    if target is not None:
        _walk(target, reading)
        if node.type != "<" and text.startswith("/dev/") and not HARMLESS_DEVICE.fullmatch(text):
            reading.never.append(f"a write into the device {text}")
    if getattr(node, "heredoc", None) is not None:
        reading.doubts.append("a here-document feeds it")
    elif not (node.type in ("<", "<<<") or (target is None and node.type in (">&", "<&"))
              or (target is not None and not target.parts and text in QUIET)):
        reading.doubts.append(f"{node.type} {text} writes a file")


def _never(words: list[str], depth: int) -> str | None:
    """Why the command ``words`` must never run, or None (see the module docstring)."""
    k = next((k for k, w in enumerate(words) if w not in WRAPPERS and not _SKIPPED.fullmatch(w)),
             len(words))
    program, args = os.path.basename(words[k]) if k < len(words) else "", words[k + 1:]
    if program in NEVER or program.startswith("mkfs"):
        return f"{program} acts as another user, on the machine or on a disk"
    recursive = any(a == "--recursive" or re.fullmatch(r"-\w*[rR]\w*", a) for a in args)
    if program in ("rm", "chmod", "chown", "chgrp") and (
            "--no-preserve-root" in args or (recursive and any(map(_is_root, args)))):
        return f"{program} -r on the whole system or home folder"
    if program == "dd" and any(HARMLESS_DEVICE.fullmatch(a[3:]) is None for a in args if a[:8] == "of=/dev/"):
        return "dd writes into a device"
    scripts = [w for w in words if w[:1] != "-" and re.search(r"\s", w)] \
        if SCRIPT_TAKERS & {os.path.basename(w) for w in words} and depth > 0 else []
    return next((j.never for s in scripts if (j := judge(s, depth)).never), None)


def _is_root(target: str) -> bool:
    """``/``, ``//``, ``/.``, ``/*``, ``/usr/..``, ``~``, ``$HOME/*``: the whole system or home."""
    stem = target.removesuffix("*")
    return stem[:1] == "/" and os.path.normpath(stem).strip("/") == "" or bool(_HOME.fullmatch(target))


def ask_on_stdin(command: str) -> bool:
    """The default ``confirm``: ``input()`` (a notebook's text box); no answer, or no stdin, is no."""
    try:
        return input(f"The agent wants to run a command that may change files:\n  {command}\n"
                     "Run it? [y/N] ").strip().lower() in ("y", "yes")
    except Exception:
        return False

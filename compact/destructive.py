"""Which bash commands may delete or overwrite something, judged by bash's own grammar.

``judge(command, root)`` parses the command with bashlex (``shell_syntax``) and looks at every
simple command in it, through keywords, compounds, pipelines, lists, substitutions and
function bodies, and through the common wrappers (``timeout``, ``xargs``, ``env``, ``nice``,
``nohup``, ``command``, ``exec``, ``sudo``, ...; ``wrappers``). ``bash -c``/``sh -lc``
scripts, ``eval`` and a here-document fed to a shell are parsed in turn. It returns the
most serious ``Verdict``: read-only, writes, cannot tell, destructive, or denied (``deny``).

"Cannot tell" (asked, like destructive): a command word that is a variable or substitution
(``x=rm; $x a``), a script the parser cannot read, ``PATH=...`` or ``BASH_ENV`` set, a shell
running a script file or its input, ``source``. What it does not see: what a program does
from its own language (``python -c``, ``awk``'s ``system()``, ``make``, git hooks); such a
program counts as "writes" (``programs``): with the sandbox it still cannot leave the
workspace, without one it is asked (SECURITY.md).
"""

from __future__ import annotations

import os
from pathlib import Path

from .deny import denied_program, denied_target, denied_text
from .programs import FIND_RUNS, Context, exists, find_commands, judge_program
from .shell_syntax import Simple, Unreadable, Word, simple_commands
from .verdict import HARMLESS, Level, Verdict, worst
from .wrappers import unwrap

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash"})
SENSITIVE = frozenset({"PATH", "BASH_ENV", "ENV", "IFS", "LD_PRELOAD", "LD_LIBRARY_PATH",
                       "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS"})
MAX_DEPTH = 8                       # bash -c "bash -c '...'" nested deeper: cannot tell
_WRITING = (">", ">|", "&>", ">&", "<>", "&>>", ">>")


def judge(command: str, root: Path | str = ".", depth: int = 0, moved: bool = False) -> Verdict:
    """The most serious thing ``command`` may do to files (see the module docstring)."""
    if depth > MAX_DEPTH:
        return unknown("shells nested too deeply to read")
    bomb = denied_text(command) if ":(){" in command.replace(" ", "") else None
    if bomb:
        return Verdict(Level.DENIED, bomb)
    try:
        simples = simple_commands(command)
    except Unreadable as error:
        denied = denied_text(command)
        if denied:
            return Verdict(Level.DENIED, denied)
        return unknown(str(error))
    moved = moved or any(s.words and s.words[0].text in ("cd", "pushd", "popd") for s in simples)
    ctx = Context(Path(root), moved=moved)
    return worst([_simple(s, ctx, depth) for s in simples])


def unknown(reason: str) -> Verdict:
    return Verdict(Level.UNKNOWN, f"cannot tell what it does: {reason}")


def is_destructive(command: str, root: Path | str = ".") -> bool:
    """Whether ``command`` may delete or overwrite something, or cannot be told (ask first)."""
    return judge(command, root).level >= Level.UNKNOWN


def _simple(simple: Simple, ctx: Context, depth: int) -> Verdict:
    verdicts = [_redirect(op, target, ctx) for op, target in
                ((r.op, r.target) for r in simple.redirects if r.target is not None)]
    sensitive = [name for name in simple.assigned if name in SENSITIVE]
    if sensitive:
        verdicts.append(unknown(f"it sets {sensitive[0]}, which changes what runs"))
    verdicts.append(_words(simple.words, simple, ctx, depth))
    return worst(verdicts)


def _redirect(op: str, target: Word, ctx: Context) -> Verdict:
    if op not in _WRITING or (op == ">&" and (target.text.isdigit() or target.text == "-")):
        return HARMLESS
    denied = denied_target(target.text)
    if denied:
        return Verdict(Level.DENIED, denied)
    if target.text.startswith("/dev/") and target.literal:
        return HARMLESS
    if not target.literal:
        return unknown(f"it writes to {target.text!r}, a name only bash knows")
    if op in (">>", "&>>"):
        return Verdict(Level.WRITES, f"it appends to {target.text!r}")
    if exists(target, ctx):
        return Verdict(Level.DESTRUCTIVE, f"{op} {target.text} writes over a file")
    return Verdict(Level.WRITES, f"{op} {target.text} writes a new file")


def _words(words: list[Word], simple: Simple, ctx: Context, depth: int) -> Verdict:
    """The verdict on one command's words (the part after NAME=value assignments)."""
    if not words:
        return HARMLESS
    head, args = words[0], words[1:]
    if not head.literal:
        return unknown(f"the command word {head.text!r} is a variable or "
                                      "substitution: what runs is known only when it runs")
    program, texts = os.path.basename(head.text), [a.text for a in args]
    if texts and program in ("export", "declare", "local", "typeset", "readonly"):
        named = [t.split("=", 1)[0] for t in texts if "=" in t]
        if any(name in SENSITIVE for name in named):
            return unknown(f"{program} sets a variable that changes what runs")
    denied = denied_program(program, texts, simple.function)
    if denied:
        return Verdict(Level.DENIED, denied)
    inner = unwrap(program, texts)
    if inner is not None:
        if inner.script is not None:
            if not all(a.literal for a in args):
                return unknown(f"{program} runs a script only bash knows")
            return judge(inner.script, ctx.root, depth + 1, ctx.moved)
        rest = args[len(args) - len(inner.words):] if inner.words else []
        inner_ctx = Context(ctx.root, ctx.moved, ctx.appends or inner.appends)
        return _words(rest, simple, inner_ctx, depth + 1)
    if program in SHELLS:
        return _shell(program, args, simple, ctx, depth)
    if program == "eval":
        if not all(a.literal for a in args):
            return unknown("eval runs text only bash knows")
        return judge(" ".join(texts), ctx.root, depth + 1, ctx.moved)
    if program in ("source", "."):
        return unknown(f"{program} runs a script file that is not read")
    verdicts = [judge_program(program, args, ctx)]
    if program == "find" and any(t in FIND_RUNS for t in texts):
        inner_ctx = Context(ctx.root, ctx.moved, appends=True)
        verdicts += [_words(c, simple, inner_ctx, depth + 1) for c in find_commands(args)]
    return worst(verdicts)


def _shell(program: str, args: list[Word], simple: Simple, ctx: Context, depth: int) -> Verdict:
    """``bash -c SCRIPT``, ``sh -lc SCRIPT``, ``bash FILE``, ``bash <<EOF``: parse what it runs."""
    command_mode, k = False, 0
    while k < len(args) and args[k].text.startswith(("-", "+")) and args[k].text not in ("-", "--"):
        text = args[k].text
        command_mode = command_mode or (not text.startswith("--") and "c" in text[1:])
        k += 2 if text in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file") else 1
    k += 1 if k < len(args) and args[k].text == "--" else 0
    if command_mode:
        if k >= len(args):
            return HARMLESS
        script = args[k]
        if not script.literal:
            return unknown(f"{program} -c runs text only bash knows")
        return judge(script.text, ctx.root, depth + 1, ctx.moved)
    if k < len(args):
        return unknown(f"{program} runs the script file {args[k].text!r}, "
                                      "which is not read")
    if simple.stdin_text is not None:
        return judge(simple.stdin_text, ctx.root, depth + 1, ctx.moved)
    return unknown(f"{program} runs commands from its input")


def ask_on_stdin(command: str) -> bool:
    """The default ``confirm``: ask with ``input()`` (a notebook shows a text box).

    No answer counts as "no": no stdin (pytest, a daemon) or a frontend that cannot ask
    (a widget callback raises StdinNotImplementedError); pass ``confirm=`` there instead.
    """
    try:
        answer = input(f"The agent wants to run a command that may change files:\n  {command}\n"
                       "Run it? [y/N] ")
    except Exception:
        return False
    return answer.strip().lower() in ("y", "yes")

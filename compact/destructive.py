"""Which bash commands may delete or overwrite something, and asking the user about them.

A readable heuristic, not a parser and not a security boundary (SECURITY.md): when it
cannot tell, it says "destructive", so the user is asked.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

# Programs that delete, move or overwrite; ``cp``/``ln``/``tee`` only when they write over
# a file that exists. ``git`` only for the subcommands that drop work.
DESTRUCTIVE = frozenset({"rm", "rmdir", "unlink", "mv", "dd", "shred", "truncate", "chmod",
                         "chown", "chgrp", "kill", "pkill", "killall"})
OVERWRITING = frozenset({"cp", "ln", "install", "tee"})
DESTRUCTIVE_GIT = frozenset({"reset", "clean", "checkout", "restore", "rebase", "rm", "mv",
                             "stash", "branch"})
_WRAPPERS = frozenset({"sudo", "env", "command", "nohup", "time", "nice", "xargs", "exec",
                       "builtin", "busybox"})
_OPERATOR = re.compile(r"&&|\|\||;;|\|&|&>>|&>|>>|>\||>&|<<<|<<|<&|<>|[;&|()<>]")
_SEPARATORS = frozenset({";", "&", "&&", "|", "||", "(", ")", ";;", "|&"})
_OVERWRITE = frozenset({">", ">|", "&>", ">&"})          # not ">>" (append) nor "<" (read)


def _simple_commands(command: str, root: Path) -> tuple[list[list[str]], bool]:
    """The words of each simple command, and whether a redirection overwrites an existing file.

    shlex keeps quoting right; runs of operator characters (``;(``, ``2>&1``) are split
    here, and redirection targets are taken out of the words.
    """
    text = command.replace("\n", ";").replace("`", ";")      # `...` runs a command too
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    overwrites, redirect = False, None
    for token in lexer:
        if not token or not set(token) <= set("();<>|&"):
            if redirect is None:
                commands[-1].append(token)
            elif redirect in _OVERWRITE and token != "/dev/null" and not (
                    redirect == ">&" and token.isdigit()):
                overwrites = overwrites or os.path.lexists(root / token)
            redirect = None
            continue
        for op in _OPERATOR.findall(token):
            if op in _SEPARATORS:
                commands.append([])
                redirect = None
            else:
                redirect = op
                if commands[-1] and commands[-1][-1].isdigit():
                    commands[-1].pop()                        # the "2" of 2>file
    return commands, overwrites


def is_destructive(command: str, root: Path | str = ".") -> bool:
    """Whether ``command`` may delete or overwrite something, so ``confirm`` should be asked.

    A readable heuristic, not a parser (a script or ``python -c`` can still delete files):
    each simple command's program (after ``sudo``/``env``/``xargs``/``VAR=x``) is checked
    against ``DESTRUCTIVE``; ``cp``/``ln``/``tee`` and ``>`` count when they write over an
    existing file; ``git reset/clean/checkout/...``, ``git push --force``, ``find -delete``,
    ``sed -i``/``perl -i`` count too; ``sh -c '...'`` and ``eval`` are looked into.
    A command it cannot split (unbalanced quotes) counts as destructive: when unsure, ask.
    """
    root = Path(root)
    try:
        commands, overwrites = _simple_commands(command, root)
    except ValueError:
        return True
    if overwrites:
        return True
    for words in (w for c in commands for w in _split_exec(c)):
        while words and ("=" in words[0].split("/")[0] or words[0] in _WRAPPERS
                         or words[0].isdigit() or (words[0].startswith("-") and len(words) > 1)):
            words = words[1:]                          # VAR=x, sudo, env, xargs -0, nice -n 5
        if not words:
            continue
        program, args = os.path.basename(words[0]), words[1:]
        if program in DESTRUCTIVE or program.startswith("mkfs"):
            return True
        targets = [a for a in args if not a.startswith("-")][0 if program == "tee" else 1:]
        if program in OVERWRITING and "-a" not in args \
                and any(os.path.lexists(root / a) for a in targets):
            return True
        if program in ("sh", "bash", "zsh", "dash") and "-c" in args[:-1]:
            if is_destructive(args[args.index("-c") + 1], root):
                return True
        if program == "eval" and is_destructive(" ".join(args), root):
            return True
        if program == "find" and "-delete" in args:
            return True
        if program in ("sed", "perl") and any(a.startswith(("-i", "--in-place")) for a in args):
            return True
        if program == "git":
            options_with_value = ("-C", "-c", "--git-dir", "--work-tree")
            sub = next((a for k, a in enumerate(args) if not a.startswith("-")
                        and (k == 0 or args[k - 1] not in options_with_value)), "")
            if sub in DESTRUCTIVE_GIT or (sub == "push" and any(
                    a in ("-f", "--force") or a.startswith("--force") for a in args)):
                return True
    return False


def _split_exec(words: list[str]) -> list[list[str]]:
    """``find . -exec rm {} ;`` holds a second command after ``-exec``."""
    for k, word in enumerate(words):
        if word in ("-exec", "-execdir", "-ok", "-okdir"):
            return [words[:k + 1], *_split_exec(words[k + 1:])]
    return [words]


def ask_on_stdin(command: str) -> bool:
    """The live-mode default ``confirm``: ask with ``input()`` (a notebook shows a text box).

    No answer counts as "no": no stdin (pytest, a daemon) or a frontend that cannot ask
    (a widget callback raises StdinNotImplementedError); pass ``confirm=`` there instead.
    """
    try:
        answer = input(f"The agent wants to run a destructive command:\n  {command}\nRun it? [y/N] ")
    except Exception:
        return False
    return answer.strip().lower() in ("y", "yes")

"""What a known program does to files, judged from its own arguments.

A program named nowhere here is judged ``WRITES`` (it may change files; what it does is not
read: ``python``, ``make``, ``awk``, a script). ``cp``/``tee``/``install``/``rsync``/``ln -f``,
``sort -o``, ``curl -o`` and ``wget -O`` count as destructive only when they write over a file
that exists (``moved``: a ``cd`` in the script, so a relative name cannot be checked, counts
as existing; ``appends``: the command gets arguments it does not show, from ``xargs`` or
``find -exec``, which counts as existing too).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .shell_syntax import Word
from .verdict import HARMLESS, Level, Verdict

READ_ONLY = frozenset({
    "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "echo", "printf", "pwd",
    "true", "false", "test", "[", "stat", "file", "du", "df", "date", "which", "whoami", "id",
    "uname", "printenv", "basename", "dirname", "realpath", "readlink", "cut", "tr", "diff",
    "cmp", "comm", "nl", "od", "hexdump", "md5sum", "sha1sum", "sha256sum", "sha512sum",
    "cksum", "tree", "sleep", "seq", "column", "expr", "cd", "pushd", "popd", ":", "read",
    "export", "set", "unset", "shift", "exit", "return", "local", "declare", "type", "hash",
    "jq", "tac", "rev", "fold", "fmt", "paste", "join", "strings", "locale", "hostname", "nproc",
    "free", "uptime", "ps", "env", "find", "sort", "uniq", "wait", "yes", "cal", "getconf"})
DESTRUCTIVE = frozenset({
    "rm", "rmdir", "unlink", "mv", "dd", "shred", "truncate", "chmod", "chown", "chgrp", "kill",
    "pkill", "killall", "patch", "rename", "srm", "wipe", "fallocate", "chattr", "setfacl",
    "unzip", "sponge"})
OVERWRITING = frozenset({"cp", "ln", "install", "tee", "rsync"})
IN_PLACE = frozenset({"sed", "perl", "ruby"})
_GIT_READS = frozenset({"status", "log", "diff", "show", "blame", "ls-files", "ls-tree",
                        "rev-parse", "rev-list", "grep", "describe", "shortlog", "cat-file",
                        "version", "help"})
_GIT_DROPS = frozenset({"reset", "clean", "checkout", "restore", "rebase", "rm", "mv", "stash",
                        "switch", "apply", "am", "merge", "pull", "cherry-pick", "revert",
                        "worktree", "gc", "prune", "filter-branch", "update-ref", "reflog"})
_GIT_VALUES = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})
_FIND_WRITES = frozenset({"-fprint", "-fprint0", "-fprintf", "-fls"})
FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


@dataclass(frozen=True)
class Context:
    root: Path
    moved: bool = False         # the script changes folder (cd): relative names are unknown
    appends: bool = False       # the command gets arguments it does not show (xargs)


def judge_program(program: str, args: list[Word], ctx: Context) -> Verdict:
    """The verdict on ``program args`` itself (wrappers, shells and ``find -exec``'s inner
    commands are the caller's)."""
    texts = [a.text for a in args]
    if program in DESTRUCTIVE:
        return Verdict(Level.DESTRUCTIVE, f"{program} deletes, moves or overwrites files")
    if program in OVERWRITING:
        return _overwriting(program, args, ctx)
    if program == "git":
        return _git(texts)
    if program in IN_PLACE and any(_short(a, "i") or a.startswith("--in-place") for a in texts):
        return Verdict(Level.DESTRUCTIVE, f"{program} -i edits files in place")
    if program in ("awk", "gawk") and "inplace" in texts:
        return Verdict(Level.DESTRUCTIVE, f"{program} -i inplace edits files in place")
    if program == "tar" and _tar_extracts(texts):
        return Verdict(Level.DESTRUCTIVE, "tar extracts over existing files")
    if program in ("sort", "curl", "wget", "find"):
        written = _output_files(program, args)
        if written:
            return _writes_over(program, written, ctx)
        if program == "find" and "-delete" in texts:
            return Verdict(Level.DESTRUCTIVE, "find -delete deletes files")
    if program == "curl" and any(a in ("-O", "--remote-name", "--remote-name-all") for a in texts):
        return Verdict(Level.UNKNOWN, "curl -O writes a file named by the server")
    if program == "uniq" and len([a for a in texts if not a.startswith("-")]) > 1:
        return _writes_over(program, [a for a in args if not a.text.startswith("-")][1:2], ctx)
    if program in READ_ONLY:
        return HARMLESS
    return Verdict(Level.WRITES, f"{program} may change files (what it does is not judged)")


def _short(arg: str, letter: str) -> bool:
    """``arg`` is a cluster of short options holding ``letter`` (``-i``, ``-Ei``, ``-ni.bak``)."""
    return arg.startswith("-") and not arg.startswith("--") and letter in arg[1:]


def _tar_extracts(args: list[str]) -> bool:
    """``tar xf``, ``tar -xzf``, ``tar --extract``: the first word may be options without a dash."""
    first = args[0] if args else ""
    return ("x" in first.lstrip("-") and not first.startswith("--")) or any(
        _short(a, "x") or a in ("--extract", "--get") for a in args)


def exists(target: Word, ctx: Context) -> bool:
    """Whether writing to ``target`` may replace something (unknown counts as yes)."""
    if not target.literal or ctx.moved or ctx.appends:
        return True
    return os.path.lexists(ctx.root / target.text)


def _writes_over(program: str, targets: list[Word], ctx: Context) -> Verdict:
    for target in targets:
        if exists(target, ctx):
            return Verdict(Level.DESTRUCTIVE, f"{program} writes over {target.text!r}")
    return Verdict(Level.WRITES, f"{program} writes new files")


def _overwriting(program: str, args: list[Word], ctx: Context) -> Verdict:
    texts = [a.text for a in args]
    if program == "ln" and not any(_short(a, "f") or a == "--force" for a in texts):
        return Verdict(Level.WRITES, "ln without -f never replaces a file")
    if program == "rsync" and any(a.startswith(("--delete", "--remove-source")) for a in texts):
        return Verdict(Level.DESTRUCTIVE, "rsync --delete deletes files")
    plain = [a for a in args if not a.text.startswith("-")]
    if program == "tee":
        if any(_short(a, "a") or a == "--append" for a in texts):
            return Verdict(Level.WRITES, "tee -a appends")
        return _writes_over(program, plain, ctx)
    if "-t" in texts or any(a.startswith("--target-directory") for a in texts) or ctx.appends:
        return Verdict(Level.DESTRUCTIVE, f"{program} writes into a folder it names apart")
    if len(plain) < 2:
        return Verdict(Level.WRITES, f"{program} with one name")
    target, sources = plain[-1], plain[:-1]
    folder = target.literal and not ctx.moved and (ctx.root / target.text).is_dir()
    if folder:                                   # cp a b dir/ writes dir/a and dir/b
        inside = [Word(os.path.join(target.text, os.path.basename(s.text.rstrip("/"))),
                       s.literal) for s in sources]
        return _writes_over(program, inside, ctx)
    return _writes_over(program, [target], ctx)


def _output_files(program: str, args: list[Word]) -> list[Word]:
    """The files an option tells ``program`` to write: ``sort -o F``, ``curl -o F``,
    ``wget -O F``, ``find -fprint F``."""
    options = {"sort": ("-o", "--output"), "curl": ("-o", "--output"),
               "wget": ("-O", "--output-document"), "find": tuple(_FIND_WRITES)}[program]
    found = []
    for k, arg in enumerate(args):
        text = arg.text
        if text in options and k + 1 < len(args):
            found.append(args[k + 1])
        elif any(text.startswith(o + "=") for o in options if o.startswith("--")):
            found.append(Word(text.split("=", 1)[1], arg.literal))
    return found


def _git(args: list[str]) -> Verdict:
    k = 0
    while k < len(args) and args[k].startswith("-"):
        k += 2 if args[k] in _GIT_VALUES else 1
    sub, rest = (args[k], args[k + 1:]) if k < len(args) else ("", [])
    if sub == "branch":
        if any(a in ("-d", "-D", "-m", "-M", "-f", "--delete", "--move", "--force") for a in rest):
            return Verdict(Level.DESTRUCTIVE, "git branch -d/-m/-f drops or moves a branch")
        listing = all(a.startswith("-") for a in rest)
        return HARMLESS if listing else Verdict(Level.WRITES, "git branch makes a branch")
    if sub == "stash" and rest[:1] in (["list"], ["show"]):
        return HARMLESS
    if sub in _GIT_DROPS:
        return Verdict(Level.DESTRUCTIVE, f"git {sub} can drop or overwrite work")
    if sub == "push" and any(a in ("-f", "-d", "--delete", "--mirror", "--prune")
                             or a.startswith(("--force", "+", ":")) for a in rest):
        return Verdict(Level.DESTRUCTIVE, "git push --force/--delete drops remote work")
    if sub in _GIT_READS or sub == "":
        return HARMLESS
    return Verdict(Level.WRITES, f"git {sub} changes the repository")


def find_commands(args: list[Word]) -> list[list[Word]]:
    """The commands ``find ... -exec CMD {} ;`` runs (up to ``;`` or ``+``)."""
    commands, k = [], 0
    while k < len(args):
        if args[k].text in FIND_RUNS:
            end = k + 1
            while end < len(args) and args[end].text not in (";", "+"):
                end += 1
            commands.append(args[k + 1:end])
            k = end
        k += 1
    return commands

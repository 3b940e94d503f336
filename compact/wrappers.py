"""Programs that run another command (``timeout 5 rm x``, ``xargs -a list rm``, ``env -S 'rm x'``):
which command they run.

Each wrapper is known by the options that take a value (so ``timeout -k 5 10 rm`` finds
``rm``, not ``5``), how many plain words come before the command (``timeout``'s duration,
``flock``'s file), which option's value is a whole script (``env -S``, ``flock -c``, ``su -c``),
and whether the command gets more arguments it does not show (``xargs``, ``find -exec``).
Shells (``bash -c``) and ``eval`` are read by ``destructive``, which parses their script.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Wrapper:
    values: frozenset[str] = frozenset()      # options whose value is the next word
    positional: int = 0                       # plain words before the command
    scripts: frozenset[str] = frozenset()     # options whose value is a shell script
    appends: bool = False                     # the command gets arguments from stdin
    joined: bool = False                      # the rest is one script (``watch``)
    assignments: bool = False                 # NAME=value words come first (``env``)


def _set(*names: str) -> frozenset[str]:
    return frozenset(names)


WRAPPERS = {
    "timeout": Wrapper(_set("-k", "--kill-after", "-s", "--signal"), positional=1),
    "nice": Wrapper(_set("-n", "--adjustment")),
    "nohup": Wrapper(),
    "env": Wrapper(_set("-u", "--unset", "-C", "--chdir"), scripts=_set("-S", "--split-string"),
                   assignments=True),
    "command": Wrapper(),
    "builtin": Wrapper(),
    "exec": Wrapper(_set("-a")),
    "sudo": Wrapper(_set("-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "--user",
                         "--group", "--chdir", "--host", "--prompt")),
    "doas": Wrapper(_set("-u", "-C")),
    "su": Wrapper(_set("-s", "--shell", "-g", "--group", "-G"), positional=1,
                  scripts=_set("-c", "--command")),
    "xargs": Wrapper(_set("-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "-n",
                          "--max-args", "-P", "--max-procs", "-s", "--max-chars",
                          "--process-slot-var", "--max-lines"), appends=True),
    "parallel": Wrapper(_set("-j", "--jobs", "-a", "--arg-file", "-S", "--sshlogin"),
                        appends=True),
    "time": Wrapper(_set("-f", "--format", "-o", "--output")),
    "stdbuf": Wrapper(_set("-i", "-o", "-e", "--input", "--output", "--error")),
    "setsid": Wrapper(),
    "ionice": Wrapper(_set("-c", "--class", "-n", "--classdata")),
    "taskset": Wrapper(positional=1),
    "chrt": Wrapper(positional=1),
    "nsenter": Wrapper(_set("-t", "--target")),
    "unshare": Wrapper(),
    "flock": Wrapper(_set("-w", "--timeout", "-E", "--conflict-exit-code"), positional=1,
                     scripts=_set("-c", "--command")),
    "watch": Wrapper(_set("-n", "--interval"), joined=True),
    "strace": Wrapper(_set("-o", "-e", "-p", "-s", "-u", "-E", "-a", "-O", "-S", "-P")),
    "ltrace": Wrapper(_set("-o", "-e", "-p", "-s", "-u", "-a", "-n")),
    "busybox": Wrapper(),
    "catchsegv": Wrapper(),
    "unbuffer": Wrapper(),
}


@dataclass(frozen=True)
class Inner:
    """What a wrapper runs: a command's words, or a script to parse."""
    words: tuple[str, ...] = ()
    script: str | None = None
    appends: bool = False


def unwrap(program: str, args: list[str]) -> Inner | None:
    """The command ``program args`` runs, if ``program`` is a known wrapper (else None).

    ``Inner()`` with no words means it runs nothing (``command -v rm`` only prints a path).
    """
    wrapper = WRAPPERS.get(program)
    if wrapper is None:
        return None
    if program == "command" and any(a in ("-v", "-V") for a in args[:1]):
        return Inner()
    k, plain = 0, 0
    while k < len(args):
        word = args[k]
        if word in wrapper.scripts and k + 1 < len(args):
            return Inner(script=args[k + 1])
        if word == "--":
            k += 1
            break
        if word.startswith("-") and plain == 0 and (len(word) > 1 or wrapper.assignments):
            k += 2 if word in wrapper.values else 1          # env's lone "-" is -i
        elif wrapper.assignments and "=" in word.lstrip("="):
            k += 1
        elif plain < wrapper.positional:
            plain, k = plain + 1, k + 1
        else:
            break
    rest = args[k + max(wrapper.positional - plain, 0):]
    if wrapper.joined:
        return Inner(script=" ".join(rest)) if rest else Inner()
    return Inner(tuple(rest), appends=wrapper.appends)

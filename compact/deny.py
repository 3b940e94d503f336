"""Commands never run, even when the user says yes: they reach far past the workspace.

``rm -r`` of ``/`` or ``~`` however it is spelled (``rm -fr /``, ``rm -r -f /``, ``rm -Rf /``,
``rm -rf "/"``, ``/*``, ``//``, ``--no-preserve-root``), the same for ``chmod``/``chown -R``,
running as another user (``sudo``, ``su``, ``doas``), ``shutdown``/``reboot``, ``mkfs``, a
write into a device (``> /dev/sda``, ``dd of=/dev/sda``; not ``/dev/null``, ``/dev/stdout``,
``/dev/stderr``, ``/dev/tty``, ``/dev/fd/N``) and a function that calls itself (a fork bomb).
A script the parser cannot read is checked against the same words as text.
"""

from __future__ import annotations

import os
import re

RUN_AS_OTHER = frozenset({"sudo", "su", "doas", "pkexec"})
POWER = frozenset({"shutdown", "reboot", "halt", "poweroff", "telinit"})
RECURSIVE_ROOT = frozenset({"rm", "chmod", "chown", "chgrp"})
_HOME = re.compile(r"(?:~|\$HOME|\$\{HOME\})/?\*?")
HARMLESS_DEVICE = re.compile(r"/dev/(?:null|zero|stdin|stdout|stderr|tty|fd/\d+)")
# As text, for a script the parser cannot read: a device write, a fork bomb, the words above.
DEVICE_WRITE = re.compile(r">\s*/dev/(?!(?:null|zero|stdin|stdout|stderr|tty|fd/\d+)(?![\w/.-]))")
_WORDS = re.compile(r"(?:^|[\s;&|(`])(?:sudo|su|doas|shutdown|reboot|halt|poweroff|mkfs[.\w]*)"
                    r"(?:$|[\s;&|)`])")


def is_root(target: str) -> bool:
    """``/``, ``//``, ``/.``, ``/*``, ``/usr/..``, ``~``, ``$HOME/*``: the whole system or home."""
    stem = target[:-1] if target.endswith("*") else target
    if stem.startswith("/") and os.path.normpath(stem).strip("/") == "":
        return True
    return bool(_HOME.fullmatch(target))


def _recursive(args: list[str]) -> bool:
    options = args[:args.index("--")] if "--" in args else args
    return any(a == "--recursive" or (a.startswith("-") and not a.startswith("--")
                                      and ("r" in a or "R" in a)) for a in options)


def denied_program(program: str, args: list[str], function: str | None) -> str | None:
    """Why ``program args`` must never run, or None."""
    if program in RUN_AS_OTHER:
        return f"{program} runs commands as another user"
    if program in POWER or program.startswith("mkfs"):
        return f"{program} stops the machine or formats a disk"
    if program == function:
        return f"the function {program} calls itself (a fork bomb)"
    if program in RECURSIVE_ROOT:
        if "--no-preserve-root" in args:
            return f"{program} --no-preserve-root"
        targets = [a for a in args if not a.startswith("-")]
        if _recursive(args) and any(is_root(t) for t in targets):
            return f"{program} -r on the whole system or home folder"
    if program == "dd":
        for arg in args:
            if arg.startswith("of=/dev/") and not HARMLESS_DEVICE.fullmatch(arg[3:]):
                return f"dd writes into the device {arg[3:]}"
    return None


def denied_target(target: str) -> str | None:
    """Why a redirection into ``target`` must never run (a device), or None."""
    if target.startswith("/dev/") and not HARMLESS_DEVICE.fullmatch(target):
        return f"a write into the device {target}"
    return None


def denied_text(command: str) -> str | None:
    """The deny list as text, for a command the parser cannot read (and the fork bomb always)."""
    if ":(){" in command.replace(" ", ""):
        return "a fork bomb"
    if DEVICE_WRITE.search(command):
        return "a write into a device"
    match = _WORDS.search(command)
    if match:
        return f"{match.group().strip(' ;&|()`')} is never run"
    if re.search(r"\brm\b[^;&|]*\s-[a-zA-Z]*[rR][a-zA-Z]*\s+(?:[^;&|]*\s)?[\"']?/[\"']?(?:\s|$)",
                 command):
        return "rm -r on the whole system"
    return None

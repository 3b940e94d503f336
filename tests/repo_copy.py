"""The repository as a fresh clone has it, in a temp folder: for tests of commands that must
leave a clone's working tree clean (`make lab`) or must work from one (`make book`).

The files come from the working tree (tracked and new, never ignored ones), so a test sees
uncommitted changes too; the copy is committed, so `git status` there starts clean.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True,
                          text=True).stdout


def snapshot(dest: Path) -> Path:
    listed = git(REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():                     # a tracked file deleted in the working tree
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "-c", "user.name=test", "-c", "user.email=test@example.invalid",
        "commit", "-q", "-m", "snapshot")
    return dest

"""The caption every benchmark prints: which machine the figures come from."""

from __future__ import annotations

import os
import platform
from pathlib import Path

import anthropic


def machine() -> str:
    """CPU model, cores, Python and SDK version."""
    cpu = platform.processor() or platform.machine()
    info = Path("/proc/cpuinfo")
    if info.is_file():
        cpu = next((line.split(":", 1)[1].strip() for line in info.read_text().splitlines()
                    if line.startswith("model name")), cpu)
    return (f"{cpu}, {os.cpu_count()} cores, {platform.python_implementation()} "
            f"{platform.python_version()}, anthropic {anthropic.__version__}")

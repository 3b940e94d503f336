"""A long, scripted session for comparing strategies: 100 user turns on a small service repo,
from a fixed seed, with probe facts planted along the way. Each probe enters the context once,
at its turn (no strategy gets it back for free), within the first 50,000 chars of its output.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

MODULES = ["app", "billing", "refunds", "accounts", "storage", "api", "auth", "reports",
           "jobs", "utils"]
PROBED = {"app", "auth"}                  # modules holding a probe: read once, at their turn
FILLER_MODULES = [m for m in MODULES if m not in PROBED]
VERBS = ["load", "save", "check", "merge", "split", "render", "post", "fetch", "close", "open"]
NOUNS = ["ledger", "invoice", "refund", "account", "batch", "report", "token", "entry", "queue"]
FILLER = {"read": "Read src/{module}.py", "grep": "Run `grep -n def src/{module}.py`",   # turn k
          "write": "Write notes/step-{k:03d}.md containing 'checked src/{module}.py at turn {k}'",
          "count": "Run `wc -l src/billing.py src/refunds.py src/jobs.py`"}


@dataclass(frozen=True)
class Probe:
    name: str
    text: str          # the exact string that proves the fact survived
    turn: int          # the user turn that puts it in the context


PROBES = [
    Probe("user constraint (turn 2)", "never modify files under vendor/", 2),
    Probe("port in config.toml (turn 4)", "port = 8473", 4),
    Probe("function in src/app.py (turn 7)", "reconcile_ledger_v2", 7),
    Probe("TODO found by grep (turn 12)", "TODO(ana): rotate the signing keys", 12),
    Probe("failing test in a 42 KB test run (turn 25)", "FAILED test_refund_rounding", 25),
    Probe("release tag the user mentions (turn 40)", "v2.7.1-rc3", 40),
    Probe("slow request in a 220 KB log (turn 55)", "request_id=7f3a9c slow 9.8s", 55),
    Probe("decision written to a note (turn 80)", "use sqlite WAL mode", 80),
]


def _module(name: str, rng: random.Random) -> str:
    lines = [f'"""{name}: part of the ledger service used by the long-session workload."""', ""]
    if name == "app":
        lines += ["def reconcile_ledger_v2(entries, statement):",
                  '    """Match ledger entries against a bank statement, newest first."""',
                  "    return sorted(set(entries) & set(statement), reverse=True)", ""]
    if name == "auth":
        lines += ["# TODO(ana): rotate the signing keys before the release", ""]
    for _ in range(rng.randint(22, 30)):
        fn = f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}_{rng.randint(1, 99)}"
        body = [f"    value = {rng.choice(NOUNS)}.get({rng.randint(0, 9)!r})",
                f"    if value is None:\n        return {rng.choice(['None', '0', '[]', 'False'])}",
                f"    return value * {rng.randint(2, 9)}  # {rng.choice(NOUNS)} scaling"]
        lines += [f"def {fn}({rng.choice(NOUNS)}):", f'    """{fn.replace("_", " ")}."""', *body, ""]
    return "\n".join(lines) + "\n"


def _log(rng: random.Random, lines: int, planted: str, at: float) -> str:
    rows = []
    for k in range(lines):
        if k == int(lines * at):
            rows.append(f"2026-11-02T10:{k % 60:02d}:00Z {planted} path=/v1/refunds")
        rows.append(f"2026-11-02T10:{k % 60:02d}:{k % 59:02d}Z request_id={rng.getrandbits(24):06x} "
                    f"GET /v1/{rng.choice(NOUNS)}s/{rng.randint(1, 9999)} 200 {rng.randint(3, 900)}ms")
    return "\n".join(rows) + "\n"


RUN_TESTS = '''"""Prints a long, deterministic test log (the failing test is only in the output)."""
import random

rng = random.Random(25)
for k in range(600):
    print(f"tests/test_{rng.choice(['ledger', 'billing', 'api'])}.py::test_case_{k} PASSED"
          f" [{k * 100 // 600:3d}%] " + "." * 20)
print("=" * 30 + " FAILURES " + "=" * 30)
print("FAILED " + "test_" + "refund_rounding" + " - AssertionError: 10.005 != 10.01")
print("1 failed, 599 passed in 12.34s")
'''


def make_long_workspace(dest: str | Path) -> Path:
    root = Path(dest)
    if root.exists() and any(root.iterdir()):
        raise FileExistsError(f"{root} is not empty; give a new folder for the workload")
    rng = random.Random(8473)
    files = {
        "README.md": "# ledger-service\n\nA small service used by the compaction workload.\n",
        "config.toml": "[server]\nhost = \"127.0.0.1\"\nport = 8473\nworkers = 4\n\n[db]\n"
                       "path = \"ledger.db\"\njournal = \"delete\"\n",
        "vendor/payments_sdk.py": '"""Third-party SDK: do not edit."""\nVERSION = "4.1.0"\n',
        "tools/run_tests.py": RUN_TESTS,
        "logs/access.log": _log(rng, 3_200, "request_id=7f3a9c slow 9.8s", 0.13),
        "logs/worker.log": _log(rng, 1_200, "worker restarted cleanly", 0.5),
        "logs/metrics.log": _log(rng, 1_700, "gc pause 41ms", 0.6),
    }
    for name in MODULES:
        files[f"src/{name}.py"] = _module(name, rng)
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def session_turns() -> list[str]:
    """The 100 user requests, in order."""
    rng = random.Random(100)
    planted = {
        1: "Read README.md",
        2: "Constraint: never modify files under vendor/ in this session.",
        4: "Read config.toml",
        7: "Read src/app.py",
        12: "Run `grep -rn TODO src`",
        25: "Run `python3 tools/run_tests.py`",
        30: "Run `cat logs/worker.log`",
        40: "Remember: the release is tagged v2.7.1-rc3.",
        45: "Run `cat logs/worker.log`",
        55: "Run `cat logs/access.log`",
        60: "Run `cat logs/metrics.log`",
        70: "Run `cat logs/worker.log`",
        80: "Write notes/decision.md containing 'use sqlite WAL mode'",
        85: "Run `cat logs/metrics.log`",
        90: "Run `cat logs/worker.log`",
        95: "Run `cat logs/metrics.log`",
    }
    turns = []
    for k in range(1, 101):
        if k in planted:
            turns.append(planted[k])
            continue
        kind = rng.choice(["read", "read", "read", "grep", "write", "count"])
        turns.append(FILLER[kind].format(module=rng.choice(FILLER_MODULES), k=k))
    return turns

"""``make budgets``: the size budgets of issue #30, measured on the tree as it is now.

It reports; it does not judge: every budget gets a row (what was measured, the limit, ``ok`` or
``OVER``), the functions that break a function rule are listed (the worst ten of each), and the
exit status is 0 whatever it found. How it counts:

- lines as ``wc -l`` counts them (newline characters), in ``.py`` files only (the text catalogs,
  JSON, get a row of their own with no limit); the package is
  ``compact/`` without the copied course files (``compact/demo/files/``), and a module is one
  ``.py`` file there, ``__init__.py`` included;
- a function's length is its body after the docstring, first line to last (as
  ``tests/test_code_shape.py`` counts it), nested functions counted in it and on their own;
- its parameters are the named ones (positional-only, positional, keyword-only), ``self`` and
  ``cls`` not counted, nor ``*args`` and ``**kwargs`` (a pass-through, not one more thing to
  supply);
- what ``import compact.loop`` loads and what ``compact.classroom.__all__`` names are read in a
  fresh interpreter started in the repository, so they are this tree's.

    python tools/budgets.py [FILE]      # FILE: also write the report there, under a title
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "compact"
COPIED = "compact/demo/files"          # the demo course's own files: data for the agent
# The bash tool's files (edit this list as they are merged or renamed).
BASH_TOOL = ("compact/asking.py", "compact/shell.py")   # what only the bash tool uses
MAX_FUNCTION_LINES, MAX_PARAMETERS, WORST = 40, 5, 10
LOADS_PROBE = ("import sys, compact.loop; print(' '.join(sorted(m for m in ('compact.offline', "
               "'compact.study') if m in sys.modules)))")
NAMES_PROBE = "import compact.classroom as c; print(len(c.__all__))"
TITLE = "# The budgets of issue #30 (`make budgets`, `python tools/budgets.py`)"


@dataclass(frozen=True)
class Row:
    what: str
    measured: int | str
    limit: int | str
    holds: bool | None         # None: informational, no limit


@dataclass(frozen=True)
class Function:
    where: str                 # path:line
    name: str
    lines: int
    parameters: int


def lines(path: Path) -> int:
    return path.read_bytes().count(b"\n")


def python_files(root: Path, folder: str, skip: str | None = None) -> list[Path]:
    found = sorted((root / folder).rglob("*.py"))
    return [p for p in found if skip is None or (root / skip) not in p.parents]


def total(paths: list[Path]) -> int:
    return sum(lines(p) for p in paths)


def body_lines(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    body = function.body
    first = body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
            and isinstance(first.value.value, str):
        body = body[1:] or body
    return function.end_lineno - body[0].lineno + 1


def parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    named = function.args.posonlyargs + function.args.args + function.args.kwonlyargs
    return len([a for a in named if a.arg not in ("self", "cls")])


def functions(root: Path, paths: list[Path]) -> list[Function]:
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                where = f"{path.relative_to(root).as_posix()}:{node.lineno}"
                found.append(Function(where, node.name, body_lines(node), parameters(node)))
    return found


def probe(root: Path, code: str) -> str:
    """What ``code`` prints in a fresh interpreter started in ``root`` (its ``compact`` first)."""
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                          timeout=300)
    if done.returncode:
        return f"error: {done.stderr.strip().splitlines()[-1]}"
    return done.stdout.strip()


def at_most(what: str, measured: int, limit: int) -> Row:
    return Row(what, measured, limit, measured <= limit)


def line_rows(root: Path) -> list[Row]:
    package = python_files(root, PACKAGE, skip=COPIED)
    present = [root / name for name in BASH_TOOL if (root / name).is_file()]
    return [
        at_most(f"package lines ({PACKAGE}/ without {COPIED}/)", total(package), 7_000),
        at_most("package modules (.py files)", len(package), 40),
        *(at_most(f"{PACKAGE}/{folder}/ lines", total(python_files(root, f"{PACKAGE}/{folder}")), limit)
          for folder, limit in (("pipeline", 700), ("offline", 2_000), ("classroom", 2_000))),
        at_most(f"the bash tool's lines ({len(present)} of the {len(BASH_TOOL)} files listed)",
                total(present), 400),
        at_most("test lines (tests/)", total(python_files(root, "tests")), 6_000),
        Row(f"text catalogs ({PACKAGE}/locale/, data, not counted above)",
            total(sorted((root / PACKAGE / "locale").glob("*.json"))), "—", None),
    ]


def function_rows(found: list[Function]) -> list[Row]:
    return [at_most(f"functions longer than {MAX_FUNCTION_LINES} lines",
                    sum(f.lines > MAX_FUNCTION_LINES for f in found), 0),
            at_most(f"functions with more than {MAX_PARAMETERS} parameters",
                    sum(f.parameters > MAX_PARAMETERS for f in found), 0)]


def import_rows(root: Path) -> list[Row]:
    loaded = probe(root, LOADS_PROBE)
    names = probe(root, NAMES_PROBE)
    return [Row("modules of compact.offline, compact.study that `import compact.loop` loads",
                loaded or "none", "none", loaded == ""),
            Row("names in compact.classroom.__all__", names, 20, names.isdigit() and int(names) <= 20)]


def worst(found: list[Function], key: str, limit: int) -> list[str]:
    over = sorted((f for f in found if getattr(f, key) > limit), key=lambda f: -getattr(f, key))
    return [f"- {f.where} {f.name}: {getattr(f, key)}" for f in over[:WORST]] or ["- none"]


def number(value: int | str) -> str:
    return f"{value:,}" if isinstance(value, int) else value


def report(root: Path = ROOT) -> str:
    found = functions(root, python_files(root, PACKAGE, skip=COPIED))
    rows = line_rows(root) + function_rows(found) + import_rows(root)
    table = ["| budget | measured | limit | holds |", "|---|---:|---:|---|"]
    held = {True: "ok", False: "OVER", None: "—"}
    table += [f"| {r.what} | {number(r.measured)} | {number(r.limit)} | {held[r.holds]} |" for r in rows]
    return "\n".join([*table, "", f"Longest functions (lines of body, over {MAX_FUNCTION_LINES}):",
                      *worst(found, "lines", MAX_FUNCTION_LINES), "",
                      f"Most parameters (over {MAX_PARAMETERS}):",
                      *worst(found, "parameters", MAX_PARAMETERS)]) + "\n"


def main(argv: list[str]) -> int:
    text = report()
    print(text, end="")
    if argv:
        Path(argv[0]).write_text(f"{TITLE}\n\n{text}", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

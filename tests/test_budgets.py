"""`make budgets` reports every budget of issue #30 in a well-formed table whose numbers are the
tree's (not whether the budgets hold: that is what the report is for)."""

import ast
import re
import subprocess
import sys
from pathlib import Path

from compact import classroom
from tools.budgets import functions

REPO = Path(__file__).resolve().parent.parent
ROW = re.compile(r"^\| (?P<what>[^|]+) \| (?P<measured>[^|]+) \| (?P<limit>[^|]+) \| (?P<holds>ok|OVER) \|$")


def test_the_report_has_a_row_per_budget_and_says_which_hold():
    done = subprocess.run([sys.executable, "tools/budgets.py"], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    rows = {m["what"]: m for m in map(ROW.match, done.stdout.splitlines()) if m}
    assert len(rows) == 11 and "Longest functions" in done.stdout and "Most parameters" in done.stdout
    for row in rows.values():
        measured, limit = (row[k].replace(",", "") for k in ("measured", "limit"))
        if measured.isdigit() and limit.isdigit():
            assert (row["holds"] == "ok") == (int(measured) <= int(limit)), row.group(0)
    counted = subprocess.run("find compact/pipeline -name '*.py' -exec cat {} + | wc -l", shell=True,
                             cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
    assert rows["compact/pipeline/ lines"]["measured"].replace(",", "") == counted
    assert rows["names in compact.classroom.__all__"]["measured"] == str(len(classroom.__all__))


def test_function_lengths_and_parameters_are_counted_as_the_report_says(tmp_path):
    """The body after the docstring; named parameters, not self, *args or **kwargs."""
    body = "\n".join(f"    x{k} = {k}" for k in range(41))
    (tmp_path / "m.py").write_text(f'def long():\n    """Doc,\n    two lines."""\n{body}\n\n\n'
                                   "class C:\n    def wide(self, a, b, /, c, d, *args, e, f, **kw):\n"
                                   "        return a\n")
    found = {f.name: f for f in functions(tmp_path, [tmp_path / "m.py"])}
    assert (found["long"].lines, found["long"].parameters) == (41, 0)
    assert (found["wide"].lines, found["wide"].parameters, found["wide"].where) == (1, 6, "m.py:48")


def test_the_package_never_imports_the_build_tooling():
    """``tools/`` imports ``compact``; ``compact`` (installed without ``tools/``) never imports it."""
    found = []
    for path in sorted((REPO / "compact").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_bytes())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
            found += [f"{path.relative_to(REPO)}:{node.lineno}" for n in names if n.split(".")[0] == "tools"]
    assert found == []

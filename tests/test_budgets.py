"""`make budgets` reports every budget of issue #30 in a well-formed table whose numbers are the
tree's; the package never imports tools/; every function reads at a glance (≤ 50 lines, ≤ 7 named
parameters, counted as the report counts them) and no module sets a private attribute
(``x._name = ...``) on anything but its own ``self``/``cls``."""

import ast
import re
import subprocess
import sys
from pathlib import Path

from compact import classroom
from tools.budgets import COPIED, functions, python_files

REPO = Path(__file__).resolve().parent.parent
ROW = re.compile(r"^\| (?P<what>[^|]+) \| (?P<measured>[^|]+) \| (?P<limit>[^|]+) \| (?P<holds>ok|OVER) \|$")
FILES = python_files(REPO, "compact", skip=COPIED)      # the demo course's programs: the agent's data


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


def test_every_function_reads_at_a_glance():
    long = [f for f in functions(REPO, FILES) if f.lines > 50 or f.parameters > 7]
    assert long == [], "split these functions (≤ 50 lines, ≤ 7 parameters)"


def private_attributes_set_elsewhere(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        found += [f"line {node.lineno}: {ast.unparse(t)} = ..." for t in targets
                  if isinstance(t, ast.Attribute) and t.attr.startswith("_") and not t.attr.startswith("__")
                  and not (isinstance(t.value, ast.Name) and t.value.id in ("self", "cls"))]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and str(node.args[1].value).startswith("_"):
            found.append(f"line {node.lineno}: setattr(..., {node.args[1].value!r}, ...)")
    return found


def test_no_private_attribute_is_set_on_another_object_and_the_package_never_imports_tools():
    """``tools/`` imports ``compact``; ``compact`` (installed without ``tools/``) never imports it."""
    assert private_attributes_set_elsewhere("client._compact_model = 'm'\n") != []
    assert private_attributes_set_elsewhere("setattr(client, '_offline', True)\n") != []
    assert private_attributes_set_elsewhere("self._cache = {}\nclient.model = 'm'\n") == []
    hidden, tools = {}, []
    for path in sorted((REPO / "compact").rglob("*.py")):
        where = path.relative_to(REPO).as_posix()
        if path in FILES and (found := private_attributes_set_elsewhere(path.read_text(encoding="utf-8"))):
            hidden[where] = found            # pass the value explicitly instead
        for node in ast.walk(ast.parse(path.read_bytes())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
            tools += [f"{where}:{node.lineno}" for n in names if n.split(".")[0] == "tools"]
    assert (hidden, tools) == ({}, [])

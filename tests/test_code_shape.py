"""Functions short enough to read at a glance, and no state hidden on other libraries' objects.

A function's body (its docstring aside) is at most 50 lines and it takes at most 7 named
parameters, counted as `make budgets` counts them (tools/budgets.py, tested in test_budgets.py);
no module sets a private attribute (``x._name = ...``) on anything but its own ``self``/``cls``.
"""

import ast
from pathlib import Path

import pytest

from tools.budgets import functions

PACKAGE = Path(__file__).resolve().parent.parent / "compact"
SKIP = PACKAGE / "demo" / "files"          # the demo course's own programs, data for the agent
FILES = [p for p in sorted(PACKAGE.rglob("*.py")) if SKIP not in p.parents]
MAX_LINES, MAX_PARAMETERS = 50, 7


def private_attributes_set_elsewhere(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        for target in targets:
            if isinstance(target, ast.Attribute) and target.attr.startswith("_") \
                    and not target.attr.startswith("__") \
                    and not (isinstance(target.value, ast.Name) and target.value.id in ("self", "cls")):
                found.append(f"line {node.lineno}: {ast.unparse(target)} = ...")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and str(node.args[1].value).startswith("_"):
            found.append(f"line {node.lineno}: setattr(..., {node.args[1].value!r}, ...)")
    return found


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(PACKAGE.parent).as_posix())
def test_every_function_reads_at_a_glance(path):
    long = [f for f in functions(PACKAGE.parent, [path])
            if f.lines > MAX_LINES or f.parameters > MAX_PARAMETERS]
    assert long == [], f"split these functions (≤ {MAX_LINES} lines, ≤ {MAX_PARAMETERS} parameters)"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(PACKAGE.parent).as_posix())
def test_no_private_attribute_is_set_on_another_object(path):
    assert private_attributes_set_elsewhere(path.read_text(encoding="utf-8")) == [], \
        f"{path.name}: pass the value explicitly instead of hiding it on another object"


def test_the_check_sees_a_hidden_attribute():
    assert private_attributes_set_elsewhere("client._compact_model = 'm'\n") != []
    assert private_attributes_set_elsewhere("setattr(client, '_offline', True)\n") != []
    assert private_attributes_set_elsewhere("self._cache = {}\nclient.model = 'm'\n") == []

"""Functions short enough to read at a glance, and no state hidden on other libraries' objects.

Read from the source with ``ast``: a function's body (its docstring aside) is at most 50 lines
and it takes at most 7 parameters (``self``/``cls`` not counted); no module sets a private
attribute (``x._name = ...``) on anything but its own ``self``/``cls``.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "compact"
SKIP = PACKAGE / "demo" / "files"          # the demo course's own programs, data for the agent
FILES = [p for p in sorted(PACKAGE.rglob("*.py")) if SKIP not in p.parents]
MAX_LINES, MAX_PARAMETERS = 50, 7


def functions(tree: ast.AST):
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def body_lines(function: ast.FunctionDef) -> int:
    body = function.body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:] or body
    return function.end_lineno - body[0].lineno + 1


def parameters(function: ast.FunctionDef) -> int:
    a = function.args
    names = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
    names += [p.arg for p in (a.vararg, a.kwarg) if p is not None]
    return len([n for n in names if n not in ("self", "cls")])


def long_functions(source: str) -> list[str]:
    tree = ast.parse(source)
    return [f"{f.name} (line {f.lineno}): {body_lines(f)} lines, {parameters(f)} parameters"
            for f in functions(tree)
            if body_lines(f) > MAX_LINES or parameters(f) > MAX_PARAMETERS]


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
    assert long_functions(path.read_text(encoding="utf-8")) == [], \
        f"{path.name}: split these functions (≤ {MAX_LINES} lines, ≤ {MAX_PARAMETERS} parameters)"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(PACKAGE.parent).as_posix())
def test_no_private_attribute_is_set_on_another_object(path):
    assert private_attributes_set_elsewhere(path.read_text(encoding="utf-8")) == [], \
        f"{path.name}: pass the value explicitly instead of hiding it on another object"


def test_the_checks_see_a_long_function_many_parameters_and_a_hidden_attribute():
    long = "def f():\n    '''doc'''\n" + "    x = 1\n" * 51
    assert long_functions(long) == ["f (line 1): 51 lines, 0 parameters"]
    assert long_functions("def g(self, a, b, c, d, e, f, g, h):\n    pass\n") != []
    assert long_functions("def g(self, a, b, c, d, e, f, g):\n    pass\n") == []
    assert private_attributes_set_elsewhere("client._compact_model = 'm'\n") != []
    assert private_attributes_set_elsewhere("setattr(client, '_offline', True)\n") != []
    assert private_attributes_set_elsewhere("self._cache = {}\nclient.model = 'm'\n") == []

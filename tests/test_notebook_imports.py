"""Every notebook imports the package in one line, ``from compact.classroom import …``, of at most 20
names (issue #30); the rest is reached through three namespaces that only import and re-export."""

import ast
import re
from pathlib import Path

import nbformat
import pytest
from test_notebooks import ALL

import compact.classroom
from compact.classroom import agent, kit, study

PACKAGE_IMPORT = re.compile(r"^[ \t]*(?:from|import)[ \t]+compact\b.*$", re.M)
ONE_LINE = "from compact.classroom import "
# the exercise's switch: the worked solution, until the learner deletes this line
SOLUTION = re.compile(r"from compact\.classroom\.solutions import (\w+) as my_\1"
                      r"  # ← delete this line to check yours")
LANGUAGE = "from compact.classroom import language"      # the Chinese notebooks' language cell


def package_imports(path: Path) -> list[str]:
    """Every line of the notebook's code that imports from the package, solution lines aside."""
    cells = nbformat.read(path, as_version=4).cells
    source = "\n".join(cell.source for cell in cells if cell.cell_type == "code")
    return [line for line in PACKAGE_IMPORT.findall(source) if not SOLUTION.fullmatch(line)]


@ALL
def test_a_notebook_imports_the_package_in_one_line(path):
    lines = package_imports(path)
    if path.parent.name == "zh":
        lines.remove(LANGUAGE)
    assert len(lines) == 1 and lines[0].startswith(ONE_LINE), f"{path.name}: {lines}"
    names = lines[0].removeprefix(ONE_LINE).split(", ")
    assert set(names) <= set(compact.classroom.__all__), f"{path.name}: a name the package does not offer"
    assert len(names) <= 12, f"{path.name} imports {len(names)} names from compact: {sorted(names)}"


def test_the_line_offers_at_most_twenty_names():
    assert len(compact.classroom.__all__) <= 20
    assert [name for name in compact.classroom.__all__ if not hasattr(compact.classroom, name)] == []


@pytest.mark.parametrize("namespace", [agent, kit, study], ids=lambda m: m.__name__)
def test_a_namespace_only_imports_and_names_what_it_offers(namespace):
    tree = ast.parse(Path(namespace.__file__).read_text(encoding="utf-8"))
    docstring, *body = tree.body
    assert isinstance(docstring, ast.Expr) and isinstance(docstring.value, ast.Constant)
    *imports, names = body
    assert all(isinstance(node, ast.ImportFrom) for node in imports)
    assert isinstance(names, ast.Assign) and [t.id for t in names.targets] == ["__all__"]
    imported = {alias.asname or alias.name for node in imports for alias in node.names}
    assert sorted(imported) == sorted(namespace.__all__)

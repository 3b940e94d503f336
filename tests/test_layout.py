"""The folder layout is the architecture: the pipeline imports nothing above it, no circles.

Read from the source with ``ast`` (nothing is imported), so a test failure names the file
and the import that broke the rule.
"""

import ast
import os
import subprocess
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import compact.client as asked
import compact.offline as offline

PACKAGE = Path(__file__).resolve().parent.parent / "compact"
SKIP = PACKAGE / "demo" / "files"          # the demo course's own code, data for the agent


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if SKIP in path.parents:
            continue
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def own_imports(name: str, path: Path) -> list[tuple[str, int, bool]]:
    """(imported compact module, line, inside a function) for every import of the package."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    in_function = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                   for n in ast.walk(f) if n is not f}
    known = modules()
    result = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            candidates = [f"{target}.{a.name}" for a in node.names] + [target]
        elif isinstance(node, ast.Import):
            candidates = [a.name for a in node.names]
        else:
            continue
        for candidate in candidates:
            if candidate in known:
                result.append((candidate, node.lineno, id(node) in in_function))
    return result


def test_the_layers_are_folders():
    names = modules()
    for stage in ("tool_result_budget", "snip_compact", "micro_compact", "compact_history"):
        assert f"compact.pipeline.{stage}" in names, f"stage {stage} needs a file of its name"
    assert "compact.pipeline.compactor" in names and "compact.pipeline.formats" in names
    assert {"compact.classroom", "compact.study", "compact.offline"} <= set(names)


def test_the_pipeline_imports_nothing_above_it():
    for name, path in modules().items():
        if not name.startswith("compact.pipeline"):
            continue
        for target, line, _ in own_imports(name, path):
            assert target.startswith("compact.pipeline"), \
                f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}, above the pipeline"


def reachable(start: str) -> set[str]:
    """The package's modules ``start`` reaches through its imports."""
    known, seen, todo = modules(), set(), [start]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += [t for t, _, _ in own_imports(name, known[name]) if t != name]
    return seen


def test_the_core_imports_none_of_the_extensions():
    for name, path in modules().items():
        if name.startswith("compact.pipeline"):
            for target, line, _ in own_imports(name, path):
                assert not target.startswith("compact.extensions"), \
                    f"{path.relative_to(PACKAGE.parent)}:{line} imports the extension {target}"


def test_the_lessons_pipeline_reads_in_one_sitting():
    """Everything compactor.py reaches totals at most 1,000 lines (issue #30 aims at 700 for the
    whole folder: tools/budgets.py reports it); each stage's file at most 100."""
    known = modules()
    lines = {m: len(known[m].read_text(encoding="utf-8").splitlines())
             for m in reachable("compact.pipeline.compactor")}
    assert sum(lines.values()) <= 1_000, sorted(lines.items(), key=lambda item: -item[1])
    for stage in ("tool_result_budget", "snip_compact", "micro_compact", "compact_history"):
        assert lines[f"compact.pipeline.{stage}"] <= 100, stage


def test_the_offline_model_uses_only_the_pipelines_messages_and_formats():
    allowed = {"compact.pipeline.messages", "compact.pipeline.formats"}
    for name, path in modules().items():
        if not name.startswith("compact.offline"):
            continue
        for target, line, _ in own_imports(name, path):
            assert target.startswith("compact.offline") or target in allowed, \
                f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}"


def test_no_import_circle_and_none_hidden_in_a_function():
    graph = {}
    for name, path in modules().items():
        imports = own_imports(name, path)
        hidden = [(t, line) for t, line, inside in imports if inside]
        assert hidden == [], f"{path.relative_to(PACKAGE.parent)} imports {hidden} inside a function"
        graph[name] = {t for t, _, _ in imports if t != name}
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as error:
        raise AssertionError(f"import circle: {' -> '.join(error.args[1])}") from None


def test_the_checker_sees_a_circle_and_a_reach_upward(tmp_path):
    """The rules above can fail: a planted upward import is caught by the same reader."""
    fake = tmp_path / "compact" / "pipeline"
    fake.mkdir(parents=True)
    (fake / "x.py").write_text("from ..loop import agent_loop\ndef f():\n    from . import y\n")
    global PACKAGE
    saved, PACKAGE = PACKAGE, tmp_path / "compact"
    try:
        (tmp_path / "compact" / "loop.py").write_text("")
        (fake / "y.py").write_text("")
        imports = own_imports("compact.pipeline.x", fake / "x.py")
    finally:
        PACKAGE = saved
    assert ("compact.loop", 1, False) in imports and ("compact.pipeline.y", 3, True) in imports


def readme_tree() -> set[str]:
    """Module paths listed in the package tree of docs/package.md (``compact/`` code block)."""
    text = (PACKAGE.parent / "docs" / "package.md").read_text(encoding="utf-8")
    block = text.split("```\ncompact/\n", 1)[1].split("```", 1)[0]
    listed, folders = set(), []
    for line in block.splitlines():
        depth = (len(line) - len(line.lstrip(" "))) // 2 - 1
        names = line.strip().split("  ")[0]          # the names, before the description
        folders = folders[:depth]
        for word in (w.strip() for w in names.split(",")):
            if word.endswith("/"):
                folders.append(word.rstrip("/"))
            elif word.endswith(".py"):
                listed.add("/".join(["compact", *folders, word]))
    return listed


def test_the_readme_tree_lists_every_module():
    files = {p.relative_to(PACKAGE.parent).as_posix() for p in modules().values()
             if p.name != "__init__.py"}
    listed = readme_tree()
    assert files - listed == set(), "modules missing from the package tree in docs/package.md"
    assert listed - files == set(), "the package tree in docs/package.md names files that do not exist"


def test_the_agent_loop_loads_neither_the_offline_model_nor_the_study():
    """``import compact.loop`` (and so ``import compact``) leaves the offline model unloaded until
    ``make_client`` needs it; the study is never loaded by the agent."""
    probe = ("import sys, compact.loop; print(sorted({m.split('.')[1] for m in sys.modules "
             "if m.startswith('compact.') and m.split('.')[1] in ('offline', 'study', 'classroom')}))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"
    probe = "import sys, compact; compact.make_client(quiet=True); print('compact.offline' in sys.modules)"
    used = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                          env={k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"})
    assert used.stdout.strip() == "True"


def test_the_client_asks_by_the_names_the_offline_model_answers_with():
    """compact/client.py (what the client asks) and the offline model agree."""
    assert (asked.MODEL_NAME, asked.HEADER, asked.IN_PROCESS_URL, asked.AGENT_MAX_TOKENS) == \
        (offline.MODEL_NAME, offline.HEADER, offline.IN_PROCESS_URL, offline.AGENT_MAX_TOKENS)

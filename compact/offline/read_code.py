"""Source code read by its structure: docstring, classes, functions, constants, paths.

Python that parses whole is read with ``ast``; anything else (other languages, a preview,
an excerpt with its middle left out) falls back to line patterns, and the facts then say
they come from partial text ("at least"), never that something is absent.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from .phrases import labelled, phrase
from .read_effects import Effects, effect_parts, read_effects
from .read_effects_lines import read_effects_lines

_DOCSTRING = re.compile(r'^\s*(?:#[^\n]*\n\s*)*[rRuU]?("""|\'\'\')(.*?)(?:\1|$)', re.DOTALL)
_PATH_WORD = re.compile(r"^[\w.~{}…*-]*(?:/[\w.{}…*-]*)*$")
_EXTENSIONS = ("md", "json", "jsonl", "txt", "py", "yaml", "yml", "toml", "log", "db",
               "sqlite", "csv", "ini", "cfg", "html", "js", "ts")
_SIMPLE_NAME = re.compile(r"^\.?[A-Za-z0-9_-]*[A-Za-z0-9](?:\.[A-Za-z0-9]+)?$")
_SUFFIXES = ("tmp", "bak", "lock", "part", "swp", "old", "new", "orig")
_FUNCTION_LINE = re.compile(
    r"^([ \t]*)(?:async\s+)?(?:def|fn|func|function)\s+([A-Za-z_]\w*)"
    r"|^([ \t]*)(?:export\s+)?(?:const|let|var)\s+([A-Za-z_]\w*)\s*=\s*(?:async\s*)?\(", re.M)
_CLASS_LINE = re.compile(r"^([ \t]*)(?:export\s+)?(?:class|struct|interface|type)\s+([A-Za-z_]\w*)",
                         re.M)
_CONSTANT_LINE = re.compile(r"^(?:export\s+)?(?:const\s+)?([A-Z][A-Z0-9_]{2,})\s*(?::[^=]+)?=\s*"
                            r"([^\n]{1,60})", re.M)
_STRING = re.compile(r"""["']([^"'\n]{2,80})["']""")
# Labels of a note's parts that other skills read back (``compare``).
CONSTANTS_LABEL = "constants:"
PATHS_LABEL = "files and folders it names:"


@dataclass
class CodeFacts:
    language: str
    whole: bool                         # parsed as a whole by ast
    lines: int
    docstring: str | None = None
    classes: list[tuple[str, list[str]]] = field(default_factory=list)   # name, methods
    functions: list[str] = field(default_factory=list)
    constants: list[tuple[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    effects: Effects = field(default_factory=Effects)   # writes, model request, errors


def language_of(path: str) -> str:
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    return {"py": "Python", "js": "JavaScript", "ts": "TypeScript", "go": "Go", "rs": "Rust",
            "java": "Java", "rb": "Ruby", "c": "C", "cpp": "C++", "h": "C"}.get(suffix, suffix)


def first_paragraph(doc: str) -> str:
    lines = []
    for line in doc.strip().splitlines():
        if not line.strip():
            if lines:
                break
            continue
        lines.append(line.strip())
    return " ".join(lines)


def is_path_like(text: str, component: bool = False) -> bool:
    """A string constant that names a file or folder (``.transcripts``, ``memory/notes.md``).

    Bare extensions (``.txt``), format specs (``.0f``), suffixes (``.notes-``) and names
    that are mostly ``{…}`` placeholders are not paths.
    """
    if not text or " " in text or len(text) > 80 or not _PATH_WORD.match(text):
        return False
    letters = re.sub(r"\{…\}|[^A-Za-z0-9]", "", text)
    if component and _SIMPLE_NAME.match(text) and len(letters) >= 2:
        return True         # a folder or file name joined with ``/`` to a path
    name = text.rstrip("/").rsplit("/", 1)[-1]
    stem, dot, ext = name.rpartition(".")
    if dot and ext.lower() in _EXTENSIONS:
        return len(re.sub(r"\{…\}|\*|[^A-Za-z0-9]", "", stem)) >= 2 or "/" in text
    if "/" in text.strip("/") or (text.endswith("/") and len(letters) >= 2):
        return True
    return (text.startswith(".") and len(text) > 3 and text[1].isalpha()
            and text[1:].replace("_", "").replace("-", "").isalnum()
            and not text.endswith(("-", "_")) and text[1:].lower() not in _SUFFIXES)


def _literal(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{…}" for v in node.values)
    return None


_PATH_CALLS = ("Path", "pathlib.Path", "PurePath", "PosixPath", "os.path.join")


def _path_value(node: ast.AST, env: dict[str, str]) -> str | None:
    """The path an expression builds, as far as its literals tell:
    ``ROOT / ".task_outputs" / "tool-results"`` → ``.task_outputs/tool-results``,
    ``STATE / "results"`` with ``STATE = Path(".agent")`` → ``.agent/results``."""
    text = _literal(node)
    if text is not None:
        return text
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.Call) and node.args and not node.keywords:
        try:
            function = ast.unparse(node.func)
        except (AttributeError, ValueError, RecursionError):
            return None
        if function in _PATH_CALLS:
            parts = [_path_value(a, env) for a in node.args]
            return "/".join(parts) if all(parts) else None
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        right = _path_value(node.right, env)
        if right is None:
            return None
        left = _path_value(node.left, env)
        return f"{left.rstrip('/')}/{right}" if left else right
    return None


def _is_path_expression(node: ast.AST) -> bool:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return True
    if isinstance(node, ast.Call):
        try:
            return ast.unparse(node.func) in _PATH_CALLS
        except (AttributeError, ValueError, RecursionError):
            return False
    return False


def _short(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except (AttributeError, ValueError, RecursionError):
        return "…"
    return text if len(text) <= 40 else text[:39] + "…"


def _read_python(text: str) -> CodeFacts | None:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    facts = CodeFacts("Python", True, text.count("\n") + 1)
    doc = ast.get_docstring(tree)
    facts.docstring = first_paragraph(doc) if doc else None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            facts.functions.append(node.name)
        elif isinstance(node, ast.ClassDef):
            methods = [n.name for n in node.body
                       if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
            facts.classes.append((node.name, methods))
            facts.constants += [(f"{node.name}.{n}", v) for n, v in _constants(node.body)]
    # Numbers first (the settings); stable, so module constants stay before class ones.
    facts.constants = sorted(_constants(tree.body) + facts.constants, key=lambda item: not item[1]
                             .replace("_", "").replace(".", "").isdigit())
    env: dict[str, str] = {}
    for node in tree.body:              # module-level names bound to a path
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = _path_value(node.value, env) if _is_path_expression(node.value) else None
            for target in targets:
                if isinstance(target, ast.Name) and value:
                    env[target.id] = value
    paths: list[str] = []
    inner: set[int] = set()
    for node in ast.walk(tree):
        if id(node) in inner:
            continue
        if _is_path_expression(node):
            inner |= {id(n) for n in ast.walk(node) if n is not node}
            value = _path_value(node, env)
            if value and all(is_path_like(p, component=True) for p in value.split("/") if p):
                paths.append(value)
        elif isinstance(node, (ast.Constant, ast.JoinedStr)):
            value = _literal(node)
            if value and is_path_like(value):
                paths.append(value)
    facts.paths = _dedupe_paths(paths)
    facts.effects = read_effects(tree, env, _path_value)
    return facts


_BULKY = (ast.Dict, ast.List, ast.Set, ast.Tuple, ast.JoinedStr, ast.Lambda, ast.ListComp,
          ast.DictComp, ast.SetComp, ast.GeneratorExp)


def _constants(body: list[ast.stmt]) -> list[tuple[str, str]]:
    """UPPER_CASE names bound to a number, a string, a path, in the order they are bound."""
    found = []
    for node in body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) and node.value else [])
        if not targets or isinstance(node.value, _BULKY):
            continue
        for target in targets:
            if isinstance(target, ast.Name) and target.id.isupper() and len(target.id) > 2:
                found.append((target.id, _short(node.value)))
    return found


def _dedupe_paths(paths: list[str]) -> list[str]:
    """Keep each path once; a component already inside a longer path is dropped."""
    unique = list(dict.fromkeys(p for p in paths if p.strip("/.")))
    return [p for p in unique if not any(p != q and ("/" + p.strip("/")) in ("/" + q) for q in unique)]


def _read_lines(text: str, language: str) -> CodeFacts:
    facts = CodeFacts(language, False, text.count("\n") + 1)
    match = _DOCSTRING.match(text)
    if match and match.group(2).strip():
        facts.docstring = first_paragraph(match.group(2))
    classes: list[tuple[str, list[str]]] = []
    class_indent = None
    events = sorted([(m.start(), "class", m.group(1), m.group(2)) for m in _CLASS_LINE.finditer(text)]
                    + [(m.start(), "def", m.group(1) if m.group(2) else m.group(3),
                        m.group(2) or m.group(4)) for m in _FUNCTION_LINE.finditer(text)])
    for _, what, indent, name in events:
        if what == "class":
            classes.append((name, []))
            class_indent = len(indent)
        elif class_indent is not None and len(indent) > class_indent and classes:
            classes[-1][1].append(name)
        elif not indent:
            facts.functions.append(name)
            class_indent = None
    facts.classes = classes
    facts.constants = [(n, v.strip()) for n, v in _CONSTANT_LINE.findall(text)]
    facts.paths = _dedupe_paths([s for s in _STRING.findall(text) if is_path_like(s)])
    facts.effects = read_effects_lines(text)
    return facts


def read_code(text: str, path: str = "") -> CodeFacts:
    language = language_of(path) or "code"
    if language == "Python":
        whole = _read_python(text)
        if whole is not None:
            return whole
    return _read_lines(text, language)


def _names(names: list[str], limit: int) -> str:
    return ", ".join(names[:limit]) + (", …" if len(names) > limit else "")


def describe_code(text: str, path: str = "", partial: str = "", lang: str = "en") -> str:
    """One line of facts. ``partial`` says how the text was cut (then counts are minimums)."""
    facts = read_code(text, path)
    least = phrase("at_least", lang) if not facts.whole or partial else ""
    parts = [phrase("lines", lang, language=facts.language, n=facts.lines)
             + (phrase("parsed_whole", lang) if facts.whole and not partial
                else phrase("partial_paren", lang, how=partial or phrase("line_by_line", lang)))]
    parts.append(phrase("docstring", lang, text=facts.docstring[:200]) if facts.docstring
                 else phrase("no_docstring", lang) + (phrase("in_text_seen", lang) if least else ""))
    parts += effect_parts(facts.effects, phrase("in_part_seen", lang) if least else "", lang)
    if facts.classes:
        shown = [phrase("methods", lang, name=name, names=_names(methods, 24)) if methods else name
                 for name, methods in facts.classes[:6]]
        parts.append(phrase("classes", lang, least=least, n=len(facts.classes),
                            s="es" if len(facts.classes) != 1 else "", names="; ".join(shown)))
    if facts.functions:
        parts.append(phrase("functions", lang, least=least, n=len(facts.functions),
                            s="s" if len(facts.functions) != 1 else "",
                            names=_names(facts.functions, 24)))
    if not facts.classes and not facts.functions:
        parts.append(phrase("no_definitions_seen" if least else "no_definitions", lang))
    if facts.constants:
        shown = [phrase("constant", lang, name=n, value=v) for n, v in facts.constants[:12]]
        parts.append(labelled("constants", lang, ", ".join(shown)
                              + (", …" if len(facts.constants) > 12 else "")))
    if facts.paths:
        parts.append(labelled("paths_named", lang, _names(facts.paths, 14)))
    return phrase("sep", lang).join(parts)

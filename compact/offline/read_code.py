"""Source code read by its structure: definitions, constants, paths, what it writes, sends a
model and raises. Python that parses is read with ``ast``; else line by line ("at least")."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from itertools import takewhile

from .markers import CLIPPED
from .phrases import labelled, listed, phrase

GIVEN_PATH = "a path it is given"
_WRITE_MODES = re.compile(r"[wax+]")
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass
class Effects:
    entry_point: str | None = None
    writes: list[tuple[str, str]] = field(default_factory=list)    # (path, function)
    system: list[str] = field(default_factory=list)                # what system= is made from
    messages: list[str] = field(default_factory=list)              # functions that rebuild it
    texts: list[str] = field(default_factory=list)                 # put in a "content"
    catches: list[tuple[str, str]] = field(default_factory=list)   # (exception, function)
    raises: list[tuple[str, str]] = field(default_factory=list)
    model_call: bool = False


def _unparse(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except (AttributeError, ValueError, RecursionError):
        return "…"


def _first_line(text: str) -> str:
    line = next((part for part in text.splitlines() if part.strip()), "").strip()
    line = line.replace("; ", ", ")            # a note's parts are joined by "; "
    return line if len(line) <= 60 else line[:59] + "…"


def _literal(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{…}" for v in node.values)
    return None


def _text(node: ast.AST, strings: dict[str, str]) -> str | None:
    """The text an expression holds: a literal, a module string, ``"[Marker]\n" + rest``."""
    if _literal(node) is not None:
        return _literal(node)
    if isinstance(node, ast.Name):
        return strings.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left, strings), _text(node.right, strings)
        return None if left is None and right is None else (left or "{…}") + (right or "{…}")
    return None


def _local_env(function: ast.AST, env: dict[str, str]) -> dict[str, str]:
    """The module's paths, plus the function's defaults and assignments that build a path."""
    local = dict(env)
    arguments = function.args
    positional = arguments.posonlyargs + arguments.args
    pairs = list(zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults,
                     strict=True))
    pairs += [(a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d]
    for argument, default in pairs:
        if value := _path_value(default, local):
            local[argument.arg] = value
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            if value := _path_value(node.value, local):
                local[node.targets[0].id] = value
    return local


def _write_target(call: ast.Call) -> ast.AST | None:
    """The path a call writes to, or None when it writes nothing."""
    name = _unparse(call.func)
    attribute = call.func.attr if isinstance(call.func, ast.Attribute) else ""
    mode = next((k.value for k in call.keywords if k.arg == "mode"), None)
    if attribute in ("write_text", "write_bytes"):
        return call.func.value
    if name in ("open", "io.open", "codecs.open") and call.args:
        mode = call.args[1] if len(call.args) > 1 else mode
        writes = isinstance(mode, ast.Constant) and isinstance(mode.value, str) \
            and _WRITE_MODES.search(mode.value)
        return call.args[0] if writes else None
    return None


def _function_effects(name: str, function: ast.AST, env: dict[str, str], effects: Effects) -> None:
    local = _local_env(function, env)
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            target = _write_target(node)
            if target is not None:
                effects.writes.append((_path_value(target, local) or GIVEN_PATH, name))
        elif isinstance(node, ast.ExceptHandler):
            types = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            effects.catches += [(_unparse(e) if e else "every exception (a bare except)", name)
                                for e in types]
        elif isinstance(node, ast.Raise) and node.exc:    # a bare ``raise`` passes on the caught
            raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            effects.raises.append((_unparse(raised), name))


def _made_from(node: ast.AST, strings: dict[str, str]) -> list[str]:
    """What an expression is made from: the functions it calls, else the names it reads, else its text."""
    calls = [_unparse(n.func) + "()" for n in ast.walk(node) if isinstance(n, ast.Call)]
    if calls:
        return calls[:3]
    names = [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]
    text = _text(node, strings)
    return names[:3] or ([f"the text “{_first_line(text)[:40]}”"] if text else [])


def _rebuilt_by(tree: ast.Module, name: str) -> list[str]:
    """Functions whose result is assigned to ``name`` (or ``name[:]``) anywhere."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
            continue
        for target in node.targets:
            base = target.value if isinstance(target, ast.Subscript) else target
            if isinstance(base, ast.Name) and base.id == name:
                found.append(_unparse(node.value.func))
    return found


def _model_requests(tree: ast.Module, strings: dict[str, str], effects: Effects) -> None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            keywords = {k.arg: k.value for k in node.keywords if k.arg}
            if "messages" not in keywords:
                continue
            effects.model_call = True
            if "system" in keywords:
                effects.system += _made_from(keywords["system"], strings)
            if isinstance(keywords["messages"], ast.Name):
                effects.messages += _rebuilt_by(tree, keywords["messages"].id)
        elif isinstance(node, ast.Dict):
            _content_texts(zip(node.keys, node.values, strict=True), strings, effects)
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript):
            _content_texts([(node.targets[0].slice, node.value)], strings, effects)


def _content_texts(pairs, strings: dict[str, str], effects: Effects) -> None:
    """The texts put in a "content": ``{"content": text}``, ``message["content"] = text``."""
    for key, value in pairs:
        text = _text(value, strings) if isinstance(key, ast.Constant) and key.value == "content" \
            else None
        if text and re.search(r"\w", text.replace("{…}", "")):
            effects.texts.append(_first_line(text))


def read_effects(tree: ast.Module, env: dict[str, str]) -> Effects:
    """``env``: module names bound to paths."""
    strings = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
               and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
               for t in n.targets if isinstance(t, ast.Name)}
    effects = Effects()
    module_env = {**strings, **env}
    for node in tree.body:      # top-level functions, and methods as ``Class.method``
        if isinstance(node, ast.If) and "__name__" in _unparse(node.test) \
                and "__main__" in _unparse(node.test):
            effects.entry_point = effects.entry_point or 'if __name__ == "__main__"'
        for function in node.body if isinstance(node, ast.ClassDef) else [node]:
            if isinstance(function, _FUNCTIONS):
                name = function.name if function is node else f"{node.name}.{function.name}"
                _function_effects(name, function, module_env, effects)
    if any(isinstance(n, _FUNCTIONS) and n.name == "main" for n in tree.body):
        effects.entry_point = effects.entry_point or "main()"
    _model_requests(tree, strings, effects)
    return effects


def _grouped(pairs: list[tuple[str, str]], limit: int) -> str:
    """``a (f, g), b (h)``: each first item once, with where it happens."""
    places: dict[str, dict[str, None]] = {}
    for item, function in pairs:
        places.setdefault(item, {})[function] = None
    return listed([f"{item} ({listed(list(fs), 4)})" for item, fs in places.items()], limit)


def effect_parts(effects: Effects, seen: str = "", lang: str = "en") -> list[str]:
    """The note's parts for ``effects``; ``seen`` says they come only from part of the text."""
    parts = []
    if effects.entry_point:
        parts.append(labelled("entry", lang, effects.entry_point))
    if effects.writes:
        given = [(phrase("given_path", lang) if item == GIVEN_PATH else item, where)
                 for item, where in effects.writes]
        parts.append(labelled("writes", lang, seen + _grouped(given, 6)))
    if effects.model_call or effects.texts:
        said = [phrase(key, lang, names=listed(list(dict.fromkeys(items)), n)) for key, items, n
                in (("system_from", effects.system, 3), ("messages_from", effects.messages, 6),
                    ("content_texts", [f"“{t}”" for t in effects.texts], 4)) if items]
        parts.append(labelled("model_request", lang, seen + " / ".join(said)))
    errors = [phrase(key, lang, items=_grouped(items, n)) for key, items, n in (
        ("catches", effects.catches, 5), ("raises", effects.raises, 4)) if items]
    if errors:
        parts.append(labelled("errors", lang, seen + " / ".join(errors)))
    return parts


_LINE_WRITES = re.compile(r"open\(\s*([\w.\"'/-]+)\s*,\s*(?:mode\s*=\s*)?[\"'][^\"']*[wax+]|"
                          r"([\w.]+)\.(?:write_text|write_bytes)\(|"
                          r"([\w.]+)\.open\(\s*(?:mode\s*=\s*)?[\"'][^\"']*[wax+]")
_LINE_EXCEPT = re.compile(r"^\s*except\s*\(?([\w., ]+?)\)?(?:\s+as\s+\w+)?\s*:", re.M)
_LINE_RAISE = re.compile(r"^\s*raise\s+([\w.]+)", re.M)
_LINE_SYSTEM = re.compile(r"\bsystem\s*=\s*([\w.]+)(\()?")
_LINE_MESSAGES = re.compile(r"\bmessages(?:\[:\])?\s*=\s*([\w.]+)\(")


def read_effects_lines(text: str) -> Effects:
    """The same facts from lines: what the text seen shows, names as written."""
    starts = [(m.start(), m.group(2)) for m in _FUNCTION_LINE.finditer(text) if m.group(2)]

    def where(position: int) -> str:
        return next((name for start, name in reversed(starts) if start < position), "module")
    effects = Effects()
    if re.search(r"^if __name__ == [\"']__main__[\"']", text, re.M):
        effects.entry_point = 'if __name__ == "__main__"'
    for match in _LINE_WRITES.finditer(text):
        target = next(g for g in match.groups() if g).strip("\"'")
        effects.writes.append((target, where(match.start())))
    for match in _LINE_EXCEPT.finditer(text):
        effects.catches += [(e.strip(), where(match.start())) for e in match.group(1).split(",")
                            if e.strip()]
    effects.raises = [(m.group(1), where(m.start())) for m in _LINE_RAISE.finditer(text)]
    systems = _LINE_SYSTEM.findall(text)
    effects.system = [name + ("()" if call else "") for name, call in systems]
    effects.messages = _LINE_MESSAGES.findall(text)
    effects.model_call = bool(re.search(r"\bmessages\s*=", text)) and bool(systems)
    return effects


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
_LANGUAGES = {"py": "Python", "js": "JavaScript", "ts": "TypeScript", "go": "Go", "rs": "Rust",
              "java": "Java", "rb": "Ruby", "c": "C", "cpp": "C++", "h": "C"}


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


def first_paragraph(doc: str) -> str:
    return " ".join(line.strip() for line in takewhile(str.strip, doc.strip().splitlines()))


def is_path_like(text: str, component: bool = False) -> bool:
    """A string constant that names a file or folder (``.transcripts``, ``memory/notes.md``)."""
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
        parts = [_path_value(a, env) for a in node.args] if _unparse(node.func) in _PATH_CALLS else [None]
        return "/".join(parts) if all(parts) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        right = _path_value(node.right, env)
        if right is None:
            return None
        left = _path_value(node.left, env)
        return f"{left.rstrip('/')}/{right}" if left else right
    return None


def _is_path_expression(node: ast.AST) -> bool:
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)) or (
        isinstance(node, ast.Call) and _unparse(node.func) in _PATH_CALLS)


def _bound(body: list[ast.stmt]):
    """Each assignment at this level: the names it binds, and the value's expression."""
    for node in body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            yield [t.id for t in targets if isinstance(t, ast.Name)], node.value


def _module_paths(tree: ast.Module) -> dict[str, str]:
    """Module-level names bound to a path expression, and the path each builds."""
    env: dict[str, str] = {}
    for names, value in _bound(tree.body):
        if _is_path_expression(value) and (path := _path_value(value, env)):
            env.update(dict.fromkeys(names, path))
    return env


def _read_python(text: str) -> CodeFacts | None:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    facts = CodeFacts("Python", True, len(text.splitlines()))
    doc = ast.get_docstring(tree)
    facts.docstring = first_paragraph(doc) if doc else None
    for node in tree.body:
        if isinstance(node, _FUNCTIONS):
            facts.functions.append(node.name)
        elif isinstance(node, ast.ClassDef):
            methods = [n.name for n in node.body if isinstance(n, _FUNCTIONS)]
            facts.classes.append((node.name, methods))
            facts.constants += [(f"{node.name}.{n}", v) for n, v in _constants(node.body)]
    # Numbers first (the settings); stable, so module constants stay before class ones.
    facts.constants = sorted(_constants(tree.body) + facts.constants, key=lambda item: not item[1]
                             .replace("_", "").replace(".", "").isdigit())
    env = _module_paths(tree)
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
    facts.effects = read_effects(tree, env)
    return facts


_BULKY = (ast.Dict, ast.List, ast.Set, ast.Tuple, ast.JoinedStr, ast.Lambda, ast.ListComp,
          ast.DictComp, ast.SetComp, ast.GeneratorExp)


def _constants(body: list[ast.stmt]) -> list[tuple[str, str]]:
    """UPPER_CASE names bound to a number, a string, a path, in the order they are bound."""
    found = []
    for names, value in _bound(body):
        text = "" if isinstance(value, _BULKY) else _unparse(value)
        found += [(name, text if len(text) <= 40 else text[:39] + "…") for name in names
                  if text and name.isupper() and len(name) > 2]
    return found


def _dedupe_paths(paths: list[str]) -> list[str]:
    """Keep each path once; a component already inside a longer path is dropped."""
    unique = list(dict.fromkeys(p for p in paths if p.strip("/.")))
    return [p for p in unique if not any(p != q and ("/" + p.strip("/")) in ("/" + q) for q in unique)]


def _read_lines(text: str, language: str) -> CodeFacts:
    facts = CodeFacts(language, False, len(text.splitlines()))
    match = _DOCSTRING.match(text)
    if match and match.group(2).strip():
        facts.docstring = first_paragraph(match.group(2))
    class_indent = None
    events = sorted([(m.start(), "class", m.group(1), m.group(2)) for m in _CLASS_LINE.finditer(text)]
                    + [(m.start(), "def", m.group(1) if m.group(2) else m.group(3),
                        m.group(2) or m.group(4)) for m in _FUNCTION_LINE.finditer(text)])
    for _, what, indent, name in events:
        if what == "class":
            facts.classes.append((name, []))
            class_indent = len(indent)
        elif class_indent is not None and len(indent) > class_indent:
            facts.classes[-1][1].append(name)
        elif not indent:
            facts.functions.append(name)
            class_indent = None
    facts.constants = [(n, v.strip()) for n, v in _CONSTANT_LINE.findall(text)]
    facts.paths = _dedupe_paths([s for s in _STRING.findall(text) if is_path_like(s)])
    facts.effects = read_effects_lines(text)
    return facts


def read_code(text: str, path: str = "") -> CodeFacts:
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    language = _LANGUAGES.get(suffix, suffix) or "code"
    # Python that parses is read whole; anything else line by line
    return (language == "Python" and _read_python(text)) or _read_lines(text, language)


def describe_code(text: str, path: str = "", partial: str = "", lang: str = "en") -> str:
    """One line of facts. ``partial`` says how the text was cut (then counts are minimums, and
    the line count is of the part seen, the clip's marker line not counted)."""
    facts = read_code(text, path)
    least = phrase("at_least", lang) if not facts.whole or partial else ""
    lines = facts.lines - len(CLIPPED.findall(text)) if partial else facts.lines
    parts = [phrase("lines_seen" if partial else "lines", lang, language=facts.language, n=lines)
             + (phrase("parsed_whole", lang) if facts.whole and not partial
                else phrase("partial_paren", lang, how=partial or phrase("line_by_line", lang)))]
    parts.append(phrase("docstring", lang, text=facts.docstring[:200]) if facts.docstring
                 else phrase("no_docstring", lang) + (phrase("in_text_seen", lang) if least else ""))
    parts += effect_parts(facts.effects, phrase("in_part_seen", lang) if least else "", lang)
    if facts.classes:
        shown = [phrase("methods", lang, name=name, names=listed(methods, 24)) if methods else name
                 for name, methods in facts.classes[:6]]
        parts.append(phrase("classes", lang, least=least, n=len(facts.classes),
                            s="es" if len(facts.classes) != 1 else "", names="; ".join(shown)))
    if facts.functions:
        parts.append(phrase("functions", lang, least=least, n=len(facts.functions),
                            s="s" if len(facts.functions) != 1 else "",
                            names=listed(facts.functions, 24)))
    if not facts.classes and not facts.functions:
        parts.append(phrase("no_definitions_seen" if least else "no_definitions", lang))
    if facts.constants:
        shown = [phrase("constant", lang, name=n, value=v) for n, v in facts.constants]
        parts.append(labelled("constants", lang, listed(shown, 12)))
    if facts.paths:
        parts.append(labelled("paths_named", lang, listed(facts.paths, 14)))
    return phrase("sep", lang).join(parts)

"""What a program does, read from its code: the files it writes, what it sends a model, the
errors it catches and raises, and how it is started.

Python that parses whole is read with ``ast``: a write is ``open(path, "w"/"a"/"x")``,
``path.open("a")``, ``write_text``/``write_bytes``, ``os.replace``/``shutil.copy`` (the
destination) or ``sqlite3.connect``; its path is worked out from the literals, the module's
path constants and the function's own assignments. A model request is a call with a
``messages=`` keyword; what it sends is what its ``system=`` is made from, the functions
whose result becomes the message list, and the texts the program puts in a ``"content"``.
Anything else (other languages, an excerpt) is read line by line (``read_effects_lines``),
and its facts are what the lines seen show.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from .phrases import labelled, phrase

ENTRY_LABEL = "entry point:"
WRITES_LABEL = "writes:"
MODEL_LABEL = "model request:"
ERRORS_LABEL = "errors:"
GIVEN_PATH = "a path it is given"
_WRITE_MODES = re.compile(r"[wax+]")
_COPIES = {"os.replace", "os.rename", "shutil.copy", "shutil.copyfile", "shutil.copy2",
           "shutil.move"}
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
PathOf = Callable[[ast.AST, dict], "str | None"]


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


def _functions(tree: ast.Module) -> list[tuple[str, ast.AST]]:
    """Top-level functions and methods, methods as ``Class.method``."""
    found = []
    for node in tree.body:
        if isinstance(node, _FUNCTIONS):
            found.append((node.name, node))
        elif isinstance(node, ast.ClassDef):
            found += [(f"{node.name}.{n.name}", n) for n in node.body if isinstance(n, _FUNCTIONS)]
    return found


def _first_line(text: str) -> str:
    line = next((part for part in text.splitlines() if part.strip()), "").strip()
    line = line.replace("; ", ", ")            # a note's parts are joined by "; "
    return line if len(line) <= 60 else line[:59] + "…"


def _text(node: ast.AST, strings: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{…}" for v in node.values)
    if isinstance(node, ast.Name):
        return strings.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):   # "[Marker]\n" + rest
        left, right = _text(node.left, strings), _text(node.right, strings)
        return None if left is None and right is None else (left or "{…}") + (right or "{…}")
    return None


def _local_env(function: ast.AST, env: dict[str, str], path_of: PathOf) -> dict[str, str]:
    """The module's paths, plus the function's defaults and assignments that build a path."""
    local = dict(env)
    arguments = function.args
    positional = arguments.posonlyargs + arguments.args
    pairs = list(zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults,
                     strict=True))
    pairs += [(a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d]
    for argument, default in pairs:
        value = path_of(default, local)
        if value:
            local[argument.arg] = value
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            value = path_of(node.value, local)
            if value:
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
        return call.args[0] if _is_write_mode(mode) else None
    if attribute == "open" and name not in ("os.open",):
        mode = call.args[0] if call.args else mode
        return call.func.value if _is_write_mode(mode) else None
    if name in _COPIES and len(call.args) > 1:
        return call.args[1]
    if name == "sqlite3.connect" and call.args:
        return call.args[0]
    return None


def _is_write_mode(mode: ast.AST | None) -> bool:
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) \
        and bool(_WRITE_MODES.search(mode.value))


def _exceptions(handler: ast.ExceptHandler) -> list[str]:
    if handler.type is None:
        return ["every exception (a bare except)"]
    if isinstance(handler.type, ast.Tuple):
        return [_unparse(e) for e in handler.type.elts]
    return [_unparse(handler.type)]


def _raised(node: ast.Raise) -> str | None:
    if node.exc is None:
        return None                      # a bare ``raise`` passes on what was caught
    return _unparse(node.exc.func if isinstance(node.exc, ast.Call) else node.exc)


def _function_effects(name: str, function: ast.AST, env: dict[str, str], path_of: PathOf,
                      effects: Effects) -> None:
    local = _local_env(function, env, path_of)
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            target = _write_target(node)
            if target is not None:
                effects.writes.append((path_of(target, local) or GIVEN_PATH, name))
        elif isinstance(node, ast.ExceptHandler):
            effects.catches += [(e, name) for e in _exceptions(node)]
        elif isinstance(node, ast.Raise) and _raised(node):
            effects.raises.append((_raised(node), name))


def _made_from(node: ast.AST, strings: dict[str, str]) -> list[str]:
    """What an expression is made from: the functions it calls, else the names it reads,
    else its text."""
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
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "content":
                    text = _text(value, strings)
                    if text and re.search(r"\w", text.replace("{…}", "")):
                        effects.texts.append(_first_line(text))
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript):
            index = node.targets[0].slice
            text = _text(node.value, strings)
            if isinstance(index, ast.Constant) and index.value == "content" and text \
                    and re.search(r"\w", text.replace("{…}", "")):
                effects.texts.append(_first_line(text))


def _entry_point(tree: ast.Module) -> str | None:
    for node in tree.body:
        if isinstance(node, ast.If) and "__name__" in _unparse(node.test) \
                and "__main__" in _unparse(node.test):
            return 'if __name__ == "__main__"'
    if any(isinstance(n, _FUNCTIONS) and n.name == "main" for n in tree.body):
        return "main()"
    return None


def read_effects(tree: ast.Module, env: dict[str, str], path_of: PathOf) -> Effects:
    """``env``: module names bound to paths; ``path_of(node, env)``: the path an expression
    builds (the reader of path expressions in ``read_code``)."""
    strings = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
               and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
               for t in n.targets if isinstance(t, ast.Name)}
    effects = Effects(entry_point=_entry_point(tree))
    module_env = {**strings, **env}
    for name, function in _functions(tree):
        _function_effects(name, function, module_env, path_of, effects)
    _model_requests(tree, strings, effects)
    return effects


def _grouped(pairs: list[tuple[str, str]], limit: int) -> str:
    """``a (f, g), b (h)``: each first item once, with where it happens."""
    places: dict[str, list[str]] = {}
    for item, function in pairs:
        places.setdefault(item, [])
        if function not in places[item]:
            places[item].append(function)
    shown = [f"{item} ({', '.join(fs[:4])}{', …' if len(fs) > 4 else ''})"
             for item, fs in list(places.items())[:limit]]
    return ", ".join(shown) + (", …" if len(places) > limit else "")


def _listed(items: list[str], limit: int) -> str:
    unique = list(dict.fromkeys(items))
    return ", ".join(unique[:limit]) + (", …" if len(unique) > limit else "")


def effect_parts(effects: Effects, seen: str = "", lang: str = "en") -> list[str]:
    """The note's parts for ``effects``; ``seen`` says they come only from part of the text."""
    parts = []
    if effects.entry_point:
        parts.append(labelled("entry", lang, effects.entry_point))
    if effects.writes:
        parts.append(labelled("writes", lang, seen + _grouped(_given(effects.writes, lang), 6)))
    if effects.model_call or effects.texts:
        said = [phrase("system_from", lang, names=_listed(effects.system, 3)) if effects.system
                else "",
                phrase("messages_from", lang, names=_listed(effects.messages, 6))
                if effects.messages else "",
                phrase("content_texts", lang, texts=_listed([f"“{t}”" for t in effects.texts], 4))
                if effects.texts else ""]
        parts.append(labelled("model_request", lang, seen + " / ".join(s for s in said if s)))
    errors = ([phrase("catches", lang, items=_grouped(effects.catches, 5))] if effects.catches
              else []) + \
        ([phrase("raises", lang, items=_grouped(effects.raises, 4))] if effects.raises else [])
    if errors:
        parts.append(labelled("errors", lang, seen + " / ".join(errors)))
    return parts


def _given(writes: list[tuple[str, str]], lang: str) -> list[tuple[str, str]]:
    """The writes, "a path it is given" in ``lang``."""
    given = phrase("given_path", lang)
    return [(given if item == GIVEN_PATH else item, where) for item, where in writes]

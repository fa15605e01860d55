"""A stage's column reads, checked against what each name is.

A stage indexes the buffer its name lives in: ``w.i16[cols[0], b, t]`` for an int16 component,
``w.flags[cols[1], b, t]`` for a tag, ``w.cat[cols[2], card]`` for a catalog row. The column id
alone cannot tell which buffer it belongs to, so a stage reading a tag through ``w.i16`` would
silently read whatever int16 component has the same row number: wrong numbers, no error. This
module reads the stage's source (and that of the functions it hands ``w`` and ``cols`` to) for
the direct pattern ``w.<buffer>[cols[j], ...]`` and compares each buffer with what name
``reads[j]`` is; ``Engine.columns`` refuses a mismatch in one line naming file and line. Reads
written another way (``row = cols[3] + j``) are not checked.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Callable, Iterator

import numpy as np

from battlesim.ecs.compiled.world_view import GROUPS
from battlesim.ecs.registry import registered_components

# the WorldState field each kind of name is read through (components: by dtype and shape, GROUPS)
PREFIXED = {"card.": "cat", "param.": "params", "present.": "flags"}


def buffer_of(name: str) -> str | None:
    """The ``WorldState`` field ``name`` is read through, or None when that is not known here
    (a name no registry declares, e.g. a test's own layout)."""
    for prefix, field in PREFIXED.items():
        if name.startswith(prefix):
            return field
    comp = registered_components().get(name)
    if comp is None:
        return None
    return GROUPS.get((np.dtype(comp.dtype), tuple(comp.shape)))


def column_reads(fn: Callable) -> list[tuple[int, str, str]]:
    """``(j, buffer, "file:line")`` for every ``w.<buffer>[cols[j], ...]`` in stage ``fn`` (its
    first parameter is ``w``, its last ``cols``) and in the functions it calls with both."""
    out: list[tuple[int, str, str]] = []
    params = list(inspect.signature(fn).parameters)
    _reads(fn, params[0], params[-1], out, set())
    return out


def _reads(fn: Callable, w: str, cols: str, out: list, seen: set) -> None:
    if (id(fn), w, cols) in seen:
        return
    seen.add((id(fn), w, cols))
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return
    tree = ast.parse(source)
    first = fn.__code__.co_firstlineno
    where = fn.__code__.co_filename
    for node in _walk_body(tree):
        if isinstance(node, ast.Subscript) and _is_name_attr(node.value, w):
            j = _cols_index(node.slice, cols)
            if j is not None:
                out.append((j, node.value.attr, f"{where}:{first + node.lineno - 1}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            callee = getattr(fn.__globals__.get(node.func.id), "py_func", fn.__globals__.get(node.func.id))
            if not inspect.isfunction(callee):
                continue
            names = [a.id if isinstance(a, ast.Name) else None for a in node.args]
            if w in names and cols in names:
                cparams = list(inspect.signature(callee).parameters)
                if len(cparams) == len(names):
                    _reads(callee, cparams[names.index(w)], cparams[names.index(cols)], out, seen)


def _walk_body(tree: ast.AST) -> Iterator[ast.AST]:
    """The nodes of the function's body (its decorators and annotations left out)."""
    fdef = tree.body[0]
    for stmt in getattr(fdef, "body", []):
        yield from ast.walk(stmt)


def _is_name_attr(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name


def _cols_index(index: ast.AST, cols: str) -> int | None:
    """j when the subscript's first index is ``cols[j]`` (j a literal)."""
    first = index.elts[0] if isinstance(index, ast.Tuple) and index.elts else index
    if (isinstance(first, ast.Subscript) and isinstance(first.value, ast.Name) and first.value.id == cols
            and isinstance(first.slice, ast.Constant) and isinstance(first.slice.value, int)):
        return first.slice.value
    return None

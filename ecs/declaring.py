"""Who is declaring: the source every declaration records, and the error a bad one raises.

Its own module because both kinds of declaration need it: the numpy ones (``ecs/extension.py``)
and the compiled ones (``ecs/compiled_declarations.py``), which the compiled core imports
without importing the numpy engine's effect and damage modules.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator

from battlesim.ecs.datafiles import DataError

BUILT_IN = "built-in"
_source: ContextVar[str] = ContextVar("battlesim_plugin_source", default=BUILT_IN)


class PluginError(DataError):
    """A plugin could not be found, imported or registered; the message says which and why.
    (A ``DataError``: the command line reports it in one line, like a bad card file.)"""


def current_source() -> str:
    """Who is declaring right now: ``built-in``, or the plugin being loaded."""
    return _source.get()


@contextmanager
def declaring(source: str) -> Iterator[None]:
    """Declarations made inside record ``source`` (the plugin being loaded)."""
    token = _source.set(source)
    try:
        yield
    finally:
        _source.reset(token)


def check_keyword_value(name: str, kind: str, value: bool | int, low: int, high: int) -> None:
    """A card's value for a plugin keyword of ``kind`` ("tag": true/false; "number": ``low`` to
    ``high``), as the rulesets whose plugins declare keywords by kind check it (grid, classes);
    a misfit is a ``ValueError`` the card loader reports in one line naming the field."""
    if isinstance(value, bool) != (kind == "tag"):
        raise ValueError(f"keyword {name!r} takes {'true/false' if kind == 'tag' else 'a number'}, "
                         f"got {str(value).lower()}")
    if kind == "number" and not low <= value <= high:
        raise ValueError(f"keyword {name!r} = {value}: expected {low} to {high}")


def declared_at(fn: Callable) -> str:
    """``file:line`` of a declared function (its decorator's line): what a one-line error names."""
    code = getattr(fn, "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}" if code else repr(fn)


def one_line(doc: str, name: str) -> str:
    """The first paragraph of a doc, on one line (listings show one line per entry)."""
    first = (doc or "").strip().split("\n\n")[0]
    return " ".join(first.split()) or name


def battlesim_own(fn: Callable) -> bool:
    """Whether ``fn`` is defined in battlesim's own modules (a built-in), not by a plugin or a
    session: the built-ins keep what plugins may no longer declare (the numpy twins) and enter
    the vocabulary through those twins."""
    module = getattr(fn, "__module__", "") or ""
    return module == "battlesim" or module.startswith("battlesim.")

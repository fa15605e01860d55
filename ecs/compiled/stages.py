"""Compiled damage stages: what a keyword contributes to the damage pipeline, in numba's subset.

A stage is a plain Python function (or an ``@njit`` one: its Python function is used) with
ONE fixed signature, so the generated dispatcher can call any of them the same way::

    def stage(w, b, queue, qlen, i, cols) -> None

- ``w``: the World as compiled code sees it (``battlesim.ecs.compiled.world_view.WorldState``):
  the component buffers ``w.i16``, ``w.i8``, ``w.flags`` (``[K, B, S]``), ``w.i16x2``
  (``[K, B, S, 2]``), ``w.alive``, ``w.serial``, the catalog ``w.cat`` (``[row, card id]``), the
  parameters ``w.params`` and the trigger queue ``w.events`` / ``w.nevents``; one NamedTuple, so
  a field added later changes no stage's signature;
- ``b``: the game being played; ``i``: the row of its damage queue to handle;
- ``queue``, ``qlen``: the damage queue (``battlesim.ecs.compiled.damage_queue``: fields
  SOURCE, TARGET, AMOUNT, KIND, DEALT, EXCESS; ``push`` appends a reaction's damage);
- ``cols``: ``int64[MAX_READS]``, the ids of what the stage declared in ``reads``, in that
  order: a component's row in its group's buffer (``w.i16[cols[0], b, target]``), a catalog row
  ``card.<column>`` (``w.cat[cols[1], card]``), a parameter ``param.<name>``
  (``w.params[cols[2]]``), a presence mask ``present.<name>`` (``WorldView.layout``).

Column ids arrive as an argument, never as a module global: numba freezes globals into the
cached machine code, and the registry may give another column to the same component when
another plugin set is loaded (DESIGN.md "Rules of the road").

The dispatcher runs the stages in ascending priority (then name, then source, like
``battlesim.ecs.damage.DamagePipeline``), each over every row before the next stage starts, as
the numpy pipeline runs each stage over a whole batch; rows a stage pushes go through the whole
pipeline right after that stage (depth first, as the numpy reactions' ``pipeline.run``).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Callable, TypeVar

from battlesim.ecs.plugin import BUILT_IN, PluginError, current_source, loaded_plugins

SIGNATURE = ("w", "b", "queue", "qlen", "i", "cols")
MAX_READS = 16  # column ids one stage may read: the width of the dispatcher's column table
EVERY_RULESET = "*"  # stages of the engine itself, part of every ruleset's pipeline

F = TypeVar("F", bound=Callable)


@dataclass(frozen=True)
class CompiledStage:
    """A registered stage: ``fn`` is the plain Python function the engine module compiles."""

    name: str
    priority: int
    fn: Callable
    reads: tuple[str, ...]
    ruleset: str
    source: str

    def order_key(self) -> tuple:
        return (self.priority, self.name, self.source)


_STAGES: dict[tuple[str, str], CompiledStage] = {}


def damage_stage(ruleset: str, name: str, priority: int, reads: tuple[str, ...] | list[str] = ()) -> Callable[[F], F]:
    """Decorator: ``fn`` (the signature above) is the compiled stage ``name`` of ``ruleset``'s
    damage pipeline at ``priority`` (``battlesim.ecs.damage``: PREVENTION 100 .. DEATH 500),
    reading the components ``reads``. Declaring the same name again from the same source
    replaces it (a plugin loaded again); from another source it is an error."""

    def deco(fn: F) -> F:
        add_stage(CompiledStage(name, int(priority), _python_function(fn, name), tuple(reads), ruleset,
                                current_source()))
        return fn

    return deco


def add_stage(stage: CompiledStage) -> None:
    """Register a stage (what ``damage_stage`` does), checked first: one line names the
    stage's file and line and what is wrong."""
    where = _where(stage.fn)
    params = tuple(inspect.signature(stage.fn).parameters)
    if len(params) != len(SIGNATURE):
        raise PluginError(f"{where}: damage stage {stage.name!r} must take ({', '.join(SIGNATURE)}); "
                          f"it takes ({', '.join(params)})")
    if len(stage.reads) > MAX_READS:
        raise PluginError(f"{where}: damage stage {stage.name!r} reads {len(stage.reads)} components; "
                          f"at most {MAX_READS}")
    key = (stage.ruleset, stage.name)
    old = _STAGES.get(key)
    if old is not None and old.source != stage.source:
        raise PluginError(f"{where}: {stage.ruleset} damage stage {stage.name!r} is already declared by {old.source}")
    _STAGES[key] = stage


def stages_of(ruleset: str) -> list[CompiledStage]:
    """The stages of ``ruleset``'s pipeline (the engine's own included) in run order. A stage
    counts while the plugin that declared it is loaded: ``battlesim.ecs.plugin.isolated()``
    unloads the plugins loaded inside it, and so their stages too."""
    loaded = loaded_plugins()
    found = [s for (r, _), s in _STAGES.items()
             if r in (ruleset, EVERY_RULESET) and (s.source == BUILT_IN or s.source in loaded)]
    return sorted(found, key=CompiledStage.order_key)


def _python_function(fn: Callable, name: str) -> Callable:
    """The plain function behind ``fn`` (an ``@njit`` dispatcher's ``py_func``), which must
    live in a real file: numba caches only those, and the engine's name hashes that file."""
    py = getattr(fn, "py_func", fn)
    if not inspect.isfunction(py):
        raise PluginError(f"damage stage {name!r}: expected a function, got {type(fn).__name__}")
    file = inspect.getsourcefile(py)
    if not file or file.startswith("<"):
        raise PluginError(f"damage stage {name!r}: {py.__qualname__} is not defined in a file "
                          f"(exec'd or interactive code cannot be cached); put it in a module")
    if py.__qualname__ != py.__name__:
        raise PluginError(f"{_where(py)}: damage stage {name!r}: {py.__qualname__} must be a module-level function")
    return py


def _where(fn: Callable) -> str:
    code = getattr(fn, "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}" if code else repr(fn)

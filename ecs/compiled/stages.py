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

Declared on ``extend(ruleset).compiled_damage_stage`` (``ecs/compiled_declarations.py``, which
holds the one registry and the checks); this module keeps the names the engine reads them by.

Column ids arrive as an argument, never as a module global: numba freezes globals into the
cached machine code, and the registry may give another column to the same component when
another plugin set is loaded (DESIGN.md "Rules of the road").

The dispatcher runs the stages in ascending priority (then name, then source, like
``battlesim.ecs.damage.DamagePipeline``), each over every row before the next stage starts, as
the numpy pipeline runs each stage over a whole batch; rows a stage pushes go through the whole
pipeline right after that stage (depth first, as the numpy reactions' ``pipeline.run``).
"""

from __future__ import annotations

from typing import Callable, TypeVar

from battlesim.ecs.compiled import application  # noqa: F401  (declares the engine's own stages)
from battlesim.ecs.compiled_declarations import STAGE_READS, STAGE_SIGNATURE, CompiledStage
from battlesim.ecs.plugin import extend

SIGNATURE = STAGE_SIGNATURE
MAX_READS = STAGE_READS  # column ids one stage may read: the width of the dispatcher's column table
EVERY_RULESET = "*"  # stages of the engine itself, part of every ruleset's pipeline

__all__ = ["SIGNATURE", "MAX_READS", "EVERY_RULESET", "CompiledStage", "damage_stage", "add_stage", "stages_of"]

F = TypeVar("F", bound=Callable)


def damage_stage(ruleset: str, name: str, priority: int, reads: tuple[str, ...] | list[str] = ()) -> Callable[[F], F]:
    """``extend(ruleset).compiled_damage_stage(name, priority, reads)``, under its first name
    (kept while branches written against it merge; declare on ``extend`` in new code)."""
    return extend(ruleset).compiled_damage_stage(name, priority, reads)


def add_stage(stage: CompiledStage) -> None:
    """``extend(stage.ruleset).add_compiled_stage(stage)``: register a stage record, checked."""
    extend(stage.ruleset).add_compiled_stage(stage)


def stages_of(ruleset: str) -> list[CompiledStage]:
    """The stages of ``ruleset``'s pipeline (the engine's own included) in run order. A stage
    counts while the plugin that declared it is loaded: ``battlesim.ecs.plugin.isolated()``
    forgets the declarations made inside it."""
    return extend(ruleset).compiled_stages_in_order()

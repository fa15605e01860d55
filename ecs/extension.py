"""What one ruleset lets you declare: keywords, statuses, damage stages, the effect vocabulary,
systems and card files (``RulesetExtension``), and the records each declaration leaves.

Split from ``ecs/plugin.py``, which keeps the public entry points (``extend``, ``component``,
``agent``, ``damage_kind``) and the discovery of plugins: a declaration and the loading of the
module that makes it are two jobs. Every declaration records its *source* (``current_source``):
``built-in``, or the plugin being loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal, TypeVar

import numpy as np

from battlesim.ecs.damage import DamagePipeline, StageSpec
from battlesim.ecs.compiled_declarations import CompiledDeclarations
from battlesim.ecs.declaring import BUILT_IN, PluginError, current_source, declaring  # noqa: F401  (re-exported)
from battlesim.ecs.declaring import battlesim_own, declared_at, one_line
from battlesim.ecs.effects import Executor, Opcode, Selector, Trigger
from battlesim.ecs.registry import Component, Presence, register_component

F = TypeVar("F", bound=Callable)


@dataclass(frozen=True)
class Keyword:
    """A keyword card files may name: a component whose value is a tag (true/false) or a
    number X ("Retaliate X"); 0/false means absent."""

    name: str
    value: Literal["tag", "number"]
    doc: str
    source: str = BUILT_IN

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(np.bool_ if self.value == "tag" else np.int16)

    @property
    def presence(self) -> Presence:
        return "tag" if self.value == "tag" else "nonzero"

    @property
    def default(self) -> bool | int:
        return False if self.value == "tag" else 0

    @property
    def value_type(self) -> str:
        return "bool" if self.value == "tag" else "int"


@dataclass(frozen=True)
class Status:
    """A status: stacks (int16, 0 = absent) that effects apply; ``decays``: loses a stack at
    the end of each round; ``purgeable``: removed by purge."""

    name: str
    doc: str
    decays: bool = False
    purgeable: bool = False
    source: str = BUILT_IN


@dataclass(frozen=True)
class SystemSpec:
    """A system of a phase. ``factory(game)`` builds the processor for one loaded game (it
    gets the game so it can read its parameters and action table)."""

    phase: str
    priority: int
    name: str
    factory: Callable[[Any], Any]
    source: str = BUILT_IN
    doc: str = ""

    def order_key(self) -> tuple:
        return (-self.priority, self.source != BUILT_IN, self.source, self.name)


@dataclass(frozen=True)
class CardFiles:
    cards: Path | None
    decks: Path | None
    source: str = BUILT_IN


def component(name: str, dtype: type | np.dtype, default: int | float | bool = 0,
              presence: Presence = "nonzero", doc: str = "", shape: tuple[int, ...] = ()) -> Component:
    """Declare a component: one array per world, ``[B, S, *shape]`` of ``dtype``. Presence:
    ``tag`` (bool, present where True), ``nonzero`` (present where != default) or ``mask``
    (0 is meaningful: present on every live entity given it)."""
    return register_component(name, dtype, default, presence, shape, doc, source=current_source())


class RulesetExtension(CompiledDeclarations):
    """What one ruleset lets you declare. Get it with ``extend("lanes")``; the ruleset reads
    the same object when it builds a game, so declarations made before a game is loaded are
    part of it. The compiled parts (``compiled_damage_stage``, ``compiled_opcode``...) are
    declared on the same object (``ecs/compiled_declarations.py``)."""

    def __init__(self, ruleset: str) -> None:
        self.ruleset = ruleset
        self.keywords: dict[str, Keyword] = {}
        self.statuses: dict[str, Status] = {}
        self.executor = Executor()
        self.stages: dict[str, StageSpec] = {}
        self.phases: tuple[str, ...] = ()
        self.systems: dict[str, SystemSpec] = {}
        self.card_dirs: list[CardFiles] = []
        self._init_compiled()

    # -- keywords and statuses ------------------------------------------------------------
    def keyword(self, name: str, value: Literal["tag", "number"] = "number", doc: str = "") -> Keyword:
        """A keyword card files may name (``keywords = { thorns = 2 }``) and effects may grant.
        ``tag``: true/false (bool component); ``number``: X (int16, 0 = absent)."""
        if value not in ("tag", "number"):
            raise PluginError(f"keyword {name!r}: value must be 'tag' or 'number' (got {value!r})")
        self._free(name, "keyword")
        kw = Keyword(name, value, one_line(doc, name), current_source())
        component(name, kw.dtype, kw.default, kw.presence, kw.doc)
        self.keywords[name] = kw
        return kw

    def status(self, name: str, doc: str = "", decays: bool = False, purgeable: bool = False) -> Status:
        """A status (stacks, int16) that ``apply_status`` effects may name."""
        self._free(name, "status")
        st = Status(name, one_line(doc, name), decays, purgeable, current_source())
        component(name, np.int16, 0, "nonzero", st.doc)
        self.statuses[name] = st
        return st

    def _free(self, name: str, what: str) -> None:
        for reg, kind in ((self.keywords, "keyword"), (self.statuses, "status")):
            if name in reg:
                raise PluginError(f"{self.ruleset} {what} {name!r} is already declared (a {kind}, by {reg[name].source})")

    def decaying(self) -> list[str]:
        return [s.name for s in self.statuses.values() if s.decays]

    def purgeable(self) -> list[str]:
        return [s.name for s in self.statuses.values() if s.purgeable]

    # -- damage pipeline -------------------------------------------------------------------
    def damage_stage(self, name: str, priority: int) -> Callable[[F], F]:
        """Decorator: ``fn(world, batch)`` runs on every ``DamageBatch`` at ``priority``
        (see ``battlesim.ecs.damage``: PREVENTION, MITIGATION, APPLICATION, REACTIONS, DEATH). It may
        change ``batch.amount`` (before application) or start new damage through
        ``world.pipeline.run`` (reactions). The numpy engine's part: battlesim's own only (``_numpy_part``)."""

        def deco(fn: F) -> F:
            self._numpy_part(fn, f"damage stage {name!r}", "compiled_damage_stage")
            self.add_stage(StageSpec(name, int(priority), fn, current_source()))
            return fn

        return deco

    def add_stage(self, spec: StageSpec) -> None:
        old = self.stages.get(spec.name)
        if old is not None and old != spec:
            raise PluginError(f"{self.ruleset} damage stage {spec.name!r} is already declared by {old.source}")
        self.stages[spec.name] = spec

    def pipeline(self) -> DamagePipeline:
        """A damage pipeline with every declared stage, in the documented order."""
        return DamagePipeline(list(self.stages.values()))

    # -- effects vocabulary ----------------------------------------------------------------
    def trigger(self, name: str, doc: str) -> Trigger:
        """An effect timing card files may name (``trigger = "on_freeze"``); systems fire it
        with ``executor.fire(world, name, ctx)``."""
        t = Trigger(name, one_line(doc, name), current_source())
        self._declare(self.executor.add_trigger, t)
        return t

    def on(self, trigger: str, name: str | None = None, doc: str | None = None) -> Callable[[F], F]:
        """Trigger handlers (Python run on every firing of a trigger) were played by the numpy
        engine only, which plays no games any more (issue 13's "One engine"): refused in one
        line. Code that reacts to a game event is a compiled part (a damage stage at the death
        priority, an opcode cards name on the trigger, a system of a phase)."""

        def deco(fn: F) -> F:
            raise PluginError(f"{declared_at(fn)}: {self.ruleset} trigger handler on {trigger!r}: Python run on every "
                              f"firing is gone with the numpy engine; react with a compiled part "
                              f"(compiled_damage_stage, compiled_opcode, compiled_system: docs/plugins.md \"The compiled parts\")")

        return deco

    def opcode(self, name: str, doc: str, params: tuple[str, ...] = ()) -> Callable[[F], F]:
        """Decorator: ``fn(world, hit)`` is the vectorized kernel of effect ``op = name``;
        ``params`` are the effect fields it reads besides ``select`` and ``amount``."""

        def deco(fn: F) -> F:
            self._numpy_part(fn, f"opcode {name!r}", "compiled_opcode")
            self._declare(self.executor.add_opcode, Opcode(name, fn, one_line(doc, name), tuple(params), current_source()))
            return fn

        return deco

    def selector(self, name: str, doc: str) -> Callable[[F], F]:
        """Decorator: ``fn(world, ctx, table, e) -> (row_index, target_slot)`` expands each
        firing row into its targets (``select = name``)."""

        def deco(fn: F) -> F:
            self._numpy_part(fn, f"selector {name!r}", "compiled_selector")
            self._declare(self.executor.add_selector, Selector(name, fn, one_line(doc, name), current_source()))
            return fn

        return deco

    def _numpy_part(self, fn: Callable, what: str, compiled: str) -> None:
        """A numpy damage stage, opcode or selector (batch-wide code the resolution machine would
        call per row, which compiled code cannot) is battlesim's own twin of a compiled one,
        kept as the reference it was proved against until it goes (issue 13's "One engine"). No
        game plays them any more, so one declared anywhere else would be silently ignored: it is
        refused, in one line naming its file and the compiled declaration to use. (A system is
        different: an esper Processor over the whole batch, run between the compiled systems.)"""
        if battlesim_own(fn):
            return
        raise PluginError(f"{declared_at(fn)}: {self.ruleset} {what} is a numpy-engine part, which no game plays "
                          f"any more: declare it with extend({self.ruleset!r}).{compiled} (docs/plugins.md "
                          f"\"The compiled parts\")")

    def _declare(self, add: Callable[[Any], None], item: Any) -> None:
        try:
            add(item)
        except ValueError as e:
            raise PluginError(f"{self.ruleset}: {e}") from None

    # -- schedule --------------------------------------------------------------------------
    def declare_phases(self, names: list[str] | tuple[str, ...]) -> None:
        """The ruleset's phases, in order (the ruleset declares them; plugins add systems)."""
        if self.phases and tuple(names) != self.phases:
            raise PluginError(f"{self.ruleset}: phases are already declared as {list(self.phases)}")
        self.phases = tuple(names)

    def system(self, phase: str, priority: int = 0, name: str | None = None, doc: str | None = None) -> Callable[[F], F]:
        """Decorator on a processor class (built with no argument) or a ``factory(game) ->
        processor``: run it in ``phase`` each round, every active game of the batch at once.
        Higher priority runs first; ``name`` defaults to the class's or function's name."""

        def deco(factory: F) -> F:
            if self.phases and phase not in self.phases:
                raise PluginError(f"{self.ruleset}: no phase {phase!r}; phases: {', '.join(self.phases)}")
            label = name or getattr(factory, "__name__", repr(factory))
            make = factory
            if isinstance(factory, type):
                make = lambda game, cls=factory: cls()  # noqa: E731  (a processor needing nothing)
            text = one_line(doc if doc is not None else (factory.__doc__ or ""), label)
            spec = SystemSpec(phase, int(priority), label, make, current_source(), text)
            old = self.systems.get(label)
            if old is not None and old.source != spec.source:
                raise PluginError(f"{self.ruleset}: system {label!r} is already declared by {old.source}")
            self.systems[label] = spec
            return factory

        return deco

    def schedule_specs(self) -> list[tuple[str, list[SystemSpec]]]:
        """Each phase with its systems in run order."""
        out = []
        for ph in self.phases:
            specs = sorted((s for s in self.systems.values() if s.phase == ph), key=SystemSpec.order_key)
            out.append((ph, specs))
        return out

    # -- data ------------------------------------------------------------------------------
    def card_files(self, cards: str | Path | None = None, decks: str | Path | None = None) -> None:
        """Card and deck directories a plugin ships: loaded after the ruleset's own (or after
        ``--cards``); their names must not collide with those."""
        entry = CardFiles(Path(cards) if cards else None, Path(decks) if decks else None, current_source())
        if entry not in self.card_dirs:
            self.card_dirs.append(entry)

    # -- listing ---------------------------------------------------------------------------
    def vocabulary(self) -> list[dict[str, str]]:
        """Every keyword, status, trigger, opcode, selector, damage stage and system: one row
        each with ``kind, name, value_type, source, doc``."""
        rows = []
        for k in self.keywords.values():
            rows.append(dict(kind="keyword", name=k.name, value_type=k.value_type, source=k.source, doc=k.doc))
        for s in self.statuses.values():
            rows.append(dict(kind="status", name=s.name, value_type="int (stacks)", source=s.source, doc=s.doc))
        ex = self.executor
        for t in ex.triggers.values():
            rows.append(dict(kind="trigger", name=t.name, value_type="-", source=t.source, doc=t.doc))
        for o in ex.opcodes.values():
            vt = ", ".join(["amount: int", *o.params])
            rows.append(dict(kind="opcode", name=o.name, value_type=vt, source=o.source, doc=o.doc))
        for s in ex.selectors.values():
            rows.append(dict(kind="selector", name=s.name, value_type="targets", source=s.source, doc=s.doc))
        listed = {o.name for o in ex.opcodes.values()}
        for p in self.compiled_pieces_of("opcode"):  # a compiled opcode without a numpy twin
            if p.name not in listed:
                rows.append(dict(kind="opcode", name=p.name, value_type="amount: int", source=p.source,
                                 doc=one_line(p.fn.__doc__ or "", p.name)))
        listed = {s.name for s in ex.selectors.values()}
        for p in self.compiled_pieces_of("selector"):
            if p.name not in listed:
                rows.append(dict(kind="selector", name=p.name, value_type="targets", source=p.source,
                                 doc=one_line(p.fn.__doc__ or "", p.name)))
        # a stage declared twice (numpy and compiled twins) is one row; the engine's own stages
        # are listed where a ruleset's numpy pipeline has them
        stages = {st.name: st for st in self.compiled_stages.values()}
        stages.update({st.name: st for st in self.pipeline().stages})
        for st in sorted(stages.values(), key=lambda s: (s.priority, s.name, s.source)):
            rows.append(dict(kind="damage_stage", name=st.name, value_type=f"priority {st.priority}",
                             source=st.source, doc=one_line(st.fn.__doc__ or "", st.name)))
        for ph, specs in self.schedule_specs():
            for s in specs:
                rows.append(dict(kind="system", name=s.name, value_type=f"{ph}, priority {s.priority}",
                                 source=s.source, doc=s.doc))
        return rows

"""The compiled parts a ruleset or a plugin declares on ``extend(ruleset)``: damage stages,
opcodes, selectors, the quiet test and the functions systems call, each a plain Python function
in numba's subset with ONE documented signature per kind.

DESIGN.md "Plugins": the engine generates one module per (ruleset, plugin set) from these
declarations (``ecs/compiled/codegen.py``), so they are checked *here*, when declared, in one
line naming the function's file and line: a mistake found at compile time would cost a minute
of numba and a traceback. Each declaration records its source (built-in, or the plugin being
loaded); ``battlesim.ecs.plugin.isolated()`` forgets those made inside it, with the plugin.

This module holds the records, the signatures and the checks, and ``CompiledDeclarations``,
the part of ``RulesetExtension`` (``ecs/extension.py``) that holds one registry per kind. It
imports nothing of the compiled core, so declaring costs no numba import.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, TypeVar

from battlesim.ecs.declaring import BUILT_IN, PluginError, battlesim_own, current_source, declared_at, one_line

F = TypeVar("F", bound=Callable)

# the one signature of each kind (docs/plugins.md "The compiled API", docs/compiled-core.md)
STAGE_SIGNATURE = ("w", "b", "queue", "qlen", "i", "cols")
PIECE_SIGNATURES = {
    "opcode": ("w", "g", "rng", "b", "hits", "nh", "tbl", "cols", "queue", "qlen", "at"),
    "selector": ("w", "g", "rng", "b", "ctx", "nctx", "tbl", "e", "cols", "out"),
    "quiet": ("w", "g", "b", "slot", "cols"),
}
STAGE_READS = 16  # column ids one stage may read: the width of the dispatcher's column table
PIECE_READS = 64  # column ids one opcode, selector or quiet test may read (summon reads every keyword)
RESERVED = ("resolve_damage", "drain", "fire")  # the machine's entry points in the engine module


@dataclass(frozen=True)
class CompiledStage:
    """A damage stage: ``fn`` is the plain Python function the engine module compiles."""

    name: str
    priority: int
    fn: Callable
    reads: tuple[str, ...]
    ruleset: str
    source: str

    def order_key(self) -> tuple:
        return (self.priority, self.name, self.source)


@dataclass(frozen=True)
class CompiledPiece:
    """An opcode, selector or quiet test; ``name`` is the effect vocabulary's (card files' ``op``
    and ``select``), so the effect table's ids map to it."""

    kind: str
    name: str
    fn: Callable
    reads: tuple[str, ...]
    ruleset: str
    source: str


@dataclass(frozen=True)
class CompiledPhase:
    """A function compiled into the engine module as ``module.<name>``, its calls to the machine
    bound to the engine's: what the systems of the game loop call (lanes' ``settle``)."""

    name: str
    fn: Callable
    ruleset: str
    source: str

    def params(self) -> tuple[str, ...]:
        return tuple(inspect.signature(self.fn).parameters)


ENGINE_STAGES: dict[str, CompiledStage] = {}  # the engine's own stages, in every ruleset's pipeline


def engine_stage(name: str, priority: int, fn: Callable, reads: tuple[str, ...]) -> None:
    """Declare one of the engine's own stages (``ecs/compiled/application.py``): built-in, in
    every ruleset's pipeline, so no ruleset's stage may take its name."""
    ENGINE_STAGES[name] = CompiledStage(name, int(priority), python_function(fn, "damage stage", name), tuple(reads),
                                        "*", BUILT_IN)


class CompiledDeclarations:
    """The compiled half of ``RulesetExtension``: one registry per kind, filled by the
    decorators below (the built-ins of ``systems/*/compiled/`` use them too)."""

    ruleset: str
    phases: tuple[str, ...]

    def _init_compiled(self) -> None:
        self.compiled_stages: dict[str, CompiledStage] = {}
        self.compiled_pieces: dict[tuple[str, str], CompiledPiece] = {}
        self.compiled_systems: dict[str, CompiledPhase] = {}

    # -- damage stages -------------------------------------------------------------------------
    def compiled_damage_stage(self, name: str, priority: int, reads: tuple[str, ...] | list[str] = ()) -> Callable[[F], F]:
        """Decorator: ``fn(w, b, queue, qlen, i, cols)`` handles row ``i`` of game ``b``'s damage
        queue at ``priority`` (``battlesim.ecs.damage``: PREVENTION 100 .. DEATH 500), ``cols``
        the ids of ``reads`` in that order (docs/compiled-core.md "Damage stages")."""

        def deco(fn: F) -> F:
            py = python_function(fn, "damage stage", name)
            self.add_compiled_stage(CompiledStage(name, _priority(py, "damage stage", name, priority), py,
                                                  _reads(py, "damage stage", name, reads),
                                                  self.ruleset, current_source()))
            return fn

        return deco

    def add_compiled_stage(self, stage: CompiledStage) -> None:
        """Register a stage (what the decorator does), checked first."""
        where = declared_at(stage.fn)
        params = tuple(inspect.signature(stage.fn).parameters)
        if len(params) != len(STAGE_SIGNATURE):
            raise PluginError(f"{where}: damage stage {stage.name!r} must take ({', '.join(STAGE_SIGNATURE)}); "
                              f"it takes ({', '.join(params)})")
        if len(stage.reads) > STAGE_READS:
            raise PluginError(f"{where}: damage stage {stage.name!r} reads {len(stage.reads)} components; "
                              f"at most {STAGE_READS}")
        own = ENGINE_STAGES.get(stage.name)
        old = own or self.compiled_stages.get(stage.name)
        if old is not None and old.source != stage.source:
            raise PluginError(f"{where}: {self.ruleset} damage stage {stage.name!r} is already declared by {old.source}")
        self.compiled_stages[stage.name] = stage

    def compiled_stages_in_order(self) -> list[CompiledStage]:
        """The ruleset's stages and the engine's own, in run order: ascending priority, then
        name, then source (``ecs/damage.py``'s ``DamagePipeline`` order)."""
        return sorted([*self.compiled_stages.values(), *ENGINE_STAGES.values()], key=CompiledStage.order_key)

    # -- the effect vocabulary ----------------------------------------------------------------
    def compiled_opcode(self, name: str, reads: tuple[str, ...] | list[str] = (),
                        params: tuple[str, ...] = ()) -> Callable[[F], F]:
        """Decorator: ``fn(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at) -> status`` runs
        effect ``op = name`` over the hits of one game (docs/compiled-core.md "Effects, compiled").
        ``params``: the effect fields it reads besides ``select`` and ``amount`` (card files are
        checked against them)."""
        return self._piece("opcode", name, reads, params)

    def compiled_selector(self, name: str, reads: tuple[str, ...] | list[str] = ()) -> Callable[[F], F]:
        """Decorator: ``fn(w, g, rng, b, ctx, nctx, tbl, e, cols, out) -> count`` writes the
        ``(row, target)`` pairs of ``select = name`` for one game's firing rows."""
        return self._piece("selector", name, reads)

    def compiled_quiet(self, reads: tuple[str, ...] | list[str] = ()) -> Callable[[F], F]:
        """Decorator: ``fn(w, g, b, slot, cols) -> bool``, whether a source cannot trigger (one per ruleset)."""
        return self._piece("quiet", "quiet", reads)

    def _piece(self, kind: str, name: str, reads, params: tuple[str, ...] = ()) -> Callable[[F], F]:
        def deco(fn: F) -> F:
            py = python_function(fn, kind, name)
            self.add_compiled_piece(CompiledPiece(kind, name, py, _reads(py, kind, name, reads),
                                                  self.ruleset, current_source()))
            if kind != "quiet" and not battlesim_own(py):
                self._name_in_vocabulary(kind, name, py, tuple(params))
            return fn

        return deco

    def _name_in_vocabulary(self, kind: str, name: str, py: Callable, params: tuple[str, ...]) -> None:
        """A plugin's compiled opcode or selector is a word card files may name (``op = name``):
        entered in the ruleset's vocabulary (the ``Executor``'s registries, whose order gives the
        ids), with no numpy kernel (``fn`` None). battlesim's own are entered by their numpy twins
        while those remain (so the built-in ids keep their order)."""
        from battlesim.ecs.effects import Opcode, Selector

        ex = self.executor  # type: ignore[attr-defined]  (RulesetExtension's)
        doc = one_line(py.__doc__ or "", name)
        if kind == "opcode" and name not in ex.opcodes:
            ex.add_opcode(Opcode(name, None, doc, params, current_source()))
        elif kind == "selector" and name not in ex.selectors:
            ex.add_selector(Selector(name, None, doc, current_source()))

    def add_compiled_piece(self, piece: CompiledPiece) -> None:
        """Register an opcode, selector or quiet test, checked first."""
        where = declared_at(piece.fn)
        params = tuple(inspect.signature(piece.fn).parameters)
        want = PIECE_SIGNATURES[piece.kind]
        if params != want:
            raise PluginError(f"{where}: {piece.kind} {piece.name!r} must take ({', '.join(want)}); "
                              f"it takes ({', '.join(params)})")
        if len(piece.reads) > PIECE_READS:
            raise PluginError(f"{where}: {piece.kind} {piece.name!r} reads {len(piece.reads)} columns; "
                              f"at most {PIECE_READS}")
        old = self.compiled_pieces.get((piece.kind, piece.name))
        if old is not None and old.source != piece.source:
            raise PluginError(f"{where}: {self.ruleset} {piece.kind} {piece.name!r} is already declared by {old.source}")
        self.compiled_pieces[(piece.kind, piece.name)] = piece

    def compiled_pieces_of(self, kind: str) -> list[CompiledPiece]:
        """The opcodes, selectors or quiet test, by name (the generated switch's order)."""
        return sorted((p for (k, _), p in self.compiled_pieces.items() if k == kind), key=lambda p: p.name)

    # -- systems and agents -------------------------------------------------------------------
    def compiled_system(self, phase: str | None = None, priority: int = 0) -> Callable[[F], F]:
        """Decorator: ``fn`` is compiled into the engine module as ``module.<fn name>``, its calls
        to the machine (``resolve_damage``, ``drain``, ``fire``) bound to the engine's: a function
        the game loop's systems call (any signature). With a ``phase`` (a system of its own in the
        schedule): refused in one line, since no game loop runs a plugin's compiled system yet."""

        def deco(fn: F) -> F:
            py = python_function(fn, "system", getattr(fn, "__name__", repr(fn)))
            where = declared_at(py)
            if phase is not None:
                raise PluginError(f"{where}: {self.ruleset} system {py.__name__!r} in phase {phase!r}: no game loop "
                                  f"runs a plugin's compiled system yet; declare it with extend({self.ruleset!r}).system "
                                  f"(an esper Processor over the whole batch, run between the compiled systems)")
            if py.__name__ in RESERVED or py.__name__.startswith("_"):
                raise PluginError(f"{where}: system name {py.__name__!r} is reserved")
            spec = CompiledPhase(py.__name__, py, self.ruleset, current_source())
            old = self.compiled_systems.get(spec.name)
            if old is not None and old.source != spec.source:
                raise PluginError(f"{where}: {self.ruleset} system {spec.name!r} is already declared by {old.source}")
            self.compiled_systems[spec.name] = spec
            return fn

        return deco

    def compiled_agent(self, name: str, reads: tuple[str, ...] | list[str] = ()) -> Callable[[F], F]:
        """Refused in one line: no game loop calls a plugin's compiled agent yet (each ruleset's
        compiled agents are its own, chosen by code in its loop). A plugin's agent decides in
        Python through the step API (``battlesim.ecs.plugin.agent``), once per batch of
        pending decisions."""

        def deco(fn: F) -> F:
            py = python_function(fn, "agent", name)
            raise PluginError(f"{declared_at(py)}: {self.ruleset} agent {name!r}: no game loop calls a plugin's compiled "
                              f"agent yet; declare it with battlesim.ecs.plugin.agent (it decides through the step "
                              f"API, once per batch of pending decisions)")

        return deco

    # -- what isolated() saves, the listing, the gaps -----------------------------------------
    def compiled_registries(self) -> dict[str, dict]:
        return dict(compiled_stages=self.compiled_stages, compiled_pieces=self.compiled_pieces,
                    compiled_systems=self.compiled_systems)


def python_function(fn: Callable, kind: str, name: str) -> Callable:
    """The plain module-level function behind ``fn`` (an ``@njit`` dispatcher's ``py_func``),
    defined in a real file: numba caches only those, and the engine's name hashes that file."""
    py = getattr(fn, "py_func", fn)
    if not inspect.isfunction(py):
        raise PluginError(f"{kind} {name!r}: expected a function, got {type(fn).__name__}")
    file = inspect.getsourcefile(py)
    if not file or file.startswith("<"):
        raise PluginError(f"{kind} {name!r}: {py.__qualname__} is not defined in a file "
                          f"(exec'd or interactive code cannot be cached); put it in a module")
    if py.__qualname__ != py.__name__:
        raise PluginError(f"{declared_at(py)}: {kind} {name!r}: {py.__qualname__} must be a module-level function")
    return py


def _priority(fn: Callable, kind: str, name: str, priority: Any) -> int:
    if isinstance(priority, bool) or not isinstance(priority, int):
        raise PluginError(f"{declared_at(fn)}: {kind} {name!r}: priority must be an integer (got {priority!r})")
    return int(priority)


def _reads(fn: Callable, kind: str, name: str, reads: Any) -> tuple[str, ...]:
    if isinstance(reads, str) or not all(isinstance(r, str) for r in reads):
        raise PluginError(f"{declared_at(fn)}: {kind} {name!r}: reads must be a tuple of names (got {reads!r})")
    return tuple(reads)



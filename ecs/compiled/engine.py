"""Build the compiled engine of a ruleset and its plugin set: generate, cache, import, compile.

``build("lanes")`` is all a caller needs. It writes the engine module if its hash is new,
imports it from the cache, compiles it (numba loads the machine code from its cache when it
is there), and prunes engines of older hashes. The first compile says so on stderr, in one
line with its time; a cached start prints nothing (DESIGN.md "Rules of the road": the first
run compiles for a minute or so, and a silent minute looks like a hang).
"""

from __future__ import annotations

import hashlib
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Mapping, TextIO

import numba
import numpy as np
from numba import types

from battlesim.ecs.compiled import application  # noqa: F401  (declares the engine's own stages)
from battlesim.ecs.compiled import rng as crng
from battlesim.ecs.compiled.cache import (
    MARKER,
    cache_root,
    engine_hash,
    engine_path,
    import_engine,
    prune,
    write_engine,
)
from battlesim.ecs.compiled import unlinked
from battlesim.ecs.compiled.codegen import dependency_files, engine_source, frozen_constants
from battlesim.ecs.compiled.interpreter import interpreter_pieces, interpreter_source
from battlesim.ecs.compiled.loop import decide_of, looped_systems, loop_source
from battlesim.ecs.compiled.machine import game_source, machine_source, phases_of
from battlesim.ecs.compiled.reads import buffer_of, column_reads
from battlesim.ecs.compiled.stages import MAX_READS, CompiledStage, stages_of
from battlesim.ecs.compiled.world_view import state_type
from battlesim.ecs.plugin import PluginError

# run_damage(w, b, queue, qlen, start, cols, stack): the types callers pass (``w`` a WorldState,
# C-contiguous arrays). Compiled eagerly, so the whole cost is inside build() and announced there.
RUN_DAMAGE_SIGNATURE = (state_type(), types.int64, types.int64[:, :, ::1], types.int64[::1],
                        types.int64, types.int64[:, ::1], types.int64[:, :, ::1])
# a stage(w, b, queue, qlen, i, cols) as run_damage calls it (cols: a row of the cols table)
STAGE_SIGNATURE = (*RUN_DAMAGE_SIGNATURE[:4], types.int64, types.int64[::1])


@dataclass
class Engine:
    """A built engine: its machine module (``run_damage``, ``resolve``...), where it lives, its
    stages in run order, whether this process compiled it (False: loaded from the cache) and how
    long it took; ``game`` is the ruleset's game module (phases, ``advance``), shared by every
    plugin set whose systems and agents are the same."""

    ruleset: str
    module: ModuleType
    path: Path
    stages: list[CompiledStage]
    compiled: bool
    seconds: float
    game_plan: "GamePlan | None" = None
    reads_checked: bool = False

    def columns(self, layout: Mapping[str, int]) -> np.ndarray:
        """``int64[n_stages, MAX_READS]``, the ``cols`` argument of ``run_damage``: row k lists
        the ids of what stage k reads. ``layout`` maps names to ids (``WorldView.layout()``: a
        component's row in its group's buffer, ``card.<column>``, ``param.<name>``...)."""
        out = np.full((max(len(self.stages), 1), MAX_READS), -1, dtype=np.int64)
        if not self.reads_checked:  # reading every stage's source is ~50 ms: once per engine, not per chunk
            for s in self.stages:
                check_reads(s)
            self.reads_checked = True
        for k, s in enumerate(self.stages):
            for j, name in enumerate(s.reads):
                if name not in layout:
                    raise PluginError(f"damage stage {s.name!r} ({s.source}) reads {name!r}, "
                                      f"which the world has no column for")
                out[k, j] = layout[name]
        return out

    @property
    def game(self) -> ModuleType:
        """The game module (written and imported on first use): ``advance`` and the phases."""
        if self.game_plan is None:
            raise PluginError(f"the {self.ruleset} engine has no compiled phases, so no game module")
        module = self.game_plan.module()
        unlinked.refresh(self.game_plan.manifest)  # signatures other processes recorded since
        return module

    def address_table(self) -> np.ndarray:
        """``Resolution.fns``: this engine's ``resolve`` for every signature the game module calls it
        with (``ecs/compiled/unlinked.py``); zeros where there is no game module."""
        if self.game_plan is None:
            return np.zeros(unlinked.MAX_SIGNATURES, dtype=np.int64)
        self.game_plan.module()  # the manifest lives beside it
        return unlinked.new_table(self.module, self.game_plan.manifest)


@dataclass
class GamePlan:
    """The game module of a ruleset: its text and where it goes; written, imported and its older
    engines pruned on first use (``Engine.game``)."""

    ruleset: str
    text: str
    path: Path
    label: str
    digest: str

    @property
    def manifest(self) -> Path:
        return self.path.with_name("machine_signatures.pkl")

    def module(self) -> ModuleType:
        got = _GAMES.get(self.path)
        if got is None:
            write_engine(self.path, self.text)
            got = _GAMES[self.path] = import_engine(self.path)
            prune(self.path.parent.parent, self.label, self.digest)
        return got


_BUILT: dict[Path, Engine] = {}
_GAMES: dict[Path, ModuleType] = {}
_TREE = Path(__file__).resolve().parents[2]  # the battlesim source tree


def build(ruleset: str, stages: list[CompiledStage] | None = None, stderr: TextIO | None = None) -> Engine:
    """The engine of ``ruleset`` with the stages registered now (or ``stages``, in the order
    given), built or loaded from the cache. Load the ruleset and its plugins first.

    Two generated modules: the machine (damage stages, effect interpreter, resolution machine),
    one per plugin set, compiled here; and the game (phases and game loop), one per ruleset's
    systems and agents, compiled when first played (``Engine.game``). The game calls the machine
    through the address table every ``Resolution`` carries, so a plugin that adds a keyword,
    stage, opcode or selector compiles only its machine."""
    stages = stages_of(ruleset) if stages is None else list(stages)
    pieces = interpreter_pieces(ruleset)  # opcodes, selectors, quiet: the effect interpreter, if any
    interpreter = interpreter_source(*pieces) if any(pieces) else ""
    phases = phases_of(ruleset) if interpreter else []  # phases call the machine: it needs the interpreter
    machine = machine_source(len(stages)) if interpreter else ""
    functions = [p.fn for group in pieces for p in group]
    text = engine_source(ruleset, stages, interpreter, functions, machine)
    root = cache_root()
    digest = engine_hash(text, dependency_files(stages, functions))
    label = engine_label(ruleset, stages, functions)
    path = engine_path(root, label, digest)
    done = _BUILT.get(path)
    if done is not None:
        return done
    game = _game_plan(ruleset, phases, root) if phases else None
    write_engine(path, text)
    marker = path.parent / MARKER
    first = not marker.exists()
    out = sys.stderr if stderr is None else stderr
    if first:
        print(f"compiling the {ruleset} engine (first run)...", end="", file=out, flush=True)
    t0 = time.perf_counter()
    module = import_engine(path)
    try:
        misses = _compile(module)
        if game is not None:  # resolve for every signature the game module calls it with: announced here,
            unlinked.compile_recorded(module, game.manifest)  # not a silent minute inside the first game
    except numba.core.errors.NumbaError as e:
        if first:
            print(" failed", file=out, flush=True)
        raise _blame(module, stages, e) from None
    seconds = time.perf_counter() - t0
    if first:
        print(f" {seconds:.1f} s", file=out, flush=True)
    elif misses:  # the marker is there but numba's cache was not (cleared by hand): say why it took long
        print(f"compiled the {ruleset} engine in {seconds:.1f} s (its machine code was not in the cache)",
              file=out, flush=True)
    try:
        marker.write_text(f"{seconds:.3f}\n")
    except OSError:  # a read-only shared cache warmed by `battlesim compile`: nothing to record
        pass
    prune(root, label, digest)
    engine = _BUILT[path] = Engine(ruleset, module, path, stages, bool(first or misses), seconds, game)
    return engine


def _game_plan(ruleset: str, phases: list, root: Path) -> GamePlan:
    """The game module's text (the phases, and the game loop generated from the schedule when the
    ruleset has compiled agents), its hash and its place in the cache."""
    loop = ""
    functions = [p.fn for p in phases]
    if decide_of(ruleset) is not None:
        systems = looped_systems(ruleset)
        loop = loop_source(systems, decide_of(ruleset))
        functions += [decide_of(ruleset)] + [f for s in systems for f in (s.step, s.apply) if f]
    text = game_source(ruleset, phases, frozen_constants([], functions), loop)
    digest = engine_hash(text, dependency_files([], functions))
    label = engine_label(f"{ruleset}_game", [], functions)
    return GamePlan(ruleset, text, engine_path(root, label, digest), label, digest)


def engine_label(ruleset: str, stages: list[CompiledStage], functions: list) -> str:
    """The family an engine belongs to; ``prune`` removes only engines of the same family.

    One family per source tree (worktrees and installs sharing a cache must not prune each
    other's engines) and per plugin set: the names of every stage and compiled function the
    engine holds, not their text. Editing a file keeps the family, so its older engines go; a
    run with ``--plugin X`` and one without are two families, so alternating between them
    loads both from the cache instead of recompiling the whole game loop (minutes) each time.
    """
    names = sorted({f"{fn.__module__}.{fn.__qualname__}" for fn in [s.fn for s in stages] + list(functions)})
    tree = hashlib.sha256(str(_TREE).encode()).hexdigest()[:8]
    family = hashlib.sha256("\0".join(names).encode()).hexdigest()[:8]
    return f"{ruleset}_{tree}_{family}"


def _compile(module: ModuleType) -> int:
    """Compile (or load) the engine's functions and the RNG; returns how many were compiled
    rather than loaded from numba's cache."""
    if numba.config.DISABLE_JIT:  # NUMBA_DISABLE_JIT=1: plain Python, for a debugger
        return 0
    module.run_damage.compile(RUN_DAMAGE_SIGNATURE)
    # the RNG as Python code calls it (the engine's own calls are compiled into it)
    state = crng.rng_state(np.zeros(1, dtype=np.int64))
    keys = np.empty(1, dtype=np.uint64)
    crng.next_bits(state, 0, 0)
    crng.bits_into(state, 0, 0, keys)
    crng.uniform(state, 0, 0)
    crng.integers(state, 0, 2, 0)
    crng.choice(state, 0, np.ones(1, dtype=np.bool_), 0)
    crng.permutation_keys(state, 0, 0, keys)
    dispatchers = [module.run_damage, crng.rng_state, crng.next_bits, crng.bits_into, crng.uniform,
                   crng.integers, crng.choice, crng.permutation_keys]
    return sum(sum(d.stats.cache_misses.values()) for d in dispatchers)


def check_reads(stage: CompiledStage) -> None:
    """Every ``w.<buffer>[cols[j], ...]`` of the stage reads ``reads[j]`` through the buffer that
    name lives in (``battlesim.ecs.compiled.reads``); else one line naming file and line, since
    the wrong buffer reads another component's numbers without any error."""
    for j, buffer, where in column_reads(stage.fn):
        if j >= len(stage.reads):
            raise PluginError(f"{where}: damage stage {stage.name!r} uses cols[{j}] but declares "
                              f"{len(stage.reads)} reads {stage.reads!r}")
        want = buffer_of(stage.reads[j])
        if want is not None and want != buffer:
            raise PluginError(f"{where}: damage stage {stage.name!r} reads {stage.reads[j]!r} through "
                              f"w.{buffer}[cols[{j}], ...]; it lives in w.{want}")


def _blame(module: ModuleType, stages: list[CompiledStage], error: Exception) -> PluginError:
    """One line for an engine that does not compile: the first stage that does not compile on
    its own (its file, line, name, source and numba's reason), else numba's reason."""
    for k, s in enumerate(stages):
        try:
            getattr(module, f"stage_{k}").compile(STAGE_SIGNATURE)
        except numba.core.errors.NumbaError as e:
            code = s.fn.__code__
            return PluginError(f"{code.co_filename}:{code.co_firstlineno}: damage stage {s.name!r} ({s.source}) "
                               f"does not compile: {_reason(e)}")
    return PluginError(f"the {module.RULESET} engine does not compile: {_reason(error)}")


def _reason(error: Exception) -> str:
    """numba's message without colours and its "Failed in ... pipeline" / "During: ..." framing."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(error))
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    lines = [ln for ln in lines if not ln.startswith(("Failed in", "During:"))] or lines or [type(error).__name__]
    first = lines[0]
    if first.endswith(":") and len(lines) > 1:  # "... found for signature:" then the signature
        first = f"{first} {lines[1]}"
    return first

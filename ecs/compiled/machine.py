"""The resolution machine: where card effects and damage nest, without recursion.

DESIGN.md "Effects and triggers", "Damage pipeline": the numpy engine fires a trigger *inside*
whatever set it off (an "On Damage Taken" inside the damage stage at 460, before ``mark_dying``
of that batch), an effect's damage runs a nested pipeline there, and an opcode that deals
damage goes on only after that damage and everything it triggered resolved. numba cannot load a
recursive function from its cache, so the engine module holds ONE loop over an explicit stack
of frames instead: a *damage level* (rows lo..hi of the damage queue and the next stage to run
over them) or a *firing* (its rows, the effect slot and (opcode, selector) pair it is at, the
hits of the opcode in progress and where that opcode resumes). A piece never calls the machine:
a stage or an opcode pushes damage rows or trigger events and returns; the machine then runs
what was pushed, nested, before the piece's caller goes on, and calls a paused opcode again with
the resume token it returned. This module holds the layout of that stack, the arrays a caller
hands the machine (``Resolution``), the stubs phases call it through, the registry of phases
compiled into the engine module, and the machine's text (``machine_source``).

How phases reach it: docs/compiled-core.md "How phases call the resolution machine".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

import numpy as np

from battlesim.ecs.compiled import interpreter as it
from battlesim.ecs.compiled.damage_queue import NF
from battlesim.ecs.compiled_declarations import RESERVED, CompiledPhase
from battlesim.ecs.plugin import extend

# frame kinds and fields
DAMAGE, FIRING = 1, 2
F_KIND = 0
F_LO, F_HI, F_NEXT, F_KEEP = 1, 2, 3, 4  # a damage level: rows lo..hi, next stage, keep its rows on pop
(F_TRIGGER, F_ROWS, F_N, F_OPEN, F_SLOT, F_LAST, F_HITS, F_NH, F_OP, F_AT, F_TOP, F_CARD) = range(1, 13)  # a firing
FW = 16  # fields of a frame
MAX_FRAMES = 512  # damage levels and firings open at once (more: TOO_DEEP)
ARENA_ROWS = 65536  # rows of firings, groups and hits of every open firing (more: QUEUE_FULL)
QUEUE_ROWS = 256  # damage rows of one game at once (nested levels give theirs back when done)
# what ``info`` holds after a failure: the card of the firing (or opcode) that failed, -1 none
I_CARD = 0

# Phases' scratch, one worker's like ``frames``: table t is one phase function's (lanes: the
# attacks of a lane, a wave of deaths and its reads, a trigger's listeners, regeneration), so that
# compiled code allocates nothing (DESIGN.md "Rules of the road") and runs without reference
# counting. A function owns its table; two functions that may be on the stack at once own two.
WORK_TABLES, WORK_ROWS, WORK_COLS = 6, 64, 8

PHASE_STUBS = RESERVED  # the names phases call; the engine binds them

F = TypeVar("F", bound=Callable)


class Resolution(NamedTuple):
    """Everything the machine works with besides the world, the per-game fields and the RNG:
    allocated once per chunk (``new_resolution``); ``frames`` and ``arena`` are one worker's (a
    call resolves completely before it returns, so the games of a chunk use them in turn)."""

    queue: np.ndarray  # int64[B, Q, NF]: the damage queue (``damage_queue.push``)
    qlen: np.ndarray  # int64[B]
    frames: np.ndarray  # int64[MAX_FRAMES, FW]
    arena: np.ndarray  # int64[ARENA_ROWS, interpreter.WIDTH]: firing rows, groups, hits
    tbl: np.ndarray  # the effect table (interpreter.effect_table)
    maps: np.ndarray  # the table's opcode / selector ids -> switch indexes (interpreter.id_maps)
    icols: np.ndarray  # the interpreter's column table (interpreter.columns)
    dcols: np.ndarray  # the damage stages' column table (Engine.columns)
    info: np.ndarray  # int64[4]: I_CARD
    fns: np.ndarray  # int64[MAX_SIGNATURES]: this machine's ``resolve`` per signature (ecs/compiled/unlinked.py)
    work: np.ndarray  # int64[WORK_TABLES, max(WORK_ROWS, slots), WORK_COLS]: phases' scratch tables (``work_tables``)


def new_resolution(engine: Any, view: Any, table: Any, opcode_names: list[str], selector_names: list[str],
                   n_games: int, queue_rows: int = QUEUE_ROWS) -> Resolution:
    """The machine's arrays for a World (its ``WorldView``) and ``EffectTable``, with the pieces
    registered for ``engine``'s ruleset; ``opcode_names``/``selector_names`` are the numpy
    Executor's registries in id order (the ids the table holds)."""
    bound = it.bind(engine.ruleset, view, table, opcode_names, selector_names)
    return Resolution(np.zeros((n_games, queue_rows, NF), dtype=np.int64), np.zeros(n_games, dtype=np.int64),
                      np.zeros((MAX_FRAMES, FW), dtype=np.int64), np.zeros((ARENA_ROWS, it.WIDTH), dtype=np.int64),
                      bound.tbl, bound.maps, bound.cols, engine.columns(view.layout()),
                      np.full(4, -1, dtype=np.int64), engine.address_table(), work_tables(view.state.alive.shape[1]))


def work_tables(n_slots: int) -> np.ndarray:
    """``Resolution.work`` for a World of ``n_slots`` slots: a table has a row per slot at least."""
    return np.zeros((WORK_TABLES, max(WORK_ROWS, n_slots), WORK_COLS), dtype=np.int64)


# -- the stubs phases call (the engine module binds the names to its own functions) -----------

def _unbound(name: str) -> RuntimeError:
    return RuntimeError(f"{name} runs inside a compiled engine: call the phase as build(ruleset).module.<phase>, "
                        f"not its Python function (docs/compiled-core.md)")


def resolve_damage(st, g, rng, b, m, start):  # a stub: the engine's is compiled
    """Rows ``start..m.qlen[b]`` of game b's damage queue through the pipeline, effects nested."""
    raise _unbound("resolve_damage")


def drain(st, g, rng, b, m):
    """Every pending trigger event of game b, each run of one trigger as one firing."""
    raise _unbound("drain")


def fire(st, g, rng, b, m, trigger, ctx, nctx):
    """One firing of ``trigger`` over the explicit rows ``ctx[:nctx]`` (fields ``C_*``)."""
    raise _unbound("fire")


STUBS = {"resolve_damage": resolve_damage, "drain": drain, "fire": fire}


# -- phases compiled into the engine module -----------------------------------------------------

# Declared on ``extend(ruleset).compiled_system(phase, priority)`` (``ecs/compiled_declarations.py``:
# the one registry, ``CompiledPhase``, the checks); ``compiled_phase`` is that decorator with no
# phase of the schedule, under its first name, kept while branches written against it merge.

def compiled_phase(ruleset: str) -> Callable[[F], F]:
    """``extend(ruleset).compiled_system()``: ``fn`` compiled into the engine module as
    ``module.<fn name>``, its calls to the stubs bound to the engine's machine."""
    return extend(ruleset).compiled_system()


def phases_of(ruleset: str) -> list[CompiledPhase]:
    """Every compiled system of ``ruleset`` (scheduled or not), by name: the engine module holds
    each under its own name."""
    return sorted(extend(ruleset).compiled_systems.values(), key=lambda p: p.name)


# The phases call the machine through an ``unlinked`` caller (ecs/compiled/unlinked.py): the
# machine's address comes from ``m.fns``, so the game module holds none of the machine's code and
# serves every plugin set. Under NUMBA_DISABLE_JIT the phases call the Python machine itself.
UNLINKED = '''
import numba as _numba
from pathlib import Path as _Path
from battlesim.ecs.compiled import unlinked as _unlinked

_SIGNATURES = _Path(__file__).with_name("machine_signatures.pkl")

if _numba.config.DISABLE_JIT:
    def _resolve(fns, st, g, rng, b, m, kind, start, trigger, ctx, nctx):
        return _unlinked.machine_of(fns, _SIGNATURES).resolve(st, g, rng, b, m, kind, start, trigger, ctx, nctx)
else:
    _resolve = _unlinked.unlinked_caller("resolve_unlinked", _SIGNATURES)


# Nothing to resolve (no rows past ``start``, no pending event, no context row) is answered
# here, as ``resolve`` answers it, without the call: an unlinked call passes every array of
# ``st``, ``g`` and ``m`` as its leaves (hundreds of arguments), and most drain points of a game
# find nothing pending.
@njit(inline="always")
def _resolve_damage(st, g, rng, b, m, start):
    if m.qlen[b] <= start:
        m.info[0] = -1
        return 0
    return _resolve(m.fns, st, g, rng, b, m, 0, start, -1, m.arena, 0)


@njit(inline="always")
def _drain(st, g, rng, b, m):
    if st.nevents[b] == 0:
        m.info[0] = -1
        return 0
    return _resolve(m.fns, st, g, rng, b, m, 1, 0, -1, m.arena, 0)


@njit(inline="always")
def _fire(st, g, rng, b, m, trigger, ctx, nctx):
    if nctx == 0:
        m.info[0] = -1
        return 0
    return _resolve(m.fns, st, g, rng, b, m, 2, 0, trigger, ctx, nctx)


_MACHINE = {'resolve_damage': _resolve_damage, 'drain': _drain, 'fire': _fire}
'''


def machine_source(n_stages: int) -> str:
    """The machine's part of the machine module (after the stages and the interpreter's pieces
    and switches): the loop and its three entry points."""
    from battlesim.ecs.compiled.machine_text import MACHINE, stage_chain

    return MACHINE.replace("            # STAGES\n", stage_chain(n_stages))


def game_source(ruleset: str, phases: list[CompiledPhase], frozen: list[str], loop: str = "") -> str:
    """The text of the game module of ``ruleset``: each phase rebound to the machine (through
    ``m.fns``) and wrapped (cached), then ``loop``, the game loop (``loop.loop_source``).
    ``frozen``: the constants its functions read as globals (their values enter the hash)."""
    listing = "\n".join(f"  {line}" for line in frozen) or "  (none)"
    lines = [f'"""The compiled game of ruleset {ruleset!r}: its phases and game loop, generated by',
             "battlesim.ecs.compiled.machine. They reach the resolution machine through ``m.fns`` (one",
             "game module serves every plugin set's machine). Do not edit: its file name is a hash of",
             "every source it was built from. Constants its functions read as globals:",
             listing, '"""', "", "import importlib", "", "from numba import njit", "",
             f"RULESET = {ruleset!r}", "",
             "from battlesim.ecs.compiled.codegen import rebind as _rebind", UNLINKED]
    for k, p in enumerate(phases):
        args = ", ".join(p.params())
        lines += [f"_phase_{k} = _rebind(getattr(importlib.import_module({p.fn.__module__!r}), {p.name!r}), _MACHINE)",
                  "", "", "@njit(cache=True, _nrt=False)", f"def {p.name}({args}):",
                  f'    """{p.fn.__module__}.{p.name}, its machine calls through m.fns."""',
                  f"    return _phase_{k}({args})", ""]
    return "\n".join(lines) + loop

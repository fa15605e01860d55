"""The effect interpreter, compiled: card text (the integer rows of an ``EffectTable``) run for
one game, by a switch generated over the registered opcodes and selectors.

DESIGN.md "Effects and triggers": a firing ``(trigger, rows)`` walks the cards' effect rows, runs
each row's selector then its opcode; kernels push further triggers to the per-game event queue
(``ecs/compiled/events.py``), drained until quiet with a depth bound. This module holds the
registrations (one fixed signature per kind, as damage stages have one: the generated switch
calls any of them the same way) and the *text* of the generated ``fire``/``drain`` functions,
which ``codegen.engine_source`` writes into the engine module (numba caches only functions in
real files, and cannot load a recursive or dispatcher-taking function from its cache).

The kinds and their signatures (all arguments int64 arrays unless said):

- opcode ``op(w, g, rng, b, hits, nh, tbl, cols) -> int``: rows ``hits[:nh]`` (fields ``H_*``
  below, one per (effect row, target), in the numpy ``Hit``'s per-game order) of game ``b``;
  returns ``OK`` or ``UNPORTED`` (a case it cannot do compiled, e.g. a move that deals damage
  before the damage stages are compiled: the caller then knows the game is not reproduced);
- selector ``sel(w, g, rng, b, ctx, nctx, tbl, e, cols, out) -> int``: for the firing rows
  ``ctx[:nctx]`` (fields ``C_*``) of effect slot ``e``, writes ``(row, target)`` pairs to
  ``out[k, 0:2]`` in the numpy selector's per-game order and returns how many;
- quiet ``quiet(w, g, b, slot, cols) -> bool``: whether a source cannot trigger (lanes: silenced),
  the ``Executor.silenced`` of the numpy engine.

``w`` is the ``WorldState``, ``g`` the ruleset's NamedTuple of per-game arrays (``world_view``:
per-game fields are handed out by name, a kernel takes the few it needs), ``rng`` the compiled
RNG state ``uint64[B, 2]``, ``tbl`` the effect table ``int64[T_PARAMS + P, cards + 1, E]`` (last
card column: card id -1, no effect) and ``cols`` the piece's row of column ids (``reads``,
resolved by ``layout``; never module globals: DESIGN.md "Rules of the road").
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, Mapping, TypeVar

import numpy as np

from battlesim.ecs.plugin import PluginError, current_source, loaded_plugins, BUILT_IN

OK, TOO_DEEP, QUEUE_FULL, UNPORTED, NO_SLOT = 0, -1, -2, -3, -4  # what fire / drain / an opcode return

# the fields of a firing row (``ctx``): those of the numpy ``Ctx``, one game's row
C_CARD, C_OWNER, C_LANE, C_POS, C_SOURCE, C_CASTER, C_CHOSEN, C_CHOSEN_LANE, C_OTHER = range(9)
NCTX = 9
# the fields of a hit row: those of the numpy ``Hit`` (the effect slot too, for ``tbl`` reads)
(H_SOURCE, H_CASTER, H_OWNER, H_LANE, H_POS, H_CARD, H_TARGET, H_AMOUNT, H_CHOSEN_LANE, H_OTHER,
 H_EFFECT) = range(11)
NH = 11
# the rows of the effect table
T_TRIGGER, T_OP, T_SELECT, T_AMOUNT, T_PARAMS = 0, 1, 2, 3, 4

MAX_READS = 64  # column ids one piece may read (summon reads every keyword and its card row)
CAPACITY = 2048  # firing rows, selected targets or hits of one (slot, opcode, selector) group: a game's
# every entity times every cell of a side (more stops the game: QUEUE_FULL, never a silent overrun)
WIDTH = 16  # fields of a scratch row (>= NCTX, NH)
SCRATCH_OUT, SCRATCH_HITS, SCRATCH_ROWS, SCRATCH_GROUP, SCRATCH_EVENT = range(5)
MAX_DEPTH = 40  # ``Executor.max_depth``

SIGNATURES = {
    "opcode": ("w", "g", "rng", "b", "hits", "nh", "tbl", "cols"),
    "selector": ("w", "g", "rng", "b", "ctx", "nctx", "tbl", "e", "cols", "out"),
    "quiet": ("w", "g", "b", "slot", "cols"),
}
GROUP_CODES = {"i16": 0, "i8": 1, "flags": 2}  # ``any.<name>`` ids: (row << 2) | code

F = TypeVar("F", bound=Callable)


@dataclass(frozen=True)
class CompiledPiece:
    """A registered opcode, selector or quiet test: ``fn`` is the plain Python function the
    engine module compiles; ``name`` is the numpy registry's name (the table's ids map to it)."""

    kind: str
    name: str
    fn: Callable
    reads: tuple[str, ...]
    ruleset: str
    source: str


_PIECES: dict[tuple[str, str, str], CompiledPiece] = {}


def compiled_opcode(ruleset: str, name: str, reads: tuple[str, ...] | list[str] = ()) -> Callable[[F], F]:
    """Decorator: ``fn`` (the opcode signature) is the compiled twin of ``ruleset``'s opcode ``name``."""
    return _decorator("opcode", ruleset, name, reads)


def compiled_selector(ruleset: str, name: str, reads: tuple[str, ...] | list[str] = ()) -> Callable[[F], F]:
    """Decorator: ``fn`` (the selector signature) is the compiled twin of ``ruleset``'s selector ``name``."""
    return _decorator("selector", ruleset, name, reads)


def compiled_quiet(ruleset: str, reads: tuple[str, ...] | list[str] = ()) -> Callable[[F], F]:
    """Decorator: ``fn`` (the quiet signature) says which sources cannot trigger (one per ruleset)."""
    return _decorator("quiet", ruleset, "quiet", reads)


def _decorator(kind: str, ruleset: str, name: str, reads) -> Callable[[F], F]:
    def deco(fn: F) -> F:
        add_piece(CompiledPiece(kind, name, _python_function(fn, kind, name), tuple(reads), ruleset,
                                current_source()))
        return fn

    return deco


def add_piece(piece: CompiledPiece) -> None:
    """Register a piece, checked first: one line names its file and line and what is wrong."""
    where = _where(piece.fn)
    params = tuple(inspect.signature(piece.fn).parameters)
    want = SIGNATURES[piece.kind]
    if params != want:
        raise PluginError(f"{where}: {piece.kind} {piece.name!r} must take ({', '.join(want)}); "
                          f"it takes ({', '.join(params)})")
    if len(piece.reads) > MAX_READS:
        raise PluginError(f"{where}: {piece.kind} {piece.name!r} reads {len(piece.reads)} columns; at most {MAX_READS}")
    key = (piece.ruleset, piece.kind, piece.name)
    old = _PIECES.get(key)
    if old is not None and old.source != piece.source:
        raise PluginError(f"{where}: {piece.ruleset} {piece.kind} {piece.name!r} is already declared by {old.source}")
    _PIECES[key] = piece


def pieces_of(ruleset: str, kind: str) -> list[CompiledPiece]:
    """The pieces of one kind of ``ruleset`` whose plugin is loaded, by name (the switch's order)."""
    loaded = loaded_plugins()
    found = [p for (r, k, _), p in _PIECES.items()
             if r == ruleset and k == kind and (p.source == BUILT_IN or p.source in loaded)]
    return sorted(found, key=lambda p: p.name)


def interpreter_pieces(ruleset: str) -> tuple[list[CompiledPiece], list[CompiledPiece], list[CompiledPiece]]:
    """``(opcodes, selectors, quiet)`` of ``ruleset`` in switch order."""
    return pieces_of(ruleset, "opcode"), pieces_of(ruleset, "selector"), pieces_of(ruleset, "quiet")


# -- what the Python side hands the compiled interpreter ---------------------------------------

def effect_table(table: Any) -> np.ndarray:
    """``int64[T_PARAMS + P, cards + 1, E]``: an ``EffectTable`` for compiled code, its parameter
    columns in the table's order (``param_rows``); the extra last card (id -1) has no effect."""
    names = list(table.params)
    n, E = table.trigger.shape
    out = np.full((T_PARAMS + len(names), n + 1, E), -1, dtype=np.int64)
    out[T_AMOUNT, n] = 0
    for k, arr in enumerate([table.trigger, table.op, table.select, table.amount] + [table.params[p] for p in names]):
        out[k, :n] = arr
    return out


def param_rows(table: Any) -> dict[str, int]:
    """``effect.<param>`` -> its row of ``effect_table``: layout names for pieces' ``reads``."""
    return {f"effect.{p}": T_PARAMS + k for k, p in enumerate(table.params)}


def layout(view: Any, table: Any) -> dict[str, int]:
    """Every name a piece may read: the view's (``WorldView.layout``), ``effect.<param>``, and
    ``any.<component>`` (``(row << 2) | group code``, for opcodes that pick a component by a
    number at run time: ``grant_keyword`` of keyword k)."""
    out = dict(view.layout())
    out.update(param_rows(table))
    for name, (group, row) in view.columns.items():
        if group in GROUP_CODES:
            out[f"any.{name}"] = (row << 2) | GROUP_CODES[group]
    return out


def columns(pieces: tuple[list[CompiledPiece], list[CompiledPiece], list[CompiledPiece]],
            names: Mapping[str, int]) -> np.ndarray:
    """``int64[1 + n_opcodes + n_selectors, MAX_READS]``, the ``cols`` of ``fire``: row 0 the
    quiet test's, then each opcode's, then each selector's, in switch order."""
    ops, sels, quiet = pieces
    rows = [quiet[0] if quiet else None] + list(ops) + list(sels)
    out = np.full((len(rows), MAX_READS), -1, dtype=np.int64)
    for k, p in enumerate(rows):
        for j, name in enumerate(p.reads if p else ()):
            if name not in names:
                raise PluginError(f"{p.kind} {p.name!r} ({p.source}) reads {name!r}, which the world has no column for")
            out[k, j] = names[name]
    return out


def id_maps(pieces: tuple[list[CompiledPiece], list[CompiledPiece], list[CompiledPiece]],
            opcode_names: list[str], selector_names: list[str]) -> np.ndarray:
    """``int64[2, M]``: row 0 maps the table's opcode ids (the numpy ``Executor``'s) to switch
    indexes, row 1 the selector ids; -1 where no compiled twin is registered."""
    ops, sels, _ = pieces
    out = np.full((2, max(len(opcode_names), len(selector_names), 1)), -1, dtype=np.int64)
    index = {p.name: k for k, p in enumerate(ops)}
    for i, name in enumerate(opcode_names):
        out[0, i] = index.get(name, -1)
    index = {p.name: k for k, p in enumerate(sels)}
    for i, name in enumerate(selector_names):
        out[1, i] = index.get(name, -1)
    return out


def new_scratch() -> np.ndarray:
    """The interpreter's working rows, allocated once per chunk (never in hot code)."""
    return np.zeros((5, CAPACITY, WIDTH), dtype=np.int64)


def depth_message(seed: int, card: str) -> str:
    """The one line a game whose effects never settle stops with (``EffectDepthError``'s)."""
    return f"effects still triggering each other after {MAX_DEPTH} levels (card {card!r}, game with seed {seed})"


@dataclass
class Bound:
    """What ``fire``/``drain`` need besides the world, for one World and effect table: the
    table, the id maps, the column table and the scratch rows (built once per chunk)."""

    tbl: np.ndarray
    maps: np.ndarray
    cols: np.ndarray
    scratch: np.ndarray


def bind(ruleset: str, view: Any, table: Any, opcode_names: list[str], selector_names: list[str]) -> Bound:
    """The interpreter's arguments for a World (its ``WorldView``) and its ``EffectTable``, with
    the registered pieces of ``ruleset``; ``opcode_names``/``selector_names`` are the numpy
    ``Executor``'s registries in id order (the ids the table holds)."""
    pieces = interpreter_pieces(ruleset)
    return Bound(effect_table(table), id_maps(pieces, opcode_names, selector_names),
                 columns(pieces, layout(view, table)), new_scratch())


class EffectError(RuntimeError):
    """A game whose effects cannot be run compiled; its message is one line naming the seed."""


def check(status: int, seed: int, card: str) -> None:
    """Turn ``fire``/``drain``'s status into the one-line error a stopped game gives."""
    if status == TOO_DEEP:
        raise EffectError(depth_message(seed, card))
    if status == QUEUE_FULL:
        raise EffectError(f"trigger queue full (card {card!r}, game with seed {seed})")
    if status == NO_SLOT:
        raise EffectError(f"game with seed {seed} has no free entity slot (card {card!r})")
    if status == UNPORTED:
        raise EffectError(f"an effect of card {card!r} has no compiled opcode or selector yet (game with seed {seed})")


# -- the generated text ------------------------------------------------------------------------

def interpreter_source(ops: list[CompiledPiece], sels: list[CompiledPiece], quiet: list[CompiledPiece]) -> str:
    """The interpreter's part of the engine module: each piece compiled from its own function,
    the two switches, ``fire`` and ``drain``."""
    lines = [
        "",
        "# -- the effect interpreter (battlesim.ecs.compiled.interpreter) --",
        "from battlesim.ecs.compiled.interpreter import (C_CARD, C_CASTER, C_CHOSEN, C_CHOSEN_LANE, C_LANE,",
        "    C_OTHER, C_OWNER, C_POS, C_SOURCE, CAPACITY, H_AMOUNT, H_CARD, H_CASTER, H_CHOSEN_LANE, H_EFFECT,",
        "    H_LANE, H_OTHER, H_OWNER, H_POS, H_SOURCE, H_TARGET, NCTX, OK, QUEUE_FULL, SCRATCH_EVENT,",
        "    SCRATCH_GROUP, SCRATCH_HITS, SCRATCH_OUT, SCRATCH_ROWS, T_AMOUNT, T_OP, T_SELECT, T_TRIGGER,",
        "    TOO_DEEP, UNPORTED)",
        "from battlesim.ecs.compiled import events as _events",
        "",
    ]
    for prefix, group in (("op", ops), ("sel", sels), ("quiet", quiet)):
        for k, p in enumerate(group):
            lines.append(f"{prefix}_{k} = njit(cache=False)(getattr(importlib.import_module({p.fn.__module__!r}), "
                         f"{p.fn.__qualname__!r}))  # {p.name}")
    lines += ["", "", "@njit(cache=True)", "def run_opcode(k, w, g, rng, b, hits, nh, tbl, cols):",
              '    """Opcode k of the switch (its cols row: 1 + k)."""']
    for k, p in enumerate(ops):
        lines += [f"    if k == {k}:  # {p.name}", f"        return op_{k}(w, g, rng, b, hits, nh, tbl, cols[{1 + k}])"]
    lines += ["    return UNPORTED", "", "", "@njit(cache=True)",
              "def run_selector(k, w, g, rng, b, ctx, nctx, tbl, e, cols, out):",
              '    """Selector k of the switch (its cols row: 1 + n_opcodes + k); -1: not compiled."""']
    for k, p in enumerate(sels):
        lines += [f"    if k == {k}:  # {p.name}",
                  f"        return sel_{k}(w, g, rng, b, ctx, nctx, tbl, e, cols[{1 + len(ops) + k}], out)"]
    lines += ["    return -1", "", "", "@njit(cache=True)", "def is_quiet(w, g, b, slot, cols):"]
    lines += ["    return quiet_0(w, g, b, slot, cols[0])" if quiet else "    return False"]
    lines.append(_FIRE)
    return "\n".join(lines)


_FIRE = '''

@njit(cache=True)
def fire(w, g, rng, b, trigger, ctx, nctx, tbl, maps, cols, scratch):
    """Every effect on ``trigger`` of the cards of firing rows ``ctx[:nctx]`` of game b, as
    ``Executor.fire`` runs one game's rows: rows whose card has none, or whose source is quiet,
    dropped; effect slots in card order; in a slot, the (opcode, selector) pairs present by
    opcode id then selector id, each over its rows in row order: the selector expands them into
    (row, target) pairs, the opcode gets them as hits. Returns OK or UNPORTED."""
    rows = scratch[SCRATCH_ROWS]
    group = scratch[SCRATCH_GROUP]
    out = scratch[SCRATCH_OUT]
    hits = scratch[SCRATCH_HITS]
    E = tbl.shape[2]
    if nctx > CAPACITY:
        return QUEUE_FULL
    nk = 0
    for r in range(nctx):
        card = ctx[r, C_CARD]
        has = False
        for e in range(E):
            if tbl[T_TRIGGER, card, e] == trigger:
                has = True
        if not has:
            continue
        if ctx[r, C_SOURCE] >= 0 and is_quiet(w, g, b, ctx[r, C_SOURCE], cols):
            continue
        for f in range(NCTX):
            rows[nk, f] = ctx[r, f]
        nk += 1
    if nk == 0:
        return OK
    for e in range(E):
        last = -1
        while True:  # the pairs of this slot, smallest key first (numpy: sorted by opcode, selector)
            best = -1
            for r in range(nk):
                card = rows[r, C_CARD]
                if tbl[T_TRIGGER, card, e] != trigger:
                    continue
                key = (tbl[T_OP, card, e] << 16) | (tbl[T_SELECT, card, e] + 1)
                if key > last and (best < 0 or key < best):
                    best = key
            if best < 0:
                break
            last = best
            op = best >> 16
            sel = (best & 0xFFFF) - 1
            ng = 0
            for r in range(nk):
                card = rows[r, C_CARD]
                if tbl[T_TRIGGER, card, e] == trigger and ((tbl[T_OP, card, e] << 16) | (tbl[T_SELECT, card, e] + 1)) == best:
                    for f in range(NCTX):
                        group[ng, f] = rows[r, f]
                    ng += 1
            if sel < 0:  # no selector: one hit per row, no target
                nt = ng
                for i in range(ng):
                    out[i, 0] = i
                    out[i, 1] = -1
            else:
                if maps[1, sel] < 0:
                    return UNPORTED
                nt = run_selector(maps[1, sel], w, g, rng, b, group, ng, tbl, e, cols, out)
                if nt > CAPACITY:  # SCRATCH_OUT is row 0: an overrun lands in the scratch, and stops here
                    return QUEUE_FULL
            if nt == 0:  # no target: numpy runs no kernel (the selector's draws are made)
                continue
            kop = maps[0, op]
            if kop < 0:
                return UNPORTED
            for i in range(nt):
                r = out[i, 0]
                card = group[r, C_CARD]
                hits[i, H_SOURCE] = group[r, C_SOURCE]
                hits[i, H_CASTER] = group[r, C_CASTER]
                hits[i, H_OWNER] = group[r, C_OWNER]
                hits[i, H_LANE] = group[r, C_LANE]
                hits[i, H_POS] = group[r, C_POS]
                hits[i, H_CARD] = card
                hits[i, H_TARGET] = out[i, 1]
                hits[i, H_AMOUNT] = tbl[T_AMOUNT, card, e]
                hits[i, H_CHOSEN_LANE] = group[r, C_CHOSEN_LANE]
                hits[i, H_OTHER] = group[r, C_OTHER]
                hits[i, H_EFFECT] = e
            status = run_opcode(kop, w, g, rng, b, hits, nt, tbl, cols)
            if status != OK:
                return status
    return OK


@njit(cache=True)
def drain(w, g, rng, b, tbl, maps, cols, scratch, max_depth):
    """Fire game b's queued trigger events (``w.events``) until none is left: each a firing of
    one row (the numpy ``Ctx.make`` of that event: caster = source, nothing chosen), in queue
    order; the events they push form the next wave. More than ``max_depth`` waves: TOO_DEEP,
    with the card of the wave's first event in ``scratch[SCRATCH_EVENT, 0, C_CARD]`` for the
    caller's one-line error; a queue that overflowed: QUEUE_FULL."""
    ev = scratch[SCRATCH_EVENT]
    lo = 0
    depth = 0
    while w.nevents[b] > lo:
        hi = w.nevents[b]
        if hi > w.events.shape[1]:
            return QUEUE_FULL
        depth += 1
        if depth > max_depth:
            ev[0, C_CARD] = w.events[b, lo, _events.CARD]
            return TOO_DEEP
        for i in range(lo, hi):
            ev[0, C_CARD] = w.events[b, i, _events.CARD]
            ev[0, C_OWNER] = w.events[b, i, _events.OWNER]
            ev[0, C_LANE] = w.events[b, i, _events.LANE]
            ev[0, C_POS] = w.events[b, i, _events.POS]
            ev[0, C_SOURCE] = w.events[b, i, _events.SOURCE]
            ev[0, C_CASTER] = w.events[b, i, _events.SOURCE]
            ev[0, C_CHOSEN] = -1
            ev[0, C_CHOSEN_LANE] = -1
            ev[0, C_OTHER] = w.events[b, i, _events.OTHER]
            status = fire(w, g, rng, b, w.events[b, i, _events.TRIGGER], ev, 1, tbl, maps, cols, scratch)
            if status != OK:
                return status
        lo = hi
    w.nevents[b] = 0
    return OK
'''


def _python_function(fn: Callable, kind: str, name: str) -> Callable:
    """The plain module-level function behind ``fn``, defined in a real file (numba caches only those)."""
    py = getattr(fn, "py_func", fn)
    if not inspect.isfunction(py):
        raise PluginError(f"{kind} {name!r}: expected a function, got {type(fn).__name__}")
    file = inspect.getsourcefile(py)
    if not file or file.startswith("<"):
        raise PluginError(f"{kind} {name!r}: {py.__qualname__} is not defined in a file; put it in a module")
    if py.__qualname__ != py.__name__:
        raise PluginError(f"{_where(py)}: {kind} {name!r}: {py.__qualname__} must be a module-level function")
    return py


def _where(fn: Callable) -> str:
    code = getattr(fn, "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}" if code else repr(fn)

"""The effect interpreter, compiled: card text (the integer rows of an ``EffectTable``) run for
one game, by a switch generated over the registered opcodes and selectors.

DESIGN.md "Effects and triggers": a firing ``(trigger, rows)`` walks the cards' effect rows, runs
each row's selector then its opcode; kernels push further triggers to the per-game event queue
(``ecs/compiled/events.py``), drained until quiet with a depth bound. This module holds the
registrations (one fixed signature per kind, as damage stages have one: the generated switch
calls any of them the same way) and the *text* of the switches, which ``codegen.engine_source``
writes into the engine module (numba caches only functions in real files); firings are run by
the resolution machine generated beside them (``machine.py``), where effects and damage nest.

The kinds and their signatures (all arguments int64 arrays unless said):

- opcode ``op(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at) -> int``: rows ``hits[:nh]``
  (fields ``H_*`` below, one per (effect row, target), in the numpy ``Hit``'s per-game order) of
  game ``b``. Damage is dealt by pushing rows onto the damage queue (``damage_queue.push(queue,
  qlen, b, ...)``) and returning: the machine (``machine.py``) runs them through the pipeline,
  with the effects they trigger, before anything else happens. An opcode that must go on after
  its damage resolved (a battle's second step, the next hit of a move that deals passing damage)
  returns a positive resume token and is called again with ``at`` = that token (0 the first
  time; ``hits`` keeps what it wrote in its spare fields ``H_EFFECT + 1..WIDTH``). Returns
  ``OK`` (done), a token, or a negative status (``UNPORTED``, ``NO_SLOT``...);
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

from dataclasses import dataclass
from typing import Any, Callable, Mapping, TypeVar

import numpy as np

from battlesim.ecs.compiled_declarations import PIECE_READS, PIECE_SIGNATURES, CompiledPiece
from battlesim.ecs.plugin import PluginError, extend

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

MAX_READS = PIECE_READS  # column ids one piece may read (summon reads every keyword and its card row)
CAPACITY = 2048  # selected targets of one (slot, opcode, selector) group the arena must have room for: a
# game's every entity times every cell of a side (less room stops the game: QUEUE_FULL, never an overrun)
WIDTH = 24  # fields of an arena row (>= NCTX, NH; a hit's fields past H_EFFECT are its opcode's own)
MAX_DEPTH = 40  # ``Executor.max_depth``: firings nested in one another

SIGNATURES = PIECE_SIGNATURES
GROUP_CODES = {"i16": 0, "i8": 1, "flags": 2}  # ``any.<name>`` ids: (row << 2) | code

F = TypeVar("F", bound=Callable)


# Declared on ``extend(ruleset).compiled_opcode`` / ``compiled_selector`` / ``compiled_quiet``
# (``ecs/compiled_declarations.py``: the one registry and its checks). The three names below
# are those decorators under their first names, kept while branches written against them merge.

def compiled_opcode(ruleset: str, name: str, reads: tuple[str, ...] | list[str] = ()) -> Callable[[F], F]:
    """``extend(ruleset).compiled_opcode(name, reads)``."""
    return extend(ruleset).compiled_opcode(name, reads)


def compiled_selector(ruleset: str, name: str, reads: tuple[str, ...] | list[str] = ()) -> Callable[[F], F]:
    """``extend(ruleset).compiled_selector(name, reads)``."""
    return extend(ruleset).compiled_selector(name, reads)


def compiled_quiet(ruleset: str, reads: tuple[str, ...] | list[str] = ()) -> Callable[[F], F]:
    """``extend(ruleset).compiled_quiet(reads)``."""
    return extend(ruleset).compiled_quiet(reads)


def pieces_of(ruleset: str, kind: str) -> list[CompiledPiece]:
    """The pieces of one kind of ``ruleset`` (declared and not forgotten by ``isolated()``), by
    name (the switch's order)."""
    return extend(ruleset).compiled_pieces_of(kind)


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
    """``int64[1 + n_opcodes + n_selectors, MAX_READS]``, the machine's ``icols``: row 0 the
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


def depth_message(seed: int, card: str) -> str:
    """The one line a game whose effects never settle stops with (``EffectDepthError``'s)."""
    return f"effects still triggering each other after {MAX_DEPTH} levels (card {card!r}, game with seed {seed})"


@dataclass
class Bound:
    """What the interpreter needs besides the world, for one World and effect table: the
    table, the id maps and the column table (built once per chunk; ``machine.new_resolution``)."""

    tbl: np.ndarray
    maps: np.ndarray
    cols: np.ndarray


def bind(ruleset: str, view: Any, table: Any, opcode_names: list[str], selector_names: list[str]) -> Bound:
    """The interpreter's arguments for a World (its ``WorldView``) and its ``EffectTable``, with
    the registered pieces of ``ruleset``; ``opcode_names``/``selector_names`` are the numpy
    ``Executor``'s registries in id order (the ids the table holds)."""
    pieces = interpreter_pieces(ruleset)
    return Bound(effect_table(table), id_maps(pieces, opcode_names, selector_names),
                 columns(pieces, layout(view, table)))


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
    and the switches the resolution machine calls them through (``machine_text.py``)."""
    lines = [
        "",
        "# -- the effect interpreter (battlesim.ecs.compiled.interpreter) --",
        "from battlesim.ecs.compiled.interpreter import (C_CARD, C_CASTER, C_CHOSEN, C_CHOSEN_LANE, C_LANE,",
        "    C_OTHER, C_OWNER, C_POS, C_SOURCE, CAPACITY, H_AMOUNT, H_CARD, H_CASTER, H_CHOSEN_LANE, H_EFFECT,",
        "    H_LANE, H_OTHER, H_OWNER, H_POS, H_SOURCE, H_TARGET, NCTX, T_AMOUNT, T_OP, T_SELECT, T_TRIGGER,",
        "    UNPORTED)",
        "from battlesim.ecs.compiled import events as _events",
        "",
    ]
    for prefix, group in (("op", ops), ("sel", sels), ("quiet", quiet)):
        for k, p in enumerate(group):
            lines.append(f"{prefix}_{k} = njit(cache=False)(getattr(importlib.import_module({p.fn.__module__!r}), "
                         f"{p.fn.__qualname__!r}))  # {p.name}")
    lines += ["", "", "@njit(cache=True, _nrt=False)", "def run_opcode(k, w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):",
              '    """Opcode k of the switch (its cols row: 1 + k)."""']
    for k, p in enumerate(ops):
        lines += [f"    if k == {k}:  # {p.name}", f"        return op_{k}(w, g, rng, b, hits, nh, tbl, cols[{1 + k}], queue, qlen, at)"]
    lines += ["    return UNPORTED", "", "", "@njit(cache=True, _nrt=False)",
              "def run_selector(k, w, g, rng, b, ctx, nctx, tbl, e, cols, out):",
              '    """Selector k of the switch (its cols row: 1 + n_opcodes + k); -1: not compiled."""']
    for k, p in enumerate(sels):
        lines += [f"    if k == {k}:  # {p.name}",
                  f"        return sel_{k}(w, g, rng, b, ctx, nctx, tbl, e, cols[{1 + len(ops) + k}], out)"]
    lines += ["    return -1", "", "", "@njit(cache=True, _nrt=False)", "def is_quiet(w, g, b, slot, cols):"]
    lines += ["    return quiet_0(w, g, b, slot, cols[0])" if quiet else "    return False"]
    return "\n".join(lines)

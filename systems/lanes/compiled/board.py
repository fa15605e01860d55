"""The lanes board and entities, compiled: the twins of ``systems/lanes/board.py`` (the one place
that puts entities on, moves them on and takes them off the board) and of ``World.allocate`` /
``World.release``, for compiled effects.

``g.board[b, side, lane, pos]`` holds the slot standing there or -1, changed only here together
with the entities' ``lane``/``pos`` (and their presence masks, as ``World.add`` sets them).
What compiled code does not keep: ``World.version`` and the ``World.changes`` counters, Python
caches of the numpy engine (the aura source list); a World changed here must not be handed back
to numpy systems that trust those caches until the counters are bumped (the numpy engine goes
with issue 13's "One engine").
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from battlesim.components.keywords import KEYWORDS

EMPTY = -1  # an empty cell (board.EMPTY)
OK, NO_SLOT = 0, -4  # what spawn returns (interpreter.NO_SLOT)
_GROUP_ROW = {"i16": 0, "i8": 1, "flags": 2, "i16x2": 3}
# what spawn reads, in this order (an opcode that spawns lists these first in its reads)
SPAWN_READS = ("card_id", "owner", "faction", "attack", "health", "max_health", "lane", "pos", "aura",
               "present.card_id", "present.owner", "present.faction", "present.attack", "present.health",
               "present.max_health", "present.lane", "present.pos", "card.faction", "card.attack", "card.health",
               "card.aura_card") + tuple(f"any.{k}" for k in KEYWORDS) + tuple(f"card.kw_{k}" for k in KEYWORDS)
_KW0 = 21  # first keyword column of SPAWN_READS
_NKW = len(KEYWORDS)


class LanesFields(NamedTuple):
    """The per-game fields the compiled opcodes and selectors touch: the World's own arrays."""

    board: np.ndarray
    improvements: np.ndarray
    hand: np.ndarray
    hand_src: np.ndarray
    deck: np.ndarray
    deck_size: np.ndarray
    deck_top: np.ndarray
    card_drawn: np.ndarray
    round: np.ndarray
    burned: np.ndarray
    gold: np.ndarray
    resources: np.ndarray
    next_serial: np.ndarray  # World._next_serial: the serial the next entity of each game gets
    defaults: np.ndarray  # int64[4, K]: each component's (and presence mask's) default, by group row


def game_fields(w: Any, view: Any) -> LanesFields:
    """A lanes World's per-game arrays for compiled effects (no copy), with the defaults
    ``release`` writes (``WorldView`` ``view`` says which row of which group each component is)."""
    rows = max([view.state.i16.shape[0], view.state.i8.shape[0], view.state.flags.shape[0],
                view.state.i16x2.shape[0], 1])
    defaults = np.zeros((4, rows), dtype=np.int64)
    for name, (group, k) in view.columns.items():
        defaults[_GROUP_ROW[group], k] = int(w.components[name].default)
    per_game = [getattr(w.g, name) for name in LanesFields._fields[:-2]]
    return LanesFields(*per_game, w._next_serial, defaults)


def extra_cards(w: Any) -> dict[str, np.ndarray]:
    """Per-card rows the compiled spawn reads besides the catalog (``world_view``'s ``extra_cards``):
    ``aura_card``, whether a card's unit is an aura source (``w.cache["aura_cards"]``)."""
    return {"aura_card": np.asarray(w.cache["aura_cards"]).astype(np.int64)}



# -- the board -------------------------------------------------------------------------------

@njit
def board_place(w, g, b, slot, side, lane, pos, c_lane, c_pos, p_lane, p_pos):
    """board.place: the entity's lane and pos (and their presence), and the cell index."""
    w.i8[c_lane, b, slot] = lane
    w.i8[c_pos, b, slot] = pos
    w.flags[p_lane, b, slot] = True
    w.flags[p_pos, b, slot] = True
    g.board[b, side, lane, pos] = slot


@njit
def board_move(w, g, b, slot, lane, pos, c_owner, c_lane, c_pos, p_lane, p_pos):
    """board.move: a unit to an empty cell of its own side (the caller checked the cell)."""
    side = w.i8[c_owner, b, slot]
    g.board[b, side, w.i8[c_lane, b, slot], w.i8[c_pos, b, slot]] = EMPTY
    board_place(w, g, b, slot, side, lane, pos, c_lane, c_pos, p_lane, p_pos)


@njit
def board_swap(w, g, b, a, other, c_owner, c_lane, c_pos, p_lane, p_pos):
    """board.swap: two units of one side exchange cells."""
    side = w.i8[c_owner, b, a]
    la, pa = w.i8[c_lane, b, a], w.i8[c_pos, b, a]
    lb, pb = w.i8[c_lane, b, other], w.i8[c_pos, b, other]
    board_place(w, g, b, a, side, lb, pb, c_lane, c_pos, p_lane, p_pos)
    board_place(w, g, b, other, side, la, pa, c_lane, c_pos, p_lane, p_pos)


@njit
def allocate(w, g, b):
    """World.allocate for one game: its first free slot, alive, with the next serial; -1 when
    the game has none (the caller stops it naming its seed)."""
    for s in range(w.alive.shape[1]):
        if not w.alive[b, s]:
            w.alive[b, s] = True
            w.serial[b, s] = g.next_serial[b]
            g.next_serial[b] = g.next_serial[b] + 1
            return s
    return -1


@njit
def release(w, g, b, slot):
    """World.release for one entity: the slot freed and every component (and presence mask)
    there back to its default."""
    w.alive[b, slot] = False
    for k in range(w.i16.shape[0]):
        w.i16[k, b, slot] = g.defaults[0, k]
    for k in range(w.i8.shape[0]):
        w.i8[k, b, slot] = g.defaults[1, k]
    for k in range(w.flags.shape[0]):
        w.flags[k, b, slot] = g.defaults[2, k] != 0
    for k in range(w.i16x2.shape[0]):
        for j in range(w.i16x2.shape[3]):
            w.i16x2[k, b, slot, j] = g.defaults[3, k]


@njit
def spawn(w, g, b, side, lane, pos, card, cols):
    """board.spawn of one card's unit (not a creep, not a hero) at an empty cell: its stats and
    keywords from the catalog, an aura source if its card is one. ``cols`` starts with the ids
    of ``SPAWN_READS``. Returns the slot, or -1 when the game has no free slot."""
    s = allocate(w, g, b)
    if s < 0:
        return -1
    w.i16[cols[0], b, s] = card
    w.i8[cols[1], b, s] = side
    w.i8[cols[2], b, s] = w.cat[cols[17], card]
    hp = w.cat[cols[19], card]
    w.i16[cols[3], b, s] = w.cat[cols[18], card]
    w.i16[cols[4], b, s] = hp
    w.i16[cols[5], b, s] = hp
    for j in range(9, 15):
        w.flags[cols[j], b, s] = True
    for j in range(_NKW):
        code = cols[_KW0 + j]
        value = w.cat[cols[_KW0 + _NKW + j], card]
        if code & 3 == 0:
            w.i16[code >> 2, b, s] = value
        elif code & 3 == 1:
            w.i8[code >> 2, b, s] = value
        else:
            w.flags[code >> 2, b, s] = value != 0
    if w.cat[cols[20], card] != 0:
        w.flags[cols[8], b, s] = True
    board_place(w, g, b, s, side, lane, pos, cols[6], cols[7], cols[15], cols[16])
    return s


@njit
def remove(w, g, b, slot, c_owner, c_lane, c_pos):
    """board.remove of one unit: its cell emptied, its slot released."""
    g.board[b, w.i8[c_owner, b, slot], w.i8[c_lane, b, slot], w.i8[c_pos, b, slot]] = EMPTY
    release(w, g, b, slot)


@njit
def remove_improvement(w, g, b, slot, c_owner, c_lane):
    """board.remove_improvement: the lane's list stays in age order (later ones shift left)."""
    side, lane = w.i8[c_owner, b, slot], w.i8[c_lane, b, slot]
    n = 0
    row = g.improvements[b, side, lane]
    for j in range(row.shape[0]):
        if row[j] != slot and row[j] != EMPTY:
            row[n] = row[j]
            n += 1
    for j in range(n, row.shape[0]):
        row[j] = EMPTY
    release(w, g, b, slot)


# what add_improvement reads, in this order (a caller lists these in its column table)
IMPROVEMENT_READS = ("card_id", "owner", "faction", "lane", "pos", "timer", "charges", "improvement", "aura",
                     "present.card_id", "present.owner", "present.faction", "present.lane", "present.pos",
                     "card.faction", "card.duration", "card.ability_charges", "card.aura_card")


@njit
def add_improvement(w, g, b, side, lane, card, cols):
    """board.add_improvement of one card: lanes.md "Attach to a lane, not a specific position or
    unit" (lane set, position -1, both present), its timer ("duration") and charges from the
    catalog, the Improvement tag, an aura source if its card is one, and the lane's first empty
    improvement entry (the caller checked there is room: "Maximum 3 Improvements per lane per
    player"). ``cols`` starts with the ids of ``IMPROVEMENT_READS``. Returns the slot, or -1
    when the game has no free slot."""
    s = allocate(w, g, b)
    if s < 0:
        return -1
    w.i16[cols[0], b, s] = card
    w.i8[cols[1], b, s] = side
    w.i8[cols[2], b, s] = w.cat[cols[14], card]
    w.i8[cols[3], b, s] = lane
    w.i8[cols[4], b, s] = -1
    w.i16[cols[5], b, s] = w.cat[cols[15], card]
    w.i16[cols[6], b, s] = w.cat[cols[16], card]
    w.flags[cols[7], b, s] = True
    for j in range(9, 14):
        w.flags[cols[j], b, s] = True
    if w.cat[cols[17], card] != 0:
        w.flags[cols[8], b, s] = True
    row = g.improvements[b, side, lane]
    for j in range(row.shape[0]):
        if row[j] == EMPTY:
            row[j] = s
            break
    return s

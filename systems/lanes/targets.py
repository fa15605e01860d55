"""Chosen targets: which units a card or ability may be aimed at.

lanes.md: "Stealth - Cannot be targeted" (an enemy's stealth units cannot be chosen; ledger: a
player may still choose their own); "Untargetable - Cannot be targeted by spells or abilities";
"Creeps do not count as units you 'control' for card effects that specify 'your units'" (an
ally target is never a creep). A card with range "lane" aims inside its origin lane.
A target is a cell (side, lane, position): ``TARGET`` block index ``(side * L + lane) * P + pos``.
"""

from __future__ import annotations

import numpy as np

from battlesim.systems.lanes import cellsets, stats
from battlesim.systems.lanes.vocabulary import TARGET_KINDS

ENEMY_UNIT, ALLY_UNIT, ANY_UNIT, LANE = (TARGET_KINDS.index(k) for k in ("enemy_unit", "ally_unit", "unit", "lane"))


def sides(w, games: np.ndarray, seat: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(own, own_fl, opp, opp_fl)``: the seat's side of the board and the opponent's, ``int16[n,
    L*P]`` (cell ``l * P + p``: a slot or -1), each read as one row per game, and their flat entity
    indices (``w.flat``). An empty cell's index points at some other entity (the previous game's
    last slot; the batch's last one for game 0): every read through it must be masked by
    occupancy, which saves a select per side."""
    _, _, L, P = w.g.board.shape
    row = games * 2 + seat  # the (game, seat) row of the board
    board = w.g.board.reshape(-1, L * P)
    own, opp = board[row], board[row ^ 1]
    first = games[:, None] * w.n_slots
    return own, first + own, opp, first + opp


def aimable(w, own: np.ndarray, own_fl: np.ndarray, opp: np.ndarray, opp_fl: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(enemy_ok, ally_ok)``, ``bool[n, L*P]`` over the cells of ``sides``: the opponent's
    cells holding a unit the seat may choose as an enemy target, its own cells holding one it may
    choose as an ally target."""
    enemy = (opp >= 0) & (w.take("untargetable", opp_fl) <= 0) & ~stats.keyword_flat(w, "stealth", opp_fl).astype(bool, copy=False)
    ally = (own >= 0) & (w.take("untargetable", own_fl) <= 0) & ~w.take("creep", own_fl)
    return enemy, ally


def unit_target_bits(w, games: np.ndarray, seat: np.ndarray, kind: np.ndarray, lane: np.ndarray,
                     any_lane: np.ndarray) -> np.ndarray:
    """``uint64[n]``: the cells the seat may choose for a target of ``kind`` from origin ``lane``
    (``any_lane``: range "any"), as bit sets over absolute sides (bit ``(side * L + lane) * P +
    pos``, the TARGET block's order); 0 where no unit may be chosen."""
    _, _, L, P = w.g.board.shape
    enemy, ally = aimable(w, *sides(w, games, seat))
    enemy &= ((kind == ENEMY_UNIT) | (kind == ANY_UNIT))[:, None]
    ally &= ((kind == ALLY_UNIT) | (kind == ANY_UNIT))[:, None]
    cells = cellsets.to_bits(np.concatenate([ally, enemy], axis=1))  # the seat's side first: seat 0's layout
    every, _ = cellsets.lane_cells(L, P)
    keep = np.where(any_lane, every[-1], every[np.left_shift(1, lane)])  # range "any": every lane
    side = np.uint64(L * P)
    cells &= keep | (keep << side)
    return np.where(seat == 0, cells, (cells >> side) | ((cells << side) & ((np.uint64(1) << (side * np.uint64(2))) - np.uint64(1))))

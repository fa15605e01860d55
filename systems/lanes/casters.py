"""Who casts a spell: lanes.md "Faction Restrictions": "Cross-lane and global/no-lane spells use
the caster's lane as the origin (caster selection required if multiple valid heroes exist)".

A valid hero is one of the player's own heroes of the spell's faction standing in the origin
lane (the lane the player played the spell from). With one, it casts; with several, the player
chooses (a CASTER decision, answered with the TARGET-block entry of the hero's own cell, so the
action table keeps its size; ledger, interpretation 28).
"""

from __future__ import annotations

import numpy as np

from battlesim.ecs.npx import any_axis


def valid_casters(w, games: np.ndarray, seat: np.ndarray, lane: np.ndarray, faction: np.ndarray) -> np.ndarray:
    """``bool[n, P]``: the positions of the origin ``lane`` holding an own hero of ``faction``."""
    cells = w.g.board[games, seat, lane]  # [n, P]
    occ = cells >= 0
    fl = w.flat(games[:, None], np.where(occ, cells, 0))  # flat entity index, computed once for the reads below
    return occ & w.take("hero", fl) & (w.take("faction", fl) == faction[:, None])


def caster_of(w, games: np.ndarray, seat: np.ndarray, lane: np.ndarray, faction: np.ndarray) -> np.ndarray:
    """The slot of the valid caster (``valid_casters``) where there is at most one (the play
    phase asks the player where there are several: ``several``); -1 with none."""
    ok = valid_casters(w, games, seat, lane, faction)
    first = np.argmax(ok, axis=1)
    return np.where(any_axis(ok, 1), w.g.board[games, seat, lane, first], -1)


def caster_cells(w, games: np.ndarray, seat: np.ndarray, lane: np.ndarray, faction: np.ndarray) -> np.ndarray:
    """``uint64[n]``: the valid casters as TARGET-block bits (bit ``(side * L + lane) * P + pos``,
    the acting seat's own side)."""
    _, _, L, P = w.g.board.shape
    ok = valid_casters(w, games, seat, lane, faction)
    bit = ((seat * L + lane) * P)[:, None] + np.arange(P)
    return np.bitwise_or.reduce(np.where(ok, np.left_shift(np.uint64(1), bit.astype(np.uint64)), np.uint64(0)), axis=1)


def several(w, games: np.ndarray, seat: np.ndarray, lane: np.ndarray, faction: np.ndarray) -> np.ndarray:
    """``bool[n]``: more than one valid caster, so the player must choose."""
    return valid_casters(w, games, seat, lane, faction).sum(axis=1) > 1

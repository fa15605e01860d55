"""Chosen targets: which units a card or ability may be aimed at.

lanes.md: "Stealth - Cannot be targeted" (an enemy's stealth units cannot be chosen; ledger: a
player may still choose their own); "Untargetable - Cannot be targeted by spells or abilities";
"Creeps do not count as units you 'control' for card effects that specify 'your units'" (an
ally target is never a creep). A card with range "lane" aims inside its origin lane.
A target is a cell (side, lane, position): ``TARGET`` block index ``(side * L + lane) * P + pos``.
"""

from __future__ import annotations

import numpy as np

from systems.lanes import stats
from systems.lanes.vocabulary import TARGET_KINDS

ENEMY_UNIT, ALLY_UNIT, ANY_UNIT, LANE = (TARGET_KINDS.index(k) for k in ("enemy_unit", "ally_unit", "unit", "lane"))


def unit_targets(w, games: np.ndarray, seat: np.ndarray, kind: np.ndarray, lane: np.ndarray,
                 any_lane: np.ndarray) -> np.ndarray:
    """``bool[n, 2, L, P]`` (absolute sides): cells the seat may choose for a target of ``kind``
    from origin ``lane`` (``any_lane``: range "any")."""
    enemy_ok, ally_ok = target_cells(w, games, seat)
    k = kind[:, None, None, None]
    out = np.where(k == ENEMY_UNIT, enemy_ok, np.where(k == ALLY_UNIT, ally_ok, enemy_ok | ally_ok))
    out &= (k == ENEMY_UNIT) | (k == ALLY_UNIT) | (k == ANY_UNIT)
    in_lane = np.arange(enemy_ok.shape[2])[None, None, :, None] == lane[:, None, None, None]
    return out & (in_lane | any_lane[:, None, None, None])


def target_cells(w, games: np.ndarray, seat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(enemy_ok, ally_ok)``, each ``bool[n, 2, L, P]`` (absolute sides): the cells holding a
    unit the seat may choose as an enemy target, as an ally target (one read of the board)."""
    cells = w.g.board[games]  # [n, 2, L, P]
    occ = cells >= 0
    gi = games[:, None, None, None]
    sl = np.where(occ, cells, 0)
    fl = w.flat(gi, sl)  # flat entity index, computed once for the reads below
    mine = (np.arange(2)[None, :, None, None] == seat[:, None, None, None])
    untarget = w.take("untargetable", fl) > 0
    stealth = stats.keyword_flat(w, "stealth", fl).astype(bool)
    creep = w.take("creep", fl)
    ok = occ & ~untarget
    return ok & ~mine & ~stealth, ok & mine & ~creep

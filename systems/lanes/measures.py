"""Measures recorded during play for the games table (not rules: nothing reads them back).

``ObjectiveSnapshot`` keeps each side's total objective HP at the end of round
``SNAPSHOT_ROUND`` (5), so that ``battlesim balance`` can measure *decisiveness*: how often
the side ahead at round 5 goes on to win (docs/balance.md). The games table can only hold
final HP; an early lead has to be recorded while the game is running.

Objective HP of a side = the sum over its lanes of the HP left before that lane's objective
is destroyed: anchor HP left plus the full essence behind a standing anchor, the essence's HP
once the anchor has fallen, 0 for a destroyed lane (ledger, docs/rules/lanes.md
"Interpretations").
"""

from __future__ import annotations

import esper
import numpy as np

SNAPSHOT_ROUND = 5
NOT_RECORDED = -1  # games that ended before the end of SNAPSHOT_ROUND (a null in the games table)


def objective_hp(w, games: np.ndarray) -> np.ndarray:
    """``int[n, 2]``: each side's total objective HP in ``games`` (anchors are slots
    ``side * lanes + lane``)."""
    L = w.params.lanes
    anchors = np.arange(2 * L).reshape(2, L)
    hp = np.maximum(w.c.health[games[:, None, None], anchors[None]], 0).astype(np.int32)
    essence = w.c.essence[games[:, None, None], anchors[None]]
    ruined = w.c.ruined[games[:, None, None], anchors[None]]
    left = np.where(ruined, 0, np.where(essence, hp, hp + w.params.essence_hp))
    return left.sum(axis=2)


class ObjectiveSnapshot(esper.Processor):
    """The numpy twin of ``compiled.processors.ObjectiveSnapshot`` (whose docstring cites the rule): the
    reference it was proved against, played only by the opt-in differential tests."""

    priority = 5  # between EndOfRound (10) and RoundEnd (0)

    def process(self, w) -> None:
        g = np.flatnonzero(w.active & (w.g.round == SNAPSHOT_ROUND))
        if g.size:
            w.g.objective_hp_snapshot[g] = objective_hp(w, g)


def snapshot_columns(w) -> dict[str, np.ndarray]:
    """Games-table columns ``objective_hp_r5_0`` and ``objective_hp_r5_1``: masked (null in
    Parquet) where the game ended before the end of round ``SNAPSHOT_ROUND``."""
    v = w.g.objective_hp_snapshot
    return {f"objective_hp_r{SNAPSHOT_ROUND}_{side}": np.ma.masked_array(v[:, side].astype(np.int16),
                                                         mask=v[:, side] == NOT_RECORDED)
            for side in range(2)}

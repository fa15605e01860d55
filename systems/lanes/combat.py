"""The combat phase (lanes.md "Phase 3: Combat Phase", "Combat Resolution").

"Combat proceeds lane by lane"; "Odd rounds (1, 3, 5...): Lane 0 -> Lane 1 -> Lane 2",
"Even rounds (2, 4, 6...): Lane 2 -> Lane 1 -> Lane 0". "Units only attack the opposing
unit at the same position"; "Both units deal their attack as damage to each other
(simultaneous)"; "If no opposing unit exists, the unit attacks the anchor directly".
"Within a lane, all fights at each position are simultaneous": each lane is one damage
batch. "Destroyed units are only removed after the entire lane resolves".
"""

from __future__ import annotations

import esper
import numpy as np

from ecs.damage import ATTACK, COMBAT, DamageBatch
from systems.lanes import board
from systems.lanes.deaths import resolve_deaths


def lane_attacks(w, games: np.ndarray, lane: int) -> DamageBatch:
    """Every attack in one lane of the listed games, both sides at once."""
    parts = []
    for side in range(2):
        mine = w.g.board[games, side, lane]  # [n, P]
        theirs = w.g.board[games, 1 - side, lane]
        has = mine >= 0
        gi = np.broadcast_to(games[:, None], mine.shape)
        b, src = gi[has], mine[has]
        opposed = theirs[has] >= 0
        anchor = board.anchor_slot(1 - side, lane)
        target = np.where(opposed, theirs[has], anchor)
        # Once an objective is destroyed there is nothing left to attack there.
        keep = opposed | ~w.c.ruined[b, anchor]
        b, src, target = b[keep], src[keep], target[keep]
        parts.append(DamageBatch(b, src, target, w.c.attack[b, src], COMBAT | ATTACK))
    batch = DamageBatch.concat(parts)
    live = batch.amount > 0
    if live.all():
        return batch
    return DamageBatch(batch.game[live], batch.source[live], batch.target[live], batch.amount[live], batch.kind[live])


class Combat(esper.Processor):
    def __init__(self, pipeline) -> None:
        self.pipeline = pipeline

    def process(self, w) -> None:
        games = np.flatnonzero(w.active)
        if games.size == 0:
            return
        odd = (w.g.round[games] % 2) == 1
        L = w.params.lanes
        for order, sel in ((range(L), odd), (range(L - 1, -1, -1), ~odd)):
            g = games[sel]
            if g.size == 0:
                continue
            for lane in order:
                batch = self.pipeline.run(w, lane_attacks(w, g, lane))
                esper.dispatch_event("lanes.combat", w, lane, batch)
                resolve_deaths(w)

"""Winning, and the end of a round (lanes.md "Win Condition", "Phase 3").

"Win by either: Destroying 2 anchors across 2 different lanes, OR Destroying 1 anchor AND
its essence in the same lane". "After all lanes resolve, check win condition". If both
players meet a condition in the same check the game is a draw (ledger). A game still
running after ``round_limit`` rounds is a draw with reason ``round_limit``.
"""

from __future__ import annotations

import esper
import numpy as np

from battlesim.ecs.npx import sum_last
from battlesim.systems.lanes.state import END_REASONS

TWO_ANCHORS = END_REASONS.index("two_anchors")
LANE_DESTROYED = END_REASONS.index("lane_destroyed")
ROUND_LIMIT = END_REASONS.index("round_limit")
SIMULTANEOUS = END_REASONS.index("simultaneous")


def objectives(w) -> tuple[np.ndarray, np.ndarray]:
    """(fallen anchors, destroyed lanes) per game and side: ``int[B, 2]`` each."""
    L = w.params.lanes
    anchors = np.arange(2 * L).reshape(2, L)  # slot = side * L + lane
    fallen = sum_last(w.c.essence[:, anchors] | w.c.ruined[:, anchors])
    ruined = sum_last(w.c.ruined[:, anchors])
    return fallen, ruined


def finish(w, games: np.ndarray, winner: np.ndarray | int, reason: np.ndarray | int) -> None:
    w.g.winner[games] = winner
    w.g.end_reason[games] = reason
    w.g.rounds[games] = w.g.round[games]
    w.active[games] = False
    esper.dispatch_event("lanes.game_over", w, games)


class VictoryCheck(esper.Processor):
    """The numpy twin of ``compiled.processors.VictoryCheck`` (whose docstring cites the rule): the
    reference it was proved against, played only by the opt-in differential tests."""

    priority = -10  # after combat, inside the combat phase

    def process(self, w) -> None:
        fallen, ruined = objectives(w)
        # side s wins when the *opponent's* objectives are down
        wins = (fallen[:, ::-1] >= 2) | (ruined[:, ::-1] >= 1)
        wins &= w.active[:, None]
        both = wins[:, 0] & wins[:, 1]
        one = wins[:, 0] ^ wins[:, 1]
        g = np.flatnonzero(one)
        if g.size:
            winner = np.where(wins[g, 0], 0, 1)
            lane_down = ruined[g, 1 - winner] >= 1
            finish(w, g, winner, np.where(lane_down, LANE_DESTROYED, TWO_ANCHORS))
        g = np.flatnonzero(both)
        if g.size:
            finish(w, g, -1, SIMULTANEOUS)


class RoundEnd(esper.Processor):
    """The numpy twin of ``compiled.processors.RoundEnd`` (whose docstring cites the rule): the
    reference it was proved against, played only by the opt-in differential tests."""

    def process(self, w) -> None:
        over = w.active & (w.g.round >= w.params.round_limit)
        g = np.flatnonzero(over)
        if g.size:
            finish(w, g, -1, ROUND_LIMIT)
        w.g.round[w.active] += 1


"""Event triggers that fire on *other* units: deploys and plays.

lanes.md "Effect Timings": "On Ally Deploy - Triggers when an allied unit is deployed",
"On Enemy Deploy - Triggers when an enemy unit is deployed", "On Enemy Play - Triggers when enemy
plays any card", "On Play Ally - Triggers when you play an allied card". Ledger: "deployed" means
entering the board by being played or by hero deployment (creep spawns and summons are not
deployments); each listener fires once per event, the event's unit excluded.
"""

from __future__ import annotations

import numpy as np

from ecs.effects import Ctx
from ecs.npx import nonzero
from systems.lanes.vocabulary import EXECUTOR


def notify(w, events: tuple[tuple[str, bool], ...], games: np.ndarray, side: np.ndarray, other: np.ndarray) -> None:
    """Fire each ``(trigger, same_side)`` of ``events`` for every unit or improvement of ``side``
    (``same_side``) or of the opponent whose card listens to it, once per event row; ``other`` is
    the event's entity. The board is read once for all of them."""
    wanted = [(t, same) for t, same in events if w.cache.get(t) is not None]
    if not wanted or games.size == 0:
        return
    card = w.c.card_id[games]  # [n, S]
    safe = np.where(card >= 0, card, 0)
    base = (card >= 0) & w.alive[games] & ~w.c.anchor[games]
    base &= np.arange(w.n_slots)[None, :] != other[:, None]
    mine = w.c.owner[games] == side[:, None]
    for trigger, same in wanted:
        has = w.cache[trigger][safe] & base & (mine if same else ~mine)
        ri, s = nonzero(has)
        if ri.size == 0:
            continue
        b = games[ri]
        EXECUTOR.fire(w, trigger, Ctx.make(b, card[ri, s], w.c.owner[b, s], w.c.lane[b, s], w.c.pos[b, s],
                                           source=s, other=other[ri]))


def deployed(w, games: np.ndarray, side: np.ndarray, slots: np.ndarray) -> None:
    notify(w, (("on_ally_deploy", True), ("on_enemy_deploy", False)), games, side, slots)


def played(w, games: np.ndarray, side: np.ndarray, slots: np.ndarray) -> None:
    """``slots``: the played card's entity, -1 for spells and equipment."""
    notify(w, (("on_play_ally", True), ("on_enemy_play", False)), games, side, slots)


def deployed_and_played(w, games: np.ndarray, side: np.ndarray, slots: np.ndarray) -> None:
    """A unit played from hand is both deployed and played: one read of the board for the four."""
    notify(w, (("on_ally_deploy", True), ("on_enemy_deploy", False), ("on_play_ally", True), ("on_enemy_play", False)),
           games, side, slots)

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
from systems.lanes.vocabulary import EXECUTOR


def notify(w, trigger: str, games: np.ndarray, side: np.ndarray, same_side: bool, other: np.ndarray) -> None:
    """Fire ``trigger`` for every unit or improvement of ``side`` (``same_side``) or of the
    opponent whose card listens to it, once per event row; ``other`` is the event's entity."""
    listen = w.cache.get(trigger)
    if listen is None or games.size == 0:
        return
    card = w.c.card_id[games]  # [n, S]
    owner = w.c.owner[games]
    want = side[:, None] if same_side else 1 - side[:, None]
    has = listen[np.where(card >= 0, card, 0)] & (card >= 0) & w.alive[games] & (owner == want) & ~w.c.anchor[games]
    has &= np.arange(w.n_slots)[None, :] != other[:, None]
    ri, s = np.nonzero(has)
    if ri.size == 0:
        return
    b = games[ri]
    EXECUTOR.fire(w, trigger, Ctx.make(b, w.c.card_id[b, s], w.c.owner[b, s], w.c.lane[b, s], w.c.pos[b, s],
                                       source=s, other=other[ri]))


def deployed(w, games: np.ndarray, side: np.ndarray, slots: np.ndarray) -> None:
    notify(w, "on_ally_deploy", games, side, True, slots)
    notify(w, "on_enemy_deploy", games, side, False, slots)


def played(w, games: np.ndarray, side: np.ndarray, slots: np.ndarray) -> None:
    """``slots``: the played card's entity, -1 for spells and equipment."""
    notify(w, "on_play_ally", games, side, True, slots)
    notify(w, "on_enemy_play", games, side, False, slots)

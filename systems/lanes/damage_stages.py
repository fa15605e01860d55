"""Lanes' stages of the damage pipeline: anchors falling to essence, death marks.

lanes.md "Anchor & Essence System": "When an anchor reaches 0 HP, it transforms into an
essence"; "Essence has 40 HP"; "When essence reaches 0 HP, that lane's objective is
destroyed". Ledger: damage beyond an anchor's last HP does not carry into the essence.
"""

from __future__ import annotations

import numpy as np

from ecs.damage import APPLY_HEALTH, DEATH, REACTIONS, DamageBatch, DamagePipeline, StageSpec


def anchor_falls(w, batch: DamageBatch) -> None:
    b, t = batch.game, batch.target
    hit = w.c.anchor[b, t] & (w.c.health[b, t] <= 0)
    if not hit.any():
        return
    b, t = b[hit], t[hit]
    was_essence = w.c.essence[b, t]
    # An anchor hit twice in one batch appears twice; both rows agree, so plain assignment is fine.
    fall = b[~was_essence], t[~was_essence]
    w.c.essence[fall] = True
    w.c.health[fall] = w.params.essence_hp
    w.c.max_health[fall] = w.params.essence_hp
    ruin = b[was_essence], t[was_essence]
    w.c.ruined[ruin] = True
    w.c.health[ruin] = 0


def mark_dying(w, batch: DamageBatch) -> None:
    """"Units with 0 or less health are marked as destroyed" (lanes.md "Combat Resolution")."""
    b, t = batch.game, batch.target
    dead = ~w.c.anchor[b, t] & (w.c.health[b, t] <= 0)
    w.c.dying[b[dead], t[dead]] = True


ANCHOR_FALLS = StageSpec("anchor_falls", REACTIONS + 50, anchor_falls)
MARK_DYING = StageSpec("mark_dying", DEATH, mark_dying)


def lanes_pipeline() -> DamagePipeline:
    return DamagePipeline([APPLY_HEALTH, ANCHOR_FALLS, MARK_DYING])

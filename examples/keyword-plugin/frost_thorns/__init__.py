"""frost_thorns: two lanes keywords the rules do not have, declared as a designer would.

- ``frostbite X``: "a unit damaged by this unit's attack is stunned X".
- ``thorns X``: "physical damage taken returns X to the attacker, once per instance".

Each keyword is a component (``extend("lanes").keyword``) plus a damage-pipeline stage, twice
while both engines run: the numpy stage here (``extend("lanes").damage_stage``, over a whole
batch) and its compiled twin in ``compiled.py`` (``extend("lanes").compiled_damage_stage``, one
row of one game, numba's subset). The card and deck files in this package name them like
built-ins. Nothing in battlesim's core knows about them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from battlesim.ecs.damage import ATTACK, REACTIONS, DamageBatch
from battlesim.ecs.plugin import extend
from battlesim.systems.lanes import stats

from .compiled import THORNS  # the compiled twins (and the THORNS damage kind both use)

lanes = extend("lanes")

lanes.keyword("frostbite", value="number",
              doc="Frostbite X: a unit damaged by this unit's attack is stunned X (X stun stacks).")
lanes.keyword("thorns", value="number",
              doc="Thorns X: physical damage taken returns X damage to the attacker, once per instance.")


def _attack_rows(w, batch: DamageBatch) -> np.ndarray:
    """Rows of attack damage (a unit's attack in combat, a battle or a strike: lanes' physical
    damage) from a unit that reached health (``dealt``: after shield and armor)."""
    return np.flatnonzero(((batch.kind & ATTACK) != 0) & (batch.source >= 0) & (batch.dealt > 0))


@lanes.damage_stage("frostbite", priority=REACTIONS + 5)
def frostbite(w, batch: DamageBatch) -> None:
    """Frostbite X: each instance of attack damage that reaches a unit's health adds X stun stacks
    to it (like ``apply_status stunned X``; stun loses a stack at the end of each round)."""
    rows = _attack_rows(w, batch)
    if rows.size == 0:
        return
    b, t, src = batch.game[rows], batch.target[rows], batch.source[rows]
    x = stats.keyword(w, "frostbite", b, src).astype(np.int16)
    hit = (x > 0) & ~w.c.anchor[b, t] & ~w.c.improvement[b, t]
    if hit.any():
        np.add.at(w.c.stunned, (b[hit], t[hit]), x[hit])


@lanes.damage_stage("thorns", priority=REACTIONS + 15)
def thorns(w, batch: DamageBatch) -> None:
    """Thorns X: each instance of attack damage that reaches this unit's health sends X damage
    back to the attacker, through the whole pipeline (shield, armor...), once per instance."""
    rows = _attack_rows(w, batch)
    if rows.size == 0:
        return
    b, t, src = batch.game[rows], batch.target[rows], batch.source[rows]
    x = stats.keyword(w, "thorns", b, t).astype(np.int64)
    back = x > 0
    if back.any():
        w.pipeline.run(w, DamageBatch(b[back], t[back], src[back], x[back], THORNS))


_HERE = Path(__file__).resolve().parent
lanes.card_files(cards=_HERE / "cards", decks=_HERE / "decks")

"""frost_thorns' damage stages, in numba's subset (the engine compiles them into its machine).

Each has the one stage signature ``(w, b, queue, qlen, i, cols)``: row ``i`` of game ``b``'s damage
queue, ``cols`` the ids of what ``reads`` names, in that order (docs/plugins.md "The compiled
parts"). A keyword "as the rules see it" is the unit's own value plus what its held item grants:
``w.i16[kw, b, slot] + w.cat[card.kw_<name>, equipment]`` (no item: card id -1 reads 0).
"""

from __future__ import annotations

import numpy as np

from battlesim.ecs.compiled.damage_queue import DEALT, KIND, SOURCE, TARGET, push
from battlesim.ecs.damage import ATTACK, REACTIONS
from battlesim.ecs.plugin import damage_kind, extend

lanes = extend("lanes")
THORNS = damage_kind("THORNS")  # marks returned damage: it has no ATTACK bit, so it never bounces back


@lanes.compiled_damage_stage("frostbite", REACTIONS + 5,
                             reads=("frostbite", "equipment", "card.kw_frostbite", "anchor", "improvement", "stunned"))
def frostbite(w, b, queue, qlen, i, cols):
    """Frostbite X: attack damage from a frostbite unit that reached a unit's health adds X stun stacks to it."""
    src = queue[b, i, SOURCE]
    if src < 0 or queue[b, i, KIND] & ATTACK == 0 or queue[b, i, DEALT] <= 0:
        return
    x = np.int16(w.i16[cols[0], b, src] + w.cat[cols[2], w.i16[cols[1], b, src]])
    t = queue[b, i, TARGET]
    if x > 0 and not w.flags[cols[3], b, t] and not w.flags[cols[4], b, t]:
        w.i16[cols[5], b, t] = w.i16[cols[5], b, t] + x


@lanes.compiled_damage_stage("thorns", REACTIONS + 15, reads=("thorns", "equipment", "card.kw_thorns"))
def thorns(w, b, queue, qlen, i, cols):
    """Thorns X: attack damage that reached this unit's health sends X back to the attacker, through every stage."""
    src = queue[b, i, SOURCE]
    if src < 0 or queue[b, i, KIND] & ATTACK == 0 or queue[b, i, DEALT] <= 0:
        return
    t = queue[b, i, TARGET]
    x = np.int16(w.i16[cols[0], b, t] + w.cat[cols[2], w.i16[cols[1], b, t]])
    if x > 0:
        push(queue, qlen, b, t, src, x, THORNS)

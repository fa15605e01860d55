"""How compiled lanes code reads a unit's numbers: the twins of ``systems/lanes/stats.py``
(``attack``, ``keyword``) and ``battle.first_strike_step``, shared by combat and the opcodes
that battle (``damage_opcodes.py``).

They index ``cols`` by the positions of ``combat_layout.READS`` (a caller's ``cols`` row starts
with that layout: combat's whole table, an opcode's ``reads`` beginning with ``READS[:N_STATS]``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.ecs.compiled.world_view import WorldState
from battlesim.systems.lanes.compiled.combat_layout import (
    C_ANCHOR,
    C_ANCHOR_AURA,
    C_ATTACK,
    C_AURAS_POSSIBLE,
    C_CARD_ATTACK,
    C_CREEP,
    C_ENFEEBLED,
    C_EQUIPMENT,
    C_FIRST_STRIKE,
    C_IMPROVEMENT,
    C_KW_FIRST_STRIKE,
    C_LANE,
    C_OWNER,
    C_TEMP_ATTACK,
)
from battlesim.systems.lanes.compiled.damage_stages import EVERY_SLOT, aura_bonus

N_STATS = C_KW_FIRST_STRIKE + 1  # the positions of combat_layout.READS these functions read


@njit(cache=False)
def attack_of(st: WorldState, cols: np.ndarray, b: int, s: int) -> int:
    """``stats.attack``: base + temporary + the held item's + auras (sources, and the lane aura
    of the unit's own anchor), 0 while enfeebled ("Enfeebled - Attack reduced to 0"), never below 0."""
    return attack_with(st, cols, b, s, EVERY_SLOT)


@njit(cache=False)
def attack_with(st: WorldState, cols: np.ndarray, b: int, s: int, sources: int) -> int:
    """``attack_of``, the aura sources given (``damage_stages.aura_sources``: an agent reads many
    units' attack on one board; ``EVERY_SLOT``: look at every slot)."""
    val = (np.int64(st.i16[cols[C_ATTACK], b, s]) + st.i16x2[cols[C_TEMP_ATTACK], b, s, 0]
           + st.i16x2[cols[C_TEMP_ATTACK], b, s, 1] + st.cat[cols[C_CARD_ATTACK], st.i16[cols[C_EQUIPMENT], b, s]])
    if st.params[cols[C_AURAS_POSSIBLE]] != 0:
        val += aura_bonus(st, b, s, cols, sources)  # the reach walk, over the attack-aura rows (combat_layout.READS)
        lane = np.int64(st.i8[cols[C_LANE], b, s])
        unit = not st.flags[cols[C_ANCHOR], b, s] and not st.flags[cols[C_IMPROVEMENT], b, s]
        if unit and not st.flags[cols[C_CREEP], b, s] and lane >= 0:
            val += st.i16[cols[C_ANCHOR_AURA], b, np.int64(st.i8[cols[C_OWNER], b, s]) * 3 + lane]
    if st.i16[cols[C_ENFEEBLED], b, s] > 0:
        return 0
    return max(val, 0)


@njit(cache=False)
def has_tag(st: WorldState, cols: np.ndarray, own: int, kw: int, b: int, s: int) -> bool:
    """A tag keyword as ``stats.keyword`` reads it: the unit's own or its held item's."""
    return st.flags[cols[own], b, s] or st.cat[cols[kw], st.i16[cols[C_EQUIPMENT], b, s]] != 0


@njit(cache=False)
def count(st: WorldState, cols: np.ndarray, own: int, kw: int, b: int, s: int) -> int:
    """A number keyword as ``stats.keyword`` reads it: own + the held item's."""
    return np.int64(st.i16[cols[own], b, s]) + st.cat[cols[kw], st.i16[cols[C_EQUIPMENT], b, s]]


@njit(cache=False)
def first_strikes(st: WorldState, cols: np.ndarray, b: int, a: int, t: int) -> bool:
    """``battle.first_strike_step``: the attacker has First Strike and its target does not (an
    anchor's own never counts)."""
    if not has_tag(st, cols, C_FIRST_STRIKE, C_KW_FIRST_STRIKE, b, a):
        return False
    return not (has_tag(st, cols, C_FIRST_STRIKE, C_KW_FIRST_STRIKE, b, t) and not st.flags[cols[C_ANCHOR], b, t])

"""The start of round, compiled over one game: the twin of ``StartOfRound`` (``systems/lanes/
round_start.py``): the status tick, the lanes' mana, the start-of-round trigger, settle.

``start_of_round(st, f, cols, b, queue, qlen, stack, run_damage, dcols) -> status``: ``st`` the
``WorldState``, ``f`` the ``PhaseFields`` and ``cols`` (``phase_columns``) of ``round_layout.py``;
``queue, qlen, stack`` the damage queue (``new_queue``), ``run_damage`` the lanes engine's
generated dispatcher and ``dcols`` its column table, passed in as ``combat`` takes them. Returns
``OK`` or the first error of the dispatcher or of settle (the caller stops the game naming its
seed); a full event queue shows as ``nevents[b]`` past its capacity.

The trigger boundary: "Start of Round" is pushed by ``fire_round_trigger`` (round.py), the
"On Damage Taken" of the status tick's damage inside ``run_damage``; the interpreter drains them
where the code says ``# DRAIN``. Not ``_nrt=False``: settle and the tick allocate small scratch.
``cache=False``: the kernels call other files (``deaths.py``, ``round.py``, ``board.py``) and
index ``round_layout.py``'s positions; numba's cache checks only the defining file (docs/compiled-core.md
"Why stale machine code is impossible"). The generated engine is where they will be cached.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.ecs.compiled.damage_queue import OK, push
from battlesim.ecs.damage import STATUS
from battlesim.systems.lanes.compiled.combat_layout import (
    C_ANCHOR,
    C_DYING,
    C_EQUIPMENT,
    C_HEALTH,
    C_IMPROVEMENT,
    C_MAX_HEALTH,
    C_RUINED,
)
from battlesim.systems.lanes.compiled.deaths import settle
from battlesim.systems.lanes.compiled.round import fire_round_trigger
from battlesim.systems.lanes.compiled.round_layout import (
    C_DECAY,
    C_KW_REGENERATION,
    C_LISTENS,
    C_MANA_CAP,
    C_MANA_PER_ROUND,
    C_REGENERATION,
    C_TRIGGER,
    ROUND0,
    T_START,
)


@njit(cache=False)
def status_tick(st, f, cols, b, queue, qlen, stack, run_damage, dcols) -> int:
    """``round_start.status_tick`` for game b, computed from the state at its start and applied
    together (DESIGN.md "Status tick"): "Decay (Poison) - Deals 1 damage per stack at the start of
    each round" (one STATUS row per unit, no source, in slot order, through the damage pipeline),
    then "Regeneration X - Heals X health at the start of each round" with the X read before the
    damage (own + the held item's; anchors enchanted with it heal too, a destroyed objective
    does not; a unit healed above 0 is no longer dying), so Regeneration 1 and Decay 1 cancel."""
    S = st.alive.shape[1]
    regen = np.zeros(S, dtype=np.int64)
    qlen[b] = 0
    for s in range(S):
        if not st.alive[b, s] or st.flags[cols[C_IMPROVEMENT], b, s]:
            continue
        regen[s] = (np.int64(st.i16[cols[C_REGENERATION], b, s])
                    + st.cat[cols[C_KW_REGENERATION], st.i16[cols[C_EQUIPMENT], b, s]])
        d = np.int64(st.i16[cols[C_DECAY], b, s])
        if d > 0 and not st.flags[cols[C_ANCHOR], b, s]:
            push(queue, qlen, b, -1, s, d, STATUS)
    if qlen[b] > 0:
        status = run_damage(st, b, queue, qlen, 0, dcols, stack)  # DRAIN inside: "On Damage Taken"
        if status != OK:
            return status
    for s in range(S):
        if regen[s] <= 0:
            continue
        hp = np.int64(st.i16[cols[C_HEALTH], b, s])
        if st.flags[cols[C_ANCHOR], b, s]:  # damage_stages.heal_anchor
            if not st.flags[cols[C_RUINED], b, s]:
                st.i16[cols[C_HEALTH], b, s] = hp + regen[s]
                st.i16[cols[C_HEALTH], b, s] = min(st.i16[cols[C_HEALTH], b, s], st.i16[cols[C_MAX_HEALTH], b, s])
        else:
            st.i16[cols[C_HEALTH], b, s] = min(hp + regen[s], np.int64(st.i16[cols[C_MAX_HEALTH], b, s]))
            if st.flags[cols[C_DYING], b, s] and st.i16[cols[C_HEALTH], b, s] > 0:
                st.flags[cols[C_DYING], b, s] = False
    return OK


@njit(cache=False)
def start_of_round(st, f, cols, b, queue, qlen, stack, run_damage, dcols) -> int:
    """``StartOfRound.process`` for game b: lanes.md "Start of Round - Triggers at the beginning of
    each round (after creep spawn, before play phase)". The status tick, then each lane's mana
    pool grows (ledger: hero abilities' "lane's mana pool", up to its cap), then start-of-round
    effects fire, then deaths settle (numpy's settle runs over every game, finished ones too)."""
    if f.combat.active[b]:
        status = status_tick(st, f, cols, b, queue, qlen, stack, run_damage, dcols)
        if status != OK:
            return status
        per_round, cap = st.params[cols[C_MANA_PER_ROUND]], st.params[cols[C_MANA_CAP]]
        for side in range(2):
            for lane in range(f.lane_mana.shape[2]):
                f.lane_mana[b, side, lane] = min(np.int64(f.lane_mana[b, side, lane]) + per_round, cap)
        fire_round_trigger(st, f.combat, cols[ROUND0:], b, st.params[cols[C_TRIGGER + T_START]],
                           cols[C_LISTENS + T_START])
        # DRAIN (interpreter): "Start of Round", before the settle
    return settle(st, f.combat, cols, b)

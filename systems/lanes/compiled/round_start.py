"""The start of round, compiled over one game: the twin of ``StartOfRound`` (``systems/lanes/
round_start.py``): the status tick, the lanes' mana, the start-of-round trigger, settle.

``start_of_round(st, f, cols, b, g, rng, m) -> status``: ``st`` the ``WorldState``, ``f`` the
``PhaseFields`` and ``cols`` (``phase_columns``) of ``round_layout.py``; ``g``, ``rng``, ``m`` the
resolution machine's (``board.LanesFields``, the RNG state, the ``Resolution``: docs/compiled-core.md
"How phases call the resolution machine"). Returns ``OK`` or the first failure of the machine or
of settle (the caller stops the game naming its seed).

The trigger boundary: the status tick's damage goes through ``resolve_damage`` ("On Damage
Taken" fires inside it, before ``mark_dying``); "Start of Round" is pushed by
``fire_round_trigger`` (round.py) and drained (``# DRAIN``) before the settle, as numpy's
``fire_all`` fires it. Not a registered phase itself: it reaches the machine, so the phase (or
the round loop) that calls it gets a rebound copy (``codegen.rebind``); its cost is one compile
of the caller, not one of its own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from battlesim.ecs.compiled.damage_queue import OK, push
from battlesim.ecs.compiled.machine import Resolution, drain, resolve_damage
from battlesim.ecs.compiled.world_view import WorldState
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

W_REGEN = 3  # status_tick's work table (machine.Resolution.work)


def status_tick(st: WorldState, f: Any, cols: np.ndarray, b: int, g: Any, rng: np.ndarray, m: Resolution) -> int:
    """``round_start.status_tick`` for game b, computed from the state at its start and applied
    together (DESIGN.md "Status tick"): "Decay (Poison) - Deals 1 damage per stack at the start of
    each round" (one STATUS row per unit, no source, in slot order, through the damage pipeline),
    then "Regeneration X - Heals X health at the start of each round" with the X read before the
    damage (own + the held item's; anchors enchanted with it heal too, a destroyed objective
    does not; a unit healed above 0 is no longer dying), so Regeneration 1 and Decay 1 cancel."""
    S = st.alive.shape[1]
    regen = m.work[W_REGEN]  # column 0: each slot's X (machine.Resolution.work: nothing allocated)
    queue, qlen = m.queue, m.qlen
    qlen[b] = 0
    for s in range(S):
        regen[s, 0] = 0
        if not st.alive[b, s] or st.flags[cols[C_IMPROVEMENT], b, s]:
            continue
        regen[s, 0] = (np.int64(st.i16[cols[C_REGENERATION], b, s])
                    + st.cat[cols[C_KW_REGENERATION], st.i16[cols[C_EQUIPMENT], b, s]])
        d = np.int64(st.i16[cols[C_DECAY], b, s])
        if d > 0 and not st.flags[cols[C_ANCHOR], b, s]:
            push(queue, qlen, b, -1, s, d, STATUS)
    if qlen[b] > 0:
        status = resolve_damage(st, g, rng, b, m, 0)  # "On Damage Taken" drains inside, at its stage
        if status != OK:
            return status
    for s in range(S):
        if regen[s, 0] <= 0:
            continue
        hp = np.int64(st.i16[cols[C_HEALTH], b, s])
        if st.flags[cols[C_ANCHOR], b, s]:  # damage_stages.heal_anchor
            if not st.flags[cols[C_RUINED], b, s]:
                st.i16[cols[C_HEALTH], b, s] = hp + regen[s, 0]
                st.i16[cols[C_HEALTH], b, s] = min(st.i16[cols[C_HEALTH], b, s], st.i16[cols[C_MAX_HEALTH], b, s])
        else:
            st.i16[cols[C_HEALTH], b, s] = min(hp + regen[s, 0], np.int64(st.i16[cols[C_MAX_HEALTH], b, s]))
            if st.flags[cols[C_DYING], b, s] and st.i16[cols[C_HEALTH], b, s] > 0:
                st.flags[cols[C_DYING], b, s] = False
    return OK


def start_of_round(st: WorldState, f: Any, cols: np.ndarray, b: int, g: Any, rng: np.ndarray, m: Resolution) -> int:
    """``StartOfRound.process`` for game b: lanes.md "Start of Round - Triggers at the beginning of
    each round (after creep spawn, before play phase)". The status tick, then each lane's mana
    pool grows (ledger: hero abilities' "lane's mana pool", up to its cap), then start-of-round
    effects fire, then deaths settle (numpy's settle runs over every game, finished ones too)."""
    if f.combat.active[b]:
        status = status_tick(st, f, cols, b, g, rng, m)
        if status != OK:
            return status
        per_round, cap = st.params[cols[C_MANA_PER_ROUND]], st.params[cols[C_MANA_CAP]]
        for side in range(2):
            for lane in range(f.lane_mana.shape[2]):
                f.lane_mana[b, side, lane] = min(np.int64(f.lane_mana[b, side, lane]) + per_round, cap)
        fire_round_trigger(st, f.combat, cols[ROUND0:], b, st.params[cols[C_TRIGGER + T_START]],
                           cols[C_LISTENS + T_START])
        status = drain(st, g, rng, b, m)  # DRAIN: "Start of Round", before the settle
        if status != OK:
            return status
    return settle(st, f.combat, cols, b, g, rng, m)

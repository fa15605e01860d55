"""The end of round, compiled over one game: the twin of ``EndOfRound`` (``systems/lanes/
round_end.py``): the end-of-round trigger, settle, then the round's temporary things run down.

``end_of_round(st, f, cols, b, g, rng, m, expired) -> int``: ``st`` the ``WorldState``, ``f`` the
``PhaseFields`` and ``cols`` (``phase_columns``) of ``round_layout.py``; ``g``, ``rng``, ``m`` the
resolution machine's (docs/compiled-core.md "How phases call the resolution machine"); ``expired: int64[S]``
receives the slots of the timed improvements that expire, in slot order, before they are removed.
Returns how many expired (>= 0; the caller dispatches ``lanes.expired`` for the replay log with
them, as numpy does just before removing them) or settle's error (< 0: the caller stops the
game naming its seed).

The trigger boundary: "End of Round" is pushed by ``fire_round_trigger`` (round.py, an
improvement's row with its lane as the chosen lane) and drained (``# DRAIN``) before the settle,
as numpy's ``fire_all`` fires it. Not a registered phase itself: it reaches the machine, so the
phase (or round loop) calling it gets a rebound copy (``codegen.rebind``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from battlesim.ecs.compiled.damage_queue import OK
from battlesim.ecs.compiled.emit import emit, emitting
from battlesim.ecs.compiled.machine import Resolution, drain
from battlesim.ecs.compiled.world_view import WorldState
from battlesim.systems.lanes.compiled import event_codes as ev
from battlesim.systems.lanes.compiled.board import remove_improvement
from battlesim.systems.lanes.compiled.combat_layout import (
    C_HEALTH,
    C_IMPROVEMENT,
    C_LANE,
    C_MAX_HEALTH,
    C_OWNER,
    C_TEMP_ATTACK,
)
from battlesim.systems.lanes.compiled.deaths import settle
from battlesim.systems.lanes.compiled.round import fire_round_trigger
from battlesim.systems.lanes.compiled.round_layout import (
    C_COOLDOWN,
    C_LISTENS,
    C_TEMP_HEALTH,
    C_TIMER,
    C_TRIGGER,
    C_USED_ROUND,
    DECAYING,
    N_DECAYING,
    ROUND0,
    T_END,
)


def end_of_round(st: WorldState, f: Any, cols: np.ndarray, b: int, g: Any, rng: np.ndarray, m: Resolution,
                 expired: np.ndarray) -> int:
    """``EndOfRound.process`` for game b: lanes.md "End of Round - Triggers at end of round (after
    shop phase)", then deaths settle (over every game, finished ones too, as numpy's settle);
    then, in a running game, for every live entity: "Stun stacks decay by 1 at end of round" (and
    every decaying status, ledger), buffs "until end of round" end (the temporary health leaves
    the maximum, health kept between 1 and it), cooldowns tick ("After using, cannot be used again
    for X rounds", not counting the round of use, ledger), and timed improvements count down
    ("Counter decreases by 1 at the end of each round"; "Effect expires and is removed when counter
    reaches 0", in slot order)."""
    active = f.combat.active[b]
    if active:
        fire_round_trigger(st, f.combat, cols[ROUND0:], b, st.params[cols[C_TRIGGER + T_END]],
                           cols[C_LISTENS + T_END])
        status = drain(st, g, rng, b, m)  # DRAIN: "End of Round", before the settle
        if status != OK:
            return status
    status = settle(st, f.combat, cols, b, g, rng, m)
    if status != OK or not active:
        return status
    n = 0
    rnd = f.combat.round[b]
    for s in range(st.alive.shape[1]):
        if not st.alive[b, s]:
            continue
        for j in range(cols[N_DECAYING]):
            if st.i16[cols[DECAYING + j], b, s] > 0:
                st.i16[cols[DECAYING + j], b, s] -= 1
        ta, th = cols[C_TEMP_ATTACK], cols[C_TEMP_HEALTH]
        if (st.i16x2[ta, b, s, 0] != 0 or st.i16x2[ta, b, s, 1] != 0 or st.i16x2[th, b, s, 0] != 0
                or st.i16x2[th, b, s, 1] != 0):
            st.i16x2[ta, b, s, 0] = 0
            st.i16x2[ta, b, s, 1] = 0
            gone = np.int64(st.i16x2[th, b, s, 0]) + st.i16x2[th, b, s, 1]
            st.i16[cols[C_MAX_HEALTH], b, s] = np.int64(st.i16[cols[C_MAX_HEALTH], b, s]) - gone
            st.i16[cols[C_HEALTH], b, s] = max(min(st.i16[cols[C_HEALTH], b, s], st.i16[cols[C_MAX_HEALTH], b, s]), 1)
            st.i16x2[th, b, s, 0] = 0
            st.i16x2[th, b, s, 1] = 0
        if st.i16[cols[C_COOLDOWN], b, s] > 0 and st.i16[cols[C_USED_ROUND], b, s] != rnd:
            st.i16[cols[C_COOLDOWN], b, s] -= 1
        if st.flags[cols[C_IMPROVEMENT], b, s] and st.i16[cols[C_TIMER], b, s] > 0:
            st.i16[cols[C_TIMER], b, s] -= 1
            if st.i16[cols[C_TIMER], b, s] == 0:
                expired[n] = s
                n += 1
    if n and emitting(m):  # "lanes.expired": the timed improvements of every slot, then their removal
        for j in range(n):
            emit(ev.EXPIRED_ROW, b, expired[j], 0, 0, 0, 0)
        emit(ev.EXPIRED_END, b, 0, 0, 0, 0, 0)
    for j in range(n):
        remove_improvement(st, f, b, expired[j], cols[C_OWNER], cols[C_LANE])
    return n

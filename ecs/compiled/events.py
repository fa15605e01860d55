"""The per-game trigger queue: where compiled rules code hands a fired trigger to the effect
interpreter.

A compiled damage stage (lanes' "On Damage Taken") does not run card effects itself: it pushes
an event, one row with what the numpy ``Ctx`` of ``Executor.fire`` carries for that row (the
trigger, the card, the reacting entity and the other one, and the entity's owner, lane and
position at that moment), and the interpreter drains the queue (docs/compiled-core.md "The
trigger boundary"). One ``int64[B, QE, NEV]`` array and ``nevents: int64[B]``, allocated once
per chunk (DESIGN.md "Rules of the road": few, grouped arrays). A push into a full queue writes
nothing and lets ``nevents`` pass the capacity, so the caller can stop the game naming its seed
rather than lose an event silently (as ``damage_queue.push`` does).

The events of one drain point are fired by the resolution machine (``machine.py``), each run of
consecutive events of one trigger as one firing: push the rows of one numpy ``fire`` call, then
``drain`` (docs/compiled-core.md "How phases call the resolution machine").
"""

from __future__ import annotations

import numpy as np
from numba import njit

# the fields of an event row (CASTER, CHOSEN, CHOSEN_LANE: as ``Ctx.make`` has them when not given:
# the source, -1, -1; a spell or an improvement's trigger gives them with ``push_event_ctx``)
TRIGGER, CARD, SOURCE, SERIAL, OTHER, OWNER, LANE, POS, CASTER, CHOSEN, CHOSEN_LANE = range(11)
NEV = 11


def new_events(n_games: int, capacity: int) -> tuple[np.ndarray, np.ndarray]:
    """An empty trigger queue for a batch: ``(events int64[B, capacity, NEV], nevents int64[B])``."""
    return np.zeros((n_games, capacity, NEV), dtype=np.int64), np.zeros(n_games, dtype=np.int64)


@njit(cache=True)
def push_event(events: np.ndarray, nevents: np.ndarray, b: int, trigger: int, card: int, source: int,
               serial: int, other: int, owner: int, lane: int, pos: int) -> bool:
    """Append an event to game b's queue; when it is full, write nothing, let ``nevents`` pass
    the capacity and return False."""
    return push_event_ctx(events, nevents, b, trigger, card, source, serial, other, owner, lane, pos, source, -1, -1)


@njit(cache=True)
def push_event_ctx(events: np.ndarray, nevents: np.ndarray, b: int, trigger: int, card: int, source: int,
                   serial: int, other: int, owner: int, lane: int, pos: int, caster: int, chosen: int,
                   chosen_lane: int) -> bool:
    """``push_event`` with the three ``Ctx`` fields a unit's trigger does not need: the caster of
    a spell, its chosen target, the chosen lane (an improvement's round trigger: its lane)."""
    n = nevents[b]
    if n >= events.shape[1]:
        nevents[b] = n + 1
        return False
    events[b, n, TRIGGER] = trigger
    events[b, n, CARD] = card
    events[b, n, SOURCE] = source
    events[b, n, SERIAL] = serial
    events[b, n, OTHER] = other
    events[b, n, OWNER] = owner
    events[b, n, LANE] = lane
    events[b, n, POS] = pos
    events[b, n, CASTER] = caster
    events[b, n, CHOSEN] = chosen
    events[b, n, CHOSEN_LANE] = chosen_lane
    nevents[b] = n + 1
    return True

"""Mana: the pool, the 3-slot cooldown track and its pointer (classes.md "Mana", "Mana Step",
"Mana Cooldown Tracker"; spec §3). Compiled; every function takes the ``Game`` (``G``) and game ``b``,
except ``can_pay`` (inlined), which takes the player array ``G.pl``.
"""

from __future__ import annotations

from numba import njit

from battlesim.systems.classes.state import (
    E_OK,
    E_PAY,
    NCOL,
    P_CURRENT,
    P_GAINED,
    P_POOL,
    P_PREP_MANA,
    P_TRACK,
    SC_PAID,
    WILD,
)

SLOTS = 3


@njit(cache=True, _nrt=False)
def payment(G, b, side, cost, pay, out):
    """The colours that pay ``cost`` (6 entries, the sixth wild) from ``side``'s pool into
    ``out`` (5 colours); False if it cannot be paid. classes.md: "You cannot cast a spell if you
    cannot pay its cost"; "wild mana ... counts as any type of mana" (spec choice 15: any colour
    including summoning; the default payer takes white, red, blue, purple, summoning in order).
    ``pay[0] < 0``: the default payer; else ``pay`` names the colours the player gives."""
    pl = G.pl
    total = 0
    for c in range(NCOL + 1):
        total += cost[c]
    if pay[0] >= 0:
        given = 0
        for c in range(NCOL):
            out[c] = pay[c]
            given += pay[c]
            if pay[c] < cost[c] or pay[c] > pl[b, side, P_POOL + c]:
                return False
        return given == total
    for c in range(NCOL):
        out[c] = cost[c]
        if pl[b, side, P_POOL + c] < cost[c]:
            return False
    wild = cost[WILD]
    for c in range(NCOL):
        spare = pl[b, side, P_POOL + c] - out[c]
        take = min(spare, wild)
        out[c] += take
        wild -= take
    return wild == 0


@njit(cache=True, _nrt=False, inline="always")
def can_pay(pl, b, side, cost, pay):
    """``payment``'s answer without its colours (no array: the legality checks call it often);
    on the player array ``pl`` (``G.pl``) and inlined, as ``units.team`` is."""
    total = 0
    for c in range(NCOL + 1):
        total += cost[c]
    if pay[0] >= 0:
        given = 0
        for c in range(NCOL):
            given += pay[c]
            if pay[c] < cost[c] or pay[c] > pl[b, side, P_POOL + c]:
                return False
        return given == total
    spare = 0
    for c in range(NCOL):
        if pl[b, side, P_POOL + c] < cost[c]:
            return False
        spare += pl[b, side, P_POOL + c] - cost[c]
    return spare >= cost[WILD]


@njit(cache=True, _nrt=False)
def spend(G, b, side, cost, pay, onto_prepared):
    """Pay ``cost``: the mana leaves the pool for the current slot (classes.md "Each time you spend
    mana, it goes to the current slot on the cooldown tracker"), or, preparing, onto the spell
    ("Instead of paying its cost, place necessary Mana on top of that spell")."""
    out = G.scr[b, SC_PAID:SC_PAID + NCOL]
    out[:] = 0
    if not payment(G, b, side, cost, pay, out):
        return E_PAY
    cur = G.pl[b, side, P_CURRENT]
    for c in range(NCOL):
        G.pl[b, side, P_POOL + c] -= out[c]
        if onto_prepared:
            G.pl[b, side, P_PREP_MANA + c] += out[c]
        else:
            G.pl[b, side, P_TRACK + cur * NCOL + c] += out[c]
    return E_OK


@njit(cache=True, _nrt=False)
def consume_prepared(G, b, side):
    """The mana on a prepared spell goes to the caster's current slot (classes.md "consuming the
    Mana that was on top of it"; spec choice 14: also when the prepared spell is cast)."""
    cur = G.pl[b, side, P_CURRENT]
    for c in range(NCOL):
        G.pl[b, side, P_TRACK + cur * NCOL + c] += G.pl[b, side, P_PREP_MANA + c]
        G.pl[b, side, P_PREP_MANA + c] = 0


@njit(cache=True, _nrt=False)
def mana_step(G, b, side):
    """classes.md "Mana Step": "you advance the cooldown track. If your current cooldown track
    contains previously consumed Mana, they are refreshed; take and place that mana in your Mana
    pool. They are immediately available for consumption." """
    cur = (G.pl[b, side, P_CURRENT] + 1) % SLOTS
    G.pl[b, side, P_CURRENT] = cur
    for c in range(NCOL):
        G.pl[b, side, P_POOL + c] += G.pl[b, side, P_TRACK + cur * NCOL + c]
        G.pl[b, side, P_TRACK + cur * NCOL + c] = 0


@njit(cache=True, _nrt=False)
def gain_mana(G, b, side, colour, amount):
    """classes.md "Gain (mana) – Expand your mana pool with a mana of the listed color." """
    G.pl[b, side, P_POOL + colour] += amount
    G.pl[b, side, P_GAINED] += amount


@njit(cache=True, _nrt=False)
def steps_to_refresh(current, slot):
    """Mana Steps until ``slot`` is refreshed: the next step refreshes current+1 (1), the
    current slot itself last (3)."""
    d = (slot - current) % SLOTS
    return SLOTS if d == 0 else d


@njit(cache=True, _nrt=False)
def tick(G, b, side, colour, steps, n):
    """Beacon of Light: "tick a [white] orb two steps down the Mana Orb track" (spec §5): each of
    ``n`` orbs of ``colour`` on the track moves ``steps`` Mana Steps closer to refresh; one that
    reaches it is back in the pool now. Choice: the orb farthest from refresh moves first (the
    move then gains the most)."""
    cur = G.pl[b, side, P_CURRENT]
    for _ in range(n):
        best, far = -1, 0
        for slot in range(SLOTS):
            if G.pl[b, side, P_TRACK + slot * NCOL + colour] > 0:
                d = steps_to_refresh(cur, slot)
                if d > far:
                    best, far = slot, d
        if best < 0:
            return
        G.pl[b, side, P_TRACK + best * NCOL + colour] -= 1
        left = far - steps
        if left <= 0:
            G.pl[b, side, P_POOL + colour] += 1
        else:
            G.pl[b, side, P_TRACK + ((cur + left) % SLOTS) * NCOL + colour] += 1

"""The invariants of a classes game (issue 15 "Rules fidelity"), checked over one game's state
(compiled, so random games can check them after every step). ``start[b, side]`` holds what a
side began with: its mana (pool + track + on a prepared spell), its cards, its life.
"""

from __future__ import annotations

from numba import njit

from battlesim.systems.classes.state import (
    A_CARD,
    AREA,
    G_DRAW,
    G_ENDED,
    G_TURN,
    G_TURN_LIMIT,
    G_WINNER,
    HAND,
    L_MAX,
    NCOL,
    NU,
    P_EXP,
    P_GAINED,
    P_LEVEL,
    P_LIFE,
    P_NLEVELS,
    P_POOL,
    P_PREP,
    P_PREP_MANA,
    P_TRACK,
    U_CARD,
    U_CONDITION,
    U_HEALTH,
    U_PRESENT,
    U_SIDE,
    U_UID,
)

START_MANA, START_CARDS, START_LIFE = 0, 1, 2
(OK, TWO_UNITS, DEAD_UNIT, NEGATIVE, MANA, LIFE, EXPERIENCE, WINNER, CARDS) = range(9)
NAMES = ("", "two units share an identity", "a unit with HP <= 0 stands", "a negative condition or count",
         "mana not conserved (pool + track + prepared != start + gained)", "a life went up",
         "experience at or above the level maximum", "a winner without a life at 0 (or a draw without cause)",
         "cards not conserved (hand + Nether + upgrade + units + play area + prepared)")


@njit(cache=True, _nrt=False)
def mana_total(G, b, side):
    """pool + cooldown track + the mana on the prepared spell."""
    total = 0
    for c in range(NCOL):
        total += G.pl[b, side, P_POOL + c] + G.pl[b, side, P_PREP_MANA + c]
        for slot in range(3):
            total += G.pl[b, side, P_TRACK + slot * NCOL + c]
    return total


@njit(cache=True, _nrt=False)
def card_total(G, b, side):
    """Every card of ``side``: hand, Nether, upgrade deck, its units, its play area, prepared."""
    n = 0
    for k in range(HAND):
        for pile in (G.hand, G.nether, G.upgrade):
            if pile[b, side, k] >= 0:
                n += 1
    for f in range(G.u.shape[1]):
        if G.u[b, f, U_PRESENT] and G.u[b, f, U_SIDE] == side and G.u[b, f, U_CARD] >= 0:
            n += 1
    for k in range(AREA):
        if G.area[b, side, k, A_CARD] >= 0:
            n += 1
    if G.pl[b, side, P_PREP] >= 0:
        n += 1
    return n


@njit(cache=True, _nrt=False)
def violation(G, R, b, start):
    """The first invariant game ``b`` breaks (0: none): one unit per identity (one per field by
    the layout), units alive have HP >= 1, counts >= 0, mana conserved, life never rises (nothing
    heals a player), experience below the level maximum (at most it, at the top), a winner only
    when the loser's life is at 0 (a draw: both, or the turn limit), cards conserved."""
    for f in range(G.u.shape[1]):
        if not G.u[b, f, U_PRESENT]:
            continue
        if G.u[b, f, U_HEALTH] <= 0:
            return DEAD_UNIT
        for k in range(U_CONDITION, NU):
            if G.u[b, f, k] < 0:
                return NEGATIVE
        for g in range(f + 1, G.u.shape[1]):
            if G.u[b, g, U_PRESENT] and G.u[b, g, U_UID] == G.u[b, f, U_UID]:
                return TWO_UNITS
    for side in range(2):
        for c in range(NCOL):
            if G.pl[b, side, P_POOL + c] < 0:
                return NEGATIVE
        if mana_total(G, b, side) != start[b, side, START_MANA] + G.pl[b, side, P_GAINED]:
            return MANA
        if G.pl[b, side, P_LIFE] > start[b, side, START_LIFE]:
            return LIFE
        levels = G.pl[b, side, P_NLEVELS]
        if levels > 0:
            level = G.pl[b, side, P_LEVEL]
            top = G.lv[b, side, level - 1, L_MAX]
            exp = G.pl[b, side, P_EXP]
            if exp > top or (exp == top and level < levels):
                return EXPERIENCE
        if card_total(G, b, side) != start[b, side, START_CARDS]:
            return CARDS
    w = G.g[b, G_WINNER]
    if w >= 0 and (G.pl[b, 1 - w, P_LIFE] > 0 or not G.g[b, G_ENDED]):
        return WINNER
    if G.g[b, G_DRAW] and not (G.g[b, G_TURN] > G.g[b, G_TURN_LIMIT] or
                               (G.pl[b, 0, P_LIFE] <= 0 and G.pl[b, 1, P_LIFE] <= 0)):
        return WINNER
    if G.g[b, G_ENDED] and w < 0 and not G.g[b, G_DRAW]:
        return WINNER
    return OK


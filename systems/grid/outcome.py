"""What happens to cards and games as actions resolve: cards moving between the draw pile, the
hand and the cemetery; damage through the grid damage arithmetic; deaths, kill points and the
end of the game. Compiled (``@njit(cache=True)``), the arguments of ``rules.py``; ``apply.py``
and ``play.py`` call these."""

from __future__ import annotations

from numba import njit

from battlesim.ecs.compiled.rng import integers
from battlesim.systems.grid import kernel_cache
from battlesim.systems.grid.damage import hit_damage
from battlesim.systems.grid.occupancy import vacate
from battlesim.systems.grid.rules import eff_resist
from battlesim.systems.grid.state import (
    ACTIVE,
    CARD,
    CELL,
    CEM_N,
    DECK_N,
    DRAW,
    END_KILL_POINTS,
    END_REASON,
    GAME_OVER,
    HAND_N,
    HP,
    ITEM,
    KP,
    KPTS,
    L_CARD,
    L_DIED,
    L_DRAWN,
    L_KILLS,
    L_PLAYED,
    L_SIDE,
    LOG_N,
    P_HAND_LIMIT,
    P_KP_TO_WIN,
    ROUND,
    SIDE,
    WINNER,
)

RNG_SEARCH = 7  # the RNG stream of the reshuffle after a search (grid.md 4.3.12)


# -- piles ---------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def to_cemetery(f, b, side, card):
    """grid.md 4.4.4: "dead units are placed in the cemetary" (and spent cards: ledger)."""
    n = f.g[b, CEM_N + side]
    if card >= 0 and n < f.cem.shape[2]:
        f.cem[b, side, n] = card
        f.g[b, CEM_N + side] = n + 1


@njit(cache=True, _nrt=False)
def to_hand(f, pr, b, side, card):
    """A card into the hand; into a full hand it is burned (spec §2: hand_limit)."""
    n = f.g[b, HAND_N + side]
    if n < pr[P_HAND_LIMIT]:
        f.hand[b, side, n] = card
        f.g[b, HAND_N + side] = n + 1
    else:
        to_cemetery(f, b, side, card)


@njit(cache=True, _nrt=False)
def take_from_hand(f, b, side, h):
    """Hand card h leaves the hand (grid.md 4.1.4: cards in hand are played to hire)."""
    card = f.hand[b, side, h]
    n = f.g[b, HAND_N + side]
    for i in range(h, n - 1):
        f.hand[b, side, i] = f.hand[b, side, i + 1]
    f.hand[b, side, n - 1] = -1
    f.g[b, HAND_N + side] = n - 1
    return card


@njit(cache=True, _nrt=False)
def take_from_deck(f, b, side, i):
    """Card i leaves the draw pile (grid.md 4.1.4 "drawing a card"; 4.3.12 a search)."""
    card = f.deck[b, side, i]
    n = f.g[b, DECK_N + side]
    for j in range(i, n - 1):
        f.deck[b, side, j] = f.deck[b, side, j + 1]
    f.deck[b, side, n - 1] = -1
    f.g[b, DECK_N + side] = n - 1
    log_card(f, b, side, card, f.g[b, ROUND], 0)
    return card


# -- the card log (the cards table of a run: bookkeeping, no rule reads it) ------------------------
@njit(cache=True, _nrt=False)
def log_card(f, b, side, card, drawn, played):
    """The cards table's record of grid.md 4.1.4 "drawing a card" and spec §2 Setup's starting
    hero. A new card-log row: a card that left its draw pile (``drawn`` = this round) or a starting hero
    (on the board from round 1). The row number, -1 when the log is full (it holds both decks)."""
    n = f.g[b, LOG_N]
    if card < 0 or n >= f.log.shape[1]:
        return -1
    f.log[b, n, L_SIDE] = side
    f.log[b, n, L_CARD] = card
    f.log[b, n, L_DRAWN] = drawn
    f.log[b, n, L_PLAYED] = played
    f.g[b, LOG_N] = n + 1
    return n


@njit(cache=True, _nrt=False)
def log_played(f, b, side, card, s):
    """The cards table's record of grid.md 4.1.4 "hire" (and spec §3 spells, items, traps).
    Hand card ``card`` of ``side`` is played this round (hired, cast, equipped, set) and, for a
    unit, stands in slot ``s`` (-1: not a unit). Copies of a card are alike, so the earliest drawn
    copy not yet played is the one logged; a card that came back to the hand after its play (no
    such copy left) is not logged again."""
    for r in range(f.g[b, LOG_N]):
        if f.log[b, r, L_SIDE] == side and f.log[b, r, L_CARD] == card and f.log[b, r, L_PLAYED] == 0:
            f.log[b, r, L_PLAYED] = f.g[b, ROUND]
            if s >= 0:
                f.slot_row[b, s] = r
            return
    if s >= 0:
        f.slot_row[b, s] = -1


@njit(cache=True, _nrt=False)
def shuffle_deck(f, b, side):
    """spec §3 op search: "deck reshuffled (seeded)": Fisher-Yates with the game's counter RNG."""
    n = f.g[b, DECK_N + side]
    for i in range(n - 1, 0, -1):
        j = integers(f.rng, b, i + 1, RNG_SEARCH)
        tmp = f.deck[b, side, i]
        f.deck[b, side, i] = f.deck[b, side, j]
        f.deck[b, side, j] = tmp


# -- damage, deaths, victory -----------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def hit(w, cols, ct, b, t, base, mult2, bonus, dtype):
    """One target's damage from one hit (grid.md 4.4.3: at least 1, rounded up, base + bonus -
    the resistance of the hit's type)."""
    w.i16[cols[HP], b, t] -= hit_damage(base, mult2, bonus, eff_resist(w, cols, ct, b, t, dtype))


@njit(cache=True, _nrt=False)
def finish(f, pr, b, reason):
    """The game ends: more kill points wins, equal ones are a draw (spec §2 Victory)."""
    k0, k1 = f.g[b, KPTS], f.g[b, KPTS + 1]
    finish_with(f, b, -1 if k0 == k1 else (0 if k0 > k1 else 1), reason)


@njit(cache=True, _nrt=False)
def finish_with(f, b, winner, reason):
    """The game ends with ``winner`` (-1: a draw), spec §2 Victory."""
    f.g[b, GAME_OVER] = 1
    f.g[b, END_REASON] = reason
    f.g[b, WINNER] = winner
    f.g[b, DRAW] = 1 if winner < 0 else 0


@njit(cache=True, _nrt=False, inline="always")
def settle(w, cols, f, pr, b):
    """grid.md 4.4.4: "A unit or hero is killed by reducing its hit points to zero. Unless specified
    otherwise, dead units are placed in the cemetary and their kill points count towards the
    victory condition." The kill points go to the dead unit's opponent; the victory threshold is
    checked after every action's deaths (the game ends at once). The card log counts an enemy's
    death as a kill of the active unit (whose action, attack or spell caused it)."""
    active = f.g[b, ACTIVE]
    for s in range(w.alive.shape[1]):
        if w.alive[b, s] and w.i16[cols[HP], b, s] <= 0:
            side = w.i8[cols[SIDE], b, s]
            w.alive[b, s] = False
            vacate(f, b, s, w.i16[cols[CELL], b, s])
            r = f.slot_row[b, s]
            if r >= 0:
                f.log[b, r, L_DIED] = f.g[b, ROUND]
            if active >= 0 and active != s and w.i8[cols[SIDE], b, active] != side and f.slot_row[b, active] >= 0:
                f.log[b, f.slot_row[b, active], L_KILLS] += 1
            to_cemetery(f, b, side, w.i16[cols[CARD], b, s])
            to_cemetery(f, b, side, w.i16[cols[ITEM], b, s])
            f.g[b, KPTS + 1 - side] += w.i8[cols[KP], b, s]
            if f.g[b, ACTIVE] == s:
                f.g[b, ACTIVE] = -1
    if f.g[b, GAME_OVER] == 0 and max(f.g[b, KPTS], f.g[b, KPTS + 1]) >= pr[P_KP_TO_WIN]:
        finish(f, pr, b, END_KILL_POINTS)


kernel_cache.check("outcome", kernel_cache.kernels_of(globals(), __name__))

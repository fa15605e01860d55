"""The Begin, Main and End Phases (compiled): classes.md "Begin Phase" (Mana Step, Enchantments
Step), "Main Phase" (casting, preparing, class abilities), "End Phase"; spec §2, §4, §5.
Each action checks everything before it pays and returns an error code (``state.ERRORS``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.systems.classes.effects import area_add, area_find, free_shape, run_jobs, tick_conditions, unleash
from battlesim.systems.classes.jobs import push
from battlesim.systems.classes.legal import check_summons, check_target
from battlesim.systems.classes.mana import can_pay, consume_prepared, mana_step, spend
from battlesim.systems.classes.progress import unlocked
from battlesim.systems.classes.rules import (
    AB_CLOCK,
    AB_COST,
    AB_N,
    AB_START,
    AB_TARGET,
    AB_TOKENS,
    C_AURA,
    C_COST,
    C_DURATION,
    C_EFF_N,
    C_EFF_START,
    C_SPELL,
    C_TARGET,
    F_OP,
    NAB,
    NCOST,
    OP,
    PW_AB,
    PW_NAB,
    PW_SLOTS,
    TR_CAST,
)
from battlesim.systems.classes.state import (
    A_CARD,
    A_SHAPE,
    AFTER_NOTHING,
    AREA,
    E_CLOCK,
    E_FULL_POWER,
    E_HAND,
    E_LOCKED,
    E_NOT_ACTIVE,
    E_NOT_PREPARED,
    E_NOT_SPELL,
    E_OK,
    E_OVER,
    E_PAY,
    E_SAME_TURN,
    E_SHAPE,
    E_TARGET,
    E_TOKENS,
    END_REASONS,
    G_ACTIVE,
    G_DRAW,
    G_END_REASON,
    G_ENDED,
    G_ERROR,
    G_TURN,
    G_TURN_LIMIT,
    HAND,
    NONE,
    P_CAST,
    P_PREP,
    P_PREP_TURN,
    POWERS,
    SC_UNLEASHED,
    U_ABILITY_USED,
    U_ANTIMAGIC,
    U_PRESENT,
    U_SIDE,
    W_CLOCK,
    W_ID,
    W_TOKENS,
)
from battlesim.systems.classes.units import add_card, holds, take_card

OP_ADD_TOKEN = OP["add_token"]
END_TURN_LIMIT = END_REASONS.index("turn_limit")


@njit(cache=True, _nrt=False)
def unleash_in_order(G, R, b, order, n_order, cards):
    """classes.md "Enchantments Step": "you unleash all Enchantments on cards you own in your play
    area and on the battleground, in any order you wish." Choice 12: first the active player's
    units' Antimagic is discarded ("Antimagic is discarded during that unit's owner's next
    Enchantments phase"); choice 18: the default order is oldest first; ``order`` names cards first.
    Plugin conditions tick after the Antimagic is discarded, before any unleash (ledger P4).
    ``cards``: room for ``AREA`` shapes (the order, fixed before the first unleash; it may be
    ``order`` itself when ``n_order`` is 0)."""
    p = G.g[b, G_ACTIVE]
    for f in range(G.u.shape[1]):
        if G.u[b, f, U_PRESENT] and G.u[b, f, U_SIDE] == p:
            G.u[b, f, U_ANTIMAGIC] = 0
    tick_conditions(G, R, b, p)
    # the entries to unleash, by their shape (each entry of a side has its own, choice 18): two
    # copies of one card are two enchantments, and both unleash ("all Enchantments on cards")
    n = 0
    for i in range(n_order + 1):  # the named cards first (every copy, oldest first), then the rest
        for k in range(AREA):
            c = G.area[b, p, k, A_CARD]
            if c < 0 or R.cards[c, C_DURATION] < 0 or (i < n_order and c != order[i]):
                continue
            shape = G.area[b, p, k, A_SHAPE]
            seen = False
            for j in range(n):
                seen = seen or cards[j] == shape
            if not seen:
                cards[n] = shape
                n += 1
    for i in range(n):
        if G.g[b, G_ENDED]:
            break
        k = area_find(G, b, p, NONE, cards[i])
        if k >= 0 and R.cards[G.area[b, p, k, A_CARD], C_DURATION] >= 0:
            unleash(G, R, b, p, k)
    return G.g[b, G_ERROR]


@njit(cache=True, _nrt=True)
def enchantments_step(G, R, b, order, n_order):
    """The Enchantments Step with ``order`` naming cards first (a scenario's step: its order may be
    of any length, so its room is allocated here, outside the game loop)."""
    return unleash_in_order(G, R, b, order, n_order, np.full(AREA, NONE, np.int64))


@njit(cache=True, _nrt=False, inline="always")
def begin_phase(G, R, b):
    """classes.md "Begin Phase": "you regain your resources (mana) and resolve active enchantments"
    (in the default order: choice 18). Inlined: once a turn, into the loop's one call site."""
    mana_step(G, b, G.g[b, G_ACTIVE])
    cards = G.scr[b, SC_UNLEASHED:SC_UNLEASHED + AREA]
    return unleash_in_order(G, R, b, cards, 0, cards)


@njit(cache=True, _nrt=False, inline="always")
def end_phase(G, b):
    """classes.md "End Phase": "you regain all cards from the Nether. Spells you have cast and units
    that were defeated between your turns." ⌚: "once per player turn" (every clock resets); the
    turn passes ("Players take turns in order"); choice 21: past the turn limit, a draw."""
    p = G.g[b, G_ACTIVE]
    for k in range(HAND):
        c = G.nether[b, p, k]
        if c >= 0:
            add_card(G.hand, b, p, c)
            G.nether[b, p, k] = NONE
    for side in range(2):
        for q in range(POWERS):
            for a in range(W_CLOCK, W_CLOCK + 3):
                G.pw[b, side, q, a] = 0
    for f in range(G.u.shape[1]):
        G.u[b, f, U_ABILITY_USED] = 0
    G.g[b, G_TURN] += 1
    G.g[b, G_ACTIVE] = 1 - p
    if G.g[b, G_TURN] > G.g[b, G_TURN_LIMIT] and not G.g[b, G_ENDED]:
        G.g[b, G_ENDED] = 1
        G.g[b, G_DRAW] = 1
        G.g[b, G_END_REASON] = END_TURN_LIMIT


@njit(cache=True, _nrt=False, inline="always")
def cast_error(G, R, b, side, card, prepared, target, choice, pay):
    """Whether ``side`` may cast ``card`` now (E_OK) or why not: classes.md "You can only cast a
    spell that is either prepared or in your hand"; "You cannot cast a spell if you cannot pay its
    cost"; a prepared spell "cannot be cast on the same turn it was prepared on". Changes nothing.
    Inlined, its checks on the arrays they read: the Main Phase listing asks it for each card in
    hand at each decision (inlined when ``Game`` and ``Rules`` were 17 arrays per call, S11)."""
    if G.g[b, G_ENDED]:
        return E_OVER
    if prepared:
        if G.pl[b, side, P_PREP] != card:
            return E_NOT_PREPARED
        if G.pl[b, side, P_PREP_TURN] == G.g[b, G_TURN]:
            return E_SAME_TURN
    else:
        if side != G.g[b, G_ACTIVE]:
            return E_NOT_ACTIVE  # "In this phase [Main], you can cast or prepare Spell cards from your hand"
        if not holds(G.hand, b, side, card):
            return E_HAND
    if R.cards[card, C_SPELL] == 0:
        return E_NOT_SPELL
    err = check_target(G.u, b, side, R.cards[card, C_TARGET], target, True)
    if err != E_OK:
        return err
    err = check_summons(G.hand, R.cards, R.effects, b, side, R.cards[card, C_EFF_START], R.cards[card, C_EFF_N],
                        choice)
    if err != E_OK:
        return err
    if R.cards[card, C_DURATION] >= 0 and free_shape(G.area, b, side) < 0:
        return E_SHAPE  # choice 18: no free shape, no cast
    if not prepared and not can_pay(G.pl, b, side, R.cards[card, C_COST:C_COST + NCOST], pay):
        return E_PAY
    return E_OK


@njit(cache=True, _nrt=False)
def cast(G, R, b, side, card, prepared, target, choice, pay):
    """classes.md "Casting a spell": "you must first pay its cost ... Then, place that spell in your
    play area and resolve its text. ... If its text contains an Aura or Enchantment text, leave it
    in your play area ... Otherwise, the Spell is moved into the Nether after being cast." A
    prepared spell's mana is consumed (choice 14)."""
    err = cast_error(G, R, b, side, card, prepared, target, choice, pay)
    if err != E_OK:
        return err
    duration = R.cards[card, C_DURATION]
    shape = free_shape(G.area, b, side) if duration >= 0 else NONE
    if prepared:
        consume_prepared(G, b, side)
        G.pl[b, side, P_PREP] = NONE
    else:
        spend(G, b, side, R.cards[card, C_COST:C_COST + NCOST], pay, False)
        take_card(G.hand, b, side, card)
    stays = duration >= 0 or R.cards[card, C_AURA] == 1
    if stays:
        area_add(G, b, side, card, shape, max(duration, 1) if duration >= 0 else 0)
    G.pl[b, side, P_CAST] += 1
    push(G, b, R.cards[card, C_EFF_START], R.cards[card, C_EFF_N], TR_CAST, side, card, NONE, shape, target, choice,
         1, 1, NONE, AFTER_NOTHING)
    run_jobs(G, R, b)
    if not stays:
        add_card(G.nether, b, side, card)
    return G.g[b, G_ERROR]


@njit(cache=True, _nrt=False, inline="always")
def prepare_error(G, R, b, side, card, pay):
    """Whether ``side`` may prepare ``card`` now (E_OK) or why not. Changes nothing. Inlined (the
    listing asks it for each card in hand, as ``cast_error``)."""
    if G.g[b, G_ENDED]:
        return E_OVER
    if side != G.g[b, G_ACTIVE]:
        return E_NOT_ACTIVE
    if not holds(G.hand, b, side, card):
        return E_HAND
    if R.cards[card, C_SPELL] == 0:
        return E_NOT_SPELL
    if not can_pay(G.pl, b, side, R.cards[card, C_COST:C_COST + NCOST], pay):
        return E_PAY
    return E_OK


@njit(cache=True, _nrt=False)
def prepare(G, R, b, side, card, pay):
    """classes.md "Preparing a spell": "Instead of paying its cost, place necessary Mana on top of
    that spell"; "You may only have one spell prepared at any time. You may choose to prepare a
    different spell by discarding the old one (moving it into the Nether), and consuming the Mana
    that was on top of it." """
    err = prepare_error(G, R, b, side, card, pay)
    if err != E_OK:
        return err
    old = G.pl[b, side, P_PREP]
    if old >= 0:
        add_card(G.nether, b, side, old)
        consume_prepared(G, b, side)
    spend(G, b, side, R.cards[card, C_COST:C_COST + NCOST], pay, True)
    take_card(G.hand, b, side, card)
    G.pl[b, side, P_PREP] = card
    G.pl[b, side, P_PREP_TURN] = G.g[b, G_TURN]
    return E_OK


@njit(cache=True, _nrt=False, inline="always")
def ability_error(G, R, b, side, p, a, target, choice, pay):
    """classes.md "Using a Class Ability": "Each text containing an arrow ► is its own ability. The
    text on the left side contains requirements that need to be paid or fulfilled to receive the
    benefit on the right side"; "a clock icon ⌚ ... limits usage of that ability to once per player
    turn"; a non-innate power needs a power token first (locked otherwise). Changes nothing.
    Inlined, as ``cast_error``: the listing asks it for each usable ability."""
    if G.g[b, G_ENDED]:
        return E_OVER
    if side != G.g[b, G_ACTIVE]:
        return E_NOT_ACTIVE
    pid = G.pw[b, side, p, W_ID]
    if pid < 0 or a >= R.powers[pid, PW_NAB]:
        return E_TARGET
    if not unlocked(G.pw, R.powers, b, side, p):
        return E_LOCKED
    base = PW_AB + a * NAB
    if R.powers[pid, base + AB_CLOCK] == 1 and G.pw[b, side, p, W_CLOCK + a]:
        return E_CLOCK
    if G.pw[b, side, p, W_TOKENS] < R.powers[pid, base + AB_TOKENS]:
        return E_TOKENS
    err = check_target(G.u, b, side, R.powers[pid, base + AB_TARGET], target, False)
    if err != E_OK:
        return err
    start, n = R.powers[pid, base + AB_START], R.powers[pid, base + AB_N]
    err = check_summons(G.hand, R.cards, R.effects, b, side, start, n, choice)
    if err != E_OK:
        return err
    for e in range(start, start + n):
        if R.effects[e, F_OP] == OP_ADD_TOKEN and G.pw[b, side, p, W_TOKENS] >= R.powers[pid, PW_SLOTS]:
            return E_FULL_POWER  # "Place 1 token on this power up to number of [slots]"
    if not can_pay(G.pl, b, side, R.powers[pid, base + AB_COST:base + AB_COST + NCOST], pay):
        return E_PAY
    return E_OK


@njit(cache=True, _nrt=False)
def class_ability(G, R, b, side, p, a, target, choice, pay):
    """Use ability ``a`` of power ``p`` (``ability_error`` says when it may be used)."""
    err = ability_error(G, R, b, side, p, a, target, choice, pay)
    if err != E_OK:
        return err
    pid = G.pw[b, side, p, W_ID]
    base = PW_AB + a * NAB
    start, n = R.powers[pid, base + AB_START], R.powers[pid, base + AB_N]
    spend(G, b, side, R.powers[pid, base + AB_COST:base + AB_COST + NCOST], pay, False)
    if R.powers[pid, base + AB_CLOCK] == 1:
        G.pw[b, side, p, W_CLOCK + a] = 1
    push(G, b, start, n, TR_CAST, side, NONE, NONE, NONE, target, choice, 0, 0, p, AFTER_NOTHING)
    run_jobs(G, R, b)
    return G.g[b, G_ERROR]

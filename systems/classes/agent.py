"""The compiled random agent's decisions, over the engine's own action functions (the game
loop that asks them, and greedy's, is ``loop.py``).

The agent's decisions, each uniform among the legal options (spec §13): every Main Phase action
and passing (cast from hand with a target, prepare, cast the prepared spell, a class ability
with a target); each unit's act (advance first or action first, then attack, defend or its
ability with a target); each Haste token (attack or advance); the windows of choice 14 (the
opponent's prepared spell after the active player's Begin Phase, after each of its Main Phase
actions, before its Act Step and after each of its unit acts; the active player's own between
its unit acts: cast it with a target, or pass). Left defaulted (ledger "Left"): level-up answers
(spec §14's defaults), the card a summon takes (the first of its type in hand). Random numbers come from the counter RNG (``ecs/compiled/rng.py``), so a game
depends only on its seed.
"""

from __future__ import annotations

from numba import njit

from battlesim.ecs.compiled.rng import integers
from battlesim.systems.classes.acting import (
    ACT_ABILITY,
    ACT_ATTACK,
    ACT_DEFEND,
    act_begin,
    act_end,
    action,
)
from battlesim.systems.classes.acting import ability_error as unit_ability_error
from battlesim.systems.classes.actions import (
    ability_error,
    cast,
    cast_error,
    class_ability,
    prepare,
    prepare_error,
)
from battlesim.systems.classes.legal import check_target
from battlesim.systems.classes.mana import can_pay
from battlesim.systems.classes.progress import unlocked
from battlesim.systems.classes.rules import (
    AB_COST,
    AB_TARGET,
    C_AB_TARGET,
    C_COST,
    C_HAS_ABILITY,
    C_SPELL,
    C_TARGET,
    NAB,
    NCOST,
    PW_AB,
    PW_NAB,
)
from battlesim.systems.classes.state import (
    E_OK,
    G_ENDED,
    HAND,
    NCOL,
    NONE,
    P_PREP,
    POWERS,
    SC_PAYER,
    T_NONE,
    U_CARD,
    U_HAS_ATTACK,
    U_SIDE,
    W_ID,
)
from battlesim.systems.classes.units import advance, find_target, find_uid

CANDIDATES = 4096  # legal main-phase actions listed at once (hand 40 x targets 52 would be more; never reached)
MAIN_ACTIONS = 12  # main-phase actions a random player takes at most per turn (then it passes)
STREAM = 7  # the agent's RNG stream
K_CAST, K_PREPARE, K_CAST_PREPARED, K_ABILITY = 0, 1, 2, 3
INVARIANT_ACTION = 99  # a listed legal action that the engine then refused


@njit(cache=True, _nrt=False, inline="always")
def targets_of(R, kind):
    """Every target a choice of ``kind`` may name on this board, and their count: the kind's row of
    ``R.targets`` (``rules.target_list``, built once per board where this built the list per card
    and decision); legality is the action's check."""
    return R.targets[kind, 1:], R.targets[kind, 0]


@njit(cache=True, _nrt=False, inline="always")
def first_target(u, b, side, kind, by_card, t, m):
    """The first of ``t[:m]`` that ``legal.check_target`` accepts, -1 if none (``u``: the unit
    array ``G.u``: the per-target check needs nothing else of ``Game``)."""
    for i in range(m):
        if check_target(u, b, side, kind, t[i], by_card) == E_OK:
            return i
    return -1


@njit(cache=True, _nrt=False, inline="always")
def add_targets(u, b, side, kind, by_card, t, ok, m, out, n, what, card, ab):
    """Rows (``what``, ``card``, ``ab``, target) for ``t[ok]`` and every later target that
    ``check_target`` accepts; returns the new count."""
    for i in range(ok, m):
        if n < CANDIDATES and (i == ok or check_target(u, b, side, kind, t[i], by_card) == E_OK):
            out[n, 0], out[n, 1], out[n, 2], out[n, 3] = what, card, ab, t[i]
            n += 1
    return n


@njit(cache=True, _nrt=False, inline="always")
def list_prepared(G, R, b, side, pay, out, n):
    """Rows (K_CAST_PREPARED, card, 0, target) for every legal target of ``side``'s prepared spell
    from row ``n`` (none if it has none); returns the new count. ``cast_error`` once, on the first
    target ``check_target`` accepts, then ``check_target`` alone (``legal_actions``' reason)."""
    c = G.pl[b, side, P_PREP]
    if c < 0:
        return n
    kind = R.cards[c, C_TARGET]
    t, m = targets_of(R, kind)
    ok = first_target(G.u, b, side, kind, True, t, m)
    if ok >= 0 and cast_error(G, R, b, side, c, True, t[ok], NONE, pay) == E_OK:
        n = add_targets(G.u, b, side, kind, True, t, ok, m, out, n, K_CAST_PREPARED, c, 0)
    return n


@njit(cache=True, _nrt=False)
def legal_actions(G, R, b, side, out):
    """The legal Main Phase actions of ``side`` as rows (kind, card or power, ability, target);
    returns the count. Each is checked by the action's own ``*_error`` function, once per card or
    ability: ``actions.cast_error`` and ``ability_error`` check the target with
    ``legal.check_target`` and nothing else of theirs depends on it, so with one target that
    passes both, every target that passes ``check_target`` is legal, and with one that passes
    ``check_target`` only, none is (the listing is the per-target one: tested)."""
    pay = G.scr[b, SC_PAYER:SC_PAYER + NCOL]
    # the arrays the loops read, taken out of the handles once: a field read inside a loop that
    # writes (``out``) is read again on every pass (the compiler cannot tell the write from it)
    u, pl, hand, board, cards, powers = G.u, G.pl, G.hand[b, side], G.pw[b, side], R.cards, R.powers
    n = 0
    for k in range(HAND):
        c = hand[k]
        if c < 0 or cards[c, C_SPELL] == 0:
            continue
        seen = False
        for j in range(k):
            seen = seen or hand[j] == c
        if seen or not can_pay(pl, b, side, cards[c, C_COST:C_COST + NCOST], pay):
            continue  # neither castable nor preparable: skip its targets
        kind = cards[c, C_TARGET]
        t, m = targets_of(R, kind)
        ok = first_target(u, b, side, kind, True, t, m)
        if ok >= 0 and cast_error(G, R, b, side, c, False, t[ok], NONE, pay) == E_OK:
            n = add_targets(u, b, side, kind, True, t, ok, m, out, n, K_CAST, c, 0)
        if n < CANDIDATES and prepare_error(G, R, b, side, c, pay) == E_OK:
            out[n, 0], out[n, 1], out[n, 2], out[n, 3] = K_PREPARE, c, 0, T_NONE
            n += 1
    n = list_prepared(G, R, b, side, pay, out, n)
    for p in range(POWERS):
        pid = board[p, W_ID]
        if pid < 0 or not unlocked(G.pw, powers, b, side, p):
            continue  # a locked power's abilities are refused whatever the target (``ability_error``)
        for a in range(powers[pid, PW_NAB]):
            base = PW_AB + a * NAB
            if not can_pay(pl, b, side, powers[pid, base + AB_COST:base + AB_COST + NCOST], pay):
                continue  # no target makes it payable: skip them
            kind = powers[pid, base + AB_TARGET]
            t, m = targets_of(R, kind)
            ok = first_target(u, b, side, kind, False, t, m)
            if ok >= 0 and ability_error(G, R, b, side, p, a, t[ok], NONE, pay) == E_OK:
                n = add_targets(u, b, side, kind, False, t, ok, m, out, n, K_ABILITY, p, a)
    return n


@njit(cache=True, _nrt=False, inline="always")
def apply_action(G, R, b, side, row):
    """Take one listed Main Phase action (a row of ``legal_actions``) with the default payer.
    Inlined: a dispatch, one call before the action's own."""
    pay = G.scr[b, SC_PAYER:SC_PAYER + NCOL]
    if row[0] == K_CAST:
        return cast(G, R, b, side, row[1], False, row[3], NONE, pay)
    if row[0] == K_PREPARE:
        return prepare(G, R, b, side, row[1], pay)
    if row[0] == K_CAST_PREPARED:
        return cast(G, R, b, side, row[1], True, row[3], NONE, pay)
    return class_ability(G, R, b, side, row[1], row[2], row[3], NONE, pay)


@njit(cache=True, _nrt=False)
def window(G, R, b, rng, rows, side):
    """``side`` may cast its prepared spell (prepared on an earlier turn) with a legal target, or
    pass; uniformly. classes.md: "A prepared spell may be cast at any time, even during opponent's
    turn"; choice 14: "the active player may also cast its own prepared spell between its unit acts"."""
    c = G.pl[b, side, P_PREP]
    if c < 0 or G.g[b, G_ENDED]:
        return E_OK
    pay = G.scr[b, SC_PAYER:SC_PAYER + NCOL]
    n = list_prepared(G, R, b, side, pay, rows, 0)
    if n == 0:
        return E_OK
    pick = integers(rng, b, n + 1, STREAM)
    if pick == n:
        return E_OK
    return cast(G, R, b, side, c, True, rows[pick, 3], NONE, pay)


@njit(cache=True, _nrt=False, inline="always")
def unit_actions(G, R, b, f, pay, rows):
    """The acts the unit on ``f`` may take now, as rows (kind, card, 0, target); returns the
    count: Attack if it has a valid target, Defend, its ability on each legal target. The ability
    is checked by ``acting.ability_error`` once, on the first target ``legal.check_target``
    accepts, and the other targets by ``check_target`` alone: nothing else it checks depends on
    the target (A4's reason, for a unit's ability; ``ability_error`` per target was most of a
    random act)."""
    card = G.u[b, f, U_CARD]
    n = 0
    if G.u[b, f, U_HAS_ATTACK] and find_target(G.u, R, b, f) != NONE:
        rows[n, 0], rows[n, 1], rows[n, 2], rows[n, 3] = ACT_ATTACK, card, 0, NONE
        n += 1
    rows[n, 0], rows[n, 1], rows[n, 2], rows[n, 3] = ACT_DEFEND, card, 0, NONE
    n += 1
    if card >= 0 and R.cards[card, C_HAS_ABILITY] == 1:
        kind, owner = R.cards[card, C_AB_TARGET], G.u[b, f, U_SIDE]
        t, m = targets_of(R, kind)
        ok = first_target(G.u, b, owner, kind, True, t, m)
        if ok >= 0 and unit_ability_error(G, R, b, f, t[ok], pay) == E_OK:
            n = add_targets(G.u, b, owner, kind, True, t, ok, m, rows, n, ACT_ABILITY, card, 0)
    return n


@njit(cache=True, _nrt=False)
def random_act(G, R, b, f, rng, rows):
    """One unit's act with random choices (classes.md "The unit can choose to advance before or
    after taking an action"; "There are 3 types of actions a unit can perform"): the order, then
    one legal action at that moment (Attack if it has a valid target, Defend, its ability on a
    legal target)."""
    pay = G.scr[b, SC_PAYER:SC_PAYER + NCOL]
    uid = act_begin(G.u, G.g, b, f)
    advance_first = integers(rng, b, 2, STREAM) == 1
    if advance_first:
        f = advance(G.u, R, b, f)
    n = unit_actions(G, R, b, f, pay, rows)
    pick = integers(rng, b, n, STREAM)
    err = action(G, R, b, f, rows[pick, 0], rows[pick, 3], pay)
    if not advance_first:
        f = find_uid(G.u, b, uid)
        if f >= 0 and not G.g[b, G_ENDED]:
            advance(G.u, R, b, f)
    act_end(G.u, G.g, b, uid)
    return err

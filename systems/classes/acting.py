"""A unit's act and the Battle Phase (compiled): classes.md "Act Step", "Advance", "Action –
Attack / Defend / Unit Ability", "Calculating Defense Value", the conditions that act there
(Stun, Chill, Snare, Haste, Turnover), "Gain Experience Step"; spec §7 and choices 5-11.
"""

from __future__ import annotations

from numba import njit

from battlesim.systems.classes.effects import run_jobs
from battlesim.systems.classes.jobs import push
from battlesim.systems.classes.legal import check_target
from battlesim.systems.classes.mana import can_pay, spend
from battlesim.systems.classes.progress import gain_experience
from battlesim.systems.classes.rules import (
    C_AB_CLOCK,
    C_AB_COST,
    C_AB_EFF_N,
    C_AB_EFF_START,
    C_AB_TARGET,
    C_HAS_ABILITY,
    NCOST,
    TR_CAST,
)
from battlesim.systems.classes.state import (
    AFTER_NOTHING,
    E_CLOCK,
    E_NO_ABILITY,
    E_NO_ATTACK,
    E_NO_UNIT,
    E_NO_VALID,
    E_NOT_OWN,
    E_OK,
    E_OVER,
    E_PAY,
    FIELDS_MAX,
    G_ACTIVE,
    G_ATTACKER,
    G_ATTACKS,
    G_BASE_DEFENSE,
    G_ENDED,
    G_ERROR,
    G_LOG,
    LG_ATTACK,
    LG_ATTACKER,
    LG_DAMAGE,
    LG_DEFENSE,
    LG_FLANKERS,
    LG_TARGET,
    LOG_FIELDS,
    LOG_N,
    NCOL,
    NONE,
    SC_ACT_FIELDS,
    SC_ACT_UIDS,
    SC_IN_ORDER,
    SC_PAYER,
    T_PLAYER,
    U_ABILITY_USED,
    U_ACTED,
    U_CARD,
    U_CHILL,
    U_DEFENDING,
    U_ETHEREAL,
    U_FEROCIOUS,
    U_HAS_ATTACK,
    U_HASTE,
    U_MOVES,
    U_PRESENT,
    U_SHIELD,
    U_SIDE,
    U_STUN,
    U_TURNOVER,
    U_UID,
)
from battlesim.systems.classes.units import (
    advance,
    attack_value,
    damage_player,
    damage_unit,
    find_target,
    find_uid,
    hostile,
    sync_health_auras,
    units_in_order,
)

FIRST_DEFAULT, FIRST_ACTION, FIRST_ADVANCE = 0, 1, 2
NLOG = len(LOG_FIELDS)
ACT_DEFAULT, ACT_ATTACK, ACT_DEFEND, ACT_ABILITY = 0, 1, 2, 3


@njit(cache=True, _nrt=False)
def flankers(G, R, b, t, attacker):
    """classes.md "An foe is considered to flank if it meets all these criteria: It is adjacent to
    the defending unit; It has an attack value of 0 or more; It is not defending itself; It is not
    the current attacker"; Ferocious "flanks even while defending, and while attacking (it flanks
    target of its attack)"; "Units without an Attack cannot ... flank"."""
    n = 0
    for i in range(R.adjacent.shape[1]):
        a = R.adjacent[t, i]
        if a < 0 or not G.u[b, a, U_PRESENT] or not hostile(G.u, b, a, t) or not G.u[b, a, U_HAS_ATTACK]:
            continue
        fierce = G.u[b, a, U_FEROCIOUS] > 0
        if G.u[b, a, U_DEFENDING] and not fierce:
            continue
        if a == attacker and not fierce:
            continue
        n += 1
    return n


@njit(cache=True, _nrt=False)
def log_attack(G, b, f, t, A, d, n, dmg):
    """The attack into the game's ring of the last ``LOG_N`` (``state.G_LOG``): the replay reads it."""
    k = G_LOG + (G.g[b, G_ATTACKS] % LOG_N) * NLOG
    G.g[b, k + LG_ATTACKER] = f
    G.g[b, k + LG_TARGET] = t
    G.g[b, k + LG_ATTACK] = A
    G.g[b, k + LG_DEFENSE] = d
    G.g[b, k + LG_FLANKERS] = n
    G.g[b, k + LG_DAMAGE] = dmg
    G.g[b, G_ATTACKS] += 1


@njit(cache=True, _nrt=False)
def attack(G, R, b, f, t):
    """classes.md "Executing the attack": modifiers, then "subtracting the defending unit's defense
    value (if applicable)", "deduct the damage", "Check for Defeat". Ethereal: "Attacks targeting
    an Ethereal unit gain -1 Attack value to a minimum of 1" (spec §7: an Attack of 0 stays 0);
    Defend: "A defending unit reduces incoming damage from attacks by its defense value"
    ("Base Defense – Each unit has a base defense value of 1", the ``base_defense`` parameter,
    + shields - flankers, at least 0); Chill: "reduce damage taken by 1 for each Chill token it
    has, then discard a number of Chill tokens equal to damage reduced"."""
    A = attack_value(G, R, b, f)
    side = G.u[b, f, U_SIDE]
    d, n = NONE, 0
    if t >= T_PLAYER:
        dmg = max(A, 0)
    else:
        if G.u[b, t, U_ETHEREAL] and A > 0:
            A = max(A - 1, 1)
        dmg = max(A, 0)
        if G.u[b, t, U_DEFENDING]:
            n = flankers(G, R, b, t, f)
            d = max(G.g[b, G_BASE_DEFENSE] + G.u[b, t, U_SHIELD] - n, 0)
            dmg = max(A - d, 0)
    chill = G.u[b, f, U_CHILL]
    cut = min(chill, dmg)
    G.u[b, f, U_CHILL] = chill - cut
    dmg -= cut
    log_attack(G, b, f, t, A, d, n, dmg)
    if t >= T_PLAYER:
        damage_player(G, b, t - T_PLAYER, dmg)
    else:
        damage_unit(G, R, b, t, dmg, side)
    run_jobs(G, R, b)


@njit(cache=True, _nrt=False, inline="always")
def ability_error(G, R, b, f, target, pay):
    """Whether the unit on ``f`` may use its ability on ``target`` now (E_OK) or why not: classes.md
    "You cannot use an ability if you cannot pay its cost"; a unit ability is a card's, so an
    Antimagic unit cannot be its target (choice 12); a ⌚ ability once per player turn. Changes nothing.
    Inlined: a unit's act lists its ability's targets through it (``agent.unit_actions``)."""
    card = G.u[b, f, U_CARD]
    if card < 0 or R.cards[card, C_HAS_ABILITY] == 0:
        return E_NO_ABILITY
    if R.cards[card, C_AB_CLOCK] == 1 and G.u[b, f, U_ABILITY_USED]:
        return E_CLOCK
    owner = G.u[b, f, U_SIDE]
    err = check_target(G.u, b, owner, R.cards[card, C_AB_TARGET], target, True)
    if err != E_OK:
        return err
    if not can_pay(G.pl, b, owner, R.cards[card, C_AB_COST:C_AB_COST + NCOST], pay):
        return E_PAY
    return E_OK


@njit(cache=True, _nrt=False)
def use_ability(G, R, b, f, target, pay):
    """classes.md "Action - Unit Ability": "Just like class abilities, unit abilities work in the
    same way. Left side shows the cost of the ability while the right side is resolved as a
    benefit." Its owner pays."""
    err = ability_error(G, R, b, f, target, pay)
    if err != E_OK:
        return err
    card = G.u[b, f, U_CARD]
    owner = G.u[b, f, U_SIDE]
    spend(G, b, owner, R.cards[card, C_AB_COST:C_AB_COST + NCOST], pay, False)
    G.u[b, f, U_ABILITY_USED] = 1
    push(G, b, R.cards[card, C_AB_EFF_START], R.cards[card, C_AB_EFF_N], TR_CAST, owner, card, G.u[b, f, U_UID], NONE,
         target, NONE, 0, 1, NONE, AFTER_NOTHING)
    run_jobs(G, R, b)
    return E_OK


@njit(cache=True, _nrt=False)
def action(G, R, b, f, kind, target, pay):
    """One of "Attack, Defend, Unit Ability"; Stun: "Causes a unit to skip its next action, then
    discard all its Stun tokens" (choice 9: the Advance is not an action)."""
    if G.u[b, f, U_STUN] > 0:
        G.u[b, f, U_STUN] = 0
        return E_OK
    if kind == ACT_ATTACK:
        if not G.u[b, f, U_HAS_ATTACK]:
            return E_NO_ATTACK  # "A unit can only attack if it has an Attack value"
        t = find_target(G.u, R, b, f)
        if t == NONE:
            return E_NO_VALID  # "It also needs a valid target within its range."
        attack(G, R, b, f, t)
        return E_OK
    if kind == ACT_DEFEND:
        G.u[b, f, U_DEFENDING] = 1  # "rotate its card sideways to indicate it's in defense mode"
        return E_OK
    return use_ability(G, R, b, f, target, pay)


@njit(cache=True, _nrt=False)
def act_error(G, b, f):
    """Whether the unit on ``f`` may act now: the game goes on, and it is the active player's
    (classes.md "all units belonging to the current player will take their turn")."""
    if G.g[b, G_ENDED]:
        return E_OVER
    if not (0 <= f < G.u.shape[1]) or not G.u[b, f, U_PRESENT]:
        return E_NO_UNIT
    if G.u[b, f, U_SIDE] != G.g[b, G_ACTIVE]:
        return E_NOT_OWN
    return E_OK


@njit(cache=True, _nrt=False, inline="always")
def act_begin(u, g, b, f):
    """The act starts: its Defend ends (choice 8: "until the unit's first action in the following
    Battle phase"); returns the unit's identity. On ``G.u`` and ``G.g`` alone, inlined (every act)."""
    u[b, f, U_DEFENDING] = 0
    u[b, f, U_MOVES] = 0
    g[b, G_ATTACKER] = u[b, f, U_UID]
    return u[b, f, U_UID]


@njit(cache=True, _nrt=False, inline="always")
def act_end(u, g, b, uid):
    """The act is over: Momentum's gain ends ("for as long as it is still acting"). On ``G.u``
    and ``G.g`` alone, inlined (every act)."""
    f = find_uid(u, b, uid)
    if f >= 0:
        u[b, f, U_MOVES] = 0
        u[b, f, U_ACTED] = 1
    g[b, G_ATTACKER] = NONE


@njit(cache=True, _nrt=False)
def act(G, R, b, f, first, kind, target, pay):
    """classes.md "Each unit will move (Advance) and perform one action. The unit can choose to
    advance before or after taking an action." Choice 7 (the default policy, ``first`` and
    ``kind`` 0): with a valid target attack then advance; else advance, then attack if that gave a
    target, else defend. Returns an error code."""
    err = act_error(G, b, f)
    if err != E_OK:
        return err
    uid = act_begin(G.u, G.g, b, f)
    if first == FIRST_DEFAULT and kind == ACT_DEFAULT:
        if find_target(G.u, R, b, f) != NONE:
            err = action(G, R, b, f, ACT_ATTACK, target, pay)
            f = find_uid(G.u, b, uid)
            if f >= 0 and not G.g[b, G_ENDED]:
                f = advance(G.u, R, b, f)
        else:
            f = advance(G.u, R, b, f)
            err = action(G, R, b, f, ACT_ATTACK if find_target(G.u, R, b, f) != NONE else ACT_DEFEND, target, pay)
    else:
        if kind == ACT_DEFAULT:
            kind = ACT_ATTACK if find_target(G.u, R, b, f) != NONE else ACT_DEFEND
        if first == FIRST_ADVANCE:
            f = advance(G.u, R, b, f)
            err = action(G, R, b, f, kind, target, pay)
        else:
            err = action(G, R, b, f, kind, target, pay)
            f = find_uid(G.u, b, uid)
            if err == E_OK and f >= 0 and not G.g[b, G_ENDED]:
                f = advance(G.u, R, b, f)
    act_end(G.u, G.g, b, uid)
    return err


@njit(cache=True, _nrt=False, inline="always")
def snapshot(G, R, b, p, uids, start):
    """Choice 5: the Act Step's order is a snapshot of ``p``'s units (their identities and fields)
    taken as it starts; returns the count. Inlined: once per turn in the loop (one call site),
    and its own work is less than a call's."""
    fields = G.scr[b, SC_IN_ORDER:SC_IN_ORDER + FIELDS_MAX]
    n = units_in_order(G.u, R, b, p, fields)
    m = 0
    for i in range(n):
        if G.u[b, fields[i], U_SIDE] == p:
            uids[m] = G.u[b, fields[i], U_UID]
            start[m] = fields[i]
            G.u[b, fields[i], U_ACTED] = 0
            m += 1
    return m


@njit(cache=True, _nrt=False)
def act_step(G, R, b, orders, n_orders):
    """classes.md "Act Step": "all units belonging to the current player will take their turn. The
    turns will go from the top left unit to the bottom right unit". Choice 5: the order is a
    snapshot; one act per unit; a unit that died first is skipped; choice 11: a unit with Turnover
    acts in its owner's step. ``orders[i]`` = (field at the step's start, first, action, target)."""
    p = G.g[b, G_ACTIVE]
    uids = G.scr[b, SC_ACT_UIDS:SC_ACT_UIDS + FIELDS_MAX]
    start = G.scr[b, SC_ACT_FIELDS:SC_ACT_FIELDS + FIELDS_MAX]
    m = snapshot(G, R, b, p, uids, start)
    pay = G.scr[b, SC_PAYER:SC_PAYER + NCOL]
    for i in range(m):
        if G.g[b, G_ENDED]:
            return E_OK
        f = find_uid(G.u, b, uids[i])
        if f < 0 or G.u[b, f, U_ACTED]:
            continue
        first, kind, target = FIRST_DEFAULT, ACT_DEFAULT, NONE
        for k in range(n_orders):
            if orders[k, 0] == start[i]:
                first, kind, target = orders[k, 1], orders[k, 2], orders[k, 3]
        err = act(G, R, b, f, first, kind, target, pay)
        if err != E_OK:
            return err
    return E_OK


@njit(cache=True, _nrt=False, inline="always")
def hasted(u, b, p):
    """Whether a unit of side ``p`` holds a Haste token (most turns none does)."""
    for f in range(u.shape[1]):
        if u[b, f, U_PRESENT] and u[b, f, U_SIDE] == p and u[b, f, U_HASTE] > 0:
            return True
    return False


@njit(cache=True, _nrt=False, inline="always")
def clear_haste(u, b, p, acted):
    """What a Haste step leaves on side ``p``'s units when none holds a token, without walking the
    acting order: no tokens, no moves counted; with ``acted``, not acted either (the loop's step
    takes the Act Step's snapshot first, ``snapshot``)."""
    for f in range(u.shape[1]):
        if u[b, f, U_PRESENT] and u[b, f, U_SIDE] == p:
            u[b, f, U_HASTE] = 0
            u[b, f, U_MOVES] = 0
            if acted:
                u[b, f, U_ACTED] = 0


@njit(cache=True, _nrt=False, inline="always")
def haste(G, R, b):
    """classes.md "Haste": "Each haste token causes a unit to perform an additional Advance or
    Attack at the end of its next Battle phase" (choice 10: after the Act Step, in acting order;
    Attack when it has a valid target, else Advance; then the tokens are used up). Inlined into
    ``battle_end``, its one caller: most turns nobody holds a token and it only clears."""
    p = G.g[b, G_ACTIVE]
    if not hasted(G.u, b, p):
        clear_haste(G.u, b, p, False)
        return
    fields = G.scr[b, SC_IN_ORDER:SC_IN_ORDER + FIELDS_MAX]
    n = units_in_order(G.u, R, b, p, fields)
    uids = G.scr[b, SC_ACT_UIDS:SC_ACT_UIDS + FIELDS_MAX]
    for i in range(n):
        uids[i] = G.u[b, fields[i], U_UID]
    for i in range(n):
        f = find_uid(G.u, b, uids[i])
        if f < 0 or G.u[b, f, U_SIDE] != p:
            continue
        for _ in range(G.u[b, f, U_HASTE]):
            if G.g[b, G_ENDED] or f < 0:
                break
            t = find_target(G.u, R, b, f)
            if t != NONE:
                attack(G, R, b, f, t)
            else:
                f = advance(G.u, R, b, f)
            f = find_uid(G.u, b, uids[i])
        if f >= 0:
            G.u[b, f, U_HASTE] = 0
            G.u[b, f, U_MOVES] = 0


@njit(cache=True, _nrt=False, inline="always")
def battle_end(G, R, b):
    """What follows the Act Step: Haste (choice 10), "Gain Experience Step: At the end of Battle,
    the player gains +1 experience", and (choice 11) the active player's units' Turnover tokens
    are discarded at the end of its Battle phase. Inlined: once a turn, into the loop's step."""
    haste(G, R, b)
    if G.g[b, G_ENDED]:
        return E_OK
    p = G.g[b, G_ACTIVE]
    gain_experience(G, R, b, p, 1)
    run_jobs(G, R, b)
    for f in range(G.u.shape[1]):
        if G.u[b, f, U_PRESENT] and G.u[b, f, U_SIDE] == p:
            G.u[b, f, U_TURNOVER] = 0
    sync_health_auras(G, R, b)  # a unit back on its owner's side is under other auras
    return G.g[b, G_ERROR]


@njit(cache=True, _nrt=False)
def battle_phase(G, R, b, orders, n_orders):
    """classes.md "Battle phase": "This is a phase where units on the battlefield act, and heroes
    gain experience from the battle": the Act Step, then ``battle_end``."""
    err = act_step(G, R, b, orders, n_orders)
    if err != E_OK or G.g[b, G_ENDED]:
        return err
    return battle_end(G, R, b)

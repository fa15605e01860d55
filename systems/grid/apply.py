"""Applying one action of the action table to one game: unit turns, moves (and traps on the way),
attacks and abilities with their damage, spells, items, hires, deaths, kill points and victory,
and the player turn's end and start (income, draw, statuses ticking).

Compiled (``@njit(cache=True, _nrt=False)``: nothing allocates), the arguments of ``rules.py``,
with the thread's working space ``k`` (``work.GridWork``) where occupancy, move costs or a path
are needed. ``apply_action`` trusts that
the action is legal (``rules.legal_mask``): the agent draws from the mask, the scenario runner
checks it first. All damage goes through ``outcome.hit`` with the grid damage arithmetic
(``damage.py``: grid.md 4.4.3); deaths are settled once the action is done (``outcome.settle``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.systems.grid import kernel_cache
from battlesim.systems.grid.action_table import ATTACK, END_UNIT, HIDE, MOVE, PASS, SELECT, USE, decode
from battlesim.systems.grid.board import INF, direction_of, push_destination, rush_cells, step_cost
from battlesim.systems.grid.damage import attack_base, stun_damage
from battlesim.systems.grid.occupancy import move_unit
from battlesim.systems.grid.outcome import (
    finish,
    finish_with,
    hit,
    log_played,
    settle,
    shuffle_deck,
    take_from_deck,
    take_from_hand,
    to_cemetery,
    to_hand,
)
from battlesim.systems.grid.rules import (
    eff_damage,
    eff_dtype,
    eff_mv,
    eff_resist,
    flies,
    free_slot,
    move_costs_of,
    parry_of,
    passes_walls,
)
from battlesim.systems.grid.state import (
    A_AMOUNT,
    A_AREA,
    A_BONUS,
    A_BONUS_DAMAGE,
    A_CARD,
    A_DAMAGE,
    A_DTYPE,
    A_MULT2,
    A_OP,
    A_SE,
    A_STATUS,
    A_STUN,
    ACTION_USED,
    ACTIVE,
    ACTIVE_TURN,
    ATTACKED,
    BONUS_USED,
    C_CLS,
    C_COST,
    C_DAMAGE,
    C_DTYPE,
    C_FLYING,
    C_HERO,
    C_HIDING,
    C_HP,
    C_KP,
    C_MV,
    C_PARRY,
    C_RANGE,
    C_RES,
    C_TYPE,
    CARD,
    CELL,
    CLS,
    DAMAGE,
    DECK_N,
    DTYPE,
    END_ELIMINATION,
    END_ROUND_LIMIT,
    FIRST,
    FLYING,
    G_MV,
    GOLD,
    HAND_N,
    HERO,
    HIDDEN,
    HIDING,
    HP,
    INVISIBLE,
    ITEM,
    KP,
    MAX_HP,
    MV,
    MV_LEFT,
    OP_ATTACK,
    OP_CONCEAL,
    OP_EXTRA_MV,
    OP_GATHER,
    OP_HEAL,
    OP_JUMP,
    OP_PUSH,
    OP_RUSH,
    OP_SEARCH,
    OP_TELEPORT,
    OVER,
    P_ELIMINATION,
    P_FRIENDLY_FIRE,
    P_GOLD_PER_TURN,
    P_HIRED_UNITS_ACT,
    P_ROUND_LIMIT,
    P_SE_CAP,
    P_SE_PER_TURN,
    PARRIED,
    PARRY,
    RANGE,
    READY,
    RES0,
    ROUND,
    SE,
    SIDE,
    STATUS_INVISIBLE,
    STUNNED,
    T_HERO,
    T_ITEM,
    T_SPELL,
    T_TRAP,
    T_UNIT,
    TURN,
    TURN_STATE,
    K,
)
from battlesim.systems.grid.work import forget_move_costs

MV_CAP = 100  # grid_mv_left is int8: extra MV beyond this is never spendable on a 16x16 board anyway


@njit(cache=True, _nrt=False, inline="always")
def strike(w, cols, f, bd, ct, pr, b, s, c, base, mult2, bonus, dtype, area, stun):
    """grid.md 4.4.4: "During combat, a unit or hero always hits a target that is in range." An
    area hits every enemy within ``area`` orthogonal steps of c, hidden ones too ("Hidden or
    invisible units are affected by area of effect (AoE) damage."); a single target's parry
    nullifies the first attacks of each opponent turn ("Attacks can be nullified by using
    abilities such as parry"); a stun deals the attacker's base damage ("Stunned opponents incur
    the base damage from the attacker") and stuns."""
    side = w.i8[cols[SIDE], b, s]
    if area >= 0:
        for t in range(w.alive.shape[1]):
            if (w.alive[b, t] and (w.i8[cols[SIDE], b, t] != side or pr[P_FRIENDLY_FIRE] > 0)
                    and bd.manhattan[c, w.i16[cols[CELL], b, t]] <= area and t != s):
                hit(w, cols, ct, b, t, base, mult2, bonus, dtype)
        return
    t = f.who[b, c]
    if t < 0:
        return
    if w.i8[cols[PARRIED], b, t] < parry_of(w, cols, ct, b, t):
        w.i8[cols[PARRIED], b, t] += 1
        return
    if stun:
        w.i16[cols[HP], b, t] -= stun_damage(eff_damage(w, cols, ct, b, s), eff_resist(w, cols, ct, b, t, dtype))
        w.flags[cols[STUNNED], b, t] = True
        return
    hit(w, cols, ct, b, t, base, mult2, bonus, dtype)


@njit(cache=True, _nrt=False, inline="always")
def spring_trap(w, cols, f, bd, ct, pr, b, s, c):
    """Ledger "Traps" (grid.md 4.4.3: "Physical damage occurs from ... spike traps. Magic damage
    occurs from ... explosion traps."): unit s entered c; an enemy trap there goes off (its
    damage, of its type, to s or to every enemy of its owner within its area) and goes to its
    owner's cemetery. True when it went off (a move stops there)."""
    card = f.trap[b, c, 0]
    owner = f.trap[b, c, 1]
    if card < 0 or owner == w.i8[cols[SIDE], b, s]:
        return False
    row = ct.abil[card, 0]
    dmg, dtype, area = np.int64(row[A_DAMAGE]), np.int64(row[A_DTYPE]), np.int64(row[A_AREA])
    if area >= 0:
        for t in range(w.alive.shape[1]):
            if (w.alive[b, t] and w.i8[cols[SIDE], b, t] != owner
                    and bd.manhattan[c, w.i16[cols[CELL], b, t]] <= area):
                hit(w, cols, ct, b, t, dmg, 2, 0, dtype)
    else:
        hit(w, cols, ct, b, s, dmg, 2, 0, dtype)
    f.trap[b, c, 0] = -1
    f.trap[b, c, 1] = -1
    to_cemetery(f, b, owner, card)
    return True


@njit(cache=True, _nrt=False, inline="always")
def place(w, cols, f, bd, ct, pr, b, s, c):
    """Unit s is moved onto c without spending MV (jump, teleport, push, rush: grid.md 4.2.13
    "If the card that was moved still has a turn, it is allowed use of its full MV value.")."""
    move_unit(w, cols, f, b, s, c)
    spring_trap(w, cols, f, bd, ct, pr, b, s, c)


@njit(cache=True, _nrt=False, inline="always")
def walk(w, cols, f, bd, ct, pr, b, k, s, dest):
    """grid.md 4.2.1: move along the cheapest legal path, spending its MV; a trap on the way stops
    the unit on its cell (the MV spent so far stays spent)."""
    occ, path = f.occ[b], k.path
    start = w.i16[cols[CELL], b, s]
    fl = flies(w, cols, ct, b, s)
    cost = move_costs_of(w, cols, f, bd, ct, b, k, s)  # most often the legal mask's, just computed
    n = 0
    cur = dest
    while cur != start:  # back from the destination: the first predecessor (direction order) on a cheapest path
        path[n] = cur
        n += 1
        nxt = -1
        for d in range(4):
            p = bd.neighbours[cur, d]
            if p >= 0 and cost[p] != INF and cost[p] + step_cost(bd.web, p, fl) == cost[cur]:
                nxt = p
                break
        cur = nxt
    spent = 0
    for i in range(n - 1, -1, -1):
        c = np.int64(path[i])
        spent = cost[c]
        empty = occ[c] == -1  # a friend's cell passed through has no trap to spring
        move_unit(w, cols, f, b, s, c)
        if empty and spring_trap(w, cols, f, bd, ct, pr, b, s, c):
            break
    w.i8[cols[MV_LEFT], b, s] -= spent


# -- unit turns -------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def end_unit_turn(w, cols, f, b):
    """grid.md 4.1.3: "Starting the turn of another unit or hero results in the immediate
    termination of the previous card's turn."."""
    a = f.g[b, ACTIVE]
    if a >= 0:
        w.i8[cols[TURN_STATE], b, a] = OVER
        w.i8[cols[MV_LEFT], b, a] = 0
    f.g[b, ACTIVE] = -1


@njit(cache=True, _nrt=False)
def use(w, cols, f, bd, ct, pr, b, k, s, row, c):
    """Unit s uses the ability ``row`` (its own, or a spell's effect) aimed at c. grid.md 4.3.4:
    "If the action is not part of combat, the completion of the action indicates that the unit or
    hero has ended its turn"; 4.3.5: a bonus action "will not be considered as the main action"."""
    op = row[A_OP]
    bonus = row[A_BONUS] > 0
    side = w.i8[cols[SIDE], b, s]
    start = w.i16[cols[CELL], b, s]
    t = f.who[b, c]  # the unit aimed at, before anything moves (-1: a cell)
    occ = f.occ[b]  # the cells a push or a rush passes must be empty
    if bonus:
        w.flags[cols[BONUS_USED], b, s] = True
    else:
        w.flags[cols[ACTION_USED], b, s] = True
    if op == OP_ATTACK:
        base = attack_base(eff_damage(w, cols, ct, b, s), np.int64(row[A_DAMAGE]))
        dtype = np.int64(row[A_DTYPE]) if row[A_DTYPE] >= 0 else eff_dtype(w, cols, ct, b, s)
        strike(w, cols, f, bd, ct, pr, b, s, c, base, np.int64(row[A_MULT2]), np.int64(row[A_BONUS_DAMAGE]),
               dtype, np.int64(row[A_AREA]), row[A_STUN] > 0)
        after_attack(w, cols, f, b, s)
        return
    if op == OP_EXTRA_MV:  # grid.md 4.2.3: "actions, items or spell cards to increase movement"
        w.i8[cols[MV_LEFT], b, s] = min(MV_CAP, np.int64(w.i8[cols[MV_LEFT], b, s]) + row[A_AMOUNT])
    elif op == OP_JUMP or op == OP_TELEPORT:  # grid.md 4.2.11, 4.2.12
        place(w, cols, f, bd, ct, pr, b, s, c)
    elif op == OP_PUSH:  # grid.md 4.2.13
        place(w, cols, f, bd, ct, pr, b, t,
              push_destination(bd.neighbours, bd.wall, occ, start, c, row[A_AMOUNT], passes_walls(w, cols, ct, b, t)))
    elif op == OP_RUSH:  # grid.md 4.2.3: "move an extra space while shoving a card out of its way"
        to, shoved = rush_cells(bd.neighbours, bd.wall, bd.web, occ, start, direction_of(bd.neighbours, start, c),
                                np.int64(w.i8[cols[MV_LEFT], b, s]), passes_walls(w, cols, ct, b, s),
                                flies(w, cols, ct, b, s), passes_walls(w, cols, ct, b, t) if t >= 0 else False)
        if shoved >= 0:
            place(w, cols, f, bd, ct, pr, b, t, shoved)
        place(w, cols, f, bd, ct, pr, b, s, to)
    elif op == OP_HEAL:
        w.i16[cols[HP], b, t] = min(w.i16[cols[MAX_HP], b, t], w.i16[cols[HP], b, t] + row[A_AMOUNT])
    elif op == OP_GATHER:  # grid.md 4.1.1: the Elf Gatherer at the mana pool
        f.g[b, SE + side] = min(pr[P_SE_CAP], f.g[b, SE + side] + row[A_AMOUNT])
    elif op == OP_SEARCH:  # grid.md 4.3.12: "search their deck to find a specific card and add it to their hand"
        for i in range(f.g[b, DECK_N + side]):
            if f.deck[b, side, i] == row[A_CARD]:
                to_hand(f, pr, b, side, take_from_deck(f, b, side, i))
                break
        shuffle_deck(f, b, side)
    elif op == OP_CONCEAL:
        w.flags[cols[INVISIBLE if row[A_STATUS] == STATUS_INVISIBLE else HIDDEN], b, t] = True
    settle(w, cols, f, pr, b)
    if not bonus and w.alive[b, s]:
        if op != OP_CONCEAL or t != s:
            w.flags[cols[HIDDEN], b, s] = False  # ledger Hidden: a main action ends hiding
        end_unit_turn(w, cols, f, b)


@njit(cache=True, _nrt=False, inline="always")
def after_attack(w, cols, f, b, s):
    """grid.md 4.1.1: "Movement -> Action -> Combat": the attack is the last thing the unit does;
    hiding ends with it (ledger Hidden; invisibility does not)."""
    if w.alive[b, s]:
        w.flags[cols[ATTACKED], b, s] = True
        w.flags[cols[HIDDEN], b, s] = False
        if f.g[b, ACTIVE] == s:
            end_unit_turn(w, cols, f, b)


@njit(cache=True, _nrt=False)
def spawn(w, cols, f, ct, pr, b, side, card, c):
    """A hired unit or hero enters the board at c with its card's values (grid.md 4.1.4 "hire")."""
    s = free_slot(w, b)
    w.alive[b, s] = True
    cd = ct.card[card]
    w.i16[cols[CARD], b, s] = card
    w.i16[cols[HP], b, s] = cd[C_HP]
    w.i16[cols[MAX_HP], b, s] = cd[C_HP]
    w.i16[cols[DAMAGE], b, s] = cd[C_DAMAGE]
    for t in range(3):
        w.i16[cols[RES0 + t], b, s] = cd[C_RES + t]
    w.i16[cols[ITEM], b, s] = -1
    w.i8[cols[SIDE], b, s] = side
    move_unit(w, cols, f, b, s, c)  # a free slot's cell is its last unit's, vacated when it died
    w.i8[cols[CLS], b, s] = cd[C_CLS]
    w.i8[cols[MV], b, s] = cd[C_MV]
    w.i8[cols[MV_LEFT], b, s] = 0
    w.i8[cols[DTYPE], b, s] = cd[C_DTYPE]
    w.i8[cols[RANGE], b, s] = cd[C_RANGE]
    w.i8[cols[KP], b, s] = cd[C_KP]
    w.i8[cols[PARRY], b, s] = cd[C_PARRY]
    w.i8[cols[PARRIED], b, s] = 0
    w.i8[cols[TURN_STATE], b, s] = OVER
    w.flags[cols[FLYING], b, s] = cd[C_FLYING] > 0
    w.flags[cols[HIDING], b, s] = cd[C_HIDING] > 0
    w.flags[cols[HERO], b, s] = cd[C_HERO] > 0
    for k in (HIDDEN, INVISIBLE, STUNNED, ACTION_USED, BONUS_USED, ATTACKED):
        w.flags[cols[k], b, s] = False
    for j in range(ct.abil.shape[1]):  # element by element: a slice assignment may allocate a copy
        for x in range(ct.abil.shape[2]):
            f.abil[b, s, j, x] = ct.abil[card, j, x]
    f.slot_row[b, s] = -1  # the card log's row: set by whoever brought the unit in
    if pr[P_HIRED_UNITS_ACT] > 0:
        w.i8[cols[TURN_STATE], b, s] = READY
        w.i8[cols[MV_LEFT], b, s] = min(MV_CAP, eff_mv(w, cols, ct, b, s))
    return s


@njit(cache=True, _nrt=False)
def play_card(w, cols, f, bd, ct, pr, b, k, h, c):
    """grid.md 4.1.4 "enough cards in the player's hand and gold available to hire"; spec §3 Spells,
    Items; ledger Traps. Hand card h at c: hire a unit (gold), put an item on an own unit (gold, not an action), set
    a trap (gold), or have the active unit cast a spell (SE; its action or bonus action)."""
    side = f.g[b, TURN]
    card = take_from_hand(f, b, side, h)
    typ = ct.card[card, C_TYPE]
    cost = np.int64(ct.card[card, C_COST])
    if typ == T_UNIT or typ == T_HERO:
        f.g[b, GOLD + side] -= cost
        log_played(f, b, side, card, spawn(w, cols, f, ct, pr, b, side, card, c))
        return
    log_played(f, b, side, card, -1)
    if typ == T_ITEM:
        f.g[b, GOLD + side] -= cost
        t = f.who[b, c]
        old = w.i16[cols[ITEM], b, t]
        gain = np.int64(ct.card[card, G_MV]) - (np.int64(ct.card[old, G_MV]) if old >= 0 else 0)
        to_cemetery(f, b, side, old)  # one item per unit: the old one goes (ledger: Spells, items)
        w.i16[cols[ITEM], b, t] = card
        if w.i8[cols[TURN_STATE], b, t] != OVER:
            w.i8[cols[MV_LEFT], b, t] = max(0, min(MV_CAP, np.int64(w.i8[cols[MV_LEFT], b, t]) + gain))
    elif typ == T_TRAP:
        f.g[b, GOLD + side] -= cost
        f.trap[b, c, 0] = card
        f.trap[b, c, 1] = side
    elif typ == T_SPELL:
        f.g[b, SE + side] -= cost
        to_cemetery(f, b, side, card)
        use(w, cols, f, bd, ct, pr, b, k, f.g[b, ACTIVE], ct.abil[card, 0], c)


# -- player turns -------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def begin_turn(w, cols, f, bd, ct, pr, b, side):
    """grid.md 4.1.4: "the other player's turn begins by gaining gold and drawing a card" (+ SE,
    spec §2). Its units get their turns with full MV, except stunned ones (grid.md 4.4.4: "treated
    as if it was newly spawned"); parry counts and invisibility of its units end."""
    f.g[b, TURN] = side
    f.g[b, GOLD + side] += pr[P_GOLD_PER_TURN]
    if f.g[b, DECK_N + side] > 0:
        to_hand(f, pr, b, side, take_from_deck(f, b, side, 0))
    f.g[b, SE + side] = min(pr[P_SE_CAP], f.g[b, SE + side] + pr[P_SE_PER_TURN])
    units = 0
    for s in range(w.alive.shape[1]):
        if not w.alive[b, s] or w.i8[cols[SIDE], b, s] != side:
            continue
        units += 1
        w.i8[cols[PARRIED], b, s] = 0
        w.flags[cols[INVISIBLE], b, s] = False
        for k in (ACTION_USED, BONUS_USED, ATTACKED):
            w.flags[cols[k], b, s] = False
        stunned = w.flags[cols[STUNNED], b, s]
        w.i8[cols[TURN_STATE], b, s] = OVER if stunned else READY
        w.i8[cols[MV_LEFT], b, s] = 0 if stunned else min(MV_CAP, eff_mv(w, cols, ct, b, s))
    if pr[P_ELIMINATION] > 0 and units == 0 and not can_hire(f, ct, b, side):
        finish_with(f, b, 1 - side, END_ELIMINATION)


@njit(cache=True, _nrt=False)
def can_hire(f, ct, b, side):
    """grid.md 4.1.4: "enough cards in the player's hand and gold available to hire more units or heroes"."""
    for h in range(f.g[b, HAND_N + side]):
        card = f.hand[b, side, h]
        if (ct.card[card, C_TYPE] == T_UNIT or ct.card[card, C_TYPE] == T_HERO) and \
                ct.card[card, C_COST] <= f.g[b, GOLD + side]:
            return True
    return False


@njit(cache=True, _nrt=False, inline="always")
def end_turn(w, cols, f, bd, ct, pr, b):
    """grid.md 4.1.4: "When a player has exhausted all desired options, the other player's turn
    begins". The ending player's stunned units have sat out their turn: the stun ends. A round is
    both players' turns; after ``round_limit`` rounds the game ends (spec §2 Victory)."""
    side = f.g[b, TURN]
    end_unit_turn(w, cols, f, b)
    for s in range(w.alive.shape[1]):
        if w.alive[b, s] and w.i8[cols[SIDE], b, s] == side:
            w.flags[cols[STUNNED], b, s] = False
            w.i8[cols[TURN_STATE], b, s] = OVER
            w.i8[cols[MV_LEFT], b, s] = 0
    nxt = 1 - side
    if nxt == f.g[b, FIRST]:
        if f.g[b, ROUND] >= pr[P_ROUND_LIMIT]:
            finish(f, pr, b, END_ROUND_LIMIT)
            return
        f.g[b, ROUND] += 1
    begin_turn(w, cols, f, bd, ct, pr, b, nxt)


@njit(cache=True, _nrt=False)
def apply_action(w, cols, f, bd, ct, pr, b, k, a):
    """Action ``a`` of the action table (spec §4) for the player whose turn it is."""
    cells = bd.wall.shape[0]
    kind, j, c = decode(a, cells, K, f.hand.shape[2])
    s = f.g[b, ACTIVE]
    if kind == PASS:
        end_turn(w, cols, f, bd, ct, pr, b)
    elif kind == END_UNIT:
        end_unit_turn(w, cols, f, b)
    elif kind == SELECT:
        end_unit_turn(w, cols, f, b)
        t = f.who[b, c]
        w.i8[cols[TURN_STATE], b, t] = ACTIVE_TURN
        f.g[b, ACTIVE] = t
    elif kind == MOVE:
        walk(w, cols, f, bd, ct, pr, b, k, s, c)
        settle(w, cols, f, pr, b)
    elif kind == ATTACK:  # the basic attack: never an action, never SE (grid.md 4.3.8)
        strike(w, cols, f, bd, ct, pr, b, s, c, eff_damage(w, cols, ct, b, s), 2, 0,
               eff_dtype(w, cols, ct, b, s), -1, False)
        settle(w, cols, f, pr, b)
        after_attack(w, cols, f, b, s)
    elif kind == USE:
        row = f.abil[b, s, j]
        f.g[b, SE + f.g[b, TURN]] -= row[A_SE]  # grid.md 4.3.6: "deduct the associated SE cost"
        use(w, cols, f, bd, ct, pr, b, k, s, row, c)
        settle(w, cols, f, pr, b)
    elif kind == HIDE:  # grid.md 4.2.14: hiding is the unit's action: its turn ends
        w.flags[cols[HIDDEN], b, s] = True
        w.flags[cols[ACTION_USED], b, s] = True
        end_unit_turn(w, cols, f, b)
    else:
        play_card(w, cols, f, bd, ct, pr, b, k, j, c)
        settle(w, cols, f, pr, b)
    forget_move_costs(k)  # the game has changed


kernel_cache.check("apply", kernel_cache.kernels_of(globals(), __name__))

"""The compiled grid agents that think: ``greedy`` and ``lookahead`` (``--agents greedy,random``).

Both score the legal actions of spec §4 and take the best (the first on a tie: no randomness, so
a game still depends only on its seed, decks and agents). They share one evaluation of a game
from a player's side (``evaluate``), built from what the rules make valuable:

- kills: grid.md 4.4.4 "their kill points count towards the victory condition" -> ``KP_W`` per
  kill point, plus the material a unit is (HP, damage, MV, resistances: ``material``);
- threat: an own unit that may still act this turn is worth ``ATT_W`` of the best hit it can
  reach (its MV left plus its range, orthogonal steps: grid.md 4.4.4 "diagonal spaces are never
  counted"), so moving into range is good and ending a turn that could have attacked is not;
- safety: an own unit loses ``SAFE_W`` of the damage the enemies could bring onto its cell next
  turn (concealed ones too: hiding ends with an attack, and areas hit them, grid.md 4.4.4);
- approach: ``APPROACH_W`` per step to the nearest visible enemy (random games that never meet
  end at the round limit);
- SE and gold economy: ``SE_W`` per SE (grid.md 4.3.7 "only use actions if the player has
  enough SE"), ``GOLD_W`` per gold, ``HAND_W`` per hand card, ``TRAP_W`` per own trap.

``greedy`` estimates each action's change of that evaluation without playing it (the damage by
the grid arithmetic, positions by orthogonal distance, hires from the card table): cheap.
``lookahead`` (``lookahead.py``) plays greedy's best actions on the game itself, lets greedy
finish the player's turn, evaluates there, and puts the game back. Compiled (``@njit(cache=True)``), the arguments of ``rules.py``.
Their unit table, scores and saved game are the thread's working space's (``work.AgentWork``):
nothing allocated per decision, so they run without reference counting (``_nrt=False``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.systems.grid import kernel_cache
from battlesim.systems.grid.action_table import ATTACK, END_UNIT, HIDE, MOVE, PASS, SELECT, USE, block_start, decode
from battlesim.systems.grid.board import INF
from battlesim.systems.grid.damage import attack_base, hit_damage, stun_damage
from battlesim.systems.grid.rules import (
    concealed,
    eff_damage,
    eff_dtype,
    eff_mv,
    eff_range,
    eff_resist,
    legal_mask,
    move_costs_of,
)
from battlesim.systems.grid.state import (
    A_AMOUNT,
    A_AREA,
    A_BONUS,
    A_BONUS_DAMAGE,
    A_DAMAGE,
    A_DTYPE,
    A_MULT2,
    A_OP,
    A_SE,
    A_STUN,
    ACTIVE,
    ACTIVE_TURN,
    C_COST,
    C_DAMAGE,
    C_HP,
    C_KP,
    C_MV,
    C_TYPE,
    CELL,
    DRAW,
    G_DAMAGE,
    G_MV,
    G_RANGE,
    G_RES,
    GAME_OVER,
    GOLD,
    HAND_N,
    HIDDEN,
    HP,
    KP,
    KPTS,
    MAX_HP,
    MV_LEFT,
    OP_ATTACK,
    OP_CONCEAL,
    OP_EXTRA_MV,
    OP_GATHER,
    OP_HEAL,
    OP_JUMP,
    OP_SEARCH,
    OP_TELEPORT,
    OVER,
    SE,
    SIDE,
    T_HERO,
    T_ITEM,
    T_SPELL,
    T_TRAP,
    T_UNIT,
    TURN,
    TURN_STATE,
    WINNER,
    K,
)

# weights of the evaluation (module docstring)
KP_W = 8.0  # one kill point (10 win the game: spec §2 Victory)
UNIT_W = 4.0  # a unit on the board, apart from its stats
ATT_W = 0.8  # the best hit the active unit can reach
READY_W = 0.3  # the best hit an own unit whose turn is still to start can reach
SAFE_W = 0.15  # damage the enemies can bring onto an own visible unit
APPROACH_W = 0.3  # per orthogonal step to the nearest visible enemy
SE_W = 0.5
GOLD_W = 1.5
HAND_W = 0.5
TRAP_W = 3.0
HIDE_W = 1.0  # grid.md 4.4.4 "A rogue must be hidden to perform a back stab"
STUN_W = 3.0  # grid.md 4.4.4 j: a stunned unit loses its next turn
WIN = 1.0e6
EPS = 1.0e-3


# -- the evaluation ----------------------------------------------------------------------------------
# a unit table, int64[S, len(U_FIELDS)] (``AgentWork.units``), filled once per decision (or per
# evaluation): the values the rules read (card + item, ``rules.py``) so the scores below are
# lookups, not calls
U_FIELDS = ("alive", "side", "cell", "hp", "kp", "damage", "dtype", "res0", "res1", "res2", "mv", "range",
            "visible", "hidden", "reach", "max_hp")
(U_ALIVE, U_SIDE, U_CELL, U_HP, U_KP, U_DAMAGE, U_DTYPE, U_RES, _UR1, _UR2, U_MV, U_RANGE,
 U_VISIBLE, U_HIDDEN, U_REACH, U_MAX_HP) = range(len(U_FIELDS))


@njit(cache=True, _nrt=False)
def unit_table(w, cols, f, ct, b, ut):
    """Every unit's values for the scores, into ``ut`` (``AgentWork.units``), which it returns;
    ``reach`` = the MV it can still spend this player turn if it is the player-to-move's and its
    turn is not over (grid.md 4.1.2: one turn per unit), else -1."""
    turn = f.g[b, TURN]
    for s in range(w.alive.shape[1]):
        if not w.alive[b, s]:
            ut[s, U_ALIVE] = 0
            continue
        ut[s, U_ALIVE] = 1
        ut[s, U_SIDE] = w.i8[cols[SIDE], b, s]
        ut[s, U_CELL] = w.i16[cols[CELL], b, s]
        ut[s, U_HP] = w.i16[cols[HP], b, s]
        ut[s, U_MAX_HP] = w.i16[cols[MAX_HP], b, s]
        ut[s, U_KP] = w.i8[cols[KP], b, s]
        ut[s, U_DAMAGE] = eff_damage(w, cols, ct, b, s)
        ut[s, U_DTYPE] = eff_dtype(w, cols, ct, b, s)
        for d in range(3):
            ut[s, U_RES + d] = eff_resist(w, cols, ct, b, s, d)
        ut[s, U_MV] = eff_mv(w, cols, ct, b, s)
        ut[s, U_RANGE] = eff_range(w, cols, ct, b, s)
        ut[s, U_VISIBLE] = 0 if concealed(w, cols, b, s) else 1
        ut[s, U_HIDDEN] = 1 if w.flags[cols[HIDDEN], b, s] else 0
        st = w.i8[cols[TURN_STATE], b, s]
        if ut[s, U_SIDE] != turn or st == OVER:
            ut[s, U_REACH] = -1
        elif st == ACTIVE_TURN:
            ut[s, U_REACH] = w.i8[cols[MV_LEFT], b, s]
        else:
            ut[s, U_REACH] = ut[s, U_MV]
    return ut


@njit(cache=True, _nrt=False)
def kill_value(ut, t):
    """What a kill of unit t is worth beyond its HP (grid.md 4.4.4 "their kill points count towards
    the victory condition"): its kill points and the rest of its material."""
    return UNIT_W + KP_W * ut[t, U_KP]


@njit(cache=True, _nrt=False)
def hit_value(ut, t, dmg):
    """The value of ``dmg`` damage on unit t: the HP it takes, and the kill if it kills (4.4.4
    "killed by reducing its hit points to zero")."""
    hp = ut[t, U_HP]
    if dmg >= hp:
        return float(hp) + kill_value(ut, t)
    return float(dmg)


@njit(cache=True, _nrt=False)
def basic_damage(ut, s, t):
    """s's basic attack on t (grid.md 4.4.3: base - resistance of its type, at least 1)."""
    return hit_damage(ut[s, U_DAMAGE], 2, 0, ut[t, U_RES + ut[s, U_DTYPE]])


@njit(cache=True, _nrt=False)
def material(ut, s):
    """What unit s is worth standing on the board (its HP, damage, MV, range and resistances)."""
    res = ut[s, U_RES] + ut[s, U_RES + 1] + ut[s, U_RES + 2]
    return UNIT_W + float(ut[s, U_HP] + ut[s, U_DAMAGE]) + 0.3 * ut[s, U_MV] + 0.5 * ut[s, U_RANGE] + 1.5 * res


@njit(cache=True, _nrt=False)
def position(ut, bd, s, p, reach, weight):
    """Unit s's terms of the evaluation if it stood on p with ``reach`` MV left: threat (``weight``
    x the best hit it can reach, while it can still act: grid.md 4.4.4 "When determining the range of
    an attack, diagonal spaces are never counted"), safety (the damage the enemies could bring
    onto p next turn, each within its MV plus range) and approach (steps to the nearest visible
    enemy)."""
    side = ut[s, U_SIDE]
    near = INF
    total = 0
    best = 0.0
    r = ut[s, U_RANGE] + reach
    for e in range(ut.shape[0]):
        if ut[e, U_ALIVE] == 0 or ut[e, U_SIDE] == side:
            continue
        d = bd.manhattan[p, ut[e, U_CELL]]
        if ut[e, U_VISIBLE]:
            near = min(near, d)
            if weight > 0 and d <= r:
                v = hit_value(ut, e, basic_damage(ut, s, e))
                best = max(best, v)
        if d <= ut[e, U_MV] + ut[e, U_RANGE]:
            total += basic_damage(ut, e, s)
    v = -APPROACH_W * (0 if near == INF else near) + weight * best
    if total > 0:  # hidden units too: hiding ends with their attack, and areas hit them (4.4.4)
        v -= SAFE_W * hit_value(ut, s, total)
    return v


@njit(cache=True, _nrt=False)
def threat(ut, bd, s):
    """The best hit unit s can still reach this turn (``position``'s threat, unweighted)."""
    if ut[s, U_REACH] < 0:
        return 0.0
    side = ut[s, U_SIDE]
    r = ut[s, U_RANGE] + ut[s, U_REACH]
    best = 0.0
    for e in range(ut.shape[0]):
        if (ut[e, U_ALIVE] and ut[e, U_SIDE] != side and ut[e, U_VISIBLE]
                and bd.manhattan[ut[s, U_CELL], ut[e, U_CELL]] <= r):
            v = hit_value(ut, e, basic_damage(ut, s, e))
            best = max(best, v)
    return best


@njit(cache=True, _nrt=False)
def nearest(ut, bd, side, p):
    """Orthogonal steps from p to the nearest visible enemy of ``side`` (0 when there is none)."""
    best = INF
    for t in range(ut.shape[0]):
        if ut[t, U_ALIVE] and ut[t, U_SIDE] != side and ut[t, U_VISIBLE]:
            d = bd.manhattan[p, ut[t, U_CELL]]
            best = min(best, d)
    return 0 if best == INF else best


@njit(cache=True, _nrt=False)
def evaluate(w, cols, f, bd, ct, pr, b, ak, side, threats):
    """The game from ``side``'s view (module docstring): kill points, material, safety,
    approach, SE, gold, hand and traps, and with ``threats`` the threat of its units that can
    still act (``ATT_W`` for the active one, ``READY_W`` for those still to start: a kill by one
    does not cost much of the threat the others had on the dead unit); a won game is ``WIN``."""
    if f.g[b, GAME_OVER]:
        if f.g[b, DRAW]:
            return 0.0
        return WIN if f.g[b, WINNER] == side else -WIN
    v = KP_W * (f.g[b, KPTS + side] - f.g[b, KPTS + 1 - side])
    v += SE_W * f.g[b, SE + side] + GOLD_W * f.g[b, GOLD + side] + HAND_W * f.g[b, HAND_N + side]
    for c in range(f.trap.shape[1]):
        if f.trap[b, c, 0] >= 0 and f.trap[b, c, 1] == side:
            v += TRAP_W
    ut = unit_table(w, cols, f, ct, b, ak.units)
    for s in range(ut.shape[0]):
        if not ut[s, U_ALIVE]:
            continue
        m = material(ut, s)
        if ut[s, U_SIDE] != side:
            v -= m
            continue
        v += m + HIDE_W * ut[s, U_HIDDEN]
        reach = ut[s, U_REACH]
        weight = 0.0
        if threats and reach >= 0:
            weight = ATT_W if s == f.g[b, ACTIVE] else READY_W
        v += position(ut, bd, s, ut[s, U_CELL], max(reach, 0), weight)
    return v


# -- greedy: each action's change of the evaluation, estimated -------------------------------------
@njit(cache=True, _nrt=False)
def ability_hit(ut, bd, s, row, c):
    """The value of an attack ability (or attack spell) of s aimed at c: grid.md 4.4.3 (ability
    damage replaces the base, multiplier, bonus, resistance of its type) over every enemy in its
    area (4.4.4 "Hidden or invisible units are affected by area of effect (AoE) damage"); a
    stun deals the base damage and costs the target its next turn."""
    base = attack_base(ut[s, U_DAMAGE], np.int64(row[A_DAMAGE]))
    dtype = np.int64(row[A_DTYPE]) if row[A_DTYPE] >= 0 else ut[s, U_DTYPE]
    total = 0.0
    for t in range(ut.shape[0]):
        if not ut[t, U_ALIVE] or ut[t, U_SIDE] == ut[s, U_SIDE]:
            continue
        d = bd.manhattan[c, ut[t, U_CELL]]
        if (row[A_AREA] >= 0 and d <= row[A_AREA]) or (row[A_AREA] < 0 and d == 0):
            res = ut[t, U_RES + dtype]
            if row[A_STUN] > 0:
                total += hit_value(ut, t, stun_damage(ut[s, U_DAMAGE], res)) + STUN_W
            else:
                total += hit_value(ut, t, hit_damage(base, np.int64(row[A_MULT2]), np.int64(row[A_BONUS_DAMAGE]), res))
    return total


@njit(cache=True, _nrt=False)
def ability_gain(ut, bd, s, row, c, who, lost):
    """Greedy's estimate for unit s using ``row`` at c (its own ability or a spell's effect):
    what it does, minus its SE (grid.md 4.3.6), minus the threat a main action gives up (4.3.4:
    it ends the unit's turn)."""
    op = row[A_OP]
    v = -SE_W * row[A_SE] if row[A_SE] > 0 else 0.0
    bonus = row[A_BONUS] > 0
    if not bonus:
        v -= lost
    start = ut[s, U_CELL]
    reach = max(ut[s, U_REACH], 0)
    if op == OP_ATTACK:
        v += ability_hit(ut, bd, s, row, c)
    elif op == OP_EXTRA_MV:  # grid.md 4.2.3: "use actions, items or spell cards to increase movement"
        wt = ATT_W if bonus else 0.0
        v += position(ut, bd, s, start, reach + row[A_AMOUNT], wt) - position(ut, bd, s, start, reach, wt)
    elif op == OP_JUMP or op == OP_TELEPORT:  # grid.md 4.2.11, 4.2.12
        wt = ATT_W if bonus else 0.0
        v += position(ut, bd, s, c, reach, wt) - position(ut, bd, s, start, reach, wt)
    elif op == OP_HEAL:
        t = who[c]
        v += min(row[A_AMOUNT], ut[t, U_MAX_HP] - ut[t, U_HP])
    elif op == OP_GATHER:  # grid.md 4.1.1: the gatherer at the mana pool
        v += SE_W * row[A_AMOUNT]
    elif op == OP_SEARCH:  # grid.md 4.3.12: a card from the deck to the hand
        v += HAND_W
    elif op == OP_CONCEAL:
        if not ut[who[c], U_HIDDEN]:
            v += HIDE_W
    else:
        v -= 0.1  # push, rush: no estimate (lookahead plays them)
    return v


@njit(cache=True, _nrt=False)
def hire_gain(ct, card, c, near):
    """Greedy's estimate for hiring ``card`` onto c (grid.md 4.1.4 "gold available to hire"): the
    unit's material minus its gold, nearer the enemy better (``near``: ``nearest`` of each cell)."""
    cd = ct.card[card]
    v = UNIT_W + cd[C_HP] + cd[C_DAMAGE] + 0.3 * cd[C_MV] + 2.0 * cd[C_KP] - GOLD_W * cd[C_COST] - HAND_W
    return v - APPROACH_W * near[c]


@njit(cache=True, _nrt=False)
def item_gain(ct, card):
    """Greedy's estimate for an item (spec §3 Items: ``grants`` while held) minus its gold."""
    cd = ct.card[card]
    g = cd[G_DAMAGE] + 0.3 * cd[G_MV] + 0.5 * cd[G_RANGE] + 1.5 * (cd[G_RES] + cd[G_RES + 1] + cd[G_RES + 2])
    return g + 1.0 - GOLD_W * cd[C_COST] - HAND_W


@njit(cache=True, _nrt=False)
def greedy_scores(w, cols, f, bd, ct, pr, b, ak, mask, scores):
    """``scores[a]`` for every legal action a: greedy's estimate of its change of the evaluation.
    The active unit's move costs are the legal mask's (``rules.move_costs_of``); the rest of the
    scratch is the agents' working space ``ak`` (``work.AgentWork``)."""
    cells = bd.wall.shape[0]
    side = f.g[b, TURN]
    a = f.g[b, ACTIVE]
    ut = unit_table(w, cols, f, ct, b, ak.units)
    who = f.who[b]
    lost = 0.0  # the threat the active unit gives up when its turn ends
    mv_left = 0
    here = 0.0
    cost = ak.k.cost  # the active unit's move costs when a move is legal (only then read)
    near, have_near = ak.near, False  # each cell's ``nearest``, found when a hire is scored
    if a >= 0 and w.i8[cols[TURN_STATE], b, a] == ACTIVE_TURN:
        start = ut[a, U_CELL]
        mv_left = ut[a, U_REACH]
        lost = ATT_W * threat(ut, bd, a)
        here = position(ut, bd, a, start, mv_left, ATT_W)
        moves = block_start(MOVE, cells, K)
        if mv_left > 0 and mask[moves:moves + cells].any():
            cost = move_costs_of(w, cols, f, bd, ct, b, ak.k, a)  # the legal mask's
    for i in range(mask.shape[0]):
        if not mask[i]:
            continue
        kind, j, c = decode(i, cells, K, f.hand.shape[2])
        v = 0.0
        if kind == PASS:
            v = -lost
            for s in range(ut.shape[0]):
                if ut[s, U_ALIVE] and s != a:
                    v -= READY_W * threat(ut, bd, s)
        elif kind == END_UNIT:
            v = -lost
        elif kind == SELECT:
            v = -lost + EPS + (ATT_W - READY_W) * threat(ut, bd, who[c])
        elif kind == MOVE:
            v = position(ut, bd, a, c, mv_left - cost[c], ATT_W) - here
        elif kind == ATTACK:
            v = hit_value(ut, who[c], basic_damage(ut, a, who[c])) - lost
        elif kind == USE:
            v = ability_gain(ut, bd, a, f.abil[b, a, j], c, who, lost)
        elif kind == HIDE:
            v = HIDE_W - lost
        else:
            card = f.hand[b, side, j]
            typ = ct.card[card, C_TYPE]
            if typ == T_UNIT or typ == T_HERO:
                if not have_near:
                    for x in range(cells):
                        near[x] = nearest(ut, bd, side, x)
                    have_near = True
                v = hire_gain(ct, card, c, near)
            elif typ == T_ITEM:
                v = item_gain(ct, card)
            elif typ == T_TRAP:
                v = TRAP_W - GOLD_W * ct.card[card, C_COST] - HAND_W
            elif typ == T_SPELL:
                v = ability_gain(ut, bd, a, ct.abil[card, 0], c, who, lost) - SE_W * ct.card[card, C_COST] - HAND_W
        scores[i] = v


@njit(cache=True, _nrt=False)
def best_of(mask, scores):
    """The legal action with the highest score; the first one on a tie; -1 if none is legal."""
    best = -1
    top = -np.inf
    for i in range(mask.shape[0]):
        if mask[i] and scores[i] > top:
            top = scores[i]
            best = i
    return best


@njit(cache=True, _nrt=False)
def greedy_action(w, cols, f, bd, ct, pr, b, ak, mask):
    """The greedy agent: the legal action (spec §4) with the best estimated gain."""
    legal_mask(w, cols, f, bd, ct, pr, b, ak.k, mask)
    greedy_scores(w, cols, f, bd, ct, pr, b, ak, mask, ak.scores)
    return best_of(mask, ak.scores)


kernel_cache.check("agents", kernel_cache.kernels_of(globals(), __name__))

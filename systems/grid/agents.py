"""The compiled grid agents that think: ``greedy`` and ``lookahead`` (``--agents greedy,random``).

Both score the legal actions of spec §4 and take the best (the first on a tie: no randomness, so
a game still depends only on its seed, decks and agents). They share one evaluation of a game
from a player's side (``evaluate``), built from what the rules make valuable:

- kills: grid.md 4.4.4 "their kill points count towards the victory condition" -> ``KP_W`` per
  kill point, plus the material a unit is (HP, damage, MV, resistances: ``material``);
- threat: an own unit that may still act this turn is worth ``ATT_W`` of the best hit it can
  reach (its MV left plus its range, orthogonal steps: grid.md 4.4.4 "diagonal spaces are never
  counted"), so moving into range is good and ending a turn that could have attacked is not;
- safety: an own visible unit loses ``SAFE_W`` of the damage the enemies could bring onto its
  cell next turn (grid.md 4.4.1 "cannot target a hidden or invisible unit": concealed ones none);
- approach: ``APPROACH_W`` per step to the nearest visible enemy (random games that never meet
  end at the round limit);
- SE and gold economy: ``SE_W`` per SE (grid.md 4.3.7 "only use actions if the player has
  enough SE"), ``GOLD_W`` per gold, ``HAND_W`` per hand card, ``TRAP_W`` per own trap.

``greedy`` estimates each action's change of that evaluation without playing it (the damage by
the grid arithmetic, positions by orthogonal distance, hires from the card table): cheap.
``lookahead`` plays each legal action on the game itself, evaluates, and puts the game back
(``save``/``restore`` of the game's own rows, RNG included): one ply, exact for damage, parry,
areas, traps and kills. Compiled (``@njit(cache=True)``), the arguments of ``rules.py``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.systems.grid import kernel_cache
from battlesim.systems.grid.action_table import ATTACK, END_UNIT, HIDE, MOVE, PASS, PLAY, SELECT, USE, decode
from battlesim.systems.grid.apply import apply_action
from battlesim.systems.grid.board import INF, move_costs_within
from battlesim.systems.grid.damage import attack_base, hit_damage, stun_damage
from battlesim.systems.grid.rules import (
    concealed,
    eff_damage,
    eff_dtype,
    eff_mv,
    eff_range,
    eff_resist,
    flies,
    legal_mask,
    occupancy,
    passes_walls,
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
    A_RANGE,
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
ATT_W = 0.8  # the best hit an own unit with its turn left can reach
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
@njit(cache=True)
def kill_value(w, cols, b, t):
    """What a kill of unit t is worth beyond its HP (grid.md 4.4.4 "their kill points count towards
    the victory condition"): its kill points and the rest of its material."""
    return UNIT_W + KP_W * w.i8[cols[KP], b, t]


@njit(cache=True)
def hit_value(w, cols, b, t, dmg):
    """The value of ``dmg`` damage on enemy t: the HP it takes, and the kill if it kills (4.4.4
    "killed by reducing its hit points to zero")."""
    hp = np.int64(w.i16[cols[HP], b, t])
    if dmg >= hp:
        return float(hp) + kill_value(w, cols, b, t)
    return float(dmg)


@njit(cache=True)
def basic_damage(w, cols, ct, b, s, t):
    """s's basic attack on t (grid.md 4.4.3: base - resistance of its type, at least 1)."""
    return hit_damage(eff_damage(w, cols, ct, b, s), 2, 0, eff_resist(w, cols, ct, b, t, eff_dtype(w, cols, ct, b, s)))


@njit(cache=True)
def material(w, cols, ct, b, s):
    """What unit s is worth standing on the board (its HP, damage, MV, range and resistances)."""
    res = eff_resist(w, cols, ct, b, s, 0) + eff_resist(w, cols, ct, b, s, 1) + eff_resist(w, cols, ct, b, s, 2)
    return (UNIT_W + float(w.i16[cols[HP], b, s]) + float(eff_damage(w, cols, ct, b, s))
            + 0.3 * eff_mv(w, cols, ct, b, s) + 0.5 * eff_range(w, cols, ct, b, s) + 1.5 * res)


@njit(cache=True)
def opportunity(w, cols, ct, bd, b, s, p, reach):
    """Threat: the best basic hit unit s could make from cell p with ``reach`` MV left (grid.md
    4.4.4: "When determining the range of an attack, diagonal spaces are never counted")."""
    side = w.i8[cols[SIDE], b, s]
    r = eff_range(w, cols, ct, b, s) + reach
    best = 0.0
    for t in range(w.alive.shape[1]):
        if (w.alive[b, t] and w.i8[cols[SIDE], b, t] != side and not concealed(w, cols, b, t)
                and bd.manhattan[p, w.i16[cols[CELL], b, t]] <= r):
            v = hit_value(w, cols, b, t, basic_damage(w, cols, ct, b, s, t))
            if v > best:
                best = v
    return best


@njit(cache=True)
def danger(w, cols, ct, bd, b, s, p):
    """Safety: the damage the enemies of unit s could bring onto cell p in their next turn (each
    within its MV plus range), as a loss (the kill's value too when it is lethal)."""
    side = w.i8[cols[SIDE], b, s]
    total = 0
    for e in range(w.alive.shape[1]):
        if (w.alive[b, e] and w.i8[cols[SIDE], b, e] != side
                and bd.manhattan[p, w.i16[cols[CELL], b, e]] <= eff_mv(w, cols, ct, b, e) + eff_range(w, cols, ct, b, e)):
            total += basic_damage(w, cols, ct, b, e, s)
    return hit_value(w, cols, b, s, total) if total > 0 else 0.0


@njit(cache=True)
def nearest(w, cols, bd, b, side, p):
    """Orthogonal steps from p to the nearest visible enemy of ``side`` (0 when there is none)."""
    best = INF
    for t in range(w.alive.shape[1]):
        if w.alive[b, t] and w.i8[cols[SIDE], b, t] != side and not concealed(w, cols, b, t):
            d = bd.manhattan[p, w.i16[cols[CELL], b, t]]
            if d < best:
                best = d
    return 0 if best == INF else best


@njit(cache=True)
def position(w, cols, ct, bd, b, s, p, reach, acting):
    """Unit s's terms of the evaluation if it stood on p with ``reach`` MV left: threat (only
    while it can still act), safety and approach."""
    v = -APPROACH_W * nearest(w, cols, bd, b, w.i8[cols[SIDE], b, s], p)
    if not concealed(w, cols, b, s):
        v -= SAFE_W * danger(w, cols, ct, bd, b, s, p)
    if acting:
        v += ATT_W * opportunity(w, cols, ct, bd, b, s, p, reach)
    return v


@njit(cache=True)
def reach_of(w, cols, ct, b, s):
    """The MV unit s can still spend this player turn (0: its turn is over)."""
    st = w.i8[cols[TURN_STATE], b, s]
    if st == OVER:
        return -1
    if st == ACTIVE_TURN:
        return np.int64(w.i8[cols[MV_LEFT], b, s])
    return eff_mv(w, cols, ct, b, s)


@njit(cache=True)
def evaluate(w, cols, f, bd, ct, pr, b, side):
    """The game from ``side``'s view (module docstring): kill points, material, threat, safety,
    approach, SE, gold, hand and traps; a won game is ``WIN``."""
    if f.g[b, GAME_OVER]:
        if f.g[b, DRAW]:
            return 0.0
        return WIN if f.g[b, WINNER] == side else -WIN
    v = KP_W * (f.g[b, KPTS + side] - f.g[b, KPTS + 1 - side])
    v += SE_W * f.g[b, SE + side] + GOLD_W * f.g[b, GOLD + side] + HAND_W * f.g[b, HAND_N + side]
    for c in range(f.trap.shape[1]):
        if f.trap[b, c, 0] >= 0 and f.trap[b, c, 1] == side:
            v += TRAP_W
    own_turn = f.g[b, TURN] == side
    for s in range(w.alive.shape[1]):
        if not w.alive[b, s]:
            continue
        m = material(w, cols, ct, b, s)
        if w.i8[cols[SIDE], b, s] != side:
            v -= m
            continue
        v += m + (HIDE_W if w.flags[cols[HIDDEN], b, s] else 0.0)
        reach = reach_of(w, cols, ct, b, s) if own_turn else -1
        v += position(w, cols, ct, bd, b, s, w.i16[cols[CELL], b, s], max(reach, 0), reach >= 0)
    return v


# -- greedy: each action's change of the evaluation, estimated -------------------------------------
@njit(cache=True)
def ability_hit(w, cols, ct, bd, b, s, row, c, side):
    """The value of an attack ability (or attack spell) of s aimed at c: grid.md 4.4.3 (ability
    damage replaces the base, multiplier, bonus, resistance of its type) over every enemy in its
    area (4.4.4 "Hidden or invisible units are affected by area of effect (AoE) damage"); a
    stun deals the base damage and costs the target its next turn."""
    base = attack_base(eff_damage(w, cols, ct, b, s), np.int64(row[A_DAMAGE]))
    dtype = np.int64(row[A_DTYPE]) if row[A_DTYPE] >= 0 else eff_dtype(w, cols, ct, b, s)
    total = 0.0
    for t in range(w.alive.shape[1]):
        if not w.alive[b, t] or w.i8[cols[SIDE], b, t] == side:
            continue
        d = bd.manhattan[c, w.i16[cols[CELL], b, t]]
        if (row[A_AREA] >= 0 and d <= row[A_AREA]) or (row[A_AREA] < 0 and d == 0):
            res = eff_resist(w, cols, ct, b, t, dtype)
            if row[A_STUN] > 0:
                total += hit_value(w, cols, b, t, stun_damage(eff_damage(w, cols, ct, b, s), res)) + STUN_W
            else:
                total += hit_value(w, cols, b, t, hit_damage(base, np.int64(row[A_MULT2]),
                                                             np.int64(row[A_BONUS_DAMAGE]), res))
    return total


@njit(cache=True)
def ability_gain(w, cols, ct, bd, b, s, row, c, side, lost):
    """Greedy's estimate for unit s using ``row`` at c (its own ability or a spell's effect):
    what it does, minus its SE (grid.md 4.3.6), minus the threat a main action gives up (4.3.4:
    it ends the unit's turn)."""
    op = row[A_OP]
    v = -SE_W * row[A_SE] if row[A_SE] > 0 else 0.0
    if row[A_BONUS] <= 0:
        v -= lost
    start = w.i16[cols[CELL], b, s]
    mv_left = np.int64(w.i8[cols[MV_LEFT], b, s])
    if op == OP_ATTACK:
        v += ability_hit(w, cols, ct, bd, b, s, row, c, side)
    elif op == OP_EXTRA_MV:
        acting = row[A_BONUS] > 0
        v += (position(w, cols, ct, bd, b, s, start, mv_left + row[A_AMOUNT], acting)
              - position(w, cols, ct, bd, b, s, start, mv_left, acting))
    elif op == OP_JUMP or op == OP_TELEPORT:
        acting = row[A_BONUS] > 0
        v += (position(w, cols, ct, bd, b, s, c, mv_left, acting)
              - position(w, cols, ct, bd, b, s, start, mv_left, acting))
    elif op == OP_HEAL:
        _, who = occupancy(w, cols, b, bd.wall.shape[0])
        t = who[c]
        v += min(row[A_AMOUNT], w.i16[cols[MAX_HP], b, t] - w.i16[cols[HP], b, t])
    elif op == OP_GATHER:
        v += SE_W * row[A_AMOUNT]
    elif op == OP_SEARCH:
        v += HAND_W
    elif op == OP_CONCEAL:
        _, who = occupancy(w, cols, b, bd.wall.shape[0])
        if not w.flags[cols[HIDDEN], b, who[c]]:
            v += HIDE_W
    else:
        v -= 0.1  # push, rush: no estimate (lookahead plays them)
    return v


@njit(cache=True)
def hire_gain(w, cols, ct, bd, b, card, c, side):
    """Greedy's estimate for hiring ``card`` onto c (grid.md 4.1.4 "gold available to hire"): the
    unit's material minus its gold, nearer the enemy better."""
    cd = ct.card[card]
    v = UNIT_W + cd[C_HP] + cd[C_DAMAGE] + 0.3 * cd[C_MV] + 2.0 * cd[C_KP] - GOLD_W * cd[C_COST] - HAND_W
    return v - APPROACH_W * nearest(w, cols, bd, b, side, c)


@njit(cache=True)
def item_gain(ct, card):
    """Greedy's estimate for an item (spec §3 Items: ``grants`` while held) minus its gold."""
    cd = ct.card[card]
    g = cd[G_DAMAGE] + 0.3 * cd[G_MV] + 0.5 * cd[G_RANGE] + 1.5 * (cd[G_RES] + cd[G_RES + 1] + cd[G_RES + 2])
    return g + 1.0 - GOLD_W * cd[C_COST] - HAND_W


@njit(cache=True)
def greedy_scores(w, cols, f, bd, ct, pr, b, mask, scores):
    """``scores[a]`` for every legal action a: greedy's estimate of its change of the evaluation."""
    cells = bd.wall.shape[0]
    side = f.g[b, TURN]
    a = f.g[b, ACTIVE]
    occ, who = occupancy(w, cols, b, cells)
    lost = 0.0  # the threat the active unit gives up when its turn ends
    start = -1
    mv_left = 0
    cost = np.empty(0, dtype=np.int16)
    if a >= 0 and w.i8[cols[TURN_STATE], b, a] == ACTIVE_TURN:
        start = w.i16[cols[CELL], b, a]
        mv_left = np.int64(w.i8[cols[MV_LEFT], b, a])
        lost = ATT_W * opportunity(w, cols, ct, bd, b, a, start, mv_left)
        here = position(w, cols, ct, bd, b, a, start, mv_left, True)
        if mv_left > 0:
            cost = move_costs_within(bd.neighbours, bd.wall, bd.web, occ, start, side, passes_walls(w, cols, ct, b, a),
                                     flies(w, cols, ct, b, a), mv_left)
    for i in range(mask.shape[0]):
        if not mask[i]:
            continue
        kind, k, c = decode(i, cells, K, f.hand.shape[2])
        v = 0.0
        if kind == PASS:
            v = -lost
            for s in range(w.alive.shape[1]):
                if w.alive[b, s] and w.i8[cols[SIDE], b, s] == side and w.i8[cols[TURN_STATE], b, s] != OVER and s != a:
                    v -= ATT_W * opportunity(w, cols, ct, bd, b, s, w.i16[cols[CELL], b, s], eff_mv(w, cols, ct, b, s))
        elif kind == END_UNIT:
            v = -lost
        elif kind == SELECT:
            t = who[c]
            v = -lost + EPS * (1.0 + opportunity(w, cols, ct, bd, b, t, c, eff_mv(w, cols, ct, b, t)))
        elif kind == MOVE:
            v = position(w, cols, ct, bd, b, a, c, mv_left - cost[c], True) - here
        elif kind == ATTACK:
            v = hit_value(w, cols, b, who[c], basic_damage(w, cols, ct, b, a, who[c])) - lost
        elif kind == USE:
            v = ability_gain(w, cols, ct, bd, b, a, f.abil[b, a, k], c, side, lost)
        elif kind == HIDE:
            v = HIDE_W - lost
        else:
            card = f.hand[b, side, k]
            typ = ct.card[card, C_TYPE]
            if typ == T_UNIT or typ == T_HERO:
                v = hire_gain(w, cols, ct, bd, b, card, c, side)
            elif typ == T_ITEM:
                v = item_gain(ct, card)
            elif typ == T_TRAP:
                v = TRAP_W - GOLD_W * ct.card[card, C_COST] - HAND_W
            elif typ == T_SPELL:
                v = ability_gain(w, cols, ct, bd, b, a, ct.abil[card, 0], c, side, lost) - SE_W * ct.card[card, C_COST]
                v -= HAND_W
        scores[i] = v


@njit(cache=True)
def best_of(mask, scores):
    """The legal action with the highest score; the first one on a tie; -1 if none is legal."""
    best = -1
    top = -np.inf
    for i in range(mask.shape[0]):
        if mask[i] and scores[i] > top:
            top = scores[i]
            best = i
    return best


@njit(cache=True)
def greedy_action(w, cols, f, bd, ct, pr, b, mask):
    """The greedy agent: the legal action (spec §4) with the best estimated gain."""
    legal_mask(w, cols, f, bd, ct, pr, b, mask)
    scores = np.zeros(mask.shape[0])
    greedy_scores(w, cols, f, bd, ct, pr, b, mask, scores)
    return best_of(mask, scores)


# -- lookahead: each action played on the game and put back -------------------------------------------
@njit(cache=True)
def save(w, f, b):
    """Every row of game b an action may change (units, game fields, piles, abilities, traps,
    RNG, card log): a game touches only its own rows (play.py ``play_batch``)."""
    return (w.i16[:, b, :].copy(), w.i8[:, b, :].copy(), w.flags[:, b, :].copy(), w.alive[b].copy(),
            f.g[b].copy(), f.hand[b].copy(), f.deck[b].copy(), f.cem[b].copy(), f.abil[b].copy(), f.trap[b].copy(),
            f.rng[b].copy(), f.log[b].copy(), f.slot_row[b].copy())


@njit(cache=True)
def restore(w, f, b, sv):
    """Game b as ``save`` found it."""
    w.i16[:, b, :] = sv[0]
    w.i8[:, b, :] = sv[1]
    w.flags[:, b, :] = sv[2]
    w.alive[b] = sv[3]
    f.g[b] = sv[4]
    f.hand[b] = sv[5]
    f.deck[b] = sv[6]
    f.cem[b] = sv[7]
    f.abil[b] = sv[8]
    f.trap[b] = sv[9]
    f.rng[b] = sv[10]
    f.log[b] = sv[11]
    f.slot_row[b] = sv[12]


@njit(cache=True)
def lookahead_action(w, cols, f, bd, ct, pr, b, mask):
    """The lookahead agent: every legal action but PASS played on the game, the evaluation after
    it minus before, the game put back; PASS is scored as greedy scores it (the threat its own
    units give up), since after it the evaluation would be the other player's turn's."""
    legal_mask(w, cols, f, bd, ct, pr, b, mask)
    side = f.g[b, TURN]
    scores = np.zeros(mask.shape[0])
    only = np.zeros(mask.shape[0], dtype=np.bool_)
    only[PASS] = mask[PASS]
    greedy_scores(w, cols, f, bd, ct, pr, b, only, scores)
    before = evaluate(w, cols, f, bd, ct, pr, b, side)
    sv = save(w, f, b)
    for i in range(1, mask.shape[0]):
        if not mask[i]:
            continue
        apply_action(w, cols, f, bd, ct, pr, b, i)
        scores[i] = evaluate(w, cols, f, bd, ct, pr, b, side) - before
        restore(w, f, b, sv)
    return best_of(mask, scores)


kernel_cache.check("agents", kernel_cache.kernels_of(globals(), __name__))

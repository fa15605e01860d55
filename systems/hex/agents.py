"""The greedy hex agent, compiled: every legal entry of the battle table scored by what it does
now (damage and kills by damage type, centre control, threat, tempo), the best one taken, ties
broken by the game's RNG. No search: it reads the state, it never plays an action ahead.

Why these terms: the game is won by the centre alone (hex.md "the first player wins if they
control the center hex"; otherwise the second player wins), so standing on (4, 3), removing the
unit that stands there and closing in on it dominate; damage and kills decide who still has units
to contest it; a melee attack into a retaliation that kills the attacker loses tempo.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.ecs.compiled.rng import advance, bits_at, to_unit
from battlesim.systems.hex import kernel_cache
from battlesim.systems.hex.battle import (
    ABILITY_0,
    ATTACK,
    CHARGE,
    MOVE,
    SKIP,
    U,
    V,
    ability_reach,
    acting_slot,
    has,
    number,
    prop,
)
from battlesim.systems.hex.board import BY_DISTANCE, CENTRE_ID, DIST, MAX_DISTANCE, N_HEXES, WITHIN
from battlesim.systems.hex.hexset import EMPTY, lowest, without_lowest
from battlesim.systems.hex.kernel_cache import kernel
from battlesim.systems.hex.legal import WIDTH
from battlesim.systems.hex.select import select_units
from battlesim.systems.hex.state import (
    A_CHANNEL,
    A_EFFECTS,
    A_NEFFECTS,
    A_SPELL_POWER,
    ARMOR,
    ARMOR_ADD,
    BACKSTAB,
    CONTROLLER,
    E_AMOUNT,
    E_OP,
    E_SELECT,
    E_TYPE,
    ETHEREAL,
    HEALTH,
    HERO,
    IMBUED,
    MAGIC_RESIST,
    MAGIC_RESIST_ADD,
    MAX_HEALTH,
    NEF,
    NULL,
    OP_DAMAGE,
    OP_DESTROY,
    OP_HEAL,
    OP_RELOCATE,
    OP_SACRIFICE,
    OP_SHIELD,
    OP_SUMMON,
    OP_SWITCH,
    PIERCING,
    POS,
    ROUND,
    S_MOVEMENT,
    S_POWER,
    S_RANGE,
    SHIELD_C,
)


@kernel
def damage_estimate(w, cols, f, b, s, o, amount, magical, combat):
    """What ``amount`` from unit s does to unit o after Shield, Ethereal, Armor (less Piercing)
    or Magic Resist (hex.md "Armor X – ... reduces incoming physical damage by X", "Magic Resist
    X", "Shield"): the damage stages' arithmetic, read, not applied."""
    w_i16 = w.i16
    if amount <= 0:
        return 0
    if magical:
        red = number(w, cols, b, o, MAGIC_RESIST) + w_i16[cols[MAGIC_RESIST_ADD], b, o]
    else:
        if has(w, cols, f, b, o, ETHEREAL):
            return 0
        red = number(w, cols, b, o, ARMOR) + w_i16[cols[ARMOR_ADD], b, o]
        if combat and s >= 0:
            red -= number(w, cols, b, s, PIERCING)
    amount = amount - max(np.int64(w_i16[cols[SHIELD_C], b, o]), 0)
    return max(amount - max(red, 0), 0)


@kernel
def unit_value(w, cols, b, o):
    """How much removing unit o is worth: a hero most (its abilities and items die with it)."""
    w_flags = w.flags
    return 6.0 if w_flags[cols[HERO], b, o] else 3.0


@kernel
def threat_map(w, cols, f, b, seat, out):
    """``out[h]``: the power of the enemies that could attack a unit on hex h next turn (in
    reach: movement + 1 for melee, movement + range for ranged), read once per decision."""
    w_i16 = w.i16
    w_alive = w.alive
    out[:] = 0.0
    for o in range(w_alive.shape[1]):
        if not w_alive[b, o] or w_i16[cols[CONTROLLER], b, o] == seat:
            continue
        p = prop(w, cols, f, b, o, S_POWER)
        if p == NULL or p <= 0:
            continue
        mv = max(prop(w, cols, f, b, o, S_MOVEMENT), 0)
        rng = prop(w, cols, f, b, o, S_RANGE)
        reach_ = mv + (1 if rng == NULL else rng)
        here = w_i16[cols[POS], b, o]
        for i in range(WITHIN[here, min(reach_, MAX_DISTANCE)]):  # the hexes in reach only, not all 59
            out[BY_DISTANCE[here, i]] += p


@kernel
def strike_score(w, cols, f, b, s, o, amount, magical, combat, melee):
    """Damage and a kill on unit o (and whether it stands on the centre), less the retaliation a
    melee attacker takes when o survives (hex.md "the defender retaliates")."""
    w_i16 = w.i16
    f_g = f.g
    dmg = damage_estimate(w, cols, f, b, s, o, amount, magical, combat)
    hp = w_i16[cols[HEALTH], b, o]
    kill = dmg >= hp
    rnd = f_g[b, ROUND]
    score = 1.5 * min(dmg, hp)
    if kill:
        score += 4.0 * unit_value(w, cols, b, o)
    if w_i16[cols[POS], b, o] == CENTRE_ID:
        score += (8.0 + rnd) if kill else 1.0 * dmg
    if melee and not kill and not has(w, cols, f, b, s, BACKSTAB):
        p = prop(w, cols, f, b, o, S_POWER)
        if p != NULL:
            back = damage_estimate(w, cols, f, b, o, s, p, has(w, cols, f, b, o, IMBUED), True)
            if back >= w_i16[cols[HEALTH], b, s]:
                score -= 4.0 * unit_value(w, cols, b, s)
            else:
                score -= 0.8 * back
    return score


@njit(cache=True, inline='always')
def move_score(here, h, centre, threat):
    """A move from hex ``here`` to h: onto the centre most (less the threat there), off it least,
    else the hexes it closes in on the centre, less the threat (``centre``: the centre's worth)."""
    if here == CENTRE_ID:
        return -centre
    if h == CENTRE_ID:
        return centre - 0.2 * threat[h]
    closer = DIST[here, CENTRE_ID] - DIST[h, CENTRE_ID]
    return 0.8 * closer - 0.15 * threat[h]


@kernel
def ability_score(w, cols, f, b, seat, s, k, h, occ, threat, hit):
    """Unit s's ability k cast on hex h: what each effect does to the units it selects (damage
    and kills, heal, shield, removal, relocation, a summon), a channelled amount halved;
    ``hit``: scratch for an effect's units."""
    w_i16 = w.i16
    f_abil = f.abil
    score = 0.2
    reach_ = ability_reach(w, cols, f, b, s, k)
    sp = np.int64(f_abil[b, s, k, A_SPELL_POWER])
    for e in range(f_abil[b, s, k, A_NEFFECTS]):
        base = A_EFFECTS + e * NEF
        op = f_abil[b, s, k, base + E_OP]
        amount = np.int64(f_abil[b, s, k, base + E_AMOUNT])
        if f_abil[b, s, k, A_CHANNEL] > 0:
            amount = amount // 2  # a channelled effect comes later, if at all
        if op == OP_SUMMON:
            score += 2.0 - 0.1 * threat[h]  # a unit more on the board (I-45: it enters exhausted)
            continue
        n = select_units(w, cols, b, s, h, f_abil[b, s, k, base + E_SELECT], reach_, occ, hit)
        for i in range(n):
            o = hit[i]
            enemy = w_i16[cols[CONTROLLER], b, o] != seat
            if op == OP_DAMAGE:
                st = 0.5 + strike_score(w, cols, f, b, s, o, amount + sp, f_abil[b, s, k, base + E_TYPE] == 1,
                                        False, False)
                score += st if enemy else -st  # selectors may hit allies too (a triad)
                sp = 0
            elif op == OP_HEAL and not enemy:
                score += 0.7 * min(amount + sp, w_i16[cols[MAX_HEALTH], b, o] - w_i16[cols[HEALTH], b, o])
                sp = 0
            elif op == OP_SHIELD and not enemy:
                score += 0.5 * amount
            elif op == OP_SACRIFICE or op == OP_DESTROY:
                score += (4.0 if enemy else -4.0) * unit_value(w, cols, b, o)
            elif op == OP_RELOCATE or op == OP_SWITCH:
                closer = DIST[w_i16[cols[POS], b, o], CENTRE_ID] - DIST[h, CENTRE_ID]
                score += 0.8 * closer if op == OP_RELOCATE else 0.3
            elif enemy:
                score += 1.0
            else:
                score += 0.3
    return score


@kernel
def best_entries(w, cols, f, k, rng, b, seat, units, stream, out):
    """Into ``out`` (best first, -1 pads): the ``out.size`` best-scoring legal entries of the
    battle table (``k.rows`` as ``legal.legal_rows`` left it for ``seat``; ``units``: the acting
    units' bits), each entry's score plus 0.01 of a uniform draw of its own (the table's width of
    draws per decision: no two entries share one), an equal score keeping the earlier entry
    (the table's order). The one scoring loop of both agents: greedy takes the best, the
    lookahead plays the best few ahead.

    The scores, by verb: a skip holds the centre (tempo); a move ``move_score`` (and a kill's
    worth onto the enemy its trample kills, I-23); an attack or a charge the strike
    (``strike_score``) less the centre it leaves; an ability ``ability_score``.
    Why by unit and verb, off the hex sets: what an entry's score reads of the acting unit (its
    slot, hex, range, power) is read once per unit, and only the legal entries are visited, in
    the table's order; a kernel is called only for a strike or an ability."""
    w_i16 = w.i16
    f_g = f.g
    rows = k.rows
    k_occ = f.board[b]
    k_threat = k.threat
    k_hit = k.hit
    k_scores = k.scores
    threat_map(w, cols, f, b, seat, k_threat)
    n = out.shape[0]
    k_scores[:n] = -1e18
    out[:] = -1
    rnd = f_g[b, ROUND]
    centre = 6.0 + 2.0 * rnd  # control of (4, 3) matters more as round 7 nears
    for u in range(U):
        if not units >> u & 1:
            continue
        s = acting_slot(w, cols, b, seat, u)
        here = w_i16[cols[POS], b, s]
        melee = False
        power = np.int64(0)
        imbued = False
        if (rows[u, ATTACK] | rows[u, CHARGE]) != EMPTY:
            melee = prop(w, cols, f, b, s, S_RANGE) == NULL
            power = prop(w, cols, f, b, s, S_POWER)
            imbued = has(w, cols, f, b, s, IMBUED)
        for v in range(V):
            x = rows[u, v]
            while x != EMPTY:
                h = lowest(x)
                x = without_lowest(x)
                if v == SKIP:
                    sc = 1.0 if here == CENTRE_ID else -0.5  # tempo: holding the centre is worth a skip
                elif v == MOVE:
                    sc = move_score(here, h, centre, k_threat)
                    if k_occ[h] >= 0:  # an enemy's hex: the table lists it only if the trample kills it (I-23)
                        sc += 4.0 * unit_value(w, cols, b, k_occ[h])
                elif v == ATTACK or v == CHARGE:
                    sc = 0.5 + strike_score(w, cols, f, b, s, k_occ[h], power, imbued, True, melee)
                    if here == CENTRE_ID and (v == CHARGE or melee):
                        sc -= 0.5 * centre  # a charge or a kill-and-occupy leaves the centre
                else:
                    sc = ability_score(w, cols, f, b, seat, s, v - ABILITY_0, h, k_occ, k_threat, k_hit)
                a = (u * V + v) * N_HEXES + h
                sc += 0.01 * to_unit(bits_at(rng, b, a, stream))
                if sc <= k_scores[n - 1]:
                    continue
                i = n - 1
                while i > 0 and k_scores[i - 1] < sc:
                    k_scores[i] = k_scores[i - 1]
                    out[i] = out[i - 1]
                    i -= 1
                k_scores[i] = sc
                out[i] = a
    advance(rng, b, WIDTH)


@kernel
def greedy_action(w, cols, f, k, rng, b, seat, units, stream):
    """Spec §6 decision of the greedy agent: the best entry of ``best_entries`` (-1 if none)."""
    k_pick = k.pick
    best_entries(w, cols, f, k, rng, b, seat, units, stream, k_pick)
    return k_pick[0]


kernel_cache.check("agents", [v for v in list(globals().values()) if hasattr(v, "py_func") and v.__module__ == __name__])

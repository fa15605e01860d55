"""The lanes opcodes that deal damage, compiled: twins of ``damage``, ``battle``, ``strike``,
``battle_blocker``, ``battle_adjacent`` and ``caster_strike`` of ``systems/lanes/opcodes.py``, and
of ``battle.exchange`` (lanes.md "Battle Mechanics (Outside Combat Phase)": "Uses current attack
values"; "Respects First Strike - unit with First Strike deals damage first"; "Respects Armor
and Shield"; "Triggers on-damage effects").

An opcode pushes its damage rows onto the queue and returns; the resolution machine
(``ecs/compiled/machine.py``) resolves them, with every effect they trigger, before anything
else. An exchange has two steps, the second read after the first resolved (who is still
standing, the current attack), so its opcode returns ``STEP2`` after the first step and is
called again with it. What an exchange remembers between its steps lives in the hits' spare
fields (``H_X``): per hit up to four attack instances (attacker, target, first strike), in the
numpy instance list's order (all hits' first kind of instance, then all hits' second...).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.ecs.compiled.damage_queue import push
from battlesim.ecs.compiled.interpreter import H_AMOUNT, H_CASTER, H_EFFECT, H_SOURCE, H_TARGET, OK
from battlesim.ecs.damage import ATTACK, BATTLE, SPELL
from battlesim.systems.lanes.compiled.combat_layout import (
    C_ANCHOR,
    C_HEALTH,
    C_IMPROVEMENT,
    C_LANE,
    C_OWNER,
    C_POS,
    READS,
)
from battlesim.systems.lanes.compiled.opcodes import is_unit
from battlesim.systems.lanes.compiled.unit_stats import N_STATS, attack_of, first_strikes
from battlesim.ecs.plugin import extend

lanes = extend("lanes")  # its compiled parts are declared as a plugin declares them

H_X = H_EFFECT + 2  # per hit: instances k = 0..3 at H_X + 3k: attacker (-1 none), target, first strike
STEP2 = 1  # the token an exchange returns after its first step
BATTLE_READS = READS[:N_STATS]  # what attack_of and first_strikes read, at combat's positions


@njit
def dealer(hits, i):
    """The entity an effect's damage comes from: the source, or a spell's caster."""
    return hits[i, H_SOURCE] if hits[i, H_SOURCE] >= 0 else hits[i, H_CASTER]


@njit
def blocker_of(w, g, b, t, cols):
    """The unit directly opposite unit t (-1: none)."""
    return np.int64(g.board[b, 1 - w.i8[cols[C_OWNER], b, t], w.i8[cols[C_LANE], b, t], w.i8[cols[C_POS], b, t]])


@njit
def clear(hits, nh):
    for i in range(nh):
        for k in range(4):
            hits[i, H_X + 3 * k] = -1


@njit
def instance(hits, i, k, attacker, target):
    hits[i, H_X + 3 * k] = attacker
    hits[i, H_X + 3 * k + 1] = target


@njit
def exchange(w, b, hits, nh, cols, queue, qlen, at):
    """``battle.exchange`` over the instances in the hits: First Strike read for every instance
    first; the first step (instances whose attacker strikes first), then, once it resolved, the
    rest, minus attackers it left at 0 health or less; each dealing its attacker's attack then."""
    if at == 0:
        for k in range(4):
            for i in range(nh):
                a = hits[i, H_X + 3 * k]
                if a >= 0:
                    hits[i, H_X + 3 * k + 2] = first_strikes(w, cols, b, a, hits[i, H_X + 3 * k + 1])
        n = 0
        for k in range(4):
            for i in range(nh):
                a = hits[i, H_X + 3 * k]
                if a >= 0 and hits[i, H_X + 3 * k + 2]:
                    push(queue, qlen, b, a, hits[i, H_X + 3 * k + 1], attack_of(w, cols, b, a), BATTLE | ATTACK)
                    n += 1
        if n > 0:
            return STEP2
    for k in range(4):
        for i in range(nh):
            a = hits[i, H_X + 3 * k]
            if a >= 0 and not hits[i, H_X + 3 * k + 2] and w.i16[cols[C_HEALTH], b, a] > 0:
                push(queue, qlen, b, a, hits[i, H_X + 3 * k + 1], attack_of(w, cols, b, a), BATTLE | ATTACK)
    return OK


@lanes.compiled_opcode("damage", ("improvement",))
def damage(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """Units and anchors take damage; improvements do not (they are destroyed, not damaged): one
    batch of every hit on a living target with an amount, from the source or a spell's caster."""
    for i in range(nh):
        t, amount = hits[i, H_TARGET], hits[i, H_AMOUNT]
        if t >= 0 and amount > 0 and w.alive[b, t] and not w.flags[cols[0], b, t]:
            push(queue, qlen, b, dealer(hits, i), t, amount, SPELL)
    return OK


@lanes.compiled_opcode("battle", BATTLE_READS)
def battle(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """"battle - Battle a targeted enemy": the source (a spell's caster) and the target deal
    their attack to each other, first strike respected; no "On Attack"."""
    if at == 0:
        clear(hits, nh)
        for i in range(nh):
            a, t = dealer(hits, i), hits[i, H_TARGET]
            if is_unit(w, b, t, cols[C_ANCHOR], cols[C_IMPROVEMENT]) and a >= 0 and w.alive[b, a]:
                instance(hits, i, 0, a, t)
                instance(hits, i, 1, t, a)
    return exchange(w, b, hits, nh, cols, queue, qlen, at)


@lanes.compiled_opcode("strike", BATTLE_READS)
def strike(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """"Strike - One unit deals its attack damage to another (one-way damage)": the selected unit
    strikes the enemy opposite it (ledger)."""
    if at == 0:
        clear(hits, nh)
        for i in range(nh):
            t = hits[i, H_TARGET]
            if is_unit(w, b, t, cols[C_ANCHOR], cols[C_IMPROVEMENT]):
                blk = blocker_of(w, g, b, t, cols)
                if blk >= 0:
                    instance(hits, i, 0, t, blk)
    return exchange(w, b, hits, nh, cols, queue, qlen, at)


@lanes.compiled_opcode("battle_blocker", BATTLE_READS)
def battle_blocker(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """"battle_blocker - Battle the unit directly opposite this unit"."""
    if at == 0:
        clear(hits, nh)
        for i in range(nh):
            t = hits[i, H_TARGET]
            if is_unit(w, b, t, cols[C_ANCHOR], cols[C_IMPROVEMENT]):
                blk = blocker_of(w, g, b, t, cols)
                if blk >= 0:
                    instance(hits, i, 0, t, blk)
                    instance(hits, i, 1, blk, t)
    return exchange(w, b, hits, nh, cols, queue, qlen, at)


@lanes.compiled_opcode("battle_adjacent", BATTLE_READS + ("param.positions",))
def battle_adjacent(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """"battle_adjacent - Battle all adjacent enemies": the enemies at the positions next to the
    unit's position, all in one simultaneous exchange (numpy's order: the unit against its left
    enemies, against its right ones, then the left ones against it, the right ones against it)."""
    if at == 0:
        clear(hits, nh)
        P = w.params[cols[N_STATS]]
        for i in range(nh):
            t = hits[i, H_TARGET]
            if not is_unit(w, b, t, cols[C_ANCHOR], cols[C_IMPROVEMENT]):
                continue
            side, lane = w.i8[cols[C_OWNER], b, t], w.i8[cols[C_LANE], b, t]
            pos = np.int64(w.i8[cols[C_POS], b, t])
            for d in range(2):
                p = pos - 1 if d == 0 else pos + 1
                if 0 <= p < P:
                    e = np.int64(g.board[b, 1 - side, lane, p])
                    if e >= 0:
                        instance(hits, i, d, t, e)
                        instance(hits, i, 2 + d, e, t)
    return exchange(w, b, hits, nh, cols, queue, qlen, at)


@lanes.compiled_opcode("caster_strike", BATTLE_READS)
def caster_strike(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """"caster_strike - The caster deals damage to the target (one-way)": its current attack."""
    if at == 0:
        clear(hits, nh)
        for i in range(nh):
            t, c = hits[i, H_TARGET], hits[i, H_CASTER]
            if is_unit(w, b, t, cols[C_ANCHOR], cols[C_IMPROVEMENT]) and c >= 0 and w.alive[b, c]:
                instance(hits, i, 0, c, t)
    return exchange(w, b, hits, nh, cols, queue, qlen, at)

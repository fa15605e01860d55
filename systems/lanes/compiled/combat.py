"""The combat phase, compiled over one game: the twin of ``systems/lanes/combat.py`` (and of the
exchange of ``battle.py``), building each attack step's damage queue in the numpy batch's
per-game order and running the compiled damage dispatcher on it.

lanes.md "Phase 3: Combat Phase", "Combat Resolution": "Combat proceeds lane by lane"; "Odd
rounds (1, 3, 5...): Lane 0 -> Lane 1 -> Lane 2", "Even rounds (2, 4, 6...): Lane 2 -> Lane 1 ->
Lane 0". "Units only attack the opposing unit at the same position"; "If no opposing unit
exists, the unit attacks the anchor directly", except that "Unopposed enemy units attack the
leftmost Taunt unit instead of the anchor" unless they have Stealth ("bypasses taunt"). "Within
a lane, all fights at each position are simultaneous"; "First Strike - Deals damage before
opponent in combat". "Destroyed units are only removed after the entire lane resolves".
"Stealth ... (lost when attacking)". "Siege X - Deals X additional damage when attacking the
anchor directly". "Cleave X - Deals X damage to all enemy units in the lane when attacking"
(ledger: a separate instance per enemy, not an attack). Stunned and disarmed units do not attack; one with 0 attack attacks for 0
(ledger, interpretations 21 and 35).

The trigger boundary (docs/compiled-core.md "Combat and deaths, compiled"): "Before Combat",
"On Attack", "On Equipped Attack", "On Ally Attack" and "After Combat" are pushed as events
and drained (``# DRAIN``) exactly where numpy fires them; each step's damage goes through
``resolve_damage`` ("On Damage Taken" fires inside it). Both are the resolution machine's
(``ecs/compiled/machine.py``): ``combat`` is a registered phase, compiled into the lanes engine
module with those names bound to the engine's own; call it as ``build("lanes").module.combat``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from battlesim.ecs.compiled.damage_queue import OK, push
from battlesim.ecs.compiled.emit import emit, emitting
from battlesim.ecs.compiled.events import push_event
from battlesim.ecs.compiled.machine import Resolution, drain, resolve_damage
from battlesim.ecs.compiled.world_view import WorldState
from battlesim.ecs.damage import ATTACK, COMBAT
from battlesim.systems.lanes.compiled import event_codes as ev
from battlesim.systems.lanes.compiled.combat_layout import (
    C_ANCHOR,
    C_AURAS_POSSIBLE,
    C_CARD_ID,
    C_CLEAVE,
    C_DISARMED,
    C_EQUIPMENT,
    C_HEALTH,
    C_KW_CLEAVE,
    C_KW_SIEGE,
    C_KW_STEALTH,
    C_KW_TAUNT,
    C_LANE,
    C_LANES,
    C_LISTENS,
    C_OWNER,
    C_POS,
    C_RUINED,
    C_SIEGE,
    C_STEALTH,
    C_STUNNED,
    C_TAUNT,
    C_TRIGGER,
    C_USES,
    T_AFTER_COMBAT,
    T_BEFORE_COMBAT,
    T_ON_ALLY_ATTACK,
    T_ON_ATTACK,
    T_ON_EQUIPPED_ATTACK,
    CombatFields,
)
from battlesim.systems.lanes.compiled.deaths import settle
from battlesim.systems.lanes.compiled.damage_stages import aura_sources
from battlesim.systems.lanes.compiled.unit_stats import attack_with, count, first_strikes, has_tag
from battlesim.ecs.plugin import extend

lanes = extend("lanes")  # its compiled parts are declared as a plugin declares them

MAX_ATTACKS = 16  # attacks of one lane of one game (2 sides x positions; <= machine.WORK_ROWS)
W_ATTACKS = 0  # its work table (machine.Resolution.work)
SRC, TGT, SIEGE, OWN, LN, PS = range(6)  # the fields of an attack row (OWN, LN, PS: read with the list)
NA = 6


@njit(cache=False)
def event(st: WorldState, cols: np.ndarray, b: int, t: int, card: int, s: int, other: int, owner: int, lane: int,
          pos: int) -> None:
    """Push trigger ``t`` (index in ``combat_layout.TRIGGERS``) for game b: the row numpy's ``Ctx`` has."""
    push_event(st.events, st.nevents, b, st.params[cols[C_TRIGGER + t]], card, s, st.serial[b, s], other, owner,
               lane, pos)


@njit(cache=False)
def leftmost_taunt(st: WorldState, f: CombatFields, cols: np.ndarray, b: int, side: int, lane: int) -> int:
    """Side's leftmost Taunt unit in the lane, or -1 (two scalars, not an array: nothing
    allocated in hot code)."""
    for p in range(f.board.shape[3]):
        s = np.int64(f.board[b, side, lane, p])
        if s >= 0 and has_tag(st, cols, C_TAUNT, C_KW_TAUNT, b, s):
            return s
    return -1


@njit(cache=False)
def lane_attacks(st: WorldState, f: CombatFields, cols: np.ndarray, b: int, lane: int, out: np.ndarray) -> int:
    """``combat.lane_attacks`` for game b: rows (attacker, target, siege bonus) into ``out``,
    side 0's attackers first, then side 1's, each by position; returns how many. The attack
    itself is read when each step is built (``resolve_lane``)."""
    P = f.board.shape[3]
    taunt = (leftmost_taunt(st, f, cols, b, 0, lane), leftmost_taunt(st, f, cols, b, 1, lane))
    n = 0
    for side in range(2):
        foe = 1 - side
        for p in range(P):
            s = np.int64(f.board[b, side, lane, p])
            if s < 0 or st.i16[cols[C_STUNNED], b, s] > 0 or st.i16[cols[C_DISARMED], b, s] > 0:
                continue
            opp = np.int64(f.board[b, foe, lane, p])
            siege = 0
            if opp >= 0:
                target = opp
            elif taunt[foe] >= 0 and not has_tag(st, cols, C_STEALTH, C_KW_STEALTH, b, s):
                target = taunt[foe]
            else:
                target = foe * 3 + lane  # board.anchor_slot
                if st.flags[cols[C_RUINED], b, target]:  # nothing left to attack there
                    continue
                siege = count(st, cols, C_SIEGE, C_KW_SIEGE, b, s)
            out[n, SRC], out[n, TGT], out[n, SIEGE] = s, target, siege
            out[n, OWN], out[n, LN], out[n, PS] = side, st.i8[cols[C_LANE], b, s], st.i8[cols[C_POS], b, s]
            n += 1
    return n


def attack_triggers(st: WorldState, f: CombatFields, cols: np.ndarray, b: int, lane: int, atk: np.ndarray,
                    n: int, g: Any, rng: np.ndarray, m: Resolution) -> int:
    """``combat.attack_triggers``: "On Attack" per attacker, then "On Equipped Attack" per held
    item, then "On Ally Attack" per (attacker, listening ally of its side in the lane, by
    position), each fired where numpy fires it. The attackers' owner, lane and position in the
    rows are those read before the first firing (numpy's); the items, the lane's units and the
    allies' cards and positions are read after the firings before them."""
    status = OK
    if st.params[cols[C_USES + T_ON_ATTACK]] != 0:
        for i in range(n):
            s = atk[i, SRC]
            card = st.i16[cols[C_CARD_ID], b, s]
            if st.cat[cols[C_LISTENS + T_ON_ATTACK], card] != 0:
                event(st, cols, b, T_ON_ATTACK, card, s, -1, atk[i, OWN], atk[i, LN], atk[i, PS])
        status = drain(st, g, rng, b, m)  # DRAIN: "On Attack"; the equipment is read after its effects
        if status != OK:
            return status
    if st.params[cols[C_USES + T_ON_EQUIPPED_ATTACK]] != 0:
        for i in range(n):
            s = atk[i, SRC]
            item = st.i16[cols[C_EQUIPMENT], b, s]
            if item >= 0 and st.cat[cols[C_LISTENS + T_ON_EQUIPPED_ATTACK], item] != 0:
                event(st, cols, b, T_ON_EQUIPPED_ATTACK, item, s, -1, atk[i, OWN], atk[i, LN], atk[i, PS])
        status = drain(st, g, rng, b, m)  # DRAIN: "On Equipped Attack"; the lane's units are read after
        if status != OK:
            return status
    if st.params[cols[C_USES + T_ON_ALLY_ATTACK]] != 0:
        for i in range(n):
            a = atk[i, SRC]
            side = atk[i, OWN]
            for p in range(f.board.shape[3]):
                s = np.int64(f.board[b, side, lane, p])
                if s < 0 or s == a:
                    continue
                card = st.i16[cols[C_CARD_ID], b, s]
                if st.cat[cols[C_LISTENS + T_ON_ALLY_ATTACK], card] != 0:
                    event(st, cols, b, T_ON_ALLY_ATTACK, card, s, a, side, atk[i, LN], st.i8[cols[C_POS], b, s])
        status = drain(st, g, rng, b, m)  # DRAIN: "On Ally Attack", before first strikes and attacks are read
    return status


def resolve_lane(st: WorldState, f: CombatFields, cols: np.ndarray, b: int, lane: int, g: Any, rng: np.ndarray,
                 m: Resolution) -> int:
    """``Combat.resolve_lane`` for game b: its attacks, their triggers, the first-strike step
    then the rest (attackers a first strike destroyed deal nothing), each step one queue (the
    attacks in order, then each attacker's cleave rows by enemy position) resolved with the
    effects it sets off; stealth lost by every attacker; settle; "After Combat" for the lane's
    units, and settle again if one listened."""
    if not f.active[b]:
        return OK
    atk = m.work[W_ATTACKS]  # rows of MAX_ATTACKS x NA (machine.WORK_ROWS x WORK_COLS)
    n = lane_attacks(st, f, cols, b, lane, atk)
    status = attack_triggers(st, f, cols, b, lane, atk, n, g, rng, m)
    if status != OK:
        return status
    first = np.int64(0)  # bit i: attack i strikes first (MAX_ATTACKS <= 64)
    for i in range(n):
        if first_strikes(st, cols, b, atk[i, SRC], atk[i, TGT]):
            first |= np.int64(1) << i
    queue, qlen = m.queue, m.qlen
    for step in range(2):
        qlen[b] = 0
        # the board stands still while a step's attacks are read: its aura sources found once
        # (``aura_sources``), not by a walk over every slot per attacker (``attack_of``)
        sources = aura_sources(st, b, cols) if st.params[cols[C_AURAS_POSSIBLE]] != 0 else 0
        for i in range(n):
            a = atk[i, SRC]
            if ((first >> i) & 1 == 1) != (step == 0) or (step == 1 and st.i16[cols[C_HEALTH], b, a] <= 0):
                continue
            # the current attack, read now: numpy reads it once per lane and again before a step
            # only in games where a trigger fired or damage was dealt (``touched``); elsewhere
            # nothing can have moved it, so reading it now always gives numpy's value
            push(queue, qlen, b, a, atk[i, TGT], attack_with(st, cols, b, a, sources) + atk[i, SIEGE], COMBAT | ATTACK)
        for i in range(n):  # cleave_batch, read with the attacks, before the pipeline
            a = atk[i, SRC]
            if ((first >> i) & 1 == 1) != (step == 0) or (step == 1 and st.i16[cols[C_HEALTH], b, a] <= 0):
                continue
            x = count(st, cols, C_CLEAVE, C_KW_CLEAVE, b, a)
            if x <= 0:
                continue
            enemy = 1 - st.i8[cols[C_OWNER], b, a]
            for p in range(f.board.shape[3]):
                t = f.board[b, enemy, lane, p]
                if t >= 0:
                    push(queue, qlen, b, a, t, x, COMBAT)
        if qlen[b] > 0:
            status = resolve_damage(st, g, rng, b, m, 0)  # "On Damage Taken" drains inside, at its stage
            if status != OK:
                return status
            if emitting(m):
                emit(ev.COMBAT, b, lane, qlen[b], 0, 0, 0)
    for i in range(n):  # "Stealth ... (lost when attacking)"
        st.flags[cols[C_STEALTH], b, atk[i, SRC]] = False
    status = settle(st, f, cols, b, g, rng, m)
    if status != OK or st.params[cols[C_USES + T_AFTER_COMBAT]] == 0:
        return status
    pushed = False
    for side in range(2):
        for p in range(f.board.shape[3]):
            s = np.int64(f.board[b, side, lane, p])
            if s >= 0:
                card = st.i16[cols[C_CARD_ID], b, s]
                if st.cat[cols[C_LISTENS + T_AFTER_COMBAT], card] != 0:
                    event(st, cols, b, T_AFTER_COMBAT, card, s, -1, side, lane, p)
                    pushed = True
    if not pushed:  # nothing fired: nothing can be dying since the lane's settle
        return OK
    status = drain(st, g, rng, b, m)  # DRAIN: "After Combat", before the settle
    if status != OK:
        return status
    return settle(st, f, cols, b, g, rng, m)


@lanes.compiled_system()
def combat(st: WorldState, f: CombatFields, cols: np.ndarray, b: int, g: Any, rng: np.ndarray, m: Resolution) -> int:
    """``Combat.process`` for game b: "Before Combat" (every live entity but anchors, by slot;
    settle when some card of the set listens), then every lane in the round's order. Returns OK
    or the first failure of the machine or of settle (the caller stops the game naming its seed)."""
    if not f.active[b]:
        return OK
    if st.params[cols[C_USES + T_BEFORE_COMBAT]] != 0:
        for s in range(st.alive.shape[1]):
            if st.alive[b, s] and not st.flags[cols[C_ANCHOR], b, s]:
                card = st.i16[cols[C_CARD_ID], b, s]
                if st.cat[cols[C_LISTENS + T_BEFORE_COMBAT], card] != 0:
                    event(st, cols, b, T_BEFORE_COMBAT, card, s, -1, st.i8[cols[C_OWNER], b, s],
                          st.i8[cols[C_LANE], b, s], st.i8[cols[C_POS], b, s])
        status = drain(st, g, rng, b, m)  # DRAIN: "Before Combat", before the settle
        if status != OK:
            return status
        status = settle(st, f, cols, b, g, rng, m)
        if status != OK:
            return status
    L = st.params[cols[C_LANES]]
    odd = f.round[b] % 2 == 1
    for j in range(L):
        status = resolve_lane(st, f, cols, b, j if odd else L - 1 - j, g, rng, m)
        if status != OK:
            return status
    return OK

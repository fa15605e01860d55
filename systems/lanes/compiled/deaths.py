"""Removing destroyed units, compiled over one game: the twin of ``systems/lanes/deaths.py``.

lanes.md "Unit Removal": "Destroyed units are only removed after the entire lane resolves"
(combat settles after each lane); "Gold System": "Kill enemy hero: +5 gold", "Kill enemy
unit/creep: +1 gold"; "Bounty System": "Minimum bounty is 0 gold". "Hero Death & Respawn": "The
hero enters a 1-round death timer"; "Rapid Deployment - Hero returns to play immediately when
killed (no death timer)". "Equipment is destroyed when its holder dies" (it is a component of
the holder: released with it).

The trigger boundary (docs/compiled-core.md): "On Death" and "On Enemy Death" are pushed as
events (``ecs/compiled/events.py``) and drained (``# DRAIN``, the resolution machine's ``drain``)
where numpy fires them, before the wave is removed (a wave's "On Death" rows, then its "On Enemy
Death" rows, each one firing); effects may mark more units dying: ``settle`` looks again, as
numpy does, up to ``MAX_WAVES``. ``settle`` is a registered phase (``build("lanes").module.settle``).

Not kept: the World's bookkeeping counters (``World.changes``, ``version``), which the numpy
aura cache reads to see a new aura source; compiled code that hands a World back to numpy
systems must bump them (or the numpy engine must be gone, issue 13 "One engine").
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from battlesim.ecs.compiled.damage_queue import OK
from battlesim.ecs.compiled.emit import emit, emitting
from battlesim.ecs.compiled.events import push_event
from battlesim.ecs.compiled.machine import Resolution, drain
from battlesim.ecs.compiled.world_view import WorldState
from battlesim.systems.lanes.compiled import event_codes as ev
from battlesim.systems.lanes.compiled.board import allocate
from battlesim.systems.lanes.compiled.combat_layout import (
    C_ATTACK,
    C_AURA,
    C_AURA_CARD,
    C_BOUNTY,
    C_BOUNTY_HERO,
    C_BOUNTY_UNIT,
    C_CARD_ATTACK,
    C_CARD_CHARGES,
    C_CARD_FACTION,
    C_CARD_HEALTH,
    C_CARD_ID,
    C_CHARGES,
    C_DECK_POS,
    C_DYING,
    C_EQUIPMENT,
    C_FACTION,
    C_HEALTH,
    C_HERO,
    C_HERO_DEATH_TIMER,
    C_HERO_INDEX,
    C_HIT_BY,
    C_KW_RAPID,
    C_LANE,
    C_LISTENS,
    C_MAX_HEALTH,
    C_OWNER,
    C_POS,
    C_RAPID,
    C_TRIGGER,
    C_USES,
    T_ON_DEATH,
    T_ON_ENEMY_DEATH,
    CombatFields,
)
from battlesim.systems.lanes.deaths import MAX_WAVES
from battlesim.systems.lanes.state import DEAD, ON_BOARD, READY
from battlesim.ecs.plugin import extend

lanes = extend("lanes")  # its compiled parts are declared as a plugin declares them

CASCADE, SLOTS_FULL = -5, -6  # settle's errors beside the machine's (the caller names the seed)
MAX_WAVE = 64  # deaths in one wave of one game (a game has fewer slots than that; <= machine.WORK_ROWS)
W_WAVE, W_WAVE_READS = 1, 2  # settle's work tables (machine.Resolution.work): the wave, what destroy reads


@njit(cache=False)
def release(st: WorldState, f: CombatFields, b: int, s: int) -> None:
    """``World.release`` for one slot: free it, every component back to its default."""
    st.alive[b, s] = False
    for k in range(st.i16.shape[0]):
        st.i16[k, b, s] = f.release_i16[k]
    for k in range(st.i8.shape[0]):
        st.i8[k, b, s] = f.release_i8[k]
    for k in range(st.flags.shape[0]):
        st.flags[k, b, s] = f.release_flags[k] != 0
    for k in range(st.i16x2.shape[0]):
        st.i16x2[k, b, s, 0] = f.release_i16x2[k]
        st.i16x2[k, b, s, 1] = f.release_i16x2[k]


@njit(cache=False)
def spawn_hero(st: WorldState, f: CombatFields, cols: np.ndarray, b: int, seat: int, lane: int, pos: int,
               card: int, k: int) -> bool:
    """``board.spawn`` of one hero from its card (stats, keywords, aura tag, hero index, charges)
    at an empty cell; False when the game has no free slot (the caller stops it naming its seed)."""
    s = allocate(st, f, b)
    if s < 0:
        return False
    st.i16[cols[C_CARD_ID], b, s] = card
    st.i8[cols[C_OWNER], b, s] = seat
    st.i8[cols[C_FACTION], b, s] = st.cat[cols[C_CARD_FACTION], card]
    st.i16[cols[C_ATTACK], b, s] = st.cat[cols[C_CARD_ATTACK], card]
    st.i16[cols[C_HEALTH], b, s] = st.cat[cols[C_CARD_HEALTH], card]
    st.i16[cols[C_MAX_HEALTH], b, s] = st.cat[cols[C_CARD_HEALTH], card]
    for r in range(f.spawn_rows.shape[0]):
        group, row, value = f.spawn_rows[r, 0], f.spawn_rows[r, 1], st.cat[f.spawn_rows[r, 2], card]
        if group == 0:
            st.i16[row, b, s] = value
        elif group == 1:
            st.i8[row, b, s] = value
        else:
            st.flags[row, b, s] = value != 0
    if st.cat[cols[C_AURA_CARD], card] != 0:
        st.flags[cols[C_AURA], b, s] = True
    st.flags[cols[C_HERO], b, s] = True
    st.i8[cols[C_HERO_INDEX], b, s] = k
    st.i16[cols[C_CHARGES], b, s] = st.cat[cols[C_CARD_CHARGES], card]
    st.i8[cols[C_LANE], b, s] = lane
    st.i8[cols[C_POS], b, s] = pos
    for r in range(f.present_rows.shape[0]):
        st.flags[f.present_rows[r], b, s] = True
    f.board[b, seat, lane, pos] = s
    return True


@njit(cache=False)
def redeploy_now(st: WorldState, f: CombatFields, cols: np.ndarray, b: int, seat: int, k: int, lane: int) -> bool:
    """Rapid Deployment (``deaths.redeploy_now``): back with full health, in its own lane at the
    leftmost empty position, else the first lane with room (ledger); no room anywhere: it waits
    READY for the next deployment phase."""
    f.hero_status[b, seat, k] = READY
    L, P = f.board.shape[2], f.board.shape[3]
    for j in range(L + 1):
        ln = lane if j == 0 else j - 1
        for p in range(P):
            if f.board[b, seat, ln, p] == -1:
                if not spawn_hero(st, f, cols, b, seat, ln, p, f.hero_card[b, seat, k], k):
                    return False
                f.hero_status[b, seat, k] = ON_BOARD
                return True
    return True


@lanes.compiled_system()
def settle(st: WorldState, f: CombatFields, cols: np.ndarray, b: int, g: Any, rng: np.ndarray, m: Resolution) -> int:
    """``deaths.settle`` for game b: wave after wave (dying units in slot order), "On Death"
    (the dying still stand where they died) and "On Enemy Death" (every living, not dying enemy
    that listens, once per death) fired, then the wave removed: the bounty to the killer's
    opponent when the enemy killed it (``hit_by``, read when the wave is found, as numpy's
    ``settle`` reads it), ``card_died``, the hero's death timer or Rapid Deployment, the cell
    freed. Returns OK, the machine's failure, CASCADE (more than MAX_WAVES waves) or SLOTS_FULL
    (a redeployed hero found no slot)."""
    S = st.alive.shape[1]
    wave = m.work[W_WAVE]  # slot, owner, pays a bounty (read when found)
    for _ in range(MAX_WAVES):
        n = 0
        for s in range(S):
            if st.flags[cols[C_DYING], b, s] and st.alive[b, s]:
                owner = np.int64(st.i8[cols[C_OWNER], b, s])
                wave[n, 0], wave[n, 1], wave[n, 2] = s, owner, st.i8[cols[C_HIT_BY], b, s] != owner
                n += 1
        if n == 0:
            return OK
        if st.params[cols[C_USES + T_ON_DEATH]] != 0:
            for j in range(n):
                s = wave[j, 0]
                card = st.i16[cols[C_CARD_ID], b, s]
                if st.cat[cols[C_LISTENS + T_ON_DEATH], card] != 0:
                    push_event(st.events, st.nevents, b, st.params[cols[C_TRIGGER + T_ON_DEATH]], card, s,
                               st.serial[b, s], -1, wave[j, 1], st.i8[cols[C_LANE], b, s], st.i8[cols[C_POS], b, s])
            status = drain(st, g, rng, b, m)  # DRAIN: "On Death"; the "On Enemy Death" listeners are found after
            if status != OK:
                return status
        if st.params[cols[C_USES + T_ON_ENEMY_DEATH]] != 0:
            for j in range(n):
                d = wave[j, 0]
                for s in range(S):
                    if not st.alive[b, s]:  # most slots: empty
                        continue
                    card = st.i16[cols[C_CARD_ID], b, s]
                    if (st.cat[cols[C_LISTENS + T_ON_ENEMY_DEATH], card] != 0
                            and not st.flags[cols[C_DYING], b, s] and st.i8[cols[C_OWNER], b, s] != wave[j, 1]):
                        push_event(st.events, st.nevents, b, st.params[cols[C_TRIGGER + T_ON_ENEMY_DEATH]], card, s,
                                   st.serial[b, s], d, st.i8[cols[C_OWNER], b, s], st.i8[cols[C_LANE], b, s],
                                   st.i8[cols[C_POS], b, s])
            status = drain(st, g, rng, b, m)  # DRAIN: "On Enemy Death", before the wave is removed
            if status != OK:
                return status
        if not destroy_wave(st, f, cols, b, wave, n, m.work[W_WAVE_READS], emitting(m)):
            return SLOTS_FULL
    return CASCADE


@njit(cache=False)
def destroy_wave(st: WorldState, f: CombatFields, cols: np.ndarray, b: int, wave: np.ndarray, n: int,
                 info: np.ndarray, told: bool) -> bool:
    """``deaths.destroy`` of one wave (rows: slot, owner when found, pays a bounty): every read
    first (bounty, deck position, hero, Rapid
    Deployment, lane), then the removals, then the heroes' timers, then the redeployments in
    (seat, hero) order, as numpy's vectorised ``destroy`` and its ``lexsort``."""
    # info (a work table): per death, owner, is hero, hero index, rapid, lane
    for j in range(n):
        s = wave[j, 0]
        owner = np.int64(st.i8[cols[C_OWNER], b, s])
        hero = st.flags[cols[C_HERO], b, s]
        if wave[j, 2]:
            base = st.params[cols[C_BOUNTY_HERO]] if hero else st.params[cols[C_BOUNTY_UNIT]]
            f.gold[b, 1 - owner] += max(base + st.i16[cols[C_BOUNTY], b, s], 0)
        src = st.i16[cols[C_DECK_POS], b, s]
        if src >= 0:
            f.card_died[b, owner, src] = f.round[b]
        item = st.i16[cols[C_EQUIPMENT], b, s]
        info[j, 0] = owner
        info[j, 1] = hero
        info[j, 2] = st.i8[cols[C_HERO_INDEX], b, s]
        info[j, 3] = st.flags[cols[C_RAPID], b, s] or st.cat[cols[C_KW_RAPID], item] != 0
        info[j, 4] = st.i8[cols[C_LANE], b, s]
    if told:  # "lanes.deaths" (``emit``): the wave as it stands, its bounties paid, before it leaves
        for j in range(n):
            emit(ev.DEATH_ROW, b, wave[j, 0], st.i16[cols[C_CARD_ID], b, wave[j, 0]], 0, 0, 0)
        emit(ev.DEATHS_END, b, 0, 0, 0, 0, 0)
    for j in range(n):  # board.remove
        s = wave[j, 0]
        f.board[b, info[j, 0], st.i8[cols[C_LANE], b, s], st.i8[cols[C_POS], b, s]] = -1
        release(st, f, b, s)
    for j in range(n):
        if info[j, 1]:
            f.hero_status[b, info[j, 0], info[j, 2]] = DEAD
            f.hero_ready_round[b, info[j, 0], info[j, 2]] = f.round[b] + st.params[cols[C_HERO_DEATH_TIMER]]
    for seat in range(2):
        for k in range(f.hero_status.shape[2]):
            for j in range(n):
                if info[j, 1] and info[j, 3] and info[j, 0] == seat and info[j, 2] == k:
                    if not redeploy_now(st, f, cols, b, seat, k, info[j, 4]):
                        return False
    return True

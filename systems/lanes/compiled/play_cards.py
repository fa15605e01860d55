"""Playing a hand card, compiled over one game: the twins of ``PlayPhase.play_cards`` and of what
it calls per card kind (``play_units``, ``cast_spells``/``_cast``, ``play_improvements``,
``play_equipment``, ``resolve_unit``, ``resolve_spell``) in ``systems/lanes/play.py``, and of the
bounce's ``deaths.die``.

Every entity made or removed goes through ``board.py`` (``spawn``, ``add_improvement``,
``remove``); a death wave through ``deaths.settle``. Each function returns ``apply_play``'s
replay tuple (``play_steps``). Triggers are events drained where numpy fires them (``# DRAIN``,
``play_steps``' docstring), because numpy reads the state after each firing's effects; the
functions that reach the machine are plain functions taking its ``g, rng, m``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.ecs.compiled.damage_queue import OK
from battlesim.ecs.compiled.emit import emit, emitting
from battlesim.ecs.compiled.machine import drain
from battlesim.systems.lanes.compiled import event_codes as ev
from battlesim.systems.lanes.compiled import legal as lg
from battlesim.systems.lanes.compiled.board import add_improvement, remove, spawn
from battlesim.systems.lanes.compiled.combat_layout import (
    C_CARD_HEALTH,
    C_CARD_ID,
    C_DYING,
    C_EQUIPMENT,
    C_FACTION,
    C_HEALTH,
    C_HERO,
    C_LANE,
    C_LISTENS,
    C_MAX_HEALTH,
    C_OWNER,
    C_POS,
    C_TRIGGER,
    C_USES,
    T_ON_DEATH,
    T_ON_ENEMY_DEATH,
)
from battlesim.systems.lanes.compiled.deaths import SLOTS_FULL, settle
from battlesim.systems.lanes.compiled.play_layout import (
    DECK_POS,
    IMPROVEMENT,
    KEEP_INITIATIVE,
    LEGAL,
    PRESENT_DECK_POS,
    QUICKCAST,
    SPAWN,
    T_LANE,
    T_ON_EQUIP,
    T_ON_PLAY,
)
from battlesim.systems.lanes.compiled.play_steps import (
    BUILT,
    CAST,
    EQUIPPED,
    NOTHING,
    PLAYED,
    end_action,
    event,
    fire_own,
    has_target,
    notify_played,
    replay,
    wait_for_target,
)


def play_card(st, f, cols, b, seat, h, lane, pos, g, rng, m):
    """``PlayPhase.play_cards`` for hand card ``h`` played at (``lane``, ``pos``): out of the hand,
    "Playing a card costs resources", the round it was played from the deck (``card_played``),
    then by kind; "Keep Initiative" keeps it, "Quickcast" keeps the turn."""
    lc = cols[LEGAL:LEGAL + lg.N_COLS]
    card = np.int64(f.hand[b, seat, h])
    src = np.int64(f.hand_src[b, seat, h])
    f.hand[b, seat, h] = -1
    f.hand_src[b, seat, h] = -1
    f.resources[b, seat] -= st.cat[lc[lg.C_COST], card]
    kind = st.cat[lc[lg.C_KIND], card]
    passes = st.cat[cols[KEEP_INITIATIVE], card] == 0
    quick = st.cat[cols[QUICKCAST], card] != 0
    if src >= 0:
        f.card_played[b, seat, src] = f.round[b]
    if kind == lc[lg.K_UNIT]:
        return play_unit(st, f, cols, b, seat, card, lane, pos, src, quick, passes, g, rng, m)
    if kind == lc[lg.K_SPELL]:
        return cast_spell(st, f, cols, b, seat, card, lane, quick, passes, g, rng, m)
    if kind == lc[lg.K_IMPROVEMENT]:
        return play_improvement(st, f, cols, b, seat, card, lane, quick, passes, g, rng, m)
    if kind == lc[lg.K_EQUIPMENT]:
        return play_equipment(st, f, cols, b, seat, card, lane, pos, quick, passes, g, rng, m)
    return replay(NOTHING)


def bounce(st, f, cols, b, seat, s, g, rng, m) -> int:
    """lanes.md "Bounce": playing a unit onto an own unit's cell "destroys the existing unit":
    ``deaths.die`` without a bounty: "On Death" (it still stands there), "On Enemy Death" of every
    living, not dying enemy that listens (slot order), then ``destroy``: the round it died from
    the deck (``card_died``), off the board. (Heroes are never bounced: the legal request offers
    no hero's cell.) OK or the machine's failure."""
    card = st.i16[cols[C_CARD_ID], b, s]
    if emitting(m):
        emit(ev.BOUNCE, b, s, 0, 0, 0, 0)
    if st.params[cols[C_USES + T_ON_DEATH]] != 0 and st.cat[cols[C_LISTENS + T_ON_DEATH], card] != 0:
        event(st, b, st.params[cols[C_TRIGGER + T_ON_DEATH]], card, s, -1, seat, st.i8[cols[C_LANE], b, s],
              st.i8[cols[C_POS], b, s])
        status = drain(st, g, rng, b, m)  # DRAIN: "On Death"; the "On Enemy Death" listeners are found after
        if status != OK:
            return status
    if st.params[cols[C_USES + T_ON_ENEMY_DEATH]] != 0:
        tid = st.params[cols[C_TRIGGER + T_ON_ENEMY_DEATH]]
        for e in range(st.alive.shape[1]):
            c = st.i16[cols[C_CARD_ID], b, e]
            if (st.cat[cols[C_LISTENS + T_ON_ENEMY_DEATH], c] != 0 and st.alive[b, e]
                    and not st.flags[cols[C_DYING], b, e] and st.i8[cols[C_OWNER], b, e] != seat):
                event(st, b, tid, c, e, s, st.i8[cols[C_OWNER], b, e], st.i8[cols[C_LANE], b, e],
                      st.i8[cols[C_POS], b, e])
        status = drain(st, g, rng, b, m)  # DRAIN: "On Enemy Death", before the unit is removed
        if status != OK:
            return status
    src = st.i16[cols[DECK_POS], b, s]
    if src >= 0:
        f.card_died[b, st.i8[cols[C_OWNER], b, s], src] = f.round[b]
    if emitting(m):
        emit(ev.DEATH_ROW, b, s, card, 0, 0, 0)
        emit(ev.DEATHS_END, b, 0, 0, 0, 0, 0)
    remove(st, f, b, s, cols[C_OWNER], cols[C_LANE], cols[C_POS])
    return OK


@njit(cache=False)
def dying_in(st, cols, b) -> bool:
    """Some unit of game b is marked dying (numpy's ``w.c.dying.take(games).any()``)."""
    for s in range(st.alive.shape[1]):
        if st.flags[cols[C_DYING], b, s]:
            return True
    return False


def play_unit(st, f, cols, b, seat, card, lane, pos, src, quick, passes, g, rng, m):
    """``PlayPhase.play_units``: an own unit on the cell is bounced first; the unit is made from
    its card (``board.spawn``) and remembers its deck position; if the bounced unit's "On Death"
    killed something, "Deaths are processed immediately", before the new unit's target is asked
    for; then it waits for a TARGET decision if it aims at a unit that exists, else it resolves."""
    lc = cols[LEGAL:LEGAL + lg.N_COLS]
    occupant = np.int64(f.board[b, seat, lane, pos])
    gone = -1
    if occupant >= 0:
        gone = np.int64(st.i16[cols[C_CARD_ID], b, occupant])
        status = bounce(st, f, cols, b, seat, occupant, g, rng, m)
        if status != OK:
            return replay(status)
    s = spawn(st, f, b, seat, lane, pos, card, cols[SPAWN:])
    if s < 0:
        return replay(SLOTS_FULL)
    st.i16[cols[DECK_POS], b, s] = src
    st.flags[cols[PRESENT_DECK_POS], b, s] = True
    if emitting(m):
        emit(ev.PLAY, b, seat, card, lane, pos, s)
    if occupant >= 0 and dying_in(st, cols, b):
        status = settle(st, f, cols, b, g, rng, m)
        if status != OK:
            return replay(status)
    if has_target(st, f, cols, b, seat, st.cat[lc[lg.C_TARGET], card], st.cat[lc[lg.C_RANGE], card], lane):
        wait_for_target(f, b, seat, lc[lg.P_UNIT], card, s, s, lane, quick, passes)
    else:
        status = resolve_unit(st, f, cols, b, seat, card, s, -1, g, rng, m)
        if status != OK:
            return replay(status)
        end_action(f, b, seat, quick, passes)
    return replay(PLAYED, card, lane, pos, s, occupant, gone)


def resolve_unit(st, f, cols, b, seat, card, s, chosen, g, rng, m) -> int:
    """``PlayPhase.resolve_unit``: "On Play" of the unit (where it stands now, the chosen
    target), then "On Ally Deploy", "On Enemy Deploy", "On Play Ally", "On Enemy Play"."""
    status = fire_own(st, cols, b, T_ON_PLAY, card, seat, st.i8[cols[C_LANE], b, s], st.i8[cols[C_POS], b, s], s,
                      s, chosen, -1, g, rng, m)  # drained: numpy finds the listeners below after its effects
    if status != OK:
        return status
    return notify_played(st, cols, b, seat, s, True, g, rng, m)


def cast_spell(st, f, cols, b, seat, card, lane, quick, passes, g, rng, m):
    """``PlayPhase.cast_spells``: "Cross-lane and global/no-lane spells use the caster's lane as
    the origin (caster selection required if multiple valid heroes exist)": a valid caster is an
    own hero of the spell's faction in the origin lane; with several the player chooses (a CASTER
    decision), with one it casts (``casters.caster_of``)."""
    lc = cols[LEGAL:LEGAL + lg.N_COLS]
    faction = st.cat[lc[lg.C_FACTION], card]
    n, first = 0, -1
    for p in range(f.board.shape[3]):
        s = np.int64(f.board[b, seat, lane, p])
        if s >= 0 and st.flags[cols[C_HERO], b, s] and st.i8[cols[C_FACTION], b, s] == faction:
            n += 1
            if first < 0:
                first = s
    if n > 1:
        wait_for_target(f, b, seat, lc[lg.P_CASTER], card, -1, -1, lane, quick, passes)
        return replay(NOTHING)
    return cast(st, f, cols, b, seat, card, lane, first, quick, passes, g, rng, m)


def cast(st, f, cols, b, seat, card, lane, caster, quick, passes, g, rng, m):
    """``PlayPhase._cast``: a spell aiming at a unit that exists waits for its TARGET decision,
    else it resolves now."""
    lc = cols[LEGAL:LEGAL + lg.N_COLS]
    if emitting(m):
        emit(ev.CAST, b, seat, card, lane, caster, 0)
    if has_target(st, f, cols, b, seat, st.cat[lc[lg.C_TARGET], card], st.cat[lc[lg.C_RANGE], card], lane):
        wait_for_target(f, b, seat, lc[lg.P_SPELL], card, -1, caster, lane, quick, passes)
    else:
        status = resolve_spell(st, f, cols, b, seat, card, caster, lane, -1, g, rng, m)
        if status != OK:
            return replay(status)
        end_action(f, b, seat, quick, passes)
    return replay(CAST, card, lane, -1, caster)


def resolve_spell(st, f, cols, b, seat, card, caster, lane, chosen, g, rng, m) -> int:
    """``PlayPhase.resolve_spell``: "On Play" of the spell (no source; its caster; the chosen
    target; the lane, when it targets a lane), then "On Play Ally", "On Enemy Play"."""
    lc = cols[LEGAL:LEGAL + lg.N_COLS]
    chosen_lane = lane if st.cat[lc[lg.C_TARGET], card] == cols[T_LANE] else -1
    status = fire_own(st, cols, b, T_ON_PLAY, card, seat, lane, -1, -1, caster, chosen, chosen_lane, g, rng, m)
    if status != OK:
        return status
    return notify_played(st, cols, b, seat, -1, False, g, rng, m)


def play_improvement(st, f, cols, b, seat, card, lane, quick, passes, g, rng, m):
    """``PlayPhase.play_improvements``: lanes.md "Attach to a lane, not a specific position or
    unit" (``board.add_improvement``), "On Play" (its lane chosen), "On Play Ally", "On Enemy
    Play"; the turn ends."""
    s = add_improvement(st, f, b, seat, lane, card, cols[IMPROVEMENT:])
    if s < 0:
        return replay(SLOTS_FULL)
    if emitting(m):
        emit(ev.IMPROVEMENT, b, seat, card, lane, s, 0)
    status = fire_own(st, cols, b, T_ON_PLAY, card, seat, lane, -1, s, s, -1, lane, g, rng, m)
    if status == OK:
        status = notify_played(st, cols, b, seat, s, False, g, rng, m)
    if status != OK:
        return replay(status)
    end_action(f, b, seat, quick, passes)
    return replay(BUILT, card, lane, -1, s)


def play_equipment(st, f, cols, b, seat, card, lane, pos, quick, passes, g, rng, m):
    """``PlayPhase.play_equipment``: lanes.md "Equipment": "Attached to a unit or hero to grant
    stat bonuses or abilities"; "Each unit/hero can hold 1 equipment item" (a new one replaces
    the old, whose health bonus is taken back: health kept between 1 and the new maximum; ledger).
    Its health bonus is added on equip. "On Equip", "On Play Ally", "On Enemy Play"."""
    holder = np.int64(f.board[b, seat, lane, pos])
    old = st.i16[cols[C_EQUIPMENT], b, holder]
    if old >= 0:
        st.i16[cols[C_MAX_HEALTH], b, holder] -= st.cat[cols[C_CARD_HEALTH], old]
        st.i16[cols[C_HEALTH], b, holder] = max(min(st.i16[cols[C_HEALTH], b, holder],
                                                    st.i16[cols[C_MAX_HEALTH], b, holder]), 1)
    st.i16[cols[C_EQUIPMENT], b, holder] = card
    st.i16[cols[C_MAX_HEALTH], b, holder] += st.cat[cols[C_CARD_HEALTH], card]
    st.i16[cols[C_HEALTH], b, holder] += st.cat[cols[C_CARD_HEALTH], card]
    if emitting(m):
        emit(ev.EQUIP, b, seat, card, holder, 0, 0)
    status = fire_own(st, cols, b, T_ON_EQUIP, card, seat, lane, pos, holder, holder, -1, -1, g, rng, m)
    if status == OK:
        status = notify_played(st, cols, b, seat, -1, False, g, rng, m)
    if status != OK:
        return replay(status)
    end_action(f, b, seat, quick, passes)
    return replay(EQUIPPED, card, lane, pos, holder)

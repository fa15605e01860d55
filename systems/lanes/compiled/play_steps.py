"""The small steps every play-phase action is made of, compiled over one game: the turn's
bookkeeping (``PlayPhase.end_action``, ``wait_for_target``), whether a card or ability finds a
unit to aim at (``PlayPhase._needs_target``), and the trigger boundary (the action's own firing,
``listeners.notify``), shared by ``play_cards.py`` and ``play.py``.

The trigger boundary (docs/compiled-core.md "The play phase's apply, compiled"): where numpy
fires, the rows of that ``fire`` are pushed (``ecs/compiled/events.py``; the action's own firing,
"On Play", "On Equip", "On Activation", with its caster, chosen target and chosen lane:
``push_event_ctx``) and drained right there (``# DRAIN``, the resolution machine's ``drain``).
The functions that drain are plain functions (``codegen.rebind`` makes the compiled copies for
the phase that calls them); ``g, rng, m`` are the machine's.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.ecs.compiled.damage_queue import OK
from battlesim.ecs.compiled.events import push_event, push_event_ctx
from battlesim.ecs.compiled.machine import drain
from battlesim.systems.lanes.compiled import legal as lg
from battlesim.systems.lanes.compiled.combat_layout import C_ANCHOR, C_CARD_ID, C_LANE, C_OWNER, C_POS
from battlesim.systems.lanes.compiled.play_layout import LEGAL, LISTENS, T_ON_ALLY_DEPLOY, TRIGGER

# what ``apply_play`` did, for the caller's replay log (the esper event numpy posts; fields
# (code, card, lane, pos, entity, bounced, bounced card), -1 where a field means nothing):
NOTHING = 0  # a pass, or a spell waiting for its caster: no event
PLAYED = 1  # "lanes.play" (card, lane, pos, entity = the new unit); bounced >= 0: first "lanes.bounce"
#             and "lanes.deaths" of that slot and card
CAST = 2  # "lanes.cast" (card, lane, entity = the caster, -1 none)
BUILT = 3  # "lanes.improvement" (card, lane, entity = the improvement)
EQUIPPED = 4  # "lanes.equip" (card, entity = the holder)
ABILITY = 5  # "lanes.ability" (card, entity = the hero or improvement)
TARGETED = 6  # "lanes.target" (card, entity = the chosen unit)
# negative codes are errors, the caller stops the game naming its seed: deaths.CASCADE (-3),
# deaths.SLOTS_FULL (-4: a spawn, an improvement or a redeployed hero found no free slot)

W_LISTENERS = 4  # notify's work table (machine.Resolution.work)


@njit(cache=False)
def replay(code, card=-1, lane=-1, pos=-1, entity=-1, bounced=-1, bounced_card=-1):
    """The tuple ``apply_play`` returns (module docstring), int64 throughout."""
    return (np.int64(code), np.int64(card), np.int64(lane), np.int64(pos), np.int64(entity), np.int64(bounced),
            np.int64(bounced_card))


@njit(cache=False)
def end_action(f, b, seat, quick, passes_initiative) -> None:
    """``PlayPhase.end_action``: "Playing a card passes initiative to the opponent" (unless
    "Keep Initiative"); "Playing a card automatically ends your turn" (unless "Quickcast")."""
    f.passes[b] = 0
    if passes_initiative:
        f.initiative[b] = 1 - seat
    f.to_act[b] = seat if quick else 1 - seat


@njit(cache=False)
def wait_for_target(f, b, seat, kind, card, src, caster, lane, quick, passes_initiative) -> None:
    """``PlayPhase.wait_for_target``: the player answers a TARGET (or CASTER) decision next;
    initiative moves now, as the card was played."""
    f.passes[b] = 0
    if passes_initiative:
        f.initiative[b] = 1 - seat
    f.pending_kind[b] = kind
    f.pending_card[b] = card
    f.pending_src[b] = src
    f.pending_caster[b] = caster
    f.pending_lane[b] = lane
    f.pending_free[b] = quick
    f.to_act[b] = seat


@njit(cache=False)
def has_target(st, f, cols, b, seat, tk, rng, origin) -> bool:
    """``PlayPhase._needs_target``: a card or ability aiming at a unit (kind ``tk``) waits for a
    TARGET decision when a unit it may choose exists, in the origin lane (range "lane") or
    anywhere (range "any"); the choice rules are the legal request's (``legal._enemy_target``,
    ``_ally_target``: stealth, untargetable, no creep as an ally)."""
    lc = cols[LEGAL:LEGAL + lg.N_COLS]
    enemy = tk == lc[lg.T_ENEMY] or tk == lc[lg.T_ANY]
    ally = tk == lc[lg.T_ALLY] or tk == lc[lg.T_ANY]
    if not (enemy or ally):
        return False
    L, P = f.board.shape[2], f.board.shape[3]
    for l in range(L):
        if rng != lc[lg.RANGE_ANY] and l != origin:
            continue
        for p in range(P):
            s = f.board[b, seat, l, p]
            if ally and s >= 0 and lg._ally_target(st.i16, st.flags, lc, b, s):
                return True
            s = f.board[b, 1 - seat, l, p]
            if enemy and s >= 0 and lg._enemy_target(st.i16, st.flags, st.cat, lc, b, s):
                return True
    return False


@njit(cache=False)
def event(st, b, tid, card, source, other, owner, lane, pos) -> None:
    """Push one event (the serial of its source, -1 for a spell's, which has none)."""
    serial = st.serial[b, source] if source >= 0 else -1
    push_event(st.events, st.nevents, b, tid, card, source, serial, other, owner, lane, pos)


def fire_own(st, cols, b, t, card, owner, lane, pos, source, caster, chosen, chosen_lane, g, rng, m) -> int:
    """The action's own firing (play_layout ``T_ON_PLAY``, ``T_ON_EQUIP``, ``T_ON_ACTIVATION``),
    its whole ``Ctx`` row (caster, chosen target, chosen lane: ``push_event_ctx``), drained right
    away, as numpy reads the state after its effects. ``Executor.fire`` keeps only a card with
    an effect on it, so only such a card is pushed. OK or the machine's failure."""
    if st.cat[cols[LISTENS + t], card] == 0:
        return OK
    serial = st.serial[b, source] if source >= 0 else -1
    push_event_ctx(st.events, st.nevents, b, st.params[cols[TRIGGER + t]], card, source, serial, -1, owner, lane, pos,
                   caster, chosen, chosen_lane)
    return drain(st, g, rng, b, m)  # DRAIN: the action's own firing, before its listeners are found


def notify_played(st, cols, b, side, other, deployed, g, rng, m) -> int:
    """``listeners.deployed_and_played`` (a unit played: ``deployed``) or ``listeners.played``:
    "On Ally Deploy", "On Enemy Deploy", "On Play Ally", "On Enemy Play" (``notify``)."""
    return notify(st, cols, b, side, other, 0 if deployed else 2, 4, LISTENS + T_ON_ALLY_DEPLOY,
                  TRIGGER + T_ON_ALLY_DEPLOY, g, rng, m)


def notify(st, cols, b, side, other, first, last, listens, triggers, g, rng, m) -> int:
    """``listeners.notify`` of the triggers ``first..last - 1`` of a block of contiguous rows
    (``cols[listens + k]``: who listens; ``cols[triggers + k]``: the trigger id), even k an ally
    trigger ("On Ally Deploy", "On Play Ally"), odd k an enemy one: every live entity (not an
    anchor, not the event's own ``other``) of ``side`` (ally) or of the opponent (enemy) whose
    card listens, in slot order (numpy's ``Ctx`` rows), each trigger one firing drained before
    the next. As numpy: the listeners, their card, whether they are alive and on which side are
    read once, before the first trigger fires; their owner, lane and position as each fires."""
    S = st.alive.shape[1]
    found = m.work[W_LISTENERS]  # slot, card, of ``side`` (machine.Resolution.work: nothing allocated)
    n = 0
    for s in range(S):
        if not st.alive[b, s] or st.flags[cols[C_ANCHOR], b, s] or s == other:  # most slots: empty
            continue
        card = st.i16[cols[C_CARD_ID], b, s]
        hears = False
        for k in range(first, last):
            if st.cat[cols[listens + k], card] != 0:
                hears = True
        if not hears:
            continue
        found[n, 0], found[n, 1], found[n, 2] = s, card, st.i8[cols[C_OWNER], b, s] == side
        n += 1
    status = OK
    for k in range(first, last):
        same = k % 2 == 0
        pushed = False
        for j in range(n):
            s, card = found[j, 0], found[j, 1]
            if st.cat[cols[listens + k], card] == 0 or (found[j, 2] != 0) != same:
                continue
            event(st, b, st.params[cols[triggers + k]], card, s, other, st.i8[cols[C_OWNER], b, s],
                  st.i8[cols[C_LANE], b, s], st.i8[cols[C_POS], b, s])
            pushed = True
        if pushed:
            status = drain(st, g, rng, b, m)  # DRAIN: this trigger's rows, one firing, before the next trigger
            if status != OK:
                return status
    return status

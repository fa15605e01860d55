"""The small steps every play-phase action is made of, compiled over one game: the turn's
bookkeeping (``PlayPhase.end_action``, ``wait_for_target``), whether a card or ability finds a
unit to aim at (``PlayPhase._needs_target``), and the trigger boundary (the action's own firing,
``listeners.notify``), shared by ``play_cards.py`` and ``play.py``.

The trigger boundary (docs/compiled-core.md "The play phase's apply, compiled"): where numpy
fires, an event is pushed (``ecs/compiled/events.py``, the row ``combat.py`` pushes: trigger,
card, source and its serial, other, owner, lane, pos); the action's own firing ("On Play", "On
Equip", "On Activation") also carries a caster, a chosen target and a chosen lane, which an
event row has no room for: its whole ``Ctx`` row goes to ``f.firing[b]`` (the interpreter's
``C_*`` fields) with the index of its event in the queue (``FIRING_EVENT``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.ecs.compiled import interpreter as ip
from battlesim.ecs.compiled.events import push_event
from battlesim.systems.lanes.compiled import legal as lg
from battlesim.systems.lanes.compiled.combat_layout import C_ANCHOR, C_CARD_ID, C_LANE, C_OWNER, C_POS
from battlesim.systems.lanes.compiled.play_layout import FIRING_EVENT, LEGAL, LISTENS, T_ON_ALLY_DEPLOY, TRIGGER

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


@njit(cache=False)
def fire_own(st, f, cols, b, t, card, owner, lane, pos, source, caster, chosen, chosen_lane) -> None:
    """The action's own firing (play_layout ``T_ON_PLAY``, ``T_ON_EQUIP``, ``T_ON_ACTIVATION``):
    ``Executor.fire`` keeps only a card with an effect on it, so only such a card is pushed; its
    whole ``Ctx`` row goes to ``f.firing[b]``."""
    if st.cat[cols[LISTENS + t], card] == 0:
        return
    row = f.firing[b]
    row[ip.C_CARD], row[ip.C_OWNER], row[ip.C_LANE], row[ip.C_POS] = card, owner, lane, pos
    row[ip.C_SOURCE], row[ip.C_CASTER], row[ip.C_CHOSEN], row[ip.C_CHOSEN_LANE] = source, caster, chosen, chosen_lane
    row[ip.C_OTHER] = -1
    row[FIRING_EVENT] = st.nevents[b]
    event(st, b, st.params[cols[TRIGGER + t]], card, source, -1, owner, lane, pos)


@njit(cache=False)
def notify(st, cols, b, side, other, deployed) -> None:
    """``listeners.notify``: "On Ally Deploy", "On Enemy Deploy" (a unit played: ``deployed``),
    "On Play Ally", "On Enemy Play", in that order; for each, every live entity (not an anchor,
    not the event's own ``other``) of ``side`` (ally) or of the opponent (enemy) whose card
    listens, in slot order (numpy's ``Ctx`` rows). Numpy picks the listeners of all four before
    the first fires and reads their lane and position as each fires; pushed back to back here,
    from the state before any of their effects (the drain runs between: # DRAIN)."""
    S = st.alive.shape[1]
    for k in range(0 if deployed else 2, 4):
        t = T_ON_ALLY_DEPLOY + k
        same = k % 2 == 0
        tid = st.params[cols[TRIGGER + t]]
        for s in range(S):
            card = st.i16[cols[C_CARD_ID], b, s]
            if st.cat[cols[LISTENS + t], card] == 0 or not st.alive[b, s] or st.flags[cols[C_ANCHOR], b, s]:
                continue
            owner = st.i8[cols[C_OWNER], b, s]
            if s == other or (owner == side) != same:
                continue
            event(st, b, tid, card, s, other, owner, st.i8[cols[C_LANE], b, s], st.i8[cols[C_POS], b, s])
        # DRAIN (interpreter): this trigger's rows, one firing (slot-major) before the next trigger

"""The play phase's apply, compiled over one game (issue 13): the twin of ``PlayPhase.apply`` in
``systems/lanes/play.py`` (and of ``begin`` and ``pending``), with ``legal_play``
(``legal.py``) the whole phase for one game:

    play_begin(f, cols, b)
    while play_pending(f, b):
        seat = play_actor(f, b)
        legal_play(st, f, legal_cols, b, seat, row)   # f serves both (play_layout)
        action = <the agent's choice>
        code = apply_play(st, f, cols, b, seat, action, g, rng, m)

lanes.md "Phase 2: Play Phase", "Initiative System": players strictly alternate, starting with
the initiative holder; "Playing a card passes initiative to the opponent" (unless "Keep
Initiative"), "Passing does NOT pass initiative", and the phase ends "when both players pass
consecutively". "Playing a card automatically ends your turn" unless it has "Quickcast". Using
an ability or an improvement "uses your turn (unless Quickcast)" / "(ends your turn like playing a
card)" unless Quick, and (ledger) leaves initiative where it is. A card or ability that needs a
target asks its player for it in a second decision (TARGET); a spell with several valid casters
first asks who casts it (CASTER).

Arguments: ``st`` the ``WorldState`` of ``play_layout.play_view(w)``, ``f`` its
``PlayApplyFields``, ``cols`` ``play_columns(view, w)``; ``seat`` the player to act
(``play_actor``), ``action`` an index of the action table (``actions.py``) the legal row allows.
``g, rng, m``: the resolution machine's (``board.LanesFields``, the RNG state, the
``Resolution``): the effects numpy fires here run through it, drawing from ``rng``.

``apply_play`` returns the replay tuple of ``play_steps`` (code, card, lane, pos, entity,
bounced, bounced card): the caller posts the esper event numpy posts for the replay log; a
negative code is an error naming no game (``deaths.CASCADE``, ``deaths.SLOTS_FULL``): the caller
stops the game naming its seed. The deaths of a settle are not reported (as ``combat``'s are not).

The trigger boundary: see ``play_steps``; each ``# DRAIN`` runs the pushed events where numpy
fires them. ``apply_play`` and what it calls that reaches the machine are plain functions: the
phase (or round loop) calling them gets rebound compiled copies (``codegen.rebind``). Not kept (as elsewhere in the port): ``World.version`` and ``World.changes``
(numpy's aura cache keys on ``changes["aura"]``; an improvement or unit that is an aura source
is made here without bumping it).

The kernels allocate (``settle``'s wave scratch), so they run with numba's reference counting;
``cache=False`` as ``combat.py``'s: they call kernels of other files, whose changes numba's own
cache would not see (docs/compiled-core.md "Why stale machine code is impossible").
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.ecs.compiled.damage_queue import OK
from battlesim.ecs.compiled.emit import emit, emitting
from battlesim.systems.lanes.compiled import event_codes as ev
from battlesim.systems.lanes.compiled import legal as lg
from battlesim.systems.lanes.compiled.board import remove_improvement
from battlesim.systems.lanes.compiled.combat_layout import C_CARD_ID, C_CHARGES, C_IMPROVEMENT, C_LANE, C_OWNER, C_POS
from battlesim.systems.lanes.compiled.deaths import settle
from battlesim.systems.lanes.compiled.play_cards import cast, dying_in, play_card, resolve_spell, resolve_unit
from battlesim.systems.lanes.compiled.play_layout import (
    ABILITY_COOLDOWN,
    ABILITY_QUICKCAST,
    BUY_BASE,
    DEPLOY_BASE,
    LEGAL,
    T_LANE,
    T_ON_ACTIVATION,
)
from battlesim.systems.lanes.compiled.play_steps import (
    ABILITY,
    NOTHING,
    TARGETED,
    end_action,
    fire_own,
    has_target,
    replay,
    wait_for_target,
)


@njit(cache=False)
def play_begin(f, cols, b) -> None:
    """``PlayPhase.begin``: a running game plays; no pass yet; the initiative holder acts first
    ("Players alternate taking actions, starting with the initiative holder"); nothing pending."""
    f.in_play[b] = f.active[b]
    f.passes[b] = 0
    f.to_act[b] = f.initiative[b]
    f.pending_kind[b] = cols[LEGAL + lg.P_NONE]


@njit(cache=False)
def play_pending(f, b) -> bool:
    """``PlayPhase.pending`` and the decision loop's ``active`` filter: game b still plays."""
    return f.in_play[b] and f.active[b]


@njit(cache=False)
def play_actor(f, b) -> int:
    """Who acts next in game b (numpy's ``request`` returns ``to_act`` as the actor)."""
    return np.int64(f.to_act[b])


def apply_play(st, f, cols, b, seat, action, g, rng, m):
    """``PlayPhase.apply`` for game b: "Pass - Skip your turn without playing a card" (two in a
    row end the phase; "Passing does NOT pass initiative"), or a hand card played (PLAY), a
    TARGET (or CASTER) answer, a hero's ABILITY, an improvement ACTIVATE; then, after any action
    but a pass, "Deaths are processed immediately" (``settle``). Returns the replay tuple (its
    code negative: the machine's or settle's failure)."""
    lc = cols[LEGAL:LEGAL + lg.N_COLS]
    L, P, I = f.board.shape[2], f.board.shape[3], f.improvements.shape[3]
    if action == 0:
        f.passes[b] += 1
        f.in_play[b] = f.passes[b] < 2
        f.to_act[b] = 1 - seat
        return replay(NOTHING)
    if lc[lg.PLAY_BASE] <= action < cols[DEPLOY_BASE]:
        i = action - lc[lg.PLAY_BASE]
        out = play_card(st, f, cols, b, seat, i // (L * P), (i // P) % L, i % P, g, rng, m)
    elif lc[lg.TARGET_BASE] <= action < lc[lg.ABILITY_BASE]:
        i = action - lc[lg.TARGET_BASE]
        out = choose_target(st, f, cols, b, seat, i // (L * P), (i // P) % L, i % P, g, rng, m)
    elif lc[lg.ABILITY_BASE] <= action < lc[lg.ACTIVATE_BASE]:
        i = action - lc[lg.ABILITY_BASE]
        out = use_ability(st, f, cols, b, seat, i // P, i % P, g, rng, m)
    elif lc[lg.ACTIVATE_BASE] <= action < cols[BUY_BASE]:
        i = action - lc[lg.ACTIVATE_BASE]
        out = activate_improvement(st, f, cols, b, seat, i // I, i % I, g, rng, m)
    else:
        out = replay(NOTHING)  # not a play-phase action: numpy's apply does nothing with it
    if out[0] >= 0 and dying_in(st, cols, b):
        status = settle(st, f, cols, b, g, rng, m)
        if status != OK:
            return replay(status)
    return out


def use_ability(st, f, cols, b, seat, lane, pos, g, rng, m):
    """``PlayPhase.use_abilities``: "Select the hero with the ability; Pay any mana cost; Select
    targets (if required); Ability resolves immediately; Cooldown begins; Your turn ends (unless
    ability has Quickcast)"."""
    lc = cols[LEGAL:LEGAL + lg.N_COLS]
    hero = np.int64(f.board[b, seat, lane, pos])
    card = np.int64(st.i16[cols[C_CARD_ID], b, hero])
    f.lane_mana[b, seat, lane] -= st.cat[lc[lg.C_ABILITY_MANA], card]
    return start_ability(st, f, cols, b, seat, hero, card, lane, lc[lg.P_ABILITY], g, rng, m)


def activate_improvement(st, f, cols, b, seat, lane, i, g, rng, m):
    """``PlayPhase.activate_improvements``: lanes.md "Activated Improvements": "Activating an
    Improvement costs your action (ends your turn like playing a card)"; "May have charges
    (limited number of uses before expiring)"; "Some activated effects are free actions ...
    marked with the Quick keyword"."""
    lc = cols[LEGAL:LEGAL + lg.N_COLS]
    imp = np.int64(f.improvements[b, seat, lane, i])
    card = np.int64(st.i16[cols[C_CARD_ID], b, imp])
    return start_ability(st, f, cols, b, seat, imp, card, lane, lc[lg.P_ACTIVATE], g, rng, m)


def start_ability(st, f, cols, b, seat, src, card, lane, kind, g, rng, m):
    """``PlayPhase._start_ability``: used this round (ledger: once per round), "Cooldown X"
    starts, a charge is spent; it waits for a TARGET decision if it aims at a unit that exists,
    else resolves. Initiative stays (ledger: it is not playing a card)."""
    lc = cols[LEGAL:LEGAL + lg.N_COLS]
    st.i16[lc[lg.USED_ROUND], b, src] = f.round[b]
    st.i16[lc[lg.COOLDOWN], b, src] = st.cat[cols[ABILITY_COOLDOWN], card]
    if st.i16[lc[lg.CHARGES], b, src] > 0:
        st.i16[lc[lg.CHARGES], b, src] -= 1
    if emitting(m):
        emit(ev.ABILITY, b, seat, card, src, 0, 0)
    quick = st.cat[cols[ABILITY_QUICKCAST], card] != 0
    if has_target(st, f, cols, b, seat, st.cat[lc[lg.C_ABILITY_TARGET], card], st.cat[lc[lg.C_ABILITY_RANGE], card],
                  lane):
        wait_for_target(f, b, seat, kind, card, src, src, lane, quick, False)
    else:
        status = resolve_ability(st, f, cols, b, seat, card, src, lane, -1, g, rng, m)
        if status != OK:
            return replay(status)
        end_action(f, b, seat, quick, False)
    return replay(ABILITY, card, lane, -1, src)


def resolve_ability(st, f, cols, b, seat, card, src, lane, chosen, g, rng, m) -> int:
    """``PlayPhase.resolve_ability``: "On Activation" (the chosen target; the lane, when it
    targets a lane); an improvement whose last charge is spent expires ("May have charges
    (limited number of uses before expiring)")."""
    lc = cols[LEGAL:LEGAL + lg.N_COLS]
    chosen_lane = lane if st.cat[lc[lg.C_ABILITY_TARGET], card] == cols[T_LANE] else -1
    status = fire_own(st, cols, b, T_ON_ACTIVATION, card, seat, lane, st.i8[cols[C_POS], b, src], src, src, chosen,
                      chosen_lane, g, rng, m)  # drained: numpy reads the charges below after its effects
    if status != OK:
        return status
    if st.flags[cols[C_IMPROVEMENT], b, src] and st.i16[cols[C_CHARGES], b, src] == 0 and st.alive[b, src]:
        remove_improvement(st, f, b, src, cols[C_OWNER], cols[C_LANE])
    return OK


def choose_target(st, f, cols, b, seat, side, lane, pos, g, rng, m):
    """``PlayPhase.choose_targets``: the answer to a pending CASTER decision casts the spell
    (``choose_casters``: initiative moved when it was played); the answer to a TARGET decision
    resolves the pending unit, spell or ability on the chosen unit, and the turn ends unless the
    card or ability was Quickcast."""
    lc = cols[LEGAL:LEGAL + lg.N_COLS]
    kind = f.pending_kind[b]
    card = np.int64(f.pending_card[b])
    quick = f.pending_free[b]
    f.pending_kind[b] = lc[lg.P_NONE]
    if kind == lc[lg.P_CASTER]:
        caster = np.int64(f.board[b, seat, lane, pos])
        return cast(st, f, cols, b, seat, card, lane, caster, quick, False, g, rng, m)
    chosen = np.int64(f.board[b, side, lane, pos])
    src = np.int64(f.pending_src[b])
    origin = np.int64(f.pending_lane[b])
    if emitting(m):
        emit(ev.TARGET, b, seat, card, chosen, 0, 0)
    status = OK
    if kind == lc[lg.P_UNIT]:
        status = resolve_unit(st, f, cols, b, seat, card, src, chosen, g, rng, m)
    elif kind == lc[lg.P_SPELL]:
        status = resolve_spell(st, f, cols, b, seat, card, np.int64(f.pending_caster[b]), origin, chosen, g, rng, m)
    elif kind == lc[lg.P_ABILITY] or kind == lc[lg.P_ACTIVATE]:
        status = resolve_ability(st, f, cols, b, seat, card, src, origin, chosen, g, rng, m)
    if status != OK:
        return replay(status)
    f.passes[b] = 0
    f.to_act[b] = seat if quick else 1 - seat
    return replay(TARGETED, card, -1, -1, chosen)


def replay_events(code: tuple[int, ...] | np.ndarray) -> list[tuple[str, tuple[int, ...]]]:
    """The esper events (name, arguments after ``w, games, seat``; ``lanes.bounce`` and
    ``lanes.deaths`` after ``w, games``) numpy posts for one game's action, from ``apply_play``'s
    tuple, in numpy's order; what a caller dispatches for the replay log."""
    from battlesim.systems.lanes.compiled.play_steps import BUILT, CAST, EQUIPPED, PLAYED

    kind, card, lane, pos, entity, bounced, gone = (int(x) for x in code)
    if kind == PLAYED:
        out = [("lanes.bounce", (bounced,)), ("lanes.deaths", (bounced, gone))] if bounced >= 0 else []
        return out + [("lanes.play", (card, lane, pos, entity))]
    return {CAST: [("lanes.cast", (card, lane, entity))], BUILT: [("lanes.improvement", (card, lane, entity))],
            EQUIPPED: [("lanes.equip", (card, entity))], ABILITY: [("lanes.ability", (card, entity))],
            TARGETED: [("lanes.target", (card, entity))]}.get(kind, [])

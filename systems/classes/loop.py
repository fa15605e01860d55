"""The compiled game loop of classes: whole games, each seat played by its own compiled agent
(random, greedy or lookahead), and what the runner's tables count as the game goes.

The loop is cut into the steps a replay walks one by one (``begin_step``, ``main_one``,
``act_one``, ``haste_step``, ``battle_step``): ``replay.py`` calls these very functions in
``play_game``'s order, so a replayed game is the run's game (tested). A game draws only from its
own RNG counter and touches only its own rows, so it depends on its seed, decks, agents and
parameters, never on its batch, chunk or thread (DESIGN.md "Threads"): ``play_chunk`` releases
the GIL and each thread plays its own games with its own scratch game.

The cards table's tally ``G.tally[b, side, card, column]`` (``state.TALLY_COLUMNS``): a unit
summoned and the turn it died are counted where they happen (``effects.summon``, ``units.kill``);
the loop counts casts (from hand or prepared), the turn a card was first cast, and the enemy
units its unit or spell killed (the kill's experience credit, classes.md "the player whose unit
or spell dealt the fatal blow earns 1 experience point").
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.ecs.compiled.rng import integers
from battlesim.systems.classes.acting import attack, battle_end, clear_haste, hasted, snapshot
from battlesim.systems.classes.actions import begin_phase, cast, end_phase
from battlesim.systems.classes.agent import (
    CANDIDATES,
    INVARIANT_ACTION,
    K_CAST,
    K_CAST_PREPARED,
    MAIN_ACTIONS,
    STREAM,
    apply_action,
    legal_actions,
    random_act,
    window,
)
from battlesim.systems.classes.effects import run_jobs
from battlesim.systems.classes.greedy import PASS, greedy_act, greedy_main, greedy_window, prime_answers
from battlesim.systems.classes.invariants import START_CARDS, START_LIFE, START_MANA, card_total, mana_total, violation
from battlesim.systems.classes.lookahead import lookahead_main
from battlesim.systems.classes.progress import take_bonus
from battlesim.systems.classes.state import (
    E_OK,
    FIELDS_MAX,
    G_ACTIVE,
    G_ENDED,
    G_TURN,
    LC_CAST,
    LC_KILLS,
    LC_PLAYED,
    NCOL,
    NONE,
    P_GAINED,
    P_KILLS,
    P_LIFE,
    P_PREP,
    SC_ACT_FIELDS,
    SC_ACT_UIDS,
    SC_CHOSEN,
    SC_PAYER,
    U_ACTED,
    U_CARD,
    U_HASTE,
    U_MOVES,
)
from battlesim.systems.classes.units import advance, find_target, find_uid

RANDOM, GREEDY, LOOKAHEAD = 0, 1, 2
AGENTS = ("random", "greedy", "lookahead")  # the compiled agents, by code


@njit(cache=True, _nrt=False)
def take_level_one(G, R, start):
    """Every game's level 1 bonus taken (classes.md "Setup" 5: "Mark Level 1 as current level and
    take its bonus (power token, starting cards and Mana)"), both sides, then the jobs it queued;
    and ``start[b, side]`` (mana, cards, life) for the invariants: mana is conserved from here, as
    what a side holds less what it gained (the tally keeps counting). One call for the batch:
    from Python, per game, it was about a tenth of a 4,096-game batch."""
    for b in range(G.g.shape[0]):
        for side in range(2):
            take_bonus(G, R, b, side, 1)
        run_jobs(G, R, b)
        for side in range(2):
            start[b, side, START_MANA] = mana_total(G, b, side) - G.pl[b, side, P_GAINED]
            start[b, side, START_CARDS] = card_total(G, b, side)
            start[b, side, START_LIFE] = G.pl[b, side, P_LIFE]


@njit(cache=True, _nrt=False)
def credit_cast(G, b, side, card, kills_before):
    """A cast of ``card`` by ``side``: counted, its first turn kept, the kills it made credited."""
    G.tally[b, side, card, LC_CAST] += 1
    if G.tally[b, side, card, LC_PLAYED] == 0:
        G.tally[b, side, card, LC_PLAYED] = G.g[b, G_TURN]
    G.tally[b, side, card, LC_KILLS] += G.pl[b, side, P_KILLS] - kills_before


@njit(cache=True, _nrt=False, inline="always")
def any_scoring(agents):
    """Whether a seat is played by greedy or lookahead (``prime`` has answers to queue)."""
    return agents[0] != RANDOM or agents[1] != RANDOM


@njit(cache=True, _nrt=False, inline="always")
def holds_prepared(pl, b, side):
    """Whether a window of ``side`` has anything to decide (``window_for`` returns at once
    otherwise). The callers ask first: a call (its arguments, its frame) costs more than the
    answer."""
    return pl[b, side, P_PREP] >= 0


@njit(cache=True, _nrt=False)
def prime(G, R, b, agents):
    """The level-up answers of each greedy or lookahead side, queued before a step
    (``greedy.prime_answers``); the random agent keeps the engine's defaults."""
    for side in range(2):
        if agents[side] != RANDOM:
            prime_answers(G, R, b, side)


@njit(cache=True, _nrt=False)
def window_for(G, R, b, rng, rows, side, agents, S):
    """A window of choice 14: ``side`` may cast its prepared spell (classes.md "A prepared spell
    may be cast at any time, even during opponent's turn"); its agent decides."""
    c = G.pl[b, side, P_PREP]
    if c < 0 or G.g[b, G_ENDED]:
        return E_OK
    kills = G.pl[b, side, P_KILLS]
    if agents[side] == RANDOM:
        err = window(G, R, b, rng, rows, side)
    else:
        t = greedy_window(G, R, b, rng, side, S)
        if t == PASS:
            return E_OK
        err = cast(G, R, b, side, c, True, t, NONE, G.scr[b, SC_PAYER:SC_PAYER + NCOL])
    if G.pl[b, side, P_PREP] != c:
        credit_cast(G, b, side, c, kills)
    return err


@njit(cache=True, _nrt=False)
def reaction(G, R, b, rng, rows, agents, S):
    """The non-active player's window (choice 14)."""
    return window_for(G, R, b, rng, rows, 1 - G.g[b, G_ACTIVE], agents, S)


@njit(cache=True, _nrt=False, inline="always")
def begin_step(G, R, b, rng, rows, agents, S):
    """classes.md "Begin Phase": "you regain your resources (mana) and resolve active
    enchantments"; then the opponent's window."""
    if any_scoring(agents):
        prime(G, R, b, agents)
    if begin_phase(G, R, b) != E_OK:
        return INVARIANT_ACTION
    if holds_prepared(G.pl, b, 1 - G.g[b, G_ACTIVE]) and reaction(G, R, b, rng, rows, agents, S) != E_OK:
        return INVARIANT_ACTION
    return 0


@njit(cache=True, _nrt=False, inline="always")
def main_one(G, R, b, rng, rows, agents, S, chosen):
    """One Main Phase decision of the active player (classes.md "Main Phase": actions "until the
    player passes"): 0 it passed, 1 it took the action written to ``chosen``; then the
    opponent's window."""
    if any_scoring(agents):
        prime(G, R, b, agents)
    side = G.g[b, G_ACTIVE]
    if agents[side] == RANDOM:
        n = legal_actions(G, R, b, side, rows)
        pick = integers(rng, b, n + 1, STREAM)
        if pick == n:
            return 0
    else:
        if agents[side] == LOOKAHEAD:
            pick = lookahead_main(G, R, b, rng, rows, side, S)
        else:
            pick = greedy_main(G, R, b, rng, rows, side, S)
        if pick < 0:
            return 0
    for k in range(4):
        chosen[k] = rows[pick, k]
    kills = G.pl[b, side, P_KILLS]
    if apply_action(G, R, b, side, chosen) != E_OK:
        return INVARIANT_ACTION
    if chosen[0] == K_CAST or chosen[0] == K_CAST_PREPARED:
        credit_cast(G, b, side, chosen[1], kills)
    if holds_prepared(G.pl, b, 1 - G.g[b, G_ACTIVE]) and reaction(G, R, b, rng, rows, agents, S) != E_OK:
        return INVARIANT_ACTION
    return 1


@njit(cache=True, _nrt=False, inline="always")
def act_one(G, R, b, uid, rng, rows, agents, S):
    """The act of unit ``uid`` if it is still there and has not acted (choice 5), chosen by its
    owner's agent; its kills credited to its card; then both windows (choice 14)."""
    f = find_uid(G.u, b, uid)
    if f < 0 or G.u[b, f, U_ACTED]:
        return 0
    if any_scoring(agents):
        prime(G, R, b, agents)
    side = G.g[b, G_ACTIVE]
    card = G.u[b, f, U_CARD]
    kills = G.pl[b, side, P_KILLS]
    if agents[side] == RANDOM:
        err = random_act(G, R, b, f, rng, rows)
    else:
        err = greedy_act(G, R, b, f, rng, S)
    if card >= 0:
        G.tally[b, side, card, LC_KILLS] += G.pl[b, side, P_KILLS] - kills
    if err != E_OK or (holds_prepared(G.pl, b, 1 - G.g[b, G_ACTIVE])
                       and reaction(G, R, b, rng, rows, agents, S) != E_OK):
        return INVARIANT_ACTION
    if holds_prepared(G.pl, b, side) and window_for(G, R, b, rng, rows, side, agents, S) != E_OK:
        return INVARIANT_ACTION
    return 0


@njit(cache=True, _nrt=False, inline="always")
def haste_step(G, R, b, rng, agents):
    """classes.md "Haste": "Each haste token causes a unit to perform an additional Advance or
    Attack at the end of its next Battle phase" (choice 10: after the Act Step, acting order):
    the random agent draws Attack or Advance when it has a valid target, greedy attacks; then
    the tokens are used up."""
    if any_scoring(agents):
        prime(G, R, b, agents)
    p = G.g[b, G_ACTIVE]
    uids = G.scr[b, SC_ACT_UIDS:SC_ACT_UIDS + FIELDS_MAX]
    first = G.scr[b, SC_ACT_FIELDS:SC_ACT_FIELDS + FIELDS_MAX]
    m = 0
    if hasted(G.u, b, p):
        m = snapshot(G, R, b, p, uids, first)
    else:  # most turns: no token to play, the step only clears
        clear_haste(G.u, b, p, True)
    for i in range(m):
        f = find_uid(G.u, b, uids[i])
        if f < 0:
            continue
        card = G.u[b, f, U_CARD]
        for _ in range(G.u[b, f, U_HASTE]):
            if G.g[b, G_ENDED] or f < 0:
                break
            t = find_target(G.u, R, b, f)
            kills = G.pl[b, p, P_KILLS]
            if t != NONE and (agents[p] != RANDOM or integers(rng, b, 2, STREAM) == 0):
                attack(G, R, b, f, t)
            else:
                f = advance(G.u, R, b, f)
            if card >= 0:
                G.tally[b, p, card, LC_KILLS] += G.pl[b, p, P_KILLS] - kills
            f = find_uid(G.u, b, uids[i])
        if f >= 0:
            G.u[b, f, U_HASTE] = 0
            G.u[b, f, U_MOVES] = 0


@njit(cache=True, _nrt=False, inline="always")
def battle_step(G, R, b, agents):
    """The Battle Phase's end (``acting.battle_end``: "the player gains +1 experience")."""
    if any_scoring(agents):
        prime(G, R, b, agents)
    err = battle_end(G, R, b)
    return INVARIANT_ACTION if err != E_OK else 0


@njit(cache=True, _nrt=False)
def play_game(G, R, b, rng, rows, check, start, agents, S):
    """One game from its set-up state to the end (a life at 0 or the turn limit), turn by turn
    (spec §2): Begin Phase, Main Phase, Act Step, Haste, the Battle Phase's end, End Phase, with
    the windows of choice 14. With ``check``, the invariants after every step; returns the
    first violation's code (0: none). Every step it calls once (``begin_step``, ``haste_step``,
    ``battle_step``) or most often (``main_one``, ``act_one``) is inlined (S9, S13: when
    ``Game``, ``Rules`` and the scratch ``Game`` were 30 arrays of ~7 scalars per call; they are
    one pointer each now, ``handle.py``)."""
    chosen = G.scr[b, SC_CHOSEN:SC_CHOSEN + 4]
    uids = G.scr[b, SC_ACT_UIDS:SC_ACT_UIDS + FIELDS_MAX]
    first = G.scr[b, SC_ACT_FIELDS:SC_ACT_FIELDS + FIELDS_MAX]
    while not G.g[b, G_ENDED]:
        v = begin_step(G, R, b, rng, rows, agents, S)
        if v == 0 and check:
            v = violation(G, R, b, start)
        if v or G.g[b, G_ENDED]:
            break
        for _ in range(MAIN_ACTIONS):
            v = main_one(G, R, b, rng, rows, agents, S, chosen)
            if v != 1:
                break
            v = violation(G, R, b, start) if check else 0
            if v or G.g[b, G_ENDED]:
                break
        if v or G.g[b, G_ENDED]:
            break
        if holds_prepared(G.pl, b, 1 - G.g[b, G_ACTIVE]) and reaction(G, R, b, rng, rows, agents, S) != E_OK:
            return INVARIANT_ACTION
        m = snapshot(G, R, b, G.g[b, G_ACTIVE], uids, first)
        for i in range(m):
            if G.g[b, G_ENDED]:
                break
            v = act_one(G, R, b, uids[i], rng, rows, agents, S)
            if v == 0 and check:
                v = violation(G, R, b, start)
            if v:
                return v
        if G.g[b, G_ENDED]:
            break
        haste_step(G, R, b, rng, agents)
        v = battle_step(G, R, b, agents)
        if v == 0 and check:
            v = violation(G, R, b, start)
        if v or G.g[b, G_ENDED]:
            break
        end_phase(G, b)
    if v:
        return v
    return violation(G, R, b, start) if check else 0


@njit(cache=True, nogil=True, _nrt=True)
def play_chunk(G, R, rng, check, start, games, agents, S, out):
    """Games ``games`` of the batch to their end (``out[b]``: each one's violation code), without
    the GIL: threads play disjoint game lists at once."""
    rows = np.empty((CANDIDATES, 4), np.int64)
    for i in range(games.shape[0]):
        b = games[i]
        out[b] = play_game(G, R, b, rng, rows, check, start, agents, S)

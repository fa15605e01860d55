"""A whole hex battle, compiled: the seeded first player, rounds 1..7 of alternating turns with the
round start and end events between them, the centre token and the victory check (spec §2.3,
§2.6, §2.11), each decision the compiled agent's of the seat to act; and a batch of games in one
call (``play_batch``: ``simulate --ruleset hex``). The invariants a game keeps after every step
(``violation``) are checked by the tests' ``check`` runs.

Compiled (``@njit(cache=True)``); ``game.py`` calls these. Every function takes ``(w, cols, f,
k, rng, b, ...)``: the World as kernels see it, its column table, the per-game fields, the
thread's scratch (``apply.Work``), the games' counter RNG (``uint64[B, 2]``) and the game.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.ecs.compiled.rng import integers
from battlesim.systems.hex import kernel_cache
from battlesim.systems.hex.agents import greedy_action
from battlesim.systems.hex.apply import round_start
from battlesim.systems.hex.battle import (
    SKIP,
    U,
    V,
    acting_slot,
    same_board,
)
from battlesim.systems.hex.board import N_HEXES
from battlesim.systems.hex.kernel_cache import kernel
from battlesim.systems.hex.legal import legal_rows, nth_entry
from battlesim.systems.hex.lookahead import lookahead_action
from battlesim.systems.hex.state import (
    A_PENDING_HEX,
    ACTIONS,
    CHANNEL_C,
    CONTROLLER,
    END_CENTRE,
    END_NO_UNITS,
    END_REASON,
    FIRST_PLAYER,
    FIRST_STATUS,
    HEALTH,
    LAST_ACTOR,
    LAST_STATUS,
    M_SLOT,
    MANA,
    MAX_HEALTH,
    MODDED,
    MODS_TOP,
    NULL,
    OPENER,
    POS,
    ROUND,
    ROUNDS,
    SIDE,
    TO_ACT,
    WINNER,
)
from battlesim.systems.hex.step import (  # noqa: F401 - AGENTS and the codes are play's public names
    AGENTS,
    GREEDY,
    LOOKAHEAD,
    PASS_AGENT,
    RANDOM,
    RNG_AGENT,
    RNG_FIRST,
    RNG_GREEDY,
    WIDTH,
    apply_action,
)
from battlesim.systems.hex.turn import early_end, round_end, seat_can_act

# invariant codes (``violation``): 0 = none
INVARIANTS = ("", "two units on one hex at a turn's end", "health above max health", "a negative counter or mana",
              "negative actions", "an exhausted unit acted", "a winner before round 7's end or the early end",
              "a unit off the board",
              "a channelled cast pending on a unit without Channel counters",
              "a modifier instance on a slot its game's MODDED bits lack",
              "the kept board differs from the units' hexes",
              "a modifier instance at or past its game's MODS_TOP")


@kernel
def setup_game(w, cols, f, k, rng, b):
    """Spec §2.3 (H9.1): the first player drawn from the game's RNG; I-9: it opens round 1; the
    early end (I-17) if it has no unit at all."""
    f_g = f.g
    first = integers(rng, b, 2, RNG_FIRST)
    f_g[b, FIRST_PLAYER] = first
    f_g[b, OPENER] = first
    f_g[b, ROUND] = 1
    f_g[b, LAST_ACTOR] = -1
    f_g[b, WINNER] = -1
    f_g[b, END_REASON] = 0
    early_end(w, cols, f, b)
    if f_g[b, WINNER] >= 0:
        f_g[b, TO_ACT] = -1
    elif seat_can_act(w, cols, b, first):
        f_g[b, TO_ACT] = first
    elif seat_can_act(w, cols, b, 1 - first):
        f_g[b, TO_ACT] = 1 - first
    else:
        f_g[b, TO_ACT] = -1


@kernel
def pass_action(w, cols, b, seat):
    """The pass agent: its first unit that can act skips (the baseline that does nothing)."""
    for u in range(U):
        if acting_slot(w, cols, b, seat, u) >= 0:
            return (u * V + SKIP) * N_HEXES
    return -1


@kernel  # a call: inlined at its two callers it doubled the decision path's code (docs/hex-speed.md)
def agent_action(w, cols, f, k, rng, b, seat, agent):
    """Spec §6: the decision of the seat to act, by its agent's code: random (uniform over the
    legal entries of the battle table: ``random_action``), pass, greedy (``agents.py``) or
    lookahead (``lookahead.py``); each reads the table as hex sets (``legal.legal_rows``)."""
    if agent == PASS_AGENT:
        return pass_action(w, cols, b, seat)
    if agent == RANDOM:
        return random_action(w, cols, f, k, rng, b, seat, RNG_AGENT)
    units = legal_rows(w, cols, f, k.rows, k.counts, k.dcols, b, seat)
    if agent == GREEDY:
        return greedy_action(w, cols, f, k, rng, b, seat, units, RNG_GREEDY)
    return lookahead_action(w, cols, f, k, rng, b, seat, units)


@njit(cache=True, inline='always')  # on every decision's path: see docs/hex-speed.md step 13
def random_action(w, cols, f, k, rng, b, seat, stream):
    """The random agent: ``rng.choice(rng, b, table, stream)`` over the battle table, without
    writing the table: the same draw from the legal entries' count (``legal_rows``' counts) and
    the same entry, the draw-th in the table's order (``legal.nth_entry``)."""
    counts = k.counts
    units = legal_rows(w, cols, f, k.rows, counts, k.dcols, b, seat)
    total = 0
    for u in range(U):
        total += counts[u]
    return nth_entry(k.rows, units, counts, integers(rng, b, max(total, 1), stream))


@kernel
def between_turns(w, cols, f, k, b):
    """No unit can act: hex.md "A round ends when all units have taken an action" (H10.8) - the
    round's end events and, unless the game is over, the next round's start. True if the last
    round's end events ran (the victory check was made)."""
    f_g = f.g
    last = f_g[b, ROUND] >= f_g[b, ROUNDS]
    round_end(w, cols, f, b)
    if f_g[b, WINNER] < 0:
        round_start(w, cols, f, k, b)
    return last


@kernel
def violation(w, cols, f, b, ended):
    """The invariants of a hex game (issue 14): the first one broken now (an index of ``INVARIANTS``), 0 if none."""
    w_i16 = w.i16
    w_alive = w.alive
    f_g = f.g
    f_abil = f.abil
    f_mods = f.mods
    seen = np.uint64(0)  # a bit per hex (59 < 64)
    for s in range(w_alive.shape[1]):
        if not w_alive[b, s]:
            continue
        h = w_i16[cols[POS], b, s]
        if h < 0 or h >= N_HEXES:
            return 7
        if seen >> np.uint64(h) & np.uint64(1):
            return 1  # hex.md "units cannot occupy the same hex as other units at the end of the turn"
        seen |= np.uint64(1) << np.uint64(h)
        if w_i16[cols[HEALTH], b, s] > w_i16[cols[MAX_HEALTH], b, s]:
            return 2  # hex.md "Heal ... up to its maximum health"
        for c in range(FIRST_STATUS, LAST_STATUS + 1):
            if w_i16[cols[c], b, s] < 0:
                return 3
        if w_i16[cols[MANA], b, s] < 0 and w_i16[cols[MANA], b, s] != NULL:
            return 3
        if w_i16[cols[ACTIONS], b, s] < 0:
            return 4
    for s in range(w_alive.shape[1]):  # dead units too: ``cast.tick_channels`` skips units without counters
        if w_i16[cols[CHANNEL_C], b, s] <= 0:
            for kk in range(f_abil.shape[2]):
                if f_abil[b, s, kk, A_PENDING_HEX] != 0:
                    return 8
    for m in range(f_mods.shape[1]):  # ``battle.granted`` and ``modified`` skip a slot without its bit
        o = np.int64(f_mods[b, m, M_SLOT])
        if o >= 0 and not f_g[b, MODDED] >> o & 1:
            return 9
        if o >= 0 and m >= f_g[b, MODS_TOP]:
            return 11  # the walks over the instances stop at MODS_TOP
    if not same_board(w, cols, f, b):
        return 10  # ``battle.stand``'s board: what every decision reads instead of rebuilding it
    if f_g[b, WINNER] >= 0:
        reason = f_g[b, END_REASON]
        if reason == END_CENTRE and not ended:
            return 6  # hex.md "The victory check occurs after all other end-of-round events" of round 7
        if reason == END_NO_UNITS:
            first = f_g[b, FIRST_PLAYER]
            for s in range(w_alive.shape[1]):
                if w_alive[b, s] and w_i16[cols[SIDE], b, s] == first and w_i16[cols[CONTROLLER], b, s] == first:
                    return 6
        if reason != END_CENTRE and reason != END_NO_UNITS:
            return 6
    return 0


@kernel
def play_game(w, cols, f, k, rng, b, agents, max_steps, check):
    """Spec §2.6: turns of the seat to act (its agent's decision, applied) until no unit can act,
    then the round's end and the next round's start, until the victory check of round 7 or the
    early end. (decisions taken, the first invariant broken or 0). ``max_steps`` only guards:
    every turn spends an action and units have at most one a round (I-13)."""
    f_g = f.g
    n = 0
    ended = False
    while f_g[b, WINNER] < 0 and n < max_steps:
        seat = f_g[b, TO_ACT]
        if seat < 0:
            ended = between_turns(w, cols, f, k, b)
        else:
            a = agent_action(w, cols, f, k, rng, b, seat, agents[seat])
            if check and acting_slot(w, cols, b, seat, (a // N_HEXES) // V) < 0:
                return n, 5  # hex.md "A unit that has no actions remaining is considered exhausted."
            apply_action(w, cols, f, k, rng, b, seat, a, agents[seat])
            n += 1
        if check:
            bad = violation(w, cols, f, b, ended)
            if bad:
                return n, bad
    return n, 0


PLAY, SETUP, STEP = 0, 1, 2  # play_batch modes


@kernel
def step_game(w, cols, f, k, rng, b, agents):
    """One step of game b (a replay's unit): the seat to act decides and its action is applied
    (returns the table entry), or nobody can act and the round ends and the next one starts
    (returns -1, or -2 when those were the last round's end events)."""
    f_g = f.g
    seat = f_g[b, TO_ACT]
    if seat < 0:
        return -2 if between_turns(w, cols, f, k, b) else -1
    a = agent_action(w, cols, f, k, rng, b, seat, agents[seat])
    apply_action(w, cols, f, k, rng, b, seat, a, agents[seat])
    return a


@njit(cache=True, nogil=True)
def play_batch(w, cols, f, k, rng, games, agents, max_steps, check, mode, out):
    """Spec §2 for a batch: games ``games`` of the World, each set up and played to its end in one
    compiled call (the batch loop of ``simulate --ruleset hex``: Python works per chunk, never
    per decision). A game touches only its own rows and RNG counters, so its result is the same
    alone, in any batch and on any thread. ``out[b]`` = (decisions, first invariant broken: 0
    unless ``check``). The one entry point from Python (numba compiles each entry's whole call
    tree again): ``mode`` SETUP sets up ``games[0]`` only, STEP plays one ``step_game`` of it
    (``out[b, 0]`` = what it returned) - a replay's steps."""
    if mode == SETUP:
        setup_game(w, cols, f, k, rng, games[0])
        return
    if mode == STEP:
        out[games[0], 0] = step_game(w, cols, f, k, rng, games[0], agents)
        return
    for i in range(games.shape[0]):
        b = games[i]
        setup_game(w, cols, f, k, rng, b)
        n, bad = play_game(w, cols, f, k, rng, b, agents, max_steps, check)
        out[b, 0] = n
        out[b, 1] = bad


kernel_cache.check("play", [v for v in list(globals().values()) if hasattr(v, "py_func") and v.__module__ == __name__])

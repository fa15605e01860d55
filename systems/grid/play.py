"""A whole grid game, compiled: setup from two decks, the compiled agents (random, pass), the
loop state -> legal actions -> the agent's choice -> apply, until the game ends, and a batch of
games in one call (``play_batch``: ``simulate --ruleset grid``); and the invariants a game must
keep after every action (issue 16 "Invariants over random games").

Compiled (``@njit(cache=True)``), same arguments as ``rules.py``; ``game.py`` calls these.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.ecs.compiled.rng import integers
from battlesim.systems.grid import kernel_cache
from battlesim.systems.grid.action_table import PASS, decode
from battlesim.systems.grid.agents import greedy_action
from battlesim.systems.grid.apply import apply_action, begin_turn, shuffle_deck, spawn, take_from_deck, to_hand
from battlesim.systems.grid.draw import draw_legal
from battlesim.systems.grid.lookahead import lookahead_action
from battlesim.systems.grid.outcome import log_card
from battlesim.systems.grid.rules import eff_mv, mark_legal, passes_walls
from battlesim.systems.grid.state import (
    ACTION_USED,
    ATTACKED,
    CELL,
    DECK_N,
    END_KILL_POINTS,
    END_REASON,
    END_ROUND_LIMIT,
    FIRST,
    GAME_OVER,
    GOLD,
    HP,
    KPTS,
    MAX_HP,
    MV_LEFT,
    OVER,
    P_KP_TO_WIN,
    P_ROUND_LIMIT,
    P_SE_CAP,
    ROUND,
    SE,
    SIDE,
    TURN,
    TURN_STATE,
    WINNER,
    K,
)
from battlesim.systems.grid.work import forget_move_costs

RNG_FIRST = 11  # stream: who plays first (spec §2 Setup "first player by seed")
RNG_AGENT = 13  # stream: the random agent's choices

# the compiled agents, by code (``--agents``): each seat's code is an argument of the game loop
AGENTS = ("random", "pass", "greedy", "lookahead")
RANDOM, PASS_AGENT, GREEDY, LOOKAHEAD = range(len(AGENTS))

# invariant codes (``violation``): 0 = none
INVARIANTS = ("", "two units on one cell", "a unit on a wall it may not stand on", "HP above its maximum",
              "negative MV", "SE out of 0..se_cap", "negative gold or kill points", "a winner without the victory rule",
              "a unit with its turn over still active", "the occupancy map out of step with the units")


@njit(cache=True)
def setup_game(w, cols, f, bd, ct, pr, b, decks, deck_n, heroes, hero_cells, start):
    """Spec §2 Setup: each deck shuffled (seeded), the starting heroes on their cells, ``start`` =
    (starting_hand, gold_start, se_start); the first player by seed, whose turn begins as every
    turn does (grid.md 4.1.4: "by gaining gold and drawing a card")."""
    for side in range(2):
        n = deck_n[side]
        f.deck[b, side, :n] = decks[side, :n]
        f.g[b, DECK_N + side] = n
        shuffle_deck(f, b, side)
        s = spawn(w, cols, f, ct, pr, b, side, heroes[side], hero_cells[side])
        f.slot_row[b, s] = log_card(f, b, side, heroes[side], 1, 1)  # on the board from round 1
        for _ in range(start[0]):
            if f.g[b, DECK_N + side] > 0:
                to_hand(f, pr, b, side, take_from_deck(f, b, side, 0))
        f.g[b, GOLD + side] = start[1]
        f.g[b, SE + side] = start[2]
    first = integers(f.rng, b, 2, RNG_FIRST)
    f.g[b, FIRST] = first
    f.g[b, ROUND] = 1
    begin_turn(w, cols, f, bd, ct, pr, b, first)


@njit(cache=True, _nrt=False)
def random_action(w, cols, f, bd, ct, pr, b, k, mask, since=-1):
    """spec §4: one decision maker, a legal action of the table. The random agent: one legal action, uniformly (DESIGN "Decisions and agents": a compiled agent).
    ``since``: the kind of the action applied since ``mask`` was this game's mask, -1 if it is not
    (``rules.legal_mask`` then keeps what that action cannot change; inlined here)."""
    mark_legal(w, cols, f, bd, ct, pr, b, k, mask, since)
    return draw_legal(f.rng, b, mask, RNG_AGENT)


@njit(cache=True, _nrt=False)
def agent_action(w, cols, f, bd, ct, pr, b, ak, mask, agent, since=-1):
    """spec §4: one decision maker, the player whose turn it is. The action of that seat's agent, by its code: random, pass (ends every
    player turn at once: the baseline that does nothing, as lanes' pass agent), greedy or
    lookahead (agents.py, lookahead.py). ``since``: ``random_action``'s."""
    if agent == PASS_AGENT:
        return PASS
    if agent == GREEDY:
        return greedy_action(w, cols, f, bd, ct, pr, b, ak, mask)
    if agent == LOOKAHEAD:
        return lookahead_action(w, cols, f, bd, ct, pr, b, ak, mask)
    return random_action(w, cols, f, bd, ct, pr, b, ak.k, mask, since)


@njit(cache=True)
def violation(w, cols, f, bd, ct, pr, b):
    """issue 16 invariants (grid.md 4.2.4, 4.2.7, 4.3.3, spec §2 Victory): the first invariant the game breaks now (an index of ``INVARIANTS``), 0 if none."""
    cells = bd.wall.shape[0]
    seen = np.zeros(cells, dtype=np.bool_)
    for s in range(w.alive.shape[1]):
        if not w.alive[b, s]:
            continue
        c = w.i16[cols[CELL], b, s]
        if seen[c]:
            return 1  # grid.md 4.2.4: "cannot move to a space occupied by another unit or hero"
        seen[c] = True
        if f.who[b, c] != s or f.occ[b, c] != w.i8[cols[SIDE], b, s]:
            return 9  # occupancy.py: the kept map names every unit on its cell ...
        if bd.wall[c] and not passes_walls(w, cols, ct, b, s):
            return 2  # grid.md 4.2.7
        if w.i16[cols[HP], b, s] > w.i16[cols[MAX_HP], b, s]:
            return 3
        if w.i8[cols[MV_LEFT], b, s] < 0 or w.i8[cols[MV_LEFT], b, s] > max(eff_mv(w, cols, ct, b, s), 100):
            return 4
        if w.i8[cols[TURN_STATE], b, s] != OVER and (w.flags[cols[ATTACKED], b, s]
                                                      or (w.flags[cols[ACTION_USED], b, s])):
            return 8  # grid.md 4.3.3-4.3.4: an attack or a main action ends the unit's turn
    for c in range(cells):
        if not seen[c] and (f.who[b, c] >= 0 or f.occ[b, c] != -1):
            return 9  # ... and no one on the others
    for side in range(2):
        if f.g[b, SE + side] < 0 or f.g[b, SE + side] > pr[P_SE_CAP]:
            return 5
        if f.g[b, GOLD + side] < 0 or f.g[b, KPTS + side] < 0:
            return 6
    if f.g[b, WINNER] >= 0:
        reason = f.g[b, END_REASON]
        kp = max(f.g[b, KPTS], f.g[b, KPTS + 1])
        if not f.g[b, GAME_OVER]:
            return 7
        if reason == END_KILL_POINTS and kp < pr[P_KP_TO_WIN]:
            return 7
        if reason == END_ROUND_LIMIT and f.g[b, ROUND] < pr[P_ROUND_LIMIT]:
            return 7
        if reason != END_KILL_POINTS and reason != END_ROUND_LIMIT and reason != 3:
            return 7
    return 0


@njit(cache=True)
def play_game(w, cols, f, bd, ct, pr, b, ak, mask, agents, max_actions, check):
    """grid.md 4.1.4: player turns alternate until the victory rule (spec §2) ends the game; each
    decision is the agent's of the seat whose turn it is (``agents``: a code per seat). (actions
    taken, the first invariant broken or 0). ``max_actions`` only guards the test: a player turn
    always ends (each unit has one turn of bounded MV and actions; hires, items and spells spend
    the hand). ``mask`` keeps the random agent's legal mask from one of its decisions to the next
    (``since``: the kind of the action taken from it); another agent's decision leaves it unknown."""
    n = 0
    cells = bd.wall.shape[0]
    since = -1
    k = ak.k  # the mask's and the actions' working space (``work.AgentWork``: the agents')
    forget_move_costs(k)  # the game was set up (or changed) since ``k`` last saw it
    while not f.g[b, GAME_OVER] and n < max_actions:
        agent = agents[f.g[b, TURN]]
        if agent == RANDOM:  # straight to the agent that allocates nothing: agent_action may (greedy,
            # lookahead), so it keeps numba's reference counting, an atomic increment and decrement of
            # every array of the World, fields, board and working space on each call (docs/grid-speed.md)
            a = random_action(w, cols, f, bd, ct, pr, b, k, mask, since)
        else:
            a = agent_action(w, cols, f, bd, ct, pr, b, ak, mask, agent, since)
        apply_action(w, cols, f, bd, ct, pr, b, k, a)
        since = decode(a, cells, K, f.hand.shape[2])[0] if agent == RANDOM else -1
        n += 1
        if check:
            v = violation(w, cols, f, bd, ct, pr, b)
            if v:
                return n, v
    return n, 0


@njit(cache=True, nogil=True)
def play_batch(w, cols, f, bd, ct, pr, ak, games, decks, deck_n, heroes, hero_cells, start, agents, actions_size,
               max_actions, out):
    """spec §2 Setup and grid.md 4.1.4 (turns until the victory rule), for a batch: games ``games`` of the World, each set up and played to its end in one compiled call (the
    batch loop of ``simulate --ruleset grid``: Python works per chunk, never per decision). A game
    touches only its own rows and its own RNG counters, so its result is the same alone, in any
    batch and on any thread; without the GIL, threads play disjoint ``games`` at once.
    ``out[b]`` = actions the game took."""
    mask = np.zeros(actions_size, dtype=np.bool_)
    for i in range(games.shape[0]):
        b = games[i]
        setup_game(w, cols, f, bd, ct, pr, b, decks, deck_n, heroes, hero_cells, start)
        n, _ = play_game(w, cols, f, bd, ct, pr, b, ak, mask, agents, max_actions, False)
        out[b] = n


kernel_cache.check("play", kernel_cache.kernels_of(globals(), __name__))

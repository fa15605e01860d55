"""The compiled ``lookahead`` agent (``--agents lookahead``): greedy's best few actions (and PASS)
each played on the game itself, then greedy finishes the player's turn (``ROLLOUT``), the
evaluation of ``agents.py`` scores where the turn ends, and the game is put back (``save``/``restore`` of the game's own rows, RNG included, so a game is the same alone
and in a batch). Compiled (``@njit(cache=True, _nrt=False)``), the arguments of ``rules.py``; its
scores, candidates and saved game are the working space's (``work.AgentWork``), so nothing is
allocated per decision.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.systems.grid import kernel_cache
from battlesim.systems.grid.action_table import ATTACK, PASS, block_start
from battlesim.systems.grid.agents import (
    U_ALIVE,
    U_SIDE,
    basic_damage,
    best_of,
    evaluate,
    greedy_action,
    greedy_scores,
    hit_value,
    threat,
    unit_table,
)
from battlesim.systems.grid.apply import apply_action
from battlesim.systems.grid.rules import legal_mask
from battlesim.systems.grid.state import ACTIVE, ACTIVE_TURN, GAME_OVER, TURN, TURN_STATE, K
from battlesim.systems.grid.work import forget_move_costs

FOLLOW_W = 0.2  # the attack the active unit really has after the action
CANDIDATES = 6  # greedy's best few actions are played, not all of them
ROLLOUT = 1  # 0: one ply; 1: greedy finishes the player's turn after each candidate
ROLLOUT_STEPS = 60  # at most this many greedy actions in one rollout
REPLY_W = 1.0  # the other player's reply: each of its units' best reachable hit, at the turn's end


# -- lookahead: each action played on the game and put back -------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def copy_rows(game, saved, back):
    """``saved[:, :] = game``, or with ``back`` ``game[:, :] = saved``, element by element (a
    slice assignment may allocate a copy)."""
    for i in range(game.shape[0]):
        for j in range(game.shape[1]):
            if back:
                game[i, j] = saved[i, j]
            else:
                saved[i, j] = game[i, j]


@njit(cache=True, _nrt=False)
def keep_game(w, f, b, sv, back):
    """Every row of game b an action may change (units, game fields, piles, abilities, traps,
    RNG, card log, occupancy) copied into ``sv`` (``work.SavedGame``), or with ``back`` from it
    into the game: a game touches only its own rows (play.py ``play_batch``)."""
    copy_rows(w.i16[:, b, :], sv.i16, back)
    copy_rows(w.i8[:, b, :], sv.i8, back)
    copy_rows(w.flags[:, b, :], sv.flags, back)
    copy_rows(w.alive[b:b + 1], sv.alive, back)
    copy_rows(f.g[b:b + 1], sv.g, back)
    copy_rows(f.hand[b], sv.hand, back)
    copy_rows(f.deck[b], sv.deck, back)
    copy_rows(f.cem[b], sv.cem, back)
    for s in range(f.abil.shape[1]):
        copy_rows(f.abil[b, s], sv.abil[s], back)
    copy_rows(f.trap[b], sv.trap, back)
    copy_rows(f.rng[b:b + 1], sv.rng, back)
    copy_rows(f.log[b], sv.log, back)
    copy_rows(f.slot_row[b:b + 1], sv.slot_row, back)
    copy_rows(f.occ[b:b + 1], sv.occ, back)
    copy_rows(f.who[b:b + 1], sv.who, back)


@njit(cache=True, _nrt=False)
def save(w, f, b, ak):
    """Game b's rows into the agents' working space (``ak.saved``)."""
    keep_game(w, f, b, ak.saved, False)


@njit(cache=True, _nrt=False)
def restore(w, f, b, ak):
    """Game b as ``save`` found it; the move costs the working space ``ak.k`` holds are of the game
    before (``work.forget_move_costs``)."""
    forget_move_costs(ak.k)
    keep_game(w, f, b, ak.saved, True)


@njit(cache=True, _nrt=False)
def attack_now(w, cols, f, bd, ct, pr, b, ak, mask):
    """The best basic attack the active unit really has now (the legal mask: line of sight around
    walls and enemies, grid.md 4.4.1 "Line of sight (LoS) is determined by counting the range
    (moving around obstacles or enemies)"), 0 if none: what greedy's orthogonal distance only
    guesses."""
    a = f.g[b, ACTIVE]
    if f.g[b, GAME_OVER] or a < 0 or w.i8[cols[TURN_STATE], b, a] != ACTIVE_TURN:
        return 0.0
    legal_mask(w, cols, f, bd, ct, pr, b, ak.k, mask)
    cells = bd.wall.shape[0]
    first = block_start(ATTACK, cells, K)
    ut = unit_table(w, cols, f, ct, b, ak.units)
    who = f.who[b]
    best = 0.0
    for c in range(cells):
        if mask[first + c] and who[c] >= 0:
            best = max(best, hit_value(ut, who[c], basic_damage(ut, a, who[c])))
    return best


@njit(cache=True, _nrt=False)
def reply(w, cols, f, bd, ct, b, ak, side):
    """What the other player can hit back with when ``side``'s turn has ended: the sum over its
    units that have a turn now (grid.md 4.1.4: its turn has begun; stunned ones sit it out,
    4.4.4) of the best hit each can reach (``agents.threat``: MV plus range, orthogonal steps).
    The evaluation alone counts it only as ``SAFE_W`` of each own unit's danger, so a rollout that
    walks into the enemy's reach without striking first scored as well as one that stayed out."""
    if f.g[b, GAME_OVER]:
        return 0.0
    ut = unit_table(w, cols, f, ct, b, ak.units)
    total = 0.0
    for e in range(ut.shape[0]):
        if ut[e, U_ALIVE] and ut[e, U_SIDE] != side:
            total += threat(ut, bd, e)
    return total


@njit(cache=True, _nrt=False)
def lookahead_action(w, cols, f, bd, ct, pr, b, ak, mask):
    """The lookahead agent: greedy's ``CANDIDATES`` best actions and PASS each played on the game,
    then (``ROLLOUT`` 1) greedy plays on for the player until its turn ends (at most
    ``ROLLOUT_STEPS`` actions), the evaluation of the game there scores the candidate, and the
    game is put back (RNG included). Every candidate is scored at the same point, the other
    player's turn about to start, so PASS and an attack are compared on one scale; scoring one
    ply later (``ROLLOUT`` 0: the evaluation right after the action, PASS without the own
    threats, ``FOLLOW_W`` of ``attack_now``) compared states at different points of the turn
    and did not beat greedy (50.4% over 1,024 games, default decks). A policy improvement over
    greedy: it picks the first action whose greedy continuation ends the turn best, the other
    player's reply (``reply``, ``REPLY_W``) counted against it."""
    k = ak.k  # the mask's and the actions' working space
    legal_mask(w, cols, f, bd, ct, pr, b, k, mask)
    side = f.g[b, TURN]
    scores, pick, follow = ak.look_scores, ak.pick, ak.follow  # the working space's: nothing allocated
    greedy_scores(w, cols, f, bd, ct, pr, b, ak, mask, scores)
    for i in range(mask.shape[0]):
        pick[i] = False
    pick[PASS] = mask[PASS]
    for _ in range(CANDIDATES):
        best = -1
        top = -np.inf
        for i in range(1, mask.shape[0]):
            if mask[i] and not pick[i] and scores[i] > top:
                top = scores[i]
                best = i
        if best < 0:
            break
        pick[best] = True
    if ROLLOUT == 0:
        before = evaluate(w, cols, f, bd, ct, pr, b, ak, side, True)
        if mask[PASS]:
            scores[PASS] = evaluate(w, cols, f, bd, ct, pr, b, ak, side, False) - before
    save(w, f, b, ak)
    for i in range(mask.shape[0]):
        if not pick[i]:
            continue
        apply_action(w, cols, f, bd, ct, pr, b, k, i)
        if ROLLOUT == 0:
            if i == PASS:
                restore(w, f, b, ak)
                continue
            scores[i] = evaluate(w, cols, f, bd, ct, pr, b, ak, side, True) - before
            scores[i] += FOLLOW_W * attack_now(w, cols, f, bd, ct, pr, b, ak, follow)
        else:
            n = 0
            while n < ROLLOUT_STEPS and not f.g[b, GAME_OVER] and f.g[b, TURN] == side:
                apply_action(w, cols, f, bd, ct, pr, b, k, greedy_action(w, cols, f, bd, ct, pr, b, ak, follow))
                n += 1
            scores[i] = (evaluate(w, cols, f, bd, ct, pr, b, ak, side, True)
                         - REPLY_W * reply(w, cols, f, bd, ct, b, ak, side))
        restore(w, f, b, ak)
    return best_of(pick, scores)


kernel_cache.check("lookahead", kernel_cache.kernels_of(globals(), __name__))

"""The compiled ``lookahead`` agent (``--agents lookahead``): greedy's best few actions (and PASS)
each played on the game itself, then greedy finishes the player's turn (``ROLLOUT``), the
evaluation of ``agents.py`` scores where the turn ends, and the game is put back (``save``/``restore`` of the game's own rows, RNG included, so a game is the same alone
and in a batch). Compiled (``@njit(cache=True)``), the arguments of ``rules.py``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.systems.grid import kernel_cache
from battlesim.systems.grid.action_table import ATTACK, PASS, block_start
from battlesim.systems.grid.agents import (
    U_ALIVE,
    U_CELL,
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
@njit(cache=True)
def save(w, f, b):
    """Every row of game b an action may change (units, game fields, piles, abilities, traps,
    RNG, card log, occupancy): a game touches only its own rows (play.py ``play_batch``)."""
    return (w.i16[:, b, :].copy(), w.i8[:, b, :].copy(), w.flags[:, b, :].copy(), w.alive[b].copy(),
            f.g[b].copy(), f.hand[b].copy(), f.deck[b].copy(), f.cem[b].copy(), f.abil[b].copy(), f.trap[b].copy(),
            f.rng[b].copy(), f.log[b].copy(), f.slot_row[b].copy(), f.occ[b].copy(), f.who[b].copy())


@njit(cache=True)
def restore(w, f, b, k, sv):
    """Game b as ``save`` found it; the move costs the working space ``k`` holds are of the game
    before (``work.forget_move_costs``)."""
    forget_move_costs(k)
    w.i16[:, b, :] = sv[0]
    w.i8[:, b, :] = sv[1]
    w.flags[:, b, :] = sv[2]
    w.alive[b] = sv[3]
    f.g[b] = sv[4]
    f.hand[b] = sv[5]
    f.deck[b] = sv[6]
    f.cem[b] = sv[7]
    f.abil[b] = sv[8]
    f.trap[b] = sv[9]
    f.rng[b] = sv[10]
    f.log[b] = sv[11]
    f.slot_row[b] = sv[12]
    f.occ[b] = sv[13]
    f.who[b] = sv[14]


@njit(cache=True)
def attack_now(w, cols, f, bd, ct, pr, b, k, mask):
    """The best basic attack the active unit really has now (the legal mask: line of sight around
    walls and enemies, grid.md 4.4.1 "Line of sight (LoS) is determined by counting the range
    (moving around obstacles or enemies)"), 0 if none: what greedy's orthogonal distance only
    guesses."""
    a = f.g[b, ACTIVE]
    if f.g[b, GAME_OVER] or a < 0 or w.i8[cols[TURN_STATE], b, a] != ACTIVE_TURN:
        return 0.0
    legal_mask(w, cols, f, bd, ct, pr, b, k, mask)
    cells = bd.wall.shape[0]
    first = block_start(ATTACK, cells, K)
    ut = unit_table(w, cols, f, ct, b)
    who = np.full(cells, -1, dtype=np.int64)
    for s in range(ut.shape[0]):
        if ut[s, U_ALIVE]:
            who[ut[s, U_CELL]] = s
    best = 0.0
    for c in range(cells):
        if mask[first + c] and who[c] >= 0:
            best = max(best, hit_value(ut, who[c], basic_damage(ut, a, who[c])))
    return best


@njit(cache=True)
def reply(w, cols, f, bd, ct, b, side):
    """What the other player can hit back with when ``side``'s turn has ended: the sum over its
    units that have a turn now (grid.md 4.1.4: its turn has begun; stunned ones sit it out,
    4.4.4) of the best hit each can reach (``agents.threat``: MV plus range, orthogonal steps).
    The evaluation alone counts it only as ``SAFE_W`` of each own unit's danger, so a rollout that
    walks into the enemy's reach without striking first scored as well as one that stayed out."""
    if f.g[b, GAME_OVER]:
        return 0.0
    ut = unit_table(w, cols, f, ct, b)
    total = 0.0
    for e in range(ut.shape[0]):
        if ut[e, U_ALIVE] and ut[e, U_SIDE] != side:
            total += threat(ut, bd, e)
    return total


@njit(cache=True)
def lookahead_action(w, cols, f, bd, ct, pr, b, k, mask):
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
    legal_mask(w, cols, f, bd, ct, pr, b, k, mask)
    side = f.g[b, TURN]
    scores = np.zeros(mask.shape[0])
    greedy_scores(w, cols, f, bd, ct, pr, b, k, mask, scores)
    pick = np.zeros(mask.shape[0], dtype=np.bool_)
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
        before = evaluate(w, cols, f, bd, ct, pr, b, side, True)
        if mask[PASS]:
            scores[PASS] = evaluate(w, cols, f, bd, ct, pr, b, side, False) - before
    sv = save(w, f, b)
    follow = np.zeros(mask.shape[0], dtype=np.bool_)
    for i in range(mask.shape[0]):
        if not pick[i]:
            continue
        apply_action(w, cols, f, bd, ct, pr, b, k, i)
        if ROLLOUT == 0:
            if i == PASS:
                restore(w, f, b, k, sv)
                continue
            scores[i] = evaluate(w, cols, f, bd, ct, pr, b, side, True) - before
            scores[i] += FOLLOW_W * attack_now(w, cols, f, bd, ct, pr, b, k, follow)
        else:
            n = 0
            while n < ROLLOUT_STEPS and not f.g[b, GAME_OVER] and f.g[b, TURN] == side:
                apply_action(w, cols, f, bd, ct, pr, b, k, greedy_action(w, cols, f, bd, ct, pr, b, k, follow))
                n += 1
            scores[i] = evaluate(w, cols, f, bd, ct, pr, b, side, True) - REPLY_W * reply(w, cols, f, bd, ct, b, side)
        restore(w, f, b, k, sv)
    return best_of(pick, scores)


kernel_cache.check("lookahead", kernel_cache.kernels_of(globals(), __name__))

"""``LookaheadAgent`` compiled, one game per call (issue 13; the numpy twin is ``LookaheadAgent.act``
in ``systems/lanes/agents.py``): greedy, refined in the play phase. The ``k`` best greedy
candidates are each applied on a copy of the game (``scratch.copy_game`` into the chunk's
``rollout.RolloutGame``), the rest of the play phase is played greedily by both seats
(``rollout.rollout``), and the candidate whose end position scores best
(``lookahead.position_value``) is taken; other decisions are greedy's.

``lookahead_act(st, fa, acols, fp, pcols, rng, b, seat, legal_row, k, memo_on, memo, r)``:

- ``st`` the real World's ``WorldState`` (``lookahead.lookahead_view``), ``fa`` its
  ``AgentFields``, ``acols`` ``agent_columns``, ``fp`` its ``PlayApplyFields``, ``pcols``
  ``play_columns``, ``rng`` the real ``uint64[B, 2]``; ``b``, ``seat``, ``legal_row`` the
  decision; ``k`` the candidates (numpy's ``LookaheadAgent(k=4)``);
- ``memo_on``: the seat's opponent is plain greedy (numpy's ``_memo`` is not None), so the
  taken candidate's rollout is remembered (``Memo``, per seat and game, allocated once per chunk)
  and reused at the seat's next choice point of the same play phase when the real game's counter
  is the one the rollout had there: the best greedy candidate is then the move that rollout made,
  and its value is known, so it is not played out again (numpy's "same values, one rollout in
  ``k`` fewer");
- returns the action, or a negative status (a rollout's ``apply_play`` error: the caller stops
  the game naming its seed, ``m.info`` of ``r.m`` names the card).

Same choice and same draws as numpy: the decision's noise is greedy's one draw on the real
game's RNG (``greedy_scores``: the counter moves by the table's width whatever follows); the
candidates are ``candidates`` of those noisy scores (numpy's stable ``argsort``); each rollout
draws only on the scratch's RNG, copied from the real one after that draw (as ``subset_world``
copies it); the pick is the first candidate of highest value (``np.argmax``).

A plain function (not ``@njit``): it reaches the resolution machine through ``apply_play``, so
the engine module holds it rebound (``@compiled_phase``: ``build("lanes").module.lookahead_act``
for tests and a Python step API) and a game loop calling it gets it inlined (docs/compiled-core.md
"How phases call the resolution machine").
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from battlesim.ecs.compiled.machine import compiled_phase
from battlesim.systems.lanes.compiled.agents import greedy_scores
from battlesim.systems.lanes.compiled.lookahead import candidates, position_value, refines
from battlesim.systems.lanes.compiled.rollout import COUNTER, MEMO_CAPS, rollout
from battlesim.systems.lanes.compiled.scratch import copy_game


class Memo(NamedTuple):
    """numpy's ``_Memo`` for both seats of a chunk's games: ``[2, B]`` (``caps``: ``[2, B, C]``)."""

    valid: np.ndarray  # bool: the remembered rollout can be reused
    round: np.ndarray  # int64: the round of its play phase
    value: np.ndarray  # float64: its end value
    caps: np.ndarray  # uint64[2, B, MEMO_CAPS]: the seat's RNG counter at each later choice point
    ncap: np.ndarray  # int64: how many choice points it met
    ptr: np.ndarray  # int64: the next one to meet


def new_memo(n_games: int) -> Memo:
    """An empty ``Memo`` for a chunk (nothing remembered)."""
    return Memo(np.zeros((2, n_games), dtype=np.bool_), np.zeros((2, n_games), dtype=np.int64),
                np.zeros((2, n_games)), np.zeros((2, n_games, MEMO_CAPS), dtype=np.uint64),
                np.zeros((2, n_games), dtype=np.int64), np.zeros((2, n_games), dtype=np.int64))


@compiled_phase("lanes")
def lookahead_act(st, fa, acols, fp, pcols, rng, b, seat, legal_row, k, memo_on, memo, r):
    """``LookaheadAgent.act`` for game b (the module's docstring)."""
    A = legal_row.shape[0]
    counter0 = rng[b, COUNTER]  # before the noise draw: what a rollout recorded
    scores = r.scores
    greedy_scores(st, fa, acols, rng, b, seat, legal_row, scores)
    best = 0
    top = -np.inf
    for a in range(A):
        if scores[a] > top:
            best, top = a, scores[a]
    if k <= 1 or not refines(fa, b, legal_row):
        return best
    n = candidates(scores[:A], min(k, A, r.cand.shape[0]), r.cand)
    rnd = np.int64(fp.round[b])
    reuse = False
    if memo_on:
        p = memo.ptr[seat, b]
        reuse = (memo.valid[seat, b] and memo.round[seat, b] == rnd and p < memo.ncap[seat, b]
                 and memo.caps[seat, b, min(p, MEMO_CAPS - 1)] == counter0)
    d = 0
    for j in range(n):
        if j == 0 and reuse:
            r.value[0] = memo.value[seat, b]
            continue
        copy_game(st, r.src, b, r.st, r.dst, d)
        status, finished = rollout(r, acols, pcols, d, seat, r.cand[j], j)
        if status < 0:
            return status
        r.finished[j] = finished
        r.value[j] = position_value(r.st, r.fa, acols, d, seat)
    pick = 0
    for j in range(1, n):
        if r.value[j] > r.value[pick]:
            pick = j
    if memo_on:
        if reuse and pick == 0:  # the same rollout goes on: its next choice point
            memo.ptr[seat, b] += 1
        else:
            memo.valid[seat, b] = r.finished[pick] and r.ncap[pick] <= MEMO_CAPS
            memo.round[seat, b] = rnd
            memo.value[seat, b] = r.value[pick]
            for c in range(MEMO_CAPS):
                memo.caps[seat, b, c] = r.caps[pick, c]
            memo.ncap[seat, b] = r.ncap[pick]
            memo.ptr[seat, b] = 0
    return r.cand[pick]

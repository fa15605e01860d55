"""Lookahead's parts, compiled, one game per call (issue 13; the numpy twin is ``LookaheadAgent``
and ``position_value`` in ``systems/lanes/agents.py``): which decisions it refines, the
candidates it plays out, and the value of a rollout's end position. The rollout itself (apply
a candidate in a scratch game, ``scratch.copy_game``, and play the play phase on with greedy for
both seats) waits for the compiled round loop.

- ``refines(f, b, legal_row)``: a play-phase decision with a real choice (no pending target,
  pass legal, more than one legal action): the only ones lookahead does not leave to greedy;
- ``candidates(scores, k, out)``: the first ``k`` actions of greedy's noisy scores
  (``agents.greedy_scores``) in numpy's ``argsort(-scores, kind="stable")`` order, the legal
  ones only (illegal entries are ``-inf`` and sort last);
- ``position_value(st, f, cols, b, seat)``: the end-of-rollout value.

``f`` and ``cols`` are the agents' (``agents.AgentFields``, ``agents.agent_columns``). Nothing is
allocated (``_nrt=False``); ``position_value`` reads attack through ``combat.attack_of``
(uncached), so it is ``cache=False``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.systems.lanes.compiled.agents import board_cell
from battlesim.systems.lanes.compiled.combat_layout import C_HEALTH, C_RUINED
from battlesim.systems.lanes.compiled.damage_stages import aura_sources


@njit(cache=True, _nrt=False)
def refines(f, b: int, legal_row: np.ndarray) -> bool:
    """``LookaheadAgent.act``'s ``choice``: in the play phase, no pending decision, pass legal and
    at least one other legal action."""
    if not (f.in_play[b] and f.pending_kind[b] == 0 and legal_row[0]):
        return False
    for a in range(1, legal_row.shape[0]):
        if legal_row[a]:
            return True
    return False


@njit(cache=True, _nrt=False)
def candidates(scores: np.ndarray, k: int, out: np.ndarray) -> int:
    """The first ``k`` entries of ``argsort(-scores, kind="stable")`` (highest score first, ties
    by lowest column) into ``out``, stopping at the first ``-inf`` (not legal); returns how many.
    A selection on (score, column), k passes over the row: nothing is sorted or allocated."""
    n = 0
    last_s = np.inf
    last_a = -1
    for _ in range(min(k, scores.shape[0])):
        best = -1
        top = -np.inf
        for a in range(scores.shape[0]):
            s = scores[a]
            if (s < last_s or (s == last_s and a > last_a)) and (best < 0 or s > top):
                best, top = a, s
        if best < 0 or top == -np.inf:
            break
        out[n] = best
        n += 1
        last_s, last_a = top, best
    return n


@njit(cache=False, _nrt=False)
def position_value(st, f, cols, b: int, seat: int) -> float:
    """``agents.position_value`` for game b: the seat's board (attack + health), anchors (their
    health, -30 once ruined, doubled) and hand size, minus the opponent's; +-1e4 once won or lost.
    Every term is an integer, so the float sums are exact in any order."""
    won = f.winner[b]
    if won == seat:
        return 1e4
    if won == 1 - seat:
        return -1e4
    L, P = f.board.shape[2], f.board.shape[3]
    mine = theirs = 0.0
    sources = aura_sources(st, b, cols)
    for side in range(2):
        board = 0.0
        anchor = 0.0
        for lane in range(L):
            for pos in range(P):
                occ, atk, hp = board_cell(st, f, cols, b, side, lane, pos, sources)
                if occ:
                    board += atk + hp
            slot = side * L + lane
            if st.flags[cols[C_RUINED], b, slot]:
                anchor += -30.0
            else:
                anchor += max(np.int64(st.i16[cols[C_HEALTH], b, slot]), 0)
        hand = 0
        for h in range(f.hand.shape[2]):
            if f.hand[b, side, h] >= 0:
                hand += 1
        total = board + 2.0 * anchor + 1.0 * hand
        if side == seat:
            mine = total
        else:
            theirs = total
    return mine - theirs


def view_tables(w) -> tuple[dict, dict]:
    """The per-card rows and numbers of the one view lookahead's kernels read: the play phase's
    (``play_layout.play_tables``: combat's, then play's triggers) plus greedy's summaries
    (``greedy_damage``, ``greedy_hostile``, as ``agents.agent_view`` adds them), so that
    ``agent_columns``, ``play_columns`` and the machine's tables all index one catalog."""
    from battlesim.systems.lanes.agents import _card_tables
    from battlesim.systems.lanes.compiled.play_layout import play_tables

    cards, params = play_tables(w)
    t = _card_tables(w)
    cards["greedy_damage"] = np.asarray(t["damage"]).astype(np.int64)
    cards["greedy_hostile"] = np.asarray(t["hostile"]).astype(np.int64)
    return cards, params


def lookahead_view(w):
    """``world_view`` of ``w`` with ``view_tables``: the view of the real World and of its scratch."""
    from battlesim.ecs.compiled.world_view import world_view

    cards, params = view_tables(w)
    return world_view(w, extra_cards=cards, extra_params=params)

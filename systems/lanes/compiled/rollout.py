"""Lookahead's rollout, compiled: one candidate applied in a scratch game, then the rest of the
play phase played by greedy for both seats (issue 13; the numpy twin is the loop inside
``LookaheadAgent.act``, ``systems/lanes/agents.py``).

- ``rollout_game(w, view, engine, k)``: ``RolloutGame``, everything a rollout needs besides the
  real game's own arguments: a scratch World of one game (``scratch.scratch_world``), its
  ``WorldState``, agent, play and machine fields, its RNG and ``Resolution``, the ``GameFields``
  of the real World and of the scratch (what ``copy_game`` copies), and the work arrays (a legal
  row, greedy's scratch, the candidates, their values and the memo's choice points). Allocated
  once per chunk;
- ``rollout(r, acols, pcols, d, seat, first, j)``: game d of the scratch (a copy of the real
  game, ``copy_game``) plays ``first`` for ``seat``, then the play phase goes on with
  ``legal_play`` + ``greedy_act`` + ``apply_play`` for whoever acts, at most ``MAX_STEPS``
  greedy actions (numpy's ``max_steps``). Returns ``(status, finished)``; the RNG counter of the
  scratch at each of ``seat``'s later choice points (``lookahead.refines``) goes to
  ``r.caps[j]``, their number to ``r.ncap[j]`` (the memo's ``caps``).

Why its own function and not the game loop: numba cannot cache a recursive function, and a
rollout is a play phase inside a play phase; this loop knows only greedy seats, so it never calls
back into the agent switch. Why one ``apply_play`` call site: the machine's rebound functions are
inlined (``codegen.rebind``), so each call site of ``apply_play`` is a copy of it, its effects and
its settle in the engine's machine code: the candidate is the loop's first action.

The rollout draws only on the scratch game's RNG (a copy of the real game's, taken after the
decision's own noise draw, as numpy's ``subset_world`` takes it): the real game's counter moves
by greedy's one noise draw per decision, however many rollouts run.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from battlesim.ecs.compiled.damage_queue import OK
from battlesim.systems.lanes.compiled import legal as lg
from battlesim.systems.lanes.compiled.agents import greedy_act, scratch_size
from battlesim.systems.lanes.compiled.legal import legal_play
from battlesim.systems.lanes.compiled.lookahead import refines
from battlesim.systems.lanes.compiled.play import apply_play, play_actor, play_pending
from battlesim.systems.lanes.compiled.play_layout import LEGAL

MAX_STEPS = 200  # LookaheadAgent.max_steps: greedy actions of one rollout after its candidate
MEMO_CAPS = 32  # _Memo.C: choice points a memo remembers per rollout
COUNTER = 1  # rng[b, COUNTER] (ecs/compiled/rng.py)


class RolloutGame(NamedTuple):
    """The scratch game a chunk's rollouts play in, and their work arrays (``rollout_game``)."""

    st: Any  # WorldState of the scratch World (its catalog rows and parameters: the real view's)
    fa: Any  # AgentFields of the scratch
    fp: Any  # PlayApplyFields of the scratch
    g: Any  # LanesFields of the scratch (the machine's per-game fields)
    rng: np.ndarray  # uint64[n, 2]: the scratch's RNG
    m: Any  # Resolution of the scratch
    src: Any  # GameFields of the real World (copy_game's source)
    dst: Any  # GameFields of the scratch
    row: np.ndarray  # bool[A]: a rollout's legal row
    scores: np.ndarray  # float64[scratch_size]: the real decision's noisy scores (what is ranked)
    work: np.ndarray  # float64[scratch_size]: greedy's scratch inside a rollout
    cand: np.ndarray  # int64[k]: the candidates of the decision
    value: np.ndarray  # float64[k]: each candidate's end value
    finished: np.ndarray  # bool[k]: its rollout ended the play phase
    caps: np.ndarray  # uint64[k, MEMO_CAPS]: the scratch's counter at seat's later choice points
    ncap: np.ndarray  # int64[k]


def rollout_game(w: Any, view: Any, engine: Any, k: int, real_rng: np.ndarray, games: int = 1,
                 tables: tuple[dict, dict] | None = None) -> RolloutGame:
    """The ``RolloutGame`` of World ``w`` (its ``WorldView`` ``view``: every row the agents, the
    play phase and the machine read, ``lookahead.lookahead_view``) for a lookahead of ``k``
    candidates; ``real_rng`` is the ``uint64[B, 2]`` the real game's kernels draw from. The
    scratch's column tables equal the real ones (same components, catalog and parameters): the
    kernels get one ``cols`` for both, and a mismatch is an error here, not a wrong game.
    ``tables``: the extra rows ``view`` was built with (default ``lookahead.view_tables``; the game
    loop's view has more: ``bundle.Bundle.tables``)."""
    from battlesim.ecs.compiled.machine import new_resolution
    from battlesim.ecs.compiled.world_view import world_view
    from battlesim.systems.lanes.compiled.agents import agent_columns, agent_fields
    from battlesim.systems.lanes.compiled.board import game_fields as lanes_fields
    from battlesim.systems.lanes.compiled.lookahead import view_tables
    from battlesim.systems.lanes.compiled.play_layout import play_apply_fields, play_columns
    from battlesim.systems.lanes.compiled.scratch import game_fields, scratch_world
    from battlesim.systems.lanes.vocabulary import EXECUTOR

    s = scratch_world(w, games)
    cards, params = view_tables(s) if tables is None else tables
    sview = world_view(s, extra_cards=cards, extra_params=params)
    if not (np.array_equal(agent_columns(sview, s.actions), agent_columns(view, w.actions))
            and np.array_equal(play_columns(sview, s), play_columns(view, w))):
        raise ValueError("the scratch World's columns differ from the real World's")
    st = sview.state._replace(cat=view.state.cat, params=view.state.params)
    rng = s.rng.packed
    m = new_resolution(engine, sview, s.effects, list(EXECUTOR.opcodes), list(EXECUTOR.selectors), games)
    width = scratch_size(w.actions, w.actions.L, w.actions.P)
    return RolloutGame(st, agent_fields(sview), play_apply_fields(s, sview), lanes_fields(s, sview), rng, m,
                       game_fields(w, real_rng), game_fields(s, rng), np.zeros(w.actions.size, dtype=np.bool_),
                       np.zeros(width), np.zeros(width), np.zeros(k, dtype=np.int64), np.zeros(k),
                       np.zeros(k, dtype=np.bool_), np.zeros((k, MEMO_CAPS), dtype=np.uint64),
                       np.zeros(k, dtype=np.int64))


def rollout(r, acols, pcols, d, seat, first, j):
    """Scratch game d (already a copy of the real game) plays ``first`` for ``seat``, then greedy
    plays both seats until the play phase ends or ``MAX_STEPS`` greedy actions were applied
    (numpy's ``for _ in range(max_steps)`` over the pending games). Returns ``(status,
    finished)``: a negative status is the error ``apply_play`` returned (the caller stops the
    game). ``r.caps[j]``/``r.ncap[j]``: ``seat``'s choice points met on the way (the memo's)."""
    lc = pcols[LEGAL:LEGAL + lg.N_COLS]
    r.ncap[j] = 0
    actor = seat
    action = first
    for step in range(MAX_STEPS + 1):
        code = apply_play(r.st, r.fp, pcols, d, actor, action, r.g, r.rng, r.m)[0]
        if code < 0:
            return code, False
        if not play_pending(r.fp, d):
            return OK, True
        if step == MAX_STEPS:
            break
        actor = play_actor(r.fp, d)
        legal_play(r.st, r.fp, lc, d, actor, r.row)
        if actor == seat and refines(r.fa, d, r.row):
            n = r.ncap[j]
            r.caps[j, min(n, MEMO_CAPS - 1)] = r.rng[d, COUNTER]
            r.ncap[j] = n + 1
        action = greedy_act(r.st, r.fa, acols, r.rng, d, actor, r.row, r.work)
    return OK, False

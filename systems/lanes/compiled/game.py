"""Lanes' systems as steps of the compiled game loop (``ecs/compiled/loop.py``), and its agents.

Each step is ``step(L, b) -> status`` over one game, registered under the name the system has
in the schedule (``ruleset.py`` ``_BUILT_IN_SYSTEMS``), and calls the system's compiled twin
(round.py, combat.py, shop.py...) with the family arguments it takes from ``L``, a ``LoopArgs``
(one NamedTuple: numba reads its fields by name, and a field added later changes no step).
Decision systems (the shop) return ``DECIDE`` with the legal row in ``L.legal[b]`` and the seat
in ``L.pc[b, PC_ACTOR]``; the loop asks ``decide`` (the seat's compiled agent, by the code in
``L.agents``) or returns to Python for a Python agent, then calls the system's ``apply``.

The systems that fire card effects from their own code (start and end of round, hero deployment,
the play phase) are in ``game_phases.py``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from battlesim.ecs.compiled.loop import ASK_PYTHON, DECIDE, DONE, PC_ACTOR, PC_SUB, compiled_decide, compiled_system
from battlesim.systems.lanes.compiled.agents import greedy_act, pass_act, random_act
from battlesim.systems.lanes.compiled.lookahead_agent import lookahead_act
from battlesim.systems.lanes.compiled.combat import combat
from battlesim.systems.lanes.compiled.round import (
    creep_spawn,
    draw,
    hero_availability,
    objective_snapshot,
    refresh_resources,
    round_end,
    victory_check,
)
from battlesim.systems.lanes.compiled.shop import apply_shop, legal_shop, shop_begin

# agent codes (``L.agents[seat]``)
PYTHON, PASS, RANDOM, GREEDY, LOOKAHEAD = 0, 1, 2, 3, 4
AGENT_CODES = {"pass": PASS, "random": RANDOM, "greedy": GREEDY, "lookahead": LOOKAHEAD}
NO_SLOT = -60  # creep spawn found no free entity slot (the caller names the seed)


class LoopArgs(NamedTuple):
    """Everything the loop's steps take, built once per World (``bundle(w).loop``)."""

    st: object  # WorldState
    rng: np.ndarray  # uint64[B, 2]
    g: object  # board.LanesFields (the machine's)
    m: object  # machine.Resolution
    active: np.ndarray  # bool[B]
    rf: object  # round.RoundFields
    rcols: np.ndarray
    cf: object  # combat_layout.CombatFields
    ccols: np.ndarray
    sf: object  # shop.ShopFields
    scols: np.ndarray
    af: object  # agents.AgentFields
    acols: np.ndarray
    agents: np.ndarray  # int64[2]: each seat's agent code
    pc: np.ndarray  # int64[B, PC_WIDTH]: where each game is (ecs/compiled/loop.py)
    legal: np.ndarray  # bool[B, A]: the legal row of a game's pending decision
    scratch: np.ndarray  # float64[B, n]: greedy's scratch, per game
    ended: np.ndarray  # int64[B]: the round a game ended in (0: running), for lanes.game_over
    ph: object  # round_layout.PhaseFields: start and end of round, hero deployment
    phcols: np.ndarray
    pa: object  # play_layout.PlayApplyFields: the play phase (legal_play reads it too)
    pcols: np.ndarray
    lcols: np.ndarray  # legal.legal_columns
    expired: np.ndarray  # int64[B, S]: end of round's scratch
    la_k: np.ndarray  # int64[2]: each lookahead seat's k (its candidates)
    memo_on: np.ndarray  # bool[2]: the seat is lookahead against plain greedy (numpy's memo is kept)
    memo: object  # lookahead_agent.Memo, per chunk
    ro: object  # rollout.RolloutGame: the scratch game lookahead's rollouts play in


@compiled_decide("lanes")
def decide(L, b, seat):
    """The seat's compiled agent (``PassAgent``, ``RandomAgent``, ``GreedyAgent``: agents.py;
    ``LookaheadAgent``: lookahead_agent.py; identical choices and draws), or ``ASK_PYTHON``: a
    Python agent decides."""
    code = L.agents[seat]
    row = L.legal[b]
    if code == RANDOM:
        return random_act(L.rng, b, row)
    if code == GREEDY:
        return greedy_act(L.st, L.af, L.acols, L.rng, b, seat, row, L.scratch[b])
    if code == PASS:
        return pass_act(row)
    if code == LOOKAHEAD:
        return lookahead_act(L.st, L.af, L.acols, L.pa, L.pcols, L.rng, b, seat, row, L.la_k[seat],
                             L.memo_on[seat], L.memo, L.ro)
    return ASK_PYTHON


@njit(cache=False, _nrt=False)
def _ended(L, b, over) -> None:
    if over:
        L.ended[b] = L.rf.round[b] + 1


@compiled_system("lanes", "CreepSpawn")
def creep_spawn_step(L, b):
    """lanes.md "Creep Spawn": ``round.creep_spawn``."""
    if L.active[b] and creep_spawn(L.st, L.rf, L.rcols, b) != 0:
        return NO_SLOT
    return DONE


@compiled_system("lanes", "HeroAvailability")
def hero_availability_step(L, b):
    """``round.hero_availability``."""
    if L.active[b]:
        hero_availability(L.st, L.rf, L.rcols, b)
    return DONE


@compiled_system("lanes", "DrawPhase")
def draw_step(L, b):
    """``round.draw``."""
    if L.active[b]:
        draw(L.st, L.rf, L.rcols, b)
    return DONE


@compiled_system("lanes", "RefreshResources")
def resources_step(L, b):
    """``round.refresh_resources``."""
    if L.active[b]:
        refresh_resources(L.st, L.rf, L.rcols, b)
    return DONE


@compiled_system("lanes", "Combat")
def combat_step(L, b):
    """lanes.md "Combat": ``combat.combat`` (the resolution machine drains its triggers)."""
    return combat(L.st, L.cf, L.ccols, b, L.g, L.rng, L.m)


@compiled_system("lanes", "VictoryCheck")
def victory_step(L, b):
    """``round.victory_check``."""
    if L.active[b]:
        _ended(L, b, victory_check(L.st, L.rf, L.rcols, b))
    return DONE


def shop_apply(L, b, seat, action):
    """``shop.apply_shop`` of the seat's answer."""
    apply_shop(L.st, L.sf, L.scols, L.rng, b, seat, action)
    return DONE


@compiled_system("lanes", "ShopPhase", apply=shop_apply)
def shop_step(L, b):
    """``ShopPhase``: sub-step 0 opens the shop (``shop_begin``), then each seat is asked until
    both are done (``legal_shop``)."""
    if not L.active[b]:
        return DONE
    if L.pc[b, PC_SUB] == 0:
        shop_begin(L.st, L.sf, L.scols, L.rng, b)
        L.pc[b, PC_SUB] = 1
    if L.sf.shop_done[b, 0] and L.sf.shop_done[b, 1]:
        return DONE
    L.pc[b, PC_ACTOR] = legal_shop(L.st, L.sf, L.scols, b, L.legal[b])
    return DECIDE


@compiled_system("lanes", "ObjectiveSnapshot")
def snapshot_step(L, b):
    """``round.objective_snapshot``."""
    if L.active[b]:
        objective_snapshot(L.st, L.rf, L.rcols, b)
    return DONE


@compiled_system("lanes", "RoundEnd")
def round_end_step(L, b):
    """``round.round_end``."""
    if L.active[b]:
        _ended(L, b, round_end(L.st, L.rf, L.rcols, b))
    return DONE

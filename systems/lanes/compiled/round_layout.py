"""What the compiled start of round, end of round and hero deployment read, named once (issue 13;
docs/compiled-core.md "Start of round, end of round, hero deployment"): the ``cols`` table, the
per-card rows and numbers derived from the card set, and the per-game arrays (``PhaseFields``).

The table is combat's (``combat_layout.READS``, same positions) followed by these phases' own
reads, the decaying statuses, the round phases' table (``round.round_columns``, for
``fire_round_trigger``) and the deployment's codes. Why combat's first: the three phases settle
deaths with the compiled ``deaths.settle`` and deploy heroes with ``deaths.spawn_hero``, which
index combat's positions; one table, one argument, and the column ids never module globals
(a plugin set may move a column; DESIGN.md "Rules of the road").
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from battlesim.ecs.compiled.world_view import ViewError, WorldView, world_view
from battlesim.systems.lanes.compiled import combat_layout
from battlesim.systems.lanes.compiled.board import game_fields
from battlesim.systems.lanes.compiled.combat_layout import CombatFields, combat_fields, combat_tables
from battlesim.systems.lanes.compiled.round import N_COLS as N_ROUND_COLS
from battlesim.systems.lanes.compiled.round import round_columns, round_trigger_rows

# the triggers these phases fire besides combat's: the round triggers, hero deployment's own
ROUND_TRIGGERS = ("start_of_round", "end_of_round")
DEPLOY_TRIGGERS = ("on_play", "on_ally_deploy", "on_enemy_deploy")
_OWN = (
    "decay", "regeneration", "card.kw_regeneration", "temp_health", "cooldown", "used_round", "timer",
    "param.lane_mana_per_round", "param.lane_mana_cap",
    *(f"card.listens.{t}" for t in ROUND_TRIGGERS + DEPLOY_TRIGGERS),
    *(f"param.trigger.{t}" for t in ROUND_TRIGGERS + DEPLOY_TRIGGERS),
)
READS = combat_layout.READS + _OWN
_GROUPS = {"decay": "i16", "regeneration": "i16", "temp_health": "i16x2", "cooldown": "i16", "used_round": "i16",
           "timer": "i16"}  # what the kernels read them as (checked when the table is built)
R0 = len(combat_layout.READS)
(C_DECAY, C_REGENERATION, C_KW_REGENERATION, C_TEMP_HEALTH, C_COOLDOWN, C_USED_ROUND, C_TIMER, C_MANA_PER_ROUND,
 C_MANA_CAP) = range(R0, R0 + 9)
C_LISTENS = R0 + 9  # + index in ROUND_TRIGGERS + DEPLOY_TRIGGERS
C_TRIGGER = C_LISTENS + len(ROUND_TRIGGERS + DEPLOY_TRIGGERS)
T_START, T_END, T_ON_PLAY, T_ALLY_DEPLOY, T_ENEMY_DEPLOY = range(5)
MAX_DECAYING = 16  # decaying statuses (lanes has 7; a plugin may add)
N_DECAYING = len(READS)  # how many; their rows follow
DECAYING = N_DECAYING + 1
ROUND0 = DECAYING + MAX_DECAYING  # ``round_columns`` from here, ``N_ROUND_COLS`` long
DEPLOY_BASE, READY, ON_BOARD, SIDES, N_COLS = range(ROUND0 + N_ROUND_COLS, ROUND0 + N_ROUND_COLS + 5)

# the deployment's place in each game (``PhaseFields.deploy`` columns) and its steps
STEP, SEAT, ASKED, STEP_START, N_CHOSEN = range(5)
MID, SIDES_STEP, REMAINING, TOGETHER, SETTLE, DONE_STEP = range(6)  # round 1: steps 1-3; rounds 2+: one


class PhaseFields(NamedTuple):
    """The per-game arrays the three phases use: combat's (settle, ``spawn_hero``: the World's own
    arrays and the release/spawn tables), the lane mana, the improvements (and the defaults
    ``board.release`` writes), the round-1 side draw, and the deployment's place in each game
    (scratch of the caller's, not World fields: numpy keeps them in locals of its ``process``)."""

    combat: CombatFields
    lane_mana: np.ndarray  # int16[B, 2, L]
    improvements: np.ndarray  # int16[B, 2, L, I]
    defaults: np.ndarray  # int64[4, K]: each group row's default (``board.release``)
    left_side: np.ndarray  # int8[B]: round 1 step 2, the seat that deploys to lane 0
    deploy: np.ndarray  # int64[B, 5]: STEP, SEAT, ASKED, STEP_START, N_CHOSEN
    chosen: np.ndarray  # int64[B, C, 4]: the phase's deployments in order (seat, hero, lane, pos)


def phase_tables(w: Any) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """``combat_tables`` plus the round triggers' listeners (as ``fire_all`` reads them,
    ``round_trigger_rows``), "On Play"'s (the cards with an effect on it, as ``Executor.fire``
    runs them) and the deploy listeners (as
    ``listeners.notify`` reads them: ``w.cache``)."""
    from battlesim.systems.lanes.vocabulary import EXECUTOR

    cards, params = combat_tables(w)
    rc, rp = round_trigger_rows(w)
    cards.update(rc)
    params.update(rp)
    n = len(w.catalog)
    tid = EXECUTOR.id("trigger", "on_play")
    on_play = w.effects.cards_with(tid).astype(np.int64)
    cards["listens.on_play"] = np.asarray(on_play[:n], np.int64)
    params["trigger.on_play"] = tid
    for t in ("on_ally_deploy", "on_enemy_deploy"):
        listen = w.cache.get(t)
        cards[f"listens.{t}"] = np.zeros(n, np.int64) if listen is None else np.asarray(listen, np.int64)
        params[f"trigger.{t}"] = EXECUTOR.id("trigger", t)
    return cards, params


def phase_view(w: Any) -> WorldView:
    """The World as these compiled phases see it (``world_view`` with ``phase_tables``)."""
    cards, params = phase_tables(w)
    return world_view(w, extra_cards=cards, extra_params=params)


def phase_columns(view: WorldView, actions: Any, decaying: list[str]) -> np.ndarray:
    """``int64[N_COLS]``: the ``cols`` argument of the three phases (``READS``, then the decaying
    statuses ``decaying`` (``lanes.decaying()``), ``round_columns``, the deployment's codes). A
    component filed in another group than the kernels read it from is an error, not a wrong read."""
    from battlesim.ecs.rng import Stream
    from battlesim.systems.lanes.state import ON_BOARD as ONB
    from battlesim.systems.lanes.state import READY as RDY

    for name, group in _GROUPS.items():
        got = view.columns.get(name)
        if got is None or got[0] != group:
            raise ViewError(f"component {name!r} is {got and got[0]}, the compiled round phases read it as {group}")
    if len(decaying) > MAX_DECAYING:
        raise ViewError(f"{len(decaying)} decaying statuses, the compiled end of round takes {MAX_DECAYING}")
    out = np.zeros(N_COLS, dtype=np.int64)
    out[:N_DECAYING] = view.cols(READS)
    out[N_DECAYING] = len(decaying)
    for j, name in enumerate(decaying):
        got = view.columns.get(name)
        if got is None or got[0] != "i16":
            raise ViewError(f"status {name!r} is {got and got[0]}, the compiled end of round reads it as i16")
        out[DECAYING + j] = got[1]
    out[ROUND0:ROUND0 + N_ROUND_COLS] = round_columns(view)
    out[DEPLOY_BASE:N_COLS] = (actions.deploy_base, RDY, ONB, int(Stream.SIDES))
    return out


def phase_fields(w: Any, view: WorldView) -> PhaseFields:
    """The ``PhaseFields`` of World ``w`` (its own arrays, no copy) with fresh deployment scratch."""
    B, K = w.n_games, w.params.heroes
    return PhaseFields(combat_fields(w, view), w.g.lane_mana, w.g.improvements, game_fields(w, view).defaults,
                       w.g.left_side, np.zeros((B, 5), np.int64), np.zeros((B, 2 * max(K, 3), 4), np.int64))

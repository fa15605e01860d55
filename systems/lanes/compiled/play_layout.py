"""What the compiled play phase's apply reads and writes, named once: its ``cols`` table, the
per-card rows and numbers it needs beyond the World's, and ``PlayApplyFields``, the per-game
arrays (the World's own, by name, no copy).

Why one table made of others: ``apply_play`` calls three existing kernels that each index a
table of their own, and reuses them rather than re-writing them (COMMON.md: one way to do each
thing): ``deaths.settle`` indexes combat's table (``combat_layout.READS``) at fixed positions,
so that table is the prefix (positions 0..``N_COMBAT``-1); the legal request's helpers
(``legal._enemy_target``, ``_ally_target``) index ``legal_columns``, which follows at
``LEGAL``; ``board.add_improvement`` and ``board.spawn`` read ``IMPROVEMENT_READS`` and
``SPAWN_READS`` from the start of the slice handed to them, which come last (``SPAWN_READS``
grows with the declared keywords, so it is the tail). Play's own entries sit between.

Why ``PlayApplyFields`` repeats names of other tuples: numba reads a NamedTuple's fields by
name, so one tuple whose names include legal's ``PlayFields``, combat's ``CombatFields`` and
board's ``LanesFields`` (``next_serial``, ``defaults``) serves ``legal_play``, ``settle``,
``spawn`` and ``remove`` as they are.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from battlesim.ecs.compiled.interpreter import GROUP_CODES
from battlesim.ecs.compiled.world_view import ViewError, WorldView, world_view
from battlesim.systems.lanes.compiled import legal
from battlesim.systems.lanes.compiled.board import IMPROVEMENT_READS, SPAWN_READS, game_fields
from battlesim.systems.lanes.compiled.combat_layout import READS, combat_fields, combat_tables
from battlesim.systems.lanes.vocabulary import EXECUTOR

# the triggers the play phase fires besides settle's ("On Death", "On Enemy Death": combat's rows)
PLAY_TRIGGERS = ("on_play", "on_equip", "on_activation", "on_ally_deploy", "on_enemy_deploy", "on_play_ally",
                 "on_enemy_play")
(T_ON_PLAY, T_ON_EQUIP, T_ON_ACTIVATION, T_ON_ALLY_DEPLOY, T_ON_ENEMY_DEPLOY, T_ON_PLAY_ALLY,
 T_ON_ENEMY_PLAY) = range(len(PLAY_TRIGGERS))
NOTIFY = ((T_ON_ALLY_DEPLOY, True), (T_ON_ENEMY_DEPLOY, False), (T_ON_PLAY_ALLY, True), (T_ON_ENEMY_PLAY, False))

N_COMBAT = len(READS)  # combat's table: settle's positions (combat_layout.C_*)
LEGAL = N_COMBAT  # legal_columns: legal.C_* etc. at LEGAL + k
OWN = LEGAL + legal.N_COLS
_OWN_READS = ("deck_pos", "present.deck_pos", "card.keep_initiative", "card.quickcast", "card.ability_cooldown",
              "card.ability_quickcast")
DECK_POS, PRESENT_DECK_POS, KEEP_INITIATIVE, QUICKCAST, ABILITY_COOLDOWN, ABILITY_QUICKCAST = range(OWN, OWN + 6)
LISTENS = OWN + len(_OWN_READS)  # + T_*: card.listens.<trigger>
TRIGGER = LISTENS + len(PLAY_TRIGGERS)  # + T_*: param.trigger.<trigger>
T_LANE, DEPLOY_BASE, BUY_BASE = range(TRIGGER + len(PLAY_TRIGGERS), TRIGGER + len(PLAY_TRIGGERS) + 3)
IMPROVEMENT = BUY_BASE + 1  # IMPROVEMENT_READS from here
SPAWN = IMPROVEMENT + len(IMPROVEMENT_READS)  # SPAWN_READS from here to the end


class PlayApplyFields(NamedTuple):
    """The per-game arrays ``apply_play`` (and the kernels it calls) read and write."""

    hand: np.ndarray  # int16[B, 2, H] (legal.PlayFields from here to pending_lane)
    resources: np.ndarray  # int16[B, 2]
    board: np.ndarray  # int16[B, 2, L, P]
    improvements: np.ndarray  # int16[B, 2, L, I]
    lane_mana: np.ndarray  # int16[B, 2, L]
    round: np.ndarray  # int16[B]
    pending_kind: np.ndarray  # int8[B]
    pending_card: np.ndarray  # int16[B]
    pending_lane: np.ndarray  # int8[B]
    hand_src: np.ndarray  # int16[B, 2, H]: deck position of each hand card, -1 bought
    card_played: np.ndarray  # int16[B, 2, D]
    initiative: np.ndarray  # int8[B]
    to_act: np.ndarray  # int8[B]
    passes: np.ndarray  # int8[B]
    in_play: np.ndarray  # bool[B]
    pending_src: np.ndarray  # int16[B]
    pending_caster: np.ndarray  # int16[B]
    pending_free: np.ndarray  # bool[B]
    active: np.ndarray  # bool[B]
    gold: np.ndarray  # (combat_layout.CombatFields from here to present_rows: what settle uses)
    card_died: np.ndarray
    hero_status: np.ndarray
    hero_ready_round: np.ndarray
    hero_card: np.ndarray
    next_serial: np.ndarray  # World._next_serial
    release_i16: np.ndarray
    release_i8: np.ndarray
    release_flags: np.ndarray
    release_i16x2: np.ndarray
    spawn_rows: np.ndarray
    present_rows: np.ndarray
    defaults: np.ndarray  # int64[4, K]: board.release's table (board.LanesFields)


def play_tables(w: Any) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """``combat_tables`` plus play's triggers: ``listens.<t>`` and ``trigger.<t>``. For the
    triggers ``listeners.notify`` fires, the rows of ``w.cache[t]`` (zeros when None), which is
    what notify reads; for the action's own ("On Play", "On Equip", "On Activation", fired for
    every play), the cards with an effect on it, which is what ``Executor.fire`` keeps."""
    cards, params = combat_tables(w)
    n = len(w.catalog)
    for k, t in enumerate(PLAY_TRIGGERS):
        tid = EXECUTOR.id("trigger", t)
        if k >= T_ON_ALLY_DEPLOY:
            listen = w.cache.get(t)
            rows = np.zeros(n, np.int64) if listen is None else np.asarray(listen, np.int64)
        else:
            rows = w.effects.cards_with(tid).astype(np.int64)
        cards[f"listens.{t}"] = rows
        params[f"trigger.{t}"] = tid
    return cards, params


def play_view(w: Any) -> WorldView:
    """The World as the compiled play phase sees it (``world_view`` with ``play_tables``)."""
    cards, params = play_tables(w)
    return world_view(w, extra_cards=cards, extra_params=params)


def play_columns(view: WorldView, w: Any) -> np.ndarray:
    """``int64[...]``: the ``cols`` argument of ``apply_play`` (the module's docstring)."""
    from battlesim.systems.lanes.targets import LANE

    layout = dict(view.layout())
    for name, (group, row) in view.columns.items():
        if group in GROUP_CODES:
            layout[f"any.{name}"] = (row << 2) | GROUP_CODES[group]
    names = (list(_OWN_READS) + [f"card.listens.{t}" for t in PLAY_TRIGGERS]
             + [f"param.trigger.{t}" for t in PLAY_TRIGGERS])
    missing = [n for n in (*READS, *names, *IMPROVEMENT_READS, *SPAWN_READS) if n not in layout]
    if missing:
        raise ViewError(f"the world has no column {missing[0]!r}")
    own = [layout[n] for n in names] + [LANE, w.actions.deploy_base, w.actions.buy_base]
    out = np.concatenate([view.cols(READS), legal.legal_columns(view, w.actions, w.equip_keywords),
                          np.array(own, dtype=np.int64), [layout[n] for n in IMPROVEMENT_READS],
                          [layout[n] for n in SPAWN_READS]]).astype(np.int64)
    assert out.size == SPAWN + len(SPAWN_READS)
    return out


def play_apply_fields(w: Any, view: WorldView) -> PlayApplyFields:
    """A World's ``PlayApplyFields``: its own arrays (no copy), settle's and board's release and
    spawn tables."""
    c = combat_fields(w, view)
    per_game = [view.g[name] for name in PlayApplyFields._fields[:18]]
    return PlayApplyFields(*per_game, w.active, *c[2:7], w._next_serial, *c[9:],
                           game_fields(w, view).defaults)

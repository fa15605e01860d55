"""The move costs kept from the legal mask to the move it allows (rules.move_costs_of,
``GridWork.costs_of``; docs/grid-speed.md): whenever the working space says it holds a unit's
move costs, they are the ones a fresh search finds for the game as it is, before every action of
many random and greedy games on every shipped map; and a game in which an action does not forget
them (the clear in ``apply_action`` skipped) is caught."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from battlesim.systems.grid.action_table import MOVE, decode
from battlesim.systems.grid.agents import greedy_action
from battlesim.systems.grid.apply import apply_action
from battlesim.systems.grid.board import move_costs_within
from battlesim.systems.grid.game import MAX_ACTIONS, GridBatch, GridTables
from battlesim.systems.grid.play import random_action, setup_game
from battlesim.systems.grid.rules import flies, passes_walls
from battlesim.systems.grid.state import ACTIVE, CELL, GAME_OVER, MV_LEFT, SIDE, K
from battlesim.systems.grid.work import new_agent_work

MAPS = ({}, {"map": "webwood"}, {"map": "citadel", "width": 10, "height": 10})


def fresh_costs(gb, t, s):
    """Unit s's move costs searched afresh (``board.move_costs_within``, limited by its MV left)."""
    w, cols = gb.ws, gb.cols
    return move_costs_within(t.bd.neighbours, t.bd.wall, t.bd.web, gb.f.occ[0], w.i16[cols[CELL], 0, s],
                             w.i8[cols[SIDE], 0, s], passes_walls(w, cols, t.ct, 0, s), flies(w, cols, t.ct, 0, s),
                             np.int64(w.i8[cols[MV_LEFT], 0, s]))


def kept_against_fresh(tables, seed, decks, greedy, forget=True):
    """Plays one game (random choices, or greedy ones); before each action, wherever the working
    space says it holds the active unit's move costs, compares them with fresh ones. ``forget``
    False puts the working space's mark back after each action, as if the action had not
    forgotten the costs. (the moves applied with kept costs, the first decision where the kept
    costs differ from fresh ones or None)."""
    t = tables
    gb = GridBatch(t, np.array([seed]), decks)
    args = (gb.ws, gb.cols, gb.f, t.bd, t.ct, t.pr, 0)
    agent_work = new_agent_work(gb.ws, gb.f, gb.actions_size)
    work = agent_work.k
    mask = np.zeros(gb.actions_size, dtype=np.bool_)
    setup_game(*args, gb.main, gb.sizes, gb.heroes, gb.cells, gb.start)
    cells = t.bd.wall.shape[0]
    since, kept_moves = -1, 0
    for n in range(MAX_ACTIONS):
        if gb.f.g[0, GAME_OVER]:
            break
        a = greedy_action(*args, agent_work, mask) if greedy else random_action(*args, work, mask, since)
        kind = decode(a, cells, K, t.params.hand_limit)[0]
        s = gb.f.g[0, ACTIVE]
        if work.costs_of[0] == 0 and work.costs_of[1] == s:
            if not (work.cost == fresh_costs(gb, t, s)).all():
                return kept_moves, n
            kept_moves += kind == MOVE
        mark = work.costs_of.copy()
        apply_action(*args, work, a)
        if not forget:
            work.costs_of[:] = mark
        since = -1 if greedy else kind
    return kept_moves, None


@pytest.mark.parametrize("overrides", MAPS, ids=["crossroads", "webwood", "citadel"])
def test_kept_move_costs_are_fresh_ones_before_every_action(params, card_set, overrides):
    # grid.md 4.2.1: "A unit or hero can move any number of spaces in a turn as they have MV points.":
    # the least MV to each cell, searched once for the game as it is, by the legal mask, and read by
    # the move it allows and greedy's scores
    tables = GridTables(params.model_copy(update=overrides), card_set)
    pairs = list(itertools.permutations(sorted(card_set.decks), 2))
    kept = 0
    for seed in range(12):
        moves, differ = kept_against_fresh(tables, seed, pairs[seed % len(pairs)], greedy=seed % 3 == 2)
        assert differ is None, (seed, differ)
        kept += moves
    assert kept > 200  # the moves really read the mask's costs


def test_costs_an_action_does_not_forget_are_caught(params, card_set):
    # the check above can fail: if an action left the mark of the costs before it, the next decision
    # would read the costs of a unit that has since moved (or of a board that has since changed)
    tables = GridTables(params, card_set)
    decks = sorted(card_set.decks)[:2]
    assert any(kept_against_fresh(tables, seed, decks, greedy=False, forget=False)[1] is not None
               for seed in range(3))

"""Invariants over random games (issue 16 "Rules fidelity"): random vs random through the compiled
loop (state -> legal actions -> random choice -> apply), every invariant checked after every
action: at most one unit per cell, no unit on a wall unless it may stand there, MV and SE never
negative, an attack or a main action ends the unit's turn, every game ends, a winner only by the
victory rule; and the same seed plays the same game."""

from __future__ import annotations

import itertools

import pytest

from battlesim.systems.grid.game import GridTables, play_games, play_one_game
from battlesim.systems.grid.play import INVARIANTS, violation


@pytest.fixture(scope="module")
def tables(params, card_set):
    return GridTables(params, card_set)


def test_random_games_keep_every_invariant_and_end(tables, card_set):
    pairs = list(itertools.permutations(sorted(card_set.decks), 2))
    results = [play_one_game(tables, seed, pairs[seed % len(pairs)], check=True) for seed in range(300)]
    assert [r for r in results if r["violation"]] == []
    # spec §2 Victory: kill_points_to_win, else round_limit rounds; a player turn always ends
    assert all(r["end_reason"] in ("kill_points", "round_limit") for r in results)
    for r in results:
        if r["end_reason"] == "round_limit":
            assert r["rounds"] == tables.params.round_limit
            assert r["winner"] == (-1 if r["kill_points"][0] == r["kill_points"][1]
                                   else int(r["kill_points"][1] > r["kill_points"][0]))
        else:
            assert max(r["kill_points"]) >= tables.params.kill_points_to_win


def test_every_shipped_map_keeps_the_invariants(params, card_set):
    # grid.md 4.2.7 (walls), 4.2.8 (webs): the other maps, one of them 10x10 (spec §2 Board, Map)
    for overrides in ({"map": "webwood"}, {"map": "citadel", "width": 10, "height": 10}):
        tables = GridTables(params.model_copy(update=overrides), card_set)
        results = [play_one_game(tables, seed, ("shadow_court", "green_rangers"), check=True) for seed in range(80)]
        assert [r for r in results if r["violation"]] == [], overrides
        assert all(r["end_reason"] in ("kill_points", "round_limit") for r in results)


def test_kill_points_end_games_with_a_low_threshold(params, card_set):
    # grid.md 4.4.4: "their kill points count towards the victory condition"
    low = GridTables(params.model_copy(update={"kill_points_to_win": 1}), card_set)
    results = [play_one_game(low, seed, ("iron_vanguard", "shadow_court"), check=True) for seed in range(100)]
    ended = [r for r in results if r["end_reason"] == "kill_points"]
    assert ended and all(r["violation"] == "" and r["winner"] in (0, 1) for r in ended)
    assert all(r["kill_points"][r["winner"]] >= 1 for r in ended)


def test_a_game_depends_only_on_its_seed(tables):
    # DESIGN "Randomness and the determinism contract": a game's result depends only on its seed
    a = [play_one_game(tables, s, ("arcane_circle", "green_rangers")) for s in (5, 6, 5)]
    assert a[0] == a[2]
    other = [{k: v for k, v in r.items() if k != "seed"} for r in a[:2]]
    assert other[0] != other[1]
    # ... never on batch size or batch mates: the same seeds in one World of several games
    seeds = [9, 5, 6, 5]
    alone = [play_one_game(tables, s, ("arcane_circle", "green_rangers")) for s in seeds]
    assert play_games(tables, seeds, ("arcane_circle", "green_rangers")) == alone


def test_the_invariant_check_sees_a_broken_state(play, unit):
    # the check above can fail: two units put on one cell are reported
    p = play(unit("A", 0, 3, 3, "Footman") + unit("B", 0, 4, 3, "Footman"))
    r = p.run
    assert violation(r.ws, r.cols, r.f, r.bd, r.ct, r.pr, 0) == 0
    r.w.c.grid_cell[0, 1] = r.w.c.grid_cell[0, 0]
    assert INVARIANTS[violation(r.ws, r.cols, r.f, r.bd, r.ct, r.pr, 0)] == "two units on one cell"


def test_the_invariant_check_sees_a_stale_occupancy_map(play, unit):
    # occupancy.py: the occupancy map is game state, kept where units move and die; a unit moved
    # behind its back (its map not told) is reported
    p = play(unit("A", 0, 3, 3, "Footman") + unit("B", 0, 5, 3, "Footman"))
    r = p.run
    assert violation(r.ws, r.cols, r.f, r.bd, r.ct, r.pr, 0) == 0
    r.w.c.grid_cell[0, 1] += 1
    assert INVARIANTS[violation(r.ws, r.cols, r.f, r.bd, r.ct, r.pr, 0)] == "the occupancy map out of step with the units"

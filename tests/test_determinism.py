"""The determinism contract (DESIGN.md): "A game's result depends only on its seed, its decks,
its agents and the ruleset parameters: not on batch size, on which other games share its
batch, on chunking". Checked on whole games-table rows, every column."""

import numpy as np
import pyarrow as pa
import pytest

from battlesim.ecs.runs.runner import RunConfig, simulate

DECKS = ("red_black_raiders", "green_grove")


def rows(table: pa.Table) -> list[dict]:
    return table.sort_by("seed").to_pylist()


@pytest.fixture(scope="module")
def reference(lanes):
    """Seeds 0..999 played as one batch of 1,000."""
    return rows(simulate(RunConfig(games=1000, seed=0, decks=DECKS, chunk=1000), game=lanes).table)


@pytest.mark.parametrize("chunk, games", [(7, 140), (64, 1000)])
def test_same_results_for_any_chunking(lanes, reference, chunk, games):
    # batches of 7 (the first 140 games) and of 64 (all 1,000) against one batch of 1,000
    got = rows(simulate(RunConfig(games=games, seed=0, decks=DECKS, chunk=chunk), game=lanes).table)
    assert got == reference[:games]


def test_batch_size_one_replays_each_game(lanes, reference):
    got = rows(simulate(RunConfig(games=30, seed=0, decks=DECKS, chunk=1), game=lanes).table)
    assert got == reference[:30]


def test_a_game_does_not_depend_on_its_batch_mates(lanes, reference, random_agents):
    seeds = np.array([917, 3, 500, 42, 999, 0, 123])
    cols = lanes.play(seeds, DECKS, random_agents)
    for i, s in enumerate(seeds):
        ref = reference[int(s)]
        assert (int(cols["winner"][i]), int(cols["rounds"][i]), cols["end_reason"][i]) == (
            ref["winner"], ref["rounds"], ref["end_reason"]
        )


def test_seed_offset_replays_game_of_a_larger_run(lanes, reference):
    # "--seed 7 --games 1 replays game 7 of --seed 0 --games 100"
    got = rows(simulate(RunConfig(games=1, seed=7, decks=DECKS), game=lanes).table)
    assert got == [reference[7]]


def test_different_seeds_give_different_games(reference):
    outcomes = {(r["winner"], r["rounds"], r["first_player"], r["gold_0"], r["gold_1"]) for r in reference}
    assert len(outcomes) > 50

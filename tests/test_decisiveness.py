"""Decisiveness: each side's objective HP at the end of round 5 in the games table, and how
often the side ahead then wins (docs/balance.md, ledger "Interpretations")."""

import numpy as np
import pyarrow as pa
import pytest

from battlesim.ecs.balance import measure as bal
from battlesim.ecs.runs.runner import RunConfig, simulate

SNAP = ("objective_hp_r5_0", "objective_hp_r5_1")


def test_decisiveness_on_a_hand_built_table():
    nan = np.nan
    # 10 games: 6 with a leader (side 0 leads 4, side 1 leads 2), 2 ties, 2 ended before round 5
    hp0 = np.array([150, 150, 150, 150, 100, 100, 120, 120, nan, nan])
    hp1 = np.array([100, 100, 100, 100, 150, 150, 120, 120, nan, nan])
    winner = np.array([0, 0, 0, 1, 1, -1, 0, 1, 0, 1])  # leader wins games 0, 1, 2 and 4; 5 is a draw
    d = bal.decisiveness(winner, hp0, hp1)
    assert d["games_with_leader"] == 6 and d["leader_wins"] == 4
    assert d["value"] == pytest.approx(4 / 6)
    assert d["ties"] == 2 and d["games_with_snapshot"] == 8 and d["ended_before"] == 2
    lo, hi = d["ci"]
    assert lo < 4 / 6 < hi
    # a game decided by round 5 every time: the leader always wins
    d = bal.decisiveness(np.array([1, 0, 1]), np.array([10.0, 90, 20]), np.array([80.0, 30, 70]))
    assert d["value"] == 1.0
    # no snapshot at all: no value
    d = bal.decisiveness(np.array([0, 1]), np.array([nan, nan]), np.array([nan, nan]))
    assert d["value"] is None and d["games_with_leader"] == 0 and d["ended_before"] == 2


def _game_run(table: pa.Table) -> bal.PairRun:
    return bal.PairRun("a", "b", int(table.column("seed")[0].as_py()), table.sort_by("seed"), None)


def test_game_stats_reports_decisiveness_from_the_games_table():
    t = pa.table({
        "seed": np.arange(4), "winner": np.array([0, 1, 1, 0], np.int8), "rounds": np.array([9, 9, 4, 9], np.int16),
        "first_player": np.array([0, 1, 0, 1], np.int8), "end_reason": ["two_anchors"] * 4,
        SNAP[0]: pa.array([150, 90, None, 100], pa.int16()), SNAP[1]: pa.array([100, 120, None, 100], pa.int16()),
    })
    g = bal.game_stats([_game_run(t)])
    assert g["decisiveness"] == 1.0  # games 0 and 1: the leader won; game 2 ended before; game 3 tied
    assert g["decisiveness_detail"]["games_with_leader"] == 2
    assert g["decisiveness_detail"]["ties"] == 1 and g["decisiveness_detail"]["ended_before"] == 1
    old = t.drop_columns(list(SNAP))  # a run written before the columns existed
    g = bal.game_stats([_game_run(old)])
    assert g["decisiveness"] is None and "objective_hp_r5" in g["decisiveness_note"]


def _objective_hp_now(t: pa.Table, side: int) -> np.ndarray:
    """Objective HP from the final anchor/essence columns (anchor + essence left per lane)."""
    tot = 0
    for lane in range(3):
        tot = tot + np.maximum(t.column(f"anchor_hp_{side}_{lane}").to_numpy(), 0) \
            + np.maximum(t.column(f"essence_hp_{side}_{lane}").to_numpy(), 0)
    return tot


@pytest.fixture(scope="module")
def quick_games():
    # a passing seat-1 agent loses fast: many games end before round 5, many after
    return simulate(RunConfig(games=300, seed=40, decks=("red_vanguard", "blue_tide"), agents=("random", "pass"))).table


def test_snapshot_is_null_exactly_for_games_decided_before_the_end_of_round_5(quick_games):
    t = quick_games
    rounds = t.column("rounds").to_numpy()
    for c in SNAP:
        null = t.column(c).is_null().to_numpy(zero_copy_only=False)
        assert np.array_equal(null, rounds <= 5), c
    assert (rounds <= 5).any() and (rounds > 5).any()  # both kinds are really there
    hp = np.stack([t.column(c).to_numpy(zero_copy_only=False) for c in SNAP])
    hp = hp[:, rounds > 5]
    assert ((hp >= 0) & (hp <= 3 * (30 + 40))).all()


def test_snapshot_equals_the_final_objective_hp_when_the_game_stops_at_round_5():
    # round_limit = 5: a game still running at the end of round 5 stops there, so its snapshot is its final state
    t = simulate(RunConfig(games=200, seed=7, decks=("green_grove", "black_covenant"), params={"round_limit": 5})).table
    limit = t.column("end_reason").to_numpy(zero_copy_only=False) == "round_limit"
    assert limit.sum() > 20
    for side, c in enumerate(SNAP):
        snap = t.column(c).to_numpy(zero_copy_only=False)
        assert np.array_equal(snap[limit].astype(np.int64), _objective_hp_now(t, side)[limit])
        assert t.column(c).filter(pa.array(~limit)).null_count == int((~limit).sum())

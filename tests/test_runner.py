"""The runner's Python side: the notebook function, what a run returns, the tables' shape,
and streaming (a run with ``keep_table=False`` keeps counts only)."""

import pyarrow as pa
import pyarrow.dataset as ds
import pytest

from battlesim.ecs.runs.chunks import Tally
from battlesim.ecs.runs.runner import (
    RunConfig,
    RunError,
    run_games,
    simulate,
    summarize,
)

DECKS = ("red_vanguard", "green_grove")


def test_run_games_returns_the_games_table_sorted_by_seed():
    t = run_games(50, seed=50, decks=DECKS, chunk=20)
    assert isinstance(t, pa.Table)
    assert t.column("seed").to_pylist() == list(range(50, 100))
    assert set(t.column("deck_0").to_pylist()) == {"red_vanguard"}
    assert set(t.column("deck_1").to_pylist()) == {"green_grove"}
    for col in ("winner", "rounds", "first_player", "end_reason", "gold_0", "gold_1", "anchor_hp_0_0", "essence_hp_1_2"):
        assert col in t.column_names


def test_run_games_bad_input_is_a_run_error():
    with pytest.raises(RunError, match="unknown deck 'nope'"):
        run_games(10, decks=("nope", "green_grove"))
    with pytest.raises(RunError, match="--workers must be at least 1"):
        run_games(10, workers=0)
    with pytest.raises(RunError, match="unknown backend 'spark'"):
        run_games(10, backend="spark")
    with pytest.raises(RunError, match="--address is for --backend ray"):
        run_games(10, address="auto")


def test_counts_only_run_matches_the_table(lanes):
    cfg = RunConfig(games=100, seed=3, decks=DECKS, chunk=40)
    full = simulate(cfg, game=lanes)
    counts = simulate(cfg, game=lanes, keep_table=False)
    assert counts.table is None and counts.cards is None
    assert counts.tally == Tally.of_table(full.table) == full.tally
    s = summarize(counts, cfg, DECKS)
    winner = full.table.column("winner").to_pylist()
    assert s["games"] == 100 and s["wins"] == [winner.count(0), winner.count(1)] and s["draws"] == winner.count(-1)
    assert s["mean_rounds"] == pytest.approx(sum(full.table.column("rounds").to_pylist()) / 100)
    assert sum(s["end_reasons"].values()) == 100


def test_cards_table_names_cards_and_nulls_what_did_not_happen(lanes, tmp_path):
    cfg = RunConfig(games=40, seed=0, decks=DECKS, chunk=16)
    r = simulate(cfg, tmp_path / "run", game=lanes, cards=True)
    cards = r.cards
    assert cards is not None
    assert cards.column_names == ["seed", "player", "card", "drawn_round", "played_round", "died_round"]
    assert pa.types.is_dictionary(cards.schema.field("card").type)
    for col in ("drawn_round", "played_round", "died_round"):
        assert cards.schema.field(col).type == pa.int16()
    rows = cards.to_pylist()
    assert {r["seed"] for r in rows} == set(range(40))
    assert set(lanes.card_names) >= {r["card"] for r in rows}
    assert any(r["drawn_round"] is None for r in rows)  # not every card is drawn...
    assert all(r["drawn_round"] is None or r["drawn_round"] >= 1 for r in rows)  # ...and none is "drawn in round 0"
    for r in rows:  # a card is played after it is drawn, and dies after it is played
        if r["played_round"] is not None:
            assert r["drawn_round"] is not None and r["played_round"] >= r["drawn_round"]
        if r["died_round"] is not None:
            assert r["played_round"] is not None and r["died_round"] >= r["played_round"]
    # the shards on disk hold the same rows
    on_disk = ds.dataset(tmp_path / "run" / "cards").to_table()
    assert on_disk.num_rows == cards.num_rows
    assert sorted(on_disk.column("seed").to_pylist()) == sorted(cards.column("seed").to_pylist())


def test_out_writes_one_shard_per_chunk_per_table(lanes, tmp_path):
    simulate(RunConfig(games=50, decks=DECKS, chunk=20, agents=("pass", "pass")), tmp_path / "r", game=lanes, keep_table=False)
    for table in ("games", "cards"):
        names = sorted(p.name for p in (tmp_path / "r" / table).iterdir())
        assert names == [f"part-{s:020d}-{n}.parquet" for s, n in ((0, 20), (20, 20), (40, 10))]
    assert (tmp_path / "r" / "run.json").exists()


def test_chunk_defaults_to_the_run_directorys_when_resuming(lanes, tmp_path):
    out = tmp_path / "r"
    first = simulate(RunConfig(games=40, decks=DECKS, chunk=16), out, game=lanes, keep_table=False)
    again = simulate(RunConfig(games=40, decks=DECKS), out, game=lanes, keep_table=False)
    assert again.chunk == 16 and again.games_played == 0 and again.tally == first.tally
    # another chunk size changes no result: the finished shards stay, nothing is replayed
    other = simulate(RunConfig(games=40, decks=DECKS, chunk=20), out, game=lanes, keep_table=False)
    assert other.games_played == 0 and other.tally == first.tally


def test_chunks_cover_the_seeds_not_finished_cut_on_the_chunk_grid():
    from battlesim.ecs.runs.runner import chunks

    assert list(chunks(10, 50, 20)) == [(10, 20), (30, 20), (50, 10)]
    assert list(chunks(10, 50, 20, [(10, 20), (50, 10)])) == [(30, 20)]
    assert list(chunks(0, 100, 30, [(0, 30), (30, 30), (60, 30), (90, 5)])) == [(95, 5)]  # a grown run's partial chunk
    assert list(chunks(0, 60, 20, [(20, 20)])) == [(0, 20), (40, 20)]
    # lazily: a huge run is not planned in memory
    assert next(chunks(0, 10**10, 1)) == (0, 1)

"""Grid batches through the runner (issue 16 "What a designer gets": `battlesim simulate --ruleset
grid` with every option lanes has; games and cards tables; `balance` and `sweep`): the
determinism contract of DESIGN.md ("A game's result depends only on its seed, its decks, its
agents and the ruleset parameters: not on batch size, on which other games share its batch, on
chunking"), the tables' columns and dtypes, and the commands with one-line errors."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds
import pytest
from typer.testing import CliRunner

from battlesim.ecs.cli import app
from battlesim.ecs.decisions import make_agent
from battlesim.ecs.ruleset import get_ruleset
from battlesim.ecs.runs.runner import RunConfig, simulate

DECKS = ("iron_vanguard", "shadow_court")
runner = CliRunner()


@pytest.fixture(scope="module")
def grid():
    return get_ruleset("grid").load()


@pytest.fixture(scope="module")
def reference(grid):
    """Seeds 100..163 played as one chunk of 64, with the cards table."""
    return simulate(RunConfig(ruleset="grid", games=64, seed=100, decks=DECKS, chunk=64), game=grid, cards=True)


def agents(a: str = "random", b: str = "random") -> list:
    return [make_agent(a), make_agent(b)]


def by_seed(cols: dict[str, np.ndarray], seed: int) -> list[tuple]:
    rows = np.flatnonzero(cols["seed"] == seed)
    return [tuple(v[i].item() if hasattr(v[i], "item") else v[i] for v in cols.values()) for i in rows]


def run(*args: str):
    return runner.invoke(app, list(args))


def one_line_error(r) -> str:
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, r.stderr
    return lines[0]


# -- determinism -------------------------------------------------------------------------------------
def test_a_game_plays_the_same_alone_and_in_a_batch_of_64(grid):
    seeds = np.arange(100, 164)
    batch = grid.play_tables(seeds, DECKS, agents())
    for seed in (100, 117, 163):
        alone = grid.play_tables(np.array([seed]), DECKS, agents())
        for table in ("games", "cards"):
            assert by_seed(alone[table], seed) == by_seed(batch[table], seed), (table, seed)
            assert by_seed(alone[table], seed)


@pytest.mark.parametrize("chunk", [1, 7])
def test_any_chunking_gives_the_same_tables(grid, reference, chunk):
    games = 64 if chunk > 1 else 12
    got = simulate(RunConfig(ruleset="grid", games=games, seed=100, decks=DECKS, chunk=chunk), game=grid, cards=True)
    assert got.table.equals(reference.table.slice(0, games))
    first = pa.compute.less(reference.cards.column("seed"), 100 + games)
    assert got.cards.equals(reference.cards.filter(first))


def test_threads_give_the_same_tables(grid, reference, monkeypatch):
    monkeypatch.setenv("BATTLESIM_THREADS", "2")
    got = simulate(RunConfig(ruleset="grid", games=64, seed=100, decks=DECKS, chunk=64), game=grid, cards=True)
    assert got.table.equals(reference.table)
    assert got.cards.equals(reference.cards)


def test_two_workers_into_a_run_directory_write_the_in_process_tables(reference, tmp_path):
    out = tmp_path / "run"
    r = run("simulate", "--ruleset", "grid", "--deck", DECKS[0], "--vs", DECKS[1], "--games", "64", "--seed", "100",
            "--chunk", "16", "--workers", "2", "--out", str(out), "--json", "--quiet")
    assert r.exit_code == 0, r.output
    games = ds.dataset(out / "games").to_table().sort_by("seed")
    cards = ds.dataset(out / "cards").to_table()
    assert games.equals(reference.table)
    assert cards.num_rows == reference.cards.num_rows
    key = lambda t: sorted(tuple(-1 if v is None else v for v in row)
                           for row in zip(*(t.column(c).to_pylist() for c in t.column_names)))
    assert key(cards) == key(reference.cards)
    summary = json.loads(r.stdout)
    assert summary["wins"] == [int((reference.table.column("winner").to_numpy() == s).sum()) for s in (0, 1)]


def test_different_seeds_give_different_games(reference):
    t = reference.table
    outcomes = set(zip(*(t.column(c).to_pylist() for c in ("winner", "kill_points_0", "kill_points_1", "se_0",
                                                          "se_1", "actions"))))
    assert len(outcomes) > 20


# -- the tables ----------------------------------------------------------------------------------------
GAMES_SCHEMA = {
    "seed": pa.int64(), "winner": pa.int8(), "rounds": pa.int16(), "first_player": pa.int8(),
    "end_reason": pa.string(), "deck_0": pa.string(), "deck_1": pa.string(), "agent_0": pa.string(),
    "agent_1": pa.string(), "kill_points_0": pa.int16(), "kill_points_1": pa.int16(), "units_left_0": pa.int8(),
    "units_left_1": pa.int8(), "gold_0": pa.int32(), "gold_1": pa.int32(), "se_0": pa.int16(), "se_1": pa.int16(),
    "actions": pa.int32(),
}


def test_games_table_columns_and_dtypes(reference):
    t = reference.table
    assert {f.name: f.type for f in t.schema} == GAMES_SCHEMA
    assert t.column("seed").to_pylist() == list(range(100, 164))
    assert set(t.column("deck_0").to_pylist()) == {DECKS[0]} and set(t.column("agent_1").to_pylist()) == {"random"}
    assert set(t.column("end_reason").to_pylist()) <= {"kill_points", "round_limit", "elimination"}


def test_cards_table_columns_dtypes_and_one_row_per_card_instance(grid, reference):
    c = reference.cards
    assert {f.name: f.type for f in c.schema} == {
        "seed": pa.int64(), "player": pa.int8(), "card": pa.dictionary(pa.int16(), pa.string()),
        "drawn_round": pa.int16(), "played_round": pa.int16(), "died_round": pa.int16(), "kills": pa.int16()}
    # spec §2 Setup: each player's cards are its deck's main deck and its starting hero, each once
    names = grid.card_names
    want = []
    for side, d in enumerate(grid.cards.deck(x) for x in DECKS):
        want.append(Counter([names[d.hero], *(names[i] for i in d.main)]))
    rows = c.to_pylist()
    for seed in (100, 131, 163):
        for side in (0, 1):
            got = Counter(r["card"] for r in rows if r["seed"] == seed and r["player"] == side)
            assert got == want[side], (seed, side)


def test_cards_table_rounds_are_consistent(grid, reference):
    rows = reference.cards.to_pylist()
    games = {r["seed"]: r for r in reference.table.to_pylist()}
    heroes = {grid.card_names[grid.cards.deck(d).hero] for d in DECKS}
    for r in rows:
        if r["played_round"] is not None:
            assert r["drawn_round"] is not None and r["drawn_round"] <= r["played_round"]
        if r["died_round"] is not None:
            assert r["played_round"] is not None and r["played_round"] <= r["died_round"]
        assert r["drawn_round"] is None or r["drawn_round"] <= games[r["seed"]]["rounds"]
        assert r["kills"] >= 0
    starting = [r for r in rows if r["card"] in heroes and r["played_round"] == 1 and r["drawn_round"] == 1]
    assert len(starting) >= 2 * len(games)  # both starting heroes of every game
    # a kill is an enemy's death: a side's kills are at most the other side's dead cards
    for seed in games:
        for side in (0, 1):
            kills = sum(r["kills"] for r in rows if r["seed"] == seed and r["player"] == side)
            dead = sum(1 for r in rows if r["seed"] == seed and r["player"] == 1 - side and r["died_round"])
            assert kills <= dead
    assert any(r["kills"] for r in rows) and any(r["died_round"] for r in rows)


def test_pass_agent_never_plays_a_card(grid):
    cols = grid.play_tables(np.arange(20), DECKS, agents("random", "pass"))
    g, c = cols["games"], cols["cards"]
    assert set(g["agent_1"]) == {"pass"}
    passing = c["player"] == 1
    assert (c["played_round"][passing] <= 1).all()  # the starting hero only, on the board from round 1
    both = grid.play_tables(np.arange(5), DECKS, agents("pass", "pass"))["games"]
    assert (both["winner"] == -1).all() and (both["kill_points_0"] == 0).all()
    assert set(both["end_reason"]) == {"round_limit"}
    assert (both["rounds"] == grid.params.round_limit).all()


# -- the commands --------------------------------------------------------------------------------------
def test_simulate_json_with_decks_and_a_parameter():
    r = run("simulate", "--ruleset", "grid", "--deck", "arcane_circle", "--vs", "green_rangers", "--games", "30",
            "--param", "round_limit=6", "--json", "--quiet")
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    assert s["ruleset"] == "grid" and s["games"] == 30 and s["decks"] == ["arcane_circle", "green_rangers"]
    assert s["params"] == {"round_limit": 6} and s["mean_rounds"] <= 6


def test_simulate_on_another_map_by_name():
    r = run("simulate", "--ruleset", "grid", "--games", "10", "--param", "map=citadel", "--param", "width=10",
            "--param", "height=10", "--json", "--quiet")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["params"]["map"] == "citadel"


def test_decks_and_agents_list_grid():
    r = run("decks", "--ruleset", "grid")
    assert r.exit_code == 0 and set(DECKS) <= set(r.stdout.split())
    r = run("agents", "--ruleset", "grid")
    assert r.exit_code == 0
    kinds = dict(line.split(None, 1) for line in r.stdout.splitlines())
    assert kinds["random"].startswith("compiled") and kinds["pass"].startswith("compiled")
    assert kinds["greedy"].startswith("compiled") and kinds["lookahead"].startswith("compiled")


@pytest.mark.parametrize("args, words", [
    (["--deck", "nope"], ["unknown", "nope", "iron_vanguard"]),
    (["--param", "map=nope"], ["map", "nope", "crossroads"]),
    (["--param", "width=9"], ["8x8", "9x8", "even number"]),
    (["--param", "round_limit=abc"], ["round_limit", "not a number"]),
    (["--param", "bogus=1"], ["bogus", "unknown grid parameter"]),
    (["--param", "elimination=maybe"], ["elimination"]),
    (["--agents", "nosuch,random"], ["nosuch"]),
])
def test_bad_input_is_one_line(args, words):
    line = one_line_error(run("simulate", "--ruleset", "grid", "--games", "5", "--quiet", *args))
    for w in words:
        assert w in line, line


def test_replay_is_the_runs_game_action_by_action(grid, reference):
    seed = 117
    lines: list[str] = []
    row = grid.replay(seed, DECKS, agents(), write=lines.append)
    ref = next(r for r in reference.table.to_pylist() if r["seed"] == seed)
    assert row == ref
    # spec §4: one decision per line; grid.md 4.1.4: each player turn opens with its gold and hand
    turns = [x for x in lines if x.startswith("round ")]
    assert 2 * ref["rounds"] - 1 <= len(turns) <= 2 * ref["rounds"]
    assert sum(1 for x in lines if x.strip() == "ends the player turn") >= len(turns) - 1
    assert sum(1 for x in lines if x.startswith("  ")) >= ref["actions"]


def test_replay_command_prints_the_result():
    r = run("replay", "--ruleset", "grid", "--seed", "3", "--deck", DECKS[0], "--vs", DECKS[1])
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0].startswith("grid game seed 3")
    assert r.stdout.splitlines()[-1].startswith("result: winner")


def test_balance_round_robin(tmp_path):
    r = run("balance", "--ruleset", "grid", "--decks", ",".join(DECKS), "--games-per-pairing", "30",
            "--min-games", "10", "--out", str(tmp_path / "bal"))
    assert r.exit_code == 0, r.output
    b = json.loads((tmp_path / "bal" / "balance.json").read_text())
    assert b["game"]["games"] == 60
    assert b["cards"], "card rows from the grid cards table"


def test_sweep_over_a_grid_parameter(tmp_path):
    r = run("sweep", "--ruleset", "grid", "--decks", ",".join(DECKS), "--param", "round_limit=4,8",
            "--games-per-pairing", "10", "--min-games", "5", "--out", str(tmp_path / "sw"))
    assert r.exit_code == 0, r.output
    s = json.loads((tmp_path / "sw" / "sweep.json").read_text())
    assert len(s["points"]) == 2


def test_sweep_over_maps_by_name(tmp_path):
    # issue 16: "`balance --ruleset grid` and `sweep` (board size, map, income, kill-point threshold)"
    r = run("sweep", "--ruleset", "grid", "--decks", ",".join(DECKS), "--param", "map=crossroads,webwood",
            "--games-per-pairing", "6", "--min-games", "5", "--out", str(tmp_path / "sw"))
    assert r.exit_code == 0, r.output
    s = json.loads((tmp_path / "sw" / "sweep.json").read_text())
    assert [p["params"] for p in s["points"]] == [{"map": "crossroads"}, {"map": "webwood"}]
    assert (tmp_path / "sw" / "sweep.png").stat().st_size > 0
    line = one_line_error(run("sweep", "--ruleset", "grid", "--param", "map=crossroads,nope", "--games-per-pairing",
                              "6", "--out", str(tmp_path / "bad")))
    assert "nope" in line and "webwood" in line


def test_sweep_over_board_size(tmp_path):
    # issue 16: "`sweep` (board size, map, income, kill-point threshold)": one axis, square boards,
    # the map centred on each (ledger "Board size")
    r = run("sweep", "--ruleset", "grid", "--decks", ",".join(DECKS), "--param", "board_size=8,10,12",
            "--games-per-pairing", "6", "--min-games", "5", "--out", str(tmp_path / "sw"))
    assert r.exit_code == 0, r.output
    s = json.loads((tmp_path / "sw" / "sweep.json").read_text())
    assert [p["params"] for p in s["points"]] == [{"board_size": n} for n in (8, 10, 12)]
    assert all(p["games"] == 12 for p in s["points"])
    line = one_line_error(run("sweep", "--ruleset", "grid", "--param", "board_size=8,9", "--games-per-pairing",
                              "6", "--out", str(tmp_path / "bad")))
    assert "9x9" in line and "even number" in line


def test_a_board_size_plays_its_games_on_that_board():
    small = get_ruleset("grid").load()
    big = get_ruleset("grid").load(params={"board_size": 12})
    assert (big.tables.board.width, big.tables.board.height) == (12, 12)
    seeds = np.arange(40, dtype=np.int64)
    a, b = small.play(seeds, DECKS, agents()), big.play(seeds, DECKS, agents())
    assert len(b["seed"]) == 40 and (b["rounds"] <= big.params.round_limit).all()
    assert not np.array_equal(a["actions"], b["actions"]), "another board, other games"

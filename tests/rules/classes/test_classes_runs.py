"""classes batches through the runner (issue 15: `battlesim simulate --ruleset classes`, `balance`,
`sweep`, `replay`, `keywords`): the determinism contract of DESIGN.md ("A game's result depends
only on its seed, its decks, its agents and the ruleset parameters: not on batch size, on which
other games share its batch, on chunking"), the games and cards tables, and the commands."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds
import pytest
from typer.testing import CliRunner

from battlesim.ecs.cli import app
from battlesim.ecs.ruleset import get_ruleset
from battlesim.ecs.runs.runner import RunConfig, simulate

DECKS = ("paladin_bulwark", "warlock_pact")
runner = CliRunner()


@pytest.fixture(scope="module")
def classes():
    return get_ruleset("classes").load()


@pytest.fixture(scope="module")
def reference(classes):
    """Seeds 100..147 played as one chunk of 48, with the cards table."""
    return simulate(RunConfig(ruleset="classes", games=48, seed=100, decks=DECKS, chunk=48), game=classes, cards=True)


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
@pytest.mark.parametrize("agents", [("random", "random"), ("greedy", "random")])
def test_a_game_plays_the_same_alone_and_in_a_batch(classes, agents):
    seeds = np.arange(100, 124)
    batch = classes.play_tables(seeds, DECKS, agents)
    for seed in (100, 111, 123):
        alone = classes.play_tables(np.array([seed]), DECKS, agents)
        for table in ("games", "cards"):
            assert by_seed(alone[table], seed) == by_seed(batch[table], seed), (table, seed)
            assert by_seed(alone[table], seed)


@pytest.mark.parametrize("chunk", [1, 7])
def test_any_chunking_gives_the_same_tables(classes, reference, chunk):
    games = 48 if chunk > 1 else 10
    got = simulate(RunConfig(ruleset="classes", games=games, seed=100, decks=DECKS, chunk=chunk), game=classes,
                   cards=True)
    assert got.table.equals(reference.table.slice(0, games))
    first = pa.compute.less(reference.cards.column("seed"), 100 + games)
    assert got.cards.equals(reference.cards.filter(first))


def test_threads_give_the_same_tables(classes, reference, monkeypatch):
    monkeypatch.setenv("BATTLESIM_THREADS", "2")
    got = simulate(RunConfig(ruleset="classes", games=48, seed=100, decks=DECKS, chunk=48), game=classes, cards=True)
    assert got.table.equals(reference.table)
    assert got.cards.equals(reference.cards)


def test_a_batch_reusing_the_last_ones_arrays_starts_as_a_new_batch():
    # DESIGN.md: "A game's result depends only on its seed, its decks, its agents and the ruleset
    # parameters": not on the batch whose arrays play_tables reuses (games.empty_games)
    from battlesim.systems.classes.games import empty_games, keep, play_batch
    from battlesim.systems.classes.state import new_game

    game = get_ruleset("classes").load({"life": 15})
    played = play_batch(game, DECKS, np.arange(16), agents=(1, 0)).G  # greedy vs random, played out
    cards = played.tally.shape[2]
    keep(game, played)
    assert empty_games(game, 8, cards, reuse=True) is not played  # another batch size: new arrays
    keep(game, played)
    refilled = empty_games(game, 16, cards, reuse=True)
    assert refilled is played and not game.spare  # taken
    for got, new in zip(refilled, new_game(16, cards, life=15, turn_limit=game.params.turn_limit,
                                          base_defense=game.params.base_defense)):
        assert got.dtype == new.dtype and np.array_equal(got, new)
    seeds = np.arange(300, 332)
    game.play_tables(seeds - 100, DECKS, ("random", "random"))
    reused = game.play_tables(seeds, DECKS, ("greedy", "random"))  # in the arrays of the batch before
    new = get_ruleset("classes").load({"life": 15}).play_tables(seeds, DECKS, ("greedy", "random"))
    for table in ("games", "cards"):
        assert reused[table].keys() == new[table].keys()
        assert all(np.array_equal(reused[table][k], new[table][k]) for k in new[table]), table


def test_different_seeds_give_different_games(reference):
    t = reference.table
    outcomes = set(zip(*(t.column(c).to_pylist() for c in ("winner", "turns", "life_0", "life_1", "cast_0"))))
    assert len(outcomes) > 20


# -- the tables ----------------------------------------------------------------------------------------
GAMES_SCHEMA = {
    "seed": pa.int64(), "winner": pa.int8(), "rounds": pa.int16(), "first_player": pa.int8(),
    "end_reason": pa.string(), "deck_0": pa.string(), "deck_1": pa.string(), "agent_0": pa.string(),
    "agent_1": pa.string(), "turns": pa.int16(),
    **{f"{name}_{s}": t for name, t in (("life", pa.int16()), ("level", pa.int8()), ("experience", pa.int16()),
                                         ("cast", pa.int16()), ("summoned", pa.int16()), ("kills", pa.int16()))
       for s in (0, 1)},
}


def test_games_table_columns_and_dtypes(reference):
    t = reference.table
    assert {f.name: f.type for f in t.schema} == GAMES_SCHEMA
    assert t.column("seed").to_pylist() == list(range(100, 148))
    assert set(t.column("end_reason").to_pylist()) <= {"life", "turn_limit"}
    for r in t.to_pylist():
        # choice 21: "The game ends at once when a player's life is <= 0: the other player wins"
        if r["end_reason"] == "life" and r["winner"] >= 0:
            assert r[f"life_{1 - r['winner']}"] <= 0 < r[f"life_{r['winner']}"]
        assert r["level_0"] >= 1 and r["level_1"] >= 1 and r["rounds"] == r["turns"]


def test_cards_table_rows_and_tallies(classes, reference):
    c = reference.cards
    assert {f.name: f.type for f in c.schema} == {
        "seed": pa.int64(), "player": pa.int8(), "card": pa.dictionary(pa.int16(), pa.string()),
        "drawn_round": pa.int16(), "played_round": pa.int16(), "died_round": pa.int16(), "cast": pa.int16(),
        "summoned": pa.int16(), "kills": pa.int16()}
    rows = c.to_pylist()
    games = {r["seed"]: r for r in reference.table.to_pylist()}
    # classes.md "Setup": the starting hand is the deck's hand: every card of it has a row, drawn on turn 1
    for seed in (100, 130):
        for side, d in enumerate(DECKS):
            got = {r["card"] for r in rows if r["seed"] == seed and r["player"] == side and r["drawn_round"] == 1}
            assert got == set(classes.decks[d].hand), (seed, side)
    for seed, g in games.items():
        for side in (0, 1):
            mine = [r for r in rows if r["seed"] == seed and r["player"] == side]
            assert sum(r["cast"] for r in mine) == g[f"cast_{side}"]
            assert sum(r["kills"] for r in mine) <= g[f"kills_{side}"]
    for r in rows:
        if r["played_round"] is not None:
            assert r["cast"] >= 1 and r["played_round"] <= games[r["seed"]]["turns"]
        if r["died_round"] is not None:
            assert r["summoned"] >= 1
    assert any(r["kills"] for r in rows) and any(r["died_round"] for r in rows)


# -- the commands --------------------------------------------------------------------------------------
def test_simulate_json_with_decks_agents_and_a_parameter():
    r = run("simulate", "--ruleset", "classes", "--deck", "paladin_vanguard", "--vs", "warlock_legion", "--games",
            "30", "--param", "life=8", "--agents", "greedy,random", "--json", "--quiet")
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    assert s["ruleset"] == "classes" and s["games"] == 30 and s["decks"] == ["paladin_vanguard", "warlock_legion"]
    assert s["params"] == {"life": 8}


def test_a_lower_life_makes_shorter_games(classes):
    short = get_ruleset("classes").load({"life": 5}).play(np.arange(40), DECKS, ("random", "random"))
    full = classes.play(np.arange(40), DECKS, ("random", "random"))
    assert short["turns"].mean() < full["turns"].mean()
    limited = get_ruleset("classes").load({"turn_limit": 4}).play(np.arange(10), DECKS, ("random", "random"))
    assert set(limited["end_reason"]) <= {"turn_limit", "life"} and (limited["turns"] <= 4).all()


def test_agents_lists_classes_agents_as_compiled():
    r = run("agents", "--ruleset", "classes")
    assert r.exit_code == 0
    kinds = dict(line.split(None, 1) for line in r.stdout.splitlines())
    assert kinds["random"].startswith("compiled") and kinds["greedy"].startswith("compiled")


@pytest.mark.parametrize("args, words", [
    (["--deck", "nope"], ["nope", "paladin_bulwark"]),
    (["--param", "life=abc"], ["life"]),
    (["--param", "bogus=1"], ["bogus"]),
    (["--param", "shapes=4"], ["shapes=4", "5 shapes"]),
    (["--agents", "pass,random"], ["pass", "classes agents"]),
])
def test_bad_input_is_one_line(args, words):
    line = one_line_error(run("simulate", "--ruleset", "classes", "--games", "5", "--quiet", *args))
    for w in words:
        assert w in line, line


def test_balance_round_robin(tmp_path):
    r = run("balance", "--ruleset", "classes", "--decks", ",".join(DECKS), "--games-per-pairing", "30",
            "--min-games", "10", "--out", str(tmp_path / "bal"))
    assert r.exit_code == 0, r.output
    b = json.loads((tmp_path / "bal" / "balance.json").read_text())
    assert b["game"]["games"] == 60
    assert b["cards"], "card rows from the classes cards table"


def test_sweep_over_life(tmp_path):
    r = run("sweep", "--ruleset", "classes", "--decks", ",".join(DECKS), "--param", "life=10,20",
            "--games-per-pairing", "10", "--min-games", "5", "--out", str(tmp_path / "sw"))
    assert r.exit_code == 0, r.output
    s = json.loads((tmp_path / "sw" / "sweep.json").read_text())
    assert len(s["points"]) == 2


def test_two_workers_into_a_run_directory_write_the_in_process_tables(reference, tmp_path):
    out = tmp_path / "run"
    r = run("simulate", "--ruleset", "classes", "--deck", DECKS[0], "--vs", DECKS[1], "--games", "48", "--seed",
            "100", "--chunk", "16", "--workers", "2", "--out", str(out), "--json", "--quiet")
    assert r.exit_code == 0, r.output
    games = ds.dataset(out / "games").to_table().sort_by("seed")
    assert games.equals(reference.table)
    assert ds.dataset(out / "cards").to_table().num_rows == reference.cards.num_rows


# -- replay --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("agents", [("random", "random"), ("greedy", "random")])
def test_replay_is_the_runs_game(classes, agents):
    seed = 111
    lines: list[str] = []
    row = classes.replay(seed, DECKS, agents, write=lines.append)
    ref = simulate(RunConfig(ruleset="classes", games=1, seed=seed, decks=DECKS, agents=agents), game=classes)
    assert row == ref.table.to_pylist()[0]
    text = "\n".join(lines)
    turns = [x for x in lines if x.startswith("turn ")]
    assert len(turns) == row["turns"]
    # each phase written: classes.md "Begin Phase", "Main Phase", the Battle Phase's acts, "End Phase"
    for words in ("Begin Phase (mana refreshed", "mana pool", "Main Phase", "acts (search rule:", "casts",
                  "summoned", "dies", "experience", "LEVEL UP", "End Phase (the Nether returns", "regains from the Nether"):
        assert words in text, words


def test_replay_command_prints_the_result():
    r = run("replay", "--ruleset", "classes", "--seed", "3", "--deck", DECKS[0], "--vs", DECKS[1])
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0].startswith("classes game seed 3")
    assert "turn 1: P1" in r.stdout  # choice 25: an odd seed's game begins with seat 1
    assert r.stdout.splitlines()[-1].startswith("result: winner")


# -- keywords ------------------------------------------------------------------------------------------
def test_keywords_lists_conditions_keywords_ops_and_systems():
    r = run("keywords", "--ruleset", "classes", "--json")
    assert r.exit_code == 0, r.output
    entries = json.loads(r.stdout)["entries"]
    names = {(e["kind"], e["name"]) for e in entries}
    # classes.md "Components": "Condition tokens (Haste, Stun, Turnover, Chill, Antimagic, Snare)"
    for c in ("haste", "stun", "turnover", "chill", "antimagic", "snare"):
        assert ("condition", c) in names
    for k in ("shield", "ferocious", "grounded", "momentum", "ethereal"):
        assert ("keyword", k) in names
    for o in ("damage", "heal", "enchant", "unleash", "summon", "gain_mana", "kill"):
        assert ("opcode", o) in names
    for s in ("mana_step", "enchantments_step", "act_step", "end_phase"):
        assert ("system", s) in names
    assert all(e["doc"] for e in entries)
    r = run("keywords", "--ruleset", "classes", "--kind", "condition", "--json")
    assert {e["kind"] for e in json.loads(r.stdout)["entries"]} == {"condition"}


# -- first player, level thresholds, rows, flanking in the replay -----------------------------------------
def test_the_first_player_alternates_with_the_seed(classes):
    # spec choice 25: "First player: seat 0 by default, alternated by the runner"
    ref = simulate(RunConfig(ruleset="classes", games=40, seed=7, decks=DECKS), game=classes).table.to_pydict()
    assert ref["first_player"] == [s % 2 for s in ref["seed"]]
    lines: list[str] = []
    classes.replay(7, DECKS, ("random", "random"), write=lines.append)
    assert "P1 begins" in lines[0] and any(x.startswith("turn 1: P1") for x in lines)
    assert not any(x.startswith("turn 1: P0") for x in lines)


def test_level_thresholds_are_a_parameter_and_a_sweep_axis(classes, tmp_path):
    # issue 15: "sweep over the class parameters (life, rows, level thresholds)"
    seeds = np.arange(60)
    base = classes.play(seeds, DECKS, ("random", "random"))
    easy = get_ruleset("classes").load({"level_threshold_offset": -3}).play(seeds, DECKS, ("random", "random"))
    hard = get_ruleset("classes").load({"level_threshold_offset": 10}).play(seeds, DECKS, ("random", "random"))
    levels = [(t["level_0"].astype(float) + t["level_1"]).mean() for t in (easy, base, hard)]
    assert levels[0] > levels[1] > levels[2], levels
    r = run("sweep", "--ruleset", "classes", "--decks", ",".join(DECKS), "--param", "level_threshold_offset=-2,0,4",
            "--games-per-pairing", "10", "--min-games", "5", "--out", str(tmp_path / "sw"))
    assert r.exit_code == 0, r.output
    assert len(json.loads((tmp_path / "sw" / "sweep.json").read_text())["points"]) == 3


def test_a_sweep_over_rows_plays_each_board(tmp_path):
    # issue 15: "sweep over the class parameters (life, rows, level thresholds)"; spec choice 1: rows
    # is a parameter (ledger R5: each batch's unit array and board tables are laid out for its rows)
    r = run("sweep", "--ruleset", "classes", "--decks", ",".join(DECKS), "--param", "rows=4,6,8",
            "--games-per-pairing", "4", "--min-games", "1", "--out", str(tmp_path / "sw"), "--quiet")
    assert r.exit_code == 0, r.output
    points = json.loads((tmp_path / "sw" / "sweep.json").read_text())["points"]
    assert len(points) == 3, points


def test_the_replay_shows_each_attack_with_defence_and_flanking(classes):
    # issue 15 replay: "each unit's act (advance, target chosen by the search rule, damage, flanking, defence)"
    import re

    pattern = re.compile(r"attacks (.+) with Attack (\d+): (not defending, no defence|defending, defence (\d+) = "
                         r"base (\d+) \+ shield (\d+) - (\d+) flankers? \((not )?flanked\)); damage (\d+)")
    seen = {"plain": 0, "defending": 0, "flanked": 0}
    for seed in range(12):
        lines: list[str] = []
        classes.replay(seed, DECKS, ("greedy", "random"), write=lines.append)
        for line in lines:
            m = pattern.search(line)
            if not m:
                assert " attacks " not in line or "attacks player" in line, line
                continue
            atk, dmg = int(m.group(2)), int(m.group(9))
            if m.group(4) is None:
                seen["plain"] += 1
                assert dmg <= atk
            else:
                seen["defending"] += 1
                base, shield, flankers = int(m.group(5)), int(m.group(6)), int(m.group(7))
                seen["flanked"] += flankers > 0
                # classes.md: flanking foes lower the defence, not below 0
                assert int(m.group(4)) == max(0, base + shield - flankers), line
                # classes.md: "A defending unit reduces incoming damage from attacks by its defense value"
                assert dmg <= max(0, atk - int(m.group(4))), line
    assert all(seen.values()), seen

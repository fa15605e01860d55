"""Hex battles through the runner (issue 14 part b: `battlesim simulate --ruleset hex`, `replay`,
`balance`): the determinism contract of DESIGN.md ("A game's result depends only on its seed, its
decks, its agents and the ruleset parameters: not on batch size, on which other games share its
batch, on chunking", nor threads), the games and cards tables, and the commands."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest
from typer.testing import CliRunner

from battlesim.ecs.cli import app
from battlesim.ecs.decisions import make_agent
from battlesim.ecs.ruleset import get_ruleset
from battlesim.ecs.runs.runner import RunConfig, simulate

DECKS = ("gale_blitz", "thorn_blitz")
runner = CliRunner()


@pytest.fixture(scope="module")
def hexgame():
    return get_ruleset("hex").load()


@pytest.fixture(scope="module")
def reference(hexgame):
    """Seeds 100..163 played as one chunk of 64, with the cards table."""
    return simulate(RunConfig(ruleset="hex", games=64, seed=100, decks=DECKS, chunk=64), game=hexgame, cards=True)


def agents(a: str = "random", b: str = "random") -> list:
    return [make_agent(a), make_agent(b)]


def by_seed(cols: dict[str, np.ndarray], seed: int) -> list[tuple]:
    rows = np.flatnonzero(cols["seed"] == seed)
    return [tuple(v[i].item() if hasattr(v[i], "item") else v[i] for v in cols.values()) for i in rows]


def run(*args: str):
    return runner.invoke(app, list(args))


def test_a_game_plays_the_same_alone_and_in_a_batch(hexgame):
    seeds = np.arange(100, 164)
    for who in (("random", "random"), ("greedy", "random")):
        batch = hexgame.play_tables(seeds, DECKS, agents(*who))
        for seed in (100, 131, 163):
            alone = hexgame.play_tables(np.array([seed]), DECKS, agents(*who))
            for table in ("games", "cards"):
                assert by_seed(alone[table], seed) == by_seed(batch[table], seed), (who, table, seed)


def test_a_refilled_batch_plays_as_a_new_one_and_its_tables_are_copies():
    """``play_tables`` refills its last batch in place for the next chunk of the same armies and
    size (``HexBatch.refilled``): the games are a new batch's, and the tables it returned before
    are left as they were (copies, not views of the refilled arrays)."""
    game = get_ruleset("hex").load()
    first = game.play_tables(np.arange(32), DECKS, agents("greedy", "random"))
    kept = {t: {k: v.copy() for k, v in cols.items()} for t, cols in first.items()}
    again = game.play_tables(np.arange(200, 232), DECKS, agents())  # refilled: same armies, same size
    assert game._last_batch is not None and len(game._last_batch.seeds) == 32
    fresh = get_ruleset("hex").load().play_tables(np.arange(200, 232), DECKS, agents())
    for table in ("games", "cards"):
        assert all(np.array_equal(first[table][k], kept[table][k]) for k in kept[table]), table
        assert all(np.array_equal(again[table][k], fresh[table][k]) for k in fresh[table]), table


@pytest.mark.parametrize("chunk", [5, 16])
def test_any_chunking_gives_the_same_tables(hexgame, reference, chunk):
    got = simulate(RunConfig(ruleset="hex", games=64, seed=100, decks=DECKS, chunk=chunk), game=hexgame, cards=True)
    assert got.table.equals(reference.table)


def test_threads_give_the_same_tables(hexgame, reference, monkeypatch):
    monkeypatch.setenv("BATTLESIM_THREADS", "2")
    got = simulate(RunConfig(ruleset="hex", games=64, seed=100, decks=DECKS, chunk=64), game=hexgame, cards=True)
    assert got.table.equals(reference.table)
    assert got.cards.equals(reference.cards)


GAMES_SCHEMA = {
    "seed": pa.int64(), "winner": pa.int8(), "rounds": pa.int16(), "first_player": pa.int8(),
    "end_reason": pa.string(), "deck_0": pa.string(), "deck_1": pa.string(), "agent_0": pa.string(),
    "agent_1": pa.string(), "centre_holder": pa.int8(), "units_left_0": pa.int8(), "units_left_1": pa.int8(),
    "decisions": pa.int32(),
}


def test_games_table_columns_and_the_victory_rule(reference):
    # spec §2.11: winner, first_player, rounds, end_reason, centre_holder, units_left_0/1; hex.md
    # "Victory is achieved for the first player only if they control the central hex at the end of
    # the 7th round. Otherwise, the second player wins."
    t = reference.table
    assert {f.name: f.type for f in t.schema} == GAMES_SCHEMA
    for r in t.to_pylist():
        if r["end_reason"] == "centre":
            assert r["rounds"] == 7
            assert r["winner"] == (r["first_player"] if r["centre_holder"] == r["first_player"] else 1 - r["first_player"])
        else:
            assert r["end_reason"] == "no_units" and r["winner"] == 1 - r["first_player"]


def test_cards_table_one_row_per_unit_and_kills_are_enemy_deaths(hexgame, reference):
    c = reference.cards
    assert {f.name: f.type for f in c.schema} == {
        "seed": pa.int64(), "player": pa.int8(), "card": pa.dictionary(pa.int16(), pa.string()),
        "drawn_round": pa.int16(), "played_round": pa.int16(), "died_round": pa.int16(), "kills": pa.int16()}
    rows = c.to_pylist()
    games = {r["seed"]: r for r in reference.table.to_pylist()}
    want = {side: sorted([hexgame.kingdoms[d].hero] + [u[0] for u in hexgame.kingdoms[d].placed[1:]])
            for side, d in enumerate(DECKS)}
    for seed in (100, 140):
        for side in (0, 1):
            assert sorted(r["card"] for r in rows if r["seed"] == seed and r["player"] == side) == want[side]
    for seed, g in games.items():
        for side in (0, 1):
            mine = [r for r in rows if r["seed"] == seed and r["player"] == side]
            assert sum(r["died_round"] is None for r in mine) >= g[f"units_left_{side}"] - 0  # returned Undying stay alive
            kills = sum(r["kills"] for r in mine)
            dead = sum(1 for r in rows if r["seed"] == seed and r["player"] == 1 - side and r["died_round"])
            assert kills <= dead
            assert all(r["died_round"] is None or 1 <= r["died_round"] <= g["rounds"] for r in mine)
    assert any(r["kills"] for r in rows) and any(r["died_round"] for r in rows)


def test_replay_is_the_runs_game_action_by_action(hexgame, reference):
    seed = 117
    lines: list[str] = []
    row = hexgame.replay(seed, DECKS, agents(), write=lines.append)
    ref = next(r for r in reference.table.to_pylist() if r["seed"] == seed)
    assert row == ref
    assert sum(1 for x in lines if x.startswith("  ") and not x.startswith("    ")
               and not x.startswith("  side")) == ref["decisions"]
    assert any(" damage " in x and "health -" in x for x in lines)  # damage by type, reductions, health lost
    assert lines[-1].startswith(("victory check after round 7", "early end"))


def test_replay_and_simulate_commands():
    r = run("replay", "--ruleset", "hex", "--seed", "3", "--deck", DECKS[0], "--vs", DECKS[1], "--agents", "greedy,random")
    assert r.exit_code == 0, r.output
    out = r.stdout.splitlines()
    assert out[0].startswith("hex battle seed 3") and out[-1].startswith("result: winner")
    r = run("simulate", "--ruleset", "hex", "--games", "40", "--agents", "greedy,random", "--json", "--quiet")
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    assert s["ruleset"] == "hex" and s["games"] == 40 and s["draws"] == 0


@pytest.mark.parametrize("args, words", [
    (["--param", "format=sealed"], ["format", "blitz"]),
    (["--param", "bogus=1"], ["bogus"]),
    (["--agents", "nobody,random"], ["nobody"]),
    (["--deck", "ember_draft"], ["ember_draft"]),
])
def test_bad_input_is_one_line(args, words):
    r = run("simulate", "--ruleset", "hex", "--games", "5", "--quiet", *args)
    assert r.exit_code == 2, r.output
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, r.stderr
    for w in words:
        assert w in lines[0], lines[0]


def test_agents_and_balance(tmp_path):
    r = run("agents", "--ruleset", "hex")
    assert r.exit_code == 0
    kinds = dict(line.split(None, 1) for line in r.stdout.splitlines())
    assert all(kinds[a].startswith("compiled") for a in ("random", "pass", "greedy"))
    r = run("balance", "--ruleset", "hex", "--games-per-pairing", "20", "--min-games", "5", "--out", str(tmp_path / "bal"))
    assert r.exit_code == 0, r.output
    b = json.loads((tmp_path / "bal" / "balance.json").read_text())
    assert b["game"]["games"] == 20 * 12


def test_keywords_lists_every_hex_word():
    # issue 14: "`battlesim keywords --ruleset hex`": the words a card file may name (vocabulary.py:
    # 32 keywords, 12 statuses, 3 damage types, 14 ops, 8 selectors) beside the damage stages
    from battlesim.systems.hex.vocabulary import DAMAGE_TYPES, KEYWORDS, OPS, SELECTORS, STATUSES

    r = run("keywords", "--ruleset", "hex", "--json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)["entries"]
    names = {(e["kind"], e["name"]) for e in rows}
    for kind, words in (("keyword", KEYWORDS), ("status", STATUSES), ("damage_type", DAMAGE_TYPES),
                        ("opcode", OPS), ("selector", SELECTORS)):
        assert {(kind, w) for w in words} <= names, kind
    assert ("damage_stage", "shield") in names
    assert all(e["doc"] for e in rows)

"""`battlesim simulate` and `battlesim replay` with run directories (issue 12): bad `--out`,
huge `--games`, seeds leaving int64, empty names and a tampered `run.json` get one line and
exit status 2, never a traceback; `--restart`; `--decks`; `replay RUNDIR --seed S` takes the
run's decks, agents, parameters and plugins; a run stopped by a rule error names the seed and
the card (exit 1)."""

import json
import os
import shutil

import pytest
from typer.testing import CliRunner

from battlesim.data import data_dir
from battlesim.ecs.cli import app
from fault_plugin import armed

runner = CliRunner()
SMALL = ["--games", "20", "--chunk", "10", "--agents", "pass,random", "--quiet"]


def run(*args: str):
    return runner.invoke(app, list(args))


def one_line_error(r, code=2):
    assert r.exit_code == code, r.output
    assert "Traceback" not in r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, r.stderr
    return lines[0]


def test_out_that_is_a_file_under_a_file_or_dev_null_is_refused(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    assert "not a directory" in one_line_error(run("simulate", *SMALL, "--out", str(f)))
    assert "cannot create the run directory" in one_line_error(run("simulate", *SMALL, "--out", str(f / "run")))
    assert "not a directory" in one_line_error(run("simulate", *SMALL, "--out", os.devnull))
    assert f.read_text() == "x"


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_read_only_out_is_refused(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        assert "--out" in one_line_error(run("simulate", *SMALL, "--out", str(ro / "run")))
        assert "--out" in one_line_error(run("simulate", *SMALL, "--out", str(ro)))
    finally:
        ro.chmod(0o755)


def test_a_read_only_out_is_refused_even_for_root(tmp_path, monkeypatch):
    from pathlib import Path

    def read_only(self, *a, **k):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", read_only)
    line = one_line_error(run("simulate", *SMALL, "--out", str(tmp_path / "run")))
    assert "cannot create the run directory (Permission denied)" in line


@pytest.mark.parametrize("args, words", [
    (["--games", str(10**20)], "--games must be at most 10,000,000,000"),
    (["--games", "0"], "--games must be at least 1"),
    (["--seed", str(2**63 - 5), "--games", "10"], "the 64-bit range a seed is stored in"),
    (["--seed", str(-(2**63) - 1), "--games", "1"], "the 64-bit range a seed is stored in"),
    (["--deck", ""], "--deck: an empty name"),
    (["--vs", " "], "--vs: an empty name"),
    (["--out", ""], "--out: an empty name"),
    (["--cards", ""], "--cards: an empty name"),
    (["--decks", ""], "--decks: an empty name"),
    (["--plugin", ""], "--plugin: an empty name"),
    (["--decks", "/nonexistent/decks"], "--decks /nonexistent/decks: no such directory"),
    (["--chunk-timeout", "-1"], "--chunk-timeout must be at least 0"),
    (["--games", str(10**9), "--chunk", "1"], "into more than 10,000,000 chunks"),
    (["--restart"], "--restart starts an --out run directory over: give --out"),
])
def test_nonsense_options_get_one_line(args, words):
    line = one_line_error(run("simulate", "--games", "10", "--quiet", *args))
    assert words in line


@pytest.mark.parametrize("seed", [str(2**63), str(-(2**63) - 1), "99999999999999999999"])
def test_replay_of_a_seed_outside_int64_gets_one_line(seed):
    assert "leaves the 64-bit range" in one_line_error(run("replay", "--seed", seed))


def test_a_tampered_run_json_gets_one_line_and_restart_starts_over(tmp_path):
    out = tmp_path / "run"
    assert run("simulate", *SMALL, "--out", str(out)).exit_code == 0
    (out / "run.json").write_text('{"format": 3, "games": -1}')
    line = one_line_error(run("simulate", *SMALL, "--out", str(out)))
    assert "run.json" in line and "--restart" in line
    r = run("simulate", *SMALL, "--out", str(out), "--restart", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["games_played"] == 20


def test_an_edited_card_is_refused_and_restart_plays_it(tmp_path):
    cards = tmp_path / "cards"
    shutil.copytree(data_dir() / "cards" / "lanes", cards)
    out = tmp_path / "run"
    args = ["simulate", *SMALL, "--cards", str(cards), "--out", str(out), "--json"]
    assert run(*args).exit_code == 0
    blue = cards / "blue.toml"
    blue.write_text(blue.read_text() + "\n")
    line = one_line_error(run(*args))
    assert "card file blue.toml" in line and "changed" in line and "--restart" in line
    r = run(*args, "--restart")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["games_played"] == 20


def test_replay_rundir_takes_the_runs_options(tmp_path):
    decks = tmp_path / "decks"
    shutil.copytree(data_dir() / "decks" / "lanes", decks)
    (decks / "my_deck.toml").write_text((decks / "green_grove.toml").read_text())
    out = tmp_path / "run"
    r = run("simulate", "--games", "12", "--seed", "40", "--chunk", "6", "--deck", "my_deck", "--vs", "blue_tide",
            "--agents", "pass,random", "--param", "anchor_hp=25", "--decks", str(decks), "--out", str(out), "--quiet")
    assert r.exit_code == 0, r.output
    from_run = run("replay", str(out), "--seed", "47")
    by_hand = run("replay", "--seed", "47", "--deck", "my_deck", "--vs", "blue_tide", "--agents", "pass,random",
                  "--param", "anchor_hp=25", "--decks", str(decks))
    assert from_run.exit_code == 0 and by_hand.exit_code == 0, from_run.output + by_hand.output
    assert from_run.stdout == by_hand.stdout and "my_deck" in from_run.stdout
    import pyarrow.dataset as ds

    row = ds.dataset(out / "games").to_table().filter(ds.field("seed") == 47).to_pylist()[0]
    assert f"rounds {row['rounds']}" in from_run.stdout.splitlines()[-1]
    assert "not a game of the run" in one_line_error(run("replay", str(out), "--seed", "52"))
    assert "RUNDIR gives the run's options" in one_line_error(run("replay", str(out), "--seed", "47", "--vs", "red_vanguard"))
    assert "not a run directory" in one_line_error(run("replay", str(tmp_path), "--seed", "47"))
    (decks / "my_deck.toml").write_text((decks / "my_deck.toml").read_text() + "\n")
    line = one_line_error(run("replay", str(out), "--seed", "47"))
    assert "cannot be replayed as it was played" in line and "deck my_deck" in line


def test_replay_rundir_loads_the_runs_plugins(tmp_path):
    from battlesim.ecs.plugin import isolated

    with isolated():
        replay_with_a_plugin(tmp_path)


def replay_with_a_plugin(tmp_path):
    plugin = tmp_path / "replay_plugin_probe.py"
    plugin.write_text('"""A plugin that declares nothing."""\n')
    out = tmp_path / "run"
    assert run("simulate", *SMALL, "--plugin", str(plugin), "--out", str(out)).exit_code == 0
    assert json.loads((out / "run.json").read_text())["identity"]["load"]["plugins"] == [str(plugin)]
    assert run("replay", str(out), "--seed", "3").exit_code == 0


def test_a_rule_error_stops_the_run_naming_the_seed_and_the_card(tmp_path):
    # the issue: "a chunk that fails the same way twice on the same seeds (a rule error is
    # deterministic) stops the run at once, naming the seed and the card or rule involved"
    with armed(tmp_path, "13:raise") as (plugin,):
        r = run("simulate", *SMALL, "--plugin", plugin, "--out", str(tmp_path / "run"), "--retries", "4")
    assert r.exit_code == 1, r.output
    stop = [line for line in r.stderr.splitlines() if "run stopped" in line]
    assert len(stop) == 1 and "seed 13:" in stop[0] and "card 'Test Fault'" in stop[0] and "failed twice the same way" in stop[0]
    assert r.stderr.count("retrying") == 1 and "Traceback" not in r.output


def test_decks_lists_and_validates_a_designers_deck_folder(tmp_path):
    decks = tmp_path / "decks"
    shutil.copytree(data_dir() / "decks" / "lanes", decks)
    (decks / "my_deck.toml").write_text((decks / "green_grove.toml").read_text())
    r = run("decks", "--decks", str(decks))
    assert r.exit_code == 0 and "my_deck" in r.stdout.split()
    assert "no such directory" in one_line_error(run("decks", "--decks", str(tmp_path / "nope")))
    assert "an empty name" in one_line_error(run("decks", "--decks", ""))


def test_balance_plays_a_designers_decks_and_refuses_a_changed_one_until_restart(tmp_path):
    # the issue: "a run can silently lie ... (balance too)"
    decks = tmp_path / "decks"
    shutil.copytree(data_dir() / "decks" / "lanes", decks)
    (decks / "my_deck.toml").write_text((decks / "green_grove.toml").read_text())
    out = tmp_path / "bal"
    args = ["balance", "--decks", "my_deck,blue_tide", "--decks-dir", str(decks), "--games-per-pairing", "10",
            "--min-games", "1", "--agents", "pass,random", "--out", str(out), "--json"]
    r = run(*args)
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["meta"]["decks"] == ["my_deck", "blue_tide"]
    (decks / "my_deck.toml").write_text((decks / "my_deck.toml").read_text() + "\n")
    line = one_line_error(run(*args))
    assert "deck my_deck" in line and "changed since the run started" in line and "--restart" in line
    assert run(*args, "--restart").exit_code == 0
    nope = [a if a != str(decks) else str(tmp_path / "nope") for a in args]
    assert "--decks-dir" in one_line_error(run(*nope))


def test_a_full_disk_stops_the_run_in_one_line_with_exit_1_keeping_the_shards(tmp_path):
    # the issue: "a full disk stops it at once with a clear message"
    out = tmp_path / "run"
    with armed(tmp_path, "15:enospc") as (plugin,):
        r = run("simulate", *SMALL, "--plugin", plugin, "--out", str(out))
    line = one_line_error(r, code=1)
    assert "run stopped" in line and "seeds 10..19" in line and "No space left on device" in line
    assert "kept" in line and "retrying" not in r.stderr
    assert [p.name for p in (out / "games").glob("part-*")] == ["part-00000000000000000000-10.parquet"]


def test_sweep_plays_a_designers_decks(tmp_path):
    decks = tmp_path / "decks"
    shutil.copytree(data_dir() / "decks" / "lanes", decks)
    (decks / "my_deck.toml").write_text((decks / "green_grove.toml").read_text())
    out = tmp_path / "sweep"
    args = ["sweep", "--param", "anchor_hp=25,30", "--decks", "my_deck,blue_tide", "--decks-dir", str(decks),
            "--games-per-pairing", "40", "--min-games", "1", "--out", str(out), "--json"]
    r = run(*args)
    assert r.exit_code == 0, r.output
    result = json.loads(r.stdout)
    assert result["meta"]["decks_dir"] == str(decks) and set(result["points"][0]["decks"]) == {"my_deck", "blue_tide"}
    (decks / "my_deck.toml").write_text((decks / "my_deck.toml").read_text() + "\n")
    assert "--restart" in one_line_error(run(*args))
    assert run(*args, "--restart").exit_code == 0

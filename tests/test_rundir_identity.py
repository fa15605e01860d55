"""A run directory's identity is the content of what it read, not paths (issue 12, "Runs that
cannot lie"): "Resuming after any of them changed is refused in one line naming the file that
changed and the flag that starts the run over (`--restart` or similar). An explicit parameter
equal to its default is the same run." "Growing a run (a larger `--games` into the same
directory) plays only the new seeds."""

import json
import shutil
from pathlib import Path

import pyarrow.dataset as ds
import pytest

from battlesim.data import data_dir
from battlesim.ecs.runs.runner import RunConfig, RunError, simulate

DECKS = ("red_vanguard", "blue_tide")


@pytest.fixture
def designer(tmp_path):
    """A designer's copy of the shipped cards and decks."""
    cards, decks = tmp_path / "cards", tmp_path / "decks"
    shutil.copytree(data_dir() / "cards" / "lanes", cards)
    shutil.copytree(data_dir() / "decks" / "lanes", decks)
    return cards, decks


@pytest.fixture
def unloads_plugins():
    """Plugins the test loads in this process are unloaded after it."""
    from battlesim.ecs.plugin import isolated

    with isolated():
        yield


def cfg(cards=None, decks_dir=None, **kw):
    base = dict(games=30, seed=5, decks=DECKS, chunk=10, agents=("pass", "pass"),
                cards_dir=str(cards) if cards else None, decks_dir=str(decks_dir) if decks_dir else None)
    return RunConfig(**{**base, **kw})


def seeds(out):
    return sorted(ds.dataset(out / "games").to_table(columns=["seed"]).column("seed").to_pylist())


def test_an_edited_card_is_refused_naming_the_file_and_restart(designer, tmp_path):
    # the issue: "edit a card under the same --cards folder, rerun the same command into the same
    # --out, and it prints the old numbers having played 0 games"
    cards, _ = designer
    out = tmp_path / "run"
    simulate(cfg(cards), out)
    red = cards / "red.toml"
    red.write_text(red.read_text().replace("attack = 2", "attack = 3", 1))
    with pytest.raises(RunError) as e:
        simulate(cfg(cards), out)
    msg = str(e.value)
    assert "card file red.toml" in msg and str(red) in msg and "changed" in msg and "--restart" in msg
    assert "\n" not in msg
    again = simulate(cfg(cards), out, restart=True)  # starts over: every game played with the new card
    assert again.games_played == 30 and seeds(out) == list(range(5, 35))


def test_an_edited_deck_or_ruleset_file_is_refused(designer, tmp_path):
    cards, decks = designer
    out = tmp_path / "run"
    simulate(cfg(cards, decks), out)
    deck = decks / "blue_tide.toml"
    deck.write_text(deck.read_text() + "\n# a comment changes the bytes\n")
    with pytest.raises(RunError, match=r"deck blue_tide \(.*blue_tide.toml\) changed since the run started; run with --restart"):
        simulate(cfg(cards, decks), out)


def test_moving_the_card_folder_is_the_same_run(designer, tmp_path):
    cards, decks = designer
    out = tmp_path / "run"
    first = simulate(cfg(cards, decks), out)
    moved = tmp_path / "moved"
    shutil.move(cards, moved)
    again = simulate(cfg(moved, decks), out)
    assert again.games_played == 0 and again.table.equals(first.table)


def test_an_explicit_parameter_equal_to_its_default_is_the_same_run(lanes, tmp_path):
    out = tmp_path / "run"
    simulate(cfg(), out, game=lanes)
    same = simulate(cfg(params={"anchor_hp": lanes.params.anchor_hp}), out)
    assert same.games_played == 0
    with pytest.raises(RunError, match=r"--param anchor_hp: 30 there, 31 now.*--restart"):
        simulate(cfg(params={"anchor_hp": 31}), out)


def test_an_edited_plugin_is_refused(tmp_path, unloads_plugins):
    plugin = tmp_path / "myplugin_identity.py"
    plugin.write_text('"""A plugin that declares nothing."""\n')
    out = tmp_path / "run"
    simulate(cfg(plugins=(str(plugin),)), out)
    plugin.write_text('"""A plugin that declares nothing, edited."""\n')
    with pytest.raises(RunError, match=r"plugin myplugin_identity \(.*\) changed since the run started"):
        simulate(cfg(plugins=(str(plugin),)), out)


def test_another_battlesim_version_is_refused(lanes, tmp_path, monkeypatch):
    out = tmp_path / "run"
    simulate(cfg(), out, game=lanes)
    monkeypatch.setattr("battlesim.ecs.runs.identity.battlesim_version", lambda: "99.0")
    with pytest.raises(RunError, match=r"battlesim version changed \(.* there, 99.0 now\).*--restart"):
        simulate(cfg(), out, game=lanes)


def test_growing_a_run_plays_only_the_new_seeds(lanes, tmp_path):
    out = tmp_path / "run"
    simulate(cfg(games=25), out, game=lanes)  # chunks 5..14, 15..24, 25..29
    grown = simulate(cfg(games=47), out, game=lanes)
    assert grown.games_played == 22 and seeds(out) == list(range(5, 52))
    whole = simulate(cfg(games=47), game=lanes)  # the same seeds in one go, nothing written
    assert grown.table.equals(whole.table)
    assert json.loads((out / "run.json").read_text())["games"] == 47
    with pytest.raises(RunError, match=r"holds a run of 47 games; --games 30 would leave some out"):
        simulate(cfg(games=30), out, game=lanes)


def test_restart_never_empties_a_directory_that_is_not_a_run(lanes, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    for restart in (False, True):
        with pytest.raises(RunError, match="not a run directory"):
            simulate(cfg(), out, game=lanes, restart=restart)
    assert (out / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("tamper", [
    lambda r: "{not json",
    lambda r: json.dumps([1, 2]),
    lambda r: json.dumps({**r, "games": "many"}),
    lambda r: json.dumps({**r, "chunk": 0}),
    lambda r: json.dumps({**r, "format": 2}),
    lambda r: json.dumps({**r, "identity": None}),
    lambda r: json.dumps({**r, "tables": ["games", "secrets"]}),
    lambda r: json.dumps({**r, "seed": 2**63 - 1}),
])
def test_a_tampered_run_record_is_refused_in_one_line_and_restart_recovers(lanes, tmp_path, tamper):
    out = tmp_path / "run"
    simulate(cfg(), out, game=lanes)
    record = json.loads((out / "run.json").read_text())
    (out / "run.json").write_text(tamper(record))
    with pytest.raises(RunError) as e:
        simulate(cfg(), out, game=lanes)
    assert "run.json" in str(e.value) and "--restart" in str(e.value) and "\n" not in str(e.value)
    assert simulate(cfg(), out, game=lanes, restart=True).games_played == 30


def test_a_tampered_identity_is_a_different_run(lanes, tmp_path):
    out = tmp_path / "run"
    simulate(cfg(), out, game=lanes)
    record = json.loads((out / "run.json").read_text())
    record["identity"]["options"]["decks"] = ["green_grove", "blue_tide"]
    (out / "run.json").write_text(json.dumps(record))
    with pytest.raises(RunError, match="holds a different run: decks"):
        simulate(cfg(), out, game=lanes)


def test_decks_dir_plays_the_designers_decks(designer, lanes, tmp_path):
    _, decks = designer
    (decks / "my_red.toml").write_text((decks / "red_vanguard.toml").read_text())
    mine = simulate(cfg(decks_dir=decks, decks=("my_red", "blue_tide")))
    shipped = simulate(cfg(), game=lanes)
    for col in ("winner", "rounds", "first_player"):  # the same cards in another deck file: the same games
        assert mine.table.column(col).equals(shipped.table.column(col))
    assert set(mine.table.column("deck_0").to_pylist()) == {"my_red"}
    with pytest.raises(RunError, match="unknown deck 'my_red'"):
        simulate(cfg(decks=("my_red", "blue_tide")), game=lanes)
    assert Path(decks).is_dir()

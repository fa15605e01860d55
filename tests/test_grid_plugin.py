"""A plugin adds a grid keyword that changes games (issue 16 "Plugin"; systems/grid/keywords.py):
a test plugin declares ``swift`` (+1 MV, a tag) and ``armored X`` (+X physical resistance); a card
file names them; the card's stats, the listing and the games change; without the plugin the card
file is an error; everything declared is forgotten after ``isolated()``."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from battlesim.ecs.cli import app
from battlesim.ecs.datafiles import DataError
from battlesim.ecs.decisions import make_agent
from battlesim.ecs.plugin import PluginError, extend, isolated
from battlesim.ecs.ruleset import get_ruleset
from battlesim.systems.grid.keywords import plugin_keywords

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = """
    from battlesim.systems.grid.keywords import grid_keyword

    grid_keyword("swift", "tag", "Swift: +1 MV (always in effect, grid.md 4.3.13).", mv=1)
    grid_keyword("armored", "number", "Armored X: +X physical resistance.", resist=(1, 0, 0))
"""
DECKS = ("iron_vanguard", "iron_vanguard")  # three Footmen each


@pytest.fixture
def plugin_file(tmp_path) -> str:
    path = tmp_path / "grid_swift.py"
    path.write_text(textwrap.dedent(PLUGIN))
    return str(path)


@pytest.fixture
def cards_dir(tmp_path) -> Path:
    """The shipped grid cards, the Footman swift and armored 2."""
    out = tmp_path / "cards"
    shutil.copytree(ROOT / "data" / "cards" / "grid", out)
    units = out / "units.toml"
    text = units.read_text(encoding="utf-8")
    footman = 'name = "Footman"\ntype = "unit"\nclass = "warrior"\ncost = 2\nhp = 8\nmv = 3\ndamage = 2\n'
    assert footman in text
    units.write_text(text.replace(footman, footman + "keywords = { swift = true, armored = 2 }\n"), encoding="utf-8")
    return out


def footman_row(game) -> np.ndarray:
    from battlesim.systems.grid.state import C_MV, C_RES

    row = game.tables.ct.card[game.card_names.index("Footman")]
    return np.array([row[C_MV], row[C_RES]])


def test_a_plugin_keyword_changes_the_card_and_the_games(plugin_file, cards_dir):
    base = get_ruleset("grid").load()
    seeds = np.arange(64)
    pair = [make_agent("greedy"), make_agent("random")]
    before = base.play(seeds, DECKS, pair)
    with isolated():
        game = get_ruleset("grid", [plugin_file]).load(cards_dir=cards_dir)
        assert set(plugin_keywords()) == {"swift", "armored"}
        # grid.md 4.3.13: "this ability is always in effect": +1 MV, +2 physical resistance
        assert footman_row(game).tolist() == (footman_row(base) + [1, 2]).tolist()
        after = game.play(seeds, DECKS, pair)
    assert any((before[k] != after[k]).any() for k in ("winner", "rounds", "actions", "kill_points_1"))
    assert "swift" not in extend("grid").keywords and plugin_keywords() == {}, "isolated() forgets the plugin"


def test_without_the_plugin_the_keyword_is_unknown(cards_dir):
    with pytest.raises((DataError, ValueError), match="swift"):
        get_ruleset("grid").load(cards_dir=cards_dir)


def test_the_keywords_listing_names_the_plugin_keyword_and_its_source(plugin_file):
    with isolated():
        r = CliRunner().invoke(app, ["keywords", "--ruleset", "grid", "--json", "--plugin", plugin_file])
        assert r.exit_code == 0, r.output
        rows = {(e["kind"], e["name"]): e for e in json.loads(r.stdout)["entries"]}
    assert rows[("keyword", "swift")]["source"] != "built-in"
    assert rows[("keyword", "armored")]["value_type"] == "int"
    # issue 16: the grid vocabulary itself: classes, damage types, keywords, statuses, ops
    for kind, name in (("class", "rogue"), ("damage type", "poison"), ("keyword", "flying"), ("status", "stunned"),
                       ("op", "teleport")):
        assert rows[(kind, name)]["source"] == "built-in", (kind, name)


def test_a_built_in_name_or_a_wrong_value_is_refused(plugin_file, tmp_path):
    from battlesim.systems.grid.keywords import grid_keyword

    with isolated():
        with pytest.raises(PluginError, match="built in"):
            grid_keyword("flying", "tag")
        get_ruleset("grid", [plugin_file])
        from battlesim.systems.grid.cards import check_keywords

        with pytest.raises(ValueError, match="takes a number"):
            check_keywords({"armored": True})
        with pytest.raises(ValueError, match="takes true/false"):
            check_keywords({"swift": 2})


SCENARIO = """
    ruleset = "grid"
    seed = 1
    rule = 'grid.md 4.2.1: "A unit or hero can move any number of spaces in a turn as they have MV points."'
    description = "An inline unit with the plugin's swift (+1 MV) moves 4 on its written MV 3."

    [[units]]
    side = 0
    x = 0
    y = 0
    name = "Scout"
    class = "warrior"
    hp = 6
    mv = 3
    damage = 2
    keywords = { swift = true, armored = 2 }

    [[units]]
    side = 0
    x = 7
    y = 0
    name = "Guard"
    card = "Footman"
    keywords = { armored = 1 }

    [[steps]]
    do = "move"
    unit = "Scout"
    to = [0, 4]

    [[expect.units]]
    name = "Scout"
    x = 0
    y = 4
    mv = 4
    mv_left = 0
    resist = { physical = 2 }
"""


def test_an_inline_scenario_unit_plays_its_plugin_keyword(plugin_file, tmp_path):
    # issue 16 "a plugin can add a keyword": a scenario's inline unit may carry it and the scenario
    # plays it through the compiled kernels (the legal mask allows the 4th step only with swift)
    path = tmp_path / "swift_scout.toml"
    path.write_text(textwrap.dedent(SCENARIO), encoding="utf-8")
    with isolated():
        r = CliRunner().invoke(app, ["scenario", str(path), "--json", "--plugin", plugin_file])
        assert r.exit_code == 0, r.output
        out = json.loads(r.stdout)
        units = {u["name"]: u for u in out["units"]}
        scout, guard = units["Scout"], units["Guard"]
        assert (scout["x"], scout["y"], scout["mv"]) == (0, 4, 4)
        assert scout["resist"]["physical"] == 2 and scout["keywords"] == {"swift": True, "armored": 2}
        # a card's unit with its own keywords: the card's stats, then what its keywords add
        # (the Footman's own physical resistance 1, + 1)
        assert guard["mv"] == 3 and guard["resist"]["physical"] == 2 and guard["keywords"] == {"armored": 1}
    with isolated():
        r = CliRunner().invoke(app, ["scenario", str(path)])
    assert r.exit_code == 2 and "swift" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.output


def test_a_unit_whose_card_has_the_keyword_gets_it_once(plugin_file, cards_dir, tmp_path):
    from battlesim.systems.grid.scenario_check import load_scenario_plan

    path = tmp_path / "s.toml"
    path.write_text(textwrap.dedent(SCENARIO), encoding="utf-8")
    with isolated():
        game = get_ruleset("grid", [plugin_file]).load(cards_dir=cards_dir)  # Footman: swift, armored 2
        plan = load_scenario_plan(path, game.params, game.cards.specs)
        guard = next(u for u in plan.units if u.name == "Guard")
        assert (game.cards.specs["Footman"].mv, game.cards.specs["Footman"].resist.physical) == (4, 3)
        # the card's swift is gone (keywords written: armored 1 only), armored counts 1, not 2 + 1
        assert (guard.mv, guard.resist[0]) == (3, 2)

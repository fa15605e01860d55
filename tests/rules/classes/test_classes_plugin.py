"""A plugin adds a classes keyword that changes games (issue 15: "Components in the classes
namespace; a plugin can add a condition or keyword (a test plugin does)"; systems/classes/plugin.py).

The test plugin is the example ``examples/classes-plugin/classes_rally.py``: ``bulwark X`` (+X Shield,
+X HP) and ``rally`` (on summon, every other allied unit gains 1 Attack). A card file names them; the
card the compiled loop plays, a scenario and batch games change as the rules say; the listing names
them with their source; without the plugin the card file is an error; ``isolated()`` forgets them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from battlesim.ecs.cli import app
from battlesim.ecs.datafiles import DataError
from battlesim.ecs.plugin import PluginError, isolated
from battlesim.ecs.ruleset import get_ruleset
from battlesim.systems.classes.plugin import classes_keyword, plugin_keywords

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "classes-plugin"
PLUGIN = str(EXAMPLE / "classes_rally.py")
SCENARIO = EXAMPLE / "rally_lifts_the_other_allies.toml"
runner = CliRunner()


@pytest.fixture
def cards_dir(tmp_path) -> Path:
    """The shipped classes cards, the Guard bulwark 2 and the Footman rally."""
    out = tmp_path / "cards"
    shutil.copytree(ROOT / "data" / "cards" / "classes", out)
    path = out / "paladin.toml"
    text = path.read_text(encoding="utf-8")
    guard = 'name = "Guard"\ntype = "Follower"\ncopies = 3\ntext = "Shield."\nattack = 1\nhealth = 3\nkeywords = { shield = 1 }\n'
    assert guard in text
    text = text.replace(guard, guard.replace("{ shield = 1 }", "{ shield = 1, bulwark = 2 }"))
    footman = 'name = "Footman"\ntype = "Follower"\n'
    assert footman in text
    path.write_text(text.replace(footman, footman + "keywords = { rally = true }\n"), encoding="utf-8")
    return out


def test_the_card_played_carries_the_plugin_keyword(cards_dir):
    with isolated():
        game = get_ruleset("classes", [PLUGIN]).load(cards_dir=cards_dir)
        assert set(plugin_keywords()) == {"bulwark", "rally"}
        guard, footman = game.cards.specs["Guard"], game.cards.specs["Footman"]
        # Bulwark 2: +2 Shield, +2 HP on the card the compiled loop reads
        assert (guard.health, guard.keywords) == (3 + 2, {"shield": 1 + 2})
        assert game.cards.plugin_keywords_of["Guard"] == {"bulwark": 2}
        rally = [e for e in footman.effects if e.trigger == "on_summon"]
        assert [(e.op, e.select, e.stat, e.amount) for e in rally] == [("gain", "other_allied_units", "attack", 1)]
    assert plugin_keywords() == {}, "isolated() forgets the plugin's keywords"


def test_the_scenario_plays_the_rule_only_with_the_plugin():
    # classes_rally.py: "Rally: when this unit is summoned, every other allied unit gains 1 Attack."
    with isolated():
        r = runner.invoke(app, ["scenario", str(SCENARIO), "--plugin", PLUGIN, "--check", "--json"])
        assert r.exit_code == 0, r.output
        units = {(u["lane"], u["row"]): u for u in json.loads(r.output.splitlines()[-1])["units"]}
    assert units[(0, 1)]["attack"] == 2 and units[(4, 4)]["attack"] == 1
    assert (units[(2, 0)]["health"], units[(2, 0)]["keywords"]) == (3, {"shield": 1})
    with isolated():
        r = runner.invoke(app, ["scenario", str(SCENARIO), "--check"])
    assert r.exit_code != 0 and "rally" in r.output


def test_batch_games_change_with_the_plugin(cards_dir):
    seeds = np.arange(128)
    decks = ("paladin_vanguard", "warlock_pact")
    base = get_ruleset("classes").load()
    decks = tuple(d if d in base.decks else base.default_decks()[i] for i, d in enumerate(decks))
    before = base.play(seeds, decks, ["random", "random"])
    with isolated():
        game = get_ruleset("classes", [PLUGIN]).load(cards_dir=cards_dir)
        after = game.play(seeds, decks, ["random", "random"])
    assert any((before[k] != after[k]).any() for k in ("winner", "turns", "life_0", "life_1") if k in before)


def test_without_the_plugin_the_keyword_is_unknown(cards_dir):
    with pytest.raises(DataError, match="unknown keyword '(bulwark|rally)'"):
        get_ruleset("classes").load(cards_dir=cards_dir)


def test_the_keywords_listing_names_the_plugin_keywords_and_their_source():
    with isolated():
        r = runner.invoke(app, ["keywords", "--ruleset", "classes", "--json", "--plugin", PLUGIN])
        assert r.exit_code == 0, r.output
        rows = {(e["kind"], e["name"]): e for e in json.loads(r.stdout)["entries"]}
    assert rows[("keyword", "rally")]["source"] == "classes_rally"
    assert rows[("keyword", "bulwark")]["value_type"] == "int"
    assert "on_summon: gain other_allied_units" in rows[("keyword", "rally")]["doc"]
    assert rows[("keyword", "ferocious")]["source"] == "built-in"


def test_bad_declarations_are_refused_in_one_line():
    with isolated():
        for kwargs, words in ((dict(name="ferocious", shield=1), "built in"),
                              (dict(name="stun", shield=1), "built in"),
                              (dict(name="vague"), "does nothing"),
                              (dict(name="wide", grants=("shield",)), "grants 'shield'"),
                              (dict(name="aimed", effects=[{"trigger": "on_summon", "op": "damage", "select": "chosen",
                                                            "amount": 1}]), "chosen target"),
                              (dict(name="bad_op", effects=[{"trigger": "on_summon", "op": "explode"}]), "unknown op")):
            with pytest.raises(PluginError, match=words):
                classes_keyword(**kwargs)
        classes_keyword("steady", grants=("grounded",))
        with pytest.raises(PluginError, match="already declared"):
            classes_keyword("steady", grants=("grounded",))

"""A plugin adds classes keywords and conditions that change games (issue 15: "Components in the
classes namespace; a plugin can add a condition or keyword (a test plugin does)";
systems/classes/plugin.py).

The test plugin is the example ``examples/classes-plugin/classes_rally.py``: ``bulwark X`` (+X Shield,
+X HP), ``rally`` (on summon, every other allied unit gains 1 Attack), the condition ``poison`` (at
its owner's Enchantments Step, 1 damage per token, then one token discarded) and ``venom`` (on
summon, every enemy unit gets 1 Poison). A card file names them; the card the compiled loop plays,
scenarios and batch games change as the rules say; the listing names them with their source;
without the plugin the card file is an error; ``isolated()`` forgets them."""

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
from battlesim.systems.classes.conditions import condition_names
from battlesim.systems.classes.games import play_batch
from battlesim.systems.classes.plugin import classes_condition, classes_keyword, plugin_keywords
from battlesim.systems.classes.vocabulary import CONDITION_SLOTS, CONDITIONS

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "classes-plugin"
PLUGIN = str(EXAMPLE / "classes_rally.py")
SCENARIO = EXAMPLE / "rally_lifts_the_other_allies.toml"
POISON = EXAMPLE / "poison_ticks_at_the_owners_enchantments_step.toml"
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
        assert set(plugin_keywords()) == {"bulwark", "rally", "venom"}
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


def _run_scenario(path: Path, *args: str):
    with isolated():
        return runner.invoke(app, ["scenario", str(path), *args, "--check", "--json"])


def test_the_poison_scenario_ticks_only_with_the_plugin():
    # classes_rally.py: "Poison: at its owner's Enchantments Step the unit takes 1 damage per Poison token,
    # then discards one token."
    r = _run_scenario(POISON, "--plugin", PLUGIN)
    assert r.exit_code == 0, r.output
    units = {(u["lane"], u["row"]): u for u in json.loads(r.output.splitlines()[-1])["units"]}
    assert (units[(1, 1)]["health"], units[(1, 1)]["conditions"]) == (1, {"poison": 1})
    assert (2, 1) not in units, "1 HP and 1 Poison: the tick kills it"
    assert (units[(3, 4)]["health"], units[(3, 4)]["conditions"]) == (2, {"poison": 1}), "not its owner's step"
    r = _run_scenario(POISON)
    assert r.exit_code != 0 and "poison" in r.output


def _tick_scenario(tmp_path: Path, discard: str) -> dict:
    """A unit with 3 Burn (2 damage per token) through its owner's Enchantments Step."""
    path = tmp_path / f"burn_{discard}.toml"
    path.write_text(
        'ruleset = "classes"\nseed = 1\nturn = 3\nactive = 1\nrule = "test"\n'
        '[[units]]\nside = 1\nlane = 0\nrow = 4\nname = "Burning"\nhealth = 9\nconditions = { burn = 3 }\n'
        '[[units]]\nside = 0\nlane = 0\nrow = 1\nname = "Ally of nobody"\nhealth = 9\nconditions = { burn = 1 }\n'
        '[[steps]]\ndo = "begin_phase"\n', encoding="utf-8")
    with isolated():
        classes_condition("burn", "Burn: 2 damage per token.", effects=[{"op": "damage", "amount": 2}], discard=discard)
        r = runner.invoke(app, ["scenario", str(path), "--json"])
    assert r.exit_code == 0, r.output
    return {(u["lane"], u["row"]): u for u in json.loads(r.output.splitlines()[-1])["units"]}


@pytest.mark.parametrize("discard,left", [("one", {"burn": 2}), ("all", {}), ("none", {"burn": 3})])
def test_a_plugin_condition_ticks_per_token_then_discards_what_it_says(tmp_path, discard, left):
    units = _tick_scenario(tmp_path, discard)
    assert (units[(0, 4)]["health"], units[(0, 4)]["conditions"]) == (9 - 3 * 2, left)
    assert (units[(0, 1)]["health"], units[(0, 1)]["conditions"]) == (9, {"burn": 1}), "the other side's unit waits"


@pytest.fixture
def venom_cards(tmp_path) -> Path:
    """The shipped classes cards with the Footman venom (on summon, every enemy unit gets 1 Poison)."""
    out = tmp_path / "venom_cards"
    shutil.copytree(ROOT / "data" / "cards" / "classes", out)
    path = out / "paladin.toml"
    footman = 'name = "Footman"\ntype = "Follower"\n'
    text = path.read_text(encoding="utf-8")
    assert footman in text
    path.write_text(text.replace(footman, footman + "keywords = { venom = true }\n"), encoding="utf-8")
    return out


def test_batch_games_play_the_plugin_condition(venom_cards):
    # the same Footman gives the same Poison tokens; only the tick's damage differs, so the games differ only if
    # the compiled batch loop ticks the condition
    seeds = np.arange(128)
    decks = ("paladin_vanguard", "warlock_pact")
    results = []
    for damage in (1, 3):
        with isolated():
            classes_condition("poison", "test poison", effects=[{"op": "damage", "amount": damage}])
            classes_keyword("venom", effects=[{"trigger": "on_summon", "op": "condition", "select": "enemy_units",
                                               "condition": "poison", "amount": 1}])
            game = get_ruleset("classes").load(cards_dir=venom_cards)
            bt = play_batch(game, decks, seeds, check=True)
            assert (bt.out == 0).all(), "invariants hold (conditions >= 0 included)"
            results.append(game.play(seeds, decks, ["random", "random"]))
    assert any((results[0][k] != results[1][k]).any() for k in ("winner", "turns", "life_0", "life_1"))


def test_the_keywords_listing_names_the_plugin_condition_and_its_source():
    with isolated():
        r = runner.invoke(app, ["keywords", "--ruleset", "classes", "--json", "--plugin", PLUGIN])
        assert r.exit_code == 0, r.output
        rows = {(e["kind"], e["name"]): e for e in json.loads(r.stdout)["entries"]}
    poison = rows[("condition", "poison")]
    assert (poison["source"], poison["value_type"]) == ("classes_rally", "int (tokens)")
    assert "per token: damage chosen 1; then discards one" in poison["doc"]
    assert rows[("condition", "stun")]["source"] == "built-in"


def test_bad_condition_declarations_are_refused_in_one_line():
    with isolated():
        damage = [{"op": "damage", "amount": 1}]
        for kwargs, words in (({"name": "stun", "effects": damage}, "built in"),
                              ({"name": "Sick", "effects": damage}, "lower-case word"),
                              ({"name": "idle"}, "does nothing"),
                              ({"name": "odd", "effects": damage, "discard": "half"}, "discard must be"),
                              ({"name": "spawn", "effects": [{"op": "summon"}]}, "a tick resolves"),
                              ({"name": "marked", "effects": [{"op": "heal", "select": "enchanted", "amount": 1}]}, "a tick resolves"),
                              ({"name": "timed", "effects": [{"op": "heal", "trigger": "on_death", "amount": 1}]}, "a tick resolves"),
                              ({"name": "bad_op", "effects": [{"op": "explode"}]}, "unknown op")):
            with pytest.raises(PluginError, match=words):
                classes_condition(**kwargs)
        for k in range(CONDITION_SLOTS):
            classes_condition(f"c{k}", effects=damage)
        with pytest.raises(PluginError, match="already declared"):
            classes_condition("c0", effects=damage)
        with pytest.raises(PluginError, match="already declared"):
            classes_keyword("c0", shield=1)
        with pytest.raises(PluginError, match=f"keeps {CONDITION_SLOTS} columns"):
            classes_condition("one_more", effects=damage)
        assert condition_names() == (*CONDITIONS, *(f"c{k}" for k in range(CONDITION_SLOTS)))
    assert condition_names() == tuple(CONDITIONS), "isolated() forgets the plugin's conditions"


def test_a_deck_pairs_tables_are_built_once_and_again_after_a_plugin_condition():
    # games.compile_for keeps a deck pair's tables (a one-game call rebuilt them each time); a
    # plugin condition declared or forgotten since must give tables with or without its row
    from battlesim.systems.classes.games import compile_for
    from battlesim.systems.classes.rules import compile_rules

    game = get_ruleset("classes").load()
    decks = game.default_decks()
    first = compile_for(game, decks)
    assert compile_for(game, decks) is first
    with isolated():
        classes_condition("burn", "Burn: 2 damage per token.", effects=[{"op": "damage", "amount": 2}])
        burned = compile_for(game, decks)
        assert burned is not first and len(burned.rules.conditions) == len(first.rules.conditions) + 1
        assert compile_for(game, decks) is burned
    again = compile_for(game, decks)
    assert again is not burned and len(again.rules.conditions) == len(first.rules.conditions)
    powers = [p for d in decks for p in game.boards[game.decks[d].class_name].powers]
    fresh = compile_rules(game.cards, powers).rules
    assert all(np.array_equal(a, c) for a, c in zip(again.rules, fresh))

"""The public extension API (ecs/plugin.py): declaring, discovering, ordering, listing.

Each test that declares something runs inside ``plugin.isolated()``, so nothing leaks into
the other tests' registries.
"""

from __future__ import annotations

import json
import re
import shutil
import textwrap
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from battlesim.ecs import plugin
from battlesim.ecs.cli import app
from battlesim.ecs.damage import REACTIONS
from battlesim.ecs.datafiles import DataError
from battlesim.ecs.plugin import PluginError, extend, isolated, load_plugins
from battlesim.ecs.ruleset import get_ruleset
from battlesim.ecs.runs.runner import RunConfig, simulate

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "keyword-plugin" / "frost_thorns"


def write_plugin(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(body))
    return str(path)


def fresh_game():
    """The lanes game built from the declarations in force now."""
    return get_ruleset("lanes").load()


# --------------------------------------------------------------------------- the built-ins

def test_built_ins_are_declared_through_the_public_api_only():
    """issue 6: "The built-in keywords use exactly this API (no private shortcut)": outside
    ecs/, nothing calls the registries' own methods."""
    private = re.compile(r"register_component\(|\.add_(trigger|opcode|selector|stage)\(|StageSpec\(|register_agent\(")
    offenders = []
    for folder in ("components", "systems"):
        for path in (ROOT / folder).rglob("*.py"):
            for i, line in enumerate(path.read_text().splitlines(), 1):
                if private.search(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert offenders == []


def test_every_built_in_declaration_says_built_in():
    get_ruleset("lanes")
    rows = extend("lanes").vocabulary()
    kinds = {r["kind"] for r in rows}
    assert kinds == {"keyword", "status", "trigger", "opcode", "selector", "damage_stage", "system"}
    built_in = [r for r in rows if r["source"] == plugin.BUILT_IN]
    assert {r["name"] for r in built_in if r["kind"] == "keyword"} >= {"retaliate", "shield", "armor", "taunt"}
    assert {r["name"] for r in built_in if r["kind"] == "system"} >= {"Combat", "PlayPhase", "ShopPhase"}
    assert all(r["doc"] for r in rows), "every entry has a one-line doc"


# --------------------------------------------------------------------------- declaring

def test_a_plugin_keyword_is_a_component_card_files_can_name(tmp_path):
    with isolated():
        load_plugins([str(EXAMPLE)])
        kw = extend("lanes").keywords["thorns"]
        assert (kw.source, kw.value_type) == ("frost_thorns", "int")
        game = fresh_game()
        assert {"frostbite", "thorns"} <= set(game.cards.catalog.keywords)
        assert {"frost_thorns", "thorn_wardens", "spine_wardens"} <= set(game.deck_ids())
        w = game.new_world(np.arange(4), ("thorn_wardens", "red_vanguard"), [None, None])
        assert w.c.thorns.shape == w.c.retaliate.shape
    assert "thorns" not in extend("lanes").keywords, "isolated() forgets the plugin"


def test_card_naming_an_unregistered_keyword_names_keyword_card_file_and_plugins(tmp_path):
    cards = tmp_path / "cards"
    shutil.copytree(ROOT / "data" / "cards" / "lanes", cards)
    extra = cards / "mine.toml"
    extra.write_text(textwrap.dedent("""\
        [[cards]]
        name = "Frost Hound"
        type = "unit"
        faction = "Blue"
        cost = 2
        attack = 2
        health = 2
        keywords = { frostbite = 1 }
    """))
    with pytest.raises(DataError) as e:
        get_ruleset("lanes").load(cards_dir=cards)
    msg = str(e.value)
    for part in ("frostbite", "Frost Hound", str(extra), "installed plugins:"):
        assert part in msg


def test_value_types_are_checked_for_plugin_keywords(tmp_path):
    with isolated():
        load_plugins([str(EXAMPLE)])
        cards = tmp_path / "cards"
        cards.mkdir()
        (cards / "bad.toml").write_text(
            '[[cards]]\nname = "X"\ntype = "unit"\nfaction = "Blue"\ncost = 1\nattack = 1\nhealth = 1\n'
            'keywords = { thorns = true }\n')
        with pytest.raises(DataError, match="keyword 'thorns' takes a number"):
            get_ruleset("lanes").load(cards_dir=cards)


def test_declaring_a_keyword_twice_names_who_declared_it(tmp_path):
    with isolated():
        with pytest.raises(PluginError, match="'retaliate' is already declared .*built-in"):
            load_plugins([write_plugin(tmp_path, "dup", """
                from battlesim.ecs.plugin import extend
                extend("lanes").keyword("retaliate", value="tag", doc="mine")
            """)])


def test_unknown_phase_is_an_error_listing_the_phases(tmp_path):
    with isolated():
        with pytest.raises(PluginError, match="no phase 'lunch'; phases: creep_spawn, .*round_end"):
            load_plugins([write_plugin(tmp_path, "lunch", """
                from battlesim.ecs.plugin import extend
                @extend("lanes").system("lunch")
                class Lunch:
                    def process(self, w): pass
            """)])


def test_missing_plugin_module_is_a_clear_error():
    with isolated():
        with pytest.raises(PluginError, match="no module 'no_such_plugin_xyz'"):
            load_plugins(["no_such_plugin_xyz"])


def test_damage_kinds_get_distinct_bits():
    with isolated():
        a, b = plugin.damage_kind("FROST"), plugin.damage_kind("FIRE")
        assert a != b and a & b == 0 and plugin.damage_kind("FROST") == a
        from battlesim.ecs import damage
        assert all(a & v == 0 and b & v == 0 for k, v in damage.KINDS.items() if k not in ("FROST", "FIRE"))


def test_plugin_systems_and_agents_run_in_games(tmp_path):
    """A system at a phase and priority, and an agent, declared by a plugin, take part in a run.
    The system is an esper Processor run between the compiled systems: the compiled game module
    is the built-ins' (no new game to compile, docs/plugins.md)."""
    from battlesim.ecs.compiled.engine import build
    path = write_plugin(tmp_path, "round_counter", """
        import numpy as np
        from battlesim.ecs.plugin import agent, extend

        SEEN = []

        @extend("lanes").system("round_end", priority=-50)
        class CountRounds:
            '''Counts the active games at each round's end (after RoundEnd).'''
            def process(self, w):
                SEEN.append(int(w.active.sum()))

        @agent("first_legal")
        class FirstLegal:
            name = "first_legal"
            def act(self, world, games, seat, legal):
                return np.argmax(legal, axis=1)
    """)
    with isolated():
        result = simulate(RunConfig(games=20, agents=("first_legal", "random"), plugins=(path,)))
        import round_counter

        assert result.tally.games == 20
        assert round_counter.SEEN and round_counter.SEEN[0] == 20
        order = [(ph, [type(s).__name__ for s in systems]) for ph, systems in fresh_game().schedule._order]
        assert ("round_end", ["EndOfRound", "ObjectiveSnapshot", "RoundEnd", "CountRounds"]) in order
        with_system = build("lanes").game_plan.path
    with isolated():
        get_ruleset("lanes")
        assert build("lanes").game_plan.path == with_system


# --------------------------------------------------------------------------- ordering

TWO_STAGES = """
    from battlesim.ecs.damage import REACTIONS
    from battlesim.ecs.plugin import extend
    lanes = extend("lanes")

    @lanes.compiled_damage_stage("{stage}", REACTIONS + 10)     # the same priority as retaliate
    def stage(w, b, queue, qlen, i, cols):
        pass

    @lanes.system("combat", priority=0)                          # the same priority as Combat
    class {system}:
        def process(self, w):
            pass
"""


@pytest.mark.parametrize("load_order", [["alpha", "beta"], ["beta", "alpha"]])
def test_equal_priorities_resolve_by_a_stable_documented_rule(tmp_path, load_order):
    """issue 6: "two plugins registering stages at the same priority resolve by a stable rule
    that is documented and tested". Stages: priority, then name, then source. Systems:
    priority (high first), then built-ins, then source, then name. Loading order is irrelevant,
    and plugins load sorted by name anyway."""
    paths = {
        "alpha": write_plugin(tmp_path, "alpha", TWO_STAGES.format(stage="zz_alpha_stage", system="AlphaSystem")),
        "beta": write_plugin(tmp_path, "beta", TWO_STAGES.format(stage="aa_beta_stage", system="BetaSystem")),
    }
    with isolated():
        for name in load_order:
            load_plugins([paths[name]])
        game = fresh_game()
        stages = [(s.name, s.priority) for s in extend("lanes").compiled_stages_in_order()]
        at = [name for name, p in stages if p == REACTIONS + 10]
        assert at == ["aa_beta_stage", "retaliate", "zz_alpha_stage"]
        combat = dict((ph, [type(s).__name__ for s in systems]) for ph, systems in game.schedule._order)["combat"]
        assert combat == ["Combat", "AlphaSystem", "BetaSystem", "VictoryCheck"]


def test_plugins_given_in_any_order_declare_in_name_order(tmp_path):
    a = write_plugin(tmp_path, "kw_a", 'from battlesim.ecs.plugin import extend\nextend("lanes").keyword("kw_from_a", doc="a")\n')
    b = write_plugin(tmp_path, "kw_b", 'from battlesim.ecs.plugin import extend\nextend("lanes").keyword("kw_from_b", doc="b")\n')
    orders = []
    for given in ([b, a], [a, b]):
        with isolated():
            load_plugins(given)
            orders.append([k for k in extend("lanes").keywords if k.startswith("kw_from")])
    assert orders == [["kw_from_a", "kw_from_b"]] * 2


def test_determinism_contract_holds_with_a_plugin_across_workers():
    """The same seeds give the same games inline and with 2 worker processes, which load the
    --plugin module themselves."""
    with isolated():
        cfg = RunConfig(games=24, decks=("frost_thorns", "red_vanguard"), plugins=(str(EXAMPLE),), chunk=8)
        inline = simulate(cfg).table.sort_by("seed")
        pooled = simulate(cfg, workers=2).table.sort_by("seed")
        assert inline.equals(pooled)


# --------------------------------------------------------------------------- command line

def test_keywords_command_lists_built_ins_and_plugin_entries_as_json():
    with isolated():
        r = CliRunner().invoke(app, ["keywords", "--json", "--plugin", str(EXAMPLE)])
        assert r.exit_code == 0, r.output
        data = json.loads(r.stdout)
    rows = {(e["kind"], e["name"]): e for e in data["entries"]}
    assert rows[("keyword", "thorns")]["source"] == "frost_thorns"
    assert rows[("keyword", "thorns")]["value_type"] == "int"
    assert rows[("keyword", "taunt")] == {**rows[("keyword", "taunt")], "source": "built-in", "value_type": "bool"}
    assert rows[("damage_stage", "frostbite")]["source"] == "frost_thorns"
    assert ("trigger", "on_death") in rows and ("opcode", "damage") in rows and ("status", "stunned") in rows
    assert [p["name"] for p in data["plugins"]] == ["frost_thorns"]


def test_keywords_command_table_and_kind_filter():
    r = CliRunner().invoke(app, ["keywords", "--kind", "status"])
    assert r.exit_code == 0
    assert "stunned" in r.stdout and "on_death" not in r.stdout
    bad = CliRunner().invoke(app, ["keywords", "--kind", "spells"])
    assert bad.exit_code == 2 and "expected one of" in bad.output


def test_plugin_flag_with_a_missing_module_exits_2_with_one_line():
    with isolated():
        r = CliRunner().invoke(app, ["simulate", "--games", "2", "--plugin", "no_such_plugin_xyz"])
    assert r.exit_code == 2
    assert "no module 'no_such_plugin_xyz'" in r.output


def test_a_run_directory_remembers_its_plugins(tmp_path):
    """Resume refuses a different configuration: a run with a plugin is not the same run."""
    with isolated():
        cfg = RunConfig(games=8, decks=("blue_tide", "red_vanguard"), plugins=(str(EXAMPLE),))
        simulate(cfg, tmp_path / "run")
        from battlesim.ecs.runs.runner import RunError

        with pytest.raises(RunError):
            simulate(RunConfig(games=8, decks=("blue_tide", "red_vanguard")), tmp_path / "run")


def test_balance_plays_plugin_decks_with_the_plugin_flag(tmp_path):
    with isolated():
        r = CliRunner().invoke(app, ["balance", "--plugin", str(EXAMPLE), "--decks", "thorn_wardens,spine_wardens",
                                     "--games-per-pairing", "12", "--out", str(tmp_path / "bal"), "--json", "-q"])
        assert r.exit_code == 0, r.output
    data = json.loads((tmp_path / "bal" / "balance.json").read_text())
    assert data["meta"]["plugins"] == [str(EXAMPLE)]
    assert set(data["decks"]["decks"]) == {"thorn_wardens", "spine_wardens"}

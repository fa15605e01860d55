"""The hex scenario format (spec §8): every shipped scenario parses and cites a sentence of the
texts; the defaults are the spec's; each kind of bad file is one line naming where and what.
Running the steps is the engine's (issue 14); these files' ``[expect]`` blocks are worked out by
hand from the rules and wait for it.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from battlesim.ecs.datafiles import DataError
from battlesim.systems.hex.scenario_spec import STEP_FIELDS, load_hex_scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios" / "hex"
FILES = sorted(SCENARIOS.glob("*.toml"))


def test_there_are_at_least_ten_scenarios_and_the_worked_examples_are_among_them():
    # issue 14: "every worked example of the texts (Shield 3 vs Power 5; Health Regen 1 + Burned 1 at
    # 1 health; two -1 Power debuffs; 5 damage to a 1-health unit)"
    names = {p.stem for p in FILES}
    assert len(FILES) >= 10
    assert {"shield_3_vs_power_5", "regen_and_burned_at_1_health", "two_minus_one_power_debuffs",
            "five_damage_to_one_health"} <= names


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_scenario_parses_and_expects_something(path: Path):
    spec = load_hex_scenario(path)
    assert spec.rule and (spec.expect is not None or spec.expect_error)
    assert spec.steps or spec.expect is not None


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s.replace("“", '"').replace("”", '"')).strip()


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_scenario_quotes_its_sentence_word_for_word(path: Path, texts):
    rules = [load_hex_scenario(path).rule] if isinstance(load_hex_scenario(path).rule, str) else \
        load_hex_scenario(path).rule
    for r in rules:
        m = re.match(r'^(hex\.md|hex-keywords\.md): "(.*)"$', r, re.S)
        assert m, r
        assert _norm(m.group(2)) in _norm(texts[m.group(1)]), r


def test_the_specs_defaults(tmp_path: Path):
    path = tmp_path / "s.toml"
    path.write_text('ruleset = "hex"\nfirst_player = 1\n\n[[units]]\nside = 0\ncol = 2\nrow = 3\nname = "K"\n'
                    'health = 4\nmana = 2\ntypes = ["#undead", "beast"]\n'
                    'modifiers = [{ stat = "power", amount = 1 }]\n\n[[units]]\nside = 1\ncol = 2\nrow = 5\n'
                    'name = "R"\nhealth = 3\nmax_health = 5\nexhausted = true\n', encoding="utf-8")
    s = load_hex_scenario(path)
    assert (s.seed, s.round, s.first_player, s.to_act, s.last_actor, s.centre_shield) == (0, 1, 1, 1, None, True)
    k, r = s.units
    assert (k.controller, k.max_health, k.max_mana, k.actions, k.exhausted, k.types) == (0, 4, 2, 1, False,
                                                                                          ["undead", "beast"])
    assert (k.power, k.range, k.movement) == (None, None, None)  # omitted = null
    assert k.modifiers[0].by == 0  # "by = the seat that applied it (default: own side: a buff)"
    assert (r.max_health, r.actions, r.exhausted, r.mana, r.max_mana) == (5, 0, True, None, None)


def test_the_step_table_is_the_specs():
    assert set(STEP_FIELDS) == {"move", "attack", "ability", "skip", "push", "pull", "damage", "heal",
                                "round_start", "round_end"}


UNIT = '\n[[units]]\nside = 0\ncol = 2\nrow = 3\nname = "K"\nhealth = 4\n'
STEP = '\n[[steps]]\n'
SCENARIO_ERRORS = [
    ('ruleset = "lanes"\n', "field 'ruleset': expected \"hex\""),
    ('ruleset = "hex"\nround = 8\n', "field 'round': must be <= 7"),
    ('ruleset = "hex"\nfirst_player = 2\n', "field 'first_player': expected one of"),
    ('ruleset = "hex"\nturn = 1\n', "field 'turn': unknown field"),
    ('ruleset = "hex"\n' + UNIT.replace("row = 3", "row = 6").replace("col = 2", "col = 1"),
     "hex [1, 6] is not a hex of the map"),
    ('ruleset = "hex"\n' + UNIT + UNIT, "units[0] and units[1] both stand on (2, 3)"),
    ('ruleset = "hex"\n' + UNIT + "max_health = 3\n", "health 4 is above max_health 3"),
    ('ruleset = "hex"\n' + UNIT + "max_mana = 3\n", "max_mana without mana"),
    ('ruleset = "hex"\n' + UNIT + "keywords = { armour = 1 }\n", "unknown keyword 'armour'; did you mean 'armor'?"),
    ('ruleset = "hex"\n' + UNIT + "statuses = { stun = 1 }\n", "unknown status 'stun'"),
    ('ruleset = "hex"\n' + UNIT + "statuses = { rooted = 9 }\n", "rooted = 9: rounds left, 0 to 7"),
    ('ruleset = "hex"\n' + UNIT + "exhausted = true\nactions = 1\n", "give exhausted or actions, not both"),
    ('ruleset = "hex"\n' + UNIT + 'modifiers = [{ stat = "power", keyword = "flying" }]\n',
     "exactly one of 'stat' or 'keyword'"),
    ('ruleset = "hex"\n' + UNIT + 'abilities = [{ name = "Bolt", target = "enemy", effects = [{ op = "zap" }] }]\n',
     "unknown op 'zap'"),
    ('ruleset = "hex"\n' + UNIT + 'card = "Ember Knight"\n', "field 'units[0].card': unknown field"),
    ('ruleset = "hex"\n' + STEP + 'do = "fly"\n', "field 'steps[0].do': expected one of"),
    ('ruleset = "hex"\n' + STEP + 'do = "move"\nunit = [2, 3]\n', "steps[0] (move): needs 'to'"),
    ('ruleset = "hex"\n' + STEP + 'do = "skip"\nunit = [2, 3]\nto = [2, 4]\n', "steps[0] (skip): has no field 'to'"),
    ('ruleset = "hex"\n' + STEP + 'do = "attack"\nunit = [2, 3]\ntarget = [9, 0]\n',
     "steps[0] (attack): target [9, 0] is not a hex of the map"),
    ('ruleset = "hex"\n' + STEP + 'do = "move"\nunit = [2, 3]\nto = [2, 5]\npath = [[2, 4]]\n',
     "steps[0] (move): path ends at [2, 4], not at 'to' [2, 5]"),
    ('ruleset = "hex"\n' + STEP + 'do = "damage"\ntarget = [2, 3]\namount = 2\n', "steps[0] (damage): needs 'type'"),
    ('ruleset = "hex"\n' + STEP + 'do = "push"\nunit = [2, 3]\nsource = [2, 2]\namount = 0\n',
     "steps[0] (push): amount must be >= 1"),
    ('ruleset = "hex"\n\n[expect]\nwinnner = 0\n', "field 'expect.winnner': unknown field; did you mean 'winner'?"),
    ('ruleset = "hex"\n\n[[expect.units]]\ncol = 1\nrow = 6\n', "hex [1, 6] is not a hex of the map"),
]


@pytest.mark.parametrize("toml,message", SCENARIO_ERRORS, ids=[m[:40] for _, m in SCENARIO_ERRORS])
def test_a_bad_scenario_is_one_line_naming_file_where_and_what(tmp_path: Path, toml: str, message: str):
    tomllib.loads(toml)  # the file is valid TOML: the error is the scenario's
    path = tmp_path / "bad.toml"
    path.write_text(toml, encoding="utf-8")
    with pytest.raises(DataError) as e:
        load_hex_scenario(path)
    text = str(e.value)
    assert "\n" not in text and text.startswith(str(path)) and message in text, text

"""The grid scenario format (spec §5): the shipped scenario files, and one line for each bad one."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from shared_texts import shared_file

from battlesim.ecs.datafiles import DataError
from battlesim.systems.grid.scenario_check import load_scenario_plan, occupancy
from battlesim.systems.grid.scenario_spec import STEP_FIELDS

ROOT = Path(__file__).resolve().parents[3]
SCENARIOS = sorted((ROOT / "tests" / "scenarios" / "grid").glob("*.toml"))
RULES = shared_file("rules", "grid.md")


def paragraphs() -> dict[str, str]:
    """The rules text's numbered paragraphs (4.1.1 ... 4.4.4), whitespace folded."""
    text = RULES.read_text(encoding="utf-8") if RULES else ""
    out: dict[str, str] = {}
    for m in re.finditer(r"^(4\.\d+\.\d+)\s+(.*?)(?=^4\.\d+(?:\.\d+)?\s|\Z)", text, re.MULTILINE | re.DOTALL):
        out[m.group(1)] = " ".join(m.group(2).split())
    return out


def test_there_are_ten_or_more_scenarios():
    assert len(SCENARIOS) >= 10


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_each_scenario_parses_and_cites_its_sentence(path, params, card_set):
    plan = load_scenario_plan(path, params, card_set.specs)
    spec = plan.spec
    rules = [spec.rule] if isinstance(spec.rule, str) else spec.rule
    assert rules and all(r.startswith("grid.md 4.") for r in rules), rules
    text = paragraphs()
    if not text:
        pytest.skip("shared/rules/grid.md is not next to this checkout")
    for r in rules:
        number, quote = re.match(r'grid\.md (4\.\d+\.\d+): "(.*?)"', r).groups()
        quote = quote.replace("\\", "").replace("\u2019", "'").split("...")[0].strip()
        assert quote.replace("\u2019", "'") in text[number].replace("\u2019", "'"), (number, quote)
    assert (spec.expect is None) != (spec.expect_error is None)  # says what it checks
    if spec.expect_error:
        i, do = re.match(r"steps\[(\d+)\] \((\w+)\): not legal$", spec.expect_error).groups()
        assert spec.steps[int(i)].do == do and int(i) < len(spec.steps)


def test_a_plan_resolves_units_from_their_cards(params, card_set):
    plan = load_scenario_plan(ROOT / "tests/scenarios/grid/backstab_doubles_base.toml", params, card_set.specs)
    r = next(u for u in plan.units if u.name == "R")
    assert (r.cls, r.hp, r.max_hp, r.mv, r.damage, r.range, r.kill_points) == ("rogue", 7, 7, 4, 2, 1, 1)
    assert r.statuses == {"hidden": True} and [a.name for a in r.abilities] == ["Back Stab"]
    assert plan.se == [10, 10]
    occ = occupancy(plan)
    assert occ[plan.board.cell(3, 3)] == 0 and occ[plan.board.cell(3, 4)] == 1 and (occ >= 0).sum() == 2


def test_a_card_unit_written_with_less_hp_is_a_damaged_unit(params, card_set):
    # ledger "Scenario max_hp of a card unit": hp is the current HP, max_hp stays the card's
    plan = load_scenario_plan(ROOT / "tests/scenarios/grid/mend_heals_up_to_max.toml", params, card_set.specs)
    f = next(u for u in plan.units if u.name == "F")
    assert (f.hp, f.max_hp) == (6, 8)


def test_defaults_of_an_empty_scenario(tmp_path, params, card_set):
    p = tmp_path / "s.toml"
    p.write_text('ruleset = "grid"\n', encoding="utf-8")
    plan = load_scenario_plan(p, params, card_set.specs)
    s = plan.spec
    assert (s.seed, s.round, s.turn) == (0, 1, 0)
    assert (plan.board.width, plan.board.height) == (params.width, params.height)
    assert not plan.board.wall.any()  # no map is loaded
    assert plan.se == [params.se_start] * 2 and s.players.gold == [0, 0] and s.players.kill_points == [0, 0]


def test_every_step_kind_is_in_the_table():
    assert set(STEP_FIELDS) == {"start_unit_turn", "move", "attack", "ability", "hide", "end_unit_turn", "end_turn",
                                "hire", "play"}


BASE = """ruleset = "grid"
seed = 1

[board]
walls = [[5, 5]]

[players]
hand = [["Footman"], []]

[[units]]
side = 0
x = 1
y = 1
name = "A"
card = "Footman"

[[units]]
side = 1
x = 1
y = 2
name = "E"
class = "archer"
hp = 5
mv = 2
damage = 1

[[steps]]
do = "move"
unit = "A"
to = [2, 1]
"""


@pytest.mark.parametrize("old,new,words", [
    ('ruleset = "grid"', 'ruleset = "lanes"', "field 'ruleset': expected one of"),
    ("seed = 1", "seed = 1\nmap = 3", "field 'map': unknown field"),
    ("walls = [[5, 5]]", "walls = [[8, 5]]", "board.walls[0]: cell [8, 5] is off the 8x8 board"),
    ("walls = [[5, 5]]", "walls = [[5, 5]]\nwebs = [[5, 5]]", "board.webs[0]: cell [5, 5] is also in walls"),
    ("walls = [[5, 5]]", "walls = [[5, 5, 1]]", "field 'board.walls[0]': expected at most 2 items"),
    ("x = 1\ny = 1\nname = \"A\"", "x = 1\ny = 2\nname = \"A\"", "units[1]: stands on [1, 2] with units[0]"),
    ('name = "E"', 'name = "A"', "units[1]: name 'A' is also units[0]'s"),
    ("x = 1\ny = 1\nname = \"A\"", "x = 5\ny = 5\nname = \"A\"", "units[0]: stands on the wall [5, 5]"),
    ("x = 1\ny = 1\nname = \"A\"", "x = 8\ny = 1\nname = \"A\"", "units[0]: cell [8, 1] is off the 8x8 board"),
    ('class = "archer"\n', "", "units[1]: an inline unit (no 'card') needs 'class'"),
    ("hp = 5\n", "hp = 5\nmax_hp = 4\n", "units[1]: hp 5 is above max_hp 4"),
    ("hp = 5\n", "hp = 0\n", "field 'units[1].hp': must be >= 1"),
    ('card = "Footman"', 'card = "Footmen"', "units[0]: unknown card 'Footmen'; did you mean 'Footman'?"),
    ('card = "Footman"', 'card = "Haste"', "units[0]: 'Haste' is a spell, only units and heroes stand on the board"),
    ("damage = 1\n", "damage = 1\nstatuses = { asleep = true }\n", "units[1].statuses: unknown status 'asleep'"),
    ("damage = 1\n", "damage = 1\nkeywords = { flyng = true }\n", "units[1].keywords: unknown keyword 'flyng'"),
    ("damage = 1\n", 'damage = 1\nabilities = [{ name = "X", op = "jump", range = 2 }]\n',
     "units[1].abilities[0]: op 'jump' does not use 'range'"),
    ('hand = [["Footman"], []]', 'hand = [["Footman", "Nobody"], []]', "players.hand[0]: unknown card 'Nobody'"),
    ('hand = [["Footman"], []]', 'hand = [["Footman"] ,[]]\nse = [100, 0]', "field 'players.se[0]': must be <= 99"),
    ('hand = [["Footman"], []]', 'hand = [["Footman"] ,[]]\ngold = [1]', "field 'players.gold': expected at least 2"),
    ('hand = [["Footman"], []]', 'hand = [["Haste", "Haste", "Haste", "Haste", "Haste", "Haste", "Haste", "Haste"], []]',
     "players.hand[0]: 8 cards, a hand holds at most 7"),
    ("to = [2, 1]", "", "steps[0] (move): field 'to': missing (required)"),
    ("to = [2, 1]", "to = [2, 1]\ncard = \"Footman\"", "steps[0] (move): field 'card' is not used by 'move'"),
    ("to = [2, 1]", "to = [2, 8]", "steps[0] (move): field 'to': cell [2, 8] is off the 8x8 board"),
    ('do = "move"', 'do = "walk"', "field 'steps[0].do': expected one of"),
    ('unit = "A"', 'unit = "B"', "steps[0] (move): field 'unit': no unit named 'B'"),
])
def test_each_kind_of_bad_scenario_is_one_line(tmp_path, params, card_set, old, new, words):
    assert old in BASE
    p = tmp_path / "s.toml"
    p.write_text(BASE.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(DataError) as e:
        load_scenario_plan(p, params, card_set.specs)
    msg = str(e.value)
    assert "\n" not in msg and re.match(rf"^{re.escape(str(p))}:\d+: ", msg), msg
    assert words in msg, msg


STEP_CASES = [
    ('do = "attack"\nunit = "A"', "steps[1] (attack): field 'target' or 'cell': missing (required)"),
    ('do = "attack"\nunit = "A"\ntarget = "E"\ncell = [1, 2]', "steps[1] (attack): give 'target' or 'cell', not both"),
    ('do = "attack"\nunit = "A"\ntarget = "E"\nability = "Smash"', "steps[1] (attack): field 'ability': 'A' has no ability 'Smash'"),
    ('do = "ability"\nunit = "S"\nability = "Shield Bash"\ntarget = "E"',
     "steps[1] (ability): field 'ability': 'Shield Bash' is op 'attack', used with an 'attack' step"),
    ('do = "attack"\nunit = "S"\nability = "Shove"\ntarget = "E"',
     "steps[1] (attack): field 'ability': 'Shove' is op 'push', used with an 'ability' step"),
    ('do = "hire"\ncard = "Haste"\nat = [0, 0]', "steps[1] (hire): field 'card': 'Haste' is a spell; hire takes a unit or a hero"),
    ('do = "play"\ncard = "Footman"\ncell = [0, 0]', "steps[1] (play): field 'card': 'Footman' is a unit; play takes a spell"),
    ('do = "end_turn"\nunit = "A"', "steps[1] (end_turn): field 'unit' is not used by 'end_turn' (it takes: no fields)"),
    ('do = "hide"', "steps[1] (hide): field 'unit': missing (required)"),
    ('do = "hire"\ncard = "Footman"\nat = [0, 0]\nside = 2', "field 'steps[1].side': expected one of"),
]


@pytest.mark.parametrize("step,words", STEP_CASES)
def test_each_kind_of_bad_step_is_one_line(tmp_path, params, card_set, step, words):
    text = BASE + '\n[[units]]\nside = 0\nx = 4\ny = 4\nname = "S"\ncard = "Shieldbearer"\n\n[[steps]]\n' + step + "\n"
    p = tmp_path / "s.toml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as e:
        load_scenario_plan(p, params, card_set.specs)
    msg = str(e.value)
    assert "\n" not in msg and words in msg, msg


def test_a_hired_unit_is_named_by_its_card_in_later_steps(tmp_path, params, card_set):
    text = BASE + '\n[[steps]]\ndo = "hire"\ncard = "Footman"\nat = [0, 0]\n\n[[steps]]\ndo = "end_turn"\n'
    p = tmp_path / "s.toml"
    p.write_text(text.replace('name = "A"', 'name = "Al"').replace('unit = "A"', 'unit = "Al"') +
                 '\n[[steps]]\ndo = "end_turn"\n\n[[steps]]\ndo = "move"\nunit = "Footman"\nto = [0, 1]\n',
                 encoding="utf-8")
    plan = load_scenario_plan(p, params, card_set.specs)
    assert plan.spec.steps[-1].unit == "Footman"


@pytest.mark.parametrize("expect,words", [
    ("[expect]\nwinner = 2\n", "field 'expect.winner': expected one of"),
    ("[expect]\nscore = [1, 2]\n", "field 'expect.score': unknown field"),
    ('[[expect.units]]\nhp = 3\n', "field 'expect.units[0].name': missing (required)"),
    ('[[expect.units]]\nname = "A"\nhealth = 3\n', "field 'expect.units[0].health': unknown field"),
])
def test_a_bad_expect_is_one_line(tmp_path, params, card_set, expect, words):
    p = tmp_path / "s.toml"
    p.write_text(BASE + "\n" + expect, encoding="utf-8")
    with pytest.raises(DataError) as e:
        load_scenario_plan(p, params, card_set.specs)
    msg = str(e.value)
    assert "\n" not in msg and words in msg, msg


def test_expect_and_expect_error_together_are_refused(tmp_path, params, card_set):
    p = tmp_path / "s.toml"
    p.write_text(BASE.replace("seed = 1", 'seed = 1\nexpect_error = "x"') + "\n[expect]\nround = 1\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"s\.toml:3: expect_error: a scenario expects a state \(\[expect\]\) or an error"):
        load_scenario_plan(p, params, card_set.specs)


def test_bad_toml_is_one_line(tmp_path, params, card_set):
    p = tmp_path / "s.toml"
    p.write_text('ruleset = "grid"\nseed = \n', encoding="utf-8")
    with pytest.raises(DataError, match=r"s\.toml: invalid TOML"):
        load_scenario_plan(p, params, card_set.specs)


def test_scenario_cards_join_the_set(tmp_path, params, card_set):
    text = BASE.replace('card = "Footman"', 'card = "Test Knight"') + """
[[cards]]
name = "Test Knight"
type = "unit"
class = "warrior"
hp = 11
mv = 2
damage = 3
"""
    p = tmp_path / "s.toml"
    p.write_text(text, encoding="utf-8")
    plan = load_scenario_plan(p, params, card_set.specs)
    assert next(u for u in plan.units if u.name == "A").hp == 11
    p.write_text(text.replace('name = "Test Knight"', 'name = "Footman"').replace('card = "Test Knight"', 'card = "Footman"'),
                 encoding="utf-8")
    with pytest.raises(DataError, match=r"cards\[0\]: 'Footman' already exists in the card set"):
        load_scenario_plan(p, params, card_set.specs)


def test_the_toml_of_every_scenario_has_only_spec_keys():
    allowed = {"ruleset", "seed", "round", "turn", "rule", "description", "board", "players", "cards", "units",
               "steps", "expect", "expect_error"}
    for path in SCENARIOS:
        assert set(tomllib.loads(path.read_text(encoding="utf-8"))) <= allowed, path.name

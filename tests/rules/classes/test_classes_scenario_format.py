"""spec §14: the classes scenario format, parsed and validated exactly: its keys and defaults,
inline ``[[cards]]``, ``[[powers]]``, ``[[levels]]``, the steps, and one-line errors naming the
file and the field. Running the steps is the engine's (issue 15, not built yet): here every
shipped scenario parses, cites its sentence, and says what it expects."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from battlesim.systems.classes.cards import load_cards
from battlesim.systems.classes.powers import load_boards
from battlesim.systems.classes.scenario_check import load_scenario
from battlesim.systems.classes.scenario_error import ScenarioError

ROOT = Path(__file__).resolve().parents[3]
FILES = sorted((ROOT / "tests" / "scenarios" / "classes").glob("*.toml"))
LEDGER = (ROOT / "docs" / "rules" / "classes.md").read_text(encoding="utf-8")
# the ledger's sentence column, in order, without the text's emphasis marks: a quote may span sentences
SENTENCES = " ".join(m.group(1).replace("*", "").replace("\\|", "|")
                     for m in re.finditer(r"^\| \d+ \| (.+?) \| ", LEDGER, re.MULTILINE))
QUOTE = re.compile(r'classes\.md(?: "[^"]+")?: "(.+?)"(?:$|\s*$)')


@pytest.fixture(scope="module")
def data():
    cards = load_cards()
    return cards, load_boards(cards)


def test_there_are_at_least_10_scenarios():
    assert len(FILES) >= 10


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_scenario_parses_cites_its_sentence_and_expects(path, data):
    sc = load_scenario(path, *data)
    rules = [sc.spec.rule] if isinstance(sc.spec.rule, str) else sc.spec.rule
    assert rules and all(rules), "a scenario cites the rule it checks"
    assert sc.spec.expect is not None or sc.spec.expect_error, "a scenario says what it expects"
    for rule in rules:
        m = QUOTE.match(rule)
        assert m, f"cite as classes.md: \"sentence\" (got {rule!r})"
        # every cited fragment is a sentence of the text, quoted in the ledger
        for fragment in m.group(1).split(" ... "):
            assert fragment.strip(' "') in SENTENCES, fragment


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "probe.toml"
    path.write_text('ruleset = "classes"\nrule = \'classes.md: "x"\'\n' + text, encoding="utf-8")
    return path


def error(tmp_path: Path, data, text: str) -> str:
    with pytest.raises(ScenarioError) as e:
        load_scenario(write(tmp_path, text), *data)
    message = str(e.value)
    assert "\n" not in message and "probe.toml" in message, message
    return message


def test_defaults_of_every_key(tmp_path, data):
    sc = load_scenario(write(tmp_path, ""), *data).spec
    assert (sc.seed, sc.turn, sc.active, sc.units, sc.steps, sc.expect) == (0, 1, 0, [], [], None)
    p = sc.players
    assert p.class_ == ["none", "none"] and p.life == [20, 20] and p.level == [1, 1]
    assert p.experience == [0, 0] and p.pool == [{}, {}] and p.cooldown == [[{}, {}, {}], [{}, {}, {}]]
    assert p.cooldown_current == [0, 0] and p.hand == [[], []] and p.nether == [[], []] and p.choices == [[], []]


SPEC_EXAMPLE = """
seed = 1
turn = 1
active = 0
description = "..."

[players]
class = ["Paladin", "Warlock"]
life = [20, 20]
level = [1, 1]
experience = [0, 0]
pool = [{ white = 2, summoning = 1 }, {}]
cooldown = [[{}, {}, {}], [{}, {}, {}]]
cooldown_current = [0, 0]
hand = [["Test Bolt"], []]
nether = [[], []]
choices = [["red", "summoning:white", "power:Test Grace"], []]

[[cards]]
name = "Test Bolt"
type = "Spell"
cost = { red = 1 }
target = "enemy_unit"
effects = [{ op = "damage", select = "chosen", amount = 2 }]

[[cards]]
name = "Test Renew"
type = "Spell"
cost = { white = 1 }
target = "allied_unit"
effects = [{ op = "heal", select = "chosen", amount = 2 }]

[[cards]]
name = "Test Squire"
type = "Follower"
attack = 1
health = 2
range = 1
keywords = { shield = 1 }
ability = { cost = { wild = 1 }, clock = false, target = "enemy_unit", effects = [{ op = "damage", select = "chosen", amount = 1 }] }
effects = [{ trigger = "aura", op = "gain", stat = "attack", amount = 1, select = "other_allied_units" }]

[[powers]]
side = 0
name = "Test Grace"
innate = true
level = 1
slots = 2
tokens = 0
requires = "Call to Arms"
abilities = [{ cost = { summoning = 1 }, clock = true, target = "first_row", effects = [{ op = "summon" }] }]
on_token = [[{ op = "add_card", card = "Test Renew" }, { op = "gain_mana", colour = "white", amount = 1 }],
            [{ op = "add_card", card = "Test Squire" }]]

[[levels]]
side = 0
level = 1
max_experience = 4
bonus = ["mana"]

[[prepared]]
side = 1
card = "Dark Trade"
mana = { purple = 1 }
this_turn = false

[[play_area]]
side = 1
card = "Pact of Flames"

[[units]]
side = 0
lane = 2
row = 1
name = "Guard"
attack = 1
health = 3
base_attack = 1
base_health = 3
range = 1
keywords = { shield = 1, ferocious = true }
conditions = { stun = 1 }
defending = false
enchanted = [{ side = 1, shape = "pentagon", tokens = 1 }]

[[units]]
side = 1
lane = 2
row = 3
card = "Imp"

[[steps]]
do = "cast"
side = 0
card = "Test Bolt"
target = [2, 3]
"""


def test_the_spec_example_parses(tmp_path, data):
    # spec §14's example, every key filled in
    sc = load_scenario(write(tmp_path, SPEC_EXAMPLE), *data)
    assert sc.cards.specs["Test Squire"].ability.cost == {"wild": 1} and sc.cards.class_of["Test Bolt"] is None
    assert sc.sides[0].power("Test Grace").requires == "Call to Arms" and sc.sides[0].levels[0].bonus == ["mana"]
    assert sc.spec.units[0].keywords == {"shield": 1, "ferocious": True} and sc.spec.prepared[0].card == "Dark Trade"


def test_inline_powers_levels_and_tokens(tmp_path, data):
    sc = load_scenario(write(tmp_path, """
[players]
class = ["Paladin", "none"]
choices = [["red", "summoning:white", "power:Test Call"], []]
[[powers]]
side = 0
name = "Test Call"
innate = true
level = 1
slots = 1
abilities = [{ cost = { summoning = 1 }, clock = true, target = "first_row", effects = [{ op = "summon" }] }]
on_token = [[{ op = "add_card", card = "Footman" }, { op = "gain_mana", colour = "white", amount = 1 }]]
[[powers]]
side = 0
name = "Beacon of Light"
tokens = 2
[[levels]]
side = 1
level = 1
max_experience = 4
bonus = ["mana"]
"""), *data)
    paladin = sc.sides[0]
    assert paladin.power("Test Call").abilities[0].clock and paladin.power("Call to Arms") is not None
    assert paladin.tokens == {"Test Call": 0, "Beacon of Light": 2}
    assert [lv.max_experience for lv in paladin.levels] == [4, 5, 6, 7, 8]  # the class's table
    assert [lv.bonus for lv in sc.sides[1].levels] == [["mana"]]  # inline tables may omit the token


def test_steps_take_the_fields_of_the_table(tmp_path, data):
    sc = load_scenario(write(tmp_path, """
[players]
class = ["Paladin", "none"]
[[steps]]
do = "act_step"
orders = [{ lane = 2, row = 1, first = "advance", action = "defend" }]
[[steps]]
do = "class_ability"
power = "Beacon of Light"
ability = 1
[[steps]]
do = "cast"
card = "Smite"
from = "prepared"
target = [2, 3]
pay = { white = 1 }
[[steps]]
do = "enchantments_step"
order = ["Vigil", "Dark Trade"]
[[steps]]
do = "turn"
"""), *data)
    assert [s.do for s in sc.spec.steps] == ["act_step", "class_ability", "cast", "enchantments_step", "turn"]
    assert sc.spec.steps[2].from_ == "prepared" and sc.spec.steps[0].orders[0].first == "advance"


@pytest.mark.parametrize("text, words", [
    ("colour = 1\n", ["field 'colour'", "unknown field"]),
    ('ruleset = "lanes"\n', ["Cannot overwrite"]),  # a key given twice is invalid TOML
    ("turn = 0\n", ["field 'turn'", "must be >= 1"]),
    ("active = 2\n", ["field 'active'"]),
    ("[players]\nclass = [\"Paladin\", \"Priest\"]\n", ["field 'players.class[1]'"]),
    ("[players]\nlife = [20]\n", ["field 'players.life'", "expected at least 2 items"]),
    ("[players]\npool = [{ green = 1 }, {}]\n", ["field 'players.pool'", "unknown colour 'green'"]),
    ("[players]\npool = [{ wild = 1 }, {}]\n", ["field 'players.pool'", "unknown colour 'wild'"]),
    ("[players]\ncooldown = [[{}, {}], [{}, {}, {}]]\n", ["field 'players.cooldown[0]'", "expected at least 3 items"]),
    ("[players]\ncooldown_current = [3, 0]\n", ["field 'players.cooldown_current[0]'", "must be <= 2"]),
    ("[players]\nchoices = [[\"green\"], []]\n", ["field 'players.choices'", "unknown level-up answer 'green'"]),
    ("[players]\nchoices = [[\"power:Nope\"], []]\n", ["players.choices[0][0]", "no power 'Nope'"]),
    ("[players]\nhand = [[\"Footmann\"], []]\n", ["players.hand[0][0]", "unknown card 'Footmann'", "did you mean 'Footman'"]),
    ("[players]\nclass = [\"Paladin\", \"none\"]\nlevel = [6, 1]\n", ["players.level[0]", "stops at 5"]),
    ("[players]\nclass = [\"Paladin\", \"none\"]\nexperience = [4, 0]\n", ["players.experience[0]", "complete at 4"]),
    ("[[units]]\nside = 0\nlane = 5\nrow = 0\nname = \"X\"\n", ["field 'units[0].lane'", "must be <= 4"]),
    ("[[units]]\nside = 0\nlane = 0\nrow = 6\nname = \"X\"\n", ["field 'units[0].row'", "must be <= 5"]),
    ("[[units]]\nside = 0\nlane = 0\nrow = 0\n", ["units[0]", "exactly one of 'name'"]),
    ("[[units]]\nside = 0\nlane = 0\nrow = 0\nname = \"X\"\n[[units]]\nside = 1\nlane = 0\nrow = 0\nname = \"Y\"\n",
     ["units[0] and units[1] both stand on [0, 0]"]),
    ("[[units]]\nside = 0\nlane = 0\nrow = 0\nname = \"X\"\nconditions = { frozen = 1 }\n", ["unknown condition 'frozen'"]),
    ("[[units]]\nside = 0\nlane = 0\nrow = 0\nname = \"X\"\nkeywords = { taunt = true }\n",
     ["units[0].keywords", "unknown keyword 'taunt'"]),
    ("[[units]]\nside = 0\nlane = 0\nrow = 0\ncard = \"Smite\"\n", ["units[0].card", "'Smite' is a spell"]),
    ("[[units]]\nside = 0\nlane = 0\nrow = 0\nname = \"X\"\nhealth = 0\n", ["field 'units[0].health'", "must be >= 1"]),
    ("[[units]]\nside = 0\nlane = 0\nrow = 0\nname = \"X\"\nenchanted = [{ side = 0, shape = \"star\" }]\n",
     ["field 'units[0].enchanted[0].shape'"]),
    ("[[prepared]]\nside = 0\ncard = \"Footman\"\n", ["prepared[0].card", "is not a spell"]),
    ("[[prepared]]\nside = 0\ncard = \"Smite\"\n[[prepared]]\nside = 0\ncard = \"Rally\"\n", ["side 0 has 2 prepared"]),
    ("[[play_area]]\nside = 0\ncard = \"Smite\"\n", ["play_area[0].card", "no Aura or Enchantment"]),
    (("[[play_area]]\nside = 0\ncard = \"Vigil\"\nshape = \"circle\"\n[[play_area]]\nside = 0\ncard = \"Dark Trade\"\n"
     "shape = \"circle\"\n"), ["uses a shape twice"]),
    ("[[powers]]\nside = 0\nname = \"Ghost Power\"\ntokens = 1\n", ["powers[0]", "not a power of side 0's board"]),
    ("[players]\nclass = [\"Paladin\", \"none\"]\n[[powers]]\nside = 0\nname = \"Path of Mercy\"\ntokens = 3\n",
     ["powers[0]", "3 tokens, the power has 2 slots"]),
    ("[[powers]]\nside = 0\nname = \"P\"\nlevel = 1\nabilities = [{ effects = [{ op = \"zap\" }] }]\n", ["unknown op 'zap'"]),
    ("[[levels]]\nside = 0\nlevel = 2\nmax_experience = 3\n", ["levels (side 0)[0]", "expected 1"]),
    ("[[cards]]\nname = \"Smite\"\ntype = \"Spell\"\neffects = [{ op = \"remove\" }]\n", ["cards[0]", "already exists"]),
    ("[[cards]]\nname = \"T\"\ntype = \"Spell\"\neffects = [{ op = \"damage\", select = \"chosen\", amount = 1 }]\n",
     ["'T'", "needs a 'target'"]),
    ("[[steps]]\ndo = \"combat\"\n", ["field 'steps[0].do'", "expected one of"]),
    ("[[steps]]\ndo = \"cast\"\n", ["steps[0]", "step 'cast' needs 'card'"]),
    ("[[steps]]\ndo = \"mana_step\"\nside = 0\n", ["steps[0]", "step 'mana_step' takes no 'side'"]),
    ("[[steps]]\ndo = \"cast\"\ncard = \"Smite\"\ntarget = [5, 0]\n", ["field 'steps[0].target'", "[lane 0-4, row 0-5]"]),
    ("[[steps]]\ndo = \"cast\"\ncard = \"Smite\"\nintersection = [4, 0]\n", ["field 'steps[0].intersection'"]),
    ("[[steps]]\ndo = \"cast\"\ncard = \"Smite\"\nfrom = \"deck\"\n", ["field 'steps[0].from'"]),
    ("[[steps]]\ndo = \"cast\"\ncard = \"Footman\"\n", ["steps[0] (cast).card", "is not a spell"]),
    ("[[steps]]\ndo = \"act\"\nlane = 1\nrow = 1\naction = \"charge\"\n", ["field 'steps[0].action'"]),
    ("[[steps]]\ndo = \"act_step\"\norders = [{ lane = 1, row = 1, speed = 2 }]\n", ["field 'steps[0].orders[0].speed'"]),
    ("[players]\nclass = [\"Paladin\", \"none\"]\n[[steps]]\ndo = \"class_ability\"\npower = \"Call to Arm\"\n",
     ["steps[0] (class_ability).power", "did you mean 'Call to Arms'"]),
    ("[players]\nclass = [\"Paladin\", \"none\"]\n[[steps]]\ndo = \"class_ability\"\npower = \"Call to Arms\"\nability = 1\n",
     ["steps[0] (class_ability).ability", "has 1 abilities"]),
    ("[[steps]]\ndo = \"cast\"\ncard = \"Smite\"\n", ["steps[0] (cast)", "needs 'target' (the target is 'enemy_unit')"]),
    ("[[steps]]\ndo = \"cast\"\ncard = \"Smite\"\ntarget = \"enemy_player\"\n", ["steps[0] (cast).target", "give [lane, row]"]),
    ("[[steps]]\ndo = \"cast\"\ncard = \"Consecration\"\ntarget = [1, 1]\n", ["steps[0] (cast).target", "give 'intersection'"]),
    ("[[steps]]\ndo = \"cast\"\ncard = \"Hellfire\"\nlane = 1\n", ["steps[0] (cast).lane", "the target is 'none'"]),
    ("[players]\nclass = [\"Paladin\", \"none\"]\n[[steps]]\ndo = \"class_ability\"\npower = \"Call to Arms\"\ncard = \"Footman\"\n",
     ["steps[0] (class_ability)", "needs 'lane' (the target is 'first_row')"]),
    ("expect_error = \"x\"\n[expect]\nturn = 2\n", ["give '[expect]' or 'expect_error'"]),
    ("[expect]\nwinner = 2\n", ["field 'expect.winner'"]),
    ("[[expect.units]]\nlane = 0\nrow = 0\nhp = 2\n", ["field 'expect.units[0].hp'", "unknown field"]),
    ("[[expect.players]]\nside = 0\nmana = 2\n", ["field 'expect.players[0].mana'"]),
])
def test_errors_are_one_line_naming_file_and_field(tmp_path, data, text, words):
    message = error(tmp_path, data, text)
    for w in words:
        assert w in message, (w, message)

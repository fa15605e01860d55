"""The grid card set (spec §3): what ships, what it covers, and one-line errors for bad cards."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from battlesim.ecs.datafiles import DataError
from battlesim.systems.grid.cards import abilities_of, load_cards
from battlesim.systems.grid.catalog import compile_catalog
from battlesim.systems.grid.vocabulary import (
    CARD_TYPES,
    CLASS_NAMES,
    CONCEAL_STATUSES,
    DAMAGE_TYPES,
    DEFAULT_RANGE,
    KEYWORDS,
    OP_NAMES,
    TAGS,
)


def test_the_proposed_set_ships(card_set):
    # spec §3 "Proposed set": four heroes, twelve units, spells, items (and the excerpt's traps)
    by_type = {t: sorted(n for n, s in card_set.specs.items() if s.type == t) for t in CARD_TYPES}
    assert by_type["hero"] == ["Archmage", "Champion", "Ranger Captain", "Shadowblade"]
    assert len(by_type["unit"]) >= 12
    for name in ("Footman", "Shieldbearer", "Berserker", "Cutpurse", "Venom Stalker", "Elf Gatherer", "Longbowman",
                 "Acolyte", "Hex Witch", "Giant Bat", "Sellsword", "Stone Golem"):
        assert name in by_type["unit"]
    assert {"Haste", "Lightning Bolt", "Vanish", "Scout's Eye"} <= set(by_type["spell"])
    assert {"Boots of Speed", "Iron Shield", "Poisoned Blade", "Longbow"} <= set(by_type["item"])
    assert {"Spike Trap", "Explosion Trap"} <= set(by_type["trap"])


def test_every_word_of_the_vocabulary_is_used_by_a_card(card_set):
    # issue 16: "every class, damage type, keyword and ability op used by a card (a test checks it)"
    specs = list(card_set.specs.values())
    abilities = [a for s in specs for a in abilities_of(s)]
    used = {
        "class": {s.class_ for s in specs if s.class_},
        "damage type": {s.damage_type for s in specs if s.is_unit} | {a.damage_type for a in abilities if a.damage_type},
        "keyword": {k for s in specs for k in s.keywords} | {k for s in specs if s.grants for k in s.grants.keywords},
        "op": {a.op for a in abilities},
        "tag": {t for s in specs for t in s.tags},
        "card type": {s.type for s in specs},
        "conceal status": {a.status for a in abilities if a.status},
    }
    known = {"class": CLASS_NAMES, "damage type": DAMAGE_TYPES, "keyword": tuple(KEYWORDS), "op": OP_NAMES,
             "tag": TAGS, "card type": CARD_TYPES, "conceal status": CONCEAL_STATUSES}
    for what, words in known.items():
        unused = sorted(set(words) - used[what])
        assert not unused, f"{what} never used by a card: {unused}"


def test_the_damage_sources_of_the_text(card_set):
    # grid.md 4.4.3: "Physical damage occurs from melee, ranged weapons and spike traps. Magic damage
    # occurs from spells, totems and explosion traps." "Poison damage occurs from base attacks by cards
    # with the poison symbol and from abilities or spells that have poison damage."
    s = card_set.specs
    assert s["Spike Trap"].effect.damage_type == "physical"
    assert s["Explosion Trap"].effect.damage_type == "magic"
    assert s["Lightning Bolt"].effect.damage_type == "magic"
    assert s["Venom Stalker"].damage_type == "poison" and s["Hex Witch"].abilities[0].damage_type == "poison"
    assert s["Footman"].damage_type == "physical" and s["Longbowman"].damage_type == "physical"


def test_catalog_resolves_defaults_once(card_set):
    cat = card_set.catalog
    a = cat.arrays
    for name in ("Footman", "Cutpurse", "Longbowman", "Acolyte"):
        spec = card_set.specs[name]
        assert a.range[cat.id(name)] == DEFAULT_RANGE[spec.class_]  # grid.md 4.4.1
    assert a.kill_points[cat.id("Champion")] == 3 and a.kill_points[cat.id("Footman")] == 1  # spec §2
    bs = cat.id("Cutpurse")
    assert a.ab_op[bs, 0] == OP_NAMES.index("attack") and a.ab_mult2[bs, 0] == 4 and a.ab_requires_hidden[bs, 0]
    assert a.ab_op[bs, 1] == -1
    lb = cat.id("Lightning Bolt")
    assert a.ab_damage_type[lb, 0] == DAMAGE_TYPES.index("magic") and a.ab_range[lb, 0] == 3
    assert a.ab_card[cat.id("Scout's Eye"), 0] == cat.id("Longbowman")
    assert a.ab_amount[cat.id("Shieldbearer"), 1] == 1  # push 1 by default
    assert a.grant_damage_type[cat.id("Poisoned Blade")] == DAMAGE_TYPES.index("poison")


def test_catalog_dtypes_hold_their_values(card_set):
    a = card_set.catalog.arrays
    assert a.hp.dtype == np.int16 and a.mv.dtype == np.int8 and a.resist.shape == (len(card_set.catalog), 3)
    assert not a.hp.flags.writeable


BASE = """[[cards]]
name = "Good"
type = "unit"
class = "warrior"
cost = 2
hp = 5
mv = 3
damage = 2

[[cards]]
name = "Bad"
type = "unit"
class = "warrior"
cost = 2
hp = 5
mv = 3
damage = 2
"""


def refused(tmp_path: Path, extra: str) -> str:
    d = tmp_path / "cards"
    d.mkdir()
    (d / "set.toml").write_text(BASE + extra, encoding="utf-8")
    with pytest.raises(DataError) as e:
        load_cards(d)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(str(d / "set.toml")), msg
    return msg


@pytest.mark.parametrize("extra,words", [
    ('keywords = { swimming = true }\n', "field 'keywords': unknown keyword 'swimming'"),
    ('keywords = { flying = 2 }\n', "keyword 'flying' takes true/false"),
    ('keywords = { parry = 11 }\n', "keyword 'parry' = 11: expected 1 to 10"),
    ('abilities = [{ name = "X", op = "fly" }]\n', "unknown op 'fly'"),
    ('abilities = [{ name = "X", op = "jump", amount = 2 }]\n', "op 'jump' does not use 'amount'"),
    ('abilities = [{ name = "X", op = "heal" }]\n', "op 'heal' needs 'amount'"),
    ('abilities = [{ name = "X", op = "attack", multiplier = 1.3 }]\n', "whole or half numbers"),
    ('abilities = [{ name = "X", op = "conceal", status = "stunned" }]\n', "conceal gives one of hidden, invisible"),
    ('abilities = [{ name = "X", op = "search", card = "Nobody" }]\n', "unknown card 'Nobody'"),
    ('abilities = [{ name = "X", op = "push" }, { name = "X", op = "rush" }]\n', "two abilities have the same name"),
    ('abilities = [{name="A",op="push"},{name="B",op="push"},{name="C",op="push"},{name="D",op="push"}]\n',
     "field 'abilities': expected at most 3 items"),
    ('damage_type = "fire"\n', "field 'damage_type': expected one of"),
    ('resist = { fire = 1 }\n', "field 'resist.fire': unknown field"),
    ('tags = ["dragon"]\n', "field 'tags[0]': expected one of"),
    ('range = 0\n', "field 'range': must be >= 1"),
    ('kill_points = "3"\n', "field 'kill_points': expected a whole number"),
])
def test_each_kind_of_bad_card_is_one_line_naming_card_and_field(tmp_path, extra, words):
    msg = refused(tmp_path, extra)
    assert "'Bad'" in msg and words in msg, msg
    assert re.match(r"^.*set\.toml:\d+: 'Bad': ", msg), msg


@pytest.mark.parametrize("old,new,words", [
    ("hp = 5\nmv = 3\ndamage = 2\n", "hp = 1000\nmv = 3\ndamage = 2\n", "field 'hp': must be <= 999"),
    ("hp = 5\nmv = 3\ndamage = 2\n", "hp = 5\nmv = 21\ndamage = 2\n", "field 'mv': must be <= 20"),
    ('class = "warrior"\ncost = 2\nhp = 5\nmv = 3\ndamage = 2\n', 'cost = 2\nhp = 5\nmv = 3\ndamage = 2\n',
     "a unit needs a 'class'"),
    ('type = "unit"\nclass = "warrior"\ncost = 2\nhp = 5\nmv = 3\ndamage = 2\n',
     'type = "spell"\ncost = 2\nhp = 5\n', "a spell does not stand on the board: no 'hp'"),
    ('type = "unit"\nclass = "warrior"\ncost = 2\nhp = 5\nmv = 3\ndamage = 2\n', 'type = "spell"\ncost = 2\n',
     "a spell needs an 'effect'"),
    ('type = "unit"\nclass = "warrior"\ncost = 2\nhp = 5\nmv = 3\ndamage = 2\n', 'type = "item"\ncost = 2\n',
     "an item needs 'grants'"),
    ('type = "unit"\nclass = "warrior"\ncost = 2\nhp = 5\nmv = 3\ndamage = 2\n',
     'type = "trap"\ncost = 2\neffect = { name = "T", op = "attack", damage = 3 }\n', "needs its 'damage_type'"),
    ('type = "unit"\nclass = "warrior"\ncost = 2\nhp = 5\nmv = 3\ndamage = 2\n',
     'type = "spell"\ncost = 2\neffect = { name = "T", op = "extra_mv", amount = 1, se = 2 }\n', "its effect has no 'se'"),
    ('type = "unit"\nclass = "warrior"\ncost = 2\nhp = 5\nmv = 3\ndamage = 2\n',
     'type = "item"\ncost = 2\ngrants = { keywords = { sneaky = true } }\n', "unknown keyword 'sneaky'"),
])
def test_each_kind_of_bad_shape_is_one_line(tmp_path, old, new, words):
    body = BASE.split('name = "Bad"\n')[1]
    d = tmp_path / "cards"
    d.mkdir()
    (d / "set.toml").write_text(BASE.replace('name = "Bad"\n' + body, 'name = "Bad"\n' + body.replace(old, new)),
                                encoding="utf-8")
    with pytest.raises(DataError) as e:
        load_cards(d)
    msg = str(e.value)
    assert "\n" not in msg and "'Bad'" in msg and words in msg, msg


def test_a_duplicate_name_names_both_files(tmp_path):
    d = tmp_path / "cards"
    d.mkdir()
    (d / "a.toml").write_text(BASE, encoding="utf-8")
    (d / "b.toml").write_text(BASE.split("[[cards]]")[1].join(["[[cards]]", ""]), encoding="utf-8")
    with pytest.raises(DataError, match=r"b\.toml:\d+: 'Good': duplicate card name \(also in .*a\.toml\)"):
        load_cards(d)


def test_the_catalog_of_a_small_set(tmp_path):
    d = tmp_path / "cards"
    d.mkdir()
    (d / "a.toml").write_text(BASE, encoding="utf-8")
    specs, _ = load_cards(d)
    cat = compile_catalog(specs)
    assert cat.names == ["Bad", "Good"] and list(cat.arrays.range) == [1, 1]

"""DESIGN.md "Data files": "an error names the file, the card and the field, in one line ... an
unknown keyword, opcode or card is an error, never a silent default". One test per kind of error
in classes' card, class-board and deck files."""

from __future__ import annotations

from pathlib import Path

import pytest

from battlesim.ecs.datafiles import DataError
from battlesim.systems.classes.cards import load_cards
from battlesim.systems.classes.decks import load_deck
from battlesim.systems.classes.powers import load_board, load_boards

UNIT = 'name = "Probe"\ntype = "Follower"\nattack = 1\nhealth = 2\n'
SPELL = 'name = "Probe"\ntype = "Spell"\ncost = { white = 1 }\ntarget = "enemy_unit"\n' \
        'effects = [{ op = "damage", select = "chosen", amount = 2 }]\n'


def card_error(tmp_path: Path, body: str, head: str = 'class = "Paladin"\n') -> str:
    (tmp_path / "set.toml").write_text(head + "[[cards]]\n" + body, encoding="utf-8")
    with pytest.raises(DataError) as e:
        load_cards(tmp_path)
    message = str(e.value)
    assert "\n" not in message and "set.toml" in message, message
    return message


@pytest.mark.parametrize("body, words", [
    (UNIT + "keywords = { sheild = 1 }\n", ["'Probe'", "keywords", "unknown keyword 'sheild'", "did you mean 'shield'"]),
    (UNIT + "keywords = { grounded = 2 }\n", ["'Probe'", "keyword 'grounded' takes true/false"]),
    (UNIT + "keywords = { shield = 11 }\n", ["'Probe'", "keyword 'shield' = 11"]),
    (UNIT.replace("attack = 1", "attack = 1000"), ["'Probe'", "field 'attack'", "must be <= 100"]),
    (UNIT.replace("health = 2", "health = 0"), ["'Probe'", "field 'health'", "must be >= 1"]),
    (UNIT.replace("health = 2", 'health = "2"'), ["'Probe'", "field 'health'", "expected a whole number"]),
    (UNIT + "copies = 25\n", ["'Probe'", "field 'copies'"]),
    (UNIT + "atack = 2\n", ["'Probe'", "field 'atack'", "did you mean 'attack'"]),
    (UNIT + "cost = { white = 1 }\n", ["'Probe'", "a unit card has no cost"]),
    (UNIT + "range = 0\n", ["'Probe'", "field 'range'"]),
    (SPELL.replace('op = "damage"', 'op = "damge"'), ["'Probe'", "effects", "unknown op 'damge'", "did you mean 'damage'"]),
    (SPELL.replace(', amount = 2', ''), ["'Probe'", "op 'damage' needs 'amount'"]),
    (SPELL.replace('amount = 2', 'amount = 2, colour = "red"'), ["'Probe'", "op 'damage' takes no 'colour'"]),
    (SPELL.replace('select = "chosen"', 'select = "choosen"'), ["'Probe'", "unknown selector 'choosen'"]),
    (SPELL.replace('{ op', '{ trigger = "on_play", op'), ["'Probe'", "unknown trigger 'on_play'"]),
    (SPELL.replace("white = 1", "green = 1"), ["'Probe'", "field 'cost'", "unknown colour 'green'"]),
    (SPELL.replace("white = 1", "white = 21"), ["'Probe'", "field 'cost'", "white = 21"]),
    (SPELL.replace('target = "enemy_unit"\n', ''), ["'Probe'", "needs a 'target'"]),
    (SPELL.replace('target = "enemy_unit"', 'target = "lane"'), ["'Probe'", "field 'target'"]),
    (SPELL + "attack = 2\n", ["'Probe'", "a spell has no attack"]),
    (SPELL.replace('effects = [{ op = "damage", select = "chosen", amount = 2 }]',
                   'effects = [{ op = "condition", select = "chosen", condition = "frozen", amount = 1 }]'),
     ["'Probe'", "unknown condition 'frozen'"]),
    (SPELL.replace('effects = [{', 'effects = [{ trigger = "unleash", '), ["'Probe'", "need an 'enchantment' clause"]),
    (SPELL + "enchantment = { duration = 2 }\n", ["'Probe'", "needs effects with trigger 'unleash'"]),
    (UNIT + 'effects = [{ trigger = "aura", op = "heal", select = "allied_units", amount = 1 }]\n',
     ["'Probe'", "an aura only gains a stat"]),
    (UNIT + 'effects = [{ trigger = "on_cast", op = "heal", select = "allied_units", amount = 1 }]\n',
     ["'Probe'", "a unit's effect cannot have trigger 'on_cast'"]),
    (UNIT + 'effects = [{ trigger = "on_summon", op = "add_token" }]\n', ["'Probe'", "add_token"]),
    (UNIT + 'effects = [{ trigger = "on_summon", op = "add_card", card = "Nobody" }]\n',
     ["'Probe'", "unknown card 'Nobody'"]),
    (SPELL.replace('target = "enemy_unit"', 'target = "first_row"').replace(
        '{ op = "damage", select = "chosen", amount = 2 }', '{ op = "summon", card_type = "Dragon" }'),
     ["'Probe'", "card_type 'Dragon'"]),
    (UNIT + 'ability = { cost = { wild = 1 }, target = "enemy_unit", effects = [] }\n', ["'Probe'", "ability.effects"]),
    (SPELL.replace('target = "enemy_unit"\n', '').replace('select = "chosen"', 'select = "own_player"').replace(
        'op = "damage"', 'op = "heal"'), ["'Probe'", "op 'heal' acts on units"]),
    (SPELL.replace('select = "chosen", amount = 2', 'select = "enemies_in_range", amount = 2'),
     ["'Probe'", "'enemies_in_range' needs 'range'"]),
    (SPELL.replace('amount = 2 }', 'amount = 2, range = 1 }'), ["'Probe'", "op 'damage' takes no 'range'"]),
    (UNIT + 'effects = [{ trigger = "aura", op = "gain", select = "chosen", stat = "attack", amount = 1 }]\n',
     ["'Probe'", "an aura applies to units by rule"]),
])
def test_card_errors_are_one_line_naming_file_card_and_field(tmp_path, body, words):
    message = card_error(tmp_path, body)
    for w in words:
        assert w in message, (w, message)


def test_card_error_names_its_line(tmp_path):
    message = card_error(tmp_path, UNIT + "keywords = { sheild = 1 }\n")
    assert "set.toml:3:" in message  # the card's `name = ...` line


def test_unknown_class_and_duplicate_card(tmp_path):
    assert "unknown class 'Priest'" in card_error(tmp_path, UNIT, head='class = "Priest"\n')
    twice = UNIT + "[[cards]]\n" + UNIT
    assert "already defined" in card_error(tmp_path, twice)


@pytest.fixture(scope="module")
def cards():
    return load_cards()


BOARD = Path(__file__).resolve().parents[3] / "data" / "boards" / "classes" / "paladin.toml"


def board_error(tmp_path: Path, cards, old: str, new: str) -> str:
    text = BOARD.read_text(encoding="utf-8")
    assert old in text, old
    path = tmp_path / "paladin.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(DataError) as e:
        load_board(path, cards)
    message = str(e.value)
    assert "\n" not in message and "paladin.toml" in message, message
    return message


@pytest.mark.parametrize("old, new, words", [
    ("level = 2\nmax_experience = 5", "level = 3\nmax_experience = 5", ["levels[1]", "expected 2"]),
    ('level = 3\nmax_experience = 6\nbonus = ["power_token"]', 'level = 3\nmax_experience = 6\nbonus = []',
     ["levels[2]", "power token"]),
    ('bonus = ["power_token", "mana"]', 'bonus = ["power_token", "manna"]', ["unknown bonus 'manna'"]),
    ("max_experience = 4", "max_experience = 0", ["max_experience", "must be >= 1"]),
    ('name = "Crusade"\ntext = "Token: take a Crusader from the upgrade deck into your hand."\nlevel = 3',
     'name = "Crusade"\ntext = "Token: take a Crusader from the upgrade deck into your hand."\nlevel = 6',
     ["'Crusade'", "level table stops at 5"]),
    ('requires = "Path of Mercy"\nabilities', 'requires = "Path of Mercey"\nabilities',
     ["'Holy Wrath'", "unknown power 'Path of Mercey'", "did you mean 'Path of Mercy'"]),
    ('name = "Path of Mercy"', 'name = "Path of Mercy"\nrequires = "Devotion"', ["dependencies form a cycle"]),
    ('card = "Crusader"', 'card = "Imp"', ["'Crusade'", "a Warlock card"]),
    ('card = "Crusader"', 'card = "Crusaderr"', ["'Crusade'", "unknown card 'Crusaderr'"]),
    ('level = 2\nabilities = [{ cost = { blue = 1 }', 'level = 2\nslots = 0\nabilities = [{ cost = { blue = 1 }',
     ["'Shield Wall'", "needs a slot"]),
    ('level = 1\nslots = 2\non_token', 'level = 1\nslots = 1\non_token', ["'Path of Mercy'", "2 token effects", "1 slots"]),
    ('{ op = "add_token" }', '{ op = "add_tokens" }', ["'Beacon of Light'", "unknown op 'add_tokens'"]),
    ('pool = { white = 2, blue = 1, summoning = 2 }', 'pool = { white = 2, wild = 1 }', ["field 'pool'", "unknown colour 'wild'"]),
    ('colours = ["white", "blue"]', 'colours = ["white", "summoning"]', ["field 'colours'", "unknown class colour"]),
])
def test_board_errors(tmp_path, cards, old, new, words):
    message = board_error(tmp_path, cards, old, new)
    for w in words:
        assert w in message, (w, message)


def test_a_board_has_8_to_10_powers(tmp_path, cards):
    text = BOARD.read_text(encoding="utf-8")
    cut = text.index('[[powers]]\nname = "Crusade"')
    path = tmp_path / "paladin.toml"
    path.write_text(text[:cut], encoding="utf-8")
    with pytest.raises(DataError, match="6 powers, a class board has 8 to 10"):
        load_board(path, cards)


DECK = 'name = "Probe Deck"\nclass = "Paladin"\nhand = { Footman = 2 }\n' \
       'upgrade = { Rejuvenate = 1, Footman = 1, Guard = 1, Archer = 1, Crusader = 1 }\n'


@pytest.mark.parametrize("old, new, words", [
    ("Footman = 2", "Footmen = 2", ["'Probe Deck'", "field 'hand.Footmen'", "unknown card", "did you mean 'Footman'"]),
    ("Footman = 2", "Imp = 2", ["'Probe Deck'", "field 'hand.Imp'", "a Warlock card"]),
    ("Footman = 2", "Footman = 4", ["'Probe Deck'", "field 'upgrade.Footman'", "5 copies", "the set holds 4"]),
    ("Footman = 2", "Footman = 0", ["'Probe Deck'", "field 'hand.Footman'", "expected 1 to 24"]),
    (", Crusader = 1", "", ["'Probe Deck'", "field 'upgrade'", "power 'Crusade' takes 'Crusader'"]),
    ('class = "Paladin"', 'class = "Paladine"', ["field 'class'", "did you mean 'Paladin'"]),
    ("Footman = 2", "Sergeant = 1", []),  # a legal deck: Sergeant's add_card finds a Footman in the upgrade deck
])
def test_deck_errors(tmp_path, cards, old, new, words):
    boards = load_boards(cards)
    path = tmp_path / "probe.toml"
    path.write_text(DECK.replace(old, new), encoding="utf-8")
    if not words:
        assert load_deck(path, cards, boards).hand == ("Sergeant",)
        path.write_text(DECK.replace(old, new).replace("Footman = 1, ", ""), encoding="utf-8")
        words = ["field 'upgrade'", "takes 'Footman' from the upgrade deck"]
    with pytest.raises(DataError) as e:
        load_deck(path, cards, boards)
    message = str(e.value)
    assert "\n" not in message and "probe.toml" in message
    for w in words:
        assert w in message, (w, message)

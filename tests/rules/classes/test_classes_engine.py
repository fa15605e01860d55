"""The compiled classes engine, rule by rule, where the scenario files leave a rule or a choice
unpinned. Each test plays a small inline scenario (spec §14 format) through the same engine
``battlesim scenario`` runs, and cites the sentence (``# classes.md: "..."``) or the spec choice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from battlesim.ecs.datafiles import DataError
from battlesim.systems.classes.scenario import run_file
from battlesim.systems.classes.state import G_BASE_DEFENSE, G_TURN_LIMIT

HEAD = 'ruleset = "classes"\nturn = 3\nactive = 0\n'
BOLT = '''
[[cards]]
name = "Test Bolt"
type = "Spell"
cost = { red = 1 }
target = "unit"
effects = [{ op = "damage", select = "chosen", amount = 2 }]
'''
NONE5 = {"white": 0, "red": 0, "blue": 0, "purple": 0, "summoning": 0}


def mana(**kw: int) -> dict[str, int]:
    return {**NONE5, **kw}


def play(tmp_path: Path, body: str, limit: int | None = None, active: int = 0,
         defense: int | None = None) -> dict[str, Any]:
    path = tmp_path / "s.toml"
    path.write_text(HEAD.replace("active = 0", f"active = {active}") + body, encoding="utf-8")
    sc = run_file(path)
    if limit is not None:
        sc.G.g[0, G_TURN_LIMIT] = limit
    if defense is not None:
        sc.G.g[0, G_BASE_DEFENSE] = defense
    return sc.run()


def illegal(tmp_path: Path, body: str) -> str:
    with pytest.raises(DataError) as e:
        play(tmp_path, body)
    return str(e.value).split(": ", 1)[1]


def unit(state: dict[str, Any], lane: int, row: int) -> dict[str, Any] | None:
    return next((u for u in state["units"] if (u["lane"], u["row"]) == (lane, row)), None)


# -- mana ---------------------------------------------------------------------------------
def test_wild_is_paid_by_summoning_when_nothing_else_is_left(tmp_path: Path) -> None:
    # classes.md: "There is also a symbol for wild mana ○. It counts as any type of mana." (choice 15)
    s = play(tmp_path, '''
[players]
pool = [{ summoning = 1 }, {}]
[[units]]
side = 0
lane = 1
row = 2
card = "Imp"
[[units]]
side = 1
lane = 3
row = 4
name = "Foe"
health = 2
[[steps]]
do = "act"
lane = 1
row = 2
first = "action"
action = "ability"
target = [3, 4]
''')
    assert s["players"][0]["cooldown"][0] == mana(summoning=1)
    assert unit(s, 3, 4)["health"] == 1


def test_pay_names_the_colours_and_must_cover_the_cost(tmp_path: Path) -> None:
    # classes.md "Spending Mana": "spend mana from your pool according to the cost indicated on the card"
    body = '''
[players]
pool = [{ red = 1, purple = 1 }, {}]
[[units]]
side = 0
lane = 1
row = 2
card = "Imp"
[[units]]
side = 1
lane = 3
row = 4
name = "Foe"
health = 2
[[steps]]
do = "act"
lane = 1
row = 2
first = "action"
action = "ability"
target = [3, 4]
pay = { %s }
'''
    s = play(tmp_path, body % "purple = 1")
    assert s["players"][0]["pool"] == mana(red=1) and s["players"][0]["cooldown"][0] == mana(purple=1)
    # classes.md: "You cannot use an ability if you cannot pay its cost."
    assert illegal(tmp_path, body % "purple = 1, red = 1").endswith("cannot pay its cost")


def test_beacon_ticks_the_orb_farthest_from_refresh_first(tmp_path: Path) -> None:
    # classes.md "Beacon of Light": "For each token on this power, tick a orb two steps down the Mana
    # Orb track." Choice (ledger E1): of several orbs, the one farthest from refresh moves.
    s = play(tmp_path, '''
[players]
class = ["Paladin", "none"]
cooldown = [[{ white = 1 }, { white = 1 }, {}], [{}, {}, {}]]
[[powers]]
side = 0
name = "Beacon of Light"
tokens = 1
[[steps]]
do = "class_ability"
power = "Beacon of Light"
ability = 1
''')
    assert [slot["white"] for slot in s["players"][0]["cooldown"]] == [0, 2, 0]


def test_a_power_ability_needs_its_tokens_and_a_free_slot(tmp_path: Path) -> None:
    # classes.md "Beacon of Light": "Place 1 token on this power up to number of [slots] on this power."
    body = '''
[players]
class = ["Paladin", "none"]
pool = [{ white = 1 }, {}]
[[powers]]
side = 0
name = "Beacon of Light"
tokens = %d
[[steps]]
do = "class_ability"
power = "Beacon of Light"
ability = %d
'''
    assert illegal(tmp_path, body % (3, 0)).endswith("the power has no free slot")
    # "For each token on this power ...": the second ability asks for a token (spec §5)
    assert illegal(tmp_path, body % (0, 1)).endswith("the power needs more tokens")
    s = play(tmp_path, body % (2, 0))
    assert {"name": "Beacon of Light", "tokens": 3, "unlocked": True} in s["players"][0]["powers"]


# -- spells, preparing, the Nether --------------------------------------------------------
def test_prepare_needs_the_spell_in_hand_and_its_mana(tmp_path: Path) -> None:
    # classes.md "Preparing a spell": "Instead of paying its cost, place necessary Mana on top of that spell."
    body = BOLT + '''
[players]
pool = [{ %s }, {}]
hand = [[%s], []]
[[steps]]
do = "prepare"
card = "Test Bolt"
'''
    assert illegal(tmp_path, body % ("red = 1", "")).endswith("not in hand")
    assert illegal(tmp_path, body % ("white = 1", '"Test Bolt"')).endswith("cannot pay its cost")
    s = play(tmp_path, body % ("red = 1", '"Test Bolt"'))
    p = s["players"][0]
    assert p["prepared"] == {"card": "Test Bolt", "mana": mana(red=1), "turn": 3}
    assert p["pool"] == mana() and p["cooldown"][0] == mana() and p["hand"] == []


def test_a_cast_spell_returns_to_hand_only_at_the_end_phase(tmp_path: Path) -> None:
    # classes.md: "Spells in the Nether are not considered to be in your hand, so you normally cannot
    # cast them again during the same turn." / "In this phase, you regain all cards from the Nether."
    body = BOLT + '''
[players]
pool = [{ red = 2 }, {}]
hand = [["Test Bolt"], []]
[[units]]
side = 1
lane = 2
row = 3
name = "Dummy"
health = 9
[[steps]]
do = "cast"
card = "Test Bolt"
target = [2, 3]
%s
[[steps]]
do = "cast"
side = 0
card = "Test Bolt"
target = [2, 3]
'''
    assert illegal(tmp_path, body % "").endswith("not in hand")
    # the End Phase returns it; the next cast is side 0's own turn again (two End Phases later)
    s = play(tmp_path, body % '[[steps]]\ndo = "end_phase"\n[[steps]]\ndo = "end_phase"')
    assert unit(s, 2, 3)["health"] == 5


def test_a_spell_cannot_be_cast_from_hand_in_the_opponents_turn(tmp_path: Path) -> None:
    # classes.md "Main Phase": "In this phase, you can cast or prepare Spell cards from your hand";
    # only a prepared spell "may be cast at any time, even during opponent's turn"
    msg = illegal(tmp_path, BOLT + '''
[players]
pool = [{}, { red = 1 }]
hand = [[], ["Test Bolt"]]
[[units]]
side = 0
lane = 2
row = 3
name = "Dummy"
health = 3
[[steps]]
do = "cast"
side = 1
card = "Test Bolt"
target = [2, 3]
''')
    assert msg.endswith("not the active player")


def test_no_free_shape_no_enchantment(tmp_path: Path) -> None:
    # choice 18: "no free shape = the card cannot be cast" (classes.md: "making sure that its shape
    # isn't already used for another one of your active enchantments")
    area = "".join(f'[[play_area]]\nside = 0\ncard = "Dark Trade"\nshape = "{s}"\n'
                   for s in ("pentagon", "triangle", "square", "circle", "hexagon"))
    msg = illegal(tmp_path, area + '''
[players]
pool = [{ purple = 1, red = 1 }, {}]
hand = [["Corruption"], []]
[[units]]
side = 1
lane = 1
row = 4
name = "Victim"
health = 3
[[steps]]
do = "cast"
card = "Corruption"
target = [1, 4]
''')
    assert msg.endswith("no free enchantment shape")


def test_enchantments_unleash_oldest_first_unless_ordered(tmp_path: Path) -> None:
    # classes.md "Enchantments Step": "you unleash all Enchantments ... in any order you wish"
    # (choice 18: default oldest first; `order` names cards first)
    body = '''
[[cards]]
name = "Test Sting"
type = "Enchantment Spell"
cost = { red = 1 }
target = "unit"
enchantment = { duration = 2 }
effects = [{ op = "enchant", select = "chosen" }, { trigger = "unleash", op = "damage", select = "enchanted", amount = 1 }]
[[cards]]
name = "Test Balm"
type = "Enchantment Spell"
cost = { white = 1 }
target = "unit"
enchantment = { duration = 2 }
effects = [{ op = "enchant", select = "chosen" }, { trigger = "unleash", op = "heal", select = "enchanted", amount = 2 }]
[[play_area]]
side = 0
card = "Test Balm"
shape = "pentagon"
[[play_area]]
side = 0
card = "Test Sting"
shape = "triangle"
[[units]]
side = 1
lane = 2
row = 3
name = "Both"
health = 3
enchanted = [{ side = 0, shape = "pentagon" }, { side = 0, shape = "triangle" }]
[[steps]]
do = "enchantments_step"
%s
'''
    assert unit(play(tmp_path, body % ""), 2, 3)["health"] == 2  # heal (no effect at base), then 1 damage
    assert unit(play(tmp_path, body % 'order = ["Test Sting"]'), 2, 3)["health"] == 3  # damage, then heal


# -- Antimagic ----------------------------------------------------------------------------
def test_antimagic_takes_no_spell_conditions_and_no_enchantment(tmp_path: Path) -> None:
    # classes.md "Antimagic": "Spells that are cast cannot place any conditions onto them";
    # "A unit with Antimagic cannot be targeted or enchanted by cards"
    s = play(tmp_path, '''
[[cards]]
name = "Test Daze"
type = "Enchantment Spell"
cost = { blue = 1 }
enchantment = { duration = 1 }
effects = [{ op = "condition", select = "enemy_units", condition = "stun", amount = 1 },
           { op = "enchant", select = "enemy_units" },
           { trigger = "unleash", op = "damage", select = "enchanted", amount = 1 }]
[players]
pool = [{ blue = 1 }, {}]
hand = [["Test Daze"], []]
[[units]]
side = 1
lane = 1
row = 3
name = "Warded"
health = 2
conditions = { antimagic = 1 }
[[units]]
side = 1
lane = 3
row = 3
name = "Plain"
health = 2
[[steps]]
do = "cast"
card = "Test Daze"
''')
    assert unit(s, 1, 3)["conditions"] == {"antimagic": 1} and unit(s, 1, 3)["enchanted"] == []
    assert unit(s, 3, 3)["conditions"] == {"stun": 1} and unit(s, 3, 3)["enchanted"] == [
        {"side": 0, "shape": "pentagon", "tokens": 1}]


def test_class_abilities_are_not_cards_antimagic_does_not_stop_them(tmp_path: Path) -> None:
    # choice 12: '"by cards" = spells and unit abilities (class abilities are not cards)'
    s = play(tmp_path, '''
[players]
class = ["Paladin", "none"]
level = [3, 1]
pool = [{ white = 2 }, {}]
[[powers]]
side = 0
name = "Holy Wrath"
tokens = 1
[[units]]
side = 1
lane = 2
row = 3
name = "Warded"
health = 3
conditions = { antimagic = 1 }
[[steps]]
do = "class_ability"
power = "Holy Wrath"
target = [2, 3]
''')
    assert unit(s, 2, 3)["health"] == 1


# -- acting -------------------------------------------------------------------------------
def test_the_acting_order_is_a_snapshot_one_act_per_unit(tmp_path: Path) -> None:
    # choice 5: "every unit acts at most once": a turned unit of side 0 walks toward row 0, into
    # fields later in side 0's order ("row by row ... starting from the row that is most further")
    s = play(tmp_path, '''
[[units]]
side = 0
lane = 2
row = 4
name = "Turned"
attack = 1
health = 3
conditions = { turnover = 1 }
[[steps]]
do = "act_step"
''')
    assert unit(s, 2, 3)["name"] == "Turned" and unit(s, 2, 2) is None


def test_units_act_the_turn_they_are_summoned(tmp_path: Path) -> None:
    # choice 6: "Units act the turn they are summoned" (the text has no summoning sickness)
    s = play(tmp_path, '''
[players]
class = ["Paladin", "none"]
pool = [{ summoning = 1 }, {}]
hand = [["Footman"], []]
[[steps]]
do = "class_ability"
power = "Call to Arms"
card = "Footman"
lane = 0
[[steps]]
do = "act_step"
''')
    assert unit(s, 0, 1)["name"] == "Footman" and unit(s, 0, 0) is None


def test_snare_is_used_by_an_advance_that_would_not_move(tmp_path: Path) -> None:
    # choice 13: "consumed by the next Advance even if it would not have moved" ("Unit can advance
    # even if it would not move"); a foe ahead is its valid target: it attacks, then advances in place
    s = play(tmp_path, '''
[[units]]
side = 0
lane = 2
row = 2
name = "Caught"
attack = 1
health = 2
conditions = { snare = 1 }
[[units]]
side = 1
lane = 2
row = 3
name = "Foe"
health = 5
[[steps]]
do = "act"
lane = 2
row = 2
''')
    assert unit(s, 2, 2)["conditions"] == {} and unit(s, 2, 3)["health"] == 4


def test_a_defending_ferocious_foe_still_flanks(tmp_path: Path) -> None:
    # classes.md: "A unit with Ferocious flanks even while defending"
    s = play(tmp_path, '''
[[units]]
side = 1
lane = 2
row = 3
name = "Defender"
health = 9
keywords = { shield = 1 }
defending = true
[[units]]
side = 0
lane = 2
row = 2
name = "Attacker"
attack = 4
health = 3
[[units]]
side = 0
lane = 1
row = 3
name = "Fierce"
attack = 1
health = 3
keywords = { ferocious = true }
defending = true
[[steps]]
do = "act"
lane = 2
row = 2
''')
    assert unit(s, 2, 3)["health"] == 9 - (4 - (2 - 1))


def test_each_haste_token_is_one_more_attack(tmp_path: Path) -> None:
    # classes.md "Haste": "Each haste token causes a unit to perform an additional Advance or Attack"
    s = play(tmp_path, '''
[[units]]
side = 0
lane = 2
row = 2
name = "Quick"
attack = 1
health = 2
conditions = { haste = 2 }
[[units]]
side = 1
lane = 2
row = 3
name = "Foe"
health = 5
[[steps]]
do = "battle_phase"
''')
    assert unit(s, 2, 3)["health"] == 2 and unit(s, 2, 2)["conditions"] == {}


def test_turnover_is_discarded_at_the_end_of_its_owners_battle_phase(tmp_path: Path) -> None:
    # choice 11: "discarded at the end of its owner's next Battle phase"
    s = play(tmp_path, '''
[[units]]
side = 0
lane = 0
row = 5
name = "Turned"
health = 3
conditions = { turnover = 1 }
[[units]]
side = 1
lane = 4
row = 5
name = "Theirs"
health = 3
conditions = { turnover = 1 }
[[steps]]
do = "battle_phase"
''')
    assert s["units"][0]["conditions"] == {} and s["units"][1]["conditions"] == {"turnover": 1}


def test_an_attack_kill_credits_the_attackers_owner_a_denial_nobody(tmp_path: Path) -> None:
    # classes.md: "the player whose unit or spell dealt the fatal blow earns 1 experience point";
    # "experience is only awarded if the destroyed unit belonged to the opposing player"
    s = play(tmp_path, '''
[[units]]
side = 0
lane = 0
row = 2
name = "Killer"
attack = 3
health = 3
[[units]]
side = 1
lane = 0
row = 3
card = "Footman"
[[units]]
side = 0
lane = 4
row = 3
name = "Traitor"
attack = 3
health = 3
conditions = { turnover = 1 }
[[units]]
side = 0
lane = 4
row = 2
card = "Guard"
[[steps]]
do = "act_step"
''')
    assert s["players"][0]["experience"] == 1 and s["players"][1]["experience"] == 0
    assert sorted(s["players"][0]["nether"]) == ["Guard"] and s["players"][1]["nether"] == ["Footman"]


# -- levels and power tokens --------------------------------------------------------------
LEVELS = '''
[players]
class = ["Paladin", "none"]
experience = [3, 0]
choices = [[%s], []]
[[steps]]
do = "gain_experience_step"
'''


def test_the_default_token_goes_on_the_first_legal_power(tmp_path: Path) -> None:
    # spec §14: "when empty: gain white, token on the first legal power in board order"; the Paladin
    # board: Beacon of Light (innate, a free slot) comes before Path of Mercy
    s = play(tmp_path, LEVELS % "")
    p = s["players"][0]
    assert (p["level"], p["experience"]) == (2, 0)
    assert {"name": "Beacon of Light", "tokens": 1, "unlocked": True} in p["powers"]
    assert p["pool"] == mana(white=1)  # level 2's Mana bonus defaulted to white


def test_a_token_unlocks_a_power_of_the_level_and_gives_its_cards(tmp_path: Path) -> None:
    # classes.md: "When using power tokens, you may use it to unlock any power in line with your
    # current level, or the levels below"; Path of Mercy's first token: Rejuvenate and a white
    s = play(tmp_path, LEVELS % '"power:Marksmanship", "red"')
    p = s["players"][0]
    assert {"name": "Marksmanship", "tokens": 1, "unlocked": True} in p["powers"]
    assert sorted(p["hand"]) == ["Archer", "Guard"] and p["pool"] == mana(red=1)
    s = play(tmp_path, LEVELS % '"power:Path of Mercy", "red"')
    assert s["players"][0]["hand"] == ["Rejuvenate"] and s["players"][0]["pool"] == mana(white=1, red=1)


@pytest.mark.parametrize("answer", ["power:Holy Wrath", "power:Devotion", "summoning:blue", "power:Call to Arms"])
def test_illegal_level_up_answers(tmp_path: Path, answer: str) -> None:
    # level 3 power at level 2 ("in line with your current level, or the levels below"); Devotion
    # requires Path of Mercy ("You cannot unlock a power with a dependency before placing a power
    # token in the talent"); no blue in the pool to replace ("replace a colored mana from your Mana
    # pool"); Call to Arms has no slot ("Each square slot can accept 1 such power token")
    assert illegal(tmp_path, LEVELS % f'"{answer}"').endswith("illegal level-up answer")


def test_without_a_level_table_experience_just_counts(tmp_path: Path) -> None:
    # spec §14: class "none": "no powers, no level table (exp just counts)"
    s = play(tmp_path, '[players]\nexperience = [9, 0]\n[[steps]]\ndo = "gain_experience_step"\n')
    assert (s["players"][0]["level"], s["players"][0]["experience"]) == (1, 10)


# -- the end of the game ------------------------------------------------------------------
def test_the_game_ends_at_once_when_a_life_reaches_zero(tmp_path: Path) -> None:
    # classes.md: "bring the enemy player life points to zero"; choice 21: "The game ends at once":
    # the spell's second effect (1 damage to its caster, at 1 life) never resolves, so no draw
    s = play(tmp_path, '''
[[cards]]
name = "Test Pact"
type = "Spell"
cost = { red = 1 }
effects = [{ op = "damage", select = "enemy_player", amount = 1 }, { op = "damage", select = "own_player", amount = 1 }]
[players]
life = [1, 1]
pool = [{ red = 1 }, {}]
hand = [["Test Pact"], []]
[[steps]]
do = "cast"
card = "Test Pact"
''')
    assert (s["winner"], s["draw"], s["players"][0]["life"], s["players"][1]["life"]) == (0, False, 1, 0)


def test_the_turn_limit_is_a_draw(tmp_path: Path) -> None:
    # choice 21: "a turn limit (parameter, default 60 player turns) = draw, so batches end"
    s = play(tmp_path, '[[steps]]\ndo = "end_phase"\n[[steps]]\ndo = "end_phase"\n', limit=4)
    assert (s["turn"], s["winner"], s["draw"]) == (5, None, True)


# -- more rules the files leave unpinned ---------------------------------------------------
def test_an_attack_needs_an_attack_value_and_a_valid_target(tmp_path: Path) -> None:
    # classes.md: "A unit can only attack if it has an Attack value or Attack dice. It also needs a
    # valid target within its range."
    body = '''
[[units]]
side = 0
lane = 2
row = 1
name = "U"
health = 2
%s
[[steps]]
do = "act"
lane = 2
row = 1
action = "attack"
'''
    assert illegal(tmp_path, body % "").endswith("no Attack value")
    assert illegal(tmp_path, body % "attack = 1").endswith("no valid attack target")


def test_a_spell_counts_range_from_an_intersection(tmp_path: Path) -> None:
    # classes.md "Range": "When the origin is an intersection, all fields whose corners are part of
    # that intersection count as being at range 1." Consecration: 2 damage to each enemy within 1.
    foes = "".join(f'[[units]]\nside = 1\nlane = {lane}\nrow = {row}\nname = "F{lane}{row}"\nhealth = 5\n'
                   for lane, row in ((1, 2), (2, 3), (3, 3), (1, 4), (0, 2)))
    s = play(tmp_path, foes + '''
[players]
pool = [{ white = 2, blue = 1 }, {}]
hand = [["Consecration"], []]
[[units]]
side = 0
lane = 2
row = 2
name = "Mine"
health = 5
[[steps]]
do = "cast"
card = "Consecration"
intersection = [1, 2]
''')
    # intersection [1, 2] touches (1,2) (2,2) (1,3) (2,3): those are range 1; (3,3), (1,4), (0,2) range 2
    hp = {(u["lane"], u["row"]): u["health"] for u in s["units"]}
    assert hp == {(1, 2): 3, (2, 3): 3, (3, 3): 5, (1, 4): 5, (0, 2): 5, (2, 2): 5}


def test_a_card_without_hp_is_summoned_with_one(tmp_path: Path) -> None:
    # classes.md: "If no HP is specified, set a single die set to 1."; "After you summon a card, you gain 1 exp."
    s = play(tmp_path, '''
[[cards]]
name = "Test Banner"
type = "Follower"
[players]
class = ["Paladin", "none"]
pool = [{ summoning = 1 }, {}]
hand = [["Test Banner"], []]
[[steps]]
do = "class_ability"
power = "Call to Arms"
card = "Test Banner"
lane = 4
''')
    banner = unit(s, 4, 0)
    assert (banner["health"], banner["base_health"], banner["attack"]) == (1, 1, None)
    assert s["players"][0]["experience"] == 1


def test_a_token_may_go_outside_the_level_tree_once_its_dependency_holds_one(tmp_path: Path) -> None:
    # classes.md: "You may also use it on any power that is defined outside the level tree."
    s = play(tmp_path, LEVELS % '"power:Devotion", "red"' + '''
[[powers]]
side = 0
name = "Path of Mercy"
tokens = 1
''')
    p = s["players"][0]
    assert {"name": "Devotion", "tokens": 1, "unlocked": True} in p["powers"]
    assert p["pool"] == mana(blue=1, red=1)


def test_kill_takes_credit(tmp_path: Path) -> None:
    # classes.md: "Kill (a unit) – Reduce its HP to 0. Take credit for its death." Maw of the Deep:
    # "When summoned, kill an enemy unit" (ledger E3: the first foe in its owner's acting order)
    s = play(tmp_path, '''
[players]
class = ["none", "Warlock"]
pool = [{}, { summoning = 1, purple = 1 }]
hand = [[], ["Rift", "Maw of the Deep"]]
[[units]]
side = 0
lane = 0
row = 1
card = "Guard"
[[steps]]
do = "cast"
side = 1
card = "Rift"
lane = 2
''', active=1)
    assert unit(s, 0, 1) is None and unit(s, 2, 5)["name"] == "Maw of the Deep"
    assert s["players"][1]["experience"] == 2 and s["players"][0]["nether"] == ["Guard"]


# -- HP auras (choice 20) -----------------------------------------------------------------
def test_an_hp_aura_raises_current_and_maximum_hp(tmp_path: Path) -> None:
    # choice 20: "an HP aura raises current and maximum HP"; classes.md "Auras": "active while the
    # spell is in your play area"; a heal then reaches the raised maximum
    s = play(tmp_path, '''
[[cards]]
name = "Test Vigil"
type = "Aura Spell"
cost = { white = 1 }
effects = [{ trigger = "aura", op = "gain", select = "allied_units", stat = "health", amount = 1 }]
[[cards]]
name = "Test Mend"
type = "Spell"
cost = { white = 1 }
target = "allied_unit"
effects = [{ op = "heal", select = "chosen", amount = 5 }]
[players]
pool = [{ white = 2 }, {}]
hand = [["Test Vigil", "Test Mend"], []]
[[units]]
side = 0
lane = 0
row = 1
name = "Whole"
health = 2
[[units]]
side = 0
lane = 1
row = 1
name = "Hurt"
health = 1
base_health = 3
[[units]]
side = 1
lane = 2
row = 4
name = "Theirs"
health = 2
[[steps]]
do = "cast"
card = "Test Vigil"
[[steps]]
do = "cast"
card = "Test Mend"
target = [1, 1]
''')
    assert (unit(s, 0, 1)["health"], unit(s, 0, 1)["base_health"]) == (3, 2)
    assert unit(s, 1, 1)["health"] == 4  # healed up to base 3 + the aura's 1
    assert unit(s, 2, 4)["health"] == 2  # not an ally


def test_when_an_hp_aura_ends_hp_drops_to_the_new_maximum_not_below_one(tmp_path: Path) -> None:
    # choice 20: "when it ends HP drops to at most the new maximum but not below 1" (an aura ending
    # is not damage); classes.md: "If a summoned unit has an Aura, it is active for as long as that
    # unit is on the battleground"
    s = play(tmp_path, BOLT + '''
[[cards]]
name = "Test Standard"
type = "Follower"
effects = [{ trigger = "aura", op = "gain", select = "other_allied_units", stat = "health", amount = 2 }]
[players]
pool = [{ red = 1 }, {}]
hand = [["Test Bolt"], []]
[[units]]
side = 0
lane = 0
row = 1
card = "Test Standard"
[[units]]
side = 0
lane = 1
row = 1
name = "Fresh"
health = 4
base_health = 2
[[units]]
side = 0
lane = 2
row = 1
name = "Battered"
health = 1
base_health = 2
[[steps]]
do = "cast"
card = "Test Bolt"
target = [0, 1]
''')
    assert unit(s, 0, 1) is None
    assert unit(s, 1, 1)["health"] == 2 and unit(s, 2, 1)["health"] == 1


@pytest.mark.parametrize("defense", [None, 0, 2])
def test_the_base_defense_parameter(tmp_path: Path, defense: int | None) -> None:
    # classes.md "Base Defense – Each unit has a base defense value of 1." (parameter base_defense, default 1)
    s = play(tmp_path, '''
[[units]]
side = 1
lane = 2
row = 3
name = "Defender"
health = 9
defending = true
[[units]]
side = 0
lane = 2
row = 2
name = "Attacker"
attack = 4
health = 3
[[steps]]
do = "act"
lane = 2
row = 2
''', defense=defense)
    assert unit(s, 2, 3)["health"] == 9 - (4 - (1 if defense is None else defense))

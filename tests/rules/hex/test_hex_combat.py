"""hex.md "Combat" (H11) and the combat keywords (spec §2.8, I-18..I-25), through
``systems/hex/actions.py`` and the compiled damage stages: each test cites its sentence or choice."""

from __future__ import annotations

from pathlib import Path

import pytest
from hex_boards import board

from battlesim.systems.hex.actions import Illegal
from battlesim.systems.hex.board import hex_id
from battlesim.systems.hex.state import ACTIONS

FAR = '{ side = 1, col = 8, row = 6, name = "Far", health = 3 }'


def units(sc) -> dict[str, dict]:
    return {u["name"]: u for u in sc.state()["units"]}


def test_one_retaliation_per_combat_with_counterstrike(tmp_path: Path) -> None:
    # I-20: hex.md "Counterstrike – This unit retaliates at the same time that it is attacked." (and not again after)
    sc = board(tmp_path, ['{ side = 0, col = 3, row = 1, name = "A", power = 1, movement = 1, health = 5 }',
                          '{ side = 1, col = 3, row = 2, name = "D", power = 2, movement = 1, health = 5, keywords = { counterstrike = true } }', FAR])
    sc.battle.attack(0, 0, hex_id(3, 2), None, None, None)
    assert (units(sc)["A"]["health"], units(sc)["D"]["health"]) == (3, 4)


def test_vengeance_and_intimidate_change_retaliation_only(tmp_path: Path) -> None:
    # I-21: hex-keywords.md "Vengeance X – This unit gets +X Power while retaliating."; "Intimidate X"
    sc = board(tmp_path, ['{ side = 0, col = 3, row = 1, name = "A", power = 1, movement = 1, health = 9, keywords = { intimidate = 1 } }',
                          '{ side = 1, col = 3, row = 2, name = "D", power = 2, movement = 1, health = 5, keywords = { vengeance = 3 } }', FAR])
    sc.battle.attack(0, 0, hex_id(3, 2), None, None, None)
    assert units(sc)["A"]["health"] == 9 - (2 + 3 - 1) and units(sc)["D"]["power"] == 2


def test_a_melee_charge_keeps_a_movement_point(tmp_path: Path) -> None:
    # I-22: Movement 2 may move at most 1 hex before a melee attack
    sc = board(tmp_path, ['{ side = 0, col = 2, row = 0, name = "L", power = 1, movement = 2, health = 4, keywords = { charging = true } }',
                          '{ side = 1, col = 2, row = 3, name = "T", power = 1, movement = 1, health = 5 }', FAR])
    with pytest.raises(Illegal):
        sc.battle.attack(0, 0, hex_id(2, 3), hex_id(2, 2), None, None)


def test_flying_passes_units_but_never_tramples(tmp_path: Path) -> None:
    # I-24: hex-keywords.md "Flying – This unit can move over other units"; Flying beats Trample (no damage)
    sc = board(tmp_path, ['{ side = 0, col = 0, row = 2, name = "F", power = 1, movement = 2, health = 4, keywords = { flying = true, trample = 2 } }',
                          '{ side = 1, col = 0, row = 3, name = "E", power = 1, movement = 1, health = 3 }', FAR])
    sc.battle.move(0, 0, hex_id(0, 4), None)
    assert units(sc)["E"]["health"] == 3 and units(sc)["F"]["row"] == 4


def test_lifesteal_heals_before_the_counterstrike_lands(tmp_path: Path) -> None:
    # spec §2.8 (3): "with Counterstrike: retaliation at the same instant; Lifesteal heals before
    # the counterstrike damage lands": at 5/5, heal 2 is capped at 5, then 3 comes off -> 2 (not 4)
    sc = board(tmp_path, ['{ side = 0, col = 3, row = 1, name = "A", power = 2, movement = 1, health = 5, keywords = { lifesteal = true } }',
                          '{ side = 1, col = 3, row = 2, name = "D", power = 3, movement = 1, health = 9, keywords = { counterstrike = true } }', FAR])
    sc.battle.attack(0, 0, hex_id(3, 2), None, None, None)
    assert (units(sc)["A"]["health"], units(sc)["D"]["health"]) == (2, 7)


def test_a_defender_killed_by_the_attack_still_counterstrikes(tmp_path: Path) -> None:
    # hex.md "Counterstrike – This unit retaliates at the same time that it is attacked."
    sc = board(tmp_path, ['{ side = 0, col = 3, row = 1, name = "A", power = 5, movement = 1, health = 5 }',
                          '{ side = 1, col = 3, row = 2, name = "D", power = 2, movement = 1, health = 3, keywords = { counterstrike = true } }', FAR])
    sc.battle.attack(0, 0, hex_id(3, 2), None, None, None)
    a = units(sc)["A"]
    assert (a["health"], a["row"], "D" in units(sc)) == (3, 2, False)


def test_an_overheated_ally_takes_no_shield_buff(tmp_path: Path) -> None:
    # hex.md "Overheat – An overheated unit cannot be healed or buffed this round."
    ward = '{ name = "Ward", target = "ally", cast_range = 3, effects = [{ op = "shield", amount = 2 }] }'
    sc = board(tmp_path, [f'{{ side = 0, col = 3, row = 0, name = "P", health = 3, abilities = [{ward}] }}',
                          '{ side = 0, col = 3, row = 1, name = "H", health = 3, statuses = { overheated = 1 } }',
                          '{ side = 0, col = 5, row = 1, name = "C", health = 3 }', FAR])
    sc.battle.ability(0, 0, 0, hex_id(3, 1))
    sc.battle.put(ACTIONS, 0, 0, 1)  # one more action for P (card text may grant more: I-13)
    sc.battle.ability(0, 0, 0, hex_id(5, 1))
    assert units(sc)["H"]["statuses"] == {"overheated": 1} and units(sc)["C"]["statuses"] == {"shield": 2}


def test_combinable_moves_then_casts_and_pays_after(tmp_path: Path) -> None:
    # hex.md "Combinable – This unit may move and use this ability in a single action."
    bolt = ('{ name = "Bolt", cost = 1, cast_range = 2, target = "enemy", combinable = true, '
            'effects = [{ op = "damage", amount = 2, type = "magical" }] }')
    sc = board(tmp_path, [f'{{ side = 0, col = 3, row = 0, name = "M", movement = 2, health = 3, mana = 1, abilities = [{bolt}] }}',
                          '{ side = 1, col = 3, row = 4, name = "E", health = 5 }'])
    with pytest.raises(Illegal):  # out of cast range from where it stands
        sc.battle.ability(0, 0, 0, hex_id(3, 4))
    sc.battle.ability(0, 0, 0, hex_id(3, 4), hex_id(3, 2), True)
    m = units(sc)["M"]
    assert (m["row"], m["mana"], m["exhausted"], units(sc)["E"]["health"]) == (2, 0, True, 3)


def test_an_ability_push_follows_the_line_from_the_caster(tmp_path: Path) -> None:
    # hex.md "Pushed X – A unit that is pushed moves X hexes along the direction it is being pushed."
    shove = '{ name = "Shove", target = "enemy", cast_range = "adjacent", effects = [{ op = "push", amount = 2 }] }'
    sc = board(tmp_path, [f'{{ side = 0, col = 3, row = 1, name = "P", health = 3, abilities = [{shove}] }}',
                          '{ side = 1, col = 3, row = 2, name = "E", health = 5 }'])
    sc.battle.ability(0, 0, 0, hex_id(3, 2))
    assert (units(sc)["E"]["col"], units(sc)["E"]["row"]) == (3, 4)


def test_lifesteal_mitigates_the_damage_return(tmp_path: Path) -> None:
    # hex-keywords.md "If the defender has damage return, lifesteal healing occurs simultaneously
    # (thereby mitigating some or all of the damage return)": 2/6, steals 3, takes 3 back -> 2, alive
    sc = board(tmp_path, ['{ side = 0, col = 3, row = 1, name = "A", power = 3, range = 2, movement = 1, health = 2, max_health = 6, keywords = { lifesteal = true } }',
                          '{ side = 1, col = 3, row = 3, name = "D", power = 1, movement = 1, health = 9, keywords = { damage_return = true } }', FAR])
    sc.battle.attack(0, 0, hex_id(3, 3), None, None, None)
    assert (units(sc)["A"]["health"], units(sc)["D"]["health"]) == (2, 6)


def test_once_per_round_is_per_unit_instance(tmp_path: Path) -> None:
    # hex.md "Some abilities specify that they can only be used once per round. This restriction is per unit instance, not per player." (I-43)
    zap = '{ name = "Zap", target = "enemy", once_per_round = true, effects = [{ op = "damage", amount = 1, type = "magical" }] }'
    sc = board(tmp_path, [f'{{ side = 0, col = 3, row = 0, name = "P", health = 3, actions = 2, abilities = [{zap}] }}',
                          f'{{ side = 0, col = 5, row = 0, name = "Q", health = 3, abilities = [{zap}] }}',
                          '{ side = 1, col = 3, row = 4, name = "E", health = 9 }'])
    sc.battle.ability(0, 0, 0, hex_id(3, 4))
    with pytest.raises(Illegal):
        sc.battle.ability(0, 0, 0, hex_id(3, 4))
    sc.battle.ability(0, 1, 0, hex_id(3, 4))
    assert units(sc)["E"]["health"] == 7


def test_bleeding_x_raises_the_pile_to_x(tmp_path: Path) -> None:
    # hex-keywords.md "Bleeding X – A unit that has Bleeding X has its Bleed counters increased to X." (never lowered: I-30)
    cut = '{ name = "Cut", target = "enemy", effects = [{ op = "status", status = "bleeding", amount = 2 }] }'
    sc = board(tmp_path, [f'{{ side = 0, col = 3, row = 0, name = "P", health = 3, actions = 2, abilities = [{cut}] }}',
                          '{ side = 1, col = 3, row = 4, name = "E", health = 9, statuses = { bleed = 1 } }',
                          '{ side = 1, col = 5, row = 4, name = "F", health = 9, statuses = { bleed = 3 } }'])
    sc.battle.ability(0, 0, 0, hex_id(3, 4))
    sc.battle.ability(0, 0, 0, hex_id(5, 4))
    assert (units(sc)["E"]["statuses"], units(sc)["F"]["statuses"]) == ({"bleed": 2}, {"bleed": 3})


def test_cast_range_modifiers_change_every_ability(tmp_path: Path) -> None:
    # hex.md "Modifying a unit's cast range modifies the cast range of all of that unit's abilities."
    bolt = '{ name = "Bolt", cast_range = 2, target = "enemy", effects = [{ op = "damage", amount = 1, type = "magical" }] }'
    sc = board(tmp_path, [(f'{{ side = 0, col = 3, row = 0, name = "P", health = 3, abilities = [{bolt}], '
                           'modifiers = [{ stat = "cast_range", amount = 1 }] }'),
                          '{ side = 1, col = 3, row = 3, name = "E", health = 9 }'])
    sc.battle.ability(0, 0, 0, hex_id(3, 3))
    assert units(sc)["E"]["health"] == 8


def test_an_ability_debuff_lasts_its_rounds(tmp_path: Path) -> None:
    # hex.md "Some items and abilities modify the numerical value of properties."; "The duration of
    # a buff or debuff is always stated on the card text" (I-34: rounds = 1 ends with this round)
    weaken = ('{ name = "Weaken", target = "enemy", effects = [{ op = "modifier", stat = "power", amount = -2, rounds = 1 }, '
              '{ op = "modifier", keyword = "flying" }] }')
    sc = board(tmp_path, [f'{{ side = 0, col = 3, row = 0, name = "P", health = 3, abilities = [{weaken}] }}',
                          '{ side = 1, col = 3, row = 4, name = "E", power = 3, health = 9 }'])
    sc.battle.ability(0, 0, 0, hex_id(3, 4))
    assert (units(sc)["E"]["power"], units(sc)["E"]["keywords"]) == (1, {"flying": True})
    sc.battle.round_end(0)
    assert (units(sc)["E"]["power"], units(sc)["E"]["keywords"]) == (3, {"flying": True})


def test_a_ranged_only_modifier_skips_melee_units(tmp_path: Path) -> None:
    # hex.md "A modifier may state in parentheses whether it only affects melee or ranged units."
    aim = '{ name = "Aim", target = "ally", effects = [{ op = "modifier", stat = "power", amount = 2, only = "ranged" }] }'
    sc = board(tmp_path, [f'{{ side = 0, col = 3, row = 0, name = "P", health = 3, actions = 2, abilities = [{aim}] }}',
                          '{ side = 0, col = 5, row = 0, name = "Archer", power = 1, range = 3, health = 3 }',
                          '{ side = 0, col = 1, row = 0, name = "Sword", power = 1, health = 3 }', FAR])
    sc.battle.ability(0, 0, 0, hex_id(5, 0))
    sc.battle.ability(0, 0, 0, hex_id(1, 0))
    assert (units(sc)["Archer"]["power"], units(sc)["Sword"]["power"]) == (3, 1)


def test_plus_health_raises_max_and_current_and_expires_without_killing(tmp_path: Path) -> None:
    # I-35: "+X Health raises max and current, on expiry health = min(health, max) but never below 1"
    vigor = '{ name = "Vigor", target = "ally", effects = [{ op = "modifier", stat = "health", amount = 2, rounds = 1 }] }'
    sc = board(tmp_path, [f'{{ side = 0, col = 3, row = 0, name = "P", health = 3, actions = 2, abilities = [{vigor}] }}',
                          '{ side = 0, col = 5, row = 0, name = "A", health = 3 }',
                          '{ side = 0, col = 1, row = 0, name = "B", health = 3 }', FAR])
    sc.battle.ability(0, 0, 0, hex_id(5, 0))
    sc.battle.ability(0, 0, 0, hex_id(1, 0))
    assert (units(sc)["A"]["health"], units(sc)["A"]["max_health"]) == (5, 5)
    sc.battle.deal(0, -1, 1, 1, 4)  # A: 4/5
    sc.battle.deal(0, -1, 2, 4, 4)  # B: 1/5
    sc.battle.round_end(0)
    a, b = units(sc)["A"], units(sc)["B"]
    assert ((a["health"], a["max_health"]), (b["health"], b["max_health"])) == ((3, 3), (1, 3))


def test_a_non_stacking_buff_from_the_same_source_replaces_itself(tmp_path: Path) -> None:
    # I-36: hex-keywords.md "Stack": "if a buff does not stack, applying it again replaces it";
    # hex.md "multiple instances" from different sources stay apart; "+X" stacks
    from battlesim.systems.hex.state import M_SLOT

    guard = ('{ name = "Guard", target = "ally", effects = [{ op = "modifier", stat = "armor", set = 2 }, '
             '{ op = "modifier", stat = "power", amount = 1 }] }')
    sc = board(tmp_path, [f'{{ side = 0, col = 3, row = 0, name = "P", health = 3, actions = 2, abilities = [{guard}] }}',
                          f'{{ side = 0, col = 1, row = 0, name = "Q", health = 3, abilities = [{guard}] }}',
                          '{ side = 0, col = 5, row = 0, name = "A", power = 1, health = 9 }', FAR])
    for caster in (0, 0, 1):
        sc.battle.ability(0, caster, 0, hex_id(5, 0))
    held = int((sc.battle.f.mods[0, :, M_SLOT] == 2).sum())
    assert held == 2 + 3 and units(sc)["A"]["power"] == 4  # Armor 2 once per caster, +1 Power three times

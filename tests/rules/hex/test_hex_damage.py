"""hex.md "Damage" and the keywords of the damage pipeline (spec §3), through the compiled
stages of ``build("hex")``: each test cites its sentence."""

from __future__ import annotations

from pathlib import Path

from hex_boards import board

from battlesim.ecs.compiled.stages import stages_of
from battlesim.systems.hex.damage_stages import MAGICAL, PHYSICAL, PURE, RETURN, STATUS

FAR = '{ side = 1, col = 8, row = 6, name = "Far", health = 3 }'


def unit_at(sc, col: int, row: int) -> dict:
    return next(u for u in sc.state()["units"] if (u["col"], u["row"]) == (col, row))


def test_stage_order_follows_spec_priorities() -> None:
    # spec §3: "Shield X ... absorb before other reductions"; Pure skips 100-200 (I-26)
    names = [s.name for s in stages_of("hex")]
    order = ["shield", "refraction", "ethereal", "armor", "magic_resist", "evasion", "nonlethal", "apply_health"]
    assert [n for n in names if n in order] == order
    assert names.index("apply_health") < names.index("damage_return") and names.index("apply_health") < names.index("lifesteal")


def test_pure_keeps_the_shield(tmp_path: Path) -> None:
    # hex.md: "Pure damage cannot be reduced by any effect." (I-26: Shield untouched)
    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", health = 6, statuses = { shield = 2 }, keywords = { armor = 3 } }', FAR])
    sc.battle.deal(0, -1, 0, 4, PURE)
    u = unit_at(sc, 1, 1)
    assert (u["health"], u["statuses"]) == (2, {"shield": 2})


def test_shield_absorbs_before_armor(tmp_path: Path) -> None:
    # hex-keywords.md "Shield X": "reduce the next X incoming damage to zero and remove that many" (I-31)
    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", health = 6, statuses = { shield = 3 }, keywords = { armor = 1 } }', FAR])
    sc.battle.deal(0, -1, 0, 5, PHYSICAL)
    u = unit_at(sc, 1, 1)
    assert (u["health"], u["statuses"]) == (5, {})  # 5 - 3 shield = 2, - 1 armor = 1


def test_magic_resist_only_magical(tmp_path: Path) -> None:
    # hex.md: "Magic Resist X – This unit reduces incoming magical damage by X."
    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", health = 9, keywords = { magic_resist = 2 } }', FAR])
    sc.battle.deal(0, -1, 0, 3, MAGICAL)
    sc.battle.deal(0, -1, 0, 3, PHYSICAL)
    assert unit_at(sc, 1, 1)["health"] == 9 - 1 - 3


def test_returned_damage_is_not_returned_again(tmp_path: Path) -> None:
    # hex-keywords.md "Damage Return X – When this unit receives damage that is not from retaliation" (I-28: not from other returns)
    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", health = 9, keywords = { damage_return = true } }',
                          '{ side = 1, col = 3, row = 1, name = "B", health = 9, keywords = { damage_return = true } }'])
    sc.battle.deal(0, 16, 0, 2, PHYSICAL)
    assert (unit_at(sc, 1, 1)["health"], unit_at(sc, 3, 1)["health"]) == (7, 7)
    sc.battle.deal(0, 16, 0, 1, PHYSICAL | RETURN)
    assert (unit_at(sc, 1, 1)["health"], unit_at(sc, 3, 1)["health"]) == (6, 7)


def test_broken_turns_armor_off(tmp_path: Path) -> None:
    # hex.md: "Break – A broken unit has its passive abilities disabled."
    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", health = 9, keywords = { armor = 2 }, statuses = { broken = 1 } }', FAR])
    sc.battle.deal(0, -1, 0, 3, PHYSICAL)
    assert unit_at(sc, 1, 1)["health"] == 6


def test_status_damage_is_not_returned(tmp_path: Path) -> None:
    # hex.md "Physical Damage Return X" / hex-keywords.md "Damage from buffs and debuffs is not returned."
    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", health = 9, keywords = { damage_return = true, magic_damage_return = true } }',
                          '{ side = 1, col = 3, row = 1, name = "B", health = 9 }'])
    sc.battle.deal(0, 16, 0, 2, MAGICAL | STATUS)
    assert (unit_at(sc, 1, 1)["health"], unit_at(sc, 3, 1)["health"]) == (7, 9)


def test_magic_damage_return_all(tmp_path: Path) -> None:
    # hex-keywords.md "Magic Damage Return X" (1): "If X is not specified, all damage is returned."
    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", health = 9, keywords = { magic_damage_return = true } }',
                          '{ side = 1, col = 3, row = 1, name = "B", health = 9 }'])
    sc.battle.deal(0, 16, 0, 4, MAGICAL)
    sc.battle.deal(0, 16, 0, 3, PHYSICAL)
    assert (unit_at(sc, 1, 1)["health"], unit_at(sc, 3, 1)["health"]) == (2, 5)


def test_break_leaves_modifiers_and_granted_keywords(tmp_path: Path) -> None:
    # hex.md "Buffs, debuffs, and basic property modifiers are not considered passive abilities." (I-37)
    sc = board(tmp_path, [('{ side = 0, col = 1, row = 1, name = "A", power = 1, health = 9, keywords = { armor = 2 }, '
                           'statuses = { broken = 1 }, modifiers = [{ stat = "power", amount = 2 }, { keyword = "flying" }] }'),
                          FAR])
    u = unit_at(sc, 1, 1)
    assert (u["power"], u["keywords"]) == (3, {"flying": True})


def test_a_units_modifiers_are_found_through_its_games_modified_slots(tmp_path: Path) -> None:
    # hex.md "Some items and abilities modify the numerical value of properties." (I-35): a unit's
    # instances are read only when its game's MODDED bit for it is set (battle.granted, modified
    # skip the others); every writer sets it, and the check runs assert it (play.violation)
    from battlesim.systems.hex.play import INVARIANTS, violation
    from battlesim.systems.hex.state import MODDED

    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", power = 1, health = 9, '
                          'modifiers = [{ stat = "power", amount = 2 }] }', FAR])
    bt = sc.battle
    assert unit_at(sc, 1, 1)["power"] == 3 and bt.f.g[0, MODDED] == 1  # slot 0's bit
    assert violation(bt.st, bt.cols, bt.f, 0, False) == 0
    bt.f.g[0, MODDED] = 0
    assert unit_at(sc, 1, 1)["power"] == 1  # the instance is no longer read
    assert INVARIANTS[violation(bt.st, bt.cols, bt.f, 0, False)] == "a modifier instance on a slot its game's MODDED bits lack"


def test_armor_modifiers_reach_the_armor_stage(tmp_path: Path) -> None:
    # hex.md "Example: "Target unit gets Armor 1" or "Target unit gets +1 Burned."" (I-35: Prop X
    # takes the highest, +X stacks; modifiers stay while broken)
    sc = board(tmp_path, [('{ side = 0, col = 1, row = 1, name = "A", health = 20, modifiers = [{ stat = "armor", set = 1 }, '
                           '{ stat = "armor", set = 2 }, { stat = "armor", amount = 1 }] }'),
                          ('{ side = 0, col = 3, row = 1, name = "B", health = 20, keywords = { magic_resist = 3 }, '
                           'statuses = { broken = 1 }, modifiers = [{ stat = "magic_resist", amount = 1 }] }'), FAR])
    sc.battle.deal(0, -1, 0, 5, PHYSICAL)
    sc.battle.deal(0, -1, 1, 5, MAGICAL)
    assert (unit_at(sc, 1, 1)["health"], unit_at(sc, 3, 1)["health"]) == (20 - 2, 20 - 4)

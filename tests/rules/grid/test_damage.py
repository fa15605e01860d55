"""grid.md 4.4.3 Calculating Damage, as integer arithmetic (systems/grid/damage.py)."""

from __future__ import annotations

import pytest

from battlesim.systems.grid.damage import attack_base, hit_damage, stun_damage


def test_base_plus_bonus_minus_resistance():
    # grid.md 4.4.3: "Total damage is calculated by adding the base damage and any bonus damage, then
    # subtracting any resistances from the target card."
    assert hit_damage(4, 2, 3, 1) == 6  # Champion's Power Strike on a Footman: 4 + 3 - 1


def test_at_least_one_damage():
    # grid.md 4.4.3: "During combat a unit or hero always does a minimum of 1 DMG."
    assert hit_damage(2, 2, 0, 3) == 1
    assert hit_damage(0, 2, 0, 0) == 1
    assert hit_damage(2, 2, 0, 2) == 1


def test_round_up():
    # grid.md 4.4.3: "When calculating damage incurred by a unit or hero during combat, always round up."
    assert hit_damage(3, 3, 0, 0) == 5  # 3 x 1.5 = 4.5 -> 5
    assert hit_damage(3, 3, 0, 1) == 4  # 4.5 - 1 = 3.5 -> 4
    assert hit_damage(5, 1, 0, 0) == 3  # 5 x 0.5 = 2.5 -> 3


def test_ability_damage_replaces_the_base():
    # grid.md 4.4.3: "Damage can also be calculated by adding the damage from an ability and any bonus
    # damage, then subtracting any resistances from the targeted card." / "If a base damage amount is
    # specified from an ability, the base damage cannot also be applied."
    assert attack_base(2, 5) == 5  # Archmage (2) casting Fireball (5): 5, not 7
    assert attack_base(4, -1) == 4  # an ability without damage uses the unit's


def test_back_stab_doubles_the_base_only():
    # grid.md 4.4.3: "Rogues using the Back Stab ability double the base damage."
    assert hit_damage(2, 4, 0, 1) == 3  # Cutpurse: 2 x 2 - 1
    assert hit_damage(2, 4, 1, 0) == 5  # the bonus is added after doubling (Poisoned Blade's +1)


def test_stunned_opponents_take_the_base_damage():
    # grid.md 4.4.4: "Stunned opponents incur the base damage from the attacker."
    assert stun_damage(2, 0) == 2
    assert stun_damage(2, 3) == 1  # still at least 1


@pytest.mark.parametrize("base,mult2,bonus,resist", [(b, m, x, r) for b in (0, 1, 7) for m in (1, 2, 3, 4)
                                                       for x in (0, 2) for r in (0, 1, 9)])
def test_the_integer_form_is_max_1_of_the_ceiling(base, mult2, bonus, resist):
    import math
    assert hit_damage(base, mult2, bonus, resist) == max(1, math.ceil(base * mult2 / 2 + bonus - resist))

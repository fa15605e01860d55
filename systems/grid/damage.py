"""The damage arithmetic of grid.md 4.4.3, as pure functions of integers.

"During combat a unit or hero always does a minimum of 1 DMG. When calculating damage incurred
by a unit or hero during combat, always round up." "Total damage is calculated by adding the
base damage and any bonus damage, then subtracting any resistances from the target card." "If a
base damage amount is specified from an ability, the base damage cannot also be applied."
"Rogues using the Back Stab ability double the base damage."

Only a fractional ``multiplier`` makes fractions, so the rounding applies to the final number
(spec §2 "Rounding"). Multipliers are stored in halves (``mult2 = 2 * multiplier``: Back Stab's
x2 is 4) so the arithmetic stays in integers, as compiled code wants it. The functions are compiled (the engine's kernels call them).
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, _nrt=False)
def hit_damage(base: int, mult2: int, bonus: int, resist: int) -> int:
    """max(1, ceil(base * mult2 / 2 + bonus - resist)): one target's damage from one hit."""
    twice = base * mult2 + 2 * (bonus - resist)
    total = -((-twice) // 2)  # ceil of twice / 2
    return max(1, total)


@njit(cache=True, _nrt=False)
def attack_base(unit_damage: int, ability_damage: int) -> int:
    """The base of an attack: the ability's damage when it names one (-1: none), else the unit's."""
    return ability_damage if ability_damage >= 0 else unit_damage


@njit(cache=True, _nrt=False)
def stun_damage(unit_damage: int, resist: int) -> int:
    """grid.md 4.4.4: "Stunned opponents incur the base damage from the attacker": the
    attacker's base damage, no bonus or multiplier, minus resistance, at least 1."""
    return hit_damage(unit_damage, 2, 0, resist)

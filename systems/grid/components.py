"""Components of the grid ruleset, in the grid namespace (every name starts with ``grid_``).

The component registry is one table for all rulesets; grid's hidden, flying or HP are not
another ruleset's (DESIGN.md "The World": "hex's Shield X and lanes' Shield are different
components"), so each carries the prefix. Values are the dtypes the catalog and the state use:
HP and damage int16, MV and ranges int8, cells int16 (y * width + x; 10x10 = 100 cells).
"""

import numpy as np

from battlesim.ecs.plugin import component

PREFIX = "grid_"

cell = component("grid_cell", np.int16, default=-1, presence="mask",
                 doc="Cell id y * width + x of a unit on the board (grid.md 4.2.4: one unit per space).")
side = component("grid_side", np.int8, default=0, presence="mask", doc="Owner seat of a unit (0 or 1).")
card = component("grid_card", np.int16, default=-1, presence="mask", doc="Catalog id of the unit's card.")
unit_class = component("grid_class", np.int8, default=0, presence="mask",
                       doc="warrior, rogue, archer, caster (grid.md 4.4.1 default ranges; 4.2.7 rogues pass walls).")
hp = component("grid_hp", np.int16, presence="mask", doc="Current hit points (grid.md 4.4.2: HP tracked per card).")
max_hp = component("grid_max_hp", np.int16, presence="mask", doc="Hit points the unit starts with; heals stop here.")
mv = component("grid_mv", np.int8, presence="mask", doc="MV points per turn (grid.md 4.2.1).")
mv_left = component("grid_mv_left", np.int8, presence="mask",
                    doc="MV still to spend this unit turn (never negative; forced moves spend none, 4.2.13).")
damage = component("grid_damage", np.int16, presence="mask", doc="Base damage of the basic attack (grid.md 4.4.3).")
damage_type = component("grid_damage_type", np.int8, presence="mask",
                        doc="physical, magic, poison: the basic attack's type (grid.md 4.3.9).")
attack_range = component("grid_range", np.int8, presence="mask",
                         doc="Attack range under the LoS metric (grid.md 4.4.1, 4.3.14).")
# one column per damage type (the compiled view groups components by dtype and scalar shape)
resist_physical = component("grid_resist_physical", np.int16, presence="mask",
                            doc="Resistance to physical hits, subtracted from them (grid.md 4.4.3).")
resist_magic = component("grid_resist_magic", np.int16, presence="mask",
                         doc="Resistance to magic hits, subtracted from them (grid.md 4.4.3).")
resist_poison = component("grid_resist_poison", np.int16, presence="mask",
                          doc="Resistance to poison hits, subtracted from them (grid.md 4.4.3).")
kill_points = component("grid_kill_points", np.int8, presence="mask",
                        doc="Kill points the opponent scores when the unit dies (grid.md 4.4.4).")
flying = component("grid_flying", np.bool_, presence="tag", doc="Passes walls, ignores webs (grid.md 4.2.7, 4.2.9).")
hiding = component("grid_hiding", np.bool_, presence="tag", doc="May hide after moving (grid.md 4.2.14).")
parry = component("grid_parry", np.int8, presence="nonzero",
                  doc="Parry N: the first N non-AoE attacks in each opponent turn deal nothing (grid.md 4.4.4).")
parried = component("grid_parried", np.int8, presence="nonzero", doc="Attacks parried in the current opponent turn.")
hidden = component("grid_hidden", np.bool_, presence="tag", doc="Hidden: cannot be targeted (grid.md 4.2.14, 4.4.1).")
invisible = component("grid_invisible", np.bool_, presence="tag",
                      doc="Invisible: hidden that attacking does not end, until its owner's next turn (grid.md 4.4.1).")
stunned = component("grid_stunned", np.bool_, presence="tag",
                    doc="Stunned: no turn in its owner's next player turn (grid.md 4.4.4 'newly spawned').")
hero = component("grid_hero", np.bool_, presence="tag", doc="A hero (kill points 3 by default; unique in a deck).")
item = component("grid_item", np.int16, default=-1, presence="nonzero", doc="Catalog id of the item held (-1: none).")
turn_state = component("grid_turn_state", np.int8, presence="mask",
                       doc="0 ready, 1 active, 2 over: one unit turn per player turn (grid.md 4.1.2-4.1.3).")
action_used = component("grid_action_used", np.bool_, presence="tag", doc="The main action of this turn is used (4.3.3).")
bonus_used = component("grid_bonus_used", np.bool_, presence="tag", doc="The bonus action of this turn is used (4.3.3).")
attacked = component("grid_attacked", np.bool_, presence="tag", doc="The unit attacked this turn (its turn is over).")

# the names, for the test that checks the namespace
NAMES: tuple[str, ...] = tuple(c.name for c in (
    cell, side, card, unit_class, hp, max_hp, mv, mv_left, damage, damage_type, attack_range, resist_physical, resist_magic,
    resist_poison, kill_points,
    flying, hiding, parry, parried, hidden, invisible, stunned, hero, item, turn_state, action_used, bonus_used,
    attacked))

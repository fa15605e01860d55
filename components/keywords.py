"""Keyword components of lanes (lanes.md "Keywords & Abilities"). One declaration each.

Values: a tag is True/False; an "X" keyword holds X (0 = absent, so presence is "nonzero").
Armor may be negative (lanes.md: "Negative armor amplifies damage"); its presence is nonzero.
"""

import numpy as np

from ecs.registry import register_component

KEYWORDS = {
    # Combat keywords
    "taunt": (np.bool_, "tag", "Unopposed enemy units attack the leftmost Taunt unit instead of the anchor."),
    "stealth": (np.bool_, "tag", "Cannot be targeted, bypasses taunt (lost when attacking)."),
    "first_strike": (np.bool_, "tag", "Deals damage before opponent in combat."),
    "cleave": (np.int16, "nonzero", "Cleave X: deals X damage to all enemy units in the lane when attacking."),
    "lifesteal": (np.bool_, "tag", "Heal own anchor for damage dealt."),
    "piercing": (np.bool_, "tag", "Excess damage (overkill) hits enemy anchor; ignores positive Armor."),
    "retaliate": (np.int16, "nonzero", "Retaliate X: when attacked, deals X damage back to each attacker."),
    "siege": (np.int16, "nonzero", "Siege X: deals X additional damage when attacking the anchor directly."),
    "trample": (np.bool_, "tag", "Excess damage (overkill on units) hits enemy anchor."),
    # Defensive keywords
    "shield": (np.int16, "nonzero", "Shield (stacks): blocks the next instance of damage completely, then one stack is removed."),
    "armor": (np.int16, "nonzero", "Armor X: reduces all incoming damage by X (not consumed; may be negative)."),
    "regeneration": (np.int16, "nonzero", "Regeneration X: heals X health at the start of each round."),
    # Action keywords (on units they matter for heroes' rapid deployment; on cards via the catalog)
    "rapid_deployment": (np.bool_, "tag", "Hero returns to play immediately when killed (no death timer)."),
}

STATUSES = {
    # Crowd control: stacks decay by 1 at end of round
    "stunned": "Unit cannot attack while stunned. Stun stacks decay by 1 at end of round.",
    "disarmed": "Unit cannot attack. Decays by 1 at end of round.",
    "silenced": "Unit cannot use abilities. Decays by 1 at end of round.",
    "rooted": "Unit cannot move lanes. Decays by 1 at end of round.",
    # Damage over time
    "decay": "Deals 1 damage per stack at the start of each round. Stacks persist until unit dies.",
    # Debuffs
    "locked": "Equipment cannot be removed or replaced.",
    "enfeebled": "Attack reduced to 0 (rounds; decays by 1 at end of round).",
    # Buffs
    "damage_immunity": "Cannot take damage (rounds; decays by 1 at end of round).",
    "untargetable": "Cannot be targeted by spells or abilities (rounds; decays by 1 at end of round).",
}

# Statuses whose stacks decay by 1 at the end of every round.
DECAYING = ("stunned", "disarmed", "silenced", "rooted", "enfeebled", "damage_immunity", "untargetable")
# What purge removes (lanes.md "Purge & Dispel": "Removes status effects (stun, silence, disarm, root)";
# "Removes all temporary buffs/debuffs applied by the opponent": enfeebled is such a debuff).
PURGEABLE = ("stunned", "silenced", "disarmed", "rooted", "enfeebled")

for _name, (_dtype, _presence, _doc) in KEYWORDS.items():
    register_component(_name, _dtype, default=False if _presence == "tag" else 0, presence=_presence, doc=_doc)
for _name, _doc in STATUSES.items():
    register_component(_name, np.int16, default=0, presence="nonzero", doc=_doc)

"""Keyword components of lanes (lanes.md "Keywords & Abilities"). One declaration each.

Declared through the public extension API (ecs/plugin.py), exactly as a plugin declares its
own. Values: a tag is True/False; an "X" keyword holds X (0 = absent, so presence is "nonzero").
Armor may be negative (lanes.md: "Negative armor amplifies damage"); its presence is nonzero.
"""

from battlesim.ecs.plugin import Keyword, Status, extend

lanes = extend("lanes")

_KEYWORDS = [
    # Combat keywords
    ("taunt", "tag", "Unopposed enemy units attack the leftmost Taunt unit instead of the anchor."),
    ("stealth", "tag", "Cannot be targeted, bypasses taunt (lost when attacking)."),
    ("first_strike", "tag", "Deals damage before opponent in combat."),
    ("cleave", "number", "Cleave X: deals X damage to all enemy units in the lane when attacking."),
    ("lifesteal", "tag", "Heal own anchor for damage dealt."),
    ("piercing", "tag", "Excess damage (overkill) hits enemy anchor; ignores positive Armor."),
    ("retaliate", "number", "Retaliate X: when attacked, deals X damage back to each attacker."),
    ("siege", "number", "Siege X: deals X additional damage when attacking the anchor directly."),
    ("trample", "tag", "Excess damage (overkill on units) hits enemy anchor."),
    # Defensive keywords
    ("shield", "number", "Shield (stacks): blocks the next instance of damage completely, then one stack is removed."),
    ("armor", "number", "Armor X: reduces all incoming damage by X (not consumed; may be negative)."),
    ("regeneration", "number", "Regeneration X: heals X health at the start of each round."),
    # Action keywords (on units they matter for heroes' rapid deployment; on cards via the catalog)
    ("rapid_deployment", "tag", "Hero returns to play immediately when killed (no death timer)."),
]

# (name, doc, decays by 1 at end of round, removed by purge). Purge: lanes.md "Purge &
# Dispel": "Removes status effects (stun, silence, disarm, root)"; "Removes all temporary
# buffs/debuffs applied by the opponent": enfeebled is such a debuff.
_STATUSES = [
    # Crowd control: stacks decay by 1 at end of round
    ("stunned", "Unit cannot attack while stunned. Stun stacks decay by 1 at end of round.", True, True),
    ("disarmed", "Unit cannot attack. Decays by 1 at end of round.", True, True),
    ("silenced", "Unit cannot use abilities. Decays by 1 at end of round.", True, True),
    ("rooted", "Unit cannot move lanes. Decays by 1 at end of round.", True, True),
    # Damage over time
    ("decay", "Deals 1 damage per stack at the start of each round. Stacks persist until unit dies.", False, False),
    # Debuffs
    ("locked", "Equipment cannot be removed or replaced.", False, False),
    ("enfeebled", "Attack reduced to 0 (rounds; decays by 1 at end of round).", True, True),
    # Buffs
    ("damage_immunity", "Cannot take damage (rounds; decays by 1 at end of round).", True, False),
    ("untargetable", "Cannot be targeted by spells or abilities (rounds; decays by 1 at end of round).", True, False),
]

for _name, _value, _doc in _KEYWORDS:
    lanes.keyword(_name, value=_value, doc=_doc)
for _name, _doc, _decays, _purgeable in _STATUSES:
    lanes.status(_name, doc=_doc, decays=_decays, purgeable=_purgeable)

# lanes.md lists "Damage Immunity - Cannot take damage (temporary status, usually 1 round)"
# under "Defensive Keywords" and "Damage Immune - Cannot take damage (temporary)" under "Status
# Effects": one thing, the status. A card may also name it among its keywords (X = the rounds it
# starts with); the keyword is the status's own component, so it decays and is checked exactly
# like the status (ledger, interpretation 44). Declared after the built-ins, before any plugin.
STATUS_KEYWORDS = ("damage_immunity",)
for _name in STATUS_KEYWORDS:
    lanes.keywords[_name] = Keyword(_name, "number", lanes.statuses[_name].doc)

# Live views: a plugin's keywords and statuses appear here too once it is loaded.
KEYWORDS: dict[str, Keyword] = lanes.keywords
STATUSES: dict[str, Status] = lanes.statuses

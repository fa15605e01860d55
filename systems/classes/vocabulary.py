"""The words classes' card, board and scenario files may use, each with the sentence it rests on.

Tables, not code: the loader checks names against them (an unknown word is an error, never a
default), the ledger cites them, and the engine will compile them to ids in this order (so the
order is part of the format: append, never reorder). classes' words are not lanes' words even
where they are spelled alike (classes' ``shield`` adds defence, lanes' blocks a hit): the
components that will hold them are declared under the ``classes_`` prefix (``components.py``).
"""

from __future__ import annotations

# classes.md "Mana": "Different types of mana shown above in order are: White, Red, Blue, Purple,
# Summoning. There is also a symbol for wild mana. It counts as any type of mana."
COLOURS = ("white", "red", "blue", "purple", "summoning")
WILD = "wild"
COST_COLOURS = (*COLOURS, WILD)
# classes.md "Experience": Mana bonus: "Gain one colored Mana (any except Summoning)".
LEVEL_COLOURS = ("white", "red", "blue", "purple")
# classes.md "Mana Cooldown Tracker": "The tracker has 3 slots".
COOLDOWN_SLOTS = 3

# classes.md "Components": "Condition tokens (Haste, Stun, Turnover, Chill, Antimagic, Snare)";
# section "Conditions" gives each one's rule.
CONDITIONS = {
    "haste": 'classes.md "Haste": "Each haste token causes a unit to perform an additional Advance or Attack at the end of its next Battle phase."',
    "stun": 'classes.md "Stun": "Causes a unit to skip its next action, then discard all its Stun tokens."',
    "turnover": 'classes.md "Turnover": "A unit with a Turnover is considered a foe to its owner and an ally to its owner\'s opponents."',
    "chill": 'classes.md "Chill (not used)": "When a unit with Chill tokens deals damage with an Attack, reduce damage taken by 1 for each Chill token it has"',
    "antimagic": 'classes.md "Antimagic": "A unit with Antimagic cannot be targeted or enchanted by cards, any damage dealt by Spells becomes 0"',
    "snare": 'classes.md "Snare (not used)": "A unit with Snare skips its next Advance that it would execute, then discards one Snare token."',
}
# Unit columns kept after these six for conditions plugins declare (``plugin.classes_condition``):
# the compiled layout is fixed, so a plugin condition takes a kept column rather than a new one.
CONDITION_SLOTS = 4
# What a plugin condition's tick leaves on its unit: one token fewer, none, all of them.
DISCARDS = ("one", "all", "none")
# The text heads these two "(not used)": no shipped card applies them (a test checks it); they
# stay in the vocabulary so scenarios and plugins can.
UNUSED_CONDITIONS = ("chill", "snare")

# classes.md "Unit Modifiers". Attack range is the card's ``range`` field (spec §6 stores the
# total, base 1), not a keyword; shield is a count ("Each (shield icon) ... adds +1").
KEYWORDS = {
    "shield": ("number", 'classes.md "Unit Modifiers": "Shield – Increase unit\'s Defense value by 1."'),
    "ferocious": ("tag", 'classes.md: "A unit with Ferocious flanks even while defending, and while attacking (it flanks target of its attack)."'),
    "grounded": ("tag", 'classes.md: "A unit with Grounded does not move when Advancing."'),
    "momentum": ("tag", 'classes.md: "A unit with Momentum gains +1 Attack each time it moves, for as long as it is still acting."'),
    "ethereal": ("tag", 'classes.md: "Attacks targeting an Ethereal unit gain -1 Attack value to a minimum of 1."'),
}
RANGE_MAX = 10

# When an effect of a card or power resolves (spec §14: "trigger defaults to on_cast"; the
# Enchantment clause's effects: "unleash"; aura effects: "aura").
TRIGGERS = {
    "on_cast": 'classes.md "Casting a spell": "Then, place that spell in your play area and resolve its text."',
    "unleash": 'classes.md "Unleashing an enchantment": "When an effect asks you to unleash an enchantment, read and resolve its clause."',
    "aura": 'classes.md "Auras": "It is a persistent ongoing rule that is always active for as long as the card is in play"',
    "on_summon": 'classes.md "Summoning": "Text – of the card. May contain additional effects." (resolved when it is summoned)',
    "on_death": 'classes.md "When a Unit Dies": "it is removed from the battlefield and placed in the owning player\'s Nether" (text resolved then)',
}
UNIT_TRIGGERS = ("aura", "on_summon", "on_death", "unleash")
SPELL_TRIGGERS = ("on_cast", "aura", "unleash")

# What a card, an ability or a power asks its player to choose (spec §14 ``target``).
TARGET_KINDS = ("none", "unit", "enemy_unit", "allied_unit", "player", "field", "intersection", "first_row")

# spec §14 "Selectors". ``chosen`` needs a target; ``enemies_in_range`` needs a field, an
# intersection or a unit to count from, and a ``range``.
SELECTORS = {
    "chosen": "the target the player chose",
    "enemy_player": "the owner's opponent",
    "own_player": "the owner",
    "all_units": "every unit on the battlefield",
    "enemy_units": "every unit hostile to the owner (Turnover aware)",
    "allied_units": "every unit friendly to the owner (Turnover aware)",
    "other_allied_units": "every allied unit except the card's own unit",
    "enchanted": "every unit carrying this card's enchantment token shape",
    "enemies_in_range": "hostile units within `range` of the chosen field or intersection",
}
# Selectors naming a player (only `damage` acts on players: "Attacks on a player and spell damage to a player lower it").
PLAYER_SELECTORS = ("enemy_player", "own_player")
STATS = ("attack", "health")

# spec §14 "Ops", each with the rule it implements and the fields it takes (required, optional).
OPS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "damage": ('classes.md "Keywords": "Deal damage (to a unit) – Reduce its HP die by the listed amount."',
               ("select", "amount"), ()),
    "heal": ('classes.md "Keywords": "To heal – A unit that is healed gains the listed amount of HP, but only up to its base HP."',
             ("select", "amount"), ()),
    "gain": ('classes.md "Keywords": "Gain (Attack or HP) – Increase the value on the appropriate die without limit."',
             ("select", "stat", "amount"), ()),
    "condition": ('classes.md "Conditions": "Some spells apply one or more conditions to their targets."',
                  ("select", "condition", "amount"), ()),
    "enchant": ('classes.md "Keywords": "To enchant – Place a new enchantment token on the entity that is being enchanted"',
                ("select",), ("amount",)),
    "unenchant": ('classes.md "Keywords": "To unenchant – Remove all enchantment tokens matching this enchantment\'s token shape"',
                  ("select",), ()),
    "end_enchantment": ('classes.md "Keywords": "To end (an enchantment) – Remove all enchantment tokens, with matching shape, from the card."',
                        (), ()),
    "summon": ('classes.md "Summoning": "When a card text or a power tells you to summon a card, it must be placed onto the battleground."',
               (), ("card_type",)),
    "gain_mana": ('classes.md "Keywords": "Gain (mana) – Expand your mana pool with a mana of the listed color."',
                  ("colour",), ("amount",)),
    "add_card": ('classes.md "Experience": "The first token lets the player take Rejuvenate spell from the upgrade deck and add it to his hand"',
                 ("card",), ()),
    "remove": ('classes.md "Auras": "leave it in your play area until it is explicitly removed"', (), ()),
    "tick_cooldown": ('classes.md "Beacon of Light": "tick a orb two steps down the Mana Orb track"',
                      ("colour", "steps"), ("amount", "per_token")),
    "unleash": ('classes.md "Unleashing an enchantment": "a card may also specify to unleash its enchantment as part of its effect"',
                (), ()),
    "kill": ('classes.md "Keywords": "Kill (a unit) – Reduce its HP to 0. Take credit for its death."', ("select",), ()),
    # Not in spec §14's list: Beacon of Light's first ability "Place 1 token on this power up to
    # number of [slots] on this power" needs it (ledger: departures). Powers only.
    "add_token": ('classes.md "Beacon of Light": "Place 1 token on this power up to number of [slots] on this power."',
                  (), ("amount",)),
}
POWER_ONLY_OPS = ("add_token",)
# Ops whose subject is the card itself (its enchantment, its place in the play area).
SELF_OPS = ("end_enchantment", "remove", "unleash")
# An aura is "derived each time it is read, never stored" (spec §8): only stat gains.
AURA_OPS = ("gain",)

# classes.md "Enchantment tokens": "a pentagon shaped red token", "a red triangle token";
# spec choice 18: five shapes per player.
SHAPES = ("pentagon", "triangle", "square", "circle", "hexagon")

# classes.md "Experience": "There are two types of bonuses: Mana ... Power Token".
BONUSES = ("mana", "power_token")
# classes.md "Setup" 5: "Paladin, Warlock..."; "none" (scenarios): no powers, no level table.
CLASSES = ("Paladin", "Warlock")

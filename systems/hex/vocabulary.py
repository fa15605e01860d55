"""The words hex card files and scenarios may use, as tables, each with the sentence it rests on.

Names are what the texts say (``armor``, ``shield``, ``trample``); the *components* that will
hold them are namespaced ``hex_<name>`` (spec §7, DESIGN "two names"): lanes already declares
``armor``, ``shield``, ``piercing``, ``lifesteal``, ``trample``, ``rooted``, ``disarmed`` and
``silenced`` with other meanings, and the component registry refuses a second declaration.

``GLOSSARY`` classifies every entry of both keyword lists (hex.md "Keyword Reference" and
hex-keywords.md), so a test can check that every entry a card can carry is carried by a card and
that every other entry says why no card carries it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PREFIX = "hex_"

Arg = Literal["X", "tag", "X|all"]


@dataclass(frozen=True)
class Keyword:
    """A unit's passive keyword: ``X`` a number, ``tag`` true, ``X|all`` a number or true (= all)."""

    arg: Arg
    rule: str

    def component(self, name: str) -> str:
        return PREFIX + name


# Unit keywords (spec §3), in the order of its groups. The rule is the sentence (K unless only H has it).
KEYWORDS: dict[str, Keyword] = {
    # damage pipeline
    "armor": Keyword("X", 'hex.md "Armor X – This unit reduces incoming physical damage by X."'),
    "piercing": Keyword("X|all", 'hex.md "Piercing – This unit ignores Armor during combat." / "Piercing X"'),
    "magic_resist": Keyword("X", 'hex.md "Magic Resist X – This unit reduces incoming magical damage by X."'),
    "evasion": Keyword("X|all",
        'hex.md "Evasion – This unit reduces incoming ranged attack damage to zero." / "Evasion X"'),
    "ethereal": Keyword("tag", 'hex-keywords.md "Ethereal – This unit reduces incoming physical damage to zero."'),
    "lifesteal": Keyword("X|all",
        'hex-keywords.md "Lifesteal X – This unit heals for up to X of the combat damage it deals"'),
    "physical_damage_return": Keyword("X|all",
        'hex.md "Physical Damage Return X – ... returns up to X of that damage back to the source."'),
    "magic_damage_return": Keyword("X|all",
        'hex-keywords.md "Magic Damage Return X – ... returns up to X of that damage back to the source."'),
    "damage_return": Keyword("X|all",
        'hex-keywords.md "Damage Return X – When this unit receives damage that is not from retaliation, '
        'it returns up to X"'),
    "burn": Keyword("X",
        'hex-keywords.md "Burn X – When this unit deals combat damage, the enemy unit has its Burn '
        'counters increased to X."'),
    "poison": Keyword("X",
        'hex-keywords.md "Poison X – When this unit deals combat damage, the enemy unit has its Poison '
        'counters increased to X."'),
    "bleed": Keyword("X",
        'hex-keywords.md "Bleed X – When this unit deals combat damage, the enemy unit has its Bleed '
        'counters increased to X."'),
    "manaburn": Keyword("X", 'hex.md "Manaburn X – When this unit attacks, remove X mana from the defender."'),
    "undying": Keyword("tag",
        'hex-keywords.md "Undying – When this unit dies, if it is not #undead, return it to the '
        'battlefield"'),
    "imbued": Keyword("tag", 'hex.md "Imbued – This unit deals its combat damage as magic damage."'),
    # counters ticking at round start
    "health_regen": Keyword("X", 'hex.md "Health Regen X – This unit heals X at the start of each round."'),
    "mana_regen": Keyword("X", 'hex.md "Mana Regen X – This unit gains X mana at the start of each round"'),
    "fading": Keyword("X", 'hex-keywords.md "Fading X – This unit enters the battlefield with X Fade counters on it."'),
    # movement
    "allied_pathing": Keyword("tag", 'hex.md "Allied Pathing – This unit can move through allied units."'),
    "pathing": Keyword("tag", 'hex.md "Pathing – This unit can move through other units."'),
    "flying": Keyword("tag", 'hex-keywords.md "Flying – This unit can move over other units and obstructions."'),
    "trample": Keyword("X", 'hex.md "Trample X – This unit may move into and through hexes occupied by enemy units."'),
    "retreating": Keyword("X", 'hex-keywords.md "Retreating X – This unit may move X hexes after it attacks."'),
    "charging": Keyword("tag", 'hex.md "Charging – This unit can move and attack in a single action."'),
    # combat modifiers
    "backstab": Keyword("tag", 'hex.md "Backstab – When this unit attacks, the defender cannot retaliate."'),
    "counterstrike": Keyword("tag",
        'hex.md "Counterstrike – This unit retaliates at the same time that it is attacked."'),
    "overwatch": Keyword("tag",
        'hex-keywords.md "Overwatch – This unit retaliates before the attacker deals damage to it."'),
    "intimidate": Keyword("X",
        'hex-keywords.md "Intimidate X – When this unit attacks, the defender retaliates with -X Power."'),
    "vengeance": Keyword("X", 'hex-keywords.md "Vengeance X – This unit gets +X Power while retaliating."'),
    "steadfast": Keyword("tag", 'hex.md "Steadfast – This unit cannot be charged or trampled."'),
    "defender": Keyword("tag", 'hex-keywords.md "Defender – This unit cannot attack."'),
    # control
    "spellproof": Keyword("tag", 'hex.md "Spellproof – This unit is not affected by enemy active abilities."'),
}


@dataclass(frozen=True)
class Status:
    """A status a unit carries: ``counter`` piles (their own rules change them) or ``timed``
    statuses (rounds left, I-34: ``1`` = until the end of this round)."""

    kind: Literal["counter", "timed"]
    rule: str

    def component(self, name: str) -> str:
        """``hex_<name>_counters`` for piles (a keyword of the same name holds its X as
        ``hex_<name>``: Burn 2 the keyword, 2 Burn counters the status), ``hex_<name>`` else."""
        return f"{PREFIX}{name}_counters" if self.kind == "counter" else PREFIX + name


STATUSES: dict[str, Status] = {
    "burn": Status("counter", 'hex.md "All Burn counters on a unit are considered a single debuff."'),
    "poison": Status("counter", 'hex.md "All Poison counters on a unit are considered a single debuff."'),
    "bleed": Status("counter", 'hex-keywords.md "All Bleed counters on a unit are considered a single buff / debuff."'),
    "shield": Status("counter", 'hex-keywords.md "Shield X – This unit has X Shield counters on it."'),
    "refraction": Status("counter", 'hex-keywords.md "Refraction X – This unit has X refraction counters on it."'),
    "fade": Status("counter", 'hex-keywords.md "At the start of each round, remove a Fade counter."'),
    "channel": Status("counter", 'hex-keywords.md "When a unit channels an ability, place X Channel counters on it."'),
    "rooted": Status("timed", 'hex.md "Root – A rooted unit cannot move."'),
    "disarmed": Status("timed", 'hex.md "Disarm – A disarmed unit cannot attack or retaliate."'),
    "silenced": Status("timed", 'hex.md "Silence – A silenced unit cannot use active abilities."'),
    "broken": Status("timed", 'hex.md "Break – A broken unit has its passive abilities disabled."'),
    "overheated": Status("timed", 'hex.md "Overheat – An overheated unit cannot be healed or buffed this round."'),
}

# What the ``status`` op may apply, and the status it sets: "Burned X" etc. set the counter pile
# ("increased to X" = max, I-30); the timed ones take ``rounds``; Refraction adds counters.
APPLIED_STATUSES: dict[str, str] = {
    "burned": "burn", "poisoned": "poison", "bleeding": "bleed", "refraction": "refraction",
    "rooted": "rooted", "disarmed": "disarmed", "silenced": "silenced", "broken": "broken",
    "overheated": "overheated",
}
COUNTER_APPLIED = ("burned", "poisoned", "bleeding", "refraction")

# hex.md "Damage types"; one bit each for the pipeline's kinds (spec §3): a damage instance
# carries its type bit plus the flags saying where it came from.
DAMAGE_TYPES = ("physical", "magical", "pure")
DAMAGE_KINDS: dict[str, int] = {
    "PHYSICAL": 1, "MAGICAL": 2, "PURE": 4, "COMBAT": 8, "ATTACK": 16, "RETALIATION": 32,
    "RANGED": 64, "RETURN": 128, "STATUS": 256, "NONLETHAL": 512,
}

# Properties a modifier may change (hex.md "Properties": basic properties of units and
# abilities, plus the keyword values Armor and Magic Resist that "Target unit gets Armor 1" sets).
STATS = ("power", "range", "movement", "health", "mana", "cast_range", "spell_power", "armor", "magic_resist")
# hex.md "A modifier may state in parentheses whether it only affects melee or ranged units."
QUALIFIERS = ("melee", "ranged")

# What an ability asks its player to choose (spec §5) and the shapes its effects hit.
TARGETS = ("enemy", "ally", "unit", "hex", "self", "none")
SELECTORS: dict[str, str] = {
    "target": "the chosen target",
    "self": "the acting unit (the hero, for a hero's ability or item)",
    "adjacent_enemies": "every enemy adjacent to the target",
    "adjacent_allies": "every ally adjacent to the target",
    "chained": 'hex.md "Chained": unique units each adjacent to the next, all within cast range',
    "triad": 'hex.md "Triad": three mutually adjacent hexes, adjacent to the acting unit',
    "enemies_in_range": "every enemy within the ability's cast range",
    "allies_in_range": "every ally within the ability's cast range",
}


@dataclass(frozen=True)
class Op:
    """An effect opcode: the fields it needs and the ones it may have (besides ``op``, ``select``)."""

    required: tuple[str, ...]
    optional: tuple[str, ...]
    rule: str


OPS: dict[str, Op] = {
    "damage": Op(("amount", "type"), ("nonlethal",),
        'hex.md "Magical damage is dealt by abilities unless otherwise specified."'),
    "heal": Op(("amount",), (), 'hex.md "Heal – Refers to the removal of damage from a unit."'),
    "status": Op(("status",), ("amount", "rounds"),
        'hex.md "Many abilities result in status effects that can be referred to as buffs or debuffs."'),
    "modifier": Op((), ("stat", "keyword", "amount", "set", "rounds", "only"),
        'hex.md "Some items and abilities modify the numerical value of properties."'),
    "shield": Op(("amount",), (), 'hex-keywords.md "Shield X – This unit has X Shield counters on it."'),
    "push": Op(("amount",), (),
        'hex.md "Pushed X – A unit that is pushed moves X hexes along the direction it is being pushed."'),
    "pull": Op(("amount",), (),
        'hex.md "Pulled X – A unit that is pulled moves X hexes along the direction it is being pulled."'),
    "relocate": Op(("to",), (), 'hex.md "Relocate – A relocated unit is moved directly to another hex"'),
    "switch": Op((), (), 'hex.md "Switch – Refers to two units relocating into the other\'s hex."'),
    "control": Op((), ("rounds",), 'hex.md "Control – When you control a unit, it becomes an allied unit."'),
    "summon": Op(("card",), (), 'hex.md "Summoned units also have a NULL value for gold cost"'),
    "destroy": Op((), (), 'hex.md "Destroy – A destroyed unit is removed from the battlefield."'),
    "sacrifice": Op((), (),
        'hex.md "Sacrifice – This occurs when a player chooses to remove one of the cards they control"'),
    "mana": Op(("amount",), (), 'hex.md "Mana – Refers to the current mana of a unit."'),
}
RELOCATE_TO = ("target_hex", "adjacent_to_self")  # where a relocate op moves its unit

# Every entry of both keyword lists, with what carries it. Classes:
#   keyword  - a unit keyword (KEYWORDS); a card must carry it
#   status   - applied by the status/shield op (APPLIED_STATUSES or "shield"); a card must apply it
#   op       - an effect opcode (OPS); a card must use it
#   selector - an effect selector (SELECTORS); a card must use it
#   ability  - an ability-card field (cast_range, spell_power, combinable, channel); a card must set it
#   card     - a card field (legendary, gold, types)
#   define   - a definition the engine obeys, no card word (the reason is the note)
GLOSSARY: dict[str, tuple[str, str, str]] = {
    "Act": ("define", "", "what a turn is (H10.3); the engine's actions"),
    "Allied": ("define", "", "controller's side; the engine's selectors read it"),
    "Allied Pathing": ("keyword", "allied_pathing", ""),
    "Armor X": ("keyword", "armor", ""),
    "Away From X": ("op", "push", "a push from a non-adjacent source steps away from it (board.AWAY)"),
    "Back": ("op", "push", "a push from an adjacent source follows the line behind (board.LINE)"),
    "Backstab": ("keyword", "backstab", ""),
    "Battlefield": ("define", "", "the board of 59 hexes (board.py)"),
    "Bleed X": ("keyword", "bleed", ""),
    "Bleeding X": ("status", "bleeding", ""),
    "Break": ("status", "broken", ""),
    "Burn X": ("keyword", "burn", ""),
    "Burned X": ("status", "burned", ""),
    "Cast Range": ("ability", "cast_range", ""),
    "Chained": ("selector", "chained", ""),
    "Channel X": ("ability", "channel", ""),
    "Charging": ("keyword", "charging", ""),
    "Combat": ("define", "", "attacking or retaliating: the engine's combat"),
    "Combinable": ("ability", "combinable", ""),
    "Control": ("op", "control", ""),
    "Counterstrike": ("keyword", "counterstrike", ""),
    "Damage Return X": ("keyword", "damage_return", ""),
    "Defender": ("keyword", "defender", ""),
    "Destroy": ("op", "destroy", ""),
    "Disarm": ("status", "disarmed", ""),
    "Enemy": ("define", "", "the other controller's side; the engine's selectors read it"),
    "Ethereal": ("keyword", "ethereal", ""),
    "Evasion": ("keyword", "evasion", "evasion = true (I-32)"),
    "Evasion X": ("keyword", "evasion", ""),
    "Faction": ("card", "faction", ""),
    "Fading X": ("keyword", "fading", ""),
    "Flying": ("keyword", "flying", ""),
    "Gold Cost": ("card", "gold", ""),
    "Graveyard": ("define", "", "where dead units go (reset); the engine's deaths"),
    "Heal": ("op", "heal", ""),
    "Health": ("define", "", "a unit's basic property (every unit card has health)"),
    "Health Regen X": ("keyword", "health_regen", ""),
    "Imbued": ("keyword", "imbued", ""),
    "Intimidate X": ("keyword", "intimidate", ""),
    "Legendary": ("card", "legendary", ""),
    "Lifesteal X": ("keyword", "lifesteal", ""),
    "Magic Damage Return X": ("keyword", "magic_damage_return", ""),
    "Magic Resist X": ("keyword", "magic_resist", ""),
    "Mana": ("define", "", "a unit's basic property (cards with mana have it)"),
    "Manaburn X": ("keyword", "manaburn", ""),
    "Mana Regen X": ("keyword", "mana_regen", ""),
    "Move": ("define", "", "the engine's move action (H10.3.1)"),
    "Movement": ("define", "", "a unit's basic property (every moving unit card has it)"),
    "Non-lethal": ("damage", "nonlethal", "a flag of the damage op"),
    "Overheat": ("status", "overheated", ""),
    "Overwatch": ("keyword", "overwatch", ""),
    "Pathing": ("keyword", "pathing", ""),
    "Physical Damage Return X": ("keyword", "physical_damage_return", ""),
    "Piercing": ("keyword", "piercing", "piercing = true (I-32)"),
    "Piercing X": ("keyword", "piercing", ""),
    "Poison X": ("keyword", "poison", ""),
    "Poisoned X": ("status", "poisoned", ""),
    "Power": ("define", "", "a unit's basic property"),
    "Pulled X": ("op", "pull", ""),
    "Pushed X": ("op", "push", ""),
    "Range": ("define", "", "a unit's basic property (omitted = melee)"),
    "Refraction X": ("status", "refraction", ""),
    "Refresh": ("define", "", "the engine's round start (every unit 1 action, I-13)"),
    "Relocate": ("op", "relocate", ""),
    "Retreating X": ("keyword", "retreating", ""),
    "Root": ("status", "rooted", ""),
    "Sacrifice": ("op", "sacrifice", ""),
    "Shield X": ("status", "shield", "the shield op adds counters"),
    "Silence": ("status", "silenced", ""),
    "Spell Power": ("ability", "spell_power", ""),
    "Spellproof": ("keyword", "spellproof", ""),
    "Stack": ("define", "", "how modifiers add up (I-35, I-36): the engine's modifiers"),
    "Starting Hex": ("define", "", "the hex a unit held at the turn's start: the engine's turn state"),
    "Steadfast": ("keyword", "steadfast", ""),
    "Switch": ("op", "switch", ""),
    "Trample X": ("keyword", "trample", ""),
    "Triad": ("selector", "triad", ""),
    "Undying": ("keyword", "undying", ""),
    "Vengeance X": ("keyword", "vengeance", ""),
}


def keyword_components() -> dict[str, str]:
    """Keyword name -> the component that will hold its value (``hex_<name>``)."""
    return {n: k.component(n) for n, k in KEYWORDS.items()}


def status_components() -> dict[str, str]:
    """Status name -> the component that will hold it (``hex_<name>_counters`` for piles)."""
    return {n: s.component(n) for n, s in STATUSES.items()}


def vocabulary_rows() -> list[dict[str, str]]:
    """Every built-in word a hex card file may name, as ``battlesim keywords`` rows (kind, name,
    value_type, doc): the unit keywords, statuses, damage types, effect ops and selectors above,
    each with the sentence it comes from. A plugin's additions come from ``extend("hex")``."""
    rows = [{"kind": "keyword", "name": n, "value_type": k.arg, "doc": k.rule} for n, k in KEYWORDS.items()]
    rows += [{"kind": "status", "name": n, "value_type": s.kind, "doc": s.rule} for n, s in STATUSES.items()]
    rows += [{"kind": "damage_type", "name": n, "value_type": "-", "doc": 'hex.md "Damage types"'}
             for n in DAMAGE_TYPES]
    rows += [{"kind": "opcode", "name": n, "value_type": ", ".join(o.required) or "-", "doc": o.rule}
             for n, o in OPS.items()]
    rows += [{"kind": "selector", "name": n, "value_type": "-", "doc": d} for n, d in SELECTORS.items()]
    return rows

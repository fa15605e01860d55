"""The words grid card, map and scenario files may use, each with the rule sentence it comes from.

Tables, not code: the loaders check names against them (an unknown word is an error, never a
default), the catalog stores a word as its index in its tuple, and the coverage test checks that
every keyword, class, damage type and op is used by at least one shipped card.
"""

from __future__ import annotations

from dataclasses import dataclass

# grid.md 4.4.1: "warriors and rogues are melee units with a range of 1 space ... archers and
# casters always have a range of 3 spaces". Index = the catalog's class id.
CLASSES: dict[str, str] = {
    "warrior": 'grid.md 4.4.1: "warriors and rogues are melee units with a range of 1 space"',
    "rogue": 'grid.md 4.2.7: "unless they are a rogue or can fly"; 4.4.3: "Rogues using the Back Stab ability"',
    "archer": 'grid.md 4.4.1: "archers and casters always have a range of 3 spaces"',
    "caster": 'grid.md 4.4.1: "archers and casters always have a range of 3 spaces"',
}
CLASS_NAMES: tuple[str, ...] = tuple(CLASSES)
DEFAULT_RANGE: dict[str, int] = {"warrior": 1, "rogue": 1, "archer": 3, "caster": 3}

# grid.md 4.3.9: "physical damage (sword symbol), magic damage (fireball symbol), poison damage (skull symbol)"
DAMAGE_TYPES: tuple[str, ...] = ("physical", "magic", "poison")

# spec §3: card types. Traps: grid.md 4.4.3 "spike traps" (physical), "explosion traps" (magic).
CARD_TYPES: tuple[str, ...] = ("unit", "hero", "spell", "item", "trap")
BOARD_TYPES: tuple[str, ...] = ("unit", "hero")
# grid.md 4.3.2: "All units, heroes, mercenaries and animals have abilities": labels, no rule.
TAGS: tuple[str, ...] = ("mercenary", "animal")


@dataclass(frozen=True)
class Word:
    """A keyword or status: its name, whether it holds a flag or a number, and its sentence."""

    name: str
    value: str  # "tag" (true/false) or "number"
    rule: str
    lo: int = 0
    hi: int = 1


# Keywords a card may carry (grid.md 4.3.13: the lemniscate marks an always-on ability).
KEYWORDS: dict[str, Word] = {
    "flying": Word("flying", "tag", ('grid.md 4.2.7: "unless they are a rogue or can fly"; 4.2.9: '
                                     '"Flying creatures are not affected by web obstacles."')),
    "hiding": Word("hiding", "tag", ('grid.md 4.2.14: "Units or heroes with the hiding ability can move '
                                     'and then hide as long as no other action or combat is taken."')),
    "parry": Word("parry", "number", ('grid.md 4.4.4: "Attacks can be nullified by using abilities such '
                                      'as parry" (ledger: the first N non-AoE attacks against it in each opponent '
                                      'turn)'), 1, 10),
}

# Statuses a unit may have (scenario `statuses`, the state's output).
STATUSES: dict[str, Word] = {
    "hidden": Word("hidden", "tag", 'grid.md 4.2.14: "Hiding is demonstrated by turning the card upside down."'),
    "invisible": Word("invisible", "tag", 'grid.md 4.4.1: "A unit or hero cannot target a hidden or invisible unit."'),
    "stunned": Word("stunned", "tag", ('grid.md 4.4.4: "A stunned card ... is treated as if it was newly '
                                       'spawned on the opponent\'s turn."')),
}

# Ability ops (spec §3) and the fields each may set beyond name/op/bonus/se/text: (allowed, required).
OPS: dict[str, tuple[str, frozenset[str], frozenset[str]]] = {
    "attack": ('grid.md 4.3.4: "An action can be used during movement and combat"; 4.4.3 ability damage',
               frozenset({"damage", "bonus_damage", "multiplier", "damage_type", "range", "area", "stun",
                          "requires_hidden"}), frozenset()),
    "extra_mv": ('grid.md 4.2.3: "A unit or hero can use actions, items or spell cards to increase movement."',
                 frozenset({"amount"}), frozenset({"amount"})),
    "jump": ('grid.md 4.2.11: "Some cards have abilities that allow them to jump over other cards."',
             frozenset(), frozenset()),
    "teleport": (('grid.md 4.2.12: "Some cards have abilities that allow them to teleport to other locations '
                  'on the battlefield."'), frozenset({"range"}), frozenset({"range"})),
    "push": (('grid.md 4.2.13: "Some cards have abilities that allow them to move other cards (like the '
              '\\"Push ability\\")."'), frozenset({"amount"}), frozenset()),
    "rush": (('grid.md 4.2.3: "uses the ability \\"Indomitable Rush\\" to move an extra space while shoving a '
              'card out of its way."'), frozenset(), frozenset()),
    "heal": ('spec §3 op heal (an ability of a card, grid.md 4.3.1)', frozenset({"amount", "range"}),
             frozenset({"amount"})),
    "gather": ('grid.md 4.1.1: "The Elf Gatherer moves to the mana pool and then completes its turn"',
               frozenset({"amount"}), frozenset({"amount"})),
    "search": (('grid.md 4.3.12: "the player can search their deck to find a specific card and add it to '
                'their hand."'), frozenset({"card"}), frozenset({"card"})),
    "conceal": ('grid.md 4.4.1: "cannot target a hidden or invisible unit" (spells that hide: ledger)',
                frozenset({"status", "range", "only_class"}), frozenset({"status"})),
}
OP_NAMES: tuple[str, ...] = tuple(OPS)
ABILITY_FIELDS: tuple[str, ...] = ("damage", "bonus_damage", "multiplier", "damage_type", "range", "area",
                                   "stun", "requires_hidden", "amount", "card", "status", "only_class")
# what conceal may give: a status that makes the unit untargetable
CONCEAL_STATUSES: tuple[str, ...] = ("hidden", "invisible")

# Item grants (spec §3 "grants (stat/keyword bonuses while held)").
GRANT_STATS: tuple[str, ...] = ("mv", "damage", "range")

# Map files (spec §2 "Map"): cell kinds a map lists.
MAP_FEATURES: tuple[str, ...] = ("walls", "webs", "mana_pools")

# Scenario step kinds (spec §5), in the table's order.
STEPS: tuple[str, ...] = ("start_unit_turn", "move", "attack", "ability", "hide", "end_unit_turn", "end_turn",
                          "hire", "play")


def vocabulary_rows() -> list[dict[str, str]]:
    """Every word a grid card may use, as rows (kind, name, value, rule): what a listing such as
    ``battlesim keywords --ruleset grid`` prints."""
    rows = [{"kind": "class", "name": n, "value": f"range {DEFAULT_RANGE[n]}", "rule": r} for n, r in CLASSES.items()]
    rows += [{"kind": "damage type", "name": n, "value": "", "rule": 'grid.md 4.3.9'} for n in DAMAGE_TYPES]
    rows += [{"kind": "keyword", "name": w.name, "value": w.value, "rule": w.rule} for w in KEYWORDS.values()]
    rows += [{"kind": "status", "name": w.name, "value": w.value, "rule": w.rule} for w in STATUSES.values()]
    rows += [{"kind": "op", "name": n, "value": ", ".join(sorted(allowed)), "rule": r}
             for n, (r, allowed, _) in OPS.items()]
    return rows

"""The grid card set as numpy arrays by card id: what compiled code will index.

Names become indices in the vocabulary's tuples; "none" is -1. A card's abilities fill K =
MAX_ABILITIES slots (a spell's or trap's effect is its slot 0). Defaults the rules fix are
resolved here, once: a unit's range by class (grid.md 4.4.1), kill points by type (spec §2), an
attack ability's damage type (the ability's, else a spell's magic, else the unit's: grid.md 4.4.3
"Magic damage occurs from spells").
"""

from __future__ import annotations

import numpy as np

from battlesim.ecs.world import Catalog
from battlesim.systems.grid.cards import MAX_ABILITIES, CardSpec, Grants, Resist, abilities_of
from battlesim.systems.grid.vocabulary import (
    CARD_TYPES,
    CLASS_NAMES,
    CONCEAL_STATUSES,
    DAMAGE_TYPES,
    DEFAULT_RANGE,
    OP_NAMES,
    TAGS,
)

NONE = -1


def unit_range(spec: CardSpec) -> int:
    """The attack range the rules read: the card's, else its class's (grid.md 4.4.1)."""
    if spec.range is not None:
        return spec.range
    return DEFAULT_RANGE[spec.class_] if spec.class_ else 0


def ability_damage_type(spec: CardSpec, k: int) -> int:
    a = abilities_of(spec)[k]
    if a.damage_type is not None:
        return DAMAGE_TYPES.index(a.damage_type)
    if spec.type == "spell":
        return DAMAGE_TYPES.index("magic")
    return DAMAGE_TYPES.index(spec.damage_type)


def compile_catalog(specs: dict[str, CardSpec]) -> Catalog:
    """All cards, sorted by name (ids are stable for a given card set)."""
    names = sorted(specs)
    rows = [specs[n] for n in names]
    index = {n: i for i, n in enumerate(names)}
    n, k = len(rows), MAX_ABILITIES

    def arr(f, dt) -> np.ndarray:
        return np.array([f(s) for s in rows], dtype=dt)

    grants = [s.grants or Grants() for s in rows]
    arrays: dict[str, np.ndarray] = {
        "type": arr(lambda s: CARD_TYPES.index(s.type), np.int8),
        "cls": arr(lambda s: CLASS_NAMES.index(s.class_) if s.class_ else NONE, np.int8),
        "tags": arr(lambda s: sum(1 << TAGS.index(t) for t in s.tags), np.int8),
        "cost": arr(lambda s: s.cost, np.int16),
        "hp": arr(lambda s: s.hp, np.int16),
        "mv": arr(lambda s: s.mv, np.int8),
        "damage": arr(lambda s: s.damage, np.int16),
        "damage_type": arr(lambda s: DAMAGE_TYPES.index(s.damage_type), np.int8),
        "range": arr(unit_range, np.int8),
        "resist": np.array([s.resist.as_tuple() for s in rows], dtype=np.int16).reshape(n, 3),
        "kill_points": arr(lambda s: s.points if s.is_unit else 0, np.int8),
        "kw_flying": arr(lambda s: bool(s.keywords.get("flying", False)), np.bool_),
        "kw_hiding": arr(lambda s: bool(s.keywords.get("hiding", False)), np.bool_),
        "kw_parry": arr(lambda s: int(s.keywords.get("parry", 0)), np.int8),
        "grant_mv": np.array([g.mv for g in grants], dtype=np.int8),
        "grant_damage": np.array([g.damage for g in grants], dtype=np.int16),
        "grant_range": np.array([g.range for g in grants], dtype=np.int8),
        "grant_resist": np.array([(g.resist or Resist()).as_tuple() for g in grants], dtype=np.int16).reshape(n, 3),
        "grant_damage_type": np.array([DAMAGE_TYPES.index(g.damage_type) if g.damage_type else NONE
                                       for g in grants], dtype=np.int8),
        "grant_flying": np.array([bool(g.keywords.get("flying", False)) for g in grants], dtype=np.bool_),
        "grant_hiding": np.array([bool(g.keywords.get("hiding", False)) for g in grants], dtype=np.bool_),
        "grant_parry": np.array([int(g.keywords.get("parry", 0)) for g in grants], dtype=np.int8),
    }
    ab = {
        "ab_op": (np.int8, NONE), "ab_bonus": (np.bool_, False), "ab_se": (np.int8, 0),
        "ab_damage": (np.int16, NONE), "ab_bonus_damage": (np.int16, 0), "ab_mult2": (np.int8, 2),
        "ab_damage_type": (np.int8, NONE), "ab_range": (np.int8, NONE), "ab_area": (np.int8, NONE),
        "ab_stun": (np.bool_, False), "ab_requires_hidden": (np.bool_, False), "ab_amount": (np.int16, 0),
        "ab_card": (np.int16, NONE), "ab_status": (np.int8, NONE), "ab_only_class": (np.int8, NONE),
    }
    for key, (dt, default) in ab.items():
        arrays[key] = np.full((n, k), default, dtype=dt)
    for c, spec in enumerate(rows):
        for j, a in enumerate(abilities_of(spec)):
            arrays["ab_op"][c, j] = OP_NAMES.index(a.op)
            arrays["ab_bonus"][c, j] = a.bonus
            arrays["ab_se"][c, j] = a.se
            arrays["ab_damage"][c, j] = a.damage if a.damage is not None else NONE
            arrays["ab_bonus_damage"][c, j] = a.bonus_damage or 0
            arrays["ab_mult2"][c, j] = a.mult2
            arrays["ab_damage_type"][c, j] = ability_damage_type(spec, j) if a.op == "attack" else NONE
            # an ability's range: its own, else (attacks, heals) the unit's; push acts on a neighbour
            own = a.range if a.range is not None else NONE
            if own == NONE and a.op == "attack":
                own = unit_range(spec) if spec.is_unit else NONE
            if own == NONE and a.op == "heal":
                own = 1  # spec §3: heal range default 1
            if own == NONE and a.op == "conceal":
                own = 0  # spec: without a range a concealing ability acts on its own unit
            arrays["ab_range"][c, j] = own
            arrays["ab_area"][c, j] = a.area if a.area is not None else NONE
            arrays["ab_stun"][c, j] = bool(a.stun)
            arrays["ab_requires_hidden"][c, j] = bool(a.requires_hidden)
            amount = a.amount if a.amount is not None else (1 if a.op == "push" else 0)
            arrays["ab_amount"][c, j] = amount
            arrays["ab_card"][c, j] = index[a.card] if a.card is not None else NONE
            arrays["ab_status"][c, j] = CONCEAL_STATUSES.index(a.status) if a.status else NONE
            arrays["ab_only_class"][c, j] = CLASS_NAMES.index(a.only_class) if a.only_class else NONE
    for array in arrays.values():
        array.setflags(write=False)
    return Catalog(names, arrays, rows)

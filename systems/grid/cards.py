"""Grid card files (data/cards/grid/*.toml): the card and ability models, checked at load.

Every error is one line naming the file (and line), the card and the field; names (classes,
damage types, keywords, ops, statuses, searched cards) are resolved against the vocabulary, never
defaulted; every number is range-checked against the dtype the catalog stores it in
(systems/grid/catalog.py). Field meanings: spec §3.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from battlesim.ecs.datafiles import DataError, did_you_mean, fail, printable, read_toml, validate
from battlesim.systems.grid.vocabulary import (
    CLASS_NAMES,
    CONCEAL_STATUSES,
    KEYWORDS,
    OPS,
)

NAME_MAX = 80
NAME_PATTERN = r"^[^\x00-\x1f\x7f-\x9f]+$"
MAX_ABILITIES = 3  # spec §3: "abilities (list, <= 3)"; the action table's K
STAT_MAX = 100  # damage, resistances, amounts: far beyond any card, inside int16
HP_MAX = 999  # three red d10 (grid.md 4.4.2 tracks HP with dice); int16
MV_MAX = 20  # int8; a 16x16 board is crossed in 30 steps, no card needs more than 20 a turn
RANGE_MAX = 30
SE_MAX = 99  # grid.md 4.4.2: SE on "2 blue 10-sided die"
COST_MAX = 99

DamageType = Literal["physical", "magic", "poison"]
ClassName = Literal["warrior", "rogue", "archer", "caster"]


class Resist(BaseModel):
    """Resistance per damage type (grid.md 4.4.3 "subtracting any resistances"); missing = 0."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    physical: int = Field(0, ge=0, le=STAT_MAX)
    magic: int = Field(0, ge=0, le=STAT_MAX)
    poison: int = Field(0, ge=0, le=STAT_MAX)

    def as_tuple(self) -> tuple[int, int, int]:
        return self.physical, self.magic, self.poison


def check_keywords(keywords: dict[str, bool | int]) -> None:
    """Known keywords with values of their kind: flags true/false, numbers within their range."""
    from battlesim.systems.grid.keywords import check_plugin_keyword

    for k, v in keywords.items():
        word = KEYWORDS.get(k)
        if word is None and check_plugin_keyword(k, v):
            continue  # a plugin's keyword (keywords.py)
        if word is None:
            raise ValueError(f"unknown keyword {printable(k)!r}{did_you_mean(k, KEYWORDS)}; known: {', '.join(KEYWORDS)}")
        if isinstance(v, bool) != (word.value == "tag"):
            raise ValueError(f"keyword {k!r} takes {'true/false' if word.value == 'tag' else 'a number'}, "
                             f"got {str(v).lower()}")
        if word.value == "number" and not word.lo <= v <= word.hi:
            raise ValueError(f"keyword {k!r} = {v}: expected {word.lo} to {word.hi}")


class AbilitySpec(BaseModel):
    """One ability (grid.md 4.3.1: "using an ability listed on the card"); the fields an op may
    set are OPS[op] (vocabulary.py): a field its op does not read is an error, not ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=NAME_MAX, pattern=NAME_PATTERN)
    op: str
    bonus: bool = False  # grid.md 4.3.5: the bonus action symbol
    se: int = Field(0, ge=0, le=SE_MAX)  # grid.md 4.3.6: "the associated SE cost"
    text: str = ""
    damage: int | None = Field(None, ge=0, le=STAT_MAX)
    bonus_damage: int | None = Field(None, ge=0, le=STAT_MAX)
    # grid.md 4.4.3 "double the base damage"; halves only (spec §2 "Rounding": fractions round up)
    multiplier: float | int | None = Field(None, gt=0, le=10)
    damage_type: DamageType | None = None
    range: int | None = Field(None, ge=0, le=RANGE_MAX)
    area: int | None = Field(None, ge=0, le=5)
    stun: bool | None = None
    requires_hidden: bool | None = None
    amount: int | None = Field(None, ge=1, le=STAT_MAX)
    card: str | None = Field(None, min_length=1, max_length=NAME_MAX)
    status: str | None = None
    only_class: ClassName | None = None

    @field_validator("op")
    @classmethod
    def _known_op(cls, op: str) -> str:
        if op not in OPS:
            raise ValueError(f"unknown op {printable(op)!r}{did_you_mean(op, OPS)}; known: {', '.join(OPS)}")
        return op

    @model_validator(mode="after")
    def _fields_of_op(self) -> AbilitySpec:
        _, allowed, required = OPS[self.op]
        given = {f for f in ("damage", "bonus_damage", "multiplier", "damage_type", "range", "area", "stun",
                             "requires_hidden", "amount", "card", "status", "only_class")
                 if getattr(self, f) is not None}
        extra = sorted(given - allowed)
        if extra:
            uses = ", ".join(sorted(allowed)) or "no fields"
            raise ValueError(f"op {self.op!r} does not use {extra[0]!r} (it uses: {uses})")
        missing = sorted(required - given)
        if missing:
            raise ValueError(f"op {self.op!r} needs {missing[0]!r}")
        if self.multiplier is not None and not float(self.multiplier * 2).is_integer():
            raise ValueError(f"multiplier {self.multiplier}: expected whole or half numbers (0.5, 1, 1.5, 2, ...)")
        if self.status is not None and self.status not in CONCEAL_STATUSES:
            raise ValueError(f"status {printable(self.status)!r}: conceal gives one of {', '.join(CONCEAL_STATUSES)}"
                             f"{did_you_mean(self.status, CONCEAL_STATUSES)}")
        return self

    @property
    def mult2(self) -> int:
        """The multiplier in halves (2 = x1), as the damage arithmetic takes it."""
        return round((self.multiplier if self.multiplier is not None else 1) * 2)


class Grants(BaseModel):
    """What an item gives the unit holding it (spec §3 "grants")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mv: int = Field(0, ge=0, le=MV_MAX)
    damage: int = Field(0, ge=0, le=STAT_MAX)
    range: int = Field(0, ge=0, le=RANGE_MAX)
    resist: Resist = Field(default_factory=Resist)
    damage_type: DamageType | None = None  # e.g. Poisoned Blade: the basic attack deals poison
    keywords: dict[str, bool | int] = Field(default_factory=dict)

    @field_validator("keywords")
    @classmethod
    def _known(cls, keywords: dict[str, bool | int]) -> dict[str, bool | int]:
        check_keywords(keywords)
        return keywords


class CardSpec(BaseModel):
    """One card as written (spec §3 "Card fields")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=NAME_MAX, pattern=NAME_PATTERN)
    type: Literal["unit", "hero", "spell", "item", "trap"]
    # class is a Python word: the file's key is "class"
    class_: ClassName | None = Field(None, alias="class")
    tags: list[Literal["mercenary", "animal"]] = Field(default_factory=list)
    cost: int = Field(0, ge=0, le=COST_MAX)
    hp: int = Field(0, ge=0, le=HP_MAX)
    mv: int = Field(0, ge=0, le=MV_MAX)
    damage: int = Field(0, ge=0, le=STAT_MAX)
    damage_type: DamageType = "physical"
    range: int | None = Field(None, ge=1, le=RANGE_MAX)
    resist: Resist = Field(default_factory=Resist)
    kill_points: int | None = Field(None, ge=0, le=100)
    keywords: dict[str, bool | int] = Field(default_factory=dict)
    abilities: list[AbilitySpec] = Field(default_factory=list, max_length=MAX_ABILITIES)
    effect: AbilitySpec | None = None  # spells and traps: what the card does
    grants: Grants | None = None  # items
    text: str = ""

    @field_validator("keywords")
    @classmethod
    def _known_keywords(cls, keywords: dict[str, bool | int]) -> dict[str, bool | int]:
        check_keywords(keywords)
        return keywords

    @model_validator(mode="after")
    def _shape_by_type(self) -> CardSpec:
        t = self.type
        body = t in ("unit", "hero")
        if body:
            if self.class_ is None:
                raise ValueError(f"a {t} needs a 'class' ({', '.join(CLASS_NAMES)})")
            if self.hp < 1:
                raise ValueError(f"a {t} needs hp >= 1")
            if self.effect is not None or self.grants is not None:
                raise ValueError(f"a {t} has abilities, not an 'effect' or 'grants'")
            names = [a.name for a in self.abilities]
            if len(set(names)) != len(names):
                raise ValueError("two abilities have the same name (steps name abilities)")
            return self
        stats = [f for f in ("class_", "hp", "mv", "damage", "range", "kill_points") if getattr(self, f)]
        if stats or self.tags or self.keywords or self.abilities or self.resist != Resist():
            what = (stats[0].rstrip("_") if stats else "tags" if self.tags else "keywords" if self.keywords
                    else "abilities" if self.abilities else "resist")
            raise ValueError(f"a {t} does not stand on the board: no {what!r}")
        if t in ("spell", "trap") and self.effect is None:
            raise ValueError(f"a {t} needs an 'effect' (an ability table)")
        if t == "item" and self.grants is None:
            raise ValueError("an item needs 'grants'")
        if t != "item" and self.grants is not None:
            raise ValueError(f"only items have 'grants', not a {t}")
        if t == "item" and self.effect is not None:
            raise ValueError("an item has 'grants', not an 'effect'")
        if self.effect is not None and self.effect.se:
            raise ValueError(f"a {t}'s price is its 'cost'; its effect has no 'se'")
        if t == "trap":
            e = self.effect
            if e.op != "attack" or e.damage is None:
                raise ValueError("a trap's effect is an 'attack' with a 'damage' (grid.md 4.4.3: spike and "
                                 "explosion traps deal damage)")
            if e.damage_type is None:
                raise ValueError("a trap's effect needs its 'damage_type' (spike traps: physical, explosion "
                                 "traps: magic)")
            if e.bonus or e.range is not None or e.stun or e.requires_hidden:
                raise ValueError("a trap's effect sets only damage, damage_type and area")
        return self

    @property
    def is_unit(self) -> bool:
        return self.type in ("unit", "hero")

    @property
    def points(self) -> int:
        """Kill points (spec §2: default 1 for units, 3 for heroes)."""
        if self.kill_points is not None:
            return self.kill_points
        return 3 if self.type == "hero" else 1


class CardFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cards: list[dict] = Field(default_factory=list)


def card_label(item: dict, i: int) -> str:
    name = item.get("name")
    return name if isinstance(name, str) else f"cards[{i}]"


def load_cards(cards_dir: Path) -> tuple[dict[str, CardSpec], dict[str, Path]]:
    """Every ``*.toml`` in ``cards_dir``: names unique across files, searched cards defined."""
    if not cards_dir.is_dir():
        raise DataError(f"{cards_dir}: card directory not found")
    files = sorted(cards_dir.glob("*.toml"))
    if not files:
        raise DataError(f"{cards_dir}: no card files (*.toml)")
    specs: dict[str, CardSpec] = {}
    origin: dict[str, Path] = {}
    texts: dict[Path, str] = {}
    for path in files:
        raw, text = read_toml(path)
        texts[path] = text
        for i, item in enumerate(validate(CardFile, raw, path, text).cards):
            spec = validate(CardSpec, item, path, text, item=card_label(item, i))
            if spec.name in specs:
                raise fail(path, text, spec.name, f"duplicate card name (also in {origin[spec.name]})")
            specs[spec.name] = spec
            origin[spec.name] = path
    check_references(specs, lambda name, msg: fail(origin[name], texts[origin[name]], name, msg))
    return specs, origin


def abilities_of(spec: CardSpec) -> list[AbilitySpec]:
    """The abilities a card brings: a unit's list, a spell's or trap's effect."""
    return list(spec.abilities) + ([spec.effect] if spec.effect is not None else [])


def check_references(specs: dict[str, CardSpec], error) -> None:
    """Names one card gives another (``search`` ops) must be defined cards of the set."""
    for spec in specs.values():
        for a in abilities_of(spec):
            if a.card is not None and a.card not in specs:
                raise error(spec.name, f"field 'card' of ability {a.name!r}: unknown card {printable(a.card)!r}"
                                       f"{did_you_mean(a.card, specs)}")

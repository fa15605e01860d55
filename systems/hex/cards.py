"""Hex cards: units, heroes, summons, abilities and items (spec §5), read from TOML and checked.

Each card file holds ``[[cards]]`` tables; ``type`` picks the model. Shape rules of the text are
checked per card (a hero or summon has a NULL gold cost, a unit has one; an item takes 1-3
inventory slots); names across files are checked together (one card per name, an ability's
owning hero is a hero of its faction, a summon op names a summon card). Every error is one line
naming the file, the card and the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from battlesim.data import data_dir
from battlesim.ecs.datafiles import DataError, did_you_mean, fail, printable, read_toml, validate
from battlesim.systems.hex.effect_spec import (
    AMOUNT_MAX,
    ActiveSpec,
    CastRange,
    EffectSpec,
    Name,
    PassiveSpec,
    check_keywords,
)

FACTIONS = ("Ember", "Thorn", "Bulwark", "Gale")
CARD_TYPES = ("unit", "hero", "summon", "ability", "item")
BOARD_TYPES = ("unit", "hero", "summon")
Faction = Literal["Ember", "Thorn", "Bulwark", "Gale"]
Stat = Annotated[int, Field(ge=0, le=AMOUNT_MAX)]
GOLD_MAX = 160  # hex.md "The gold limit of a kingdom is 160.": no single card costs more
TYPE_PATTERN = r"^#?[a-z][a-z_]*$"


def type_tag(t: str) -> str:
    """``"#undead"`` and ``"undead"`` are one type (hex.md "denoted by a hash tag"); stored bare."""
    return t[1:] if t.startswith("#") else t


class UnitCard(BaseModel):
    """A unit, hero or summon (hex.md "Parts of a unit card"). A stat left out is NULL: "cannot
    attack or retaliate" (power), "melee" (range), "cannot move on its own" (movement), "cannot be
    affected by abilities that interact with mana" (mana)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Name
    type: Literal["unit", "hero", "summon"]
    faction: Faction
    gold: Annotated[int, Field(ge=1, le=GOLD_MAX)] | None = None
    power: Stat | None = None
    range: Annotated[int, Field(ge=1, le=AMOUNT_MAX)] | None = None
    movement: Stat | None = None
    health: Annotated[int, Field(ge=1, le=AMOUNT_MAX)]
    mana: Stat | None = None
    types: list[Annotated[str, Field(pattern=TYPE_PATTERN, max_length=40)]] = Field(default_factory=list)
    keywords: dict[str, int | bool] = Field(default_factory=dict)
    abilities: list[ActiveSpec] = Field(default_factory=list)
    legendary: bool = False
    text: str = ""

    @model_validator(mode="after")
    def _shape(self) -> "UnitCard":
        if self.type == "unit" and self.gold is None:
            raise ValueError("field 'gold': a unit needs a gold cost")
        if self.type == "hero" and self.gold is not None:
            # hex.md "Heroes have a missing value (NULL) for gold cost"
            raise ValueError("field 'gold': a hero has no gold cost (NULL: leave it out)")
        if self.type == "summon" and self.gold is not None:
            # hex.md "Summoned units also have a NULL value for gold cost"
            raise ValueError("field 'gold': a summon has no gold cost (NULL: leave it out)")
        check_keywords(self.keywords, "field 'keywords'")
        if any(a.cost for a in self.abilities) and self.mana is None:
            raise ValueError("field 'abilities': an ability with a mana cost on a unit without mana (NULL)")
        return self


class AbilityCard(BaseModel):
    """An ability card (hex.md "Ability cards"): its owning hero, its level, an active body
    (``effects`` with cost and cast range) and/or a ``passive``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Name
    type: Literal["ability"]
    faction: Faction
    hero: Name
    gold: Annotated[int, Field(ge=1, le=GOLD_MAX)]
    level: Annotated[int, Field(ge=1, le=5)] = 1
    cost: Annotated[int, Field(ge=0, le=AMOUNT_MAX)] = 0
    cast_range: CastRange = None
    target: Literal["enemy", "ally", "unit", "hex", "self", "none"] = "none"
    once_per: Literal["round", "battle"] | None = None
    combinable: bool = False
    channel: Annotated[int, Field(ge=1, le=7)] | None = None
    spell_power: Annotated[int, Field(ge=0, le=AMOUNT_MAX)] = 0
    effects: list[EffectSpec] = Field(default_factory=list)
    passive: PassiveSpec | None = None
    legendary: bool = False
    text: str = ""

    @model_validator(mode="after")
    def _active_or_passive(self) -> "AbilityCard":
        if not self.effects and self.passive is None:
            raise ValueError("field 'effects': an ability needs effects (active) or a passive")
        if not self.effects and (self.cost or self.cast_range is not None or self.target != "none"
                                 or self.combinable or self.channel or self.once_per):
            raise ValueError("field 'effects': cost, cast_range, target, once_per, combinable and channel belong "
                             "to an active ability: give it effects")
        return self

    def active(self) -> ActiveSpec | None:
        """The active ability this card gives its hero (None for a passive-only card)."""
        if not self.effects:
            return None
        return ActiveSpec(name=self.name, cost=self.cost, cast_range=self.cast_range, target=self.target,
                          once_per=self.once_per, combinable=self.combinable, channel=self.channel,
                          spell_power=self.spell_power, effects=self.effects, text=self.text)


class ItemCard(BaseModel):
    """An item (hex.md "Item cards"): gold, inventory slots, a passive on the hero and/or an active."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Name
    type: Literal["item"]
    faction: Faction
    gold: Annotated[int, Field(ge=1, le=GOLD_MAX)]
    slots: Annotated[int, Field(ge=1, le=3)]  # "A hero cannot use more than 3 inventory slots"
    passive: PassiveSpec | None = None
    ability: ActiveSpec | None = None
    legendary: bool = False
    text: str = ""

    @model_validator(mode="after")
    def _does_something(self) -> "ItemCard":
        if self.passive is None and self.ability is None:
            raise ValueError("field 'passive': an item needs a passive or an ability")
        return self


Card = UnitCard | AbilityCard | ItemCard


def card_key_of(name: str, level: int = 1) -> str:
    """How kingdoms name a card: its name, plus the level for levels above 1 (hex.md "The ability
    level is not considered part of the ability name": levels share the name, so the key tells
    them apart)."""
    return name if level == 1 else f"{name} (level {level})"


def card_key(card: "Card") -> str:
    return card_key_of(card.name, card.level if isinstance(card, AbilityCard) else 1)
_MODELS: dict[str, type[BaseModel]] = {"unit": UnitCard, "hero": UnitCard, "summon": UnitCard,
                                       "ability": AbilityCard, "item": ItemCard}


@dataclass(frozen=True)
class HexCardSet:
    """Every hex card by key (``card_key``: the name, plus the level above 1), and its file."""

    cards: dict[str, Card]
    files: dict[str, Path]

    def of_type(self, *types: str) -> list[Card]:
        return [c for c in self.cards.values() if c.type in types]


def parse_card(raw: Any, path: Path, text: str, index: int) -> Card:
    """One ``[[cards]]`` table: its ``type`` picks the model; errors name the card."""
    name = raw.get("name") if isinstance(raw, dict) else None
    label = name if isinstance(name, str) else f"cards[{index}]"
    kind = raw.get("type") if isinstance(raw, dict) else None
    if kind not in _MODELS:
        got = "missing (required)" if kind is None else f"expected one of {', '.join(CARD_TYPES)}, got {kind!r}"
        raise fail(path, text, label if isinstance(name, str) else None,
                   f"field 'type': {got}{did_you_mean(kind, CARD_TYPES)}")
    return validate(_MODELS[kind], raw, path, text, item=label)  # type: ignore[return-value]


def load_cards(cards_dir: Path | None = None) -> HexCardSet:
    """Read every ``*.toml`` under ``cards_dir`` (default: the shipped ``data/cards/hex``)."""
    cards_dir = Path(cards_dir) if cards_dir else data_dir() / "cards" / "hex"
    if not cards_dir.is_dir():
        raise DataError(f"{cards_dir}: card directory not found")
    cards: dict[str, Card] = {}
    files: dict[str, Path] = {}
    texts: dict[Path, str] = {}
    for path in sorted(cards_dir.glob("*.toml")):
        raw, text = read_toml(path)
        texts[path] = text
        extra = sorted(set(raw) - {"cards"})
        if extra:
            raise DataError(f"{path}: unknown top-level key {printable(extra[0])!r}: a card file holds [[cards]] "
                            "tables")
        tables = raw.get("cards", [])
        if not isinstance(tables, list):
            raise DataError(f"{path}: 'cards' must be [[cards]] tables")
        for i, table in enumerate(tables):
            card = parse_card(table, path, text, i)
            key = card_key(card)
            if key in cards:
                raise fail(path, text, card.name, f"card {key!r} is already defined in {files[key]}")
            cards[key], files[key] = card, path
    _check_references(cards, files, texts)
    return HexCardSet(cards, files)


def _check_references(cards: dict[str, Card], files: dict[str, Path], texts: dict[Path, str]) -> None:
    """Names a card uses resolve: an ability's hero, a summon op's card (DESIGN "Names are
    resolved at load")."""
    heroes = {n for n, c in cards.items() if c.type == "hero"}  # (heroes and summons have no level: key = name)
    summons = {n for n, c in cards.items() if c.type == "summon"}
    for name, card in cards.items():
        path = files[name]
        if isinstance(card, AbilityCard):
            hero = cards.get(card.hero)
            if card.hero not in heroes:
                raise fail(path, texts[path], card.name, f"field 'hero': {card.hero!r} is not a hero card"
                           f"{did_you_mean(card.hero, heroes)}")
            if hero is not None and hero.faction != card.faction:
                raise fail(path, texts[path], card.name, f"field 'hero': {card.hero!r} is of faction {hero.faction}, "
                           f"the ability of {card.faction}")
        for effect in effects_of(card):
            if effect.op == "summon" and effect.card not in summons:
                raise fail(path, texts[path], card.name, f"field 'effects': summon {effect.card!r} is not a summon card"
                           f"{did_you_mean(effect.card, summons)}")


def effects_of(card: Card) -> list[EffectSpec]:
    """Every effect row a card carries (its own actives, an item's ability, an ability card's body)."""
    if isinstance(card, UnitCard):
        return [e for a in card.abilities for e in a.effects]
    if isinstance(card, ItemCard):
        return list(card.ability.effects) if card.ability else []
    return list(card.effects)


def actives_of(card: Card) -> list[ActiveSpec]:
    """Every active ability a card gives (ability cards as one active)."""
    if isinstance(card, UnitCard):
        return list(card.abilities)
    if isinstance(card, ItemCard):
        return [card.ability] if card.ability else []
    act = card.active()
    return [act] if act else []

"""Cards and decks of lanes: TOML in ``data/``, validated, compiled to a numpy catalog.

Deck legality is checked here, at load time, so a simulation never starts with an illegal
deck (lanes.md "Deck Building" and "Heroes").
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from data import data_dir
from ecs.datafiles import DataError, fail, read_toml, validate
from ecs.world import Catalog
from systems.lanes.params import LanesParams

FACTIONS = ("Red", "Blue", "Green", "Black")
RARITIES = ("Common", "Rare", "Epic", "Legendary")
CARD_TYPES = ("unit", "hero", "creep")
UNIT, HERO, CREEP = 0, 1, 2

Faction = Literal["Red", "Blue", "Green", "Black"]


class CardSpec(BaseModel):
    """One card as written in a card file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    type: Literal["unit", "hero", "creep"]
    faction: Faction
    rarity: Literal["Common", "Rare", "Epic", "Legendary"] = "Common"
    unique: bool = False
    tier: int = Field(0, ge=0, le=5)
    cost: int = Field(0, ge=0, le=20)
    attack: int = Field(0, ge=0, le=100)
    health: int = Field(ge=1, le=1000)
    signature: list[str] = Field(default_factory=list)
    text: str = ""

    @model_validator(mode="after")
    def _shape_by_type(self) -> "CardSpec":
        if self.type == "hero":
            # lanes.md: "Heroes are Legendary and unique (only 1 copy each)"
            if self.rarity != "Legendary":
                raise ValueError("a hero must have rarity 'Legendary'")
            if self.cost:
                raise ValueError("a hero has no cost (heroes are deployed, not played)")
        elif self.signature:
            raise ValueError("only heroes have signature cards")
        if self.type == "unit" and self.cost < 1:
            raise ValueError("a unit must cost at least 1")
        return self

    @property
    def is_unique(self) -> bool:
        # lanes.md: "All Legendary cards are unique"
        return self.unique or self.rarity == "Legendary"


class CardFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cards: list[dict] = Field(default_factory=list)


class DeckSpec(BaseModel):
    """One deck file. ``cards`` lists the main deck *without* the heroes' signature cards,
    which are added automatically (lanes.md: "Each hero comes with 3 signature cards
    automatically added to your deck")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    description: str = ""
    heroes: list[str]
    creep: str
    cards: dict[str, int] = Field(default_factory=dict)

    @field_validator("cards")
    @classmethod
    def _positive(cls, v: dict[str, int]) -> dict[str, int]:
        bad = [k for k, n in v.items() if n < 1]
        if bad:
            raise ValueError(f"card counts must be >= 1 (got {bad[0]!r} = {v[bad[0]]})")
        return v


@dataclass(frozen=True)
class Deck:
    """A legal, compiled deck: catalog ids in deck order (signatures first, then listed cards)."""

    id: str
    name: str
    main: np.ndarray  # int16[n]
    heroes: np.ndarray  # int16[5], deployment slots 1-5
    creep: int
    path: Path


@dataclass
class CardSet:
    catalog: Catalog
    specs: dict[str, CardSpec]
    decks: dict[str, Deck]
    cards_dir: Path
    decks_dir: Path

    def deck(self, deck_id: str) -> Deck:
        try:
            return self.decks[deck_id]
        except KeyError:
            raise DataError(
                f"unknown deck {deck_id!r}; available: {', '.join(sorted(self.decks))}"
            ) from None


def load_cards(cards_dir: Path) -> tuple[dict[str, CardSpec], dict[str, Path]]:
    """Every ``*.toml`` in ``cards_dir``; names unique across files; heroes' signatures checked."""
    if not cards_dir.is_dir():
        raise DataError(f"{cards_dir}: card directory not found")
    specs: dict[str, CardSpec] = {}
    origin: dict[str, Path] = {}
    texts: dict[Path, str] = {}
    files = sorted(cards_dir.glob("*.toml"))
    if not files:
        raise DataError(f"{cards_dir}: no card files (*.toml)")
    for path in files:
        raw, text = read_toml(path)
        texts[path] = text
        cf = validate(CardFile, raw, path, text)
        for i, item in enumerate(cf.cards):
            label = item.get("name") if isinstance(item.get("name"), str) else f"cards[{i}]"
            spec = validate(CardSpec, item, path, text, item=label)
            if spec.name in specs:
                raise fail(path, text, spec.name, f"duplicate card name (also in {origin[spec.name]})")
            specs[spec.name] = spec
            origin[spec.name] = path
    for spec in specs.values():
        if spec.type != "hero":
            continue
        path = origin[spec.name]
        for sig in spec.signature:
            s = specs.get(sig)
            if s is None:
                raise fail(path, texts[path], spec.name, f"signature card {sig!r} is not defined")
            if s.type != "unit":
                raise fail(path, texts[path], spec.name, f"signature card {sig!r} must be a unit")
            if s.faction != spec.faction:
                # lanes.md: "Signature cards are tied to that hero and share their faction"
                raise fail(path, texts[path], spec.name, f"signature card {sig!r} is {s.faction}, not {spec.faction}")
        if len(set(spec.signature)) != len(spec.signature):
            raise fail(path, texts[path], spec.name, "signature cards must be distinct")
    return specs, origin


def compile_catalog(specs: dict[str, CardSpec]) -> Catalog:
    names = sorted(specs)
    rows = [specs[n] for n in names]
    arr = lambda f, dt: np.array([f(s) for s in rows], dtype=dt)  # noqa: E731
    return Catalog(
        names,
        {
            "kind": arr(lambda s: CARD_TYPES.index(s.type), np.int8),
            "faction": arr(lambda s: FACTIONS.index(s.faction), np.int8),
            "cost": arr(lambda s: s.cost, np.int16),
            "attack": arr(lambda s: s.attack, np.int16),
            "health": arr(lambda s: s.health, np.int16),
            "tier": arr(lambda s: s.tier, np.int8),
            "rarity": arr(lambda s: RARITIES.index(s.rarity), np.int8),
            "unique": arr(lambda s: s.is_unique, np.bool_),
        },
        rows,
    )


def load_deck(path: Path, specs: dict[str, CardSpec], catalog: Catalog, params: LanesParams) -> Deck:
    """Validate a deck against the rules of "Deck Building" and "Heroes"; errors name the card."""
    raw, text = read_toml(path)
    spec = validate(DeckSpec, raw, path, text)

    def bad(item: str | None, msg: str, key: str = "name") -> DataError:
        return fail(path, text, item, msg, key)

    def known(name: str, want: str, where: str) -> CardSpec:
        card = specs.get(name)
        if card is None:
            line = _card_line(text, name) if where == "cards" else None
            loc = f"{path}:{line}" if line else str(path)
            raise DataError(f"{loc}: deck {spec.name!r}: unknown card {name!r} in {where}")
        if card.type != want:
            raise bad(None, f"deck {spec.name!r}: {name!r} in {where} is a {card.type}, not a {want}")
        return card

    # lanes.md: "Each deck must include exactly 5 Hero cards in dedicated deck builder slots"
    if len(spec.heroes) != params.heroes:
        raise bad(None, f"deck {spec.name!r}: needs exactly {params.heroes} heroes, has {len(spec.heroes)}")
    heroes = [known(h, "hero", "heroes") for h in spec.heroes]
    if len(set(spec.heroes)) != len(spec.heroes):
        raise bad(None, f"deck {spec.name!r}: a hero is listed twice (heroes are unique)")
    known(spec.creep, "creep", "creep")
    for name in spec.cards:
        known(name, "unit", "cards")

    counts = Counter(spec.cards)
    for h in heroes:
        if len(h.signature) != params.signature_cards:
            raise bad(None, f"deck {spec.name!r}: hero {h.name!r} needs {params.signature_cards} signature cards")
        counts.update(h.signature)
    for name, n in counts.items():
        card = specs[name]
        limit = 1 if card.is_unique else params.max_copies
        if n > limit:
            what = "unique card" if card.is_unique else "non-unique card"
            raise DataError(
                f"{path}: deck {spec.name!r}: {n} copies of {what} {name!r} (max {limit}, signature copies included)"
            )
    total = sum(counts.values())
    if total < params.deck_min:
        raise DataError(
            f"{path}: deck {spec.name!r}: main deck has {total} cards (signature cards included), "
            f"minimum is {params.deck_min}"
        )
    main = [catalog.id(s) for h in heroes for s in h.signature]
    main += [catalog.id(n) for n, k in spec.cards.items() for _ in range(k)]
    return Deck(
        id=path.stem,
        name=spec.name,
        main=np.array(main, dtype=np.int16),
        heroes=np.array([catalog.id(h.name) for h in heroes], dtype=np.int16),
        creep=catalog.id(spec.creep),
        path=path,
    )


def _card_line(text: str, name: str) -> int | None:
    m = re.search(rf'^\s*["\']?{re.escape(name)}["\']?\s*=', text, re.M)
    return text.count("\n", 0, m.start()) + 1 if m else None


def load_card_set(
    params: LanesParams,
    cards_dir: Path | None = None,
    decks_dir: Path | None = None,
) -> CardSet:
    """Load and validate the card directory and every deck in the deck directory."""
    cards_dir = Path(cards_dir) if cards_dir else data_dir() / "cards" / "lanes"
    decks_dir = Path(decks_dir) if decks_dir else data_dir() / "decks" / "lanes"
    specs, _ = load_cards(cards_dir)
    catalog = compile_catalog(specs)
    if not decks_dir.is_dir():
        raise DataError(f"{decks_dir}: deck directory not found")
    decks = {p.stem: load_deck(p, specs, catalog, params) for p in sorted(decks_dir.glob("*.toml"))}
    return CardSet(catalog, specs, decks, cards_dir, decks_dir)

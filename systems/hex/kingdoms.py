"""Kingdoms: the cards a player brings (hex.md "Kingdoms"), checked when they are loaded.

A kingdom file names its format, its hero and its cards. A ``draft`` kingdom lists every card in
``[cards]`` (name = copies) and may hold up to 160 gold; a ``blitz`` kingdom is the army itself
(I-7: blitz cards "are guaranteed to be drafted" and "A player may not draft more than 80 gold"),
so it holds at most 80 gold and places its hero and units on hexes ``[col, rank]`` counted from
the player's own edge (rank 0-1: "the two rows of hexes closest to them"), mirrored for side 1.

Every error is one line: ``FILE:LINE: kingdom 'NAME': card 'CARD': field 'FIELD': what``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from battlesim.data import data_dir
from battlesim.ecs.datafiles import DataError, did_you_mean, printable, read_toml, validate
from battlesim.systems.hex.board import COLS, from_rank, on_board
from battlesim.systems.hex.cards import AbilityCard, HexCardSet, ItemCard, UnitCard, card_key_of

KINGDOM_GOLD = 160  # hex.md "The gold limit of a kingdom is 160."
ARMY_GOLD = 80  # hex.md "A player may not draft more than 80 gold worth of cards." (a blitz kingdom, I-7)
INVENTORY_SLOTS = 3  # hex.md "A hero cannot use more than 3 inventory slots worth of items."
DEPLOY_RANKS = 2  # hex.md "the two rows of hexes closest to them"
Col = Annotated[int, Field(ge=0, le=COLS - 1)]
Rank = Annotated[int, Field(ge=0, le=DEPLOY_RANKS - 1)]
HexSpec = Annotated[list[int], Field(min_length=2, max_length=2)]


class PlacedUnit(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    card: str
    hex: HexSpec

    @model_validator(mode="after")
    def _a_deployment_hex(self) -> "PlacedUnit":
        _check_hex(self.hex)
        return self


def _check_hex(h: list[int]) -> None:
    col, rk = h
    if not 0 <= col < COLS or not 0 <= rk < DEPLOY_RANKS:
        raise ValueError(f"hex {h}: expected [col 0-{COLS - 1}, rank 0-{DEPLOY_RANKS - 1}] (the two rows closest "
                         "to the player)")


class KingdomSpec(BaseModel):
    """A kingdom as written in its file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Annotated[str, Field(min_length=1, max_length=80, pattern=r"^[^\x00-\x1f\x7f-\x9f]+$")]
    description: str = ""
    format: Literal["draft", "blitz"]
    hero: str
    hero_hex: HexSpec | None = None
    cards: dict[str, Annotated[int, Field(ge=1, le=20)]] = Field(default_factory=dict)
    units: list[PlacedUnit] = Field(default_factory=list)

    @model_validator(mode="after")
    def _shape_by_format(self) -> "KingdomSpec":
        if self.format == "blitz":
            if self.hero_hex is None:
                raise ValueError("a blitz kingdom places its hero: give hero_hex = [col, rank]")
            _check_hex(self.hero_hex)
        elif self.hero_hex is not None or self.units:
            raise ValueError("a draft kingdom places nothing: 'hero_hex' and [[units]] belong to blitz kingdoms "
                             "(list units in [cards])")
        return self


@dataclass(frozen=True)
class Kingdom:
    """A checked kingdom: ``cards`` are card keys with their copies; ``placed`` (blitz) the hero
    and units with their ``(col, rank)``; ``gold`` the total (the hero counts zero)."""

    id: str
    name: str
    format: str
    hero: str
    faction: str
    cards: tuple[str, ...]
    placed: tuple[tuple[str, int, int], ...]
    gold: int
    path: Path

    def hex_of(self, side: int, col: int, rk: int) -> tuple[int, int]:
        """The ``(col, row)`` a placement ``(col, rank)`` means for ``side``."""
        return from_rank(side, col, rk)


def _line(text: str, card: str) -> int | None:
    m = re.search(rf'["\']{re.escape(card)}["\']', text)
    return text.count("\n", 0, m.start()) + 1 if m else None


class _Errors:
    """Builds the one-line error of a kingdom file."""

    def __init__(self, path: Path, text: str, kingdom: str) -> None:
        self.path, self.text, self.kingdom = path, text, kingdom

    def __call__(self, card: str | None, field: str, what: str) -> DataError:
        line = _line(self.text, card) if card else None
        where = f"{self.path}:{line}" if line else str(self.path)
        c = f"card {printable(card)!r}: " if card else ""
        return DataError(f"{where}: kingdom {printable(self.kingdom)!r}: {c}field {field!r}: {what}")


def load_kingdom(path: Path, cards: HexCardSet) -> Kingdom:
    """Read and check one kingdom file (hex.md "Kingdoms"; spec §2.1, I-7, I-8)."""
    path = Path(path)
    raw, text = read_toml(path)
    label = raw.get("name") if isinstance(raw.get("name"), str) else path.stem
    spec = validate(KingdomSpec, raw, path, text, item=label)
    err = _Errors(path, text, spec.name)
    hero = cards.cards.get(spec.hero)
    if not isinstance(hero, UnitCard) or hero.type != "hero":
        heroes = [c.name for c in cards.of_type("hero")]
        raise err(spec.hero, "hero", f"not a hero card{did_you_mean(spec.hero, heroes)}")
    listed: list[tuple[str, str]] = [(k, "cards") for k, n in spec.cards.items() for _ in range(n)]
    listed += [(u.card, "units") for u in spec.units]
    gold = 0
    for key, field in listed:
        card = cards.cards.get(key)
        if card is None:
            raise err(key, field, f"unknown card{did_you_mean(key, cards.cards)}")
        _check_card(err, spec, hero, key, card, field)
        gold += card.gold or 0  # hex.md "A player's hero card counts for zero gold."
    for key, n in Counter(k for k, _ in listed).items():
        if cards.cards[key].legendary and n > 1:
            raise err(key, "cards", f"Legendary: {n} copies, at most 1 (\"Only one instance of this card can exist "
                      "in a player's kingdom\")")
    _check_levels(err, [cards.cards[k] for k, _ in listed])
    limit = ARMY_GOLD if spec.format == "blitz" else KINGDOM_GOLD
    if gold > limit:
        raise err(None, "cards", f"{gold} gold, more than a {spec.format} kingdom may hold ({limit})")
    slots = sum(c.slots for c in (cards.cards[k] for k, _ in listed) if isinstance(c, ItemCard))
    if spec.format == "blitz" and slots > INVENTORY_SLOTS:
        raise err(None, "cards", f"items take {slots} inventory slots, a hero uses at most {INVENTORY_SLOTS}")
    placed = _placements(err, spec)
    return Kingdom(path.stem, spec.name, spec.format, spec.hero, hero.faction, tuple(k for k, _ in listed),
                   placed, gold, path)


def _check_card(err: _Errors, spec: KingdomSpec, hero: UnitCard, key: str, card, field: str) -> None:
    if card.type == "hero":
        raise err(key, field, f"a second hero (the kingdom's hero is {spec.hero!r}): \"A kingdom can only have "
                  "one hero.\"")
    if card.type == "summon":
        raise err(key, field, "a summon cannot be drafted (its gold cost is NULL)")
    if card.faction != hero.faction:
        raise err(key, field, f"faction {card.faction}, the hero {hero.name!r} is {hero.faction}: \"A kingdom can "
                  "only have cards from the hero's faction.\"")
    if isinstance(card, AbilityCard) and card.hero != spec.hero:
        raise err(key, field, f"an ability of {card.hero!r}, not of the hero {spec.hero!r}: \"Only this hero may "
                  "draft this ability.\"")
    if field == "units" and card.type != "unit":
        raise err(key, field, f"a {card.type} is not placed on the map: list it in [cards]")
    if spec.format == "blitz" and card.type == "unit" and field == "cards":
        raise err(key, field, "a blitz kingdom places its units: list it in [[units]] with its hex")


def _check_levels(err: _Errors, listed: list) -> None:
    """I-44: a higher level of an ability needs the level below it in the kingdom."""
    have = {(c.name, c.level) for c in listed if isinstance(c, AbilityCard)}
    for name, level in sorted(have):
        if level > 1 and (name, level - 1) not in have:
            raise err(card_key_of(name, level), "cards", f"level {level} needs level {level - 1} of {name!r} "
                      "in the kingdom")


def _placements(err: _Errors, spec: KingdomSpec) -> tuple[tuple[str, int, int], ...]:
    if spec.format != "blitz":
        return ()
    assert spec.hero_hex is not None
    placed = [(spec.hero, spec.hero_hex[0], spec.hero_hex[1])] + [(u.card, u.hex[0], u.hex[1]) for u in spec.units]
    seen: dict[tuple[int, int], str] = {}
    for card, col, rk in placed:
        if not on_board(*from_rank(0, col, rk)):
            raise err(card, "hex", f"[{col}, {rk}] is not a hex of the map")
        if (col, rk) in seen:
            raise err(card, "hex", f"[{col}, {rk}] already holds {seen[(col, rk)]!r} (one unit per hex)")
        seen[(col, rk)] = card
    return tuple(placed)


def load_kingdoms(cards: HexCardSet, kingdoms_dir: Path | None = None) -> dict[str, Kingdom]:
    """Every kingdom file of ``kingdoms_dir`` (default: the shipped ``data/kingdoms/hex``), by id."""
    kingdoms_dir = Path(kingdoms_dir) if kingdoms_dir else data_dir() / "kingdoms" / "hex"
    if not kingdoms_dir.is_dir():
        raise DataError(f"{kingdoms_dir}: kingdom directory not found")
    return {p.stem: load_kingdom(p, cards) for p in sorted(kingdoms_dir.glob("*.toml"))}

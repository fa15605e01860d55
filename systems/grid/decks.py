"""Grid deck files (data/decks/grid/*.toml): a starting hero and a main deck, legal at load.

Spec §2 "Setup": a deck is one starting hero (on the board when the game starts) and a main deck
of at least ``deck_min`` cards (units, heroes, spells, items, traps), at most ``max_copies`` of a
card, heroes unique (the starting hero is not also in the main deck). Every error is one line
naming the file (and line), the deck and the card.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from battlesim.data import data_dir
from battlesim.ecs.datafiles import DataError, did_you_mean, key_line, printable, read_toml, validate
from battlesim.ecs.world import Catalog
from battlesim.systems.grid.cards import NAME_MAX, NAME_PATTERN, CardSpec
from battlesim.systems.grid.params import GridParams


class DeckSpec(BaseModel):
    """One deck file as written."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=NAME_MAX, pattern=NAME_PATTERN)
    description: str = ""
    hero: str = Field(min_length=1, max_length=NAME_MAX)
    cards: dict[str, int] = Field(default_factory=dict)


@dataclass(frozen=True)
class Deck:
    """A legal deck: the starting hero's card id and the main deck's ids in file order."""

    id: str
    name: str
    hero: int
    main: np.ndarray  # int16[n]
    path: Path


def load_deck(path: Path, specs: dict[str, CardSpec], catalog: Catalog, params: GridParams) -> Deck:
    """Read one deck file and check it against spec §2's deck rules."""
    raw, text = read_toml(path)
    spec = validate(DeckSpec, raw, path, text)

    def bad(key: str | None, msg: str) -> DataError:
        line = key_line(text, key) if key else None
        where = f"{path}:{line}" if line else str(path)
        return DataError(f"{where}: deck {printable(spec.name)!r}: {msg}")

    hero = specs.get(spec.hero)
    if hero is None:
        raise bad("hero", f"field 'hero': unknown card {printable(spec.hero)!r}{did_you_mean(spec.hero, specs)}")
    if hero.type != "hero":
        raise bad("hero", f"field 'hero': {spec.hero!r} is a {hero.type}, the starting hero must be a hero")
    for name, n in spec.cards.items():
        card = specs.get(name)
        if card is None:
            raise bad(name, f"field 'cards': unknown card {printable(name)!r}{did_you_mean(name, specs)}")
        if n < 1:
            raise bad(name, f"field 'cards.{name}': {n} copies, expected 1 or more")
        limit = 1 if card.type == "hero" else params.max_copies
        if n > limit:
            what = "a hero (heroes are unique)" if card.type == "hero" else "a card"
            raise bad(name, f"field 'cards.{name}': {n} copies of {what}, at most {limit}")
        if name == spec.hero:
            raise bad(name, f"field 'cards.{name}': the starting hero is also in the main deck (heroes are unique)")
    total = sum(spec.cards.values())
    if total < params.deck_min:
        raise bad("name", f"field 'cards': the main deck has {total} cards, at least {params.deck_min}")
    main = [catalog.id(name) for name, n in spec.cards.items() for _ in range(n)]
    return Deck(path.stem, spec.name, catalog.id(spec.hero), np.array(main, dtype=np.int16), path)


def decks_dir() -> Path:
    return data_dir() / "decks" / "grid"


def load_decks(specs: dict[str, CardSpec], catalog: Catalog, params: GridParams,
               directory: Path | None = None) -> dict[str, Deck]:
    """Every deck file of ``directory`` (default: the shipped decks), by file stem."""
    directory = directory or decks_dir()
    if not directory.is_dir():
        raise DataError(f"{directory}: deck directory not found")
    return {p.stem: load_deck(p, specs, catalog, params) for p in sorted(directory.glob("*.toml"))}

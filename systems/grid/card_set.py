"""The grid card set: cards, catalog and decks loaded together, as a game needs them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from battlesim.data import data_dir
from battlesim.ecs.datafiles import DataError, did_you_mean, printable
from battlesim.ecs.world import Catalog
from battlesim.systems.grid.cards import CardSpec, load_cards
from battlesim.systems.grid.catalog import compile_catalog
from battlesim.systems.grid.decks import Deck, load_decks
from battlesim.systems.grid.params import GridParams


@dataclass
class GridCardSet:
    specs: dict[str, CardSpec]
    catalog: Catalog
    decks: dict[str, Deck]

    def deck(self, deck_id: str) -> Deck:
        try:
            return self.decks[deck_id]
        except KeyError:
            raise DataError(f"unknown grid deck {printable(deck_id)!r}{did_you_mean(deck_id, self.decks)}; "
                            f"available: {', '.join(sorted(self.decks))}") from None


def with_plugin_keywords(spec: CardSpec) -> CardSpec:
    """The card with what its plugin keywords add (keywords.py: always in effect, grid.md 4.3.13),
    so the compiled loop plays them as the card's own stats; a card without one is unchanged."""
    from battlesim.systems.grid.catalog import unit_range
    from battlesim.systems.grid.keywords import keyword_bonus

    if not spec.keywords:
        return spec
    add = keyword_bonus(spec.keywords)
    if not any(add.values()):
        return spec
    resist = spec.resist.model_copy(update={t: getattr(spec.resist, t) + add[t] for t in ("physical", "magic", "poison")})
    return spec.model_copy(update={"mv": spec.mv + add["mv"], "damage": spec.damage + add["damage"],
                                   "hp": spec.hp + add["hp"], "resist": resist,
                                   "range": unit_range(spec) + add["range"] if add["range"] else spec.range})


def load_card_set(params: GridParams, cards_dir: Path | None = None, decks_dir: Path | None = None) -> GridCardSet:
    """Cards of ``cards_dir`` (default data/cards/grid) and decks of ``decks_dir`` (data/decks/grid)."""
    specs, _ = load_cards(Path(cards_dir) if cards_dir else data_dir() / "cards" / "grid")
    specs = {name: with_plugin_keywords(s) for name, s in specs.items()}
    catalog = compile_catalog(specs)
    decks = load_decks(specs, catalog, params, Path(decks_dir) if decks_dir else None)
    return GridCardSet(specs, catalog, decks)

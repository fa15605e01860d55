"""Cards and decks of lanes: TOML in ``data/``, validated, compiled to a numpy catalog.

Deck legality is checked here, at load time, so a simulation never starts with an illegal
deck (lanes.md "Deck Building" and "Heroes").
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from battlesim.components.keywords import KEYWORDS, STATUSES
from battlesim.data import data_dir
from battlesim.ecs.datafiles import (
    DataError,
    a_or_an,
    did_you_mean,
    fail,
    key_line,
    printable,
    read_toml,
    validate,
)
from battlesim.ecs.effects import EffectTable
from battlesim.ecs.plugin import extend, plugins_summary
from battlesim.ecs.world import Catalog
from battlesim.systems.lanes import opcodes as _opcodes  # noqa: F401  (register the vocabulary)
from battlesim.systems.lanes import selectors as _selectors  # noqa: F401  (register the vocabulary)
from battlesim.systems.lanes.effect_spec import AbilitySpec, EffectSpec
from battlesim.systems.lanes.params import LanesParams
from battlesim.systems.lanes.vocabulary import (
    DIRECTIONS,
    DURATIONS,
    EXECUTOR,
    RANGES,
    STATS,
    TARGET_KINDS,
)

FACTIONS = ("Red", "Blue", "Green", "Black")
RARITIES = ("Common", "Rare", "Epic", "Legendary")
CARD_TYPES = ("unit", "hero", "creep", "spell", "equipment", "improvement", "token")
UNIT, HERO, CREEP, SPELL, EQUIPMENT, IMPROVEMENT, TOKEN = range(7)
# Cards that stand on the board as units.
BOARD_TYPES = ("unit", "hero", "creep", "token")
# Cards a main deck may hold (heroes, creeps and tokens never are in it; equipment has its own deck).
MAIN_DECK_TYPES = ("unit", "spell", "improvement")

Faction = Literal["Red", "Blue", "Green", "Black"]
KEYWORD_MAX = 1000
NAME_MAX = 80
# a name is printed in tables, logs and replays: no control characters (tabs, escapes, newlines)
NAME_PATTERN = r"^[^\x00-\x1f\x7f-\x9f]+$"
# catalog ids are int16 (decks, hands and effects store them), and -1 means "none"
MAX_CARDS = int(np.iinfo(np.int16).max)


class CardSpec(BaseModel):
    """One card as written in a card file (docs/cards.md describes every field)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=NAME_MAX, pattern=NAME_PATTERN)
    type: Literal["unit", "hero", "creep", "spell", "equipment", "improvement", "token"]
    faction: Faction | None = None
    rarity: Literal["Common", "Rare", "Epic", "Legendary"] = "Common"
    unique: bool = False
    tier: int = Field(0, ge=0, le=5)
    cost: int = Field(0, ge=0, le=20)
    gold: int = Field(0, ge=0, le=100)
    attack: int = Field(0, ge=-20, le=100)
    health: int = Field(0, ge=0, le=1000)
    signature: list[str] = Field(default_factory=list)
    keywords: dict[str, int | bool] = Field(default_factory=dict)
    keep_initiative: bool = False
    quickcast: bool = False
    target: Literal["none", "enemy_unit", "ally_unit", "unit", "lane"] = "none"
    range: Literal["lane", "any"] = "lane"
    duration: int = Field(0, ge=0, le=20)
    effects: list[EffectSpec] = Field(default_factory=list)
    ability: AbilitySpec | None = None
    text: str = ""

    @model_validator(mode="after")
    def _shape_by_type(self) -> "CardSpec":
        t = self.type
        if t != "equipment" and t != "token" and self.faction is None:
            raise ValueError(f"a {t} needs a faction")
        if t in ("unit", "hero", "creep", "token"):
            if self.health < 1:
                raise ValueError(f"a {t} needs health >= 1")
            if self.attack < 0:
                raise ValueError(f"a {t} cannot have negative attack")
        elif t in ("spell", "improvement") and (self.attack or self.health):
            raise ValueError(f"a {t} has no attack or health")
        if t == "hero":
            # lanes.md: "Heroes are Legendary and unique (only 1 copy each)"
            if self.rarity != "Legendary":
                raise ValueError("a hero must have rarity 'Legendary'")
            if self.cost:
                raise ValueError("a hero has no cost (heroes are deployed, not played)")
        elif self.signature:
            raise ValueError("only heroes have signature cards")
        if t == "unit" and self.cost < 1:
            raise ValueError("a unit must cost at least 1")
        if t == "equipment":
            if self.gold < 1:
                raise ValueError("equipment needs a gold price (gold >= 1)")
            if not 1 <= self.tier <= 5:
                raise ValueError("equipment tier must be 1-5 (lanes.md 'Shop Tiers')")
        elif self.gold:
            raise ValueError("only equipment has a gold price")
        if t == "spell" and not any(e.trigger == "on_play" for e in self.effects):
            raise ValueError("a spell needs at least one on_play effect")
        if self.duration and t != "improvement":
            raise ValueError("only improvements have a duration")
        if self.ability is not None and t not in ("hero", "improvement"):
            raise ValueError("only heroes and improvements have activated abilities")
        if self.ability is not None and t == "improvement" and self.ability.mana:
            # mana comes from a lane's pool for heroes' abilities (lanes.md "Hero Abilities")
            raise ValueError("an improvement's ability has no mana cost (only heroes spend lane mana)")
        if t == "equipment" and {"shield", "rapid_deployment", "damage_immunity"} & set(self.keywords):
            # a shield is consumed stack by stack, damage immunity runs out; equipment grants only lasting keywords
            raise ValueError("equipment cannot grant 'shield', 'rapid_deployment' or 'damage_immunity' "
                             "(grant them with an on_equip effect)")
        for k, v in self.keywords.items():
            if k not in KEYWORDS:
                raise ValueError(f"unknown keyword {printable(k)!r}{did_you_mean(k, KEYWORDS)}; known: "
                                 f"{', '.join(KEYWORDS)}; {plugins_summary()}")
            if isinstance(v, bool) != (KEYWORDS[k].value == "tag"):
                kind = "true/false" if KEYWORDS[k].value == "tag" else "a number"
                raise ValueError(f"keyword {k!r} takes {kind}, got {str(v).lower()}")
            if not isinstance(v, bool) and not -KEYWORD_MAX <= v <= KEYWORD_MAX:
                # stored as int16; far beyond any card, so a typo is caught rather than wrapped
                raise ValueError(f"keyword {k!r} = {v}: expected a number from -{KEYWORD_MAX} to {KEYWORD_MAX}")
        return self

    @property
    def is_unique(self) -> bool:
        # lanes.md: "All Legendary cards are unique"
        return self.unique or self.rarity == "Legendary"

    def all_effects(self) -> list[tuple[EffectSpec, bool]]:
        """(effect, from_ability) pairs: the card's own, then its ability's (on_activation)."""
        out = [(e, False) for e in self.effects]
        if self.ability is not None:
            out += [(EffectSpec.model_validate({"trigger": "on_activation", **e}), True) for e in self.ability.effects]
        return out


class CardFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cards: list[dict] = Field(default_factory=list)


class DeckSpec(BaseModel):
    """One deck file. ``cards`` lists the main deck *without* the heroes' signature cards,
    which are added automatically (lanes.md: "Each hero comes with 3 signature cards
    automatically added to your deck")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=NAME_MAX, pattern=NAME_PATTERN)
    description: str = ""
    heroes: list[str]
    creep: str
    cards: dict[str, int] = Field(default_factory=dict)
    equipment: dict[str, int] = Field(default_factory=dict)

    @field_validator("cards", "equipment")
    @classmethod
    def _positive(cls, v: dict[str, int]) -> dict[str, int]:
        bad = [k for k, n in v.items() if not 1 <= n <= 1000]
        if bad:
            raise ValueError(f"card counts must be 1 or more (got {printable(bad[0])!r} = {v[bad[0]]})")
        return v


@dataclass(frozen=True)
class Deck:
    """A legal, compiled deck: catalog ids in deck order (signatures first, then listed cards)."""

    id: str
    name: str
    main: np.ndarray  # int16[n]
    heroes: np.ndarray  # int16[5], deployment slots 1-5
    creep: int
    equipment: np.ndarray  # int16[m]: the equipment deck (lanes.md: "used in Shop Phase")
    path: Path


@dataclass
class CardSet:
    catalog: Catalog
    specs: dict[str, CardSpec]
    decks: dict[str, Deck]
    cards_dir: Path
    decks_dir: Path
    # deck files that did not load: their error is raised when the deck is asked for, so one
    # bad deck file does not block the commands that do not use it
    broken: dict[str, DataError] = field(default_factory=dict)

    def deck(self, deck_id: str) -> Deck:
        if deck_id in self.broken:
            raise self.broken[deck_id]
        try:
            return self.decks[deck_id]
        except KeyError:
            raise DataError(
                f"unknown deck {printable(deck_id)!r}{did_you_mean(deck_id, self.decks)}; "
                f"available: {', '.join(sorted(self.decks))} ({plugins_summary()})"
            ) from None


def load_cards(cards_dir: Path, extra_dirs: Sequence[Path] = ()) -> tuple[dict[str, CardSpec], dict[str, Path]]:
    """Every ``*.toml`` in ``cards_dir`` (then in ``extra_dirs``: plugins' card files); names
    unique across files; heroes' signatures and effects' cards checked across all of them."""
    files: list[Path] = []
    for i, d in enumerate([cards_dir, *extra_dirs]):
        if not d.is_dir():
            raise DataError(f"{d}: card directory not found")
        found = sorted(d.glob("*.toml"))
        if not found and i == 0:
            raise DataError(f"{d}: no card files (*.toml)")
        files += found
    specs: dict[str, CardSpec] = {}
    origin: dict[str, Path] = {}
    texts: dict[Path, str] = {}
    for path in files:
        raw, text = read_toml(path)
        texts[path] = text
        cf = validate(CardFile, raw, path, text)
        for i, item in enumerate(cf.cards):
            label = item.get("name") if isinstance(item.get("name"), str) else f"cards[{i}]"
            spec = validate(CardSpec, item, path, text, item=label)
            if spec.name in specs:
                raise fail(path, text, spec.name, f"duplicate card name (also in {origin[spec.name]})")
            if len(specs) >= MAX_CARDS - 1:  # one id is kept for the scenarios' inline unit
                raise fail(path, text, spec.name, f"more than {MAX_CARDS - 1} cards: card ids are 16-bit")
            specs[spec.name] = spec
            origin[spec.name] = path
    for spec in specs.values():
        if spec.type != "hero":
            continue
        path = origin[spec.name]
        for sig in spec.signature:
            s = specs.get(sig)
            if s is None:
                raise fail(path, texts[path], spec.name, f"signature card {printable(sig)!r} is not defined"
                                                         f"{did_you_mean(sig, specs)}")
            if s.type != "unit":
                raise fail(path, texts[path], spec.name, f"signature card {sig!r} must be a unit")
            if s.faction != spec.faction:
                # lanes.md: "Signature cards are tied to that hero and share their faction"
                raise fail(path, texts[path], spec.name, f"signature card {sig!r} is {s.faction}, not {spec.faction}")
        if len(set(spec.signature)) != len(spec.signature):
            raise fail(path, texts[path], spec.name, "signature cards must be distinct")
    for spec in specs.values():
        for eff, _ in spec.all_effects():
            if eff.card is not None:
                made = specs.get(eff.card)
                path = origin[spec.name]
                if made is None:
                    raise fail(path, texts[path], spec.name, f"effect {eff.op!r} names unknown card "
                                                             f"{printable(eff.card)!r}{did_you_mean(eff.card, specs)}")
                if made.type not in ("unit", "token", "creep"):
                    raise fail(path, texts[path], spec.name, f"{eff.op!r} can only make units or tokens, not {eff.card!r}")
    return specs, origin


EFFECT_PARAMS = ("stat", "duration", "status", "keyword", "card", "direction", "range")


def compile_effects(rows: list[CardSpec], index: dict[str, int]) -> EffectTable:
    """All cards' effects (abilities' included, as ``on_activation``) as ``[cards, E]`` arrays."""
    effects = [r.all_effects() for r in rows]
    table = EffectTable(len(rows), max((len(e) for e in effects), default=0), list(EFFECT_PARAMS))
    status_names, keyword_names = list(STATUSES), list(KEYWORDS)
    for c, effs in enumerate(effects):
        for e, (eff, _) in enumerate(effs):
            table.trigger[c, e] = EXECUTOR.id("trigger", eff.trigger)
            table.op[c, e] = EXECUTOR.id("opcode", eff.op)
            table.select[c, e] = EXECUTOR.id("selector", eff.select) if eff.select else -1
            table.amount[c, e] = eff.amount
            pr = table.params
            pr["stat"][c, e] = STATS.index(eff.stat) if eff.stat else -1
            pr["duration"][c, e] = DURATIONS.index(eff.duration)
            pr["status"][c, e] = status_names.index(eff.status) if eff.status else -1
            pr["keyword"][c, e] = keyword_names.index(eff.keyword) if eff.keyword else -1
            pr["card"][c, e] = index[eff.card] if eff.card else -1
            pr["direction"][c, e] = DIRECTIONS.index(eff.direction) if eff.direction else -1
            pr["range"][c, e] = eff.range if eff.range is not None else -1
    return table


def compile_catalog(specs: dict[str, CardSpec]) -> Catalog:
    names = sorted(specs)
    rows = [specs[n] for n in names]
    arr = lambda f, dt: np.array([f(s) for s in rows], dtype=dt)  # noqa: E731
    ab = lambda f, default: [f(s.ability) if s.ability is not None else default for s in rows]  # noqa: E731
    arrays = {
        "kind": arr(lambda s: CARD_TYPES.index(s.type), np.int8),
        "faction": arr(lambda s: FACTIONS.index(s.faction) if s.faction else -1, np.int8),
        "cost": arr(lambda s: s.cost, np.int16),
        "gold": arr(lambda s: s.gold, np.int16),
        "attack": arr(lambda s: s.attack, np.int16),
        "health": arr(lambda s: s.health, np.int16),
        "tier": arr(lambda s: s.tier, np.int8),
        "rarity": arr(lambda s: RARITIES.index(s.rarity), np.int8),
        "unique": arr(lambda s: s.is_unique, np.bool_),
        "keep_initiative": arr(lambda s: s.keep_initiative, np.bool_),
        "quickcast": arr(lambda s: s.quickcast, np.bool_),
        "target": arr(lambda s: TARGET_KINDS.index(s.target), np.int8),
        "range": arr(lambda s: RANGES.index(s.range), np.int8),
        "duration": arr(lambda s: s.duration, np.int16),
        "has_ability": arr(lambda s: s.ability is not None, np.bool_),
        "ability_mana": np.array(ab(lambda a: a.mana, 0), dtype=np.int16),
        "ability_cooldown": np.array(ab(lambda a: a.cooldown, 0), dtype=np.int16),
        "ability_charges": np.array(ab(lambda a: a.charges, -1), dtype=np.int16),
        "ability_quickcast": np.array(ab(lambda a: a.quickcast, False), dtype=np.bool_),
        "ability_target": np.array(ab(lambda a: TARGET_KINDS.index(a.target), 0), dtype=np.int8),
        "ability_range": np.array(ab(lambda a: RANGES.index(a.range), 0), dtype=np.int8),
    }
    for kw, spec in KEYWORDS.items():
        arrays[f"kw_{kw}"] = arr(lambda s, kw=kw, d=spec.default: s.keywords.get(kw, d), spec.dtype)
    names_index = {n: i for i, n in enumerate(names)}
    catalog = Catalog(names, arrays, rows)
    catalog.effects = compile_effects(rows, names_index)
    catalog.keywords = [kw for kw in KEYWORDS if arrays[f"kw_{kw}"].any()]
    return catalog


def load_deck(path: Path, specs: dict[str, CardSpec], catalog: Catalog, params: LanesParams) -> Deck:
    """Validate a deck against the rules of "Deck Building" and "Heroes"; errors name the card."""
    raw, text = read_toml(path)
    spec = validate(DeckSpec, raw, path, text)

    def bad(item: str | None, msg: str, key: str = "name") -> DataError:
        return fail(path, text, item, msg, key)

    def known(name: str, want: str | tuple[str, ...], where: str) -> CardSpec:
        card = specs.get(name)
        if card is None:
            line = key_line(text, name) if where == "cards" else None
            loc = f"{path}:{line}" if line else str(path)
            raise DataError(f"{loc}: deck {spec.name!r}: unknown card {printable(name)!r} in {where}"
                            f"{did_you_mean(name, specs)}")
        wanted = (want,) if isinstance(want, str) else want
        if card.type not in wanted:
            raise bad(None, f"deck {spec.name!r}: {name!r} in {where} is {a_or_an(card.type)}, "
                            f"not {' or '.join(a_or_an(t) for t in wanted)}")
        return card

    # lanes.md: "Each deck must include exactly 5 Hero cards in dedicated deck builder slots"
    if len(spec.heroes) != params.heroes:
        raise bad(None, f"deck {spec.name!r}: needs exactly {params.heroes} heroes, has {len(spec.heroes)}")
    heroes = [known(h, "hero", "heroes") for h in spec.heroes]
    if len(set(spec.heroes)) != len(spec.heroes):
        raise bad(None, f"deck {spec.name!r}: a hero is listed twice (heroes are unique)")
    known(spec.creep, "creep", "creep")
    for name in spec.cards:
        known(name, MAIN_DECK_TYPES, "cards")
    for name in spec.equipment:
        known(name, ("equipment",), "equipment")

    counts = Counter(spec.cards)
    for h in heroes:
        if len(h.signature) != params.signature_cards:
            raise bad(None, f"deck {spec.name!r}: hero {h.name!r} needs {params.signature_cards} signature cards")
        counts.update(h.signature)
    for name, n in list(counts.items()) + list(spec.equipment.items()):
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
    n_equipment = sum(spec.equipment.values())
    if n_equipment < params.equipment_min:
        # lanes.md: "Equipment deck: 10 cards minimum (separate from main deck, used in Shop Phase)"
        raise DataError(
            f"{path}: deck {spec.name!r}: equipment deck has {n_equipment} cards, minimum is {params.equipment_min}"
        )
    main = [catalog.id(s) for h in heroes for s in h.signature]
    main += [catalog.id(n) for n, k in spec.cards.items() for _ in range(k)]
    equipment = [catalog.id(n) for n, k in spec.equipment.items() for _ in range(k)]
    return Deck(
        id=path.stem,
        name=spec.name,
        main=np.array(main, dtype=np.int16),
        heroes=np.array([catalog.id(h.name) for h in heroes], dtype=np.int16),
        creep=catalog.id(spec.creep),
        equipment=np.array(equipment, dtype=np.int16),
        path=path,
    )


INLINE_CARD = "(scenario unit)"


def load_card_set(
    params: LanesParams,
    cards_dir: Path | None = None,
    decks_dir: Path | None = None,
) -> CardSet:
    """Load and validate the card directory and every deck in the deck directory."""
    cards_dir = Path(cards_dir) if cards_dir else data_dir() / "cards" / "lanes"
    decks_dir = Path(decks_dir) if decks_dir else data_dir() / "decks" / "lanes"
    plugin_files = extend("lanes").card_dirs  # card and deck files that plugins ship
    specs, _ = load_cards(cards_dir, [f.cards for f in plugin_files if f.cards])
    # stands for units written inline in scenario files (no card: stats and keywords given there)
    specs[INLINE_CARD] = CardSpec(name=INLINE_CARD, type="token", health=1)
    catalog = compile_catalog(specs)
    decks: dict[str, Deck] = {}
    broken: dict[str, DataError] = {}
    seen: dict[str, Path] = {}
    for d, source in [(decks_dir, None), *((f.decks, f.source) for f in plugin_files if f.decks)]:
        if not d.is_dir():
            raise DataError(f"{d}: deck directory not found")
        for p in sorted(d.glob("*.toml")):
            if p.stem in seen:
                raise DataError(f"{p}: deck {p.stem!r} (plugin {source}) is already defined in {seen[p.stem]}")
            seen[p.stem] = p
            try:
                decks[p.stem] = load_deck(p, specs, catalog, params)
            except DataError as e:
                broken[p.stem] = e
    return CardSet(catalog, specs, decks, cards_dir, decks_dir, broken)

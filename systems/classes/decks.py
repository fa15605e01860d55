"""classes' decks: a class with its starting cards and its Class Upgrade deck (``data/decks/classes/``).

classes.md "Setup" 5b: "Mark Level 1 as current level and take its bonus (power token, starting
cards and Mana)"; the play area lists "11- Class Upgrade deck", from which powers take cards
("take Rejuvenate spell from the upgrade deck and add it to his hand"). A deck names both, from
its class's set, and never more copies of a card than the set holds.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from battlesim.data import data_dir
from battlesim.ecs.datafiles import DataError, did_you_mean, key_line, printable, read_toml, validate
from battlesim.systems.classes.cards import COPIES_MAX, CardSet
from battlesim.systems.classes.effect_spec import Name
from battlesim.systems.classes.powers import ClassBoard
from battlesim.systems.classes.vocabulary import CLASSES

HAND_MAX = 40  # spec §13: H = 40 hand slots


class DeckSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Name
    description: str = ""
    class_: str = Field(alias="class")
    hand: dict[str, int] = Field(min_length=1)
    upgrade: dict[str, int] = Field(default_factory=dict)


@dataclass(frozen=True)
class ClassDeck:
    id: str
    name: str
    class_name: str
    hand: tuple[str, ...]  # starting cards, one entry per copy, in file order
    upgrade: tuple[str, ...]
    path: Path


def _where(path: Path, text: str, key: str) -> str:
    line = key_line(text, key)
    return f"{path}:{line}" if line else str(path)


def load_deck(path: Path, cards: CardSet, boards: dict[str, ClassBoard]) -> ClassDeck:
    raw, text = read_toml(path)
    spec = validate(DeckSpec, raw, path, text)
    deck = f"{printable(spec.name)!r}"
    if spec.class_ not in CLASSES:
        raise DataError(f"{_where(path, text, 'class')}: {deck}: field 'class': unknown class {printable(spec.class_)!r}"
                        f"{did_you_mean(spec.class_, CLASSES)}; known: {', '.join(CLASSES)}")
    used: Counter[str] = Counter()
    for part in ("hand", "upgrade"):
        for card, n in getattr(spec, part).items():
            where = f"{_where(path, text, card)}: {deck}: field '{part}.{printable(card)}'"
            if card not in cards.specs:
                raise DataError(f"{where}: unknown card{did_you_mean(card, cards.specs)}")
            if cards.class_of[card] != spec.class_:
                raise DataError(f"{where}: a {cards.class_of[card]} card, not in the {spec.class_} set")
            if not 1 <= n <= COPIES_MAX:
                raise DataError(f"{where}: expected 1 to {COPIES_MAX} copies, got {n}")
            used[card] += n
            if used[card] > cards.specs[card].copies:
                raise DataError(f"{where}: {used[card]} copies in hand and upgrade deck, the set holds "
                                f"{cards.specs[card].copies}")
    hand = tuple(c for c, n in spec.hand.items() for _ in range(n))
    if len(hand) > HAND_MAX:
        raise DataError(f"{_where(path, text, 'hand')}: {deck}: field 'hand': {len(hand)} cards, a hand holds {HAND_MAX}")
    takers = [(f"power {p.name!r}", p.all_effects()) for p in boards[spec.class_].powers]
    takers += [(f"card {c!r}", cards.specs[c].all_effects()) for c in used]
    for who, effects in takers:
        for e in effects:
            if e.op == "add_card" and e.card not in spec.upgrade:
                raise DataError(f"{_where(path, text, 'upgrade')}: {deck}: field 'upgrade': {who} takes "
                                f"{e.card!r} from the upgrade deck, which lacks it")
    upgrade = tuple(c for c, n in spec.upgrade.items() for _ in range(n))
    return ClassDeck(path.stem, spec.name, spec.class_, hand, upgrade, path)


def load_decks(cards: CardSet, boards: dict[str, ClassBoard], directory: Path | None = None) -> dict[str, ClassDeck]:
    """Every deck by id (its file name without ``.toml``)."""
    directory = Path(directory) if directory is not None else data_dir() / "decks" / "classes"
    return {p.stem: load_deck(p, cards, boards) for p in sorted(directory.glob("*.toml"))}

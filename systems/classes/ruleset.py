"""The classes ruleset object, found by ``battlesim.ecs.ruleset`` as lanes and hex are: its
cards, boards and decks loaded, scenarios; batches of games wait for the core's generated loop."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from battlesim.ecs.datafiles import DataError
from battlesim.systems.classes.cards import CardSet, load_cards
from battlesim.systems.classes.decks import ClassDeck, load_decks
from battlesim.systems.classes.params import ClassesParams, load_params
from battlesim.systems.classes.powers import ClassBoard, load_boards


@dataclass
class ClassesGame:
    """classes with its cards, boards and decks loaded (a deck = a class and its cards)."""

    cards: CardSet
    boards: dict[str, ClassBoard]
    decks: dict[str, ClassDeck]
    params: ClassesParams
    ruleset: str = "classes"

    def deck_ids(self) -> list[str]:
        return sorted(self.decks)

    def default_decks(self) -> tuple[str, str]:
        ids = self.deck_ids()
        return (ids[0], ids[-1])

    def play(self, seeds: np.ndarray, decks: tuple[str, str], agents: Sequence[Any]) -> dict[str, np.ndarray]:
        """Batches wait for the core's generated loop (issue 15: not this engine's part)."""
        raise DataError("classes: playing batches of games is not built yet (it waits for the core's generated "
                        "loop); `battlesim scenario` plays classes scenario files")

    def scenario(self, path: Path) -> Any:
        """A classes scenario file (spec §14) set up and ready to run."""
        from battlesim.systems.classes.scenario import ClassesScenarioRun

        return ClassesScenarioRun(Path(path))


class ClassesRuleset:
    name = "classes"

    def load(self, params: dict[str, Any] | None = None, cards_dir: Path | None = None,
             decks_dir: Path | None = None) -> ClassesGame:
        cards = load_cards(cards_dir)
        boards = load_boards(cards)
        return ClassesGame(cards, boards, load_decks(cards, boards, decks_dir), load_params(overrides=params))


RULESET = ClassesRuleset()

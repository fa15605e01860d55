"""The hex ruleset object, found by ``battlesim.ecs.ruleset`` through the ``battlesim.rulesets``
entry point as lanes is: its cards and kingdoms loaded, scenarios, and (issue 14 part b, after
issue 13's round loop) batches of games."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from battlesim.ecs.datafiles import DataError
from battlesim.systems.hex import damage_stages as _stages  # noqa: F401  (declares hex's compiled damage stages)
from battlesim.systems.hex import state as _state  # noqa: F401  (declares the hex components)
from battlesim.systems.hex.cards import HexCardSet, load_cards
from battlesim.systems.hex.kingdoms import Kingdom, load_kingdoms


@dataclass
class HexGame:
    """Hex with its cards and kingdoms loaded (a "deck" is a kingdom)."""

    cards: HexCardSet
    kingdoms: dict[str, Kingdom]
    ruleset: str = "hex"

    def deck_ids(self) -> list[str]:
        return sorted(self.kingdoms)

    def default_decks(self) -> tuple[str, str]:
        ids = self.deck_ids()
        return (ids[0], ids[1] if len(ids) > 1 else ids[0])

    def play(self, seeds: np.ndarray, decks: tuple[str, str], agents: Sequence[Any]) -> dict[str, np.ndarray]:
        """Batches of hex games wait for issue 13's compiled round loop (issue 14 part b)."""
        raise DataError("hex: playing batches of games is not built yet (issue 14 part b); "
                        "`battlesim scenario` plays hex scenario files")

    def scenario(self, path: Path) -> Any:
        """A hex scenario file (spec §8) set up and ready to run."""
        from battlesim.systems.hex.scenario import HexScenarioRun

        return HexScenarioRun(Path(path))


class HexRuleset:
    name = "hex"

    def load(self, params: dict[str, Any] | None = None, cards_dir: Path | None = None,
             decks_dir: Path | None = None) -> HexGame:
        if params:
            raise DataError(f"hex has no parameters yet; got {', '.join(sorted(params))}")
        cards = load_cards(cards_dir)
        return HexGame(cards, load_kingdoms(cards, decks_dir))


RULESET = HexRuleset()

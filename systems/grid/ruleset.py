"""The grid ruleset object, found by ``battlesim.ecs.ruleset`` through the ``battlesim.rulesets``
entry point as lanes and hex are: its parameters, cards and decks loaded, scenarios, and (after
the core's generated loop) batches of games."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from battlesim.ecs.datafiles import DataError
from battlesim.systems.grid import state as _state  # noqa: F401  (declares the grid components)
from battlesim.systems.grid.card_set import GridCardSet, load_card_set
from battlesim.systems.grid.params import GridParams, load_params


@dataclass
class GridGame:
    """Grid with its parameters, cards and decks loaded."""

    params: GridParams
    cards: GridCardSet
    ruleset: str = "grid"

    def deck_ids(self) -> list[str]:
        return sorted(self.cards.decks)

    def default_decks(self) -> tuple[str, str]:
        ids = self.deck_ids()
        return (ids[0], ids[1] if len(ids) > 1 else ids[0])

    def play(self, seeds: np.ndarray, decks: tuple[str, str], agents: Sequence[Any]) -> dict[str, np.ndarray]:
        """Batches of grid games wait for the core's generated loop (issue 16, after issue 13)."""
        raise DataError("grid: playing batches of games is not built yet (issue 16: it waits for the core's "
                        "generated loop); `battlesim scenario` plays grid scenario files")

    def scenario(self, path: Path) -> Any:
        """A grid scenario file (spec §5) set up and ready to run."""
        from battlesim.systems.grid.scenario import GridScenarioRun

        return GridScenarioRun(Path(path), self.params, self.cards.specs)


class GridRuleset:
    name = "grid"

    def load(self, params: dict[str, Any] | None = None, cards_dir: Path | None = None,
             decks_dir: Path | None = None) -> GridGame:
        p = load_params(overrides=params or None)
        return GridGame(p, load_card_set(p, cards_dir, decks_dir))


RULESET = GridRuleset()

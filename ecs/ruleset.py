"""Rulesets register themselves; the engine finds them by name.

A ruleset is discovered through the entry-point group ``battlesim.rulesets`` (the installed
package declares ``lanes``), so ``ecs`` never imports a ruleset by hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from battlesim.ecs.plugin import load_plugins


class Game(Protocol):
    """A ruleset with its parameters, cards and decks loaded: ready to play batches."""

    ruleset: str

    def deck_ids(self) -> list[str]: ...

    def default_decks(self) -> tuple[str, str]: ...

    def play(self, seeds: np.ndarray, decks: tuple[str, str], agents: Sequence[Any]) -> dict[str, np.ndarray]:
        """Play one batch to the end; returns the games-table columns for these seeds."""
        ...


class Ruleset(Protocol):
    name: str

    def load(self, params: dict[str, Any] | None = None, cards_dir: Path | None = None,
             decks_dir: Path | None = None) -> Game: ...


# The package's own rulesets, as pyproject.toml declares them: found even when the installed
# metadata predates one (an editable install made before the ruleset was added); an installed
# entry point of the same name wins.
OWN_RULESETS = {"lanes": "battlesim.systems.lanes.ruleset:RULESET", "hex": "battlesim.systems.hex.ruleset:RULESET",
                "grid": "battlesim.systems.grid.ruleset:RULESET",
                "classes": "battlesim.systems.classes.ruleset:RULESET"}


def available_rulesets() -> dict[str, Any]:
    found: dict[str, Any] = {n: EntryPoint(n, v, "battlesim.rulesets") for n, v in OWN_RULESETS.items()}
    found.update({ep.name: ep for ep in entry_points(group="battlesim.rulesets")})
    return found


def get_ruleset(name: str, plugins: Sequence[str] = ()) -> Ruleset:
    """The ruleset ``name``, its built-in vocabulary declared, then every installed plugin
    loaded (entry point group ``battlesim.plugins``, in name order: ecs/plugin.py), then the
    ``plugins`` modules (``--plugin``). The order matters: built-ins always declare first."""
    eps = available_rulesets()
    if name not in eps:
        raise KeyError(f"unknown ruleset {name!r}; available: {', '.join(sorted(eps)) or '(none installed)'}")
    ruleset = eps[name].load()
    load_plugins(plugins)
    return ruleset

"""The grid ruleset object, found by ``battlesim.ecs.ruleset`` through the ``battlesim.rulesets``
entry point as lanes and hex are: its parameters, cards and decks loaded, scenarios, and batches
of games through the runner (``simulate``, ``balance``, ``sweep``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from battlesim.data import data_dir
from battlesim.systems.grid import state as _state  # noqa: F401  (declares the grid components)
from battlesim.systems.grid.card_set import GridCardSet, load_card_set
from battlesim.systems.grid.params import GridParams, load_params


@dataclass
class GridGame:
    """Grid with its parameters, cards and decks loaded."""

    params: GridParams
    cards: GridCardSet
    cards_dir: Path
    ruleset: str = "grid"

    def deck_ids(self) -> list[str]:
        return sorted(self.cards.decks)

    def default_decks(self) -> tuple[str, str]:
        ids = self.deck_ids()
        return (ids[0], ids[1] if len(ids) > 1 else ids[0])

    def __post_init__(self) -> None:
        from battlesim.systems.grid.game import GridTables

        # the board, card and parameter tables the compiled game reads, built (and the map
        # checked against the board parameters) when the game loads, not in a worker's chunk
        self.tables = GridTables(self.params, self.cards)

    @property
    def card_names(self) -> list[str]:
        return list(self.cards.catalog.names)

    def compiled_agents(self) -> set[str]:
        """Every grid agent is compiled (it decides inside the game loop); there is no step API."""
        from battlesim.systems.grid.play import AGENTS

        return set(AGENTS)

    def play(self, seeds: np.ndarray, decks: tuple[str, str], agents: Sequence[Any]) -> dict[str, np.ndarray]:
        """Play one batch; the games-table columns."""
        return self.play_tables(seeds, decks, agents, cards=False)["games"]

    def play_tables(self, seeds: np.ndarray, decks: tuple[str, str], agents: Sequence[Any],
                    cards: bool = True) -> dict[str, dict[str, np.ndarray]]:
        """Play one batch in the compiled game loop (one call per chunk and thread, ``--threads``);
        ``{"games": columns, "cards": columns}`` (cards only if asked). A game depends only on its
        seed, decks, agents and parameters: never on its batch mates, chunk or thread."""
        from battlesim.ecs.threads import threads
        from battlesim.systems.grid.game import GridBatch, agent_codes
        from battlesim.systems.grid.results import cards_columns, games_columns

        codes = agent_codes(agents)
        gb = GridBatch(self.tables, np.asarray(seeds, dtype=np.int64), decks)
        gb.play(codes, threads())
        out = {"games": games_columns(gb, decks, [getattr(a, "name", a) for a in agents])}
        if cards:
            out["cards"] = cards_columns(gb)
        return out

    def source_files(self, decks: Sequence[str]) -> dict[str, Path]:
        """Every data file a run of ``decks`` rests on (a run directory's identity hashes them):
        the parameter file, the map, every card file and the two decks' files."""
        from battlesim.systems.grid.maps import maps_dir

        files = {"ruleset grid.toml": data_dir() / "rulesets" / "grid.toml",
                 f"map {self.params.map}.toml": maps_dir() / f"{self.params.map}.toml"}
        for p in sorted(self.cards_dir.glob("*.toml")):
            files[f"card file {p.name}"] = p
        for d in decks:
            files[f"deck {d}"] = self.cards.deck(d).path
        return files

    def replay(self, seed: int, decks: tuple[str, str], agents: Sequence[Any], write: Any = print) -> dict[str, Any]:
        """Play game ``seed`` alone, writing each player turn and action (``systems/grid/replay.py``);
        returns its games-table row, the same as in any run."""
        from battlesim.systems.grid.replay import replay_game

        return replay_game(self, seed, decks, agents, write)

    def scenario(self, path: Path) -> Any:
        """A grid scenario file (spec §5) set up and ready to run."""
        from battlesim.systems.grid.scenario import GridScenarioRun

        return GridScenarioRun(Path(path), self.params, self.cards.specs)


class GridRuleset:
    name = "grid"

    def vocabulary(self) -> list[dict[str, str]]:
        """The built-in grid words as ``battlesim keywords`` rows (kind, name, value_type, source,
        doc): classes, damage types, keywords, statuses, ability ops (vocabulary.py, tables the
        loaders check names against); a plugin's keywords come from ``extend("grid")``."""
        from battlesim.ecs.extension import BUILT_IN
        from battlesim.systems.grid.vocabulary import vocabulary_rows

        return [{"kind": r["kind"], "name": r["name"], "value_type": r["value"] or "-", "source": BUILT_IN,
                 "doc": r["rule"]} for r in vocabulary_rows()]

    def load(self, params: dict[str, Any] | None = None, cards_dir: Path | None = None,
             decks_dir: Path | None = None) -> GridGame:
        p = load_params(overrides=params or None)
        cards = Path(cards_dir) if cards_dir else data_dir() / "cards" / "grid"
        return GridGame(p, load_card_set(p, cards, decks_dir), cards)


RULESET = GridRuleset()


def _declare_agents() -> None:
    """Grid's compiled agents beyond random and pass (play.py ``AGENTS``: greedy, lookahead)
    become selectable as ``--agents NAME`` when the ruleset loads."""
    from battlesim.ecs.decisions import agent_names, compiled_agent
    from battlesim.systems.grid.play import AGENTS

    for name in AGENTS:
        if name not in agent_names():
            compiled_agent(name)


_declare_agents()

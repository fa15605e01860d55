"""The classes ruleset object, found by ``battlesim.ecs.ruleset`` as lanes, hex and grid are: its
cards, boards and decks loaded, scenarios, and batches of games through the runner (``simulate``,
``balance``, ``sweep``, ``replay``) played by classes' own compiled loop (``loop.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from battlesim.data import data_dir
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
    # a deck pair's tables (``games.compile_for``), with the plugin conditions they were built with
    compiled_by_decks: dict[tuple[str, str, int], tuple[tuple[Any, ...], Any]] = field(
        default_factory=dict, repr=False, compare=False)
    spare: list[Any] = field(default_factory=list, repr=False, compare=False)  # the last batch's arrays (``games.keep``)

    def deck_ids(self) -> list[str]:
        return sorted(self.decks)

    def default_decks(self) -> tuple[str, str]:
        ids = self.deck_ids()
        return (ids[0], ids[-1])

    @property
    def card_names(self) -> list[str]:
        """Card names by id (the cards table's ``card``): every card of the set, as compiled."""
        return list(self.cards.specs)

    def compiled_agents(self) -> set[str]:
        """Every classes agent is compiled (it decides inside the game loop); there is no step API."""
        from battlesim.systems.classes.loop import AGENTS

        return set(AGENTS)

    def play(self, seeds: np.ndarray, decks: tuple[str, str], agents: Sequence[Any]) -> dict[str, np.ndarray]:
        """Play one batch; the games-table columns."""
        return self.play_tables(seeds, decks, agents, cards=False)["games"]

    def play_tables(self, seeds: np.ndarray, decks: tuple[str, str], agents: Sequence[Any],
                    cards: bool = True) -> dict[str, dict[str, np.ndarray]]:
        """Play one batch in the compiled loop (one call per thread, ``--threads``);
        ``{"games": columns, "cards": columns}`` (cards only if asked). A game depends only on its
        seed, decks, agents and parameters: never on its batch mates, chunk or thread, nor on the
        batch whose arrays it reuses (``games.empty_games``)."""
        from battlesim.ecs.threads import threads
        from battlesim.systems.classes.games import agent_codes, keep, play_batch
        from battlesim.systems.classes.results import cards_columns, games_columns

        names = [getattr(a, "name", a) for a in agents]
        bt = play_batch(self, decks, np.asarray(seeds, dtype=np.int64), agent_codes(names), threads(), reuse=True)
        out = {"games": games_columns(bt, decks, names)}
        if cards:
            out["cards"] = cards_columns(bt)
        keep(self, bt.G)  # the tables are copies: the next batch may play in these arrays
        return out

    def source_files(self, decks: Sequence[str]) -> dict[str, Path]:
        """Every data file a run of ``decks`` rests on (a run directory's identity hashes them):
        the parameter file, every card file, the two decks' class boards and files."""
        files = {"ruleset classes.toml": data_dir() / "rulesets" / "classes.toml"}
        for p in sorted(set(self.cards.path_of.values())):
            files[f"card file {p.name}"] = p
        for d in decks:
            deck = self.decks[d]
            board = self.boards[deck.class_name].path
            files[f"class board {board.name}"] = board
            files[f"deck {d}"] = deck.path
        return files

    def replay(self, seed: int, decks: tuple[str, str], agents: Sequence[Any], write: Any = print) -> dict[str, Any]:
        """Play game ``seed`` alone, writing each phase and step (``replay.py``); returns its
        games-table row, the same as in any run."""
        from battlesim.systems.classes.replay import replay_game

        return replay_game(self, seed, decks, agents, write)

    def scenario(self, path: Path) -> Any:
        """A classes scenario file (spec §14) set up and ready to run."""
        from battlesim.systems.classes.scenario import ClassesScenarioRun

        return ClassesScenarioRun(Path(path))


class ClassesRuleset:
    name = "classes"

    def vocabulary(self) -> list[dict[str, str]]:
        """Keywords, conditions, triggers, ops, selectors and systems (``battlesim keywords``)."""
        from battlesim.systems.classes.listing import vocabulary

        return vocabulary()

    def load(self, params: dict[str, Any] | None = None, cards_dir: Path | None = None,
             decks_dir: Path | None = None) -> ClassesGame:
        from battlesim.ecs.decisions import compiled_agent
        from battlesim.systems.classes.loop import AGENTS

        for name in AGENTS:  # selectable with --agents; classes plays its own compiled agents by these names
            compiled_agent(name)

        cards = load_cards(cards_dir)
        boards = load_boards(cards)
        return ClassesGame(cards, boards, load_decks(cards, boards, decks_dir), load_params(overrides=params))


RULESET = ClassesRuleset()

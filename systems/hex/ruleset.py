"""The hex ruleset object, found by ``battlesim.ecs.ruleset`` through the ``battlesim.rulesets``
entry point as lanes is: its parameters, cards and kingdoms loaded, scenarios, and batches of
battles through the runner (``simulate``, ``balance``, ``sweep``, ``replay``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from battlesim.data import data_dir
from battlesim.ecs.datafiles import DataError, read_toml
from battlesim.systems.hex import damage_stages as _stages  # noqa: F401  (declares hex's compiled damage stages)
from battlesim.systems.hex import state as _state  # noqa: F401  (declares the hex components)
from battlesim.systems.hex.cards import HexCardSet, load_cards
from battlesim.systems.hex.kingdoms import Kingdom, load_kingdoms

FORMATS = ("blitz", "draft")


@dataclass(frozen=True)
class HexParams:
    """``data/rulesets/hex.toml`` with the run's ``--param`` overrides."""

    format: str = "blitz"
    rounds: int = 7


def load_params(overrides: dict[str, Any] | None = None) -> HexParams:
    """The parameter file, then overrides (``--param format=draft``); unknown names and bad
    values are one-line errors."""
    path = data_dir() / "rulesets" / "hex.toml"
    raw, _ = read_toml(path)
    raw.update(overrides or {})
    extra = sorted(set(raw) - {"format", "rounds"})
    if extra:
        raise DataError(f"hex has no parameter {extra[0]!r}; parameters: format, rounds")
    fmt = str(raw.get("format", "blitz"))
    if fmt not in FORMATS:
        raise DataError(f"hex parameter format: expected one of {', '.join(FORMATS)}, got {fmt!r}")
    rounds = int(raw.get("rounds", 7))
    if rounds != 7:
        raise DataError(f"hex parameter rounds: I-17 plays exactly 7 rounds, got {rounds}")
    return HexParams(fmt, rounds)


@dataclass
class HexGame:
    """Hex with its parameters, cards and kingdoms loaded (a "deck" is a kingdom)."""

    cards: HexCardSet
    kingdoms: dict[str, Kingdom]
    params: HexParams = field(default_factory=HexParams)
    ruleset: str = "hex"

    def __post_init__(self) -> None:
        self._armies: dict[tuple[str, str], Any] = {}
        self._last_batch: Any = None  # ``play_tables``' last batch, refilled by the next one of its shape

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_last_batch": None}  # a copy or a pickle carries no batch

    def deck_ids(self) -> list[str]:
        """The kingdoms of the run's format (``--param format``): blitz ones by default."""
        return sorted(k for k, v in self.kingdoms.items() if v.format == self.params.format)

    def default_decks(self) -> tuple[str, str]:
        ids = self.deck_ids()
        return (ids[0], ids[1] if len(ids) > 1 else ids[0])

    @property
    def card_names(self) -> list[str]:
        return list(self.cards.cards)

    def compiled_agents(self) -> set[str]:
        """Every hex agent is compiled (it decides inside the game loop); there is no step API."""
        from battlesim.systems.hex.play import AGENTS

        return set(AGENTS)

    def armies(self, decks: Sequence[str]) -> Any:
        """The two kingdoms' armies on the board (built once per pair and process)."""
        from battlesim.systems.hex.game import Armies

        key = (decks[0], decks[1])
        got = self._armies.get(key)
        if got is None:
            for d in key:
                if d not in self.kingdoms:
                    raise DataError(f"hex: no kingdom {d!r}; kingdoms: {', '.join(sorted(self.kingdoms))}")
            got = self._armies[key] = Armies(self.cards, (self.kingdoms[key[0]], self.kingdoms[key[1]]))
        return got

    def play(self, seeds: np.ndarray, decks: tuple[str, str], agents: Sequence[Any]) -> dict[str, np.ndarray]:
        """Play one batch; the games-table columns."""
        return self.play_tables(seeds, decks, agents, cards=False)["games"]

    def play_tables(self, seeds: np.ndarray, decks: tuple[str, str], agents: Sequence[Any],
                    cards: bool = True) -> dict[str, dict[str, np.ndarray]]:
        """Play one batch in the compiled game loop (one call per chunk and thread, ``--threads``);
        ``{"games": columns, "cards": columns}``. A game depends only on its seed, kingdoms,
        agents and parameters: never on its batch mates, chunk or thread."""
        from battlesim.ecs.threads import threads
        from battlesim.systems.hex.game import HexBatch, agent_codes
        from battlesim.systems.hex.results import cards_columns, games_columns

        if self.params.format == "draft":
            from battlesim.systems.hex.draft import play_draft_tables

            return play_draft_tables(self, seeds, decks, agents, cards)
        codes = agent_codes(agents)
        # the last chunk's batch, refilled when it has the same armies and size (``HexBatch.refilled``);
        # taken out while it plays, so a failed chunk leaves nothing half-played behind
        last, self._last_batch = self._last_batch, None
        hb = HexBatch.refilled(last, self.armies(decks), np.asarray(seeds, dtype=np.int64))
        hb.play(codes, threads())
        # the columns are new arrays (``results.py``), never views of the batch the next chunk refills
        out = {"games": games_columns(hb, decks, [getattr(a, "name", a) for a in agents])}
        if cards:
            out["cards"] = cards_columns(hb, self.card_names)
        self._last_batch = hb
        return out

    def source_files(self, decks: Sequence[str]) -> dict[str, Path]:
        """Every data file a run of ``decks`` rests on (a run directory's identity hashes them)."""
        files = {"ruleset hex.toml": data_dir() / "rulesets" / "hex.toml"}
        for p in sorted(set(self.cards.files.values())):
            files[f"card file {p.name}"] = p
        for d in decks:
            files[f"kingdom {d}"] = self.kingdoms[d].path
        return files

    def replay(self, seed: int, decks: tuple[str, str], agents: Sequence[Any], write: Any = print) -> dict[str, Any]:
        """Play game ``seed`` alone, writing each action and its effects (``systems/hex/replay.py``);
        returns its games-table row, the same as in any run."""
        from battlesim.systems.hex.replay import replay_game

        armies = self.armies(decks) if self.params.format != "draft" else self.drafted(seed, decks, agents)
        return replay_game(armies, seed, decks, agents, write)

    def drafted(self, seed: int, decks: Sequence[str], agents: Sequence[Any]) -> Any:
        """Game ``seed``'s armies drafted from kingdoms ``decks`` by ``agents`` (spec §2.4)."""
        from battlesim.systems.hex.draft import draft
        from battlesim.systems.hex.game import Armies

        names = [getattr(a, "name", a) for a in agents]
        return Armies(self.cards, draft((self.kingdoms[decks[0]], self.kingdoms[decks[1]]), self.cards, names, seed))

    def scenario(self, path: Path) -> Any:
        """A hex scenario file (spec §8) set up and ready to run."""
        from battlesim.systems.hex.scenario import HexScenarioRun

        return HexScenarioRun(Path(path))


class HexRuleset:
    name = "hex"

    def vocabulary(self) -> list[dict[str, str]]:
        """The built-in hex words as ``battlesim keywords`` rows (``vocabulary.vocabulary_rows``:
        tables the card loader checks names against, not extension declarations); the damage
        stages and a plugin's words come from ``extend("hex")``."""
        from battlesim.ecs.extension import BUILT_IN
        from battlesim.systems.hex.vocabulary import vocabulary_rows

        return [{**r, "source": BUILT_IN} for r in vocabulary_rows()]

    def load(self, params: dict[str, Any] | None = None, cards_dir: Path | None = None,
             decks_dir: Path | None = None) -> HexGame:
        from battlesim.ecs.decisions import compiled_agent
        from battlesim.systems.hex.step import AGENTS

        for name in AGENTS:  # selectable with --agents; hex plays its own compiled agents by these names
            compiled_agent(name)
        p = load_params(params)
        cards = load_cards(cards_dir)
        return HexGame(cards, load_kingdoms(cards, decks_dir), p)


RULESET = HexRuleset()

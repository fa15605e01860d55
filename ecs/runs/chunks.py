"""One chunk of a run: a seed range played as one batch, turned into Arrow tables.

This is the part of a run that executes in a worker (in-process, in a local pool process or
in a Ray task): ``ChunkPlayer`` loads the ruleset once, then plays any number of
``ChunkTask``s. A task is small and picklable; what comes back is a ``ChunkOutput`` with the
chunk's ``Tally`` (the few counts a run summary needs) and, if asked, its tables. With a run
directory the worker writes the shards itself and sends back only the tally, so the driver
never holds a chunk's rows.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from battlesim.ecs.datafiles import DataError
from battlesim.ecs.decisions import make_agent
from battlesim.ecs.plugin import fingerprint
from battlesim.ecs.ruleset import get_ruleset
from battlesim.ecs.runs.shards import write_shard


@dataclass(frozen=True)
class RunSetup:
    """What every worker needs to play chunks of one run (small, picklable)."""

    ruleset: str
    params: dict[str, Any]
    cards_dir: str | None
    decks: tuple[str, str]
    agents: tuple[str, str]
    cards_table: bool  # also build the cards table
    plugins: tuple[str, ...] = ()  # --plugin modules every worker loads before the ruleset's cards
    decks_dir: str | None = None

    def game_key(self) -> str:
        return json.dumps([self.ruleset, self.params, self.cards_dir, self.decks_dir, list(self.plugins)], sort_keys=True)

    def key(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


@dataclass(frozen=True)
class ChunkTask:
    start: int  # first seed
    n: int  # games
    attempt: int = 1
    out: str | None = None  # run directory: the worker writes the shards there
    return_tables: bool = False  # send the tables back (the driver keeps or writes them)
    last_failure: str | None = None  # how the previous attempt failed (the same twice stops the run)
    run: str = ""  # the run's identity key, recorded with each shard written

    @property
    def seeds(self) -> str:
        return f"{self.start}..{self.start + self.n - 1}"


@dataclass
class Tally:
    """The counts a run summary is made of; tallies of chunks add up to the run's."""

    games: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    draws: int = 0
    first_player_wins: int = 0
    rounds_sum: int = 0
    end_reasons: dict[str, int] = field(default_factory=dict)

    @staticmethod
    def of(winner: np.ndarray, first_player: np.ndarray, rounds: np.ndarray, end_reason: Any) -> "Tally":
        """From games-table columns (numpy arrays; ``end_reason`` strings, numpy or Arrow)."""
        counts = pc.value_counts(pa.array(end_reason, type=pa.string()) if not isinstance(end_reason, (pa.Array, pa.ChunkedArray)) else end_reason)
        reasons = {str(c["values"]): int(c["counts"]) for c in counts.to_pylist()}
        return Tally(
            games=int(winner.size),
            wins=[int((winner == 0).sum()), int((winner == 1).sum())],
            draws=int((winner == -1).sum()),
            first_player_wins=int((winner == first_player).sum()),
            rounds_sum=int(rounds.astype(np.int64).sum()),
            end_reasons=reasons,
        )

    COLUMNS = ["winner", "first_player", "rounds", "end_reason"]

    @staticmethod
    def of_table(t: pa.Table) -> "Tally":
        col = lambda name: t.column(name).to_numpy()  # noqa: E731
        return Tally.of(col("winner"), col("first_player"), col("rounds"), t.column("end_reason"))

    def __add__(self, other: "Tally") -> "Tally":
        reasons = dict(self.end_reasons)
        for k, v in other.end_reasons.items():
            reasons[k] = reasons.get(k, 0) + v
        return Tally(
            self.games + other.games,
            [self.wins[0] + other.wins[0], self.wins[1] + other.wins[1]],
            self.draws + other.draws,
            self.first_player_wins + other.first_player_wins,
            self.rounds_sum + other.rounds_sum,
            reasons,
        )


@dataclass
class ChunkOutput:
    start: int
    n: int
    tally: Tally
    play_seconds: float  # inside the ruleset's play call
    tables: dict[str, pa.Table] | None = None  # {"games": ..., "cards": ...} when asked for
    written: bool = False  # the worker wrote (and recorded) the shards


def games_table(cols: Mapping[str, np.ndarray]) -> pa.Table:
    return pa.table(dict(cols))


def cards_table(cols: Mapping[str, np.ndarray], card_names: list[str]) -> pa.Table:
    """Card names dictionary-encoded (one dictionary, the whole catalog, in every shard);
    rounds as nullable int16 (0 in the ruleset's arrays: it did not happen -> null); any other
    column a ruleset adds follows them unchanged."""
    card = np.asarray(cols["card"], dtype=np.int16)
    names = pa.DictionaryArray.from_arrays(pa.array(card, type=pa.int16()), pa.array(card_names, type=pa.string()))
    out: dict[str, pa.Array] = {
        "seed": pa.array(np.asarray(cols["seed"], dtype=np.int64)),
        "player": pa.array(np.asarray(cols["player"], dtype=np.int8)),
        "card": names,
    }
    for name in ("drawn_round", "played_round", "died_round"):
        r = np.asarray(cols[name], dtype=np.int16)
        out[name] = pa.array(r, type=pa.int16(), mask=r == 0)
    for name, values in cols.items():  # a ruleset's own columns (grid: kills), as they are
        if name not in out and name not in ("drawn_round", "played_round", "died_round"):
            out[name] = pa.array(np.asarray(values))
    return pa.table(out)


_GAMES: dict[str, Any] = {}  # per process: the loaded ruleset of each run setup


def load_game(setup: RunSetup):
    from pathlib import Path

    ruleset = get_ruleset(setup.ruleset, setup.plugins)  # a worker process plays what the parent plays
    key = setup.game_key() + fingerprint()  # a game stays valid while its declarations do
    game = _GAMES.get(key)
    if game is None:
        game = ruleset.load(setup.params or None, Path(setup.cards_dir) if setup.cards_dir else None,
                            Path(setup.decks_dir) if setup.decks_dir else None)
        _GAMES[key] = game
    return game


class ChunkPlayer:
    """Plays chunks of one run; the ruleset is loaded once (or given)."""

    def __init__(self, setup: RunSetup, game: Any = None) -> None:
        self.setup = setup
        self.game = game if game is not None else load_game(setup)
        self.agents = [make_agent(a) for a in setup.agents]

    def play(self, task: ChunkTask) -> ChunkOutput:
        seeds = np.arange(task.start, task.start + task.n, dtype=np.int64)
        want_cards = self.setup.cards_table and hasattr(self.game, "play_tables")
        t0 = time.perf_counter()
        try:
            if want_cards:
                played = self.game.play_tables(seeds, self.setup.decks, self.agents, cards=True)
                gcols, ccols = played["games"], played["cards"]
            else:
                gcols, ccols = self.game.play(seeds, self.setup.decks, self.agents), None
        except DataError:  # bad card data (an effect chain that never quiets) names its seed and card already
            raise
        except Exception as e:  # noqa: BLE001 - name the game that fails, not just its chunk
            raise self._failing_game(seeds, e) from e
        seconds = time.perf_counter() - t0
        tally = Tally.of(gcols["winner"], gcols["first_player"], gcols["rounds"], gcols["end_reason"])
        out = ChunkOutput(task.start, task.n, tally, seconds)
        if task.out is None and not task.return_tables:
            return out
        tables = {"games": games_table(gcols)}
        if ccols is not None:
            tables["cards"] = cards_table(ccols, self.game.card_names)
        if task.out is not None:  # cards first: the games shard is the chunk's commit mark
            for name in sorted(tables, key=lambda t: t == "games"):
                write_shard(task.out, name, tables[name], task.start, task.n, task.run)
            out.written = True
        if task.return_tables:
            out.tables = tables
        return out

    def _failing_game(self, seeds: np.ndarray, error: Exception) -> GameFailed:
        """The first seed of ``seeds`` whose game fails alone (bisecting: about twice the
        chunk's games), with its own error, so a rule error names its game; the batch's
        error if no game fails alone."""
        lo, hi = 0, seeds.size
        found: tuple[int, Exception] | None = None
        while hi - lo > 1:
            mid = (lo + hi) // 2
            e = self._try(seeds[lo:mid])
            if e is None:
                lo = mid
            else:
                hi = mid
                found = (int(seeds[lo]), e) if mid - lo == 1 else found
        if hi - lo == 1 and found is None:
            e = self._try(seeds[lo:hi])
            found = (int(seeds[lo]), e) if e is not None else None
        if found is None:
            return GameFailed(f"seeds {seeds[0]}..{seeds[-1]}: {one_line(error)}")
        return GameFailed(f"seed {found[0]}: {one_line(found[1])}")

    def _try(self, seeds: np.ndarray) -> Exception | None:
        try:
            self.game.play(seeds, self.setup.decks, self.agents)
        except Exception as e:  # noqa: BLE001
            return e
        return None


class GameFailed(RuntimeError):
    """A chunk's games raised; the message names the seed of the first game that fails alone."""


def one_line(exc: BaseException) -> str:
    """An exception in one line: its type and the first line of its message."""
    text = f"{type(exc).__name__}: {exc}".strip()
    return text.splitlines()[0] if text else type(exc).__name__


_PLAYERS: dict[str, ChunkPlayer] = {}


def warm_compiled_code(setup: RunSetup, game: Any, seed: int) -> None:
    """Play one game here before workers start, so the compiled code a game runs is compiled and
    written to the cache once, by this process, rather than by every worker against its chunk's
    timeout (a cold compile under load takes longer than a chunk's whole budget). ``seed`` is
    outside the run: an error in it is ignored here and met by its own chunk if it is real."""
    ChunkPlayer(setup, game)._try(np.array([seed], dtype=np.int64))


def cached_player(setup: RunSetup) -> ChunkPlayer:
    """This process's player for ``setup`` (long-lived workers such as Ray's play many runs)."""
    player = _PLAYERS.get(setup.key())
    if player is None:
        player = _PLAYERS[setup.key()] = ChunkPlayer(setup)
    return player

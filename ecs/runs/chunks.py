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
import os
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from battlesim.ecs.decisions import make_agent
from battlesim.ecs.plugin import fingerprint
from battlesim.ecs.ruleset import get_ruleset

# Test-only fault injection (see ``Fault``): read by the driver, shipped inside the tasks, so it
# reaches workers whatever their start method or host.
FAULT_ENV = "BATTLESIM_FAULT"
CRASH_EXIT_CODE = 70


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

    def game_key(self) -> str:
        return json.dumps([self.ruleset, self.params, self.cards_dir, list(self.plugins)], sort_keys=True)

    def key(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


@dataclass(frozen=True)
class Fault:
    """A deliberate failure for tests: the chunk holding ``seed`` fails on attempts 1..``attempts``
    (0: every attempt). ``mode`` "raise" raises in the chunk; "crash" kills the worker process
    (in-process runs raise instead: there the worker is the run itself)."""

    seed: int
    mode: str = "raise"
    attempts: int = 0

    @staticmethod
    def from_env(env: Mapping[str, str] = os.environ) -> "Fault | None":
        """``BATTLESIM_FAULT=SEED[:raise|crash[:ATTEMPTS]]``."""
        raw = env.get(FAULT_ENV, "").strip()
        if not raw:
            return None
        parts = raw.split(":")
        try:
            seed = int(parts[0])
            mode = parts[1] if len(parts) > 1 else "raise"
            attempts = int(parts[2]) if len(parts) > 2 else 0
        except ValueError:
            raise ValueError(f"{FAULT_ENV}={raw!r}: expected SEED[:raise|crash[:ATTEMPTS]]") from None
        if mode not in ("raise", "crash"):
            raise ValueError(f"{FAULT_ENV}={raw!r}: mode must be raise or crash")
        return Fault(seed, mode, attempts)

    def fires(self, task: "ChunkTask") -> bool:
        return task.start <= self.seed < task.start + task.n and (self.attempts == 0 or task.attempt <= self.attempts)


@dataclass(frozen=True)
class ChunkTask:
    start: int  # first seed
    n: int  # games
    attempt: int = 1
    out: str | None = None  # run directory: the worker writes the shards there
    return_tables: bool = False  # send the tables back (the driver keeps or writes them)
    fault: Fault | None = None

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
    written: bool = False  # the worker wrote the shards


def games_table(cols: Mapping[str, np.ndarray]) -> pa.Table:
    return pa.table(dict(cols))


def cards_table(cols: Mapping[str, np.ndarray], card_names: list[str]) -> pa.Table:
    """Card names dictionary-encoded (one dictionary, the whole catalog, in every shard);
    rounds as nullable int16 (0 in the ruleset's arrays: it did not happen -> null)."""
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
    return pa.table(out)


_GAMES: dict[str, Any] = {}  # per process: the loaded ruleset of each run setup


def load_game(setup: RunSetup):
    from pathlib import Path

    ruleset = get_ruleset(setup.ruleset, setup.plugins)  # a worker process plays what the parent plays
    key = setup.game_key() + fingerprint()  # a game stays valid while its declarations do
    game = _GAMES.get(key)
    if game is None:
        game = ruleset.load(setup.params or None, Path(setup.cards_dir) if setup.cards_dir else None)
        _GAMES[key] = game
    return game


class ChunkPlayer:
    """Plays chunks of one run; the ruleset is loaded once (or given)."""

    def __init__(self, setup: RunSetup, game: Any = None) -> None:
        self.setup = setup
        self.game = game if game is not None else load_game(setup)
        self.agents = [make_agent(a) for a in setup.agents]

    def play(self, task: ChunkTask, in_process: bool = False) -> ChunkOutput:
        if task.fault is not None and task.fault.fires(task):
            if task.fault.mode == "crash" and not in_process:
                os._exit(CRASH_EXIT_CODE)
            raise RuntimeError(f"injected fault ({FAULT_ENV}) in the chunk holding seed {task.fault.seed}")
        seeds = np.arange(task.start, task.start + task.n, dtype=np.int64)
        want_cards = self.setup.cards_table and hasattr(self.game, "play_tables")
        t0 = time.perf_counter()
        if want_cards:
            played = self.game.play_tables(seeds, self.setup.decks, self.agents, cards=True)
            gcols, ccols = played["games"], played["cards"]
        else:
            gcols, ccols = self.game.play(seeds, self.setup.decks, self.agents), None
        seconds = time.perf_counter() - t0
        tally = Tally.of(gcols["winner"], gcols["first_player"], gcols["rounds"], gcols["end_reason"])
        out = ChunkOutput(task.start, task.n, tally, seconds)
        if task.out is None and not task.return_tables:
            return out
        tables = {"games": games_table(gcols)}
        if ccols is not None:
            tables["cards"] = cards_table(ccols, self.game.card_names)
        if task.out is not None:
            from battlesim.ecs.runs.rundir import RunDir

            RunDir(task.out, tuple(tables)).write(tables, task.start, task.n)
            out.written = True
        if task.return_tables:
            out.tables = tables
        return out


_PLAYERS: dict[str, ChunkPlayer] = {}


def cached_player(setup: RunSetup) -> ChunkPlayer:
    """This process's player for ``setup`` (long-lived workers such as Ray's play many runs)."""
    player = _PLAYERS.get(setup.key())
    if player is None:
        player = _PLAYERS[setup.key()] = ChunkPlayer(setup)
    return player

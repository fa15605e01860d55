"""Runs: a simulation split into chunks of seeds, each played as one batch.

Game ``i`` of a run has seed ``seed + i``; a chunk is a seed range. Because a game's result
depends only on its seed (the determinism contract), neither the chunking nor the backend
(in-process, a local process pool, Ray) changes anything but speed and memory.

With ``out`` the run streams: each chunk becomes one Parquet shard per table (``games``,
``cards``), written atomically by whoever played it, and the driver keeps only the few counts
of the summary (``Tally``), so a run of any size needs the memory of a few chunks. A run
directory records its configuration and can be resumed: finished shards are kept, missing
ones are played (see ``battlesim.ecs.runs.rundir``). A chunk that fails (an exception, a dead worker) is
retried; one that keeps failing stops the run with its seed range named.

For notebooks, ``run_games(...)`` returns the games table as a ``pyarrow.Table``.
"""

from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

import pyarrow as pa

from battlesim.ecs.runs.backends import BackendError, Failure, make_backend
from battlesim.ecs.runs.chunks import ChunkTask, Fault, RunSetup, Tally
from battlesim.ecs.decisions import make_agent
from battlesim.ecs.balance.stats import wilson
from battlesim.ecs.runs.rundir import RunDir, RunDirError
from battlesim.ecs.plugin import PluginError, plugins_summary
from battlesim.ecs.ruleset import Game, Ruleset, get_ruleset

# Games per chunk, measured with random agents, one process, --out (cards table and Parquet
# included), 32,768 and 65,536 games: 1,024 -> ~3,600 games/s (125 MB peak RSS), 2,048 -> ~4,800
# (138 MB), 4,096 -> ~5,900 (148 MB), 8,192 -> ~6,300 (170 MB), 16,384 -> ~6,800 (233 MB).
# 8,192 takes most of the gain at a modest memory cost per worker.
DEFAULT_CHUNK = 8192
DEFAULT_RETRIES = 2
BACKENDS = ("local", "ray")


class RunError(ValueError):
    """A run cannot start or go on; ``str()`` is a one-line message for the user."""


class ChunkFailed(RunError):
    """A chunk kept failing after its retries; the run stopped."""

    def __init__(self, message: str, start: int, n: int, detail: str = "") -> None:
        super().__init__(message)
        self.start, self.n, self.detail = start, n, detail


@dataclass(frozen=True)
class RunConfig:
    """What a run plays. Two runs with the same identity give the same games."""

    ruleset: str = "lanes"
    games: int = 1000
    seed: int = 0
    decks: tuple[str, str] | None = None  # None: the ruleset's default pair
    agents: tuple[str, str] = ("random", "random")
    chunk: int | None = None  # None: the run directory's, else default_chunk(games, workers)
    params: dict[str, Any] = field(default_factory=dict)
    cards_dir: str | None = None
    plugins: tuple[str, ...] = ()  # modules loaded with --plugin (installed plugins load anyway)

    def identity(self) -> dict[str, Any]:
        """What makes two runs the same run (chunking is not part of it: it changes no result)."""
        d = asdict(self)
        d.pop("chunk")
        d["decks"] = list(d["decks"]) if d["decks"] else None
        d["agents"] = list(d["agents"])
        d["plugins"] = sorted(d["plugins"])
        if not d["plugins"]:
            del d["plugins"]  # run directories written before plugins existed stay resumable
        return d


@dataclass
class RunResult:
    tally: Tally  # the counts of the summary, over the whole run (resumed shards included)
    seconds: float  # wall time spent playing this call's chunks (backend start-up and resumed shards excluded)
    games_played: int  # games played by this call (resumed shards excluded)
    play_seconds: float = 0.0  # time inside the ruleset's play calls, summed over workers
    chunk: int = DEFAULT_CHUNK
    table: pa.Table | None = None  # games table sorted by seed (when kept)
    cards: pa.Table | None = None  # cards table sorted by seed (when asked for)
    out: Path | None = None

    @property
    def games_per_second(self) -> float:
        return self.games_played / self.seconds if self.seconds > 0 else float("nan")


class Progress(Protocol):
    def __call__(self, games: int, resumed: bool = False) -> None:
        """``games`` more games are done; ``resumed``: found finished in the run directory
        (reported once, before anything is played)."""


def load_ruleset(name: str, plugins: Sequence[str] = ()) -> Ruleset:
    """``get_ruleset`` with its plugins, bad input reported as ``RunError``."""
    try:
        return get_ruleset(name, plugins)
    except KeyError as e:
        raise RunError(str(e.args[0])) from None
    except PluginError as e:
        raise RunError(str(e)) from None


def load_game(config: RunConfig) -> Game:
    ruleset = load_ruleset(config.ruleset, config.plugins)
    cards = Path(config.cards_dir) if config.cards_dir else None
    return ruleset.load(config.params or None, cards)


def chunks(games: int, chunk: int) -> list[tuple[int, int]]:
    """(offset, size) of each chunk."""
    return [(i, min(chunk, games - i)) for i in range(0, games, chunk)]


def default_chunk(games: int, workers: int = 1) -> int:
    """``DEFAULT_CHUNK`` for one process. For a pool, at most that, sized so that the chunks
    split evenly between the workers (a multiple of ``workers`` chunks, at least two each): no
    worker idles while another plays one last chunk. Chunking never changes a result."""
    if workers <= 1:
        return DEFAULT_CHUNK
    n = max(math.ceil(games / DEFAULT_CHUNK), 2 * workers)
    n = math.ceil(n / workers) * workers
    return max(1, math.ceil(games / n))


def resolve_decks(game: Game, config: RunConfig) -> tuple[str, str]:
    decks = tuple(config.decks or game.default_decks())
    known = game.deck_ids()
    broken = getattr(getattr(game, "cards", None), "broken", {})  # deck files that did not validate
    for d in decks:
        if d in broken:
            raise broken[d]
        if d not in known:
            raise RunError(f"unknown deck {d!r}; available: {', '.join(known)} ({plugins_summary()})")
    return decks  # type: ignore[return-value]


def simulate(
    config: RunConfig,
    out: Path | str | None = None,
    progress: Progress | None = None,
    game: Game | None = None,
    *,
    backend: str = "local",
    workers: int = 1,
    address: str | None = None,
    keep_table: bool = True,
    cards: bool = False,
    retries: int = DEFAULT_RETRIES,
    warn: Callable[[str], None] | None = None,
) -> RunResult:
    """Play a whole run.

    - ``out``: a run directory; each chunk is written there as Parquet shards (games and cards
      tables) and a rerun resumes. Without it nothing is written.
    - ``backend``/``workers``/``address``: ``local`` with 1 worker plays in this process, with
      W > 1 in a pool of W processes; ``ray`` plays on a local Ray instance (W CPUs) or on the
      cluster at ``address``. The results are the same on all of them.
    - ``keep_table``: return the games table (``result.table``); off, only the counts are
      kept, and memory stays that of a few chunks whatever the run's size.
    - ``cards``: also return the cards table (``result.cards``; always written with ``out``).
    - ``retries``: how many times a failing chunk is played again before the run stops.
    - ``progress``/``warn``: callbacks for games done and for retried chunks.
    """
    if config.games < 1:
        raise RunError(f"--games must be at least 1 (got {config.games})")
    if config.chunk is not None and config.chunk < 1:
        raise RunError(f"--chunk must be at least 1 (got {config.chunk})")
    if retries < 0:
        raise RunError(f"--retries must be at least 0 (got {retries})")
    if backend not in BACKENDS + ("inline", "process"):
        raise RunError(f"unknown backend {backend!r}; available: {', '.join(BACKENDS)}")
    if workers < 1:
        raise RunError(f"--workers must be at least 1 (got {workers})")
    if address and backend != "ray":
        raise RunError("--address is for --backend ray")
    game = game or load_game(config)
    decks = resolve_decks(game, config)
    try:
        for a in config.agents:
            make_agent(a)
    except KeyError as e:
        raise RunError(str(e.args[0])) from None
    try:
        fault = Fault.from_env()
    except ValueError as e:
        raise RunError(str(e)) from None

    has_cards = hasattr(game, "play_tables")
    tables = ("games", "cards") if has_cards else ("games",)
    rundir = RunDir(out, tables) if out is not None else None
    try:
        chunk = config.chunk or (rundir.recorded_chunk() if rundir else None) or default_chunk(
            config.games, workers if backend != "ray" else 1)
        if rundir:
            rundir.open(config.identity(), chunk)
    except RunDirError as e:
        raise RunError(str(e)) from None
    setup = RunSetup(config.ruleset, dict(config.params), config.cards_dir, decks, tuple(config.agents),  # type: ignore[arg-type]
                     cards_table=has_cards and (rundir is not None or cards), plugins=tuple(sorted(config.plugins)))
    try:
        return _execute(config, setup, chunk, rundir, game, progress, warn, fault,
                        backend=backend, workers=workers, address=address, keep=keep_table,
                        keep_cards=cards and has_cards, retries=retries)
    finally:
        if rundir:
            rundir.close()


def _execute(config: RunConfig, setup: RunSetup, chunk: int, rundir: RunDir | None, game: Game,
             progress: Progress | None, warn: Callable[[str], None] | None, fault: Fault | None, *,
             backend: str, workers: int, address: str | None, keep: bool, keep_cards: bool,
             retries: int) -> RunResult:
    # Ray workers may not share the driver's disk: they send tables back and the driver writes.
    worker_writes = rundir is not None and backend != "ray"
    task_out = str(rundir.root) if rundir is not None and worker_writes else None
    return_tables = keep or (rundir is not None and not worker_writes)
    tally = Tally()
    kept: dict[int, dict[str, pa.Table]] = {}
    todo: deque[ChunkTask] = deque()
    resumed = 0
    for offset, n in chunks(config.games, chunk):
        start = config.seed + offset
        if rundir is not None and rundir.done(start, n):
            if keep:
                kept[start] = {"games": rundir.read("games", start, n)}
                if keep_cards:
                    kept[start]["cards"] = rundir.read("cards", start, n)
                tally += Tally.of_table(kept[start]["games"])
            else:
                tally += Tally.of_table(rundir.read("games", start, n, Tally.COLUMNS))
            resumed += n
        else:
            todo.append(ChunkTask(start, n, out=task_out, return_tables=return_tables, fault=fault))
    if progress and resumed:
        progress(resumed, resumed=True)

    played, seconds, play_seconds = 0, 0.0, 0.0
    if todo:
        workers = min(workers, len(todo)) if backend != "ray" else workers
        try:
            runner = make_backend(backend, setup, workers=workers, address=address, game=game)
        except BackendError as e:
            raise RunError(str(e)) from None
        t0 = time.perf_counter()
        try:
            inflight = 0
            while todo or inflight:
                while todo and inflight < runner.capacity:
                    runner.submit(todo.popleft())
                    inflight += 1
                task, result = runner.next_result()
                inflight -= 1
                if isinstance(result, Failure):
                    todo.appendleft(_retry(task, result, retries, rundir, warn))
                    continue
                if rundir is not None and not result.written:
                    rundir.write(result.tables or {}, task.start, task.n)
                tally += result.tally
                if keep:
                    kept[task.start] = {k: v for k, v in (result.tables or {}).items() if k == "games" or keep_cards}
                played += task.n
                play_seconds += result.play_seconds
                if progress:
                    progress(task.n)
        except BackendError as e:
            raise RunError(str(e)) from None
        finally:
            seconds = time.perf_counter() - t0
            runner.close()

    result = RunResult(tally, seconds, played, play_seconds, chunk, out=rundir.root if rundir else None)
    if keep:
        order = sorted(kept)
        result.table = _concat([kept[s]["games"] for s in order])
        if keep_cards:
            result.cards = _concat([kept[s]["cards"] for s in order])
    return result


def _retry(task: ChunkTask, failure: Failure, retries: int, rundir: RunDir | None,
           warn: Callable[[str], None] | None) -> ChunkTask:
    if failure.bad_data:  # bad card data fails the same way every time: one line, no retry
        raise RunError(failure.message.split(": ", 1)[-1])
    if task.attempt > retries:
        resume = f"; the shards already written in {rundir.root} are kept: run the same command again to resume" if rundir else ""
        raise ChunkFailed(
            f"the chunk of seeds {task.seeds} failed {task.attempt} time(s), last: {failure.message}{resume}",
            task.start, task.n, failure.detail,
        )
    if warn:
        warn(f"chunk of seeds {task.seeds} failed ({failure.message}); retrying ({task.attempt} of {retries})")
    return ChunkTask(task.start, task.n, task.attempt + 1, task.out, task.return_tables, task.fault)


def _concat(tables: list[pa.Table]) -> pa.Table:
    if len(tables) == 1:
        return tables[0]
    return pa.concat_tables(tables, promote_options="permissive").combine_chunks()


def run_games(
    games: int = 10_000,
    seed: int = 0,
    decks: Sequence[str] | None = None,
    agents: Sequence[str] = ("random", "random"),
    *,
    ruleset: str = "lanes",
    params: dict[str, Any] | None = None,
    cards_dir: str | Path | None = None,
    chunk: int | None = None,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    out: str | Path | None = None,
    plugins: Sequence[str] = (),
) -> pa.Table:
    """Play ``games`` games (seeds ``seed`` .. ``seed + games - 1``) and return the games table,
    one row per game, sorted by seed. The notebook entry point::

        from battlesim.ecs.runs.runner import run_games
        t = run_games(20_000, decks=("red_vanguard", "green_grove"), workers=2)
        t.to_pandas().groupby("first_player").winner.mean()

    Same arguments as ``battlesim simulate`` (``plugins``: its ``--plugin`` modules); ``out``
    also writes (and resumes) a run directory.
    Raises ``RunError`` with a one-line message on bad input.
    """
    config = RunConfig(
        ruleset=ruleset, games=games, seed=seed, decks=tuple(decks) if decks else None,  # type: ignore[arg-type]
        agents=tuple(agents), chunk=chunk, params=dict(params or {}),  # type: ignore[arg-type]
        cards_dir=str(cards_dir) if cards_dir else None, plugins=tuple(plugins),
    )
    if len(config.agents) != 2 or (config.decks is not None and len(config.decks) != 2):
        raise RunError("decks and agents take two names, seat 0's and seat 1's")
    result = simulate(config, Path(out) if out else None, backend=backend, workers=workers, address=address)
    assert result.table is not None
    return result.table


def summarize(result: RunResult, config: RunConfig, decks: tuple[str, str]) -> dict[str, Any]:
    """The run's headline numbers (the CLI's table and its ``--json`` object)."""
    t = result.tally
    n = t.games
    decided = t.wins[0] + t.wins[1]
    low, high = wilson(t.first_player_wins, decided)
    return {
        "ruleset": config.ruleset,
        "games": n,
        "seed": config.seed,
        "decks": list(decks),
        "agents": list(config.agents),
        "wins": list(t.wins),
        "draws": t.draws,
        "first_player_wins": t.first_player_wins,
        "first_player_win_rate": t.first_player_wins / decided if decided else None,
        "first_player_win_rate_ci": [low, high] if decided else None,
        "mean_rounds": t.rounds_sum / n if n else float("nan"),
        "end_reasons": dict(sorted(t.end_reasons.items())),
        "games_per_second": result.games_per_second if result.games_played else None,
        "seconds": result.seconds,
        "chunk": result.chunk,
        "games_played": result.games_played,
    }

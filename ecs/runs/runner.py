"""Runs: a simulation split into chunks of seeds, each played as one batch.

Game ``i`` of a run has seed ``seed + i``; a chunk is a seed range. Because a game's result
depends only on its seed (the determinism contract), neither the chunking nor the backend
(in-process, a local process pool, Ray) changes anything but speed and memory.

With ``out`` the run streams: each chunk becomes one Parquet shard per table (``games``,
``cards``), written atomically by whoever played it, and the driver keeps only the few counts
of the summary (``Tally``), so a run of any size needs the memory of a few chunks. A run
directory records the run's identity (options and the hash of every file it reads) and can be
resumed or grown: shards that check out are kept, the other seeds are played (see
``battlesim.ecs.runs.rundir``). A chunk that fails (an exception, a dead or hung worker) is
retried; one that fails the same way twice, or keeps failing, stops the run naming its seeds;
a full disk stops it at once.

For notebooks, ``run_games(...)`` returns the games table as a ``pyarrow.Table``.
"""

from __future__ import annotations

import itertools
import math
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol, Sequence

import numpy as np
import pyarrow as pa

from battlesim.ecs.balance.stats import wilson
from battlesim.ecs.decisions import make_agent
from battlesim.ecs.plugin import PluginError, plugins_summary
from battlesim.ecs.ruleset import Game, Ruleset, get_ruleset
from battlesim.ecs.runs.backends import BackendError, Failure, make_backend
from battlesim.ecs.runs.chunks import ChunkTask, RunSetup, Tally, warm_compiled_code
from battlesim.ecs.runs.identity import run_identity
from battlesim.ecs.runs.rundir import RECORD, RunDir, RunDirError, read_record

# Games per chunk, measured with random agents, one process, --out (cards table and Parquet
# included), 32,768 and 65,536 games: 1,024 -> ~3,600 games/s (125 MB peak RSS), 2,048 -> ~4,800
# (138 MB), 4,096 -> ~5,900 (148 MB), 8,192 -> ~6,300 (170 MB), 16,384 -> ~6,800 (233 MB).
# 8,192 takes most of the gain at a modest memory cost per worker.
DEFAULT_CHUNK = 8192
DEFAULT_RETRIES = 2
BACKENDS = ("local", "ray")
# Bounds on a run's size (10 billion games: weeks of CPU) and on its files (a shard per chunk and table).
MAX_GAMES = 10**10
MAX_CHUNKS = 10**7
INT64 = (-(2**63), 2**63 - 1)


def default_chunk_timeout(chunk: int) -> float:
    """Seconds a chunk may take in a pool or on Ray before its worker counts as hung: a
    minute for start-up plus 50 ms a game (random agents play a game in well under 1 ms)."""
    return 60.0 + 0.05 * chunk


class RunError(ValueError):
    """A run cannot start or go on; ``str()`` is a one-line message for the user."""


class ChunkFailed(RunError):
    """A chunk kept failing (or failed the same way twice, or could not be written); the run
    stopped, its finished shards kept."""

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
    decks_dir: str | None = None  # None: the ruleset's shipped decks


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
    decks = Path(config.decks_dir) if config.decks_dir else None
    return ruleset.load(config.params or None, cards, decks)


def chunks(seed: int, games: int, chunk: int, finished: Sequence[tuple[int, int]] = ()) -> Iterator[tuple[int, int]]:
    """(first seed, size) of each chunk still to play: the seeds ``seed .. seed + games - 1``
    not in a ``finished`` chunk (sorted, disjoint), cut at multiples of ``chunk`` from
    ``seed`` (so a grown run's new seeds fall in the same chunks as if played at once).
    Lazily: a run of millions of chunks is never planned in memory."""
    pos, end = seed, seed + games
    for start, n in [*finished, (end, 0)]:
        while pos < start:
            stop = min(start, seed + ((pos - seed) // chunk + 1) * chunk)
            yield pos, stop - pos
            pos = stop
        pos = max(pos, start + n)


def default_chunk(games: int, workers: int = 1) -> int:
    """``DEFAULT_CHUNK`` for one process. For a pool, at most that, sized so that the chunks
    split evenly between the workers (a multiple of ``workers`` chunks, at least two each): no
    worker idles while another plays one last chunk. Chunking never changes a result."""
    if workers <= 1:
        return DEFAULT_CHUNK
    n = max(math.ceil(games / DEFAULT_CHUNK), 2 * workers)
    n = math.ceil(n / workers) * workers
    return max(1, math.ceil(games / n))


def check_deck_names(game: Game, decks: Sequence[str]) -> None:
    """Each named deck exists and its file validated (a broken deck file is an error only for the
    runs that use it)."""
    known = game.deck_ids()
    broken = getattr(getattr(game, "cards", None), "broken", {})  # deck files that did not validate
    for d in decks:
        if d in broken:
            raise broken[d]
        if d not in known:
            raise RunError(f"unknown deck {d!r}; available: {', '.join(known)} ({plugins_summary()})")


def resolve_decks(game: Game, config: RunConfig) -> tuple[str, str]:
    decks = tuple(config.decks or game.default_decks())
    check_deck_names(game, decks)
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
    chunk_timeout: float | None = None,
    restart: bool = False,
) -> RunResult:
    """Play a whole run.

    - ``out``: a run directory; each chunk is written there as Parquet shards (games and cards
      tables) and a rerun resumes (a larger ``games`` grows the run). A directory holding
      another run (other options, or any card, deck, ruleset or plugin file changed) is
      refused unless ``restart``, which empties it first. Without ``out`` nothing is written.
    - ``backend``/``workers``/``address``: ``local`` with 1 worker plays in this process, with
      W > 1 in a pool of W processes; ``ray`` plays on a local Ray instance (W CPUs) or on the
      cluster at ``address``. The results are the same on all of them.
    - ``keep_table``: return the games table (``result.table``); off, only the counts are
      kept, and memory stays that of a few chunks whatever the run's size.
    - ``cards``: also return the cards table (``result.cards``; always written with ``out``).
    - ``retries``: how many times a failing chunk is played again before the run stops.
    - ``chunk_timeout``: seconds a chunk may take in a pool or on Ray before it is retried on
      a fresh worker (default ``default_chunk_timeout(chunk)``; 0: none). In this process: none.
    - ``progress``/``warn``: callbacks for games done and for retried chunks and bad shards.
    """
    _check_options(config, retries, backend, workers, address, chunk_timeout)
    game = game or load_game(config)
    decks = resolve_decks(game, config)
    try:
        for a in config.agents:
            make_agent(a)
    except KeyError as e:
        raise RunError(str(e.args[0])) from None

    has_cards = hasattr(game, "play_tables")
    tables = ("games", "cards") if has_cards else ("games",)
    rundir = RunDir(out, tables, report=warn) if out is not None else None
    try:
        chunk = config.chunk or (rundir.recorded_chunk() if rundir and not restart else None) or default_chunk(
            config.games, workers if backend != "ray" else 1)
        if rundir:
            identity = run_identity(game, ruleset=config.ruleset, seed=config.seed, decks=decks,
                                    agents=config.agents, params=config.params, cards_dir=config.cards_dir,
                                    decks_dir=config.decks_dir, plugins=config.plugins)
            rundir.open(identity, config.seed, config.games, chunk, restart=restart)
    except RunDirError as e:
        raise RunError(str(e)) from None
    setup = RunSetup(config.ruleset, dict(config.params), config.cards_dir, decks, tuple(config.agents),  # type: ignore[arg-type]
                     cards_table=has_cards and (rundir is not None or cards), plugins=tuple(sorted(config.plugins)),
                     decks_dir=config.decks_dir)
    timeout = default_chunk_timeout(chunk) if chunk_timeout is None else (chunk_timeout or None)
    try:
        return _execute(config, setup, chunk, rundir, game, progress, warn,
                        backend=backend, workers=workers, address=address, keep=keep_table,
                        keep_cards=cards and has_cards, retries=retries, timeout=timeout)
    finally:
        if rundir:
            rundir.close()


def check_seeds(seed: int, games: int = 1) -> None:
    """Seeds are stored as int64: a run's must all fit (refused in one line, not an overflow)."""
    last = seed + games - 1
    if seed < INT64[0] or last > INT64[1]:
        what = f"--seed {seed}" if games == 1 else f"--seed {seed} with --games {games:,}: the seeds {seed}..{last}"
        raise RunError(f"{what} leave{'s' if games == 1 else ''} the 64-bit range a seed is stored in")


def _check_options(config: RunConfig, retries: int, backend: str, workers: int, address: str | None,
                   chunk_timeout: float | None) -> None:
    if config.games < 1:
        raise RunError(f"--games must be at least 1 (got {config.games})")
    if config.games > MAX_GAMES:
        raise RunError(f"--games must be at most {MAX_GAMES:,} (got {config.games:,})")
    check_seeds(config.seed, config.games)
    if config.chunk is not None and config.chunk < 1:
        raise RunError(f"--chunk must be at least 1 (got {config.chunk})")
    if config.chunk is not None and -(-config.games // config.chunk) > MAX_CHUNKS:
        raise RunError(f"--chunk {config.chunk} cuts {config.games:,} games into more than {MAX_CHUNKS:,} chunks "
                       f"(a file per chunk and table): give --chunk {-(-config.games // MAX_CHUNKS):,} or more")
    if retries < 0:
        raise RunError(f"--retries must be at least 0 (got {retries})")
    if chunk_timeout is not None and not chunk_timeout >= 0:
        raise RunError(f"--chunk-timeout must be at least 0 seconds (got {chunk_timeout})")
    if backend not in BACKENDS + ("inline", "process"):
        raise RunError(f"unknown backend {backend!r}; available: {', '.join(BACKENDS)}")
    if workers < 1:
        raise RunError(f"--workers must be at least 1 (got {workers})")
    if address and backend != "ray":
        raise RunError("--address is for --backend ray")


def _execute(config: RunConfig, setup: RunSetup, chunk: int, rundir: RunDir | None, game: Game,
             progress: Progress | None, warn: Callable[[str], None] | None, *,
             backend: str, workers: int, address: str | None, keep: bool, keep_cards: bool,
             retries: int, timeout: float | None) -> RunResult:
    # Ray workers may not share the driver's disk: they send tables back and the driver writes.
    worker_writes = rundir is not None and backend != "ray"
    task_out = str(rundir.root) if rundir is not None and worker_writes else None
    return_tables = keep or (rundir is not None and not worker_writes)
    tally = Tally()
    kept: dict[int, dict[str, pa.Table]] = {}
    resumed = 0
    finished = rundir.finished if rundir is not None else []
    for start, n in finished:
        if keep:
            kept[start] = {"games": rundir.read("games", start, n)}  # type: ignore[union-attr]
            if keep_cards:
                kept[start]["cards"] = rundir.read("cards", start, n)  # type: ignore[union-attr]
            tally += Tally.of_table(kept[start]["games"])
        else:
            tally += Tally.of_table(rundir.read("games", start, n, Tally.COLUMNS))  # type: ignore[union-attr]
        resumed += n
    plan = (ChunkTask(start, n, out=task_out, return_tables=return_tables, run=rundir.run if rundir else "")
            for start, n in chunks(config.seed, config.games, chunk, finished))
    todo: deque[ChunkTask] = deque(itertools.islice(plan, 1))  # retries go first; then the plan, lazily
    if progress and resumed:
        progress(resumed, resumed=True)

    played, seconds, play_seconds = 0, 0.0, 0.0
    if todo:
        # no more processes than chunks to play (at most one per chunk of the seeds left, plus one
        # per finished chunk splitting them)
        workers = min(workers, -(-(config.games - resumed) // chunk) + len(finished)) if backend != "ray" else workers
        if backend == "ray" or workers > 1:
            outside = config.seed - 1 if config.seed > np.iinfo(np.int64).min else config.seed + config.games
            warm_compiled_code(setup, game, outside)
        try:
            runner = make_backend(backend, setup, workers=workers, address=address, game=game, timeout=timeout)
        except BackendError as e:
            raise RunError(str(e)) from None
        t0 = time.perf_counter()
        try:
            inflight = 0
            while True:
                while inflight < runner.capacity:
                    task = todo.popleft() if todo else next(plan, None)
                    if task is None:
                        break
                    runner.submit(task)
                    inflight += 1
                if not inflight:
                    break
                task, result = runner.next_result()
                inflight -= 1
                if isinstance(result, Failure):
                    todo.appendleft(_retry(task, result, retries, rundir, warn))
                    continue
                if rundir is not None and not result.written:
                    _write(rundir, task, result)
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


def _write(rundir: RunDir, task: ChunkTask, result: Any) -> None:
    """Write the tables a worker sent back (Ray). The driver's own write failing (a full disk,
    a directory made read-only) stops the run at once: playing the chunk again cannot help."""
    try:
        rundir.write(result.tables or {}, task.start, task.n)
    except OSError as e:
        raise _stopped(task, Failure(f"{type(e).__name__}: {e}", fatal=True), rundir) from None


def _stopped(task: ChunkTask, failure: Failure, rundir: RunDir | None) -> ChunkFailed:
    """A chunk's write failed in a way retrying cannot help (a full or read-only disk)."""
    where = (f"; the shards already written in {rundir.root} are kept: free some space (or make it writable) "
             "and run the same command again to resume") if rundir else ""
    return ChunkFailed(f"cannot write the chunk of seeds {task.seeds}: {failure.message}{where}",
                       task.start, task.n, failure.detail)


def _retry(task: ChunkTask, failure: Failure, retries: int, rundir: RunDir | None,
           warn: Callable[[str], None] | None) -> ChunkTask:
    if failure.bad_data:  # bad card data fails the same way every time: one line, no retry
        raise RunError(failure.message.split(": ", 1)[-1])
    if failure.fatal:
        raise _stopped(task, failure, rundir)
    resume = f"; the shards already written in {rundir.root} are kept: run the same command again to resume" if rundir else ""
    if failure.message == task.last_failure:  # deterministic: a rule error, or a game that never ends
        raise ChunkFailed(f"the chunk of seeds {task.seeds} failed twice the same way: {failure.message}{resume}",
                          task.start, task.n, failure.detail)
    if task.attempt > retries:
        raise ChunkFailed(
            f"the chunk of seeds {task.seeds} failed {task.attempt} time(s), last: {failure.message}{resume}",
            task.start, task.n, failure.detail,
        )
    if warn:
        warn(f"chunk of seeds {task.seeds} failed ({failure.message}); retrying ({task.attempt} of {retries})")
    return ChunkTask(task.start, task.n, task.attempt + 1, task.out, task.return_tables, failure.message, task.run)


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
    decks_dir: str | Path | None = None,
    restart: bool = False,
) -> pa.Table:
    """Play ``games`` games (seeds ``seed`` .. ``seed + games - 1``) and return the games table,
    one row per game, sorted by seed. The notebook entry point::

        import battlesim
        t = battlesim.run_games(20_000, decks=("red_vanguard", "green_grove"), workers=2)
        t.group_by(["first_player", "winner"]).aggregate([("seed", "count")])  # pyarrow, no pandas

    Same arguments as ``battlesim simulate`` (``plugins``: its ``--plugin`` modules; ``decks_dir``:
    its ``--decks``); ``out`` also writes (and resumes, or with ``restart`` starts over) a run directory.
    Raises ``RunError`` with a one-line message on bad input.
    """
    config = RunConfig(
        ruleset=ruleset, games=games, seed=seed, decks=tuple(decks) if decks else None,  # type: ignore[arg-type]
        agents=tuple(agents), chunk=chunk, params=dict(params or {}),  # type: ignore[arg-type]
        cards_dir=str(cards_dir) if cards_dir else None, plugins=tuple(plugins),
        decks_dir=str(decks_dir) if decks_dir else None,
    )
    if len(config.agents) != 2 or (config.decks is not None and len(config.decks) != 2):
        raise RunError("decks and agents take two names, seat 0's and seat 1's")
    result = simulate(config, Path(out) if out else None, backend=backend, workers=workers, address=address,
                      restart=restart)
    assert result.table is not None
    return result.table


def summarize(result: RunResult, config: RunConfig, decks: tuple[str, str]) -> dict[str, Any]:
    """The run's headline numbers (the CLI's table and its ``--json`` object).

    Each deck's win rate (a draw is a non-win) carries its 95% Wilson interval, like the
    first player's, so a reader sees at once whether a difference is more than the luck of
    the draw; ``params`` echoes the ruleset parameter overrides (``--param``), so the JSON
    alone says which rules the numbers are for."""
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
        "params": dict(sorted(config.params.items())),
        "wins": list(t.wins),
        "win_rates": [w / n if n else None for w in t.wins],
        "win_rates_ci": [list(wilson(w, n)) if n else None for w in t.wins],
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


def recorded_run(root: Path | str) -> tuple[RunConfig, Game]:
    """The run a run directory holds, loaded again as it was played (``replay RUNDIR``): its
    decks, agents, parameters, card and deck folders and plugins. Refused in one line if the
    directory holds no run, or if any file the run read has changed since (its games would
    not be the ones replayed)."""
    root = Path(root)
    try:
        if not root.is_dir():
            raise RunDirError(f"{root}: not a run directory")
        record = read_record(root)
    except RunDirError as e:
        raise RunError(str(e)) from None
    if record is None:
        raise RunError(f"{root}: not a run directory (no {RECORD})")
    ident, options, load = record["identity"], record["identity"]["options"], record["identity"].get("load") or {}
    try:
        config = RunConfig(ruleset=str(options["ruleset"]), games=record["games"], seed=record["seed"],
                           decks=tuple(options["decks"]), agents=tuple(options["agents"]),  # type: ignore[arg-type]
                           params=dict(options.get("params") or {}), cards_dir=load.get("cards_dir"),
                           decks_dir=load.get("decks_dir"), plugins=tuple(load.get("plugins") or ()))
    except (KeyError, TypeError, ValueError) as e:
        raise RunError(f"{root / RECORD}: not a run record this battlesim wrote ({type(e).__name__}: {e})") from None
    game = load_game(config)
    decks = resolve_decks(game, config)
    now = run_identity(game, ruleset=config.ruleset, seed=config.seed, decks=decks, agents=config.agents,
                       params=config.params, plugins=config.plugins)
    diff = now.difference(ident)
    if diff is not None:
        raise RunError(f"{root} cannot be replayed as it was played: {diff}")
    return config, game

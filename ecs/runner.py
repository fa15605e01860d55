"""Runs: a simulation split into chunks of seeds, each played as one batch.

Game ``i`` of a run has seed ``seed + i``; a chunk is a seed range. Because a game's result
depends only on its seed (the determinism contract), the chunking changes nothing but
speed and memory. With ``out``, each chunk is written as one Parquet shard, atomically
(temp file + rename), and a run directory can be resumed: shards already there are kept.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ecs.decisions import make_agent
from ecs.ruleset import Game, get_ruleset

DEFAULT_CHUNK = 4096


class RunError(ValueError):
    """A run cannot start or go on; ``str()`` is a one-line message for the user."""


@dataclass(frozen=True)
class RunConfig:
    ruleset: str = "lanes"
    games: int = 1000
    seed: int = 0
    decks: tuple[str, str] | None = None  # None: the ruleset's default pair
    agents: tuple[str, str] = ("random", "random")
    chunk: int = DEFAULT_CHUNK
    params: dict[str, Any] = field(default_factory=dict)
    cards_dir: str | None = None

    def identity(self) -> dict[str, Any]:
        """What makes two runs the same run (chunking is not part of it: it changes no result)."""
        d = asdict(self)
        d.pop("chunk")
        d["decks"] = list(d["decks"]) if d["decks"] else None
        d["agents"] = list(d["agents"])
        return d


@dataclass
class RunResult:
    table: pa.Table
    seconds: float  # wall time spent playing (not reading shards back)
    games_played: int  # games played by this call (resumed shards excluded)

    @property
    def games_per_second(self) -> float:
        return self.games_played / self.seconds if self.seconds > 0 else float("nan")


Progress = Callable[[int], None]


def load_game(config: RunConfig) -> Game:
    try:
        ruleset = get_ruleset(config.ruleset)
    except KeyError as e:
        raise RunError(str(e.args[0])) from None
    cards = Path(config.cards_dir) if config.cards_dir else None
    return ruleset.load(config.params or None, cards)


def chunks(games: int, chunk: int) -> list[tuple[int, int]]:
    """(offset, size) of each chunk."""
    return [(i, min(chunk, games - i)) for i in range(0, games, chunk)]


def simulate(
    config: RunConfig,
    out: Path | None = None,
    progress: Progress | None = None,
    game: Game | None = None,
) -> RunResult:
    """Play a whole run; returns the games table (one row per game, sorted by seed)."""
    if config.games < 1:
        raise RunError(f"--games must be at least 1 (got {config.games})")
    if config.chunk < 1:
        raise RunError(f"--chunk must be at least 1 (got {config.chunk})")
    game = game or load_game(config)
    decks = config.decks or game.default_decks()
    known = game.deck_ids()
    for d in decks:
        if d not in known:
            raise RunError(f"unknown deck {d!r}; available: {', '.join(known)}")
    try:
        agents = [make_agent(a) for a in config.agents]
    except KeyError as e:
        raise RunError(str(e.args[0])) from None
    shard_dir = _prepare_out(out, config) if out else None

    tables: list[pa.Table] = []
    played, seconds = 0, 0.0
    for offset, n in chunks(config.games, config.chunk):
        start = config.seed + offset
        shard = shard_dir / f"part-{start:020d}-{n}.parquet" if shard_dir else None
        if shard is not None and shard.exists():
            tables.append(pq.read_table(shard))
        else:
            t0 = time.perf_counter()
            cols = game.play(np.arange(start, start + n, dtype=np.int64), decks, agents)
            seconds += time.perf_counter() - t0
            played += n
            table = pa.table(cols)
            if shard is not None:
                _write_atomic(table, shard)
            tables.append(table)
        if progress:
            progress(n)
    table = pa.concat_tables(tables).sort_by("seed") if len(tables) > 1 else tables[0]
    return RunResult(table, seconds, played)


def _prepare_out(out: Path, config: RunConfig) -> Path:
    """Create (or reopen) a run directory; a different run's directory is refused."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    meta = out / "run.json"
    ident = config.identity()
    if meta.exists():
        try:
            old = json.loads(meta.read_text())
        except (OSError, json.JSONDecodeError) as e:
            raise RunError(f"{meta}: unreadable run record ({e}); use another --out directory") from None
        if old.get("config") != ident or old.get("chunk") != config.chunk:
            raise RunError(
                f"{out} holds a different run ({_diff(old.get('config', {}), ident, old.get('chunk'), config.chunk)}); "
                "use another --out directory or the same options"
            )
    else:
        tmp = meta.with_suffix(".json.tmp")
        tmp.write_text(json.dumps({"config": ident, "chunk": config.chunk}, indent=2, sort_keys=True))
        os.replace(tmp, meta)
    shard_dir = out / "games"
    shard_dir.mkdir(exist_ok=True)
    return shard_dir


def _diff(old: dict, new: dict, old_chunk: Any, new_chunk: int) -> str:
    keys = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
    parts = [f"{k}: {old.get(k)!r} there, {new.get(k)!r} now" for k in keys]
    if old_chunk != new_chunk:
        parts.append(f"chunk: {old_chunk!r} there, {new_chunk!r} now")
    return "; ".join(parts)


def _write_atomic(table: pa.Table, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, path)


def wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """95% Wilson score interval for k successes in n trials."""
    if n == 0:
        return (float("nan"), float("nan"))
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, centre - half), min(1.0, centre + half))


def summarize(result: RunResult, config: RunConfig, decks: tuple[str, str]) -> dict[str, Any]:
    """The run's headline numbers (the CLI's table and its ``--json`` object)."""
    t = result.table
    winner = t.column("winner").to_numpy()
    first = t.column("first_player").to_numpy()
    rounds = t.column("rounds").to_numpy()
    reasons = t.column("end_reason").to_pylist()
    n = int(winner.size)
    decided = int((winner >= 0).sum())
    fp_wins = int((winner == first).sum())
    low, high = wilson(fp_wins, decided)
    end_reasons: dict[str, int] = {}
    for r in reasons:
        end_reasons[r] = end_reasons.get(r, 0) + 1
    return {
        "ruleset": config.ruleset,
        "games": n,
        "seed": config.seed,
        "decks": list(decks),
        "agents": list(config.agents),
        "wins": [int((winner == 0).sum()), int((winner == 1).sum())],
        "draws": int((winner == -1).sum()),
        "first_player_wins": fp_wins,
        "first_player_win_rate": fp_wins / decided if decided else None,
        "first_player_win_rate_ci": [low, high] if decided else None,
        "mean_rounds": float(rounds.mean()),
        "end_reasons": dict(sorted(end_reasons.items())),
        "games_per_second": result.games_per_second if result.games_played else None,
        "seconds": result.seconds,
    }

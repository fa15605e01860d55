"""The round-robin a balance measure rests on: every ordered pairing of the decks (both seat
orders), each played (or resumed) as an ordinary run directory under ``OUT/pairs/<a>__<b>``, with
a fixed seed offset per pairing so adding a deck never changes the games of the others."""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import pyarrow as pa
import pyarrow.dataset as ds

from battlesim.ecs.runs.runner import Progress, RunConfig, RunError, check_deck_names, load_game, simulate

PAIR_SEED_STRIDE = 1_000_000


def pair_name(a: str, b: str) -> str:
    return f"{a}__{b}"


def pair_seed_offset(a: str, b: str) -> int:
    """A fixed seed offset for the ordered pairing (a in seat 0, b in seat 1)."""
    return (zlib.crc32(pair_name(a, b).encode()) & 0xFFFF) * PAIR_SEED_STRIDE


def pairings(decks: Sequence[str]) -> list[tuple[str, str]]:
    """Every ordered pairing of distinct decks: both seat orders."""
    return [(a, b) for a in decks for b in decks if a != b]


@dataclass
class PairRun:
    a: str
    b: str
    seed: int
    games: pa.Table
    cards: pa.Table | None


def resolve_deck_list(spec: str | None, ruleset: str = "lanes", cards_dir: str | None = None,
                      decks_dir: str | None = None) -> list[str]:
    """``None`` or ``all``: every deck of the ruleset; else a comma-separated list, checked."""
    game = load_game(RunConfig(ruleset=ruleset, cards_dir=cards_dir, decks_dir=decks_dir))
    known = list(game.deck_ids())
    if spec is None or spec.strip() == "all":
        decks = known
    else:
        decks = [d.strip() for d in spec.split(",") if d.strip()]
        check_deck_names(game, decks)
        if len(set(decks)) != len(decks):
            raise RunError(f"--decks names a deck twice ({spec!r})")
    if len(decks) < 2:
        raise RunError("--decks needs at least two decks")
    return decks


def run_round_robin(
    decks: Sequence[str],
    games_per_pairing: int,
    out: Path | str,
    *,
    ruleset: str = "lanes",
    agents: tuple[str, str] = ("random", "random"),
    seed: int = 0,
    cards_dir: str | None = None,
    params: dict[str, Any] | None = None,
    workers: int = 1,
    on_pair: Callable[[int, int, str, str], None] | None = None,
    plugins: Sequence[str] = (),
    decks_dir: str | None = None,
    restart: bool = False,
    warn: Callable[[str], None] | None = None,
    progress: Progress | None = None,
) -> list[PairRun]:
    """Play (or resume; with ``restart``, start over) every ordered pairing into
    ``out/pairs/<a>__<b>``; ``warn`` hears of retried chunks and bad shards; ``progress`` is
    called as by ``simulate`` for every pairing in turn (one bar for the whole round-robin)."""
    if games_per_pairing < 1:
        raise RunError(f"--games-per-pairing must be at least 1 (got {games_per_pairing})")
    out = Path(out)
    config0 = RunConfig(ruleset=ruleset, agents=tuple(agents), cards_dir=cards_dir,  # type: ignore[arg-type]
                        params=dict(params or {}), plugins=tuple(plugins), decks_dir=decks_dir)
    game = load_game(config0)
    runs: list[PairRun] = []
    pairs = pairings(decks)
    for i, (a, b) in enumerate(pairs):
        if on_pair:
            on_pair(i, len(pairs), a, b)
        s = seed + pair_seed_offset(a, b)
        config = RunConfig(ruleset=ruleset, games=games_per_pairing, seed=s, decks=(a, b),
                           agents=tuple(agents), cards_dir=cards_dir, params=dict(params or {}),  # type: ignore[arg-type]
                           plugins=tuple(plugins), decks_dir=decks_dir)
        pdir = out / "pairs" / pair_name(a, b)
        simulate(config, pdir, progress, game=game, workers=workers, keep_table=False, restart=restart, warn=warn)
        g = ds.dataset(pdir / "games", format="parquet").to_table().sort_by("seed")
        c = ds.dataset(pdir / "cards", format="parquet").to_table() if (pdir / "cards").is_dir() else None
        runs.append(PairRun(a, b, s, g, c))
    return runs

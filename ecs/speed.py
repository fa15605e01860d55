"""Throughput on the user's own machine: games per second and where the time goes.

This backs ``battlesim bench``. The pytest-benchmark suites in ``bench/`` are the tool for
tracking speed over time; this is the quick answer to "how fast is it here, and which
system costs what".
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ecs.decisions import make_agent


@dataclass
class SpeedSample:
    label: str
    batch: int
    agents: tuple[str, str]
    games_per_second: list[float]  # one value per repeat

    @property
    def median(self) -> float:
        return statistics.median(self.games_per_second)

    @property
    def low(self) -> float:
        return min(self.games_per_second)

    @property
    def high(self) -> float:
        return max(self.games_per_second)


def measure(game, batch: int, agents: tuple[str, str], repeats: int = 3, seed: int = 1_000_000) -> SpeedSample:
    """Play ``repeats`` batches of ``batch`` games (fresh seeds each time) and time each.

    A first, untimed, small batch warms caches and imports so the first repeat is not an outlier.
    """
    ags = [make_agent(a) for a in agents]
    decks = game.default_decks()
    game.play(np.arange(seed - 64, seed), decks, ags)
    rates = []
    for r in range(repeats):
        seeds = np.arange(seed + r * batch, seed + (r + 1) * batch, dtype=np.int64)
        t0 = time.perf_counter()
        game.play(seeds, decks, ags)
        rates.append(batch / (time.perf_counter() - t0))
    return SpeedSample(f"{agents[0]} vs {agents[1]}", batch, tuple(agents), rates)


def phase_split(game, batch: int, agents: tuple[str, str] = ("random", "random"), seed: int = 2_000_000) -> dict[str, float]:
    """Seconds spent in each ``phase/System`` while playing one batch to the end."""
    ags = [make_agent(a) for a in agents]
    game.schedule.profile(True)
    try:
        game.play(np.arange(seed, seed + batch, dtype=np.int64), game.default_decks(), ags)
        return dict(sorted(game.schedule.timings.items(), key=lambda kv: -kv[1]))
    finally:
        game.schedule.profile(False)


def standard_configs(quick: bool) -> Sequence[tuple[int, tuple[str, str]]]:
    if quick:
        return [(1, ("random", "random")), (256, ("random", "random"))]
    return [
        (1, ("random", "random")),
        (1024, ("random", "random")),
        (4096, ("random", "random")),
        (16384, ("random", "random")),
        (4096, ("random", "pass")),
        (1024, ("greedy", "greedy")),
        (4096, ("greedy", "greedy")),
    ]

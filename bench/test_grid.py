"""group "grid": whole grid games, random vs random on the default map (8x8 crossroads), default
decks, one thread, at several batch sizes (issue 16 "Speed": >= 10,000 games/s at B >= 4,096 on
one core; one game <= 2 ms); and greedy vs greedy at B = 1,024, the compiled agent that still
allocates per decision (docs/grid-speed.md).

The timed call is ``GridGame.play_tables`` (what a chunk of ``simulate --ruleset grid`` runs:
building the World, the compiled ``play_batch`` over every game, the games and cards tables),
seeds 0..B-1, so every round replays the same games. ``games_per_s`` = B / time (median; best
and worst from the min and max times); ``actions_per_game`` says how long the games were.

Run: ``python -m pytest bench/test_grid.py --benchmark-only -p no:cacheprovider``.
"""

from __future__ import annotations

import numpy as np
import pytest
from harness import record_rate

from battlesim.ecs.decisions import make_agent
from battlesim.ecs.ruleset import get_ruleset

# (batch size, timed rounds, warmup rounds): B = 1 measures one game's latency
GRID_CASES = [(1, 30, 3), (256, 5, 1), (1024, 3, 1), (4096, 3, 0)]


@pytest.fixture(scope="module")
def grid():
    return get_ruleset("grid").load()


@pytest.mark.benchmark(group="grid")
@pytest.mark.parametrize("n,rounds,warmup", GRID_CASES, ids=[f"B={c[0]}" for c in GRID_CASES])
def test_grid_random_vs_random(benchmark, grid, monkeypatch, n, rounds, warmup):
    play_timed(benchmark, grid, monkeypatch, "random", n, rounds, warmup)


@pytest.mark.benchmark(group="grid")
def test_grid_greedy_vs_greedy(benchmark, grid, monkeypatch):
    play_timed(benchmark, grid, monkeypatch, "greedy", 1024, 3, 1)


def play_timed(benchmark, grid, monkeypatch, agent: str, n: int, rounds: int, warmup: int) -> None:
    """Time ``play_tables`` of seeds 0..n-1, ``agent`` in both seats, one thread."""
    monkeypatch.setenv("BATTLESIM_THREADS", "1")
    agents = [make_agent(agent), make_agent(agent)]
    seeds = np.arange(n, dtype=np.int64)
    decks = grid.default_decks()
    out = benchmark.pedantic(lambda: grid.play_tables(seeds, decks, agents, cards=True), rounds=rounds,
                             warmup_rounds=warmup, iterations=1)
    benchmark.extra_info["actions_per_game"] = round(float(out["games"]["actions"].mean()), 1)
    benchmark.extra_info["mean_rounds"] = round(float(out["games"]["rounds"].mean()), 2)
    record_rate(benchmark, n)

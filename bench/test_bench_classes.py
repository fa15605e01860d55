"""group "classes": whole classes games, random vs random, default decks, one thread, at several
batch sizes (issue 15 "Speed": >= 10,000 games/s at B = 4,096 on one core; one game <= 2 ms),
and greedy vs random at B = 256 (what an agent's trials cost).

The timed call is ``ClassesGame.play_tables`` (what a chunk of ``simulate --ruleset classes``
runs: the set-up, the compiled ``loop.play_chunk`` over every game, the games and cards tables),
seeds 0..B-1, so every round replays the same games. ``games_per_s`` = B / time (median; best
and worst from the min and max times); ``mean_turns`` says how long the games were.

Run: ``python -m pytest bench/test_bench_classes.py --benchmark-only -p no:cacheprovider``.
"""

from __future__ import annotations

import numpy as np
import pytest
from harness import record_rate

from battlesim.ecs.ruleset import get_ruleset

# (agents, batch size, timed rounds, warmup rounds): B = 1 measures one game's latency
CASES = [(("random", "random"), 1, 30, 3), (("random", "random"), 256, 5, 1), (("random", "random"), 4096, 3, 0),
         (("greedy", "random"), 256, 3, 1)]


@pytest.fixture(scope="module")
def classes():
    return get_ruleset("classes").load()


@pytest.mark.benchmark(group="classes")
@pytest.mark.parametrize("agents,n,rounds,warmup", CASES, ids=[f"{c[0][0]}-B={c[1]}" for c in CASES])
def test_classes_games(benchmark, classes, monkeypatch, agents, n, rounds, warmup):
    monkeypatch.setenv("BATTLESIM_THREADS", "1")
    seeds = np.arange(n, dtype=np.int64)
    decks = classes.default_decks()
    out = benchmark.pedantic(lambda: classes.play_tables(seeds, decks, agents, cards=True), rounds=rounds,
                             warmup_rounds=warmup, iterations=1)
    benchmark.extra_info["mean_turns"] = round(float(out["games"]["turns"].mean()), 2)
    record_rate(benchmark, n)

"""group "run": the runner end to end: ``battlesim.ecs.runs.runner.simulate(RunConfig(...), out=dir)``
loads the ruleset, plays the run chunk by chunk and writes one Parquet shard per chunk.

A run directory is resumable (shards already there are kept, not replayed), so every timed
round writes into a new, empty directory. ``games_per_s`` is end to end (loading cards,
playing, building Arrow tables, writing Parquet); ``play_games_per_s`` is the runner's own
figure (``RunResult.games_per_second``: time inside ``game.play`` only).
"""

from __future__ import annotations

import itertools

import pytest
from harness import DECKS, record_rate

runner = pytest.importorskip("battlesim.ecs.runs.runner", reason="battlesim.ecs.runs.runner is not available")
if not hasattr(runner, "simulate") or not hasattr(runner, "RunConfig"):
    pytest.skip("battlesim.ecs.runs.runner has no simulate()/RunConfig", allow_module_level=True)

N_GAMES = 8192
CHUNK = 4096  # two shards


@pytest.mark.benchmark(group="run")
def test_runner_parquet(benchmark, tmp_path):
    cfg = runner.RunConfig(ruleset="lanes", games=N_GAMES, seed=0, decks=DECKS,
                           agents=("random", "random"), chunk=CHUNK)
    counter = itertools.count()
    outs = []

    def setup():
        out = tmp_path / f"run{next(counter)}"
        outs.append(out)
        return (cfg,), {"out": out}

    result = benchmark.pedantic(runner.simulate, setup=setup, rounds=3, warmup_rounds=0, iterations=1)
    benchmark.extra_info["chunk"] = CHUNK
    record_rate(benchmark, N_GAMES)
    if getattr(result, "games_played", 0):
        benchmark.extra_info["play_games_per_s"] = round(result.games_per_second, 1)
    shards = sorted((outs[-1] / "games").glob("*.parquet"))
    benchmark.extra_info["parquet_files"] = len(shards)
    benchmark.extra_info["parquet_bytes"] = sum(p.stat().st_size for p in shards)
    assert len(shards) == -(-N_GAMES // CHUNK), f"expected one Parquet shard per chunk under {outs[-1]}"

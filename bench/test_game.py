"""group "game": whole games, first round to last, at several batch sizes.

The timed call is ``game.run(w)`` on a fresh world built by the setup (building the world,
shuffles included, is not timed; it is ~1% of a batch). Every round replays the same seeds,
so rounds differ only by machine noise. ``games_per_s`` = B / time; ``rounds_per_s`` counts
game-rounds (games that end sooner are cheaper, e.g. against the pass agent).
The per-phase split of the last timed round comes from ``schedule.profile`` (its cost is two
``perf_counter`` calls per system per round, negligible).
"""

from __future__ import annotations

import pytest
from harness import fresh_world, record_rate

# (batch size, timed rounds, warmup rounds): about the same wall time per case
RANDOM_CASES = [(1, 30, 3), (64, 15, 1), (1024, 8, 1), (4096, 6, 1), (16384, 3, 0)]
GREEDY_CASES = [(1, 10, 1), (64, 4, 1), (1024, 3, 0), (4096, 2, 0)]
# lookahead (k = 4) is ~50x slower than greedy: one small batch (B = 1024 takes minutes)
LOOKAHEAD_CASES = [(64, 2, 0)]


def bench_games(benchmark, game, n: int, rounds: int, warmup: int, agent_names):
    def setup():
        w = fresh_world(game, n, agent_names)
        game.schedule.profile(True)  # resets the timings: they describe the last round only
        return (w,), {}

    def target(w):
        game.run(w)
        return w

    try:
        w = benchmark.pedantic(target, setup=setup, rounds=rounds, warmup_rounds=warmup, iterations=1)
        timings = dict(game.schedule.timings or {})
    finally:
        game.schedule.profile(False)
    benchmark.extra_info["agents"] = "-".join(agent_names)
    benchmark.extra_info["mean_rounds"] = round(float(w.g.rounds.mean()), 3)
    rate = record_rate(benchmark, n)
    if rate is not None:
        record_rate(benchmark, int(w.g.rounds.sum()), unit="rounds")
        benchmark.extra_info["games"] = n  # record_rate(unit="rounds") must not hide it
    total = sum(timings.values())
    if total > 0:
        benchmark.extra_info["phase_seconds"] = {k: round(v, 5) for k, v in timings.items()}
        benchmark.extra_info["phase_share"] = {k: round(v / total, 4) for k, v in timings.items()}


@pytest.mark.benchmark(group="game")
@pytest.mark.parametrize("n,rounds,warmup", RANDOM_CASES, ids=[f"B={c[0]}" for c in RANDOM_CASES])
def test_random_vs_random(benchmark, game, n, rounds, warmup):
    bench_games(benchmark, game, n, rounds, warmup, ("random", "random"))


@pytest.mark.benchmark(group="game")
@pytest.mark.parametrize("n,rounds,warmup", GREEDY_CASES, ids=[f"B={c[0]}" for c in GREEDY_CASES])
def test_greedy_vs_greedy(benchmark, game, n, rounds, warmup):
    bench_games(benchmark, game, n, rounds, warmup, ("greedy", "greedy"))


@pytest.mark.benchmark(group="game")
@pytest.mark.parametrize("n,rounds,warmup", LOOKAHEAD_CASES, ids=[f"B={c[0]}" for c in LOOKAHEAD_CASES])
def test_lookahead_vs_lookahead(benchmark, game, n, rounds, warmup):
    bench_games(benchmark, game, n, rounds, warmup, ("lookahead", "lookahead"))


@pytest.mark.benchmark(group="game")
def test_pass_vs_random(benchmark, game):
    bench_games(benchmark, game, 4096, 5, 1, ("pass", "random"))

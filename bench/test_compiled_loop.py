"""group "loop": whole games through the compiled game loop (``play_batch``) against the numpy
schedule (``game.run``), the same seeds, in one run so that the ratios mean something.

Every lanes system is a loop step: ``play_batch`` is one ``advance`` per chunk (Python agents
aside). The schedule path is the numpy engine the loop replaces (the yardstick of the ratios).
Each round plays a fresh World built by the setup (not timed); the engine is built (or loaded
from the cache) before the first round. Cold compile and cached start-up: bench/test_compiled_startup.py
measures processes; docs/compiled-core.md "The game loop" records both.
"""

from __future__ import annotations

import pytest
from harness import fresh_world, record_rate

from battlesim.systems.lanes.compiled import loop as ll

CASES = [(("random", "random"), 1, 20), (("random", "random"), 4096, 3), (("greedy", "greedy"), 1, 10),
         (("greedy", "greedy"), 1024, 2), (("lookahead", "greedy"), 64, 2)]


@pytest.mark.benchmark(group="loop")
@pytest.mark.parametrize("path", ["loop", "schedule"])
@pytest.mark.parametrize("agents,n,rounds", CASES, ids=[f"{a[0]}-{a[1]}-B={n}" for a, n, _ in CASES])
def test_play(benchmark, game, agents, n, rounds, path):
    ll.engine()

    def setup():
        return (fresh_world(game, n, agents),), {}

    def target(w):
        if path == "loop":
            ll.play_batch(game, w)
        else:
            game.run(w)
        return w

    w = benchmark.pedantic(target, setup=setup, rounds=rounds, warmup_rounds=1, iterations=1)
    benchmark.extra_info["agents"] = "-".join(agents)
    benchmark.extra_info["path"] = path
    benchmark.extra_info["mean_rounds"] = round(float(w.g.rounds.mean()), 3)
    record_rate(benchmark, n)


@pytest.mark.benchmark(group="threads")
@pytest.mark.parametrize("threads", [1, 2])
def test_threads(benchmark, game, threads, monkeypatch):
    """``--threads``: the same chunk (random vs random, B = 4,096) on 1 and 2 threads of one
    process (``advance`` without the GIL); the ratio of the two medians is the threads' gain."""
    from battlesim.ecs.threads import THREADS_ENV

    monkeypatch.setenv(THREADS_ENV, str(threads))
    ll.engine()

    def setup():
        return (fresh_world(game, 4096, ("random", "random")),), {}

    benchmark.pedantic(lambda w: ll.play_batch(game, w), setup=setup, rounds=4, warmup_rounds=1, iterations=1)
    benchmark.extra_info["threads"] = threads
    record_rate(benchmark, 4096)


@pytest.mark.benchmark(group="one-game")
@pytest.mark.parametrize("world", ["restarted", "new"])
def test_one_game_play(benchmark, game, world):
    """Issue 13's "one game (B = 1) <= 1 ms" as a user meets it: ``game.play`` of one seed, every
    cost counted (the World, the loop's tables, the games table). ``restarted`` is what ``play``
    does (the last World of the shape restarted in place); ``new`` drops it first, so each call
    builds a World and its compiled views (what ``play`` did before), the ratio in one run."""
    import numpy as np

    from battlesim.ecs.decisions import make_agent

    agents = [make_agent("random"), make_agent("random")]
    decks = game.default_decks()
    seeds = iter(range(7_000_000, 8_000_000))
    game.play(np.array([next(seeds)]), decks, agents)

    def target():
        if world == "new":
            game._spare.clear()
        return game.play(np.array([next(seeds)]), decks, agents)

    benchmark.pedantic(target, rounds=200, warmup_rounds=5, iterations=1)
    benchmark.extra_info["world"] = world
    record_rate(benchmark, 1)

"""group "hex": whole hex battles, blitz, the default kingdoms, one thread (issue 14 "Speed":
random vs random >= 10,000 games/s at B = 4,096; one game <= 2 ms; greedy >= 2,000 games/s; lookahead, vs
random, has no target: measured).

The timed call is ``HexGame.play_tables`` (what a chunk of ``simulate --ruleset hex`` runs:
the batch's World from the two armies, the compiled ``play_batch`` over every game, the games
and cards tables), seeds 0..B-1, so every round replays the same games. ``games_per_s`` = B /
time (median; best and worst from the min and max times); ``decisions_per_game`` says how long
the games were.

Run: ``python -m pytest bench/test_bench_hex.py --benchmark-only -p no:cacheprovider``.
"""

from __future__ import annotations

import numpy as np
import pytest
from harness import record_rate

from battlesim.ecs.decisions import make_agent
from battlesim.ecs.ruleset import get_ruleset

# (agents, batch size, timed rounds, warmup rounds): B = 1 measures one game's latency
HEX_CASES = [("random", 1, 30, 3), ("random", 1024, 3, 1), ("random", 4096, 3, 0), ("greedy", 1024, 3, 1),
             ("lookahead", 256, 3, 1)]


@pytest.fixture(scope="module")
def hexgame():
    return get_ruleset("hex").load()


@pytest.mark.benchmark(group="hex")
@pytest.mark.parametrize("who,n,rounds,warmup", HEX_CASES, ids=[f"{c[0]}-B={c[1]}" for c in HEX_CASES])
def test_hex_blitz(benchmark, hexgame, monkeypatch, who, n, rounds, warmup):
    monkeypatch.setenv("BATTLESIM_THREADS", "1")
    agents = [make_agent(who), make_agent("random")]
    seeds = np.arange(n, dtype=np.int64)
    decks = hexgame.default_decks()
    out = benchmark.pedantic(lambda: hexgame.play_tables(seeds, decks, agents, cards=True), rounds=rounds,
                             warmup_rounds=warmup, iterations=1)
    benchmark.extra_info["decisions_per_game"] = round(float(out["games"]["decisions"].mean()), 1)
    record_rate(benchmark, n)

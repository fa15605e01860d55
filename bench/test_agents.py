"""group "agents": whole games with the heuristic agents (issue 4 speed targets).

Timed like group "game" (``bench/test_game.py``): ``game.run(w)`` on a fresh world, first round
to last, default decks, seeds 0..B-1. ``games_per_s`` = B / time. greedy vs greedy at B = 1024
and 4096 (target >= 3,000 games/s at B >= 4096 on one core), lookahead (k = 4) vs greedy at
B = 1024 (target >= 300 games/s). The agents' own cost is what these add over random vs random
(group "game"); the per-phase split of the last timed call is in ``extra_info``.
"""

from __future__ import annotations

import pytest
from test_game import bench_games

# (agents, batch size, timed rounds, warmup rounds): each call takes 5-30 s on one core
AGENT_CASES = [
    (("greedy", "greedy"), 1024, 3, 0),
    (("greedy", "greedy"), 4096, 3, 0),
    (("lookahead", "greedy"), 1024, 2, 0),
]


@pytest.mark.benchmark(group="agents")
@pytest.mark.parametrize("names,n,rounds,warmup", AGENT_CASES,
                         ids=[f"{'-'.join(c[0])}-B={c[1]}" for c in AGENT_CASES])
def test_agents(benchmark, game, names, n, rounds, warmup):
    bench_games(benchmark, game, n, rounds, warmup, names)

"""group "dispatch": does composing stages by code generation cost anything?

The generated ``run_damage`` (the engine's ``apply_health`` stage called through the dispatcher's
stack loop) against the same arithmetic written by hand in one ``@njit`` loop, over B = 4,096
games with 8 damage rows each. Their ratio is what the builder's composition costs per row (the
prototype measured a plugin stage composed this way at the cost of built-in retaliate).

Run: ``python -m pytest bench/test_compiled_dispatch.py --benchmark-only -p no:cacheprovider``.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from battlesim.ecs.compiled.damage_queue import AMOUNT, DEALT, EXCESS, TARGET, new_queue, push
from battlesim.ecs.compiled.engine import build
from battlesim.ecs.compiled.world_view import toy_state

B, ROWS, S = 4096, 8, 16


@njit(cache=True)
def _all_games(run, w, queue, qlen, cols, stack):
    for b in range(w.i16.shape[1]):
        run(w, b, queue, qlen, 0, cols, stack)


@njit(cache=True)
def _by_hand(w, queue, qlen):
    comp = w.i16
    for b in range(comp.shape[1]):
        for i in range(qlen[b]):
            amount = max(queue[b, i, AMOUNT], 0)
            t = queue[b, i, TARGET]
            hp = np.int64(comp[0, b, t])
            dealt = min(amount, max(hp, 0))
            queue[b, i, DEALT] = dealt
            queue[b, i, EXCESS] = amount - dealt
            comp[0, b, t] = hp - amount


def _state():
    g = np.random.default_rng(0)
    w = toy_state(B, S, i16_rows=1)
    w.i16[0] = 30000
    queue, qlen, stack = new_queue(B, ROWS)
    for b in range(B):
        for _ in range(ROWS):
            push(queue, qlen, b, -1, int(g.integers(0, S)), int(g.integers(0, 5)), 1)
    return w, queue, qlen, stack


@pytest.mark.benchmark(group="dispatch")
@pytest.mark.parametrize("how", ["generated", "by_hand"])
def test_apply_health_over_a_batch(benchmark, how):
    w, queue, qlen, stack = _state()
    if how == "generated":
        engine = build("toy")  # only the engine's own apply_health, whatever else is loaded
        run, cols = engine.module.run_damage, engine.columns({"health": 0})
        _all_games(run, w, queue, qlen, cols, stack)  # compile outside the timing
        benchmark(_all_games, run, w, queue, qlen, cols, stack)
    else:
        _by_hand(w, queue, qlen)
        benchmark(_by_hand, w, queue, qlen)
    benchmark.extra_info["rows"] = B * ROWS

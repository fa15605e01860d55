"""group "plugin": a plugin keyword costs no more than a built-in one.

issue 6: "a bench compares the throughput of a deck using `thorns` (plugin) with a deck using
`retaliate` (built-in)". The example plugin (examples/keyword-plugin) ships two decks that
differ only in that keyword: ``thorn_wardens`` (Briar Sentinel, Thorns 2; Bramble Colossus,
Thorns 3) and ``spine_wardens`` (the same bodies with Retaliate 2 and 3). Each plays
``red_vanguard`` with random agents, the same seeds, batch 4,096; compare ``games_per_s``.

group "plugin-compiled" (issue 13: "a plugin keyword costs what its built-in twin costs"): the
compiled engine's generated ``run_damage`` with the plugin's compiled ``thorns`` stage against
the same engine with the built-in ``retaliate`` instead, over the same damage batches (4,096
games x 8 attack rows, every row pushing its reaction). The run prints both and, on the second,
``thorns_over_retaliate_min`` and ``_median``.

Run: ``python -m pytest bench/test_plugin.py --benchmark-only -p no:cacheprovider``.
"""

from __future__ import annotations

from pathlib import Path

import numba
import numpy as np
import pytest
from harness import fresh_world, record_rate
from numba import njit

from battlesim.ecs.compiled.damage_queue import new_queue, push
from battlesim.ecs.compiled.engine import build
from battlesim.ecs.compiled.stages import stages_of
from battlesim.ecs.compiled.world_view import toy_state
from battlesim.ecs.damage import ATTACK, COMBAT
from battlesim.ecs.ruleset import get_ruleset

PLUGIN = Path(__file__).resolve().parents[1] / "examples" / "keyword-plugin" / "frost_thorns"
B = 4096


@pytest.fixture(scope="module")
def plugin_game():
    return get_ruleset("lanes", [str(PLUGIN)]).load()


@pytest.mark.benchmark(group="plugin")
@pytest.mark.parametrize("deck", ["thorn_wardens", "spine_wardens"], ids=["thorns-plugin", "retaliate-built-in"])
def test_plugin_keyword_vs_built_in(benchmark, plugin_game, deck):
    def setup():
        return (fresh_world(plugin_game, B, ("random", "random"), decks=(deck, "red_vanguard")),), {}

    w = benchmark.pedantic(plugin_game.run, setup=setup, rounds=4, warmup_rounds=1, iterations=1)
    benchmark.extra_info["deck"] = deck
    benchmark.extra_info["mean_rounds"] = round(float(w.g.rounds.mean()), 3) if w is not None else None
    record_rate(benchmark, B)


# -- the compiled engine: a plugin stage against its built-in twin, over the same damage batches --

ROWS, S = 8, 16


@njit(cache=False)
def _all_games(run, w, queue, qlen, cols, stack):
    for b in range(w.i16.shape[1]):
        qlen[b] = ROWS  # the batch's rows again (the reactions' rows are pushed after them each time)
        run(w, b, queue, qlen, 0, cols, stack)


def _batches(keyword_row: int):
    """B = 4,096 games x 8 attack rows (COMBAT | ATTACK) of 1..4 damage from slot 0 onto slots
    1..15, each target with the keyword at ``keyword_row`` at 2 and health enough for every round:
    every row reaches health, so thorns ("damage taken") and retaliate ("when attacked") both
    push one row back each time."""
    g = np.random.default_rng(0)
    w = toy_state(B, S, i16_rows=4)
    w = w._replace(cat=np.zeros((2, 2), dtype=np.int64))  # card.kw_<name> by card id; -1 (no item) reads 0
    w.i16[0] = 30000  # health
    w.i16[1] = -1  # equipment: none
    w.i16[keyword_row, :, 1:] = 2
    queue, qlen, stack = new_queue(B, 2 * ROWS)
    for b in range(B):
        for _ in range(ROWS):
            push(queue, qlen, b, 0, int(g.integers(1, S)), int(g.integers(1, 5)), COMBAT | ATTACK)
    return w, queue, qlen, stack


@pytest.fixture(scope="module")
def engines(plugin_game, tmp_path_factory):
    """The lanes engine of (apply_health, thorns) and of (apply_health, retaliate), in a cache of
    this session (building one prunes lanes engines of other hashes)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(numba.config, "CACHE_DIR", str(tmp_path_factory.mktemp("numba")))
        by_name = {s.name: s for s in stages_of("lanes")}
        yield {k: build("lanes", stages=[by_name["apply_health"], by_name[k]]) for k in ("thorns", "retaliate")}


LAYOUT = {"health": 0, "equipment": 1, "thorns": 2, "retaliate": 3, "card.kw_thorns": 0, "card.kw_retaliate": 1}


@pytest.mark.benchmark(group="plugin-compiled")
@pytest.mark.parametrize("stage", ["thorns", "retaliate"], ids=["thorns-plugin", "retaliate-built-in"])
def test_plugin_stage_vs_built_in_twin(benchmark, engines, rates, stage):
    engine = engines[stage]
    w, queue, qlen, stack = _batches(LAYOUT[stage])
    run, cols = engine.module.run_damage, engine.columns(LAYOUT)
    _all_games(run, w, queue, qlen, cols, stack)  # compile outside the timing
    assert int(qlen.min()) == 2 * ROWS  # every row pushed its reaction
    benchmark.pedantic(_all_games, args=(run, w, queue, qlen, cols, stack), rounds=30, warmup_rounds=2, iterations=1)
    benchmark.extra_info["rows"] = B * ROWS * 2
    rates[f"compiled_{stage}"] = (benchmark.stats.stats.min, benchmark.stats.stats.median)
    if {"compiled_thorns", "compiled_retaliate"} <= rates.keys():  # both in this run: the ratios
        for k, how in enumerate(("min", "median")):
            benchmark.extra_info[f"thorns_over_retaliate_{how}"] = round(
                rates["compiled_thorns"][k] / rates["compiled_retaliate"][k], 3)

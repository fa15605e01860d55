"""group "plugin": a plugin keyword costs no more than a built-in one.

issue 6: "a bench compares the throughput of a deck using `thorns` (plugin) with a deck using
`retaliate` (built-in)". The example plugin (examples/keyword-plugin) ships two decks that
differ only in that keyword: ``thorn_wardens`` (Briar Sentinel, Thorns 2; Bramble Colossus,
Thorns 3) and ``spine_wardens`` (the same bodies with Retaliate 2 and 3). Each plays
``red_vanguard`` with random agents, the same seeds, batch 4,096; compare ``games_per_s``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import fresh_world, record_rate

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

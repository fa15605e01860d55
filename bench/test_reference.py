"""group "reference": the batched engine against the same game written as plain esper.

``bench/reference_esper.py`` plays one game at a time, one esper world per game, per-entity
dataclass components: how the lanes core looks without batching. Both sides play the same
card pool, the vanilla set of ``bench/vanilla.py`` (stats only: the reference knows no
keywords or effects), with the same decks and random agents. ``speedup_vs_reference`` (in
the engine benchmark's extra_info, and printed in the summary) is engine games/s over
reference games/s from the median times; ``speedup_best``/``speedup_worst`` pair the best
(min time) and the worst (max time) of each.

``test_reference_matches_engine_statistics`` is a plain test (no timing): the comparison is
only fair while both play the same game, so it checks that their results agree in
distribution. It runs with ``--benchmark-skip`` or without any benchmark flag (it is skipped
by ``--benchmark-only``).
"""

from __future__ import annotations

import numpy as np
import pytest
import reference_esper
from harness import DECKS, agents, fresh_world, record_rate
from vanilla import load_vanilla_game

from battlesim.systems.lanes.compiled import loop as ll

N_REFERENCE = 1000
B_ENGINE = 4096


@pytest.fixture(scope="module")
def vanilla():
    """The lanes ruleset with the vanilla card set: what both implementations play."""
    return load_vanilla_game()


def _ratio(benchmark, rates):
    if "reference" in rates and "engine" in rates:
        ref, eng = rates["reference"], rates["engine"]
        benchmark.extra_info["reference_games_per_s"] = round(ref["median"], 1)
        benchmark.extra_info["engine_games_per_s"] = round(eng["median"], 1)
        benchmark.extra_info["speedup_vs_reference"] = round(eng["median"] / ref["median"], 2)
        benchmark.extra_info["speedup_best"] = round(eng["best"] / ref["best"], 2)
        benchmark.extra_info["speedup_worst"] = round(eng["worst"] / ref["worst"], 2)


def _rates(benchmark, n):
    rate = record_rate(benchmark, n)
    if rate is None:
        return None
    info = benchmark.extra_info
    return {"median": rate, "best": info["games_per_s_best"], "worst": info["games_per_s_worst"]}


@pytest.mark.benchmark(group="reference")
def test_reference_esper(benchmark, rates, vanilla):
    r = reference_esper.Rules.of(vanilla)  # load cards outside the timing
    benchmark.extra_info["implementation"] = "esper, one world per game (vanilla card set)"
    res = benchmark.pedantic(reference_esper.play_games, args=(N_REFERENCE, 0, DECKS, r),
                             rounds=4, warmup_rounds=0, iterations=1)
    benchmark.extra_info["mean_rounds"] = round(float(np.mean([r for _, r in res])), 3)
    rate = _rates(benchmark, N_REFERENCE)
    if rate is not None:
        rates["reference"] = rate
        _ratio(benchmark, rates)


@pytest.mark.benchmark(group="reference")
def test_engine_batched(benchmark, vanilla, rates):
    def setup():
        return (fresh_world(vanilla, B_ENGINE),), {}

    ll.engine()  # built or loaded before the timing

    def target(w):
        ll.play_batch(vanilla, w)
        return w

    benchmark.extra_info["implementation"] = f"battlesim compiled loop, one batch of {B_ENGINE} (vanilla card set)"
    w = benchmark.pedantic(target, setup=setup, rounds=5, warmup_rounds=1, iterations=1)
    benchmark.extra_info["mean_rounds"] = round(float(w.g.rounds.mean()), 3)
    rate = _rates(benchmark, B_ENGINE)
    if rate is not None:
        rates["engine"] = rate
        _ratio(benchmark, rates)


# --------------------------------------------------------------------------- sanity (no timing)
def _summary(winner: np.ndarray, rounds: np.ndarray) -> dict[str, float]:
    return {
        "win_0": float(np.mean(winner == 0)),
        "win_1": float(np.mean(winner == 1)),
        "draw": float(np.mean(winner == -1)),
        "mean_rounds": float(np.mean(rounds)),
    }


def test_reference_matches_engine_statistics(vanilla):
    """The reference plays the engine's game (the vanilla set): comparable results (not a timing).

    The two cannot match game for game (different RNGs); with 800 reference games the
    standard error of a win rate is ~0.017 and of the mean length ~0.06 rounds, so the
    tolerances below are loose ("same ballpark") yet catch a rule that differs.
    """
    res = reference_esper.play_games(800, seed=10_000, decks=DECKS, r=reference_esper.Rules.of(vanilla))
    ref_w = np.array([w for w, _ in res])
    ref_r = np.array([r for _, r in res])
    cols = vanilla.play(np.arange(4096), DECKS, agents("random", "random"))
    eng_w, eng_r = np.asarray(cols["winner"]), np.asarray(cols["rounds"])
    limit = vanilla.params.round_limit
    ref, eng = _summary(ref_w, ref_r), _summary(eng_w, eng_r)
    msg = f"reference {ref} vs engine {eng}"

    assert set(np.unique(ref_w)) <= {-1, 0, 1}, msg
    assert ref_r.min() >= 1 and ref_r.max() <= limit, msg
    # both decks win sometimes, in both implementations
    for s in (ref, eng):
        assert s["win_0"] >= 0.05 and s["win_1"] >= 0.05, msg
    # same ballpark: game length and win rates
    assert abs(ref["mean_rounds"] - eng["mean_rounds"]) <= 0.15 * eng["mean_rounds"], msg
    assert abs(ref["win_0"] - eng["win_0"]) <= 0.10, msg
    assert abs(ref["draw"] - eng["draw"]) <= 0.10, msg

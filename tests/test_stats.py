"""battlesim.ecs.balance.stats: the stratified estimate, its test and Holm's correction, on numbers with known answers."""

import math

import numpy as np
import pytest

from battlesim.ecs.balance.stats import holm, mantel_haenszel, mean_ci, paired_rate_diff


def test_one_stratum_is_the_plain_difference_and_the_pearson_test():
    # 60/100 exposed vs 40/100 unexposed
    r = mantel_haenszel(np.array([0]), np.array([60]), np.array([100]), np.array([40]), np.array([100]), 1)
    assert r["rd"][0] == pytest.approx(0.2)
    lo, hi = r["lo"][0], r["hi"][0]
    assert lo < 0.2 < hi and (hi - lo) / 2 == pytest.approx(1.959964 * math.sqrt(0.6 * 0.4 / 100 * 2), rel=0.02)
    # CMH on one 2x2 table = Pearson's chi-square times (N - 1) / N
    chi2 = 200 * (60 * 60 - 40 * 40) ** 2 / (100 * 100 * 100 * 100) * (199 / 200)
    assert r["p"][0] == pytest.approx(math.erfc(math.sqrt(chi2) / math.sqrt(2)), rel=1e-9)


def test_strata_remove_a_confounder_that_pooling_keeps():
    # two strata with the same within-stratum difference (0) but different base rates and
    # different shares of exposed trials: pooled, exposure looks harmful; stratified, it is not
    a, n1 = np.array([80, 10]), np.array([100, 50])      # exposed: 80% in stratum 0, 20% in stratum 1
    c, n0 = np.array([40, 100]), np.array([50, 500])     # unexposed: 80% and 20%
    r = mantel_haenszel(np.array([0, 0]), a, n1, c, n0, 1)
    pooled = a.sum() / n1.sum() - c.sum() / n0.sum()
    assert pooled > 0.3
    assert r["rd"][0] == pytest.approx(0.0, abs=1e-12) and r["p"][0] == pytest.approx(1.0)
    assert r["n_exposed"][0] == 150 and r["n_unexposed"][0] == 550


def test_groups_without_both_kinds_of_trials_are_nan():
    r = mantel_haenszel(np.array([0, 1]), np.array([3, 2]), np.array([5, 4]), np.array([0, 1]), np.array([0, 3]), 3)
    assert np.isnan(r["rd"][0]) and np.isnan(r["p"][0])  # group 0: no unexposed trials
    assert np.isfinite(r["rd"][1])
    assert np.isnan(r["rd"][2])  # group 2: no row at all


def test_intervals_cover_and_the_test_holds_its_level_with_many_small_strata():
    # 1,000 simulated cards, each 300 strata of 2-8 trials, no effect: ~95% coverage, ~5% rejections
    rng = np.random.default_rng(5)
    G, S = 1000, 300
    group = np.repeat(np.arange(G), S)
    n = rng.integers(2, 9, G * S)
    n1 = rng.binomial(n, 0.3)
    base = rng.uniform(0.1, 0.9, G * S)
    a, c = rng.binomial(n1, base), rng.binomial(n - n1, base)
    r = mantel_haenszel(group, a, n1, c, n - n1, G)
    cover = np.mean((r["lo"] <= 0) & (r["hi"] >= 0))
    reject = np.mean(r["p"] < 0.05)
    assert 0.93 <= cover <= 0.97
    assert 0.03 <= reject <= 0.07


def test_holm_known_values_and_nan_left_out():
    p = np.array([0.01, 0.04, 0.03, np.nan, 0.005])
    # sorted 0.005, 0.01, 0.03, 0.04 (m = 4): 0.02, 0.03, 0.06, max(0.04, 0.06)
    assert np.allclose(holm(p)[[4, 0, 2, 1]], [0.02, 0.03, 0.06, 0.06])
    assert np.isnan(holm(p)[3])
    assert np.array_equal(holm(np.array([0.6, 0.9])), [1.0, 1.0])  # 2 x 0.6 capped at 1
    assert holm(np.array([np.nan])).shape == (1,)


def test_mean_and_paired_difference_intervals():
    m, ci = mean_ci(np.array([1.0, 2.0, 3.0, 4.0]))
    assert m == 2.5 and ci[0] < 2.5 < ci[1]
    assert ci[1] - 2.5 == pytest.approx(1.959964 * np.std([1, 2, 3, 4], ddof=1) / 2)
    assert mean_ci(np.array([])) == (None, None)
    # 50 first-player wins, 30 second-player wins, 20 draws of 100
    d, ci = paired_rate_diff(50, 30, 100)
    assert d == pytest.approx(0.2)
    assert (ci[1] - ci[0]) / 2 == pytest.approx(1.959964 * math.sqrt((0.8 - 0.04) / 100))
    assert paired_rate_diff(0, 0, 0) == (None, None)

"""battlesim.ecs.balance.stats: the stratified estimate, its test and Holm's correction, on numbers with known answers."""

import math

import numpy as np
import pytest

from battlesim.ecs.balance.stats import holm, mantel_haenszel, mean_ci, paired_rate_diff, wilson


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


# ---------------------------------------------------------------- against statsmodels, same inputs
# statsmodels is a test dependency (pyproject's `test` extra): each primitive is checked against
# an independent, widely used implementation on the same numbers, not only against our own
# hand-worked values.

sm_proportion = pytest.importorskip("statsmodels.stats.proportion")
sm_multitest = pytest.importorskip("statsmodels.stats.multitest")
sm_contingency = pytest.importorskip("statsmodels.stats.contingency_tables")
sm_api = pytest.importorskip("statsmodels.api")

# (successes, trials) pairs including the small and extreme counts where Wald's interval fails
COUNTS = [(0, 1), (1, 1), (0, 10), (10, 10), (1, 7), (3, 12), (50, 100), (7, 20), (199, 200), (1234, 5000)]


@pytest.mark.parametrize("k,n", COUNTS)
def test_wilson_matches_statsmodels(k, n):
    from battlesim.ecs.balance.stats import wilson

    lo, hi = sm_proportion.proportion_confint(k, n, alpha=0.05, method="wilson")
    assert wilson(k, n) == pytest.approx((lo, hi), abs=1e-12)


@pytest.mark.parametrize("a", COUNTS)
@pytest.mark.parametrize("b", COUNTS[::3])
def test_newcombe_difference_matches_statsmodels(a, b):
    """Card impact's interval: Newcombe (1998) method 10, as statsmodels' "newcomb"."""
    from battlesim.ecs.balance.stats import newcombe_diff

    (k1, n1), (k2, n2) = a, b
    d, ci = newcombe_diff(k1, n1, k2, n2)
    lo, hi = sm_proportion.confint_proportions_2indep(k1, n1, k2, n2, method="newcomb", compare="diff", alpha=0.05)
    assert d == pytest.approx(k1 / n1 - k2 / n2, abs=1e-15)
    assert ci == pytest.approx([lo, hi], abs=1e-9)
    assert -1.0 <= ci[0] <= d <= ci[1] <= 1.0


def test_newcombe_without_trials_on_a_side_is_none():
    from battlesim.ecs.balance.stats import newcombe_diff

    assert newcombe_diff(1, 2, 0, 0) == (None, None)
    assert newcombe_diff(0, 0, 1, 2) == (None, None)


def test_holm_matches_statsmodels():
    rng = np.random.default_rng(12)
    for m in (1, 2, 7, 40):
        p = rng.uniform(0, 0.2, m) ** 2
        p[rng.integers(0, m)] = p[0]  # ties
        expected = sm_multitest.multipletests(p, alpha=0.05, method="holm")[1]
        assert holm(p) == pytest.approx(expected, abs=1e-12)


def test_cmh_test_matches_statsmodels_stratified_table():
    """The p-value of mantel_haenszel is the Cochran-Mantel-Haenszel test without continuity
    correction (statsmodels' StratifiedTable.test_null_odds(correction=False)); its risk difference
    is the Mantel-Haenszel weighted mean of the strata's differences (weights n1 n0 / N)."""
    rng = np.random.default_rng(3)
    for groups in range(20):
        S = int(rng.integers(1, 12))
        n1, n0 = rng.integers(1, 40, S), rng.integers(1, 40, S)
        base = rng.uniform(0.1, 0.9, S)
        a = rng.binomial(n1, np.clip(base + 0.15 * (groups % 3), 0, 1))
        c = rng.binomial(n0, base)
        r = mantel_haenszel(np.zeros(S, dtype=np.int64), a, n1, c, n0, 1)
        # statsmodels' 2x2 tables: rows exposed / unexposed, columns success / failure
        tables = np.stack([np.array([[a[s], n1[s] - a[s]], [c[s], n0[s] - c[s]]]) for s in range(S)], axis=2)
        st = sm_contingency.StratifiedTable(tables.astype(np.float64))
        assert r["p"][0] == pytest.approx(st.test_null_odds(correction=False).pvalue, rel=1e-9, abs=1e-15)
        w = n1 * n0 / (n1 + n0)
        assert r["rd"][0] == pytest.approx(np.sum(w * (a / n1 - c / n0)) / w.sum(), rel=1e-12, abs=1e-15)


def _bt_games(true_r: np.ndarray, home: float, games_per_pair: int, seed: int, draws: float = 0.0):
    """Simulated games; a share ``draws`` of them scored 0.5 (a draw is half a win, as in balance)."""
    rng = np.random.default_rng(seed)
    first, second = [], []
    for i in range(len(true_r)):
        for j in range(len(true_r)):
            if i != j:
                first += [i] * games_per_pair
                second += [j] * games_per_pair
    first, second = np.array(first), np.array(second)
    p = 1 / (1 + np.exp(-(true_r[first] - true_r[second] + home)))
    y = (rng.random(len(p)) < p).astype(np.float64)
    return first, second, np.where(rng.random(len(p)) < draws, 0.5, y)


@pytest.mark.parametrize("n_teams,games_per_pair,seed,draws", [(2, 40, 0, 0.0), (3, 25, 1, 0.0), (5, 60, 2, 0.0),
                                                               (4, 50, 3, 0.15)])
def test_bradley_terry_matches_a_statsmodels_logistic_regression(n_teams, games_per_pair, seed, draws):
    """Same design as a binomial GLM: +1 for the first deck, -1 for the second, 1 for the first
    seat; sum(ratings) = 0 as deviation coding (the last deck's column folded into the others
    with -1). Coefficients, standard errors and so the 1.96 SE intervals agree."""
    from battlesim.ecs.balance.measure import bradley_terry

    true_r = np.linspace(0.8, -0.8, n_teams)
    f, s, y = _bt_games(true_r, 0.25, games_per_pair, seed, draws)
    fit = bradley_terry(f, s, y, n_teams)

    D = n_teams
    X = np.zeros((len(y), D))
    X[np.arange(len(y)), f] += 1.0
    X[np.arange(len(y)), s] -= 1.0
    design = np.column_stack([X[:, : D - 1] - X[:, [D - 1]], np.ones(len(y))])
    glm = sm_api.GLM(y, design, family=sm_api.families.Binomial()).fit()
    coef = np.append(glm.params[: D - 1], -glm.params[: D - 1].sum())
    cov = glm.cov_params()[: D - 1, : D - 1]
    se = np.append(np.sqrt(np.diag(cov)), np.sqrt(cov.sum()))
    assert fit.ratings == pytest.approx(coef, abs=2e-4)
    assert fit.first_seat == pytest.approx(glm.params[D - 1], abs=2e-4)
    assert fit.ratings_se == pytest.approx(se, rel=2e-3)
    assert fit.first_seat_se == pytest.approx(glm.bse[D - 1], rel=2e-3)
    lo, hi = fit.ratings_ci().T
    assert lo == pytest.approx(coef - 1.959964 * se, abs=2e-3) and hi == pytest.approx(coef + 1.959964 * se, abs=2e-3)


def _exact_coverage(interval, n1: int, n2: int, p1: float, p2: float) -> float:
    """The exact probability that ``interval(k1, n1, k2, n2)`` covers p1 - p2 (every outcome enumerated)."""
    def pmf(k: int, n: int, p: float) -> float:
        return math.comb(n, k) * p ** k * (1 - p) ** (n - k)

    cover = 0.0
    for k1 in range(n1 + 1):
        for k2 in range(n2 + 1):
            lo, hi = interval(k1, n1, k2, n2)
            if lo <= p1 - p2 <= hi:
                cover += pmf(k1, n1, p1) * pmf(k2, n2, p2)
    return cover


def test_why_newcombe_not_wald_for_card_impact_small_counts():
    """A card drawn in few games with a low win rate: Wald's interval covers the true difference
    far less often than it claims; Newcombe's stays near 95% (exact enumeration, no sampling)."""
    from battlesim.ecs.balance.stats import newcombe_diff

    def wald(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
        a, b = k1 / n1, k2 / n2
        h = 1.959964 * math.sqrt(a * (1 - a) / n1 + b * (1 - b) / n2)
        return a - b - h, a - b + h

    for n1, n2, p1, p2 in [(20, 20, 0.05, 0.1), (10, 300, 0.9, 0.5), (8, 100, 0.1, 0.45), (15, 200, 0.05, 0.5)]:
        assert _exact_coverage(lambda *a: newcombe_diff(*a)[1], n1, n2, p1, p2) >= 0.93
        assert _exact_coverage(wald, n1, n2, p1, p2) < 0.90


@pytest.mark.parametrize("n", [1, 3, 12, 40, 1000])
def test_wilson_holds_its_estimate_at_zero_and_all(n):
    """At k = 0 and k = n the estimate (0 or 1) is an end of its interval exactly: an interval
    that misses its own estimate by a rounding error broke sweep's error bars (a negative yerr)."""
    assert wilson(0, n)[0] == 0.0 and wilson(n, n)[1] == 1.0
    assert wilson(0, n)[1] > 0.0 and wilson(n, n)[0] < 1.0

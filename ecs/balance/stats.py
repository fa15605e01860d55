"""Interval and test primitives for balance numbers (plain numpy, vectorized over many cards).

Rates and differences (Wilson; Newcombe's hybrid score interval for two independent rates) for
decks and games; for cards, a
stratified risk difference (Mantel-Haenszel, with Sato's variance, valid for many small strata
as well as few large ones), the Cochran-Mantel-Haenszel test, and Holm's correction, because a
report of dozens of cards at 95% each flags a few by chance alone. docs/balance.md has the
reasoning; ``battlesim.ecs.balance.cards`` uses them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval for k successes in n trials."""
    if n == 0:
        return (float("nan"), float("nan"))
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    # at k = 0 (k = n) the bound is 0 (1) exactly; in floating point centre - half comes out a
    # hair above 0 (2.8e-17 at n = 12), which puts the estimate outside its own interval
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k == n else min(1.0, centre + half)
    return (lo, hi)


def rate(k: float, n: float) -> float | None:
    """k / n, None for no trials (JSON null rather than a division error)."""
    return k / n if n else None


def wilson_obj(k: int, n: int) -> dict[str, Any]:
    """A win count as balance.json writes it: wins, games, rate and its 95% Wilson interval."""
    lo, hi = wilson(int(k), int(n))
    return {"wins": int(k), "games": int(n), "win_rate": rate(k, n),
            "ci": [lo, hi] if n else None}


def newcombe_diff(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> tuple[float | None, list[float] | None]:
    """p1 - p2 of two independent proportions with Newcombe's hybrid score interval (None when a
    side has no trials).

    Newcombe, R. G. (1998), "Interval estimation for the difference between independent
    proportions: comparison of eleven methods", Statistics in Medicine 17, 873-890, method 10:
    each side's Wilson interval (l_i, u_i), then
    ``[d - sqrt((p1 - l1)^2 + (u2 - p2)^2), d + sqrt((u1 - p1)^2 + (p2 - l2)^2)]``.
    Why not the plain normal (Wald) interval: with few games on a side or a rate near 0 or 1
    (a card drawn in a handful of games, one never lost with) Wald's interval is too narrow
    and can leave [-1, 1]; Newcombe's keeps close to its 95% coverage there and stays inside.
    """
    if not n1 or not n2:
        return None, None
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(int(k1), int(n1), z)
    l2, u2 = wilson(int(k2), int(n2), z)
    d = p1 - p2
    return d, [d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)]


def normal_two_sided_p(z: np.ndarray) -> np.ndarray:
    """Two-sided p-values of standard normal statistics (NaN stays NaN). One value per card,
    so a Python loop over them is cheap (scipy is not a dependency)."""
    z = np.asarray(z, dtype=np.float64)
    return np.array([math.erfc(abs(x) / math.sqrt(2.0)) if math.isfinite(x) else math.nan for x in z.ravel()],
                    dtype=np.float64).reshape(z.shape)


def mantel_haenszel(group: np.ndarray, a: np.ndarray, n1: np.ndarray, c: np.ndarray, n0: np.ndarray,
                    n_groups: int, z: float = Z95) -> dict[str, np.ndarray]:
    """Stratified risk difference p1 - p0 per group, over strata (one row per group x stratum).

    Row i is one stratum of group ``group[i]``: ``a`` successes of ``n1`` exposed trials, ``c``
    successes of ``n0`` unexposed ones. Returns arrays over groups:

    - ``rd``: the Mantel-Haenszel risk difference, a weighted mean of the strata's p1 - p0 with
      weights n1 n0 / N (only strata with both exposed and unexposed trials count);
    - ``lo``, ``hi``: its interval with Sato's (1989) variance, consistent both for many small
      strata and for few large ones;
    - ``p``: the two-sided Cochran-Mantel-Haenszel test of no association given the strata (the
      hypergeometric variance; exact margins, no continuity correction);
    - ``n_exposed``, ``n_unexposed``: the trials in strata that count.

    NaN for a group without a stratum holding both kinds of trials.
    """
    a, n1, c, n0 = (np.asarray(x, dtype=np.float64) for x in (a, n1, c, n0))
    N = n1 + n0
    ok = (n1 > 0) & (n0 > 0)
    Ns = np.where(ok, N, 1.0)

    def per_group(x: np.ndarray) -> np.ndarray:
        return np.bincount(group, weights=np.where(ok, x, 0.0), minlength=n_groups)

    W = per_group(n1 * n0 / Ns)
    num = per_group((a * n0 - c * n1) / Ns)
    P = per_group((n1 ** 2 * c - n0 ** 2 * a + n1 * n0 * (n0 - n1) / 2) / Ns ** 2)
    Q = per_group((a * (n0 - c) + c * (n1 - a)) / (2 * Ns))
    with np.errstate(invalid="ignore", divide="ignore"):
        rd = np.where(W > 0, num / np.where(W > 0, W, 1.0), np.nan)
        var = np.maximum((rd * P + Q) / np.where(W > 0, W, 1.0) ** 2, 0.0)
        se = np.sqrt(var)
        m1 = a + c
        hyper = n1 * n0 * m1 * (N - m1) / (Ns ** 2 * np.maximum(Ns - 1, 1.0))
        dev = per_group(a - n1 * m1 / Ns)
        v = per_group(hyper)
        zstat = np.where(v > 0, dev / np.sqrt(np.where(v > 0, v, 1.0)), np.nan)
    p = normal_two_sided_p(zstat)
    p = np.where(W > 0, np.where(v > 0, p, 1.0), np.nan)  # no variation at all: nothing to reject
    return {"rd": rd, "lo": rd - z * se, "hi": rd + z * se, "p": p,
            "n_exposed": per_group(n1).astype(np.int64), "n_unexposed": per_group(n0).astype(np.int64)}


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error control, any dependence between the
    tests). NaN entries are left out of the family and stay NaN."""
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    idx = np.flatnonzero(np.isfinite(p))
    m = idx.size
    if not m:
        return out
    order = idx[np.argsort(p[idx], kind="stable")]
    adj = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    out[order] = adj
    return out


def mean_ci(x: np.ndarray, z: float = Z95) -> tuple[float | None, list[float] | None]:
    """Mean with a normal-approximation interval (sd / sqrt(n)); None for no data."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return None, None
    m = float(x.mean())
    if x.size < 2:
        return m, None
    h = z * float(x.std(ddof=1)) / math.sqrt(x.size)
    return m, [m - h, m + h]


def paired_rate_diff(k1: int, k2: int, n: int, z: float = Z95) -> tuple[float | None, list[float] | None]:
    """(k1 - k2) / n with an interval, for two exclusive outcomes of the same n trials (e.g. the
    first player wins / the second player wins, draws being the third outcome): the multinomial
    variance (p1 + p2 - (p1 - p2)^2) / n."""
    if not n:
        return None, None
    p1, p2 = k1 / n, k2 / n
    d = p1 - p2
    h = z * math.sqrt(max(p1 + p2 - d * d, 0.0) / n)
    return d, [d - h, d + h]

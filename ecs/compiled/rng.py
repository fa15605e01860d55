"""The counter RNG, compiled: ``battlesim.ecs.rng.CounterRng`` for one game, bit for bit.

A compiled system draws for the game it is playing, so each function takes the batch's RNG
state ``rng: uint64[B, 2]`` (column 0 the game's key, column 1 its counter: one grouped array,
not two, because numba increfs every array argument on every call) and the game ``b``, and
advances only ``rng[b, 1]``, exactly as ``CounterRng`` advances that game's counter. Hence
a compiled game draws the same numbers as the numpy engine for the same seed (tested over
thousands of seeds, counters and streams, and mixed sequences of draws:
tests/test_compiled_rng.py), which is what lets it reproduce the golden games row for row.

Every constant is a ``uint64``: numba turns ``uint64 op int64`` into float64, which would
silently lose bits. The functions are ``cache=True``: this file calls nothing in another
file, so numba's staleness check (this file's timestamp) is enough.
"""

from __future__ import annotations

import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
SALT = np.uint64(0xD1B54A32D192ED03)
S30, S27, S31, S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
TO_UNIT = 1.0 / float(1 << 53)
KEY, COUNTER = 0, 1  # columns of the rng state


@njit(cache=True)
def mix64(z: np.uint64) -> np.uint64:
    """SplitMix64's finaliser (``battlesim.ecs.rng.mix64`` for one value)."""
    z = z ^ (z >> S30)
    z = z * M1
    z = z ^ (z >> S27)
    z = z * M2
    return z ^ (z >> S31)


@njit(cache=True)
def seed_key(seed: np.int64) -> np.uint64:
    """A game's key: its seed hashed, so that neighbouring seeds are unrelated."""
    return mix64(np.uint64(seed) ^ GOLDEN)


@njit(cache=True)
def rng_state(seeds: np.ndarray) -> np.ndarray:
    """``uint64[B, 2]``: each game's key and a zero counter, for ``int64`` seeds."""
    out = np.zeros((seeds.shape[0], 2), dtype=np.uint64)
    for b in range(seeds.shape[0]):
        out[b, KEY] = seed_key(seeds[b])
    return out


@njit(cache=True)
def bits_at(rng: np.ndarray, b: int, offset: int, stream: int) -> np.uint64:
    """The draw ``offset`` places after game b's counter, without advancing it (what the
    numpy engine computes for entry ``offset`` of an n-wide draw)."""
    x = (rng[b, COUNTER] + np.uint64(offset)) * GOLDEN
    x = x ^ rng[b, KEY]
    x = x + np.uint64(stream) * SALT
    return mix64(x)


@njit(cache=True)
def advance(rng: np.ndarray, b: int, n: int) -> None:
    """Game b used ``n`` draws."""
    rng[b, COUNTER] = rng[b, COUNTER] + np.uint64(n)


@njit(cache=True)
def next_bits(rng: np.ndarray, b: int, stream: int) -> np.uint64:
    """One fresh ``uint64``; ``CounterRng.bits([b], 1, stream)``. ``bits([b], n)`` is n of
    these in a row (a draw of n uses counters c .. c+n-1)."""
    x = bits_at(rng, b, 0, stream)
    advance(rng, b, 1)
    return x


@njit(cache=True)
def bits_into(rng: np.ndarray, b: int, stream: int, out: np.ndarray) -> None:
    """``out[:] = CounterRng.bits([b], out.size, stream)[0]``."""
    for j in range(out.shape[0]):
        out[j] = bits_at(rng, b, j, stream)
    advance(rng, b, out.shape[0])


@njit(cache=True)
def to_unit(x: np.uint64) -> float:
    """The top 53 bits as a float in [0, 1), as ``CounterRng.uniform`` maps them."""
    return float(x >> S11) * TO_UNIT


@njit(cache=True)
def uniform(rng: np.ndarray, b: int, stream: int) -> float:
    """One float in [0, 1): ``CounterRng.uniform([b], 1, stream)``."""
    return to_unit(next_bits(rng, b, stream))


@njit(cache=True)
def integers(rng: np.ndarray, b: int, high: int, stream: int) -> int:
    """One integer in ``[0, high)`` (high > 0): ``CounterRng.integers([b], high, stream)``."""
    v = np.int64(uniform(rng, b, stream) * high)  # truncates, like astype(int64) of a float >= 0
    return min(v, np.int64(high) - 1)


@njit(cache=True)
def choice(rng: np.ndarray, b: int, mask: np.ndarray, stream: int) -> int:
    """The index of one True of ``mask`` (bool[A]), uniformly: ``CounterRng.choice``. It draws
    (and advances the counter) even when no entry is True, as the numpy engine does, and
    then returns -1 (the numpy engine requires a True and returns garbage)."""
    count = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            count += 1
    k = integers(rng, b, max(count, 1), stream)
    for a in range(mask.shape[0]):
        if mask[a]:
            if k == 0:
                return a
            k -= 1
    return -1


@njit(cache=True)
def permutation_keys(rng: np.ndarray, b: int, stream: int, out: np.ndarray) -> None:
    """Random sort keys into ``out`` (``CounterRng.permutation_keys``). Sort them with
    ``np.argsort(keys, kind="mergesort")``: stable in numba as numpy's ``kind="stable"`` is,
    so padding keys set to the maximum keep their order (tests/test_compiled_rng.py)."""
    bits_into(rng, b, stream, out)

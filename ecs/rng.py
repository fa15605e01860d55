"""The counter-based RNG: the only source of randomness in rules code.

Each game has a 64-bit seed and a counter. A draw hashes ``(seed, counter, stream)`` with
SplitMix64's finaliser and advances the counter *only in the games that drew*. A game's
random numbers therefore depend on its own seed and its own history alone: not on the
batch it shares, on chunking, workers or backend. That is the determinism contract.

Streams are small integers naming what a draw is for (shuffle, initiative, agent...). They
salt the hash so that two purposes drawing at the same counter do not see the same bits;
the counter is still shared, so the order of draws within a game is part of its history.
"""

from __future__ import annotations

import functools
from enum import IntEnum

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)
_TO_UNIT = 1.0 / float(1 << 53)


class Stream(IntEnum):
    """Purposes of draws. Plugins may use values >= 1000."""

    SHUFFLE = 1
    INITIATIVE = 2
    SIDES = 3
    AGENT = 4
    EFFECT = 5
    SHOP = 6


def mix64(z: np.ndarray, inplace: bool = False) -> np.ndarray:
    """SplitMix64 finaliser over a uint64 array (wrapping arithmetic); ``inplace``: overwrite
    ``z`` (a uint64 array the caller owns) instead of a copy."""
    if not inplace:
        z = z.astype(np.uint64, copy=True)
    tmp = np.empty_like(z)
    # in-place array ufuncs: integer overflow wraps silently (only numpy scalar arithmetic warns)
    z ^= np.right_shift(z, _S30, out=tmp)
    z *= _M1
    z ^= np.right_shift(z, _S27, out=tmp)
    z *= _M2
    z ^= np.right_shift(z, _S31, out=tmp)
    return z


@functools.cache
def _salt(stream: int) -> np.uint64:
    """What a stream adds to the hashed counter."""
    return np.uint64((int(stream) * 0xD1B54A32D192ED03) & 0xFFFFFFFFFFFFFFFF)


class CounterRng:
    """Per-game seeds and counters for a batch of games."""

    def __init__(self, seeds: np.ndarray) -> None:
        self.seeds = np.asarray(seeds, dtype=np.int64).astype(np.uint64)
        # ``packed[b]`` = (key, counter) of game b: the ``rng: uint64[B, 2]`` argument of compiled
        # kernels (ecs/compiled/rng.py). ``_keys`` and ``counter`` are its two columns (views), so
        # numpy draws and compiled draws advance ONE counter: nothing is copied between them.
        # Key per game: decorrelates neighbouring seeds (seed S and S+1 are a run's neighbours).
        self._attach(np.empty((self.seeds.shape[0], 2), dtype=np.uint64))
        self.restart(seeds)

    def restart(self, seeds: np.ndarray) -> None:
        """Games seeded ``seeds`` (as many as before), no draw made yet, in the same ``packed``
        array: compiled views of it stay valid (``World.restart``)."""
        self.seeds = np.asarray(seeds, dtype=np.int64).astype(np.uint64)
        self.packed[:, 0] = mix64(self.seeds ^ _GOLDEN)
        self.packed[:, 1] = 0

    def _attach(self, packed: np.ndarray) -> None:
        self.packed = packed
        self._keys = packed[:, 0]
        self.counter = packed[:, 1]

    def subset(self, rows: np.ndarray) -> CounterRng:
        """The RNG of games ``rows`` (a copy; rows may repeat), its columns still views of its own
        ``packed``."""
        out = CounterRng.__new__(CounterRng)
        out.seeds = self.seeds[rows]
        out._attach(self.packed[rows])
        return out

    def __getstate__(self) -> dict:
        # copies and pickles keep ``_keys`` and ``counter`` views of ``packed`` (a deep copy of a
        # view alone would copy it apart, and compiled draws would no longer move the counter)
        return {"seeds": self.seeds, "packed": self.packed}

    def __setstate__(self, state: dict) -> None:
        self.seeds = state["seeds"]
        self._attach(state["packed"])

    def bits(self, games: np.ndarray, n: int, stream: int) -> np.ndarray:
        """``uint64[len(games), n]`` fresh bits for the listed games; each listed occurrence of a
        game advances its counter by n. A game listed k times gets k different draws, in list
        order, so callers must list rows in an order that does not depend on the batch."""
        games = np.asarray(games, dtype=np.intp)
        base = self.counter[games]
        if games.size > 1 and not np.all(games[1:] > games[:-1]):
            # repeated games: the j-th occurrence of a game starts j*n draws later
            order = np.argsort(games, kind="stable")
            sg = games[order]
            first = np.r_[True, sg[1:] != sg[:-1]]
            start = np.flatnonzero(first)
            rank_sorted = np.arange(sg.size) - np.repeat(start, np.diff(np.r_[start, sg.size]))
            rank = np.empty_like(rank_sorted)
            rank[order] = rank_sorted
            base = base + rank.astype(np.uint64) * np.uint64(n)
            np.add.at(self.counter, games, np.uint64(n))
        else:
            self.counter[games] = base + np.uint64(n)
        x = base[:, None] + np.arange(n, dtype=np.uint64)  # array arithmetic: wraps without a warning
        x *= _GOLDEN
        x ^= self._keys[games][:, None]
        x += _salt(stream)
        return mix64(x, inplace=True)

    def uniform(self, games: np.ndarray, n: int, stream: int) -> np.ndarray:
        """``float64[len(games), n]`` in [0, 1)."""
        x = self.bits(games, n, stream)
        out = np.right_shift(x, np.uint64(11), out=x).astype(np.float64)
        out *= _TO_UNIT
        return out

    def integers(self, games: np.ndarray, high: np.ndarray | int, stream: int) -> np.ndarray:
        """One integer in ``[0, high)`` per listed game (``high`` per game or scalar, > 0)."""
        u = self.uniform(games, 1, stream)[:, 0]
        return np.minimum((u * high).astype(np.int64), np.asarray(high, dtype=np.int64) - 1)

    def choice(self, games: np.ndarray, mask: np.ndarray, stream: int) -> np.ndarray:
        """Index of one True column per row of ``mask`` [n, A], uniformly. Rows must have a True."""
        n, A = mask.shape
        # the k-th True of each row, read off the row-major list of all Trues (a row's Trues
        # start where its first flat index would be inserted: no separate count over the mask)
        trues = np.flatnonzero(mask)
        row_start = np.arange(n + 1) * A
        bounds = np.searchsorted(trues, row_start)
        starts = bounds[:-1]
        k = self.integers(games, np.maximum(bounds[1:] - starts, 1), stream)
        return trues[starts + k] - row_start[:-1]

    def permutation_keys(self, games: np.ndarray, n: int, stream: int) -> np.ndarray:
        """Random sort keys [len(games), n]; ``argsort`` of them is a uniform permutation."""
        return self.bits(games, n, stream)

    def state(self) -> tuple[np.ndarray, np.ndarray]:
        return self.seeds.copy(), self.counter.copy()

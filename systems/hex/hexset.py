"""A set of hexes as one 64-bit word: bit h for hex h (59 hexes < 64 bits), and the board's
tables as sets: ``BALL[h, r]`` (the hexes within r of h) and ``grow`` (a set with its neighbours).

Why: the legal table is 590 entries a unit (10 verbs x 59 hexes), yet the random agent needs
only how many are legal and the j-th of them, and greedy only the legal ones in table order.
One word per verb holds a verb's legal hexes; its bits in increasing order are the table's
order of those entries (``legal.py``), so counting is a popcount and the j-th entry is the j-th
set bit, with no 590-byte block written, cleared or scanned. And the legal moves: the hexes a
unit reaches in Movement steps are ``grow`` applied Movement times (``battle.reach_sets``), a
dozen word operations a step instead of a queue over the hexes.

Why ``grow`` is shifts: ids run down each column, column after column (``board.START``), so a
hex's neighbours are its ids +-1 (same column), +-6 and +-7 (the next and previous columns,
whichever the column's offset); ``_FROM[d]`` holds the hexes whose id + d (``_STEPS``) is a
neighbour, so ``grow`` is six masked shifts (checked at import against ``board.NEIGHBOURS``).

Plain integer arithmetic (compiled by numba: the SWAR popcount, which LLVM turns into one
instruction where the CPU has it), every operand ``uint64`` (numba mixes uint64 and int64 into
float64).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.systems.hex.board import DIST, MAX_DISTANCE, N_HEXES, NEIGHBOURS

EMPTY = np.uint64(0)
ONE = np.uint64(1)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


def _set_of(hexes: np.ndarray) -> np.uint64:
    out = 0
    for h in hexes:
        out |= 1 << int(h)
    return np.uint64(out)


ALL = _set_of(np.arange(N_HEXES))
# BALL[h, r]: the hexes within distance r of h (r up to MAX_DISTANCE: the whole map)
BALL = np.array([[_set_of(np.flatnonzero(DIST[h] <= r)) for r in range(MAX_DISTANCE + 1)] for h in range(N_HEXES)],
                dtype=np.uint64)
_STEPS = (1, 6, 7)
_FROM = {d: _set_of([h for h in range(N_HEXES) if h + d in NEIGHBOURS[h]]) for d in _STEPS + tuple(-d for d in _STEPS)}
assert all(n - h in _FROM and 0 <= n < N_HEXES for h in range(N_HEXES) for n in NEIGHBOURS[h] if n >= 0)
_UP1, _UP6, _UP7 = _FROM[1], _FROM[6], _FROM[7]
_DOWN1, _DOWN6, _DOWN7 = _FROM[-1], _FROM[-6], _FROM[-7]
BALL.setflags(write=False)


@njit(cache=True, inline='always')
def bit(h: int) -> np.uint64:
    """The set holding hex h alone."""
    return ONE << np.uint64(h)


@njit(cache=True, inline='always')
def size(x: np.uint64) -> int:
    """How many hexes set x holds (its popcount)."""
    x = x - ((x >> ONE) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.int64((x * _H01) >> np.uint64(56))


@njit(cache=True, inline='always')
def lowest(x: np.uint64) -> int:
    """The lowest hex of a non-empty set x: the count of the bits below its lowest set bit."""
    return size((x & (~x + ONE)) - ONE)


@njit(cache=True, inline='always')
def without_lowest(x: np.uint64) -> np.uint64:
    """Set x without its lowest hex (x non-empty)."""
    return x & (x - ONE)


@njit(cache=True, inline='always')
def nth(x: np.uint64, j: int) -> int:
    """The j-th lowest hex of set x (0-based, j < ``size(x)``)."""
    for _ in range(j):
        x = without_lowest(x)
    return lowest(x)


@njit(cache=True, inline='always')
def grow(x: np.uint64) -> np.uint64:
    """The hexes adjacent to a hex of set x (x's own not included unless adjacent to another)."""
    return (((x & _UP1) << np.uint64(1)) | ((x & _DOWN1) >> np.uint64(1)) | ((x & _UP6) << np.uint64(6))
            | ((x & _DOWN6) >> np.uint64(6)) | ((x & _UP7) << np.uint64(7)) | ((x & _DOWN7) >> np.uint64(7)))

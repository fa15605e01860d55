"""A set of hexes as one 64-bit word: bit h for hex h (59 hexes < 64 bits).

Why: the legal table is 590 entries a unit (10 verbs x 59 hexes), yet the random agent needs
only how many are legal and the j-th of them, and greedy only the legal ones in table order.
One word per verb holds a verb's legal hexes; its bits in increasing order are the table's
order of those entries (``legal.py``), so counting is a popcount and the j-th entry is the j-th
set bit, with no 590-byte block written, cleared or scanned.

Plain integer arithmetic (compiled by numba: the SWAR popcount, which LLVM turns into one
instruction where the CPU has it), every operand ``uint64`` (numba mixes uint64 and int64 into
float64).
"""

from __future__ import annotations

import numpy as np
from numba import njit

EMPTY = np.uint64(0)
ONE = np.uint64(1)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


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

"""The random agent's draw over the legal mask, eight entries at a time: the same draw as the
shared ``ecs.compiled.rng.choice`` (the same count, the same ``integers`` call, the same k-th
legal entry), so the games are the same, bit for bit.

Why grid has its own: the grid action table is 835 entries (1,303 at 10x10) of which ~30-100
are legal, and ``choice`` reads them one byte at a time twice (to count, then to find the k-th).
A numpy bool is one byte, 0 or 1, so eight entries read as one ``uint64`` are counted by one
multiplication (the bytes' sum lands in the top byte), and the search skips eight entries a
word until the word holding the k-th. Compiled, no allocation (``_nrt=False``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.ecs.compiled.rng import integers
from battlesim.systems.grid import kernel_cache

BYTE_SUM = np.uint64(0x0101010101010101)  # x * BYTE_SUM: the sum of x's bytes in the top byte
TOP_BYTE = np.uint64(56)


@njit(cache=True, _nrt=False, inline="always")
def word_count(x):
    """The number of set entries among the eight bool bytes of ``x`` (each byte 0 or 1)."""
    return np.int64((x * BYTE_SUM) >> TOP_BYTE)


@njit(cache=True, _nrt=False)
def draw_legal(rng, b, mask, stream):
    """spec §4: the random agent's legal action, uniformly: the index of the k-th True of ``mask``
    (bool[A]) for k = ``integers(rng, b, count, stream)``, -1 if none is True (the draw is made all
    the same): ``ecs.compiled.rng.choice``, bit for bit (tests/rules/grid/test_draw.py)."""
    whole = mask.shape[0] // 8 * 8
    words = mask[:whole].view(np.uint64)
    count = 0
    for i in range(words.shape[0]):
        count += word_count(words[i])
    for a in range(whole, mask.shape[0]):
        count += mask[a]
    k = integers(rng, b, max(count, 1), stream)
    for i in range(words.shape[0]):
        n = word_count(words[i])
        if k < n:
            for a in range(8 * i, 8 * i + 8):
                if mask[a]:
                    if k == 0:
                        return a
                    k -= 1
        k -= n
    for a in range(whole, mask.shape[0]):
        if mask[a]:
            if k == 0:
                return a
            k -= 1
    return -1


kernel_cache.check("draw", kernel_cache.kernels_of(globals(), __name__))

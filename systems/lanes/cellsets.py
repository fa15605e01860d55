"""Sets of cells, lanes and actions as bits of one integer per game.

The legal masks are built from per-cell and per-card facts. As booleans they are ``[n, H, L, P]``
arrays with short trailing axes, where numpy spends most of its time in per-axis overhead; as
bit sets (a side's cell ``(l, p)`` is bit ``l * P + p`` of a ``uint64``, a set of lanes bit
``l`` of a ``uint8``) the same facts combine in a few operations over ``[n]`` or ``[n, H]``, and
a row of the action table is unpacked into booleans once. numpy's ``packbits``/``unpackbits``
are fast over a flat array and slow along a short axis, so the conversions go through flat
arrays whose rows are padded to whole bytes.
"""

from __future__ import annotations

import functools

import numpy as np


@functools.cache
def lane_cells(L: int, P: int) -> tuple[np.ndarray, np.ndarray]:
    """``(every, first)``, each ``uint64[2**L]``: for a set of lanes (bit l), the bit set of all
    their cells, and of their position 0 (where a spell or an improvement is played from its
    origin lane)."""
    if L > 8 or L * P > 64:
        raise ValueError(f"cell sets hold a side in 64 bits and a lane set in 8 (L={L}, P={P})")
    lanes = (np.arange(2 ** L)[:, None] >> np.arange(L)) & 1  # [2**L, L]
    cell = np.left_shift(np.uint64(1), ((np.arange(L) * P)[:, None] + np.arange(P)).astype(np.uint64))  # [L, P]
    every = np.bitwise_or.reduce(np.where(lanes[:, :, None] == 1, cell, np.uint64(0)).reshape(2 ** L, -1), axis=1)
    first = np.bitwise_or.reduce(np.where(lanes == 1, cell[:, 0], np.uint64(0)), axis=1)
    return every, first


_POW2 = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))
# row width k -> (bits a row is padded to, the little-endian integer of that many bits)
_PADDED = [next((b, d) for b, d in ((8, np.uint8), (16, "<u2"), (32, "<u4"), (64, "<u8")) if b >= k) for k in range(65)]
_SMALL = 1024


def to_bits(mask: np.ndarray) -> np.ndarray:
    """``uint64``, ``mask.shape[:-1]``: the last axis of ``mask`` (at most 64 entries) as a bit
    set, bit j for entry j. Small masks: one product with the powers of two (the bits are
    distinct, so the sum is their union); large ones: packed flat, each row padded to a whole
    integer."""
    k = mask.shape[-1]
    if mask.size < _SMALL:
        return mask @ _POW2[:k]
    width, dtype = _PADDED[k]
    wide = np.zeros(mask.shape[:-1] + (width,), dtype=bool)
    wide[..., :k] = mask
    return np.packbits(wide.reshape(-1), bitorder="little").view(dtype).astype(np.uint64).reshape(mask.shape[:-1])

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


@functools.lru_cache(maxsize=None)
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


_WIDTHS = ((8, np.uint8), (16, "<u2"), (32, "<u4"), (64, "<u8"))


def to_bits(mask: np.ndarray) -> np.ndarray:
    """``uint64[n]``: each row of ``mask: bool[n, ...]`` (at most 64 entries) as a bit set, bit j
    for its j-th entry in row-major order."""
    n = mask.shape[0]
    m = mask.reshape(n, -1)
    width, dtype = next((b, d) for b, d in _WIDTHS if b >= m.shape[1])
    wide = np.zeros((n, width), dtype=bool)
    wide[:, :m.shape[1]] = m
    return np.packbits(wide.reshape(-1), bitorder="little").view(dtype).astype(np.uint64)


def from_bits(bits: np.ndarray, k: int) -> np.ndarray:
    """``bool[n, k]``: the first ``k`` bits of each of ``bits: uint64[n]`` (``to_bits`` undone)."""
    flat = np.unpackbits(bits.astype("<u8").view(np.uint8), bitorder="little")
    return flat.reshape(bits.size, 64)[:, :k].view(np.bool_)


def lanes_of(cells: np.ndarray, L: int, P: int) -> np.ndarray:
    """``uint8``, shaped like ``cells`` (cell sets): the lanes (bit l) holding one of the cells
    (a loop over the few lanes)."""
    every, _ = lane_cells(L, P)
    lanes = np.zeros(cells.shape, dtype=np.uint8)
    for l in range(L):
        lanes |= ((cells & every[1 << l]) != 0).view(np.uint8) << np.uint8(l)
    return lanes

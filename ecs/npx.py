"""Small numpy helpers for the hot paths of systems (same results as the numpy calls they replace)."""

from __future__ import annotations

import numpy as np

_SMALL = 1024


def nonzero(mask: np.ndarray) -> tuple[np.ndarray, ...]:
    """``np.nonzero(mask)``: the same index arrays in the same (row-major) order, several times
    faster on a batch-sized mask (numpy's multi-dimensional ``nonzero`` is slow; a flat one and
    a division are not)."""
    if mask.ndim < 2 or mask.size < _SMALL:
        return np.nonzero(mask)
    flat = mask.reshape(-1).nonzero()[0]  # ``np.flatnonzero`` without its Python wrappers
    if mask.ndim == 2:
        return np.divmod(flat, mask.shape[1])
    return np.unravel_index(flat, mask.shape)


_SHORT = 16


def any_axis(mask: np.ndarray, axis: int | tuple[int, ...]) -> np.ndarray:
    """``mask.any(axis=axis)`` (bool masks; for integer arrays ``np.bitwise_or.reduce``): the same
    result, several times faster when the reduced axes are short (numpy's reduction over a few
    elements per output is slow, e.g. 275 -> 24 us for ``[4096, 3, 3].any(axis=2)``); the reduced
    axes are OR-ed slice by slice, a loop over their (fixed, small) length."""
    if mask.size < _SMALL:  # small arrays: numpy's one call is cheaper
        return mask.any(axis=axis) if mask.dtype == np.bool_ else np.bitwise_or.reduce(mask, axis=axis)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = sorted((a % mask.ndim for a in axes), reverse=True)
    out = mask
    for a in axes:
        k = out.shape[a]
        if k > _SHORT or k == 0:
            out = out.any(axis=a) if out.dtype == np.bool_ else np.bitwise_or.reduce(out, axis=a)
            continue
        idx = [slice(None)] * out.ndim
        idx[a] = 0
        acc = out[tuple(idx)].copy()
        for j in range(1, k):
            idx[a] = j
            acc |= out[tuple(idx)]
        out = acc
    return out


def sum_last(x: np.ndarray) -> np.ndarray:
    """``x.sum(axis=-1)`` for integer or bool ``x`` (same values, same dtype), adding the
    last axis slice by slice when it is short (``[n, 2].sum(axis=-1)``: 360 -> 11 us at n = 20,000)."""
    k = x.shape[-1]
    if k > _SHORT or k == 0 or x.size < _SMALL or x.dtype.kind not in "biu":
        return x.sum(axis=-1)
    acc = x[..., 0].astype(np.zeros(0, x.dtype).sum().dtype)
    for j in range(1, k):
        acc += x[..., j]
    return acc

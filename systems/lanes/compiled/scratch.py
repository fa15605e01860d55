"""Scratch games for lookahead's rollouts: one game of a World copied into a game of a scratch
World, so that a rollout plays it forward without touching the real one (DESIGN.md "Decisions
and agents": "lookahead and search copy one game's state and play it forward, all compiled").

- ``scratch_world(w, n)``: a World of ``n`` games shaped as ``w`` (same components, per-game
  fields, catalog, parameters), its buffers grouped as ``world_view`` needs; allocated once per
  chunk, its games overwritten by each rollout;
- ``game_fields(w, rng)``: everything per game that is not a component: every per-game field
  (``w.g.*``), ``active``, the serial counters, the seeds and the compiled RNG state ``rng``
  (``uint64[B, 2]``), as ``GameFields``;
- ``copy_game(src_state, src_fields, b, dst_state, dst_fields, d)``: game b of the source into
  game d of the destination: every component buffer's slice, ``alive``, ``serial``, the trigger
  queue's pending events, and every array of ``GameFields``.

Why fields grouped by dtype, each flattened to ``[B, n]``: the per-game fields come in a dozen
(dtype, shape) combinations; a tuple of same-typed arrays is one numba type whatever its length,
so one loop copies a group, and a ruleset adding a field changes no code (a heterogeneous tuple
would need a body compiled per field). The flattening is a view (the arrays are C-contiguous), so
writes land in the World's own arrays. Each group ends with a ``[B, 0]`` array, so no group is an
empty tuple (which numba cannot index).

The catalog rows and parameters (``cat``, ``params``) are not per game: the scratch World's view
may share the source's (``WorldState._replace``). ``copy_game`` allocates nothing (``_nrt=False``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

_DTYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u64": np.uint64, "flags": np.bool_}
_GROUPS = {np.dtype(dt): group for group, dt in _DTYPES.items()}


class GameFields(NamedTuple):
    """Every per-game array that is not a component, flattened to ``[B, n]`` and grouped by dtype."""

    i8: tuple
    i16: tuple
    i32: tuple
    i64: tuple
    u64: tuple
    flags: tuple


def game_arrays(w: Any, rng: np.ndarray) -> dict[str, np.ndarray]:
    """Every per-game array of World ``w`` that is not a component, by name: the fields ``w.g.*``,
    ``active``, ``next_serial``, ``seeds`` and the compiled RNG state ``rng``."""
    out = {name: getattr(w.g, name) for name in w.state_fields}
    out.update(active=w.active, next_serial=w._next_serial, seeds=w.seeds, rng=rng)
    return out


def game_fields(w: Any, rng: np.ndarray) -> GameFields:
    """``GameFields`` of World ``w`` and its compiled RNG state (views of the World's own arrays)."""
    B = w.n_games
    groups: dict[str, list[np.ndarray]] = {g: [] for g in GameFields._fields}
    for name, arr in game_arrays(w, rng).items():
        group = _GROUPS.get(arr.dtype)
        if group is None or arr.shape[:1] != (B,) or not arr.flags.c_contiguous:
            raise ValueError(f"per-game array {name!r} ({arr.dtype}, {arr.shape}) cannot be copied game by game")
        groups[group].append(arr.reshape(B, -1))
    return GameFields(*(tuple(groups[g]) + (np.zeros((B, 0), dtype=_DTYPES[g]),) for g in GameFields._fields))


def scratch_world(w: Any, n: int) -> Any:
    """A World of ``n`` games shaped as ``w`` (copies of game 0, to be overwritten), whose
    component buffers are grouped as ``world_view`` needs. Once per chunk, not per rollout."""
    from battlesim.ecs.compiled.world_view import regroup
    from battlesim.systems.lanes.agents import subset_world

    s = subset_world(w, np.zeros(n, dtype=np.intp))
    regroup(s)
    return s


@njit(cache=True, _nrt=False)
def _copy_group(src, b, dst, d) -> None:
    for k in range(len(src)):
        a, z = src[k], dst[k]
        for j in range(a.shape[1]):
            z[d, j] = a[b, j]


@njit(cache=True, _nrt=False)
def copy_game(src_state, src_fields, b: int, dst_state, dst_fields, d: int) -> None:
    """Game b of the source (``WorldState``, ``GameFields``) into game d of the destination:
    every component of every slot, ``alive``, ``serial``, the pending trigger events and every
    per-game array. Both Worlds must have the same components, slots and fields."""
    S = src_state.alive.shape[1]
    for k in range(src_state.i16.shape[0]):
        for s in range(S):
            dst_state.i16[k, d, s] = src_state.i16[k, b, s]
    for k in range(src_state.i8.shape[0]):
        for s in range(S):
            dst_state.i8[k, d, s] = src_state.i8[k, b, s]
    for k in range(src_state.flags.shape[0]):
        for s in range(S):
            dst_state.flags[k, d, s] = src_state.flags[k, b, s]
    for k in range(src_state.i16x2.shape[0]):
        for s in range(S):
            for e in range(src_state.i16x2.shape[3]):
                dst_state.i16x2[k, d, s, e] = src_state.i16x2[k, b, s, e]
    for s in range(S):
        dst_state.alive[d, s] = src_state.alive[b, s]
        dst_state.serial[d, s] = src_state.serial[b, s]
    n = src_state.nevents[b]
    for q in range(min(n, src_state.events.shape[1])):
        for e in range(src_state.events.shape[2]):
            dst_state.events[d, q, e] = src_state.events[b, q, e]
    dst_state.nevents[d] = n
    _copy_group(src_fields.i8, b, dst_fields.i8, d)
    _copy_group(src_fields.i16, b, dst_fields.i16, d)
    _copy_group(src_fields.i32, b, dst_fields.i32, d)
    _copy_group(src_fields.i64, b, dst_fields.i64, d)
    _copy_group(src_fields.u64, b, dst_fields.u64, d)
    _copy_group(src_fields.flags, b, dst_fields.flags, d)

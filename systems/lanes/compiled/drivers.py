"""Batch drivers: each compiled phase over every game of a World, one call from Python per phase
(issue 13; docs/compiled-core.md "Wiring"). ``for b in range(B): if active: kernel(...)``, plus
what the caller needs back for the replay log and the World's Python bookkeeping (games ended,
creeps made, what a shop action did).

Use them through ``cached()``: a copy of this file with ``cache=True``, written to the engine
cache under a name that hashes this file, every file the drivers depend on (the kernels of
round.py, shop.py, setup.py, ``ecs/compiled/``), the constants they freeze and the compiler
versions (``ecs/compiled/cache.py``, as ``battlesim compile`` names the damage engine). Why not
``cache=True`` here: a driver's machine code holds the kernels it calls, and numba's cache checks
only the defining file, so a changed kernel would keep its old code (docs/compiled-core.md "Why
stale machine code is impossible"). Here they are ``cache=False`` (the fallback when the cache
directory cannot be written: compiled once per process, ~20 s).
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from types import ModuleType

from numba import njit

from battlesim.ecs.compiled.cache import (
    EngineCacheError,
    cache_root,
    engine_hash,
    engine_path,
    import_engine,
    prune,
    write_engine,
)
from battlesim.ecs.compiled.codegen import dependency_files, frozen_constants
from battlesim.systems.lanes.compiled.round import (
    creep_spawn,
    draw,
    hero_availability,
    objective_snapshot,
    refresh_resources,
    round_end,
    victory_check,
)
from battlesim.systems.lanes.compiled.setup import setup_game
from battlesim.systems.lanes.compiled.shop import apply_shop, legal_shop, shop_begin


@njit(cache=False)
def setup_games(st, f, cols, tables, deck_index, rng) -> None:
    """``setup_game`` for every game of a fresh World (it allocates: reference counting kept)."""
    for b in range(deck_index.shape[0]):
        setup_game(st, f, cols, tables, deck_index, rng, b)


@njit(cache=False, _nrt=False)
def spawn_creeps(st, f, cols) -> int:
    """``creep_spawn`` over the batch: the number of creeps made, or ``-1 - b`` when game b has no
    free entity slot (the caller names its seed)."""
    made = 0
    for b in range(f.active.shape[0]):
        if f.active[b]:
            before = f.next_serial[b]
            if creep_spawn(st, f, cols, b) != 0:
                return -1 - b
            made += f.next_serial[b] - before
    return made


@njit(cache=False, _nrt=False)
def ready_heroes(st, f, cols) -> None:
    for b in range(f.active.shape[0]):
        if f.active[b]:
            hero_availability(st, f, cols, b)


@njit(cache=False, _nrt=False)
def draw_all(st, f, cols) -> None:
    for b in range(f.active.shape[0]):
        if f.active[b]:
            draw(st, f, cols, b)


@njit(cache=False, _nrt=False)
def refresh_all(st, f, cols) -> None:
    for b in range(f.active.shape[0]):
        if f.active[b]:
            refresh_resources(st, f, cols, b)


@njit(cache=False, _nrt=False)
def check_victories(st, f, cols, ended) -> int:
    """``victory_check`` over the batch; ``ended[b]``: game b ended here. Returns how many did."""
    n = 0
    for b in range(f.active.shape[0]):
        ended[b] = f.active[b] and victory_check(st, f, cols, b)
        n += ended[b]
    return n


@njit(cache=False, _nrt=False)
def snapshot_all(st, f, cols) -> None:
    for b in range(f.active.shape[0]):
        if f.active[b]:
            objective_snapshot(st, f, cols, b)


@njit(cache=False, _nrt=False)
def end_rounds(st, f, cols, ended) -> int:
    """``round_end`` over the batch; ``ended[b]``: game b reached the round limit here."""
    n = 0
    for b in range(f.active.shape[0]):
        ended[b] = f.active[b] and round_end(st, f, cols, b)
        n += ended[b]
    return n


@njit(cache=False, _nrt=False)
def open_shops(st, f, cols, rng) -> None:
    for b in range(f.active.shape[0]):
        if f.active[b]:
            shop_begin(st, f, cols, rng, b)


@njit(cache=False, _nrt=False)
def shop_requests(st, f, cols, games, actor, legal) -> None:
    """``legal_shop`` for the listed games: who acts, and the legal row."""
    for k in range(games.shape[0]):
        actor[k] = legal_shop(st, f, cols, games[k], legal[k])


@njit(cache=False, _nrt=False)
def apply_shops(st, f, cols, rng, games, actor, actions, what, value) -> None:
    """``apply_shop`` for the listed games; ``what[k], value[k]``: what it did (the replay events)."""
    for k in range(games.shape[0]):
        what[k], value[k] = apply_shop(st, f, cols, rng, games[k], actor[k], actions[k])


DRIVERS = ("setup_games", "spawn_creeps", "ready_heroes", "draw_all", "refresh_all", "check_victories",
           "snapshot_all", "end_rounds", "open_shops", "shop_requests", "apply_shops")
_CACHED: list[ModuleType] = []


def cached() -> ModuleType:
    """The drivers with their machine code cached across processes (the module's docstring);
    this module itself when the cache directory cannot be written."""
    if not _CACHED:
        _CACHED.append(_load())
    return _CACHED[0]


def _load() -> ModuleType:
    here = sys.modules[__name__]
    functions = [getattr(getattr(here, name), "py_func", getattr(here, name)) for name in DRIVERS]
    frozen = "".join(f"# frozen: {line}\n" for line in frozen_constants([], functions))
    text = frozen + Path(__file__).read_text().replace("cache=False", "cache=True")
    digest = engine_hash(text, dependency_files([], functions))
    # one name per source tree, so that worktrees and installs sharing a cache do not prune each other
    label = "lanes_drivers_" + hashlib.sha256(str(Path(__file__).resolve().parent).encode()).hexdigest()[:8]
    root = cache_root()
    path = engine_path(root, label, digest)
    try:
        write_engine(path, text)
    except EngineCacheError:
        return here
    module = import_engine(path)
    prune(root, label, digest)
    return module

"""``--threads``: a chunk played by the compiled game loop on several threads of one process.

DESIGN.md "Threads": results identical for any number of threads. The engine's ``advance`` runs
without the GIL (``nogil=True``), so Python threads run it at once, each over its own games with
its own resolution machine (the ruleset's ``thread_args``). Python-side only: nothing here is
compiled (the engine's name hashes every file of ``ecs/compiled/``, and this is not its business).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

MAX_THREADS = 8  # ``--threads`` at most (the machine has 2 cores; more only costs memory)
THREADS_ENV = "BATTLESIM_THREADS"  # ``--threads``: set by the CLI, so worker processes inherit it


def threads() -> int:
    """Threads each process plays a chunk on (``--threads``, DESIGN.md "Threads"): 1 unless set."""
    try:
        return max(1, min(MAX_THREADS, int(os.environ.get(THREADS_ENV, "1"))))
    except ValueError:
        return 1


def default_threads(workers: int) -> int:
    """``--threads`` when not given: the cores this process may run on, shared among ``workers``
    local processes (a machine's cores are the speed a user expects from one command); 1 when the
    workers are elsewhere (``workers`` 0: Ray sizes its own)."""
    if workers <= 0:
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(MAX_THREADS, cores // workers))


def set_threads(n: int) -> None:
    """``--threads n`` for this process and the worker processes it starts."""
    os.environ[THREADS_ENV] = str(int(n))


_POOL: list = []  # one thread pool per process, grown on demand


def _pool(n: int) -> Any:
    """This process's thread pool, with room for ``n`` threads."""
    from concurrent.futures import ThreadPoolExecutor

    if not _POOL or _POOL[0]._max_workers < n:
        _POOL[:] = [ThreadPoolExecutor(max_workers=n, thread_name_prefix="battlesim-advance")]
    return _POOL[0]


def blocks(rows: np.ndarray, n: int) -> list[np.ndarray]:
    """``rows`` cut into ``n`` consecutive blocks (sizes differ by at most one), each a contiguous
    array. Consecutive, not every n-th: games b and b + 1 share cache lines in every per-game
    array (``pc[b]``, a game's round, gold...), and two threads writing neighbouring rows would
    pass those lines back and forth on every write. Contiguous: a strided slice is another array
    type to numba, a second compile of a whole game loop."""
    bounds = np.linspace(0, len(rows), n + 1).astype(np.int64)
    return [np.ascontiguousarray(rows[bounds[t]:bounds[t + 1]]) for t in range(n)]


def over_threads(play: Callable[[np.ndarray, int], Any], games: np.ndarray, n: int) -> list:
    """``play(part, t)`` on ``n`` threads at once, thread t with the t-th of ``n`` consecutive blocks
    of ``games`` (``blocks``); one call in this thread when ``n`` is 1. ``play`` must release the
    GIL (``nogil=True``) and give thread t its own scratch, so a game depends only on its own rows
    (DESIGN.md "Threads"): the results are the same for any ``n``. Returns each thread's return
    value, in thread order."""
    n = max(1, min(int(n), len(games)))
    if n == 1:
        return [play(games, 0)]
    parts = blocks(games, n)
    pool = _pool(n)
    return [f.result() for f in [pool.submit(play, parts[t], t) for t in range(n)]]


def run_threads(advance: Callable, Ls: Sequence[Any], games: np.ndarray, stop: int, actions: np.ndarray) -> int:
    """``advance`` on ``len(Ls)`` threads: thread t runs the t-th block of ``games`` with its own
    ``Ls[t]`` (the same World, its own resolution machine, its own rollout game). A game touches
    only its own rows, so the results are ``advance``'s for any number of threads (DESIGN.md
    "Threads"). Why threads and not ``prange``: numba's parallel loop cannot take the per-thread
    tuple of ``LoopArgs`` (a tuple of named tuples of arrays is not a gufunc argument), and a
    second compile of the whole loop under ``parallel=True`` cost minutes; ``advance`` runs
    without the GIL, so Python threads run it at once."""
    n = max(1, min(len(Ls), len(games)))  # over_threads' n: each thread's actions are its games'
    per = blocks(actions, n) if actions.shape[0] == games.shape[0] else [actions[:0]] * n
    return sum(int(r) for r in over_threads(lambda part, t: advance(Ls[t], part, stop, per[t]), games, n))

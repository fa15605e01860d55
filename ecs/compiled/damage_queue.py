"""The per-game damage queue the compiled damage stages read and write.

DESIGN.md "Damage pipeline": all damage goes through one pipeline over a per-game queue. The
queue of a batch is one ``int64[B, Q, NF]`` array (one row per damage instance, its fields
below) and ``qlen: int64[B]``, how many rows each game has. One grouped array rather than a
field per array: numba increfs every array argument on every call (DESIGN.md "Rules of the
road"). The fields are those of ``battlesim.ecs.damage.DamageBatch``, one game at a time.

A reaction (retaliate, lifesteal...) that deals damage pushes a row; the dispatcher runs the
pushed rows as the next wave, until the queue is quiet or ``MAX_WAVES`` (a bound on chains
of reactions) is reached.
"""

from __future__ import annotations

import numpy as np
from numba import njit

SOURCE, TARGET, AMOUNT, KIND, DEALT, EXCESS = 0, 1, 2, 3, 4, 5  # the fields of a row
NF = 6  # fields per row
MAX_WAVES = 64  # reactions to reactions, at most this deep: the dispatcher then returns -1


def new_queue(n_games: int, capacity: int) -> tuple[np.ndarray, np.ndarray]:
    """An empty queue for a batch: ``(queue int64[B, capacity, NF], qlen int64[B])``,
    allocated once per chunk (never in hot code)."""
    return np.zeros((n_games, capacity, NF), dtype=np.int64), np.zeros(n_games, dtype=np.int64)


@njit(cache=True)
def push(queue: np.ndarray, qlen: np.ndarray, b: int, source: int, target: int, amount: int, kind: int) -> bool:
    """Append a damage instance to game b's queue; False (nothing appended) when it is full,
    which the caller reports as an error naming the game's seed."""
    n = qlen[b]
    if n >= queue.shape[1]:
        return False
    queue[b, n, SOURCE] = source
    queue[b, n, TARGET] = target
    queue[b, n, AMOUNT] = amount
    queue[b, n, KIND] = kind
    queue[b, n, DEALT] = 0
    queue[b, n, EXCESS] = 0
    qlen[b] = n + 1
    return True

"""The per-game damage queue the compiled damage stages read and write.

DESIGN.md "Damage pipeline": all damage goes through one pipeline over a per-game queue. The
queue of a batch is one ``int64[B, Q, NF]`` array (one row per damage instance, its fields
below) and ``qlen: int64[B]``, how many rows each game has. One grouped array rather than a
field per array: numba increfs every array argument on every call (DESIGN.md "Rules of the
road"). The fields are those of ``battlesim.ecs.damage.DamageBatch``, one game at a time.

A reaction (retaliate, overflow...) that deals damage pushes rows; as soon as the stage has
gone over every row, the dispatcher runs the whole pipeline on the pushed rows (depth first),
then goes on with the next stage. That is the numpy pipeline's order exactly: its retaliate
calls ``world.pipeline.run`` on one batch of every answer, before overflow and anchor_falls
of the batch that set it off (the order decides, e.g., whether an anchor hit twice becomes an
essence before or after the second hit). The dispatcher keeps its place in a stack per game
(``stack: int64[B, MAX_DEPTH, 3]``: rows lo, hi and the next stage of each level) rather than
recursing: numba cannot load a recursive function from its cache. Chains of reactions are
bounded by ``MAX_DEPTH``;
a push into a full queue loses nothing silently: ``qlen`` goes past the capacity, and the
dispatcher stops with ``QUEUE_FULL``. Both errors stop the game naming its seed (the caller).
"""

from __future__ import annotations

import numpy as np
from numba import njit

SOURCE, TARGET, AMOUNT, KIND, DEALT, EXCESS = 0, 1, 2, 3, 4, 5  # the fields of a row
NF = 6  # fields per row
MAX_DEPTH = 32  # reactions to reactions, at most this deep
OK, TOO_DEEP, QUEUE_FULL = 0, -1, -2  # what the dispatcher returns
LO, HI, NEXT = 0, 1, 2  # the fields of a level of the dispatcher's stack


def new_queue(n_games: int, capacity: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An empty queue for a batch: ``(queue int64[B, capacity, NF], qlen int64[B], stack
    int64[B, MAX_DEPTH, 3])``, allocated once per chunk (never in hot code)."""
    return (np.zeros((n_games, capacity, NF), dtype=np.int64), np.zeros(n_games, dtype=np.int64),
            np.zeros((n_games, MAX_DEPTH, 3), dtype=np.int64))


@njit(cache=True)
def push(queue: np.ndarray, qlen: np.ndarray, b: int, source: int, target: int, amount: int, kind: int) -> bool:
    """Append a damage instance to game b's queue. When it is full nothing is written, qlen
    still grows past the capacity (the dispatcher then stops with QUEUE_FULL) and it returns False."""
    n = qlen[b]
    if n >= queue.shape[1]:
        qlen[b] = n + 1
        return False
    queue[b, n, SOURCE] = source
    queue[b, n, TARGET] = target
    queue[b, n, AMOUNT] = amount
    queue[b, n, KIND] = kind
    queue[b, n, DEALT] = 0
    queue[b, n, EXCESS] = 0
    qlen[b] = n + 1
    return True

"""A thread's working space for the grid kernels (``GridWork``): the per-cell arrays the legal
mask and the actions fill and read within one call (line-of-sight distances, move costs, the
breadth-first queue, a walked path), made once per batch and thread instead of once
per call.

Why: a kernel that allocates needs numba's reference counting, and with it every array read out
of a tuple argument (the World, the fields, the board) is an atomic increment and decrement;
kernels that allocate nothing run without it (``_nrt=False``; docs/grid-speed.md). Nothing here
is game state: each call overwrites what it reads before reading it, so one ``GridWork`` serves
every game a thread plays, one after another, and any nesting of calls (the lookahead's)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class GridWork(NamedTuple):
    """Per-cell scratch (C = the board's cells) for one thread."""

    dist: np.ndarray  # int16[C]: the active unit's line-of-sight distances (board.los_distance_into)
    cost: np.ndarray  # int16[C]: the active unit's move costs (board.move_costs_into)
    queue: np.ndarray  # int16[C]: the breadth-first queue of either
    queued: np.ndarray  # bool[C]: the move-cost queue's flags
    spots: np.ndarray  # bool[3, C]: the cells a hire, an item and a trap may go to (rules.legal_mask)
    path: np.ndarray  # int16[C]: a walked path, destination first (apply.walk)


def new_work(cells: int) -> GridWork:
    """The working space for a board of ``cells`` cells."""
    i16 = np.zeros((4, cells), dtype=np.int16)
    return GridWork(i16[0], i16[1], i16[2], np.zeros(cells, dtype=np.bool_), np.zeros((3, cells), dtype=np.bool_),
                    i16[3])

"""A thread's working space for the grid kernels (``GridWork``): the per-cell arrays the legal
mask and the actions fill and read within one call (line-of-sight distances, move costs, the
breadth-first queue, a walked path), made once per batch and thread instead of once
per call.

Why: a kernel that allocates needs numba's reference counting, and with it every array read out
of a tuple argument (the World, the fields, the board) is an atomic increment and decrement;
kernels that allocate nothing run without it (``_nrt=False``; docs/grid-speed.md). Nothing here
is game state: each call overwrites what it reads before reading it, so one ``GridWork`` serves
every game a thread plays, one after another, and any nesting of calls (the lookahead's). The one
exception is marked: the move costs are kept from the legal mask to the move it allows
(``costs_of``, ``rules.move_costs_of``), and forgotten by every action and by whatever else
changes a game (``forget_move_costs``)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit


class GridWork(NamedTuple):
    """Per-cell scratch (C = the board's cells) for one thread."""

    dist: np.ndarray  # int16[C]: the active unit's line-of-sight distances (board.los_distance_into)
    seen: np.ndarray  # int16[C]: the cells those give a distance, nearest first
    cost: np.ndarray  # int16[C]: the active unit's move costs (board.move_costs_into)
    queue: np.ndarray  # int16[C]: the breadth-first queue of either
    queued: np.ndarray  # bool[C]: the move-cost queue's flags
    spots: np.ndarray  # bool[3, C]: the cells a hire, an item and a trap may go to (rules.legal_mask)
    path: np.ndarray  # int16[C]: a walked path, destination first (apply.walk)
    costs_of: np.ndarray  # int64[2]: (game, unit) whose move costs ``cost`` holds, the game as it is now; -1 none


def new_work(cells: int) -> GridWork:
    """The working space for a board of ``cells`` cells."""
    i16 = np.zeros((5, cells), dtype=np.int16)
    return GridWork(i16[0], i16[4], i16[1], i16[2], np.zeros(cells, dtype=np.bool_),
                    np.zeros((3, cells), dtype=np.bool_), i16[3], np.full(2, -1, dtype=np.int64))


@njit(cache=True, _nrt=False, inline="always")
def forget_move_costs(k: GridWork) -> None:
    """``k.cost`` no longer holds any unit's move costs: the game they were computed for has
    changed (any action: ``apply.apply_action``; the lookahead putting a game back; a game or a
    scenario set up)."""
    k.costs_of[0] = -1
    k.costs_of[1] = -1

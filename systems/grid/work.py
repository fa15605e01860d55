"""A thread's working space for the grid kernels (``GridWork``): the arrays the legal mask, the
actions and the agents fill and read within one call (line-of-sight distances, move costs, the
breadth-first queue, a walked path; greedy's unit table and scores, the lookahead's scores and
saved game), made once per batch and thread instead of once per call.

Why: a kernel that allocates needs numba's reference counting, and with it every array read out
of a tuple argument (the World, the fields, the board) is an atomic increment and decrement;
kernels that allocate nothing run without it (``_nrt=False``; docs/grid-speed.md). Nothing here
is game state: each call overwrites what it reads before reading it, so one ``GridWork`` serves
every game a thread plays, one after another, and any nesting of calls (the lookahead's). The one
exception is marked: the move costs are kept from the legal mask to the move it allows
(``costs_of``, ``rules.move_costs_of``), and forgotten by every action and by whatever else
changes a game (``forget_move_costs``)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from battlesim.systems.grid.agents import U_FIELDS


class SavedGame(NamedTuple):
    """One game's rows (``lookahead.save``): every row an action may change, each as a 2-D array
    (a row of the World's planes is [columns, slots]; a per-game row of a field is [1, n])."""

    i16: np.ndarray  # [int16 columns, S]
    i8: np.ndarray  # [int8 columns, S]
    flags: np.ndarray  # [tag columns, S]
    alive: np.ndarray  # [1, S]
    g: np.ndarray  # [1, GAME_FIELDS]
    hand: np.ndarray  # [2, hand_limit]
    deck: np.ndarray  # [2, DECK_MAX]
    cem: np.ndarray  # [2, DECK_MAX]
    abil: np.ndarray  # [S, K, AB_FIELDS]
    trap: np.ndarray  # [C, 2]
    rng: np.ndarray  # [1, 2]
    log: np.ndarray  # [LOG_MAX, LOG_FIELDS]
    slot_row: np.ndarray  # [1, S]
    occ: np.ndarray  # [1, C]
    who: np.ndarray  # [1, C]


class GridWork(NamedTuple):
    """Per-cell scratch (C = the board's cells) for one thread: what the legal mask and the actions
    take (every call of theirs passes each of its arrays, so it holds only what they need)."""

    dist: np.ndarray  # int16[C]: the active unit's line-of-sight distances (board.los_distance_into)
    cost: np.ndarray  # int16[C]: the active unit's move costs (board.move_costs_into)
    queue: np.ndarray  # int16[C]: the breadth-first queue of either
    queued: np.ndarray  # bool[C]: the move-cost queue's flags
    spots: np.ndarray  # bool[3, C]: the cells a hire, an item and a trap may go to (rules.legal_mask)
    path: np.ndarray  # int16[C]: a walked path, destination first (apply.walk)
    costs_of: np.ndarray  # int64[2]: (game, unit) whose move costs ``cost`` holds, the game as it is now; -1 none


class AgentWork(NamedTuple):
    """The agents' scratch for one thread (S = unit slots, A = the action table), with the mask's
    and the actions' (``k``). Separate from ``GridWork`` so that the random agent's calls of the
    mask and of ``apply_action`` do not pass these arrays too."""

    k: GridWork
    units: np.ndarray  # int64[S, U_FIELDS]: greedy's unit table (agents.unit_table)
    near: np.ndarray  # int64[C]: each cell's steps to the nearest visible enemy (agents.greedy_scores)
    scores: np.ndarray  # float64[A]: greedy's scores (agents.greedy_action)
    look_scores: np.ndarray  # float64[A]: the lookahead's scores of its candidates (lookahead.lookahead_action)
    pick: np.ndarray  # bool[A]: the lookahead's candidates
    follow: np.ndarray  # bool[A]: the legal mask of the greedy rollout after a candidate
    saved: SavedGame  # the game the lookahead puts back after each candidate


def new_work(cells: int) -> GridWork:
    """The mask's and the actions' working space for a board of ``cells`` cells."""
    i16 = np.zeros((4, cells), dtype=np.int16)
    return GridWork(i16[0], i16[1], i16[2], np.zeros(cells, dtype=np.bool_), np.zeros((3, cells), dtype=np.bool_),
                    i16[3], np.full(2, -1, dtype=np.int64))


def new_agent_work(ws: Any, f: Any, actions: int) -> AgentWork:
    """The agents' working space for the games of the World ``ws`` (as kernels see it) with fields
    ``f`` (``state.GridFields``) and an action table of ``actions`` entries."""
    cells, slots = f.occ.shape[1], ws.alive.shape[1]
    saved = SavedGame(*(np.zeros_like(a) for a in (ws.i16[:, 0, :], ws.i8[:, 0, :], ws.flags[:, 0, :])),
                      *(np.zeros_like(a[:1]) for a in (ws.alive, f.g)),
                      *(np.zeros_like(a[0]) for a in (f.hand, f.deck, f.cem, f.abil, f.trap)),
                      np.zeros_like(f.rng[:1]), np.zeros_like(f.log[0]),
                      *(np.zeros_like(a[:1]) for a in (f.slot_row, f.occ, f.who)))
    return AgentWork(new_work(cells), np.zeros((slots, len(U_FIELDS)), dtype=np.int64),
                     np.zeros(cells, dtype=np.int64), np.zeros(actions), np.zeros(actions),
                     np.zeros(actions, dtype=np.bool_), np.zeros(actions, dtype=np.bool_), saved)


@njit(cache=True, _nrt=False, inline="always")
def forget_move_costs(k: GridWork) -> None:
    """``k.cost`` no longer holds any unit's move costs: the game they were computed for has
    changed (any action: ``apply.apply_action``; the lookahead putting a game back; a game or a
    scenario set up)."""
    k.costs_of[0] = -1
    k.costs_of[1] = -1

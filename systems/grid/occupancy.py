"""Who stands where, as game state: each game's occupancy map (``f.occ``: the side on each cell,
``f.who``: the slot on it; -1 empty), kept by the one function that moves a unit (``move_unit``:
hires, walks, jumps, pushes) and by deaths (``vacate``), instead of rebuilt from the units every
time a rule asks (grid.md 4.2.4: "cannot move to a space occupied by another unit or hero", so
one unit per cell).

Whoever sets units down other than by these (a scenario's setup, the lookahead putting a game
back) rebuilds it with ``occupancy_into``; the invariants (play.py ``violation``) check after
every action that the kept map is the rebuilt one. Compiled, no allocation (``_nrt=False``).
"""

from __future__ import annotations

from numba import njit

from battlesim.systems.grid import kernel_cache
from battlesim.systems.grid.board import EMPTY
from battlesim.systems.grid.state import CELL, SIDE


@njit(cache=True, _nrt=False)
def occupancy_into(w, cols, b, occ, who):
    """grid.md 4.2.4, one unit per space: ``occ[c]`` (int8[C]) the side on cell c or -1, ``who[c]``
    (int16[C]) the slot on it or -1, rebuilt from game b's living units."""
    occ[:] = EMPTY
    who[:] = -1
    for s in range(w.alive.shape[1]):
        if w.alive[b, s]:
            c = w.i16[cols[CELL], b, s]
            occ[c] = w.i8[cols[SIDE], b, s]
            who[c] = s


@njit(cache=True, _nrt=False)
def vacate(f, b, s, c):
    """Unit s leaves cell c (a death, grid.md 4.4.4 "A unit or hero is killed", or a step away): the
    cell is empty unless another unit stands on it."""
    if f.who[b, c] == s:
        f.occ[b, c] = EMPTY
        f.who[b, c] = -1


@njit(cache=True, _nrt=False)
def move_unit(w, cols, f, b, s, c):
    """Unit s (its side set) now stands on cell c, and the occupancy map says so. A walk passes
    through a friend's cell (grid.md 4.2.4 forbids only stopping there): the friend keeps it."""
    old = w.i16[cols[CELL], b, s]
    if old >= 0:
        vacate(f, b, s, old)
    w.i16[cols[CELL], b, s] = c
    if f.who[b, c] < 0:
        f.occ[b, c] = w.i8[cols[SIDE], b, s]
        f.who[b, c] = s


kernel_cache.check("occupancy", kernel_cache.kernels_of(globals(), __name__))

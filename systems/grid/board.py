"""The square grid: cells, neighbours, movement costs, line of sight, forced moves.

Cells are ids ``c = y * width + x`` (x the column, y the row; side 0's home rows are y = 0..,
side 1's y = height-1..; spec §2 "Board"). A ``Board`` holds the tables computed once per
(size, map): coordinates, the four orthogonal neighbours, Manhattan distances, and the wall, web
and mana-pool masks. Everything else is a pure function of those arrays plus an occupancy array
``occ`` (int8[C]: -1 empty, else the side of the unit standing there), written in the subset of
Python numba compiles (loops over arrays, no dicts or recursion) and are ``@njit(cache=True)``:
the engine's compiled code calls them as they are, and the tests check the compiled code. Every
function it calls is in this file (numba checks only the defining file for staleness).

Movement (grid.md 4.2): steps are orthogonal (4.2.5 "cannot move diagonally unless specified
otherwise"); a step costs 1 MV, 2 when it leaves a web (4.2.8) unless the unit flies (4.2.9);
own units are passed (4.2.2), never stood on (4.2.4); enemy units are never passed (4.2.6);
walls are neither passed nor stood on unless the unit is a rogue or flies (4.2.7).

Line of sight (grid.md 4.4.1 "Line of sight (LoS) is determined by counting the range (moving
around obstacles or enemies)"; 4.4.4 "diagonal spaces are never counted"): the length of the
shortest orthogonal path from the attacker to the target through cells that are not walls and
hold no enemy of the attacker; the target's cell ends the path. Own units and webs do not block;
walls block every class (a rogue walks through a wall, it does not see through it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

INF = 32767  # "unreachable" in int16 cost and distance maps
EMPTY = -1
# direction d: (dx, dy) = DX[d], DY[d]: right, left, down (y + 1), up (y - 1)
DX = np.array([1, -1, 0, 0], dtype=np.int8)
DY = np.array([0, 0, 1, -1], dtype=np.int8)


@dataclass(frozen=True)
class Board:
    """The static tables of one board size and map (never changed during a game)."""

    width: int
    height: int
    xs: np.ndarray  # int16[C]
    ys: np.ndarray  # int16[C]
    neighbours: np.ndarray  # int16[C, 4]: cell one step in direction d, -1 off the board
    manhattan: np.ndarray  # int16[C, C]
    wall: np.ndarray  # bool[C]
    web: np.ndarray  # bool[C]
    mana: np.ndarray  # bool[C]

    @property
    def cells(self) -> int:
        return self.width * self.height

    def cell(self, x: int, y: int) -> int:
        return cell_id(x, y, self.width)

    def xy(self, c: int) -> tuple[int, int]:
        return int(self.xs[c]), int(self.ys[c])


@njit(cache=True, _nrt=False)
def cell_id(x: int, y: int, width: int) -> int:
    """The id of cell (x, y)."""
    return y * width + x


def make_board(width: int, height: int, walls=(), webs=(), mana_pools=()) -> Board:
    """The tables of a ``width`` x ``height`` board with the given feature cells ([x, y] pairs)."""
    n = width * height
    xs = np.array([c % width for c in range(n)], dtype=np.int16)
    ys = np.array([c // width for c in range(n)], dtype=np.int16)
    nb = np.full((n, 4), -1, dtype=np.int16)
    for c in range(n):
        for d in range(4):
            x, y = xs[c] + DX[d], ys[c] + DY[d]
            if 0 <= x < width and 0 <= y < height:
                nb[c, d] = y * width + x
    man = (np.abs(xs[:, None] - xs[None, :]) + np.abs(ys[:, None] - ys[None, :])).astype(np.int16)

    def mask(cells) -> np.ndarray:
        m = np.zeros(n, dtype=np.bool_)
        for x, y in cells:
            m[y * width + x] = True
        return m

    for t in (xs, ys, nb, man):
        t.setflags(write=False)
    return Board(width, height, xs, ys, nb, man, mask(walls), mask(webs), mask(mana_pools))


@njit(cache=True, _nrt=False)
def rotate180(c: int, width: int, height: int) -> int:
    """The cell opposite ``c`` under a half turn of the board (maps are 180° symmetric)."""
    return (height - 1 - c // width) * width + (width - 1 - c % width)


@njit(cache=True)
def home_cells(side: int, width: int, height: int, rows: int) -> np.ndarray:
    """bool[C]: the ``rows`` home rows of ``side`` (side 0 at y = 0, side 1 at y = height - 1)."""
    m = np.zeros(width * height, dtype=np.bool_)
    for c in range(width * height):
        y = c // width
        m[c] = y < rows if side == 0 else y >= height - rows
    return m


@njit(cache=True, _nrt=False)
def step_cost(web: np.ndarray, src: int, flying: bool) -> int:
    """MV one orthogonal step out of ``src`` costs: 1, or 2 out of a web (4.2.8) unless flying (4.2.9)."""
    return 1 if flying or not web[src] else 2


@njit(cache=True)
def move_costs(neighbours: np.ndarray, wall: np.ndarray, web: np.ndarray, occ: np.ndarray,
               start: int, side: int, passes_walls: bool, flying: bool) -> np.ndarray:
    """int16[C]: the least MV that brings the unit at ``start`` to each cell (INF: no path).

    A cell is entered iff it holds no enemy (4.2.6) and is not a wall unless ``passes_walls``
    (rogue or flying, 4.2.7). Cells holding own units are passed (4.2.2) but are not
    destinations (``can_stop``). Costs are 1 or 2 per step: shortest paths by relaxation."""
    return move_costs_within(neighbours, wall, web, occ, start, side, passes_walls, flying, INF)


@njit(cache=True)
def move_costs_within(neighbours: np.ndarray, wall: np.ndarray, web: np.ndarray, occ: np.ndarray,
                      start: int, side: int, passes_walls: bool, flying: bool, limit: int) -> np.ndarray:
    """``move_costs`` exact for every cell whose cost is at most ``limit`` (a move with ``limit``
    MV left needs no other; larger costs may be left INF or above their least). A queue of the
    cells whose cost fell (each cell at most once in it at a time), so only the cells within
    ``limit`` are looked at, not every cell of the board each round; paths are not extended from
    a cell whose cost reached ``limit``. The least costs are unique, so the order of the queue
    does not change them."""
    n = neighbours.shape[0]
    cost = np.empty(n, dtype=np.int16)
    move_costs_into(neighbours, wall, web, occ, start, side, passes_walls, flying, limit, cost,
                    np.empty(n, dtype=np.int16), np.empty(n, dtype=np.bool_))
    return cost


@njit(cache=True, _nrt=False)
def move_costs_into(neighbours: np.ndarray, wall: np.ndarray, web: np.ndarray, occ: np.ndarray,
                    start: int, side: int, passes_walls: bool, flying: bool, limit: int, cost: np.ndarray,
                    queue: np.ndarray, queued: np.ndarray) -> None:
    """``move_costs_within`` into ``cost`` (int16[C]), with ``queue`` (int16[C]) and ``queued``
    (bool[C]) as its working space: no array allocated (the legal mask's scratch). A cell whose
    cost reached ``limit`` is given its cost but never queued: nothing within the limit lies
    beyond it (most cells a search reaches are on that edge; session 12)."""
    n = neighbours.shape[0]
    cost[:] = INF
    queued[:] = False
    cost[start] = 0
    if limit <= 0:
        return
    queue[0] = start
    queued[start] = True
    head, size = 0, 1
    while size > 0:
        c = queue[head]
        head = head + 1 if head + 1 < n else 0
        size -= 1
        queued[c] = False
        here = cost[c] + step_cost(web, c, flying)
        for d in range(4):
            nxt = neighbours[c, d]
            if nxt < 0 or (wall[nxt] and not passes_walls):
                continue
            if occ[nxt] != EMPTY and occ[nxt] != side:
                continue
            if here < cost[nxt]:
                cost[nxt] = here
                if here < limit and not queued[nxt]:
                    tail = head + size
                    queue[tail if tail < n else tail - n] = nxt
                    size += 1
                    queued[nxt] = True


@njit(cache=True, _nrt=False)
def can_stop(wall: np.ndarray, occ: np.ndarray, c: int, passes_walls: bool) -> bool:
    """A unit may end a move on ``c``: the cell is empty (4.2.4) and not a wall unless it may
    stand there (rogue or flying, 4.2.7)."""
    return occ[c] == EMPTY and (passes_walls or not wall[c])


@njit(cache=True)
def reachable(cost: np.ndarray, wall: np.ndarray, occ: np.ndarray, mv_left: int, passes_walls: bool) -> np.ndarray:
    """bool[C]: cells a ``move`` may end on with ``mv_left`` MV (4.2.1: "any number of spaces ...
    as they have MV points"; moving less is fine)."""
    out = np.zeros(cost.shape[0], dtype=np.bool_)
    for c in range(cost.shape[0]):
        out[c] = 0 < cost[c] <= mv_left and can_stop(wall, occ, c, passes_walls)
    return out


@njit(cache=True, _nrt=False)
def is_stuck(web: np.ndarray, c: int, mv_left: int, flying: bool) -> bool:
    """grid.md 4.2.10: "A unit or hero with only 1 MV that is on a space with a web obstacle is
    considered stuck and cannot move." (the same as 4.2.8's exit cost exceeding its MV)."""
    return web[c] and not flying and mv_left <= 1


@njit(cache=True)
def los_distance(neighbours: np.ndarray, wall: np.ndarray, occ: np.ndarray, start: int, side: int) -> np.ndarray:
    """int16[C]: the LoS distance from ``start`` for a unit of ``side`` (INF: no line of sight).

    Breadth-first over orthogonal steps through cells that are not walls and hold no enemy of
    ``side`` (hidden ones included: they still stand there). An enemy's cell gets its distance
    (it may be the target) but the path does not go on through it; walls get none."""
    return los_distance_within(neighbours, wall, occ, start, side, INF)


@njit(cache=True)
def los_distance_within(neighbours: np.ndarray, wall: np.ndarray, occ: np.ndarray, start: int, side: int,
                        limit: int) -> np.ndarray:
    """``los_distance`` exact for every cell at most ``limit`` away, the others INF: a unit
    sees no further than its longest range, so the search stops there."""
    n = neighbours.shape[0]
    dist = np.empty(n, dtype=np.int16)
    los_distance_into(neighbours, wall, occ, start, side, limit, dist, np.empty(n, dtype=np.int16))
    return dist


@njit(cache=True, _nrt=False)
def los_distance_into(neighbours: np.ndarray, wall: np.ndarray, occ: np.ndarray, start: int, side: int,
                      limit: int, dist: np.ndarray, queue: np.ndarray) -> None:
    """``los_distance_within`` into ``dist`` (int16[C]), ``queue`` (int16[C]) its working space:
    breadth first, so no path goes on from a cell ``limit`` away; only the cells a path goes on
    from are queued (not those ``limit`` away, not enemies': session 12)."""
    dist[:] = INF
    dist[start] = 0
    if limit <= 0:
        return
    head, tail = 0, 1
    queue[0] = start
    while head < tail:
        c = queue[head]
        head += 1
        here = dist[c] + 1
        goes_on = here < limit  # a path goes on from the cells reached now
        for d in range(4):
            nxt = neighbours[c, d]
            if nxt < 0 or wall[nxt] or dist[nxt] != INF:
                continue
            dist[nxt] = here
            if goes_on and (occ[nxt] == EMPTY or occ[nxt] == side):
                queue[tail] = nxt
                tail += 1


@njit(cache=True, _nrt=False)
def in_range(dist: np.ndarray, target: int, attack_range: int) -> bool:
    """grid.md 4.4.1: "A unit or hero must have a line of sight (LoS) before it can attack any
    card": the LoS distance is at most the range."""
    return dist[target] <= attack_range


@njit(cache=True)
def area_cells(manhattan: np.ndarray, centre: int, radius: int) -> np.ndarray:
    """bool[C]: the cells within ``radius`` orthogonal steps (Manhattan) of ``centre`` (AoE)."""
    return manhattan[centre] <= radius


@njit(cache=True, _nrt=False)
def jump_landing(neighbours: np.ndarray, wall: np.ndarray, web: np.ndarray, occ: np.ndarray,
                 start: int, d: int, mv_left: int, passes_walls: bool, flying: bool) -> int:
    """Op ``jump`` (grid.md 4.2.11): the cell two steps away in direction ``d``, over the middle
    cell (any unit or a web there is fine; a wall only for those who pass walls); -1 if not legal:
    off the board, the landing not a cell the unit may stop on, or the unit stuck in a web."""
    if is_stuck(web, start, mv_left, flying):
        return -1
    mid = neighbours[start, d]
    if mid < 0 or (wall[mid] and not passes_walls):
        return -1
    land = neighbours[mid, d]
    if land < 0 or not can_stop(wall, occ, land, passes_walls):
        return -1
    return land


@njit(cache=True, _nrt=False)
def push_destination(neighbours: np.ndarray, wall: np.ndarray, occ: np.ndarray,
                     pusher: int, target: int, amount: int, passes_walls: bool) -> int:
    """Op ``push`` (grid.md 4.2.13): the target, orthogonally adjacent to the pusher, moves
    ``amount`` cells directly away; every cell on the way must be empty and passable for it, the
    last one a cell it may stop on; -1 if not legal. No MV is spent; webs do not hold it."""
    d = direction_of(neighbours, pusher, target)
    if d < 0:
        return -1
    c = target
    for _ in range(amount):
        nxt = neighbours[c, d]
        if nxt < 0 or occ[nxt] != EMPTY or (wall[nxt] and not passes_walls):
            return -1
        c = nxt
    return c


@njit(cache=True, _nrt=False)
def direction_of(neighbours: np.ndarray, a: int, b: int) -> int:
    """The direction d with ``neighbours[a, d] == b``, -1 when b is not orthogonally adjacent."""
    for d in range(4):
        if neighbours[a, d] == b:
            return d
    return -1


@njit(cache=True, _nrt=False)
def rush_cells(neighbours: np.ndarray, wall: np.ndarray, web: np.ndarray, occ: np.ndarray,
               start: int, d: int, mv_left: int, passes_walls: bool, flying: bool,
               shoved_passes_walls: bool) -> tuple[int, int]:
    """Op ``rush`` (grid.md 4.2.3 "move an extra space while shoving a card out of its way"):
    (the rusher's new cell, the shoved unit's new cell or -1 when the step was empty), or
    (-1, -1) if not legal. The step costs no MV; a unit in the way is pushed one cell further,
    which must be possible (empty, passable for it)."""
    if is_stuck(web, start, mv_left, flying):
        return -1, -1
    to = neighbours[start, d]
    if to < 0 or (wall[to] and not passes_walls):
        return -1, -1
    if occ[to] == EMPTY:
        return int(to), -1
    shoved = push_destination(neighbours, wall, occ, start, to, 1, shoved_passes_walls)
    if shoved < 0:
        return -1, -1
    return int(to), int(shoved)


@njit(cache=True)
def teleport_targets(manhattan: np.ndarray, wall: np.ndarray, occ: np.ndarray, start: int, reach: int) -> np.ndarray:
    """Op ``teleport`` (grid.md 4.2.12): bool[C], the empty non-wall cells within ``reach``
    Manhattan steps (no path, no line of sight, no MV)."""
    out = np.zeros(occ.shape[0], dtype=np.bool_)
    for c in range(occ.shape[0]):
        out[c] = c != start and manhattan[start, c] <= reach and occ[c] == EMPTY and not wall[c]
    return out

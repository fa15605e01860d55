"""The hex map: 59 hexes in 9 columns, their ids, neighbours, distances and straight lines.

hex.md: "Must contain 59 hexes with 9 columns and 7 rows." and "The "half-hexes" on the edge of
the map do not count as playable hexes." The reading (spec §1, ledger I-1): flat-topped hexes,
offset coordinates ``(col, row)`` "odd-q" (odd columns drawn half a hex lower), even columns hold
rows 0-6, odd columns rows 0-5 (their half-hexes at both ends do not count): 5 x 7 + 4 x 6 = 59.

Everything the rules ask of the board is precomputed here once, as small numpy tables the
compiled core indexes (``NEIGHBOURS``, ``DIST``, ``LINE``, ``AWAY``, ``TOWARD``, ``RANK``, ``MIRROR``),
plus small pure functions over ``(col, row)`` that build them and that data loaders use. Range,
Cast Range and Movement count hexes by ``DIST`` (hex.md "This determines the distance (in terms
of hexes) ..."). Reachability (a frontier over these tables) is the engine's.
"""

from __future__ import annotations

import numpy as np

COLS = 9
ROWS = 7
N_HEXES = 59
# first id of each column: id = START[col] + row (even columns 7 hexes, odd columns 6)
START = (0, 7, 13, 20, 26, 33, 39, 46, 52)
CENTRE = (4, 3)
OFF_BOARD = -1  # LINE / AWAY: the next hex would leave the map (a push there destroys: hex.md "Pushed X")
NOT_IN_LINE = -2  # LINE: the source is not adjacent, so "behind" is not defined
MAX_DISTANCE = 10


def row_max(col: int) -> int:
    """The last whole row of a column: 6 for even columns, 5 for odd ones (the half-hexes of odd
    columns sit below row 5 and above row 0 and "do not count as playable hexes")."""
    return ROWS - 1 if col % 2 == 0 else ROWS - 2


def on_board(col: int, row: int) -> bool:
    """True iff ``(col, row)`` is one of the 59 playable hexes."""
    return 0 <= col < COLS and 0 <= row <= row_max(col)


def hex_id(col: int, row: int) -> int:
    """The flat id 0..58 of a hex (``START[col] + row``); ValueError off the board."""
    if not on_board(col, row):
        raise ValueError(f"({col}, {row}) is not a hex of the map")
    return START[col] + row


def coords(h: int) -> tuple[int, int]:
    """``(col, row)`` of hex id ``h``."""
    if not 0 <= h < N_HEXES:
        raise ValueError(f"hex id {h} is not in 0..{N_HEXES - 1}")
    col = max(c for c in range(COLS) if START[c] <= h)
    return col, h - START[col]


def axial(col: int, row: int) -> tuple[int, int]:
    """Axial ``(q, a)`` of an odd-q offset hex: distances and straight lines are simple there."""
    return col, row - (col - (col & 1)) // 2


def from_axial(q: int, a: int) -> tuple[int, int]:
    """Offset ``(col, row)`` of axial ``(q, a)`` (may be off the board)."""
    return q, a + (q - (q & 1)) // 2


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Hexes between two hexes, counted as Range, Cast Range and Movement count them."""
    q1, r1 = axial(*a)
    q2, r2 = axial(*b)
    dq, da = q2 - q1, r2 - r1
    return (abs(dq) + abs(da) + abs(dq + da)) // 2


def neighbours(col: int, row: int) -> list[tuple[int, int]]:
    """The on-board hexes adjacent to ``(col, row)`` (distance 1), in the spec's order."""
    if col % 2 == 0:
        cand = [(col + 1, row - 1), (col + 1, row), (col - 1, row - 1), (col - 1, row), (col, row - 1), (col, row + 1)]
    else:
        cand = [(col + 1, row), (col + 1, row + 1), (col - 1, row), (col - 1, row + 1), (col, row - 1), (col, row + 1)]
    return [(c, r) for c, r in cand if on_board(c, r)]


def behind(source: tuple[int, int], target: tuple[int, int]) -> tuple[int, int] | None:
    """The hex behind ``target`` seen from adjacent ``source`` (hex.md "Back": "the hex behind a
    unit, in line with another unit or hex"; I-4): ``T + (T - S)`` in axial coordinates. None
    when the two are not adjacent; the result may be off the board (a push there destroys)."""
    if distance(source, target) != 1:
        return None
    qs, as_ = axial(*source)
    qt, at = axial(*target)
    return from_axial(2 * qt - qs, 2 * at - as_)


def rank(side: int, col: int, row: int) -> int:
    """Rows counted from ``side``'s own edge (I-2): side 0's edge is row 0, side 1's the last row."""
    return row if side == 0 else row_max(col) - row


def from_rank(side: int, col: int, rk: int) -> tuple[int, int]:
    """The ``(col, row)`` of ``(col, rank)`` seen from ``side`` (blitz kingdoms name hexes so)."""
    return (col, rk) if side == 0 else (col, row_max(col) - rk)


def mirror(col: int, row: int) -> tuple[int, int]:
    """The hex side 1 sees where side 0 sees ``(col, row)``: ``(col, rowmax(col) - row)``."""
    return col, row_max(col) - row


def deploys_on(side: int, col: int, row: int) -> bool:
    """hex.md: "A player may only place units on the two rows of hexes closest to them." (I-2)"""
    return on_board(col, row) and rank(side, col, row) <= 1


def _all_six(col: int, row: int) -> list[tuple[int, int]]:
    """The six hexes around ``(col, row)``, on the board or not (a push may leave the map)."""
    q, a = axial(col, row)
    return [from_axial(q + dq, a + da) for dq, da in ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))]


def _step_tables(sign: int) -> np.ndarray:
    """``[source, at]`` -> the lowest-id on-board neighbour of ``at`` one hex farther from (sign
    +1) or nearer to (sign -1) ``source``; else -1: for sign +1 only off-map hexes are farther
    (OFF_BOARD: the push leaves the map; on the unbounded grid a farther hex always exists), for
    sign -1 ``at`` is the source itself (a shortest path between two hexes of this map never
    leaves it: tested)."""
    out = np.full((N_HEXES, N_HEXES), -1, dtype=np.int8)
    for s, src in enumerate(HEXES):
        for h, at in enumerate(HEXES):
            d = distance(src, at)
            step = [n for n in _all_six(*at) if distance(src, n) == d + sign]
            inside = [hex_id(*n) for n in step if on_board(*n)]
            if inside:
                out[s, h] = min(inside)  # I-47: "you choose" -> the lowest hex id until a card needs the choice
    return out


HEXES: tuple[tuple[int, int], ...] = tuple((c, r) for c in range(COLS) for r in range(row_max(c) + 1))
NEIGHBOUR_LISTS: tuple[tuple[int, ...], ...] = tuple(tuple(hex_id(*n) for n in neighbours(*h)) for h in HEXES)
CENTRE_ID = hex_id(*CENTRE)

# NEIGHBOURS[h, k]: the k-th adjacent hex id (-1 = off the board), in the order of ``neighbours``
# over the full six directions (so column k is not a fixed direction: use LINE for straight lines).
NEIGHBOURS = np.full((N_HEXES, 6), -1, dtype=np.int8)
for _h, _ns in enumerate(NEIGHBOUR_LISTS):
    NEIGHBOURS[_h, : len(_ns)] = _ns

DIST = np.array([[distance(a, b) for b in HEXES] for a in HEXES], dtype=np.int8)

# LINE[s, t]: the hex behind t seen from adjacent s (a push from s continues along it), OFF_BOARD
# when it is off the map, NOT_IN_LINE when s and t are not adjacent (spec §1 LINE).
LINE = np.full((N_HEXES, N_HEXES), NOT_IN_LINE, dtype=np.int8)
for _s, _a in enumerate(HEXES):
    for _t in NEIGHBOUR_LISTS[_s]:
        _b = behind(_a, HEXES[_t])
        LINE[_s, _t] = hex_id(*_b) if _b is not None and on_board(*_b) else OFF_BOARD

# AWAY[s, h]: the next hex of a push from a non-adjacent source: one step farther from s (hex.md
# "Away From X": "each movement must take that unit further from X, if possible"), lowest id on a
# tie; OFF_BOARD when only off-map hexes are farther (pushed out: destroyed); adjacent sources use LINE.
AWAY = _step_tables(+1)
# TOWARD[s, h]: the next hex of a pull toward s, one step nearer along a shortest path (hex.md
# "Pulled X": "The pulled unit must be pulled along the shortest possible path. If two adjacent
# hexes qualify, you choose which hex."), lowest id on a tie; -1 when h is s.
TOWARD = _step_tables(-1)

# RANK[side, h]: rows from the side's own edge; DEPLOY[side, h]: may place units there.
RANK = np.array([[rank(s, *h) for h in HEXES] for s in (0, 1)], dtype=np.int8)
DEPLOY = RANK <= 1
# MIRROR[h]: the same hex seen from the other side.
MIRROR = np.array([hex_id(*mirror(*h)) for h in HEXES], dtype=np.int8)

# BY_DISTANCE[h]: every hex, the nearest to h first (ids ascending at one distance); WITHIN[h, r]:
# how many lie within r of h. A kernel that visits "the hexes within r" reads
# BY_DISTANCE[h, :WITHIN[h, r]] instead of testing all 59 (r capped at MAX_DISTANCE).
BY_DISTANCE = np.argsort(DIST, axis=1, kind="stable").astype(np.int8)
WITHIN = np.array([[np.count_nonzero(DIST[h] <= r) for r in range(MAX_DISTANCE + 1)] for h in range(N_HEXES)],
                  dtype=np.int8)
assert int(DIST.max()) <= MAX_DISTANCE

for _t in (NEIGHBOURS, DIST, LINE, AWAY, TOWARD, RANK, DEPLOY, MIRROR, BY_DISTANCE, WITHIN):
    _t.setflags(write=False)  # shared by every game and kernel: never written


def triads_adjacent_to(col: int, row: int) -> list[tuple[int, int, int]]:
    """Every triad adjacent to a unit on ``(col, row)`` (hex.md "Triad": "A group of three hexes
    adjacent to one another. A triad is considered adjacent to a unit when at least one of its
    three hexes is adjacent to that unit."), as sorted id triples. A triad holding the unit's own
    hex is not "adjacent to" it (the unit would hit itself), so it is left out."""
    me = hex_id(col, row)
    near = set(NEIGHBOUR_LISTS[me])
    found: set[tuple[int, int, int]] = set()
    for a in range(N_HEXES):
        for b in NEIGHBOUR_LISTS[a]:
            for c in NEIGHBOUR_LISTS[b]:
                if c != a and DIST[a, c] == 1 and {a, b, c} & near and me not in (a, b, c):
                    found.add(tuple(sorted((a, b, c))))
    return sorted(found)


def is_chain(hexes: list[tuple[int, int]]) -> bool:
    """hex.md "Chained": unique hexes, each adjacent to the next."""
    ids = [hex_id(*h) for h in hexes]
    return len(set(ids)) == len(ids) and all(DIST[a, b] == 1 for a, b in zip(ids, ids[1:], strict=False))


def shortest_path(start: tuple[int, int], goal: tuple[int, int]) -> list[tuple[int, int]]:
    """The hexes entered walking from ``start`` to ``goal`` on an empty board, one shortest path,
    lowest hex id at each fork (I-47; I-23's "deterministic shortest path" before passability,
    which the engine adds). ``[]`` when start is goal."""
    g, h = hex_id(*goal), hex_id(*start)
    path = []
    while h != g:
        h = int(TOWARD[g, h])
        path.append(HEXES[h])
    return path

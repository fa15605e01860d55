"""The classes battlefield: 5 lanes x 6 rows, its fields, intersections and geometry tables.

Compiled code reads a board's tables from ``Rules`` (``rules.compile_rules`` packs
``geometry(rows)``: one engine for any ``rows``, spec choice 1), computed once per row count; the
small pure functions beside them are the readable definition each table is built from and checked
against. The 6-row tables below are the default board's, for Python and the tests.
Coordinates are absolute (specs/classes.md §1): ``lane`` 0-4 left to right as player 0 sees the
board, ``row`` 0-5 with row 0 player 0's first row and row 5 player 1's. A field's id is
``row * LANES + lane`` so a row is contiguous (the acting order walks rows).

classes.md "The Battleground": "Field: it can contain only one unit"; "Lane: a chain of fields
connected by their shorter edge (vertical)"; "Row: a chain of fields connected by their longer
edge (horizontal)"; "Adjacent: two fields are adjacent only if they share an edge";
"Neighbouring: two fields are neighboring if they share an edge or a corner"; "Intersection:
where corners of two or more fields meet. Not a field."
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

# classes.md "Setup": "Place the battlefield with 5 lanes on the table"; rows: spec choice 1 (6).
LANES = 5
ROWS = 6
FIELDS = LANES * ROWS
NONE = -1
# The enemy player as an attack-search candidate (spec choice 4): not a field id.
PLAYER = FIELDS
# Interior intersections: the corner shared by (l, r), (l+1, r), (l, r+1), (l+1, r+1).
INTERSECTIONS = (LANES - 1) * (ROWS - 1)
# Facing index of a unit: 0 = toward row 5 (player 0's units), 1 = toward row 0 (player 1's).
# A unit with Turnover faces its owner instead (classes.md "Turnover"), i.e. the other index.
FACINGS = (1, -1)


def field_id(lane: int, row: int, rows: int = ROWS) -> int:
    """The id of field ``[lane, row]``; raises on a coordinate off the board."""
    if not (0 <= lane < LANES and 0 <= row < rows):
        raise ValueError(f"[{lane}, {row}] is off the board (lanes 0-{LANES - 1}, rows 0-{rows - 1})")
    return row * LANES + lane


def lane_row(field: int, rows: int = ROWS) -> tuple[int, int]:
    """``[lane, row]`` of a field id."""
    if not 0 <= field < LANES * rows:
        raise ValueError(f"field {field} is not on the board (0-{LANES * rows - 1})")
    return field % LANES, field // LANES


def intersection_id(lane: int, row: int, rows: int = ROWS) -> int:
    """The id of intersection ``[lane, row]`` (lanes 0-3, rows 0-4 on 6 rows: the interior corners)."""
    if not (0 <= lane < LANES - 1 and 0 <= row < rows - 1):
        raise ValueError(f"intersection [{lane}, {row}] is not interior (lanes 0-{LANES - 2}, rows 0-{rows - 2})")
    return row * (LANES - 1) + lane


def intersection_fields(lane: int, row: int, rows: int = ROWS) -> tuple[int, int, int, int]:
    """The four fields whose corners meet at intersection ``[lane, row]``."""
    intersection_id(lane, row, rows)
    return (field_id(lane, row, rows), field_id(lane + 1, row, rows), field_id(lane, row + 1, rows),
            field_id(lane + 1, row + 1, rows))


def distance(a: int, b: int) -> int:
    """classes.md "Range": "It is counted by adjacent fields, orthogonally" (Manhattan)."""
    (la, ra), (lb, rb) = (a % LANES, a // LANES), (b % LANES, b // LANES)
    return abs(la - lb) + abs(ra - rb)


def adjacent(a: int, b: int) -> bool:
    """classes.md: "two fields are adjacent only if they share an edge"."""
    return distance(a, b) == 1


def neighbouring(a: int, b: int) -> bool:
    """classes.md: "two fields are neighboring if they share an edge or a corner"."""
    (la, ra), (lb, rb) = (a % LANES, a // LANES), (b % LANES, b // LANES)
    return a != b and abs(la - lb) <= 1 and abs(ra - rb) <= 1


def intersection_distance(lane: int, row: int, field: int, rows: int = ROWS) -> int:
    """classes.md "Range": "When the origin is an intersection, all fields whose corners are part
    of that intersection count as being at range 1" and "After you determine the fields at range 1,
    just keep counting adjacent fields": 1 + the distance to the nearest of the four."""
    return 1 + min(distance(f, field) for f in intersection_fields(lane, row, rows))


def first_row(side: int, rows: int = ROWS) -> int:
    """Spec choice 2: "the front row on your side" = "the first row of the battlefield" = the row
    next to the player: row 0 for player 0, the last row (5 on 6 rows) for player 1."""
    return 0 if side == 0 else rows - 1


def facing_of(side: int, turnover: bool = False) -> int:
    """Facing index: a unit faces the enemy player's edge; with Turnover it faces its owner
    (classes.md "Turnover": "When performing Advance action, it moves towards its owner")."""
    return side ^ int(bool(turnover))


def front(field: int, facing: int, rows: int = ROWS) -> int:
    """The next field in the unit's lane in its facing direction (NONE at the edge)."""
    lane, row = lane_row(field, rows)
    nxt = row + FACINGS[facing]
    return field_id(lane, nxt, rows) if 0 <= nxt < rows else NONE


def edge_distance(field: int, facing: int, rows: int = ROWS) -> int:
    """Rows from a field to the faced player's edge (spec §7): facing row 5's side at row r: 6-r;
    facing row 0's side: r+1. "If a unit attacks the far edge of its lane ... the attack targets
    the enemy player directly"."""
    row = lane_row(field, rows)[1]
    return rows - row if facing == 0 else row + 1


def lane_order(lane: int, facing: int) -> list[int]:
    """classes.md "Finding a Valid Attack Target": own lane, then "the adjacent lanes, first to the
    right and then to the left", widening (spec choice 28: +-1, then +-2, ...). Right is taken from
    the unit's facing (spec choice 3): facing row 5, right = lane+1; facing row 0, right = lane-1."""
    right = 1 if FACINGS[facing] == 1 else -1
    order = [lane]
    for k in range(1, LANES):
        for d in (right * k, -right * k):
            if 0 <= lane + d < LANES:
                order.append(lane + d)
    return order


def search_candidates(field: int, facing: int, rows: int = ROWS) -> list[tuple[int, int]]:
    """Every attack candidate of a unit at ``field`` in search order, as (field or PLAYER, distance).

    Spec §7 and choice 4: never behind the unit ("Units cannot attack enemies behind them"; the
    same row counts); own lane nearest first, the enemy player last in the own lane at its edge
    distance, then the other lanes in ``lane_order``, nearest first in each. A unit of range R
    takes the first hostile candidate with distance <= R; this order does not depend on R.
    """
    lane, row = lane_row(field, rows)
    step = FACINGS[facing]
    out: list[tuple[int, int]] = []
    for ln in lane_order(lane, facing):
        here = []
        for r in range(rows):
            ahead = (r - row) * step
            if ahead < 0 or (ln == lane and r == row):
                continue
            f = field_id(ln, r, rows)
            here.append((distance(field, f), ahead, f))
        out += [(f, d) for d, _, f in sorted(here)]
        if ln == lane:
            out.append((LANES * rows, edge_distance(field, facing, rows)))  # the player: PLAYER on 6 rows
    return out


def acting_order(side: int, rows: int = ROWS) -> list[int]:
    """classes.md "Unit Acting Order": "row by row, left to right, starting from the row that is
    most further from you", "opposing players will resolve it in completely opposite order"."""
    order = [field_id(lane, row, rows) for row in reversed(range(rows)) for lane in range(LANES)]
    return order if side == 0 else order[::-1]


def _table(rows: list[list[int]], width: int) -> np.ndarray:
    out = np.full((len(rows), width), NONE, dtype=np.int8)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out


@dataclass(frozen=True)
class Geometry:
    """Every table of a board with ``rows`` rows (int8: every id and distance fits up to 12 rows).
    SEARCH[facing, field, k] = the k-th attack candidate (a field id, or ``player`` = fields, the
    enemy player), SEARCH_DISTANCE its distance, NONE-padded; the other names are as below."""

    rows: int
    fields: int
    player: int
    field_lane: np.ndarray
    field_row: np.ndarray
    distance: np.ndarray
    adjacent: np.ndarray
    neighbours: np.ndarray
    intersection_distance: np.ndarray
    acting_order: np.ndarray
    front: np.ndarray
    edge_distance: np.ndarray
    first_row: np.ndarray
    search: np.ndarray
    search_distance: np.ndarray


ROWS_MAX = 12  # ids stay int8 (5 x 12 = 60 fields)


@cache
def geometry(rows: int = ROWS) -> Geometry:
    """The tables of a ``rows``-row board, computed once per row count (spec choice 1: rows is a
    parameter, 6 by default) from the functions above."""
    if not 2 <= rows <= ROWS_MAX:
        raise ValueError(f"rows = {rows}: expected 2 to {ROWS_MAX}")
    n = LANES * rows
    cells = range(n)
    search = np.full((2, n, n), NONE, dtype=np.int8)
    search_distance = np.full((2, n, n), NONE, dtype=np.int8)
    for k in (0, 1):
        for f in cells:
            for i, (c, d) in enumerate(search_candidates(f, k, rows)):
                search[k, f, i], search_distance[k, f, i] = c, d
    g = Geometry(
        rows=rows, fields=n, player=n,
        field_lane=np.array([f % LANES for f in cells], dtype=np.int8),
        field_row=np.array([f // LANES for f in cells], dtype=np.int8),
        distance=np.array([[distance(a, b) for b in cells] for a in cells], dtype=np.int8),
        adjacent=_table([[b for b in cells if adjacent(a, b)] for a in cells], 4),
        neighbours=_table([[b for b in cells if neighbouring(a, b)] for a in cells], 8),
        intersection_distance=np.array(
            [[intersection_distance(i % (LANES - 1), i // (LANES - 1), f, rows) for f in cells]
             for i in range((LANES - 1) * (rows - 1))], dtype=np.int8),
        acting_order=np.array([acting_order(0, rows), acting_order(1, rows)], dtype=np.int8),
        front=np.array([[front(f, k, rows) for f in cells] for k in (0, 1)], dtype=np.int8),
        edge_distance=np.array([[edge_distance(f, k, rows) for f in cells] for k in (0, 1)], dtype=np.int8),
        first_row=np.array([first_row(0, rows), first_row(1, rows)], dtype=np.int8),
        search=search, search_distance=search_distance,
    )
    for name in Geometry.__dataclass_fields__:
        value = getattr(g, name)
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return g


# -- the default board's tables (6 rows), as compiled code and tests index them -------------
_G = geometry(ROWS)
FIELD_LANE, FIELD_ROW, DISTANCE = _G.field_lane, _G.field_row, _G.distance
ADJACENT, NEIGHBOURS, INTERSECTION_DISTANCE = _G.adjacent, _G.neighbours, _G.intersection_distance
ACTING_ORDER, FRONT, EDGE_DISTANCE, FIRST_ROW = _G.acting_order, _G.front, _G.edge_distance, _G.first_row
SEARCH, SEARCH_DISTANCE = _G.search, _G.search_distance
SEARCH_WIDTH = FIELDS

"""The classes battlefield: 5 lanes x 6 rows, its fields, intersections and geometry tables.

Compiled code will index these tables (they are computed once, at import); the small pure
functions beside them are the readable definition each table is built from and checked against.
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


def field_id(lane: int, row: int) -> int:
    """The id of field ``[lane, row]``; raises on a coordinate off the board."""
    if not (0 <= lane < LANES and 0 <= row < ROWS):
        raise ValueError(f"[{lane}, {row}] is off the board (lanes 0-{LANES - 1}, rows 0-{ROWS - 1})")
    return row * LANES + lane


def lane_row(field: int) -> tuple[int, int]:
    """``[lane, row]`` of a field id."""
    if not 0 <= field < FIELDS:
        raise ValueError(f"field {field} is not on the board (0-{FIELDS - 1})")
    return field % LANES, field // LANES


def intersection_id(lane: int, row: int) -> int:
    """The id of intersection ``[lane, row]`` (lanes 0-3, rows 0-4: the interior corners)."""
    if not (0 <= lane < LANES - 1 and 0 <= row < ROWS - 1):
        raise ValueError(f"intersection [{lane}, {row}] is not interior (lanes 0-{LANES - 2}, rows 0-{ROWS - 2})")
    return row * (LANES - 1) + lane


def intersection_fields(lane: int, row: int) -> tuple[int, int, int, int]:
    """The four fields whose corners meet at intersection ``[lane, row]``."""
    intersection_id(lane, row)
    return (field_id(lane, row), field_id(lane + 1, row), field_id(lane, row + 1), field_id(lane + 1, row + 1))


def distance(a: int, b: int) -> int:
    """classes.md "Range": "It is counted by adjacent fields, orthogonally" (Manhattan)."""
    (la, ra), (lb, rb) = lane_row(a), lane_row(b)
    return abs(la - lb) + abs(ra - rb)


def adjacent(a: int, b: int) -> bool:
    """classes.md: "two fields are adjacent only if they share an edge"."""
    return distance(a, b) == 1


def neighbouring(a: int, b: int) -> bool:
    """classes.md: "two fields are neighboring if they share an edge or a corner"."""
    (la, ra), (lb, rb) = lane_row(a), lane_row(b)
    return a != b and abs(la - lb) <= 1 and abs(ra - rb) <= 1


def intersection_distance(lane: int, row: int, field: int) -> int:
    """classes.md "Range": "When the origin is an intersection, all fields whose corners are part
    of that intersection count as being at range 1" and "After you determine the fields at range 1,
    just keep counting adjacent fields": 1 + the distance to the nearest of the four."""
    return 1 + min(distance(f, field) for f in intersection_fields(lane, row))


def first_row(side: int) -> int:
    """Spec choice 2: "the front row on your side" = "the first row of the battlefield" = the row
    next to the player: row 0 for player 0, row 5 for player 1."""
    return 0 if side == 0 else ROWS - 1


def facing_of(side: int, turnover: bool = False) -> int:
    """Facing index: a unit faces the enemy player's edge; with Turnover it faces its owner
    (classes.md "Turnover": "When performing Advance action, it moves towards its owner")."""
    return side ^ int(bool(turnover))


def front(field: int, facing: int) -> int:
    """The next field in the unit's lane in its facing direction (NONE at the edge)."""
    lane, row = lane_row(field)
    nxt = row + FACINGS[facing]
    return field_id(lane, nxt) if 0 <= nxt < ROWS else NONE


def edge_distance(field: int, facing: int) -> int:
    """Rows from a field to the faced player's edge (spec §7): facing row 5's side at row r: 6-r;
    facing row 0's side: r+1. "If a unit attacks the far edge of its lane ... the attack targets
    the enemy player directly"."""
    row = lane_row(field)[1]
    return ROWS - row if facing == 0 else row + 1


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


def search_candidates(field: int, facing: int) -> list[tuple[int, int]]:
    """Every attack candidate of a unit at ``field`` in search order, as (field or PLAYER, distance).

    Spec §7 and choice 4: never behind the unit ("Units cannot attack enemies behind them"; the
    same row counts); own lane nearest first, the enemy player last in the own lane at its edge
    distance, then the other lanes in ``lane_order``, nearest first in each. A unit of range R
    takes the first hostile candidate with distance <= R; this order does not depend on R.
    """
    lane, row = lane_row(field)
    step = FACINGS[facing]
    out: list[tuple[int, int]] = []
    for ln in lane_order(lane, facing):
        here = []
        for r in range(ROWS):
            ahead = (r - row) * step
            if ahead < 0 or (ln == lane and r == row):
                continue
            f = field_id(ln, r)
            here.append((distance(field, f), ahead, f))
        out += [(f, d) for d, _, f in sorted(here)]
        if ln == lane:
            out.append((PLAYER, edge_distance(field, facing)))
    return out


def acting_order(side: int) -> list[int]:
    """classes.md "Unit Acting Order": "row by row, left to right, starting from the row that is
    most further from you", "opposing players will resolve it in completely opposite order"."""
    order = [field_id(lane, row) for row in reversed(range(ROWS)) for lane in range(LANES)]
    return order if side == 0 else order[::-1]


def _table(rows: list[list[int]], width: int) -> np.ndarray:
    out = np.full((len(rows), width), NONE, dtype=np.int8)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out


# -- the precomputed tables (int8: every id and distance fits) ------------------------------
FIELD_LANE = np.array([lane_row(f)[0] for f in range(FIELDS)], dtype=np.int8)
FIELD_ROW = np.array([lane_row(f)[1] for f in range(FIELDS)], dtype=np.int8)
DISTANCE = np.array([[distance(a, b) for b in range(FIELDS)] for a in range(FIELDS)], dtype=np.int8)
ADJACENT = _table([[b for b in range(FIELDS) if adjacent(a, b)] for a in range(FIELDS)], 4)
NEIGHBOURS = _table([[b for b in range(FIELDS) if neighbouring(a, b)] for a in range(FIELDS)], 8)
INTERSECTION_DISTANCE = np.array(
    [[intersection_distance(i % (LANES - 1), i // (LANES - 1), f) for f in range(FIELDS)]
     for i in range(INTERSECTIONS)], dtype=np.int8)
ACTING_ORDER = np.array([acting_order(0), acting_order(1)], dtype=np.int8)
FRONT = np.array([[front(f, k) for f in range(FIELDS)] for k in (0, 1)], dtype=np.int8)
EDGE_DISTANCE = np.array([[edge_distance(f, k) for f in range(FIELDS)] for k in (0, 1)], dtype=np.int8)
FIRST_ROW = np.array([first_row(0), first_row(1)], dtype=np.int8)
# SEARCH[facing, field, k] = k-th candidate (field id or PLAYER), SEARCH_DISTANCE its distance;
# NONE-padded. Every field ahead or level (in any lane) plus the player: at most FIELDS entries.
SEARCH_WIDTH = FIELDS
SEARCH = np.full((2, FIELDS, SEARCH_WIDTH), NONE, dtype=np.int8)
SEARCH_DISTANCE = np.full((2, FIELDS, SEARCH_WIDTH), NONE, dtype=np.int8)
for _k in (0, 1):
    for _f in range(FIELDS):
        for _i, (_c, _d) in enumerate(search_candidates(_f, _k)):
            SEARCH[_k, _f, _i], SEARCH_DISTANCE[_k, _f, _i] = _c, _d
for _t in (FIELD_LANE, FIELD_ROW, DISTANCE, ADJACENT, NEIGHBOURS, INTERSECTION_DISTANCE, ACTING_ORDER, FRONT,
           EDGE_DISTANCE, FIRST_ROW, SEARCH, SEARCH_DISTANCE):
    _t.setflags(write=False)

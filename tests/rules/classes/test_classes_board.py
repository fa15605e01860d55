"""classes.md "The Battleground", "Range", "Unit Acting Order", "Finding a Valid Attack Target",
"Advance" and "Attacking Enemy Players": the board geometry and its precomputed tables."""

from __future__ import annotations

import numpy as np
import pytest

from battlesim.systems.classes import board as B
from battlesim.systems.classes.board import (
    ACTING_ORDER,
    ADJACENT,
    DISTANCE,
    EDGE_DISTANCE,
    FIELDS,
    FRONT,
    INTERSECTION_DISTANCE,
    NEIGHBOURS,
    NONE,
    PLAYER,
    SEARCH,
    SEARCH_DISTANCE,
    field_id,
    lane_row,
)


def f(lane: int, row: int) -> int:
    return field_id(lane, row)


def first_target(lane: int, row: int, facing: int, rng: int, hostile: set[int]) -> int:
    """The search as compiled code will run it: the first hostile candidate within range."""
    for k in range(B.SEARCH_WIDTH):
        c, d = int(SEARCH[facing, f(lane, row), k]), int(SEARCH_DISTANCE[facing, f(lane, row), k])
        if c == NONE:
            return NONE
        if d <= rng and (c == PLAYER or c in hostile):
            return c
    return NONE


def test_five_lanes_six_rows_absolute_coordinates():
    # classes.md "Setup": "Place the battlefield with 5 lanes on the table"; rows: spec choice 1 (6)
    assert (B.LANES, B.ROWS, FIELDS) == (5, 6, 30)
    assert [lane_row(field_id(ln, r)) for r in range(6) for ln in range(5)] == [(ln, r) for r in range(6) for ln in range(5)]
    for bad in ((5, 0), (0, 6), (-1, 2)):
        with pytest.raises(ValueError):
            field_id(*bad)


def test_adjacent_shares_an_edge_neighbouring_an_edge_or_corner():
    # classes.md: "Adjacent: two fields are adjacent only if they share an edge."
    # classes.md: "Neighbouring: two fields are neighboring if they share an edge or a corner."
    centre = f(2, 2)
    assert sorted(int(x) for x in ADJACENT[centre] if x != NONE) == sorted([f(1, 2), f(3, 2), f(2, 1), f(2, 3)])
    assert sorted(int(x) for x in NEIGHBOURS[centre] if x != NONE) == sorted(
        f(2 + dl, 2 + dr) for dl in (-1, 0, 1) for dr in (-1, 0, 1) if (dl, dr) != (0, 0))
    corner = f(0, 0)
    assert sorted(int(x) for x in ADJACENT[corner] if x != NONE) == [f(1, 0), f(0, 1)]
    assert sorted(int(x) for x in NEIGHBOURS[corner] if x != NONE) == sorted([f(1, 0), f(0, 1), f(1, 1)])
    assert not B.adjacent(f(1, 1), f(2, 2)) and B.neighbouring(f(1, 1), f(2, 2))


def test_range_from_a_field_is_counted_orthogonally():
    # classes.md "Range": "It is counted by adjacent fields, orthogonally."
    # classes.md: "When the origin is a field, only its adjacent fields count as being at range 1."
    assert DISTANCE[f(2, 2), f(3, 3)] == 2
    assert DISTANCE[f(0, 0), f(4, 5)] == 9
    assert (DISTANCE[f(2, 2)] == 1).sum() == 4
    assert DISTANCE[f(2, 2), f(2, 2)] == 0  # spec choice 19: "within range N" includes the origin


def test_range_from_an_intersection():
    # classes.md: "When the origin is an intersection, all fields whose corners are part of that
    # intersection count as being at range 1." "After you determine the fields at range 1, just keep counting"
    i = B.intersection_id(1, 1)  # the corner of (1,1), (2,1), (1,2), (2,2)
    at1 = sorted(int(x) for x in np.flatnonzero(INTERSECTION_DISTANCE[i] == 1))
    assert at1 == sorted([f(1, 1), f(2, 1), f(1, 2), f(2, 2)])
    assert INTERSECTION_DISTANCE[i, f(3, 1)] == 2 and INTERSECTION_DISTANCE[i, f(0, 0)] == 3
    assert B.INTERSECTIONS == 20
    with pytest.raises(ValueError):
        B.intersection_id(4, 0)  # the board's edge is not an interior intersection


def test_acting_order_row_by_row_left_to_right_from_the_far_row_mirrored():
    # classes.md "Unit Acting Order": "row by row, left to right, starting from the row that is most further from you"
    # classes.md: "opposing players will resolve it in completely opposite order"
    p0 = [lane_row(int(x)) for x in ACTING_ORDER[0]]
    assert p0[:6] == [(0, 5), (1, 5), (2, 5), (3, 5), (4, 5), (0, 4)]
    assert p0[-1] == (4, 0)
    assert list(ACTING_ORDER[1]) == list(ACTING_ORDER[0])[::-1]
    assert [lane_row(int(x)) for x in ACTING_ORDER[1]][:2] == [(4, 0), (3, 0)]


def test_units_advance_in_their_lane_toward_the_enemy_edge():
    # classes.md "Advance": "Units do not change lanes. When a unit advances, it attempts to move into the field in front of it."
    assert FRONT[0, f(2, 1)] == f(2, 2) and FRONT[1, f(2, 4)] == f(2, 3)
    assert FRONT[0, f(2, 5)] == NONE and FRONT[1, f(2, 0)] == NONE
    assert all(B.FIELD_LANE[FRONT[k, x]] == B.FIELD_LANE[x] for k in (0, 1) for x in range(FIELDS) if FRONT[k, x] != NONE)


def test_turnover_faces_the_owner():
    # classes.md "Turnover": "When performing Advance action, it moves towards its owner."
    assert B.facing_of(0, turnover=True) == 1 and B.facing_of(1, turnover=True) == 0
    assert FRONT[B.facing_of(0, True), f(1, 3)] == f(1, 2)


def test_first_row_is_the_summoners_nearest_row():
    # classes.md "Summoning Units": "place its card on an empty spot in the front row on your side"; spec choice 2
    assert list(B.FIRST_ROW) == [0, 5]


def test_target_search_same_lane_nearest_first():
    # classes.md: "Start searching for the closest enemy in the same lane as the attacking unit."
    hostile = {f(2, 3), f(2, 4), f(3, 2)}
    assert first_target(2, 2, 0, 2, hostile) == f(2, 3)
    assert first_target(2, 2, 0, 1, {f(2, 4), f(3, 2)}) == f(3, 2)


def test_target_search_right_then_left():
    # classes.md: "expand the search to the adjacent lanes, first to the right and then to the left"
    assert first_target(2, 2, 0, 1, {f(1, 2), f(3, 2)}) == f(3, 2)  # player 0's right is lane + 1
    # spec choice 3: player 1 faces the other way, its right is lane - 1
    assert first_target(2, 3, 1, 1, {f(1, 3), f(3, 3)}) == f(1, 3)


def test_search_order_at_range_2_matches_choice_28():
    # classes.md: "The example on the right shows order of attacking at range 2." (picture missing; spec choice 28)
    order = [(lane_row(int(c)) if c != PLAYER else "player", int(d))
             for c, d in zip(SEARCH[0, f(2, 2)], SEARCH_DISTANCE[0, f(2, 2)]) if c != NONE and d <= 2]
    assert order == [((2, 3), 1), ((2, 4), 2), ((3, 2), 1), ((3, 3), 2), ((1, 2), 1), ((1, 3), 2),
                     ((4, 2), 2), ((0, 2), 2)]


def test_units_cannot_attack_enemies_behind_them():
    # classes.md: "Units cannot attack enemies behind them."
    assert first_target(2, 3, 0, 2, {f(2, 2), f(2, 1), f(1, 2)}) == NONE
    assert all(B.FIELD_ROW[c] >= B.FIELD_ROW[x] for x in range(FIELDS) for c in SEARCH[0, x] if 0 <= c < FIELDS)
    assert all(B.FIELD_ROW[c] <= B.FIELD_ROW[x] for x in range(FIELDS) for c in SEARCH[1, x] if 0 <= c < FIELDS)


def test_attacking_the_far_edge_hits_the_enemy_player():
    # classes.md "Attacking Enemy Players": "If a unit attacks the far edge of its lane ... the attack targets the enemy player directly."
    # classes.md: "both an Archer with a range of 2 and a Guard positioned at the far edge can attack the enemy player"
    assert first_target(1, 5, 0, 1, set()) == PLAYER  # Guard on the far edge
    assert first_target(1, 4, 0, 2, set()) == PLAYER  # Archer one row short
    assert first_target(1, 4, 0, 1, set()) == NONE
    assert EDGE_DISTANCE[1, f(1, 0)] == 1 and EDGE_DISTANCE[0, f(1, 0)] == 6
    # spec choice 4: the player is a same-lane target; a foe in the own lane within range comes first
    assert first_target(1, 4, 0, 2, {f(1, 5)}) == f(1, 5)
    # ... and the player in the own lane comes before adjacent lanes
    assert first_target(1, 5, 0, 1, {f(2, 5)}) == PLAYER


def test_tables_are_read_only_and_fit_their_dtype():
    for t in (DISTANCE, ADJACENT, NEIGHBOURS, INTERSECTION_DISTANCE, ACTING_ORDER, FRONT, SEARCH, SEARCH_DISTANCE):
        assert t.dtype == np.int8 and not t.flags.writeable
    assert (SEARCH[0] == PLAYER).sum(axis=1).tolist() == [1] * FIELDS  # one player entry per field


@pytest.mark.parametrize("rows", [4, 6, 9])
def test_any_row_count_builds_the_same_rules(rows):
    # spec choice 1: "Rows: 6 (parameter)"; the rules above hold on every board size
    g = B.geometry(rows)
    assert (g.fields, g.player) == (5 * rows, 5 * rows)
    assert list(g.first_row) == [0, rows - 1]
    assert g.acting_order.shape == (2, 5 * rows) and list(g.acting_order[1]) == list(g.acting_order[0])[::-1]
    far = field_id(1, rows - 1, rows)
    # classes.md "Attacking Enemy Players": a Guard on the far edge reaches the player at range 1
    first = next(k for k in range(g.fields) if g.search[0, far, k] == g.player)
    assert g.search_distance[0, far, first] == 1 and g.edge_distance[1, field_id(1, 0, rows)] == 1
    assert g.intersection_distance.shape == (4 * (rows - 1), 5 * rows)
    assert B.geometry(rows) is g  # computed once per size


def test_the_default_tables_are_the_6_row_geometry():
    assert B.SEARCH is B.geometry(6).search and np.array_equal(B.geometry().search, B.SEARCH)
    with pytest.raises(ValueError):
        B.geometry(13)

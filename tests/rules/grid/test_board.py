"""The square grid itself (spec §2 "Board"): cells, neighbours, distances, halves of the board."""

from __future__ import annotations

import numpy as np

from battlesim.systems.grid.board import DX, DY, area_cells, cell_id, home_cells, make_board, rotate180
from battlesim.systems.grid.maps import hero_start


def test_cells_are_numbered_row_by_row():
    b = make_board(8, 8)
    assert b.cells == 64
    assert cell_id(3, 2, 8) == 19 and b.xy(19) == (3, 2)
    assert all(b.cell(*b.xy(c)) == c for c in range(b.cells))


def test_neighbours_are_the_four_orthogonal_cells_only():
    # grid.md 4.2.5: "A unit or hero cannot move diagonally unless specified otherwise."
    b = make_board(8, 8)
    c = b.cell(3, 3)
    assert sorted(b.xy(n) for n in b.neighbours[c]) == [(2, 3), (3, 2), (3, 4), (4, 3)]
    assert sorted(abs(int(dx)) + abs(int(dy)) for dx, dy in zip(DX, DY)) == [1, 1, 1, 1]


def test_edge_and_corner_cells_have_fewer_neighbours():
    b = make_board(8, 8)
    assert (b.neighbours[b.cell(0, 0)] >= 0).sum() == 2
    assert (b.neighbours[b.cell(7, 3)] >= 0).sum() == 3


def test_manhattan_never_counts_diagonals():
    # grid.md 4.4.4: "When determining the range of an attack, diagonal spaces are never counted."
    b = make_board(8, 8)
    assert b.manhattan[b.cell(3, 3), b.cell(4, 4)] == 2
    assert b.manhattan[b.cell(0, 0), b.cell(7, 7)] == 14


def test_a_10x10_board_by_parameter():
    b = make_board(10, 10)
    assert b.cells == 100 and b.neighbours.shape == (100, 4) and b.manhattan.max() == 18


def test_the_tables_cannot_be_changed_by_accident():
    b = make_board(8, 8)
    for t in (b.xs, b.ys, b.neighbours, b.manhattan):
        assert not t.flags.writeable


def test_half_turn_maps_the_sides_onto_each_other():
    assert rotate180(cell_id(0, 0, 8), 8, 8) == cell_id(7, 7, 8)
    assert rotate180(cell_id(2, 3, 8), 8, 8) == cell_id(5, 4, 8)
    assert all(rotate180(rotate180(c, 10, 10), 10, 10) == c for c in range(100))


def test_home_rows_are_the_first_rows_of_each_side():
    h0, h1 = home_cells(0, 8, 8, 2), home_cells(1, 8, 8, 2)
    assert h0.sum() == h1.sum() == 16 and not (h0 & h1).any()
    assert h0[cell_id(5, 1, 8)] and h1[cell_id(5, 6, 8)] and not h0[cell_id(5, 2, 8)]


def test_starting_heroes_face_each_other_on_the_back_rows():
    # spec §2 "Setup": own back row, x = width/2 - 1 for side 0, mirrored for side 1
    assert hero_start(0, 8, 8) == cell_id(3, 0, 8)
    assert hero_start(1, 8, 8) == cell_id(4, 7, 8)
    assert hero_start(1, 10, 10) == cell_id(5, 9, 10)


def test_area_is_the_manhattan_ball():
    b = make_board(8, 8)
    area = area_cells(b.manhattan, b.cell(3, 3), 1)
    assert sorted(b.xy(c) for c in np.flatnonzero(area)) == [(2, 3), (3, 2), (3, 3), (3, 4), (4, 3)]
    assert area_cells(b.manhattan, b.cell(0, 0), 0).sum() == 1


def test_the_board_functions_are_compiled():
    # DESIGN.md "Execution model": compiled code indexes the tables and calls these functions as
    # they are; the tests above exercise the compiled versions
    from battlesim.systems.grid import board

    for name in ("move_costs", "reachable", "los_distance", "jump_landing", "push_destination", "rush_cells",
                 "teleport_targets", "area_cells", "is_stuck", "can_stop", "step_cost", "home_cells", "rotate180"):
        assert hasattr(getattr(board, name), "py_func"), name

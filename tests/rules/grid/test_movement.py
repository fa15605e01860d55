"""grid.md 4.2 Movement: MV, own and enemy units, diagonals, walls, webs, flyers, forced moves."""

from __future__ import annotations

import numpy as np

from battlesim.systems.grid.board import (
    INF,
    can_stop,
    is_stuck,
    jump_landing,
    move_costs,
    move_costs_within,
    push_destination,
    reachable,
    rush_cells,
    teleport_targets,
)

RIGHT, LEFT, DOWN, UP = range(4)


def costs(p, name, passes_walls=False, flying=False):
    b = p.board
    return move_costs(b.neighbours, b.wall, b.web, p.occ, p.at(name), p.side(name), passes_walls, flying)


def cost_to(p, name, x, y, **kw):
    return int(costs(p, name, **kw)[p.board.cell(x, y)])


def test_move_as_many_spaces_as_mv_and_no_more(picture):
    # grid.md 4.2.1: "A unit or hero can move any number of spaces in a turn as they have MV points."
    p = picture("""
        A . . . .
        . . . . .
    """)
    c = costs(p, "A")
    ok = reachable(c, p.board.wall, p.occ, 3, False)
    assert ok[p.board.cell(3, 0)] and ok[p.board.cell(2, 1)]
    assert not ok[p.board.cell(4, 0)] and not ok[p.board.cell(3, 1)]


def test_moving_fewer_spaces_is_fine(picture):
    # grid.md 4.2.1: "It is not necessary to move all spaces every turn."
    p = picture("A . . .")
    assert reachable(costs(p, "A"), p.board.wall, p.occ, 3, False)[p.board.cell(1, 0)]


def test_the_own_cell_is_not_a_move(picture):
    p = picture("A . .")
    assert not reachable(costs(p, "A"), p.board.wall, p.occ, 3, False)[p.at("A")]


def test_own_units_are_passed(picture):
    # grid.md 4.2.2: "A unit or hero can move through their own units or heroes."
    p = picture("""
        A B . .
        # # # #
    """)
    assert cost_to(p, "A", 2, 0) == 2


def test_own_units_are_not_a_destination(picture):
    # grid.md 4.2.4: "A unit or hero cannot move to a space occupied by another unit or hero."
    p = picture("A B .")
    ok = reachable(costs(p, "A"), p.board.wall, p.occ, 3, False)
    assert not ok[p.at("B")] and ok[p.board.cell(2, 0)]
    assert not can_stop(p.board.wall, p.occ, p.at("B"), False)


def test_no_diagonal_steps(picture):
    # grid.md 4.2.5: "A unit or hero cannot move diagonally unless specified otherwise."
    p = picture("""
        A .
        . .
    """)
    assert cost_to(p, "A", 1, 1) == 2
    assert not reachable(costs(p, "A"), p.board.wall, p.occ, 1, False)[p.board.cell(1, 1)]


def test_enemy_units_are_never_passed(picture):
    # grid.md 4.2.6: "A unit or hero cannot move through enemy units or heroes."
    p = picture("""
        A e .
        # # #
    """)
    assert cost_to(p, "A", 2, 0) == INF and cost_to(p, "A", 1, 0) == INF


def test_enemies_make_a_detour(picture):
    # grid.md 4.2.6: around the enemy, 4 steps instead of 2
    p = picture("""
        A e .
        . . .
    """)
    assert cost_to(p, "A", 2, 0) == 4


def test_walls_stop_warriors(picture):
    # grid.md 4.2.7: "A unit or hero cannot move onto or past a wall obstacle unless they are a rogue or can fly."
    p = picture("""
        A . .
        # # #
        . . .
    """)
    assert cost_to(p, "A", 0, 2) == INF and cost_to(p, "A", 0, 1) == INF


def test_rogues_and_flyers_pass_walls_and_may_stop_on_them(picture):
    # grid.md 4.2.7: "... unless they are a rogue or can fly." (ledger: they may also stand there)
    p = picture("""
        A . .
        # # #
        . . .
    """)
    assert cost_to(p, "A", 0, 2, passes_walls=True) == 2
    assert reachable(costs(p, "A", passes_walls=True), p.board.wall, p.occ, 1, True)[p.board.cell(0, 1)]


def test_leaving_a_web_costs_one_more(picture):
    # grid.md 4.2.8: "A unit or hero must spend an additional 1 MV point to be able to exit a web obstacle."
    p = picture("""
        . ~ .
        . . .
        . A .
    """)
    assert cost_to(p, "A", 1, 0) == 2  # entering a web costs 1, like any step
    p = picture("~ . .")
    b = p.board
    c = move_costs(b.neighbours, b.wall, b.web, p.occ, b.cell(0, 0), 0, False, False)
    assert c[b.cell(1, 0)] == 2 and c[b.cell(2, 0)] == 3  # out of the web 2, then 1


def test_passing_through_a_web_costs_its_exit(picture):
    # grid.md 4.2.8: a web on the way is entered (1) and left (2)
    p = picture("""
        A ~ .
        # # #
    """)
    assert cost_to(p, "A", 2, 0) == 3


def test_flyers_ignore_webs(picture):
    # grid.md 4.2.9: "Flying creatures are not affected by web obstacles."
    p = picture("""
        A ~ .
        # # #
    """)
    assert cost_to(p, "A", 2, 0, flying=True, passes_walls=True) == 2


def test_one_mv_on_a_web_is_stuck(picture):
    # grid.md 4.2.10: "A unit or hero with only 1 MV that is on a space with a web obstacle is
    # considered stuck and cannot move."
    p = picture("~ . .")
    b = p.board
    c = move_costs(b.neighbours, b.wall, b.web, p.occ, 0, 0, False, False)
    assert not reachable(c, b.wall, p.occ, 1, False).any()
    assert is_stuck(b.web, 0, 1, False) and not is_stuck(b.web, 0, 2, False) and not is_stuck(b.web, 0, 1, True)
    assert reachable(c, b.wall, p.occ, 2, False)[1]


def test_jump_over_a_card(picture):
    # grid.md 4.2.11: "Some cards have abilities that allow them to jump over other cards."
    p = picture("A e . .")
    b = p.board
    assert jump_landing(b.neighbours, b.wall, b.web, p.occ, p.at("A"), RIGHT, 3, False, False) == b.cell(2, 0)
    assert jump_landing(b.neighbours, b.wall, b.web, p.occ, p.at("A"), LEFT, 3, False, False) == -1  # off board


def test_jump_lands_only_on_an_empty_cell_and_not_over_walls(picture):
    p = picture("""
        A e f
        . # .
        . . .
    """)
    b = p.board
    assert jump_landing(b.neighbours, b.wall, b.web, p.occ, p.at("A"), RIGHT, 3, False, False) == -1
    p = picture("""
        . A .
        . # .
        . . .
    """)
    b = p.board
    assert jump_landing(b.neighbours, b.wall, b.web, p.occ, p.at("A"), DOWN, 3, False, False) == -1
    assert jump_landing(b.neighbours, b.wall, b.web, p.occ, p.at("A"), DOWN, 3, True, False) == b.cell(1, 2)


def test_no_jump_out_of_a_web_when_stuck(picture):
    # grid.md 4.2.10 also forbids jumping out (spec §2 "Jump")
    p = picture("""
        ~ . .
    """)
    b = p.board
    occ = p.occ.copy()
    occ[0] = 0
    assert jump_landing(b.neighbours, b.wall, b.web, occ, 0, RIGHT, 1, False, False) == -1
    assert jump_landing(b.neighbours, b.wall, b.web, occ, 0, RIGHT, 2, False, False) == 2


def test_teleport_to_any_empty_cell_in_reach(picture):
    # grid.md 4.2.12: "Some cards have abilities that allow them to teleport to other locations on the battlefield."
    p = picture("""
        A e # .
        . . . .
        . . . .
    """)
    b = p.board
    t = teleport_targets(b.manhattan, b.wall, p.occ, p.at("A"), 3)
    assert t[b.cell(3, 0)]  # behind a wall and an enemy: no path needed
    assert not t[b.cell(2, 0)] and not t[p.at("e")] and not t[p.at("A")]
    assert not t[b.cell(3, 1)]  # 4 away
    assert t.sum() == 6


def test_push_moves_the_target_directly_away(picture):
    # grid.md 4.2.13: "Some cards have abilities that allow them to move other cards (like the "Push ability")."
    p = picture("A e . .")
    b = p.board
    assert push_destination(b.neighbours, b.wall, p.occ, p.at("A"), p.at("e"), 1, False) == b.cell(2, 0)
    assert push_destination(b.neighbours, b.wall, p.occ, p.at("A"), p.at("e"), 2, False) == b.cell(3, 0)


def test_push_needs_room_and_an_adjacent_target(picture):
    p = picture("A e f . # g")
    b = p.board
    assert push_destination(b.neighbours, b.wall, p.occ, p.at("A"), p.at("e"), 1, False) == -1  # f behind
    assert push_destination(b.neighbours, b.wall, p.occ, p.at("A"), p.at("f"), 1, False) == -1  # not adjacent
    p = picture("A e # .")
    b = p.board
    assert push_destination(b.neighbours, b.wall, p.occ, p.at("A"), p.at("e"), 1, False) == -1  # a wall
    assert push_destination(b.neighbours, b.wall, p.occ, p.at("A"), p.at("e"), 1, True) == b.cell(2, 0)  # a rogue


def test_push_ignores_webs_and_spends_no_mv(picture):
    # grid.md 4.2.13: "If the card that was moved still has a turn, it is allowed use of its full MV value."
    # push_destination takes no MV at all; a web on the way does not hold the pushed card
    p = picture("A e ~ .")
    b = p.board
    assert push_destination(b.neighbours, b.wall, p.occ, p.at("A"), p.at("e"), 2, False) == b.cell(3, 0)


def test_rush_steps_and_shoves(picture):
    # grid.md 4.2.3: "The card below uses the ability "Indomitable Rush" to move an extra space while
    # shoving a card out of its way."
    p = picture("A e . .")
    b = p.board
    assert rush_cells(b.neighbours, b.wall, b.web, p.occ, p.at("A"), RIGHT, 3, False, False, False) == (1, 2)
    p = picture("A . .")
    b = p.board
    assert rush_cells(b.neighbours, b.wall, b.web, p.occ, p.at("A"), RIGHT, 3, False, False, False) == (1, -1)


def test_rush_needs_room_to_shove(picture):
    p = picture("A e f")
    b = p.board
    assert rush_cells(b.neighbours, b.wall, b.web, p.occ, p.at("A"), RIGHT, 3, False, False, False) == (-1, -1)
    p = picture("A # .")
    b = p.board
    assert rush_cells(b.neighbours, b.wall, b.web, p.occ, p.at("A"), RIGHT, 3, False, False, False) == (-1, -1)


def test_costs_are_int16_with_inf_for_no_path(picture):
    p = picture("""
        A # .
        # # .
    """)
    c = costs(p, "A")
    assert c.dtype == np.int16 and c[p.board.cell(2, 0)] == INF


def test_costs_within_a_limit_are_the_least_costs(picture):
    # grid.md 4.2.1: "as they have MV points": the engine computes costs only up to the MV left;
    # those must be the least costs (webs cost 2 to leave, 4.2.8; enemies are detoured, 4.2.6)
    p = picture("""
        A . ~ . . .
        . # ~ b . .
        . . . . # .
        ~ . B . . .
    """)
    b = p.board
    full = costs(p, "A")
    for limit in range(9):
        part = move_costs_within(b.neighbours, b.wall, b.web, p.occ, p.at("A"), 0, False, False, limit)
        near = full <= limit
        assert (part[near] == full[near]).all() and (part[~near] > limit).all()

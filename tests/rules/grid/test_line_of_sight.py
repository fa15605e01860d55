"""grid.md 4.4.1 and 4.4.4: range and line of sight, counted around walls and enemies."""

from __future__ import annotations

from battlesim.systems.grid.board import INF, in_range, los_distance, los_distance_within
from battlesim.systems.grid.vocabulary import DEFAULT_RANGE


def sight(p, name):
    b = p.board
    return los_distance(b.neighbours, b.wall, p.occ, p.at(name), p.side(name))


def test_default_ranges_by_class():
    # grid.md 4.4.1: "Unless specified otherwise, warriors and rogues are melee units with a range of 1
    # space. Unless specified otherwise, archers and casters always have a range of 3 spaces."
    assert DEFAULT_RANGE == {"warrior": 1, "rogue": 1, "archer": 3, "caster": 3}


def test_los_counts_the_way_around_a_wall(picture):
    # grid.md 4.4.1: "Line of sight (LoS) is determined by counting the range (moving around obstacles or enemies)."
    p = picture("""
        A # e
        . . .
    """)
    d = sight(p, "A")
    assert d[p.at("e")] == 4
    assert not in_range(d, p.at("e"), 3) and in_range(d, p.at("e"), 4)


def test_los_counts_the_way_around_an_enemy(picture):
    # grid.md 4.4.1: "... (moving around obstacles or enemies)."
    p = picture("""
        A e f
        . . .
    """)
    d = sight(p, "A")
    assert d[p.at("e")] == 1 and d[p.at("f")] == 4


def test_hidden_enemies_still_block_sight(picture):
    # spec §2 "Hidden": hidden units still block enemy movement and LoS (they stand there)
    p = picture("""
        A e f
        # . #
    """)
    assert sight(p, "A")[p.at("f")] == INF  # e blocks the only way (occupancy does not know hiding)


def test_own_units_and_webs_do_not_block_sight(picture):
    # spec §2 "LoS / range": own units and webs do not block
    p = picture("""
        A B ~ e
        # # # #
    """)
    assert sight(p, "A")[p.at("e")] == 3


def test_walls_block_sight_for_every_class(picture):
    # spec §2: walls block every class (a rogue walks through a wall, it does not see through it)
    p = picture("""
        A # e
        # # #
    """)
    assert sight(p, "A")[p.at("e")] == INF


def test_no_line_of_sight_no_attack(picture):
    # grid.md 4.4.1: "A unit or hero must have a line of sight (LoS) before it can attack any card."
    p = picture("""
        A # . e
        # # . .
    """)
    assert not in_range(sight(p, "A"), p.at("e"), 30)


def test_diagonals_are_never_counted(picture):
    # grid.md 4.4.4: "When determining the range of an attack, diagonal spaces are never counted."
    p = picture("""
        A .
        . e
    """)
    assert sight(p, "A")[p.at("e")] == 2


def test_melee_needs_an_orthogonal_neighbour(picture):
    # grid.md 4.4.4: "Unless stated otherwise, melee units must be adjacent (above, below, left, or
    # right) to the target to initiate an attack." / "Unless stated otherwise, attacks cannot occur diagonally."
    p = picture("""
        . e .
        f A .
        . . g
    """)
    d = sight(p, "A")
    assert in_range(d, p.at("e"), 1) and in_range(d, p.at("f"), 1)
    assert not in_range(d, p.at("g"), 1)


def test_the_path_ends_at_the_target(picture):
    # the enemy at the end of the count is the target itself, not an obstacle
    p = picture("A . . e")
    assert sight(p, "A")[p.at("e")] == 3


def test_sight_is_the_same_both_ways_between_two_enemies(picture):
    p = picture("""
        A . # .
        . c . e
        . . # .
    """)
    b = p.board
    d_from_a = los_distance(b.neighbours, b.wall, p.occ, p.at("A"), 0)
    assert d_from_a[p.at("e")] == INF  # c blocks the only gap for side 0
    # side 1 looks back: its own c does not block it
    d_from_e = los_distance(b.neighbours, b.wall, p.occ, p.at("e"), 1)
    assert d_from_e[p.at("A")] == 4


def test_sight_within_a_limit_is_the_full_count_up_to_it(picture):
    # grid.md 4.4.1: "Line of sight (LoS) is determined by counting the range (moving around
    # obstacles or enemies)": the engine counts only as far as the longest range it must check;
    # up to there the counts are those of the full search, beyond it nothing is in sight
    p = picture("""
        A . # . .
        . c # e .
        . . . . #
        # . B . .
    """)
    b = p.board
    full = sight(p, "A")
    assert full[p.at("e")] == 6  # around the wall and around c
    for limit in range(9):
        part = los_distance_within(b.neighbours, b.wall, p.occ, p.at("A"), 0, limit)
        near = full <= limit
        assert (part[near] == full[near]).all() and (part[~near] > limit).all()

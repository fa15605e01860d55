"""hex.md "Map" and the geometry the rules read: hexes, ids, adjacency, distance, lines (spec §1).

The distance formula is checked against a breadth-first search over the neighbour table, so
the two precomputed tables cannot agree by sharing a mistake.
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from battlesim.systems.hex import board as B


def _bfs(start: int) -> list[int]:
    seen = [-1] * B.N_HEXES
    seen[start] = 0
    todo = deque([start])
    while todo:
        h = todo.popleft()
        for n in B.NEIGHBOURS[h]:
            if n >= 0 and seen[n] < 0:
                seen[n] = seen[h] + 1
                todo.append(int(n))
    return seen


def test_59_hexes_in_9_columns_and_7_rows():
    # hex.md: "Must contain 59 hexes with 9 columns and 7 rows."
    assert len(B.HEXES) == B.N_HEXES == 59
    assert {c for c, _ in B.HEXES} == set(range(9))
    assert {r for _, r in B.HEXES} == set(range(7))
    assert [sum(1 for c, _ in B.HEXES if c == col) for col in range(9)] == [7, 6, 7, 6, 7, 6, 7, 6, 7]


def test_half_hexes_do_not_count():
    # hex.md: "The “half-hexes” on the edge of the map do not count as playable hexes."
    for col in (1, 3, 5, 7):
        assert not B.on_board(col, 6) and not B.on_board(col, -1)
        assert B.on_board(col, 5) and B.on_board(col, 0)
    assert not B.on_board(9, 0) and not B.on_board(-1, 3)
    with pytest.raises(ValueError):
        B.hex_id(1, 6)


def test_ids_are_column_major_and_round_trip():
    assert [B.hex_id(c, 0) for c in range(9)] == list(B.START)
    assert [B.hex_id(*B.coords(h)) for h in range(59)] == list(range(59))
    assert B.CENTRE == (4, 3) and B.CENTRE_ID == 29 == B.hex_id(4, 3)


def test_adjacency_is_symmetric_and_is_distance_one():
    # hex.md "Chained": "The first and second units / hexes are adjacent" (adjacent = distance 1)
    for h in range(59):
        ns = {int(n) for n in B.NEIGHBOURS[h] if n >= 0}
        assert ns == {x for x in range(59) if B.DIST[h, x] == 1}
        assert all(h in {int(m) for m in B.NEIGHBOURS[n] if m >= 0} for n in ns)
        assert 2 <= len(ns) <= 6


def test_distance_counts_hexes_as_a_walk_counts_them():
    # hex.md: Range "determines the distance (in terms of hexes) at which the unit can deal combat damage";
    # Movement "the distance (in terms of hexes) the unit can move". A shortest walk over neighbours.
    for h in range(59):
        assert list(B.DIST[h]) == _bfs(h)
    assert B.DIST.max() == B.MAX_DISTANCE == 10
    assert (B.DIST == B.DIST.T).all() and (np.diag(B.DIST) == 0).all()


def test_the_odd_q_neighbours_of_the_spec():
    # spec §1: even c: (c+1,r-1) (c+1,r) (c-1,r-1) (c-1,r) (c,r-1) (c,r+1); odd c: (c+1,r) (c+1,r+1) ...
    assert set(B.neighbours(4, 3)) == {(5, 2), (5, 3), (3, 2), (3, 3), (4, 2), (4, 4)}
    assert set(B.neighbours(3, 3)) == {(4, 3), (4, 4), (2, 3), (2, 4), (3, 2), (3, 4)}
    assert set(B.neighbours(0, 0)) == {(1, 0), (0, 1)}


def test_deployment_is_the_two_rows_closest_to_each_player():
    # hex.md: "A player may only place units on the two rows of hexes closest to them." (I-2)
    assert B.DEPLOY.sum(axis=1).tolist() == [18, 18]
    assert not (B.DEPLOY[0] & B.DEPLOY[1]).any()
    assert B.deploys_on(0, 3, 1) and not B.deploys_on(0, 3, 2)
    assert B.deploys_on(1, 3, 4) and B.deploys_on(1, 4, 5) and not B.deploys_on(1, 4, 4)
    assert B.from_rank(1, 3, 0) == (3, 5) and B.from_rank(1, 4, 1) == (4, 5)


def test_centre_is_two_hexes_from_both_front_rows_and_the_board_is_mirror_fair():
    front = [B.DIST[B.CENTRE_ID][B.RANK[s] == 1].min() for s in (0, 1)]
    assert front == [2, 2]
    m = B.MIRROR
    assert (m[m] == np.arange(59)).all() and m[B.CENTRE_ID] == B.CENTRE_ID
    assert (B.DIST[np.ix_(m, m)] == B.DIST).all()
    assert (B.DEPLOY[1] == B.DEPLOY[0][m]).all()


def test_back_is_the_hex_in_line_behind():
    # hex.md "Back": "Refers to the hex behind a unit, in line with another unit or hex." (I-4)
    for s in range(59):
        for t in range(59):
            nxt = int(B.LINE[s, t])
            if B.DIST[s, t] != 1:
                assert nxt == B.NOT_IN_LINE
            elif nxt >= 0:
                assert B.DIST[s, nxt] == 2 and B.DIST[t, nxt] == 1
    assert B.behind((3, 3), (2, 3)) == (1, 2)
    assert B.LINE[B.hex_id(1, 3), B.hex_id(0, 3)] == B.OFF_BOARD
    assert B.behind((0, 0), (4, 3)) is None


def test_away_from_steps_farther_and_off_the_map_only_at_the_edge():
    # hex.md "Away From X": "each movement must take that unit further from X, if possible."
    # hex.md "Pushed X": "If a unit is pushed outside of the map, it is destroyed."
    for s in range(59):
        for h in range(59):
            nxt = int(B.AWAY[s, h])
            farther = [int(n) for n in B.NEIGHBOURS[h] if n >= 0 and B.DIST[s, n] == B.DIST[s, h] + 1]
            if farther:
                assert nxt == min(farther)  # I-47: the lowest hex id
            else:
                assert nxt == B.OFF_BOARD
    assert B.AWAY[B.hex_id(4, 1), B.hex_id(4, 0)] == B.OFF_BOARD


def test_pull_follows_a_shortest_path_lowest_id_on_a_tie():
    # hex.md "Pulled X": "The pulled unit must be pulled along the shortest possible path. If two
    # adjacent hexes qualify, you choose which hex." (I-47: lowest hex id)
    for s in range(59):
        for h in range(59):
            nxt = int(B.TOWARD[s, h])
            if s == h:
                assert nxt == -1
                continue
            nearer = [int(n) for n in B.NEIGHBOURS[h] if n >= 0 and B.DIST[s, n] == B.DIST[s, h] - 1]
            assert nearer and nxt == min(nearer)


def test_triads_are_three_mutually_adjacent_hexes_adjacent_to_the_unit():
    # hex.md "Triad": "A group of three hexes adjacent to one another. A triad is considered adjacent
    # to a unit when at least one of its three hexes is adjacent to that unit."
    me = B.hex_id(4, 3)
    triads = B.triads_adjacent_to(4, 3)
    assert triads and len(set(triads)) == len(triads)
    for a, b, c in triads:
        assert B.DIST[a, b] == B.DIST[b, c] == B.DIST[a, c] == 1
        assert min(B.DIST[me, a], B.DIST[me, b], B.DIST[me, c]) == 1
    corner = B.triads_adjacent_to(0, 0)
    assert all(B.DIST[0, x] <= 3 for t in corner for x in t)


def test_chained_hexes_are_unique_and_each_adjacent_to_the_next():
    # hex.md "Chained": "unique units or hexes that are connected to one another"
    assert B.is_chain([(4, 3), (4, 4), (5, 4)])
    assert not B.is_chain([(4, 3), (4, 5)])
    assert not B.is_chain([(4, 3), (4, 4), (4, 3)])


def test_tables_are_small_read_only_int_arrays():
    for t in (B.NEIGHBOURS, B.DIST, B.LINE, B.AWAY, B.TOWARD, B.RANK, B.MIRROR):
        assert t.dtype == np.int8 and not t.flags.writeable
    assert B.NEIGHBOURS.shape == (59, 6) and B.DIST.shape == B.LINE.shape == (59, 59)


def test_a_shortest_path_enters_distance_hexes_each_adjacent_to_the_last():
    # hex.md "Pulled X": "The pulled unit must be pulled along the shortest possible path." (I-23, I-47)
    for a in (0, 13, 29, 58):
        for b in range(59):
            path = B.shortest_path(B.HEXES[a], B.HEXES[b])
            assert len(path) == B.DIST[a, b] and (not path or path[-1] == B.HEXES[b])
            assert B.is_chain([B.HEXES[a], *path])
    assert B.shortest_path((0, 5), (0, 1)) == [(0, 4), (0, 3), (0, 2), (0, 1)]


def test_the_hexes_within_r_are_a_prefix_of_the_hexes_by_distance():
    # kernels visit "the hexes within r" of h as BY_DISTANCE[h, :WITHIN[h, r]] (the threat map)
    for h in range(B.N_HEXES):
        assert sorted(B.BY_DISTANCE[h]) == list(range(B.N_HEXES))
        for r in range(B.MAX_DISTANCE + 1):
            assert set(B.BY_DISTANCE[h, : B.WITHIN[h, r]]) == {x for x in range(B.N_HEXES) if B.DIST[h, x] <= r}

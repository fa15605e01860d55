"""Boards of other row counts (spec choice 1: "rows" is a parameter, 6 by default; ledger R5): one
compiled engine plays them, reading the board's size from the unit array and its tables from
``Rules`` (``board.geometry(rows)``)."""

from __future__ import annotations

import numpy as np
import pytest

from battlesim.ecs.ruleset import get_ruleset
from battlesim.systems.classes.acting import attack
from battlesim.systems.classes.board import LANES
from battlesim.systems.classes.games import compile_for, play_batch
from battlesim.systems.classes.legal import K_FIELD, K_FIRST_ROW, K_INTERSECTION, check_target
from battlesim.systems.classes.state import (
    E_OCCUPIED,
    E_OK,
    G_ENDED,
    P_LIFE,
    T_INTERSECTION,
    T_LANE,
    T_PLAYER,
    U_ATTACK,
    U_CARD,
    U_HAS_ATTACK,
    U_HEALTH,
    U_PRESENT,
    U_RANGE,
    U_SIDE,
    U_UID,
    new_game,
)
from battlesim.systems.classes.units import advance, find_target, units_in_order

DECKS = ("paladin_bulwark", "warlock_pact")


def board(rows: int):  # type: ignore[no-untyped-def]
    """A loaded classes game with ``rows`` rows, its Rules and one empty game on that board."""
    game = get_ruleset("classes").load({"rows": rows})
    R = compile_for(game, DECKS).rules
    return game, R, new_game(1, R.cards.shape[0], rows=rows)


def put(G, f: int, side: int, attack_value: int, reach: int, uid: int) -> None:  # type: ignore[no-untyped-def]
    """A unit of ``side`` on field ``f`` with an Attack and a range (no card: its stats alone)."""
    G.u[0, f, U_PRESENT], G.u[0, f, U_SIDE], G.u[0, f, U_CARD], G.u[0, f, U_UID] = 1, side, -1, uid
    G.u[0, f, U_HEALTH], G.u[0, f, U_HAS_ATTACK], G.u[0, f, U_ATTACK], G.u[0, f, U_RANGE] = 3, 1, attack_value, reach


@pytest.mark.parametrize("rows", [4, 8])
def test_the_far_edge_attack_reaches_the_player_at_the_rows_to_the_edge(rows: int) -> None:
    # classes.md: "If a unit attacks the far edge of its lane ... the attack targets the enemy player
    # directly"; spec §7: the player is at the rows from the unit to the edge it faces
    _, R, G = board(rows)
    assert G.u.shape[1] == LANES * rows
    for side, row in ((0, 1), (1, rows - 2)):
        G.u[:] = 0
        f = row * LANES + 2
        edge = rows - row if side == 0 else row + 1
        put(G, f, side, 2, edge - 1, 1)
        assert find_target(G.u, R, 0, f) == -1  # one row short of the edge: no target
        G.u[0, f, U_RANGE] = edge
        assert find_target(G.u, R, 0, f) == T_PLAYER + (1 - side)
        life = int(G.pl[0, 1 - side, P_LIFE])
        attack(G, R, 0, f, T_PLAYER + (1 - side))
        assert G.pl[0, 1 - side, P_LIFE] == life - 2


@pytest.mark.parametrize("rows", [4, 8])
def test_a_unit_advances_to_the_far_row_and_stops_at_the_edge(rows: int) -> None:
    # classes.md "Advance": "it attempts to move into the field in front of it"; at the last row
    # there is no field in front
    _, R, G = board(rows)
    f = 0 * LANES + 3
    put(G, f, 0, 0, 0, 1)
    G.u[0, f, U_HAS_ATTACK] = 0  # nothing to attack: it always advances
    for row in range(1, rows):
        f = advance(G.u, R, 0, f)
        assert f == row * LANES + 3
    assert advance(G.u, R, 0, f) == f == (rows - 1) * LANES + 3


@pytest.mark.parametrize("rows", [4, 8])
def test_targets_first_rows_and_acting_order_follow_the_board(rows: int) -> None:
    # spec choice 2: "the front row on your side" is row 0 for player 0 and the last row for player 1;
    # classes.md "Unit Acting Order": "row by row, left to right, starting from the row that is most
    # further from you"; "Intersection: where corners of two or more fields meet"
    _, R, G = board(rows)
    assert list(R.targets[K_FIELD, 1:1 + R.targets[K_FIELD, 0]]) == list(range(LANES * rows))
    assert R.targets[K_INTERSECTION, 0] == (LANES - 1) * (rows - 1)
    assert list(R.targets[K_FIRST_ROW, 1:1 + LANES]) == [T_LANE + lane for lane in range(LANES)]
    last = T_INTERSECTION + (LANES - 1) * (rows - 1)
    assert check_target(G.u, 0, 0, K_INTERSECTION, last - 1, False) == E_OK
    assert check_target(G.u, 0, 0, K_INTERSECTION, last, False) != E_OK
    put(G, (rows - 1) * LANES + 1, 1, 1, 1, 1)
    assert check_target(G.u, 0, 1, K_FIRST_ROW, T_LANE + 1, False) == E_OCCUPIED
    assert check_target(G.u, 0, 0, K_FIRST_ROW, T_LANE + 1, False) == E_OK
    put(G, 0, 0, 1, 1, 2)
    out = np.empty(LANES * rows, np.int64)
    assert units_in_order(G.u, R, 0, 0, out) == 2
    assert list(out[:2]) == [(rows - 1) * LANES + 1, 0]  # player 0 starts from the last row
    assert units_in_order(G.u, R, 0, 1, out) == 2
    assert list(out[:2]) == [0, (rows - 1) * LANES + 1]  # "completely opposite order"


@pytest.mark.parametrize("rows", [2, 4, 8, 12])
def test_random_and_greedy_games_on_other_boards_keep_every_invariant(rows: int) -> None:
    # spec choice 1: rows is a parameter; issue 15's invariants (one unit per field, mana conserved,
    # ...) hold after every step of every game on that board
    game = get_ruleset("classes").load({"rows": rows})
    for agents in ((0, 0), (1, 0)):
        bt = play_batch(game, DECKS, np.arange(24, dtype=np.int64), agents, check=True)
        assert bt.G.u.shape[1] == LANES * rows
        assert (bt.out == 0).all(), bt.out
        assert bt.G.g[:, G_ENDED].all()

"""The compiled state's layout: every ``classes_*`` unit component has its column in the unit
table (ledger E4), the tables kernels index stay within their dtypes, and a kernel sees the
game's own arrays through the one-pointer handles (``handle.py``)."""

from __future__ import annotations

import pickle

import numpy as np
from numba import njit

from battlesim.systems.classes.board import geometry
from battlesim.systems.classes.components import COMPONENTS, PREFIX
from battlesim.systems.classes.rules import Rules, target_table
from battlesim.systems.classes.state import (
    G_ACTIVE,
    G_TURN,
    GAME_ARRAYS,
    NU,
    P_LIFE,
    U_HEALTH,
    UNIT_COLUMNS,
    Game,
    new_game,
)
from battlesim.systems.classes.vocabulary import SHAPES


def test_every_unit_component_is_a_column_of_the_unit_table() -> None:
    # DESIGN.md "The World": components in the ruleset's namespace; here, columns of one grouped table
    columns = set(UNIT_COLUMNS)
    for word, comp in COMPONENTS.items():
        if word == "field":
            continue  # the unit table is indexed by field (classes.md "Field: it can contain only one unit")
        if word == "enchanted":  # [player, shape]: one column each
            assert {f"{PREFIX}enchanted_{p}_{s}" for p in (0, 1) for s in SHAPES} <= columns
            continue
        assert comp.name in columns, comp.name
    assert len(UNIT_COLUMNS) == NU == len(columns)


def test_a_new_game_starts_at_turn_one_with_the_life_parameter() -> None:
    # classes.md "Setup": "life points tracker set to 20"; spec §2: "the turn counter counts player turns from 1"
    G = new_game(3, 4, life=20)
    assert (G.pl[:, :, P_LIFE] == 20).all() and (G.g[:, G_TURN] == 1).all() and (G.g[:, G_ACTIVE] == 0).all()


@njit(cache=True, _nrt=False)
def _write_through(G, R, b):  # type: ignore[no-untyped-def]
    """A kernel without the runtime (as every classes kernel) reading and writing through the handles."""
    G.u[b, 2, U_HEALTH] = R.cards[0, 0] + G.g[b, G_TURN]
    return G.u.shape[1] + R.cards.shape[0]


def test_a_kernel_reads_and_writes_the_games_own_arrays_through_one_pointer() -> None:
    # handle.py: Game and Rules reach compiled code as one pointer each; a field is the array itself
    G = new_game(3, 4)
    g = geometry(6)
    R = Rules(np.full((4, 2), 7, np.int32), np.zeros((1, 1), np.int32), np.zeros((1, 1), np.int32),
              np.zeros((0, 3), np.int32), g.search, g.search_distance, g.front, g.acting_order, g.distance,
              g.intersection_distance, g.adjacent, target_table(6))
    assert _write_through(G, R, 1) == G.u.shape[1] + 4
    assert G.u[1, 2, U_HEALTH] == 8 and G.u[0, 2, U_HEALTH] == 0 and G.u[2, 2, U_HEALTH] == 0
    assert [a is b for a, b in zip(G, (G.g, G.u, G.pl))] == [True, True, True] and len(list(G)) == len(GAME_ARRAYS)
    copy = Game(*[a.copy() for a in G])  # the replay's copy: new arrays, the same values
    copy.u[1, 2, U_HEALTH] = 0
    assert G.u[1, 2, U_HEALTH] == 8 and _write_through(copy, R, 1) == G.u.shape[1] + 4
    assert copy.u[1, 2, U_HEALTH] == 8
    back = pickle.loads(pickle.dumps(G))
    assert all(np.array_equal(a, z) for a, z in zip(G, back)) and _write_through(back, R, 0) == G.u.shape[1] + 4

"""The compiled state's layout: every ``classes_*`` unit component has its column in the unit
table (ledger E4), and the tables kernels index stay within their dtypes."""

from __future__ import annotations

from battlesim.systems.classes.components import COMPONENTS, PREFIX
from battlesim.systems.classes.state import G_ACTIVE, G_TURN, NU, P_LIFE, UNIT_COLUMNS, new_game
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

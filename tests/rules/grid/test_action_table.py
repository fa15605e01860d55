"""The flat action table (spec §4 "Decisions for vectorized agents")."""

from __future__ import annotations

from itertools import pairwise

import pytest

from battlesim.systems.grid.action_table import (
    ATTACK,
    END_UNIT,
    HIDE,
    KINDS,
    MOVE,
    PASS,
    PLAY,
    SELECT,
    USE,
    decode,
    default_size,
    encode,
    table_size,
)


def test_sizes_of_the_spec():
    # spec §4: "Size = 3 + C x (3 + K + Hh): 835 at 8x8 (Hh = 7), 1,303 at 10x10."
    assert default_size(8, 8, 7) == 835
    assert default_size(10, 10, 7) == 1303


@pytest.mark.parametrize("cells,k,hand", [(64, 3, 7), (100, 3, 7), (16, 2, 1)])
def test_every_action_decodes_to_itself(cells, k, hand):
    seen = set()
    for a in range(table_size(cells, k, hand)):
        kind, j, c = decode(a, cells, k, hand)
        assert encode(kind, max(j, 0), max(c, 0), cells, k) == a
        seen.add((kind, j, c))
    assert len(seen) == table_size(cells, k, hand)


def test_blocks_in_the_spec_order():
    cells, k, hand = 64, 3, 7
    order = [decode(a, cells, k, hand)[0] for a in range(table_size(cells, k, hand))]
    runs = [order[0]] + [b for a, b in pairwise(order) if a != b]
    assert runs == [PASS, END_UNIT, SELECT, MOVE, ATTACK, USE, HIDE, PLAY]
    assert order.count(SELECT) == order.count(MOVE) == order.count(ATTACK) == cells
    assert order.count(USE) == k * cells and order.count(PLAY) == hand * cells
    assert order.count(HIDE) == order.count(END_UNIT) == order.count(PASS) == 1
    assert len(KINDS) == 8


def test_use_and_play_carry_their_index_and_cell():
    assert decode(encode(USE, 2, 17, 64, 3), 64, 3, 7) == (USE, 2, 17)
    assert decode(encode(PLAY, 6, 63, 64, 3), 64, 3, 7) == (PLAY, 6, 63)
    assert encode(PLAY, 6, 63, 64, 3) == 834

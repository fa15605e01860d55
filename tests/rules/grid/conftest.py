"""Shared fixtures for the grid rules tests (shared/rules/grid.md, reading shared/specs/grid.md).

``picture`` turns a small drawing into a board and its occupancy, so a test reads like the
situation it checks: ``#`` wall, ``~`` web, ``*`` mana pool, ``.`` empty; a capital letter is a
unit of side 0, a small letter a unit of side 1 (the letter is its name). Rows are y = 0, 1, ...
from the top; columns x = 0, 1, ... from the left. (Helpers are fixtures: the test modules have
no ``__init__.py``.)
"""

from __future__ import annotations

import numpy as np
import pytest

from battlesim.systems.grid.board import Board, make_board
from battlesim.systems.grid.card_set import load_card_set
from battlesim.systems.grid.params import GridParams, load_params


class Picture:
    def __init__(self, text: str) -> None:
        rows = [r.split() for r in text.strip().splitlines()]
        self.height, self.width = len(rows), len(rows[0])
        walls, webs, pools, self.units = [], [], [], {}
        for y, row in enumerate(rows):
            assert len(row) == self.width, row
            for x, ch in enumerate(row):
                {"#": walls, "~": webs, "*": pools}.get(ch, []).append((x, y))
                if ch.isalpha():
                    self.units[ch] = (x, y)
        self.board: Board = make_board(self.width, self.height, walls, webs, pools)
        self.occ = np.full(self.board.cells, -1, dtype=np.int8)
        for name, (x, y) in self.units.items():
            self.occ[self.board.cell(x, y)] = 0 if name.isupper() else 1

    def at(self, name: str) -> int:
        """The cell of unit ``name``."""
        x, y = self.units[name]
        return self.board.cell(x, y)

    def side(self, name: str) -> int:
        return 0 if name.isupper() else 1


@pytest.fixture
def picture():
    return Picture


@pytest.fixture(scope="session")
def params() -> GridParams:
    return load_params()


@pytest.fixture(scope="session")
def card_set(params):
    return load_card_set(params)

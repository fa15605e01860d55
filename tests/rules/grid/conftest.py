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


class Played:
    """A scenario written inline, run through ``battlesim scenario``'s engine: ``state`` after the
    steps, ``run`` the runner (its World, legal mask and names), ``error`` the one-line refusal."""

    def __init__(self, path, params, card_set) -> None:
        from battlesim.ecs.datafiles import DataError
        from battlesim.systems.grid.scenario import GridScenarioRun

        self.run = GridScenarioRun(path, params, card_set.specs)
        self.error: str | None = None
        self.state: dict | None = None
        try:
            self.state = self.run.run()
        except DataError as e:
            self.error = str(e)

    def unit(self, name: str) -> dict:
        return next(u for u in self.state["units"] if u["name"] == name)

    def names(self) -> set[str]:
        return {u["name"] for u in self.state["units"]}


@pytest.fixture
def play(tmp_path, params, card_set):
    """``play(toml)``: a grid scenario from text (``ruleset = "grid"`` added), played."""
    count = [0]

    def run(text: str) -> Played:
        count[0] += 1
        path = tmp_path / f"s{count[0]}.toml"
        path.write_text('ruleset = "grid"\n' + text, encoding="utf-8")
        return Played(path, params, card_set)

    return run


def unit_toml(name: str, side: int, x: int, y: int, card: str | None = None, **fields) -> str:
    """One ``[[units]]`` table: ``unit_toml("A", 0, 3, 3, "Footman", hp=1, statuses="{ hidden = true }")``
    (string values that start with ``{`` or ``[`` are written as they are)."""
    lines = ["[[units]]", f"side = {side}", f"x = {x}", f"y = {y}", f'name = "{name}"']
    if card:
        lines.append(f'card = "{card}"')
    for k, v in fields.items():
        if isinstance(v, bool):
            v = str(v).lower()
        elif isinstance(v, str) and not v.startswith(("{", "[")):
            v = f'"{v}"'
        lines.append(f"{k.rstrip('_')} = {v}")
    return "\n".join(lines) + "\n"


def steps_toml(*steps: dict) -> str:
    """``[[steps]]`` tables from dicts (lists written as TOML arrays)."""
    out = []
    for s in steps:
        out.append("[[steps]]")
        for k, v in s.items():
            out.append(f"{k} = {v}" if isinstance(v, list | int) else f'{k} = "{v}"')
    return "\n".join(out) + "\n"


@pytest.fixture
def unit():
    return unit_toml


@pytest.fixture
def steps():
    return steps_toml

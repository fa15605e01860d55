"""The grid scenario format (spec §5), exactly: the keys, their types and defaults.

This module is the shape; systems/grid/scenario_check.py checks what one field says about
another (cells on the board, one unit per cell, the fields each step kind needs) and resolves
names against the card set. Every refusal is one line: ``FILE:LINE: <where>: <what>``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from battlesim.systems.grid.cards import HP_MAX, MV_MAX, NAME_MAX, NAME_PATTERN, RANGE_MAX, SE_MAX, STAT_MAX, Resist
from battlesim.systems.grid.params import MAX_SIDE, MIN_SIDE

Side = Literal[0, 1]
Coord = Annotated[int, Field(ge=0, le=MAX_SIDE - 1)]
# a cell [x, y]; whether it is on this scenario's board is checked against [board]
CellXY = Annotated[list[Coord], Field(min_length=2, max_length=2)]
Name = Annotated[str, Field(min_length=1, max_length=NAME_MAX, pattern=NAME_PATTERN)]
Pair = Annotated[list[Annotated[int, Field(ge=0, le=1_000_000)]], Field(min_length=2, max_length=2)]
SEPair = Annotated[list[Annotated[int, Field(ge=0, le=SE_MAX)]], Field(min_length=2, max_length=2)]
Piles = Annotated[list[list[Name]], Field(min_length=2, max_length=2)]


class BoardSpec(BaseModel):
    """``[board]``: exactly the walls, webs and mana pools listed (no map is loaded)."""

    model_config = ConfigDict(extra="forbid")

    width: int | None = Field(None, ge=MIN_SIDE, le=MAX_SIDE)  # default: the width parameter
    height: int | None = Field(None, ge=MIN_SIDE, le=MAX_SIDE)
    walls: list[CellXY] = Field(default_factory=list)
    webs: list[CellXY] = Field(default_factory=list)
    mana_pools: list[CellXY] = Field(default_factory=list)


class PlayersSpec(BaseModel):
    """``[players]``: each player's gold, SE pool, kill points, hand and draw pile."""

    model_config = ConfigDict(extra="forbid")

    gold: Pair = Field(default_factory=lambda: [0, 0])
    se: SEPair | None = None  # default: the se_start parameter for both
    kill_points: Pair = Field(default_factory=lambda: [0, 0])
    hand: Piles = Field(default_factory=lambda: [[], []])
    deck: Piles = Field(default_factory=lambda: [[], []])  # draw piles, top card first


class UnitSpec(BaseModel):
    """``[[units]]``: a unit on the board; ``card`` gives the stats, every field overrides."""

    model_config = ConfigDict(extra="forbid")

    side: Side
    x: Coord
    y: Coord
    name: Name | None = None  # default: the card's name
    card: Name | None = None
    class_: Literal["warrior", "rogue", "archer", "caster"] | None = Field(None, alias="class")
    hero: bool | None = None
    hp: int | None = Field(None, ge=1, le=HP_MAX)  # current HP; a unit at 0 is dead, not on the board
    max_hp: int | None = Field(None, ge=1, le=HP_MAX)
    mv: int | None = Field(None, ge=0, le=MV_MAX)
    damage: int | None = Field(None, ge=0, le=STAT_MAX)
    damage_type: Literal["physical", "magic", "poison"] | None = None
    range: int | None = Field(None, ge=1, le=RANGE_MAX)
    resist: Resist | None = None
    kill_points: int | None = Field(None, ge=0, le=100)
    keywords: dict[str, bool | int] | None = None
    statuses: dict[str, bool] = Field(default_factory=dict)
    abilities: list[dict] | None = None  # ability tables (card-file schema), checked in scenario_check
    turn_over: bool = False


class Step(BaseModel):
    """``[[steps]]``: one step; which fields each ``do`` needs is checked in scenario_check."""

    model_config = ConfigDict(extra="forbid")

    do: Literal["start_unit_turn", "move", "attack", "ability", "hide", "end_unit_turn", "end_turn", "hire", "play"]
    unit: Name | None = None
    target: Name | None = None
    cell: CellXY | None = None
    to: CellXY | None = None
    at: CellXY | None = None
    ability: Name | None = None
    card: Name | None = None
    side: Side | None = None


class ExpectResist(BaseModel):
    model_config = ConfigDict(extra="forbid")

    physical: int | None = None
    magic: int | None = None
    poison: int | None = None


class ExpectUnit(BaseModel):
    """One ``[[expect.units]]``, matched by ``name``; the fields of the ``--json`` output's units.
    ``absent = true``: no unit of that name is on the board (it died)."""

    model_config = ConfigDict(extra="forbid")

    name: Name
    absent: bool = False
    side: Side | None = None
    x: int | None = None
    y: int | None = None
    card: str | None = None
    class_: str | None = Field(None, alias="class")
    hero: bool | None = None
    hp: int | None = None
    max_hp: int | None = None
    mv: int | None = None
    mv_left: int | None = None
    damage: int | None = None
    damage_type: Literal["physical", "magic", "poison"] | None = None
    range: int | None = None
    resist: ExpectResist | None = None
    kill_points: int | None = None
    keywords: dict[str, bool | int] | None = None
    statuses: dict[str, bool] | None = None
    abilities: list[str] | None = None
    has_turn: bool | None = None
    action_used: bool | None = None
    bonus_used: bool | None = None
    attacked: bool | None = None


class ExpectBoard(BaseModel):
    model_config = ConfigDict(extra="forbid")

    width: int | None = None
    height: int | None = None
    walls: list[list[int]] | None = None
    webs: list[list[int]] | None = None
    mana_pools: list[list[int]] | None = None


class ExpectSpec(BaseModel):
    """``[expect]``: any of the ``--json`` output's keys (spec §5), each optional."""

    model_config = ConfigDict(extra="forbid")

    round: int | None = None
    turn: Side | None = None
    active_unit: str | None = None
    winner: Side | None = None
    draw: bool | None = None
    gold: list[int] | None = Field(None, min_length=2, max_length=2)
    se: list[int] | None = Field(None, min_length=2, max_length=2)
    kill_points: list[int] | None = Field(None, min_length=2, max_length=2)
    hand: list[list[str]] | None = Field(None, min_length=2, max_length=2)
    deck_size: list[int] | None = Field(None, min_length=2, max_length=2)
    cemetery: list[list[str]] | None = Field(None, min_length=2, max_length=2)
    board: ExpectBoard | None = None
    units: list[ExpectUnit] | None = None


class ScenarioSpec(BaseModel):
    """A whole grid scenario file."""

    model_config = ConfigDict(extra="forbid")

    ruleset: Literal["grid"]
    seed: int = Field(0, ge=0, le=2**62)
    round: int = Field(1, ge=1, le=1000)
    turn: Side = 0
    rule: str | list[str] = ""
    description: str = ""
    board: BoardSpec = Field(default_factory=BoardSpec)
    players: PlayersSpec = Field(default_factory=PlayersSpec)
    cards: list[dict] = Field(default_factory=list)  # extra cards, card-file schema (spec §3)
    units: list[UnitSpec] = Field(default_factory=list)
    steps: list[Step] = Field(default_factory=list)
    expect: dict[str, Any] | None = None  # its shape: ExpectSpec (kept as written: the comparison reads it)
    expect_error: str | None = None


class ExpectTable(BaseModel):
    """``[expect]`` under its own name, so an error's field reads ``expect.units[0].hp``."""

    model_config = ConfigDict(extra="forbid")

    expect: ExpectSpec


# what each step kind needs and may have (spec §5's step table); "target|cell": exactly one of them
STEP_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "start_unit_turn": (("unit",), ()),
    "move": (("unit", "to"), ()),
    "attack": (("unit", "target|cell"), ("ability",)),
    "ability": (("unit", "ability"), ("target", "cell")),
    "hide": (("unit",), ()),
    "end_unit_turn": ((), ()),
    "end_turn": ((), ()),
    "hire": (("card", "at"), ("side",)),
    "play": (("card",), ("target", "cell", "unit")),
}


def step_label(i: int, do: str) -> str:
    """How an error names a step (spec §5: ``steps[i] (do)``, i from 0)."""
    return f"steps[{i}] ({do})"

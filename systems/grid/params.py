"""The grid ruleset's parameters (data/rulesets/grid.toml), validated, overridable per run.

Almost every number is a choice the excerpt leaves open (spec §2); the ledger gives the reasons.
Bounds are those of the arrays the values will live in (cells int16, MV int8, SE 0..99).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from battlesim.data import data_dir
from battlesim.ecs.datafiles import load_parameters

# a board up to 16x16: cell ids fit int16, a cell count per game stays small for the compiled core
MAX_SIDE = 16
MIN_SIDE = 4


class GridParams(BaseModel):
    """Every parameter of spec §2 (see data/rulesets/grid.toml for each one's sentence)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    width: int = Field(8, ge=MIN_SIDE, le=MAX_SIDE)
    height: int = Field(8, ge=MIN_SIDE, le=MAX_SIDE)
    # 0: the board is width x height; N: an N x N board (width and height both N), one parameter
    # that a sweep can vary (`sweep --param board_size=8,10,12`), the map centred on it (maps.py)
    board_size: int = Field(0, ge=0, le=MAX_SIDE)
    map: str = Field("crossroads", min_length=1, max_length=80, pattern=r"^[A-Za-z0-9_-]+$")
    deploy_rows: int = Field(2, ge=1, le=MAX_SIDE // 2)
    deck_min: int = Field(20, ge=1, le=200)
    max_copies: int = Field(3, ge=1, le=40)
    starting_hand: int = Field(4, ge=0, le=20)
    hand_limit: int = Field(7, ge=1, le=20)
    gold_start: int = Field(4, ge=0, le=1000)
    gold_per_turn: int = Field(3, ge=0, le=100)
    se_start: int = Field(10, ge=0, le=99)
    se_per_turn: int = Field(2, ge=0, le=99)
    se_cap: int = Field(99, ge=0, le=99)
    hired_units_act: bool = False
    kill_points_to_win: int = Field(10, ge=1, le=1000)
    round_limit: int = Field(20, ge=1, le=1000)
    elimination: bool = False
    aoe_friendly_fire: bool = False

    @model_validator(mode="before")
    @classmethod
    def _square(cls, data: Any) -> Any:
        size = data.get("board_size") if isinstance(data, dict) else None
        if isinstance(size, int) and not isinstance(size, bool) and size:
            if size < MIN_SIDE:
                raise ValueError(f"board_size {size}: a board is at least {MIN_SIDE}x{MIN_SIDE} (0 keeps width "
                                 f"and height)")
            data = {**data, "width": size, "height": size}
        return data

    @model_validator(mode="after")
    def _fits(self) -> GridParams:
        if 2 * self.deploy_rows > self.height:
            raise ValueError(f"deploy_rows {self.deploy_rows}: the two sides' home rows overlap on a board "
                             f"{self.height} high")
        if self.starting_hand > self.hand_limit:
            raise ValueError(f"starting_hand {self.starting_hand} is above hand_limit {self.hand_limit}")
        if self.se_start > self.se_cap:
            raise ValueError(f"se_start {self.se_start} is above se_cap {self.se_cap}")
        return self


def load_params(path: Path | None = None, overrides: dict[str, Any] | None = None) -> GridParams:
    """The parameter file with ``overrides`` applied; unknown keys are errors naming the valid ones."""
    return load_parameters(GridParams, "grid", path or data_dir() / "rulesets" / "grid.toml", overrides)

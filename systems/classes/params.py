"""Ruleset parameters of classes, from ``data/rulesets/classes.toml``, validated.

The numbers the text fixes (life 20, 5 lanes, 3 cooldown slots, base defence 1) and those the
spec chooses (6 rows, 5 shapes, a 60-turn limit). Level thresholds live in the class boards;
``level_threshold_offset`` moves all of them at once (a sweep axis). Lanes, slots and shapes are
pinned to the values the component shapes are built for (``components.py``). ``rows`` loads
(``board.geometry(rows)`` builds that board's tables) but the compiled engine's unit array is laid
out for 6 rows, so a run with other rows is refused in one line (``games.new_batch``; ledger).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from battlesim.data import data_dir
from battlesim.ecs.datafiles import load_parameters
from battlesim.systems.classes.board import LANES, ROWS, ROWS_MAX
from battlesim.systems.classes.vocabulary import COOLDOWN_SLOTS, SHAPES

OFFSET_MAX = 20  # a level threshold stays within powers.EXPERIENCE_MAX (and at least 1)


class ClassesParams(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    life: int = Field(20, ge=1, le=1000)
    lanes: int = Field(LANES, ge=LANES, le=LANES)
    rows: int = Field(ROWS, ge=2, le=ROWS_MAX)
    cooldown_slots: int = Field(COOLDOWN_SLOTS, ge=COOLDOWN_SLOTS, le=COOLDOWN_SLOTS)
    base_defense: int = Field(1, ge=0, le=10)
    shapes: int = Field(len(SHAPES), ge=1, le=len(SHAPES))
    turn_limit: int = Field(60, ge=1, le=10_000)
    # added to every level's maximum experience of both class boards (at least 1 stays), so a sweep
    # can move the level thresholds (issue 15: "sweep over the class parameters (... level thresholds)")
    level_threshold_offset: int = Field(0, ge=-OFFSET_MAX, le=OFFSET_MAX)


def load_params(path: Path | None = None, overrides: dict[str, Any] | None = None) -> ClassesParams:
    """Load the parameter file and apply ``overrides``; unknown keys are errors naming the valid ones."""
    return load_parameters(ClassesParams, "classes", path or data_dir() / "rulesets" / "classes.toml", overrides)

"""Ruleset parameters of classes, from ``data/rulesets/classes.toml``, validated.

The numbers the text fixes (life 20, 5 lanes, 3 cooldown slots, base defence 1) and those the
spec chooses (6 rows, 5 shapes, a 60-turn limit). Level thresholds live in the class boards.
Lanes, slots and shapes are pinned to the values the component shapes are built for
(``components.py``); rows may vary (``board.geometry(rows)`` builds that board's tables), so a
sweep can try them (scenario coordinates assume 6: spec §1).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from battlesim.data import data_dir
from battlesim.ecs.datafiles import load_parameters
from battlesim.systems.classes.board import LANES, ROWS, ROWS_MAX
from battlesim.systems.classes.vocabulary import COOLDOWN_SLOTS, SHAPES


class ClassesParams(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    life: int = Field(20, ge=1, le=1000)
    lanes: int = Field(LANES, ge=LANES, le=LANES)
    rows: int = Field(ROWS, ge=2, le=ROWS_MAX)
    cooldown_slots: int = Field(COOLDOWN_SLOTS, ge=COOLDOWN_SLOTS, le=COOLDOWN_SLOTS)
    base_defense: int = Field(1, ge=0, le=10)
    shapes: int = Field(len(SHAPES), ge=1, le=len(SHAPES))
    turn_limit: int = Field(60, ge=1, le=10_000)


def load_params(path: Path | None = None, overrides: dict[str, Any] | None = None) -> ClassesParams:
    """Load the parameter file and apply ``overrides``; unknown keys are errors naming the valid ones."""
    return load_parameters(ClassesParams, "classes", path or data_dir() / "rulesets" / "classes.toml", overrides)

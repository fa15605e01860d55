"""Ruleset parameters of lanes, from ``data/rulesets/lanes.toml``, validated."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from battlesim.data import data_dir
from battlesim.ecs.datafiles import load_parameters


class LanesParams(BaseModel):
    """Every number the rules text fixes, plus the few it leaves open (see docs/rules/lanes.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    anchor_hp: int = Field(30, ge=1, le=1000)
    essence_hp: int = Field(40, ge=1, le=1000)
    lanes: int = Field(3, ge=3, le=3)
    positions: int = Field(5, ge=1, le=5)
    round_limit: int = Field(50, ge=1, le=1000)
    deck_min: int = Field(40, ge=1, le=200)
    max_copies: int = Field(3, ge=1, le=40)
    heroes: int = Field(5, ge=5, le=5)
    equipment_min: int = Field(10, ge=0, le=100)
    signature_cards: int = Field(3, ge=0, le=10)
    starting_hand: int = Field(5, ge=0, le=20)
    draw_per_round: int = Field(1, ge=0, le=10)
    hand_limit: int = Field(10, ge=1, le=30)
    resources_start: int = Field(3, ge=0, le=100)
    resources_cap: int = Field(10, ge=0, le=100)
    creep_attack: int = Field(1, ge=0, le=100)
    creep_health: int = Field(1, ge=1, le=100)
    hero_death_timer: int = Field(1, ge=0, le=10)
    bounty_unit: int = Field(1, ge=0, le=100)
    bounty_hero: int = Field(5, ge=0, le=100)
    skip_gold: int = Field(5, ge=0, le=100)
    shop_offers: int = Field(3, ge=1, le=3)
    shop_max_tier: int = Field(5, ge=1, le=5)
    lane_mana_per_round: int = Field(1, ge=0, le=20)
    lane_mana_cap: int = Field(5, ge=0, le=50)


def load_params(path: Path | None = None, overrides: dict[str, Any] | None = None) -> LanesParams:
    """Load the parameter file and apply ``overrides``; unknown keys are errors naming the valid ones."""
    return load_parameters(LanesParams, "lanes", path or data_dir() / "rulesets" / "lanes.toml", overrides)

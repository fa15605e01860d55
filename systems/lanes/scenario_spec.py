"""What a scenario file may say, checked before anything is built.

A scenario describes a board a real game could hold: one unit per cell, at most three
improvements per lane and player (lanes.md "Maximum 3 Improvements per lane per player"), two
players with a lane mana pool per lane, no negative gold, stacks or timers, and an ``[expect]``
table of the shape the state has. Anything else is refused here, in one line naming the field,
instead of corrupting the arrays the game is built on (a second unit in a cell silently replaced
the first; a 4th improvement overwrote the first).
"""

from __future__ import annotations

from collections import Counter
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from battlesim.systems.lanes.state import MAX_IMPROVEMENTS, OFFERS

LANES, POSITIONS = 3, 5  # the board a scenario is written for (lanes.md "Board Layout")
# Upper bounds: far beyond any game, well inside the int16/int32 arrays the values are stored in.
STACKS_MAX = 1000
GOLD_MAX = 1_000_000
Lane = Annotated[int, Field(ge=0, le=LANES - 1)]
Pos = Annotated[int, Field(ge=0, le=POSITIONS - 1)]
Side = Literal[0, 1]
Stacks = Annotated[int, Field(ge=0, le=STACKS_MAX)]
# one side's mana pool per lane (lanes.md "Hero Abilities": mana comes from the lane's pool)
LaneMana = Annotated[list[Annotated[int, Field(ge=0, le=100)]], Field(min_length=LANES, max_length=LANES)]


def _keyword_values(keywords: dict[str, int | bool], where: str) -> None:
    """A keyword value is true/false (a flag) or a number within +-1000 (an amount; negative
    armor is a rule: it amplifies damage). Whether the keyword takes a flag or a number is
    checked against the registry when the board is built."""
    for k, v in keywords.items():
        if not isinstance(v, bool) and not -STACKS_MAX <= v <= STACKS_MAX:
            raise ValueError(f"{where} {k!r} = {v}: expected true/false or a number from -{STACKS_MAX} to {STACKS_MAX}")


class UnitSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    side: Side
    lane: Lane
    pos: Pos
    card: str | None = None
    name: str | None = None
    attack: int | None = Field(None, ge=0, le=STACKS_MAX)
    health: int | None = Field(None, ge=1, le=STACKS_MAX)
    max_health: int | None = Field(None, ge=1, le=STACKS_MAX)
    hero: bool | None = None
    creep: bool = False
    faction: Literal["Red", "Blue", "Green", "Black"] | None = None
    keywords: dict[str, int | bool] = Field(default_factory=dict)
    statuses: dict[str, Stacks] = Field(default_factory=dict)
    equipment: str | None = None
    bounty: int = Field(0, ge=-100, le=100)

    @model_validator(mode="after")
    def _inline_needs_stats(self) -> "UnitSpec":
        if self.card is None and (self.attack is None or self.health is None):
            raise ValueError("an inline unit (no 'card') needs 'attack' and 'health'")
        if self.health is not None and self.max_health is not None and self.health > self.max_health:
            raise ValueError(f"health {self.health} is above max_health {self.max_health}")
        _keyword_values(self.keywords, "keyword")
        return self


class AnchorSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    side: Side
    lane: Lane
    hp: int = Field(30, ge=0, le=STACKS_MAX)
    essence: int = Field(40, ge=0, le=STACKS_MAX)
    keywords: dict[str, Stacks] = Field(default_factory=dict)
    aura: int = Field(0, ge=-100, le=100)


class ImprovementSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    side: Side
    lane: Lane
    card: str
    timer: int | None = Field(None, ge=0, le=100)


class PlayersSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gold: list[Annotated[int, Field(ge=0, le=GOLD_MAX)]] = Field(
        default_factory=lambda: [0, 0], min_length=2, max_length=2)
    resources: list[Annotated[int, Field(ge=0, le=100)]] = Field(
        default_factory=lambda: [10, 10], min_length=2, max_length=2)
    initiative: Side = 0
    lane_mana: list[LaneMana] = Field(default_factory=lambda: [[5, 5, 5], [5, 5, 5]], min_length=2, max_length=2)
    hand: list[list[str]] = Field(default_factory=lambda: [[], []], min_length=2, max_length=2)
    # lanes.md "Shop Tiers": tiers 1 to 5
    shop_tier: list[Annotated[int, Field(ge=1, le=5)]] = Field(
        default_factory=lambda: [1, 1], min_length=2, max_length=2)
    # each player's equipment deck (default: their deck's)
    equipment: list[list[str]] | None = Field(None, min_length=2, max_length=2)


class Step(BaseModel):
    model_config = ConfigDict(extra="forbid")

    do: Literal["combat", "round_start", "round_end", "shop", "play", "ability", "activate", "creep_spawn"]
    side: Side | None = None
    card: str | None = None
    lane: Lane | None = None
    pos: Pos | None = None
    slot: int | None = Field(None, ge=0, le=MAX_IMPROVEMENTS - 1)
    target: list[int] | None = Field(None, min_length=3, max_length=3)
    caster: Pos | None = None  # position of the casting hero in the spell's origin lane
    # offers shown by the shop are numbered 0-2 (lanes.md: "3 equipment items to choose from")
    buy: list[list[Annotated[int, Field(ge=0, le=OFFERS - 1)]]] | None = Field(None, min_length=2, max_length=2)
    upgrade: list[bool] | None = Field(None, min_length=2, max_length=2)

    @model_validator(mode="after")
    def _target_on_board(self) -> "Step":
        if self.target is not None:
            side, lane, pos = self.target
            if side not in (0, 1) or not 0 <= lane < LANES or not 0 <= pos < POSITIONS:
                raise ValueError(f"target {self.target}: expected [side 0-1, lane 0-{LANES - 1}, "
                                 f"pos 0-{POSITIONS - 1}]")
        return self


class ExpectUnit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    side: Side
    lane: Lane
    pos: Pos
    absent: bool = False
    name: str | None = None
    attack: int | None = None
    health: int | None = None
    max_health: int | None = None
    hero: bool | None = None
    equipment: str | None = None
    keywords: dict[str, int | bool] | None = None
    statuses: dict[str, int] | None = None


class ExpectAnchor(BaseModel):
    model_config = ConfigDict(extra="forbid")

    side: Side
    lane: Lane
    hp: int | None = None
    essence: int | None = None
    destroyed: bool | None = None


class ExpectImprovement(BaseModel):
    model_config = ConfigDict(extra="forbid")

    side: Side
    lane: Lane
    name: str
    timer: int | None = None


class ExpectSpec(BaseModel):
    """The shape of ``[expect]``: the state's fields (``Scenario.state``), each optional."""

    model_config = ConfigDict(extra="forbid")

    round: int | None = None
    winner: Side | None = None
    draw: bool | None = None
    gold: list[int] | None = Field(None, min_length=2, max_length=2)
    resources: list[int] | None = Field(None, min_length=2, max_length=2)
    hand: list[list[str]] | None = Field(None, min_length=2, max_length=2)
    shop_tier: list[int] | None = Field(None, min_length=2, max_length=2)
    units_count: int | None = Field(None, ge=0)
    units: list[ExpectUnit] | None = None
    anchors: list[ExpectAnchor] | None = None
    improvements: list[ExpectImprovement] | None = None


class ScenarioSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ruleset: Literal["lanes"] = "lanes"
    seed: int = Field(0, ge=0, le=2**62)
    round: int = Field(1, ge=1, le=1000)
    decks: list[str] | None = Field(None, min_length=2, max_length=2)
    description: str = ""
    rule: str | list[str] = ""
    units: list[UnitSpec] = Field(default_factory=list)
    anchors: list[AnchorSpec] = Field(default_factory=list)
    improvements: list[ImprovementSpec] = Field(default_factory=list)
    players: PlayersSpec = Field(default_factory=PlayersSpec)
    steps: list[Step] = Field(default_factory=list)
    cards: list[dict] = Field(default_factory=list)  # extra cards for this scenario (card-file schema)
    expect: dict[str, Any] | None = None  # its shape: ExpectSpec (kept as written: compare reads it)
    expect_error: str | None = None

    @model_validator(mode="after")
    def _a_board_a_game_could_hold(self) -> "ScenarioSpec":
        seen: dict[tuple[int, int, int], int] = {}
        for i, u in enumerate(self.units):
            cell = (u.side, u.lane, u.pos)
            if cell in seen:
                raise ValueError(f"units[{seen[cell]}] and units[{i}] both stand at side {u.side} lane {u.lane} "
                                 f"pos {u.pos} (one unit per cell)")
            seen[cell] = i
        anchors = Counter((a.side, a.lane) for a in self.anchors)
        for (side, lane), n in anchors.items():
            if n > 1:
                raise ValueError(f"anchors: side {side} lane {lane} is given {n} times")
        lanes = Counter((imp.side, imp.lane) for imp in self.improvements)
        for (side, lane), n in lanes.items():
            if n > MAX_IMPROVEMENTS:
                # lanes.md: "Maximum 3 Improvements per lane per player"
                raise ValueError(f"improvements: {n} in side {side} lane {lane}, at most {MAX_IMPROVEMENTS} "
                                 f"per lane per player")
        return self

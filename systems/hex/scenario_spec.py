"""The hex scenario format (spec §8), parsed and checked before anything is built.

A scenario sets up one hex battle (units written inline, no card names), then runs steps
through the systems a real game uses. This module reads the file into a typed structure with
exactly the spec's keys and defaults and refuses, in one line naming the field, anything a game
could not hold: a hex off the 59 (hex.md "Must contain 59 hexes"), two units on one hex at a
turn's end (hex.md "units cannot occupy the same hex as other units at the end of the turn"),
health above max health ("cannot exceed this amount of health"), an unknown keyword or status,
a step without the fields its ``do`` needs. Playing the steps is the engine's (issue 14).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from battlesim.ecs.datafiles import DataError, did_you_mean, locate, printable, read_toml, validate
from battlesim.systems.hex.board import on_board
from battlesim.systems.hex.effect_spec import (
    AMOUNT_MAX,
    ROUNDS_MAX,
    CastRange,
    EffectSpec,
    Name,
    check_keywords,
    check_modifier,
)
from battlesim.systems.hex.vocabulary import DAMAGE_TYPES, STATUSES

Side = Literal[0, 1]
Round = Annotated[int, Field(ge=1, le=ROUNDS_MAX)]  # hex.md: victory is checked "at the end of the 7th round"
Stat = Annotated[int, Field(ge=0, le=AMOUNT_MAX)]
Coord = Annotated[list[int], Field(min_length=2, max_length=2)]
ACTIONS_MAX = 10  # "Every unit has one action each round, by default": card text may grant a few more


class ScenarioError(DataError):
    """A hex scenario file that cannot be loaded as written (one line: file, where, what)."""


def _hex(c: list[int], what: str) -> None:
    if not on_board(*c):
        raise ValueError(f"{what} {c} is not a hex of the map (col 0-8; row 0-6 in even columns, 0-5 in odd)")


class ModifierSpec(BaseModel):
    """One modifier instance (I-35): ``stat`` with ``amount`` (+X/-X, stacking) or ``set`` (Prop X,
    highest wins), or a granted ``keyword`` (with ``amount`` for Keyword X); ``by`` the seat that
    applied it (a buff if own side, a debuff if the enemy's); ``rounds`` until it expires."""

    model_config = ConfigDict(extra="forbid")

    stat: str | None = None
    keyword: str | None = None
    amount: Annotated[int, Field(ge=-AMOUNT_MAX, le=AMOUNT_MAX)] | None = None
    set: Stat | None = None
    by: Side | None = None
    rounds: Round | None = None

    @model_validator(mode="after")
    def _one_change(self) -> "ModifierSpec":
        check_modifier(self.stat, self.keyword, self.amount, self.set, None)
        return self


class AbilitySpec(BaseModel):
    """An inline active ability of a scenario unit (spec §8 ``abilities``)."""

    model_config = ConfigDict(extra="forbid")

    name: Name
    cost: Stat = 0
    cast_range: CastRange = None
    target: Literal["enemy", "ally", "unit", "hex", "self", "none"]
    once_per_round: bool = False
    once_per: Literal["round", "battle"] | None = None
    combinable: bool = False
    spell_power: Stat = 0
    channel: Annotated[int, Field(ge=1, le=ROUNDS_MAX)] | None = None
    effects: list[EffectSpec] = Field(min_length=1)


class UnitSpec(BaseModel):
    """A unit on the board (spec §8 ``[[units]]``). Defaults are filled in after checking:
    ``controller`` = side, ``max_health`` = health, ``max_mana`` = mana, ``actions`` = 1
    (0 when ``exhausted``), ``types`` without the ``#``."""

    model_config = ConfigDict(extra="forbid")

    side: Side
    controller: Side | None = None
    col: int
    row: int
    name: Name
    power: Stat | None = None
    range: Annotated[int, Field(ge=1, le=AMOUNT_MAX)] | None = None
    movement: Stat | None = None
    health: Annotated[int, Field(ge=1, le=AMOUNT_MAX)]
    max_health: Annotated[int, Field(ge=1, le=AMOUNT_MAX)] | None = None
    mana: Stat | None = None
    max_mana: Stat | None = None
    hero: bool = False
    types: list[Annotated[str, Field(pattern=r"^#?[a-z][a-z_]*$", max_length=40)]] = Field(default_factory=list)
    keywords: dict[str, int | bool] = Field(default_factory=dict)
    statuses: dict[str, Annotated[int, Field(ge=0, le=AMOUNT_MAX)]] = Field(default_factory=dict)
    modifiers: list[ModifierSpec] = Field(default_factory=list)
    exhausted: bool | None = None
    actions: Annotated[int, Field(ge=0, le=ACTIONS_MAX)] | None = None
    abilities: list[AbilitySpec] = Field(default_factory=list)

    @model_validator(mode="after")
    def _a_unit_a_game_could_hold(self) -> "UnitSpec":
        _hex([self.col, self.row], "hex")
        if self.max_health is None:
            self.max_health = self.health
        elif self.health > self.max_health:
            raise ValueError(f"health {self.health} is above max_health {self.max_health}")
        if self.mana is None:
            if self.max_mana is not None:
                raise ValueError("max_mana without mana (a unit without mana has NULL mana)")
        elif self.max_mana is None:
            self.max_mana = self.mana
        elif self.mana > self.max_mana:
            raise ValueError(f"mana {self.mana} is above max_mana {self.max_mana}")
        check_keywords(self.keywords)
        for name, value in self.statuses.items():
            status = STATUSES.get(name)
            if status is None:
                raise ValueError(f"statuses: unknown status {name!r}{did_you_mean(name, STATUSES)}; "
                                 f"statuses: {', '.join(STATUSES)}")
            if status.kind == "timed" and not 0 <= value <= ROUNDS_MAX:
                raise ValueError(f"statuses: {name} = {value}: rounds left, 0 to {ROUNDS_MAX}")
        if self.exhausted is not None and self.actions is not None:
            raise ValueError("give exhausted or actions, not both")
        self.actions = 0 if self.exhausted else (1 if self.actions is None else self.actions)
        self.exhausted = self.actions == 0
        if self.controller is None:
            self.controller = self.side
        self.types = [t.lstrip("#") for t in self.types]
        for m in self.modifiers:
            if m.by is None:
                m.by = self.side  # "A buff is any status effect placed on a unit by one of its allies."
        return self


class StepSpec(BaseModel):
    """One ``[[steps]]`` table: ``do`` and the fields of spec §8's table (which ones a ``do``
    needs and allows is checked by ``check_steps``, so the error can name the step)."""

    model_config = ConfigDict(extra="forbid")

    do: Literal["move", "attack", "ability", "skip", "push", "pull", "damage", "heal", "round_start", "round_end"]
    unit: Coord | None = None
    to: Coord | None = None
    path: list[Coord] | None = None
    target: Coord | None = None
    approach: Coord | None = None
    retreat: Coord | None = None
    ability: Name | None = None
    move_to: Coord | None = None
    move_first: bool | None = None
    source: Coord | None = None
    toward: Coord | None = None
    amount: Annotated[int, Field(ge=0, le=AMOUNT_MAX)] | None = None
    type: Literal["physical", "magical", "pure"] | None = None
    nonlethal: bool | None = None
    ranged: bool | None = None
    combat: bool | None = None


# spec §8's table: do -> (required fields, optional fields)
STEP_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "move": (("unit", "to"), ("path",)),
    "attack": (("unit", "target"), ("approach", "path", "retreat")),
    "ability": (("unit", "ability"), ("target", "move_to", "move_first")),
    "skip": (("unit",), ()),
    "push": (("unit", "source", "amount"), ("path",)),
    "pull": (("unit", "toward", "amount"), ("path",)),
    "damage": (("target", "amount", "type"), ("source", "nonlethal", "ranged", "combat")),
    "heal": (("target", "amount"), ()),
    "round_start": ((), ()),
    "round_end": ((), ()),
}
COORD_FIELDS = ("unit", "to", "target", "approach", "retreat", "move_to", "source", "toward")
assert set(DAMAGE_TYPES) == {"physical", "magical", "pure"}


class ExpectUnit(BaseModel):
    """``[[expect.units]]``: matched by ``col, row``; ``absent = true`` = the hex is empty."""

    model_config = ConfigDict(extra="forbid")

    col: int
    row: int
    absent: bool = False
    side: Side | None = None
    controller: Side | None = None
    name: str | None = None
    hero: bool | None = None
    types: list[str] | None = None
    power: int | None = None
    range: int | None = None
    movement: int | None = None
    health: int | None = None
    max_health: int | None = None
    mana: int | None = None
    max_mana: int | None = None
    keywords: dict[str, int | bool] | None = None
    statuses: dict[str, int] | None = None
    exhausted: bool | None = None
    actions: int | None = None

    @model_validator(mode="after")
    def _on_board(self) -> "ExpectUnit":
        _hex([self.col, self.row], "hex")
        return self


class ExpectSpec(BaseModel):
    """``[expect]``: the ``--json`` output's top-level fields, ``units_count`` and ``units``."""

    model_config = ConfigDict(extra="forbid")

    round: Round | None = None
    winner: Side | None = None
    first_player: Side | None = None
    to_act: Side | None = None
    last_actor: Side | None = None
    centre_shield: bool | None = None
    units_count: Annotated[int, Field(ge=0, le=59)] | None = None
    units: list[ExpectUnit] | None = None


class HexScenario(BaseModel):
    """A whole hex scenario file (spec §8). ``to_act`` defaults to ``first_player``."""

    model_config = ConfigDict(extra="forbid")

    ruleset: Literal["hex"]
    seed: Annotated[int, Field(ge=0, le=2**62)] = 0
    round: Round = 1
    first_player: Side = 0
    to_act: Side | None = None
    last_actor: Side | None = None
    centre_shield: bool = True
    rule: str | list[str] = ""
    description: str = ""
    units: list[UnitSpec] = Field(default_factory=list)
    steps: list[StepSpec] = Field(default_factory=list)
    expect: ExpectSpec | None = None
    expect_error: str | None = None

    @model_validator(mode="after")
    def _one_unit_per_hex(self) -> "HexScenario":
        seen: dict[tuple[int, int], int] = {}
        for i, u in enumerate(self.units):
            if (u.col, u.row) in seen:
                raise ValueError(f"units[{seen[(u.col, u.row)]}] and units[{i}] both stand on ({u.col}, {u.row}) "
                                 "(units cannot occupy the same hex at the end of a turn)")
            seen[(u.col, u.row)] = i
        if self.to_act is None:
            self.to_act = self.first_player
        return self


def check_steps(spec: HexScenario, path: Any, text: str) -> None:
    """Each step has exactly the fields its ``do`` needs and allows, its hexes on the map, and a
    move's ``path`` ending at ``to``; errors read ``FILE:LINE: steps[i] (do): what``."""
    for i, step in enumerate(spec.steps):
        required, optional = STEP_FIELDS[step.do]
        given = {k for k in StepSpec.model_fields if k != "do" and getattr(step, k) is not None}
        line = locate(text, ["steps", i]) if text else None
        where = f"{path}:{line}" if line else f"{path}"

        def bad(what: str, where: str = where, i: int = i, do: str = step.do) -> ScenarioError:
            return ScenarioError(f"{where}: steps[{i}] ({do}): {printable(what)}")

        for k in required:
            if k not in given:
                raise bad(f"needs {k!r}")
        extra = sorted(given - set(required) - set(optional))
        if extra:
            allowed = ", ".join((*required, *optional)) or "no fields"
            raise bad(f"has no field {extra[0]!r} (fields: {allowed})")
        for k in COORD_FIELDS:
            c = getattr(step, k)
            if c is not None and not on_board(*c):
                raise bad(f"{k} {c} is not a hex of the map")
        for c in step.path or []:
            if not on_board(*c):
                raise bad(f"path hex {c} is not a hex of the map")
        if step.path is not None:
            end = step.to or step.target
            if not step.path:
                raise bad("path is empty")
            if step.do == "move" and step.path[-1] != end:
                raise bad(f"path ends at {step.path[-1]}, not at 'to' {end}")
        if step.do in ("push", "pull") and step.amount is not None and step.amount < 1:
            raise bad("amount must be >= 1")


def load_hex_scenario(path: Any) -> HexScenario:
    """Read, check and return a hex scenario file; every error is one ScenarioError line."""
    try:
        raw, text = read_toml(path)
        if raw.get("ruleset") != "hex":
            got = raw.get("ruleset")
            raise ScenarioError(f"{path}: field 'ruleset': expected \"hex\", got {printable(repr(got))}")
        spec = validate(HexScenario, raw, path, text)
    except ScenarioError:
        raise
    except DataError as e:
        raise ScenarioError(str(e)) from None
    check_steps(spec, path, text)
    return spec

"""What one effect, one ability and one cost may say in classes' card, board and scenario files.

Shared by cards (``cards.py``) and class-board powers (``powers.py``): an effect is the same
thing whether a spell, a unit or a power carries it. Checked as written, in one line per error;
a name outside the vocabulary is refused with the known names, never defaulted.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from battlesim.ecs.datafiles import did_you_mean, printable
from battlesim.systems.classes.conditions import condition_names
from battlesim.systems.classes.vocabulary import (
    AURA_OPS,
    COLOURS,
    COST_COLOURS,
    OPS,
    PLAYER_SELECTORS,
    RANGE_MAX,
    SELECTORS,
    SELF_OPS,
    TARGET_KINDS,
    TRIGGERS,
)

# Mana counts live in int8 pools and tracks; far beyond any card, far inside the dtype.
MANA_MAX = 20
AMOUNT_MAX = 100  # damage, heal and gains are int16 on the unit; a card never comes near
NAME_MAX = 80
NAME_PATTERN = r"^[^\x00-\x1f\x7f-\x9f]+$"
Name = Annotated[str, Field(min_length=1, max_length=NAME_MAX, pattern=NAME_PATTERN)]
TargetKind = Literal["none", "unit", "enemy_unit", "allied_unit", "player", "field", "intersection", "first_row"]


def check_cost(cost: dict[str, int], colours: tuple[str, ...] = COST_COLOURS) -> dict[str, int]:
    """A cost or a pool: known colours only, each 0..MANA_MAX."""
    for colour, n in cost.items():
        if colour not in colours:
            raise ValueError(f"unknown colour {printable(colour)!r}{did_you_mean(colour, colours)}; "
                             f"known: {', '.join(colours)}")
        if not 0 <= n <= MANA_MAX:
            raise ValueError(f"{colour} = {n}: expected 0 to {MANA_MAX}")
    return cost


class EffectSpec(BaseModel):
    """One effect: ``{ op = "damage", select = "chosen", amount = 2 }`` (spec §14)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    trigger: str = "on_cast"
    op: str
    select: str | None = None
    amount: int | None = Field(None, ge=0, le=AMOUNT_MAX)
    stat: Literal["attack", "health"] | None = None
    condition: str | None = None
    colour: str | None = None
    steps: int | None = Field(None, ge=1, le=3)
    card: Name | None = None
    card_type: Name | None = None
    range: int | None = Field(None, ge=0, le=RANGE_MAX)
    per_token: bool | None = None

    @model_validator(mode="after")
    def _fields_of_the_op(self) -> EffectSpec:
        if self.trigger not in TRIGGERS:
            raise ValueError(f"unknown trigger {printable(self.trigger)!r}{did_you_mean(self.trigger, TRIGGERS)}; "
                             f"known: {', '.join(TRIGGERS)}")
        if self.op not in OPS:
            raise ValueError(f"unknown op {printable(self.op)!r}{did_you_mean(self.op, OPS)}; known: {', '.join(OPS)}")
        _, required, optional = OPS[self.op]
        given = {k for k in type(self).model_fields if k not in ("trigger", "op") and getattr(self, k) is not None}
        for k in required:
            if k not in given:
                raise ValueError(f"op {self.op!r} needs {k!r}")
        extra = sorted(given - set(required) - set(optional) - ({"range"} if self.select == "enemies_in_range" else set()))
        if extra:
            raise ValueError(f"op {self.op!r} takes no {extra[0]!r} (it takes: {', '.join(required + optional) or 'nothing'})")
        if self.select is not None and self.select not in SELECTORS:
            raise ValueError(f"unknown selector {printable(self.select)!r}{did_you_mean(self.select, SELECTORS)}; "
                             f"known: {', '.join(SELECTORS)}")
        if self.select == "enemies_in_range" and self.range is None:
            raise ValueError("selector 'enemies_in_range' needs 'range'")
        known = condition_names()  # the text's and the loaded plugins'
        if self.condition is not None and self.condition not in known:
            raise ValueError(f"unknown condition {printable(self.condition)!r}{did_you_mean(self.condition, known)}; "
                             f"known: {', '.join(known)}")
        if self.colour is not None and self.colour not in COLOURS:
            raise ValueError(f"unknown colour {printable(self.colour)!r}{did_you_mean(self.colour, COLOURS)}; "
                             f"known: {', '.join(COLOURS)}")
        if self.select in PLAYER_SELECTORS and self.op != "damage":
            raise ValueError(f"op {self.op!r} acts on units; selector {self.select!r} is a player")
        if self.op == "add_token" and self.trigger != "on_cast":
            raise ValueError("op 'add_token' is a power ability's effect")
        if self.trigger == "aura" and self.op not in AURA_OPS:
            raise ValueError(f"an aura only gains a stat (spec §8: derived each time it is read); got op {self.op!r}")
        if self.trigger == "aura" and self.select in ("chosen", *PLAYER_SELECTORS):
            raise ValueError(f"an aura applies to units by rule, not to {self.select!r}")
        return self

    @property
    def needs_target(self) -> bool:
        """Whether the effect reads the chosen target (``select = "chosen"`` or a range origin)."""
        return self.select in ("chosen", "enemies_in_range") or self.op == "summon"

    @property
    def on_self(self) -> bool:
        return self.op in SELF_OPS


class AbilitySpec(BaseModel):
    """A ► ability (classes.md "Using a Class Ability": "The text on the left side contains
    requirements that need to be paid or fulfilled to receive the benefit on the right side";
    "a clock icon ... limits usage of that ability to once per player turn")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Name | None = None
    cost: dict[str, int] = Field(default_factory=dict)
    clock: bool = False
    target: TargetKind = "none"
    tokens: int = Field(0, ge=0, le=10)  # power abilities: tokens the power must hold
    effects: list[EffectSpec] = Field(min_length=1)

    @field_validator("cost")
    @classmethod
    def _colours(cls, v: dict[str, int]) -> dict[str, int]:
        return check_cost(v)

    @model_validator(mode="after")
    def _target_fits(self) -> AbilitySpec:
        check_target(self.target, self.effects)
        for e in self.effects:
            if e.trigger != "on_cast":
                raise ValueError(f"an ability's effects resolve when it is used (no trigger); got {e.trigger!r}")
        return self


def check_target(target: str, effects: list[EffectSpec]) -> None:
    """A chosen target must be asked for, and only when something reads it."""
    reads = [e for e in effects if e.needs_target and e.trigger in ("on_cast", "on_summon")]
    if target == "none" and reads:
        raise ValueError(f"effect {reads[0].op!r} with select {reads[0].select!r} needs a 'target' "
                         f"(one of {', '.join(TARGET_KINDS[1:])})")
    if target != "none" and not reads:
        raise ValueError(f"target {target!r} is asked for but no effect reads it (select = 'chosen')")
    for e in reads:
        if e.op == "summon" and target != "first_row":
            raise ValueError("op 'summon' needs target 'first_row' (classes.md: 'place its card on an empty spot "
                             "in the front row on your side')")
        if e.select == "enemies_in_range" and target not in ("field", "intersection", "unit", "enemy_unit", "allied_unit"):
            raise ValueError(f"selector 'enemies_in_range' counts from a field, an intersection or a unit, not {target!r}")
        if e.select == "chosen" and e.op in ("damage",) and target in ("field", "intersection", "first_row"):
            raise ValueError(f"op 'damage' on 'chosen' needs a unit or player target, not {target!r}")
        if e.select == "chosen" and e.op not in ("damage", "summon") and target in ("player", "field", "intersection",
                                                                                     "first_row"):
            raise ValueError(f"op {e.op!r} acts on a unit; target {target!r} is not one")

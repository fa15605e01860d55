"""What an effect, an inline active ability, a modifier and a keyword table may say (cards and
scenarios share them, so a scenario's inline ability is checked exactly like a card's).

Every name is resolved here: an unknown op, selector, status, stat or keyword is an error naming
the field (with "did you mean"), never a default (DESIGN "Data files"). Numbers are bounded by
the int16 columns they will live in and, far below that, by what a 59-hex, 7-round game can use.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from battlesim.ecs.datafiles import did_you_mean
from battlesim.systems.hex.board import MAX_DISTANCE
from battlesim.systems.hex.vocabulary import (
    APPLIED_STATUSES,
    COUNTER_APPLIED,
    DAMAGE_TYPES,
    KEYWORDS,
    OPS,
    QUALIFIERS,
    RELOCATE_TO,
    SELECTORS,
    STATS,
    TARGETS,
)

AMOUNT_MAX = 100  # far beyond any card; well inside int16
ROUNDS_MAX = 7  # hex.md: the battle lasts 7 rounds
NAME_MAX = 80
NAME_PATTERN = r"^[^\x00-\x1f\x7f-\x9f]+$"  # a name is printed in tables and replays: no control characters
Name = Annotated[str, Field(min_length=1, max_length=NAME_MAX, pattern=NAME_PATTERN)]
Amount = Annotated[int, Field(ge=-AMOUNT_MAX, le=AMOUNT_MAX)]
Rounds = Annotated[int, Field(ge=1, le=ROUNDS_MAX)]
# hex.md "If no ability range is specified, the ability's range is infinite." (None); "An ability
# that targets an adjacent unit does not use a number" ("adjacent").
CastRange = Annotated[int, Field(ge=0, le=MAX_DISTANCE)] | Literal["adjacent"] | None


def check_keywords(keywords: dict[str, int | bool], where: str = "keywords") -> None:
    """Names of spec §3; ``X`` a number 1..100, a tag ``true``, ``X|all`` either (I-32)."""
    for name, value in keywords.items():
        kw = KEYWORDS.get(name)
        if kw is None:
            raise ValueError(f"{where}: unknown keyword {name!r}{did_you_mean(name, KEYWORDS)}")
        if isinstance(value, bool):
            if kw.arg == "X":
                raise ValueError(f"{where}: {name} takes a number (\"{name} = 1\"), got true/false")
            if value is False:
                raise ValueError(f"{where}: {name} = false: leave the keyword out instead")
        elif kw.arg == "tag":
            raise ValueError(f"{where}: {name} is a tag: write {name} = true, got {value}")
        elif not 1 <= value <= AMOUNT_MAX:
            raise ValueError(f"{where}: {name} = {value}: expected a number from 1 to {AMOUNT_MAX}")


class EffectSpec(BaseModel):
    """One effect row (spec §5 "Effect ops (v1)"): ``op``, the units it hits (``select``) and
    the fields its op reads (vocabulary.OPS says which are required and which allowed)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    op: str
    select: str = "target"
    amount: Amount | None = None
    type: str | None = None
    nonlethal: bool | None = None
    status: str | None = None
    rounds: Rounds | None = None
    stat: str | None = None
    keyword: str | None = None
    set: Annotated[int, Field(ge=0, le=AMOUNT_MAX)] | None = None
    only: str | None = None
    to: str | None = None
    card: Name | None = None

    @model_validator(mode="after")
    def _fields_of_its_op(self) -> "EffectSpec":
        op = OPS.get(self.op)
        if op is None:
            raise ValueError(f"unknown op {self.op!r}{did_you_mean(self.op, OPS)}; ops: {', '.join(OPS)}")
        if self.select not in SELECTORS:
            raise ValueError(f"unknown select {self.select!r}{did_you_mean(self.select, SELECTORS)}")
        given = {k for k in type(self).model_fields if k not in ("op", "select") and getattr(self, k) is not None}
        for k in op.required:
            if k not in given:
                raise ValueError(f"op {self.op!r} needs {k!r}")
        extra = sorted(given - set(op.required) - set(op.optional))
        if extra:
            raise ValueError(f"op {self.op!r} has no field {extra[0]!r}")
        if self.type is not None and self.type not in DAMAGE_TYPES:
            raise ValueError(f"type {self.type!r}: expected one of {', '.join(DAMAGE_TYPES)}")
        if self.op in ("heal", "shield", "push", "pull") and self.amount is not None and self.amount < 1:
            raise ValueError(f"op {self.op!r}: amount must be >= 1, got {self.amount}")
        if self.op == "damage" and self.amount is not None and self.amount < 0:
            raise ValueError(f"op 'damage': amount must be >= 0, got {self.amount}")
        if self.op == "status":
            self._check_status()
        if self.op == "modifier":
            check_modifier(self.stat, self.keyword, self.amount, self.set, self.only)
        if self.to is not None and self.to not in RELOCATE_TO:
            raise ValueError(f"to {self.to!r}: expected one of {', '.join(RELOCATE_TO)}")
        return self

    def _check_status(self) -> None:
        name = self.status or ""
        if name not in APPLIED_STATUSES:
            raise ValueError(f"unknown status {name!r}{did_you_mean(name, APPLIED_STATUSES)}; "
                             f"statuses: {', '.join(APPLIED_STATUSES)}")
        if name in COUNTER_APPLIED:
            if self.amount is None or self.amount < 1 or self.rounds is not None:
                raise ValueError(f"status {name!r} sets counters: give amount >= 1 (no rounds)")
        elif self.rounds is None or self.amount is not None:
            raise ValueError(f"status {name!r} lasts: give rounds (1 = this round), no amount")


def check_modifier(stat: str | None, keyword: str | None, amount: int | None, set_: int | None,
                   only: str | None) -> None:
    """A modifier changes one stat (``amount`` "+X Prop" stacks, ``set`` "Prop X" takes the
    highest: hex.md "Modifying properties") or grants one keyword (with its X as ``amount``)."""
    if (stat is None) == (keyword is None):
        raise ValueError("a modifier names exactly one of 'stat' or 'keyword'")
    if stat is not None:
        if stat not in STATS:
            raise ValueError(f"unknown stat {stat!r}{did_you_mean(stat, STATS)}; stats: {', '.join(STATS)}")
        if (amount is None) == (set_ is None):
            raise ValueError(f"modifier of {stat!r}: give exactly one of 'amount' (+X/-X) or 'set' (Prop X)")
        if amount == 0:
            raise ValueError(f"modifier of {stat!r}: amount 0 changes nothing")
    else:
        if set_ is not None:
            raise ValueError("a keyword modifier has no 'set' (give amount for Keyword X)")
        kw = KEYWORDS.get(keyword or "")
        if kw is None:
            raise ValueError(f"unknown keyword {keyword!r}{did_you_mean(keyword, KEYWORDS)}")
        if kw.arg == "X" and (amount is None or amount < 1):
            raise ValueError(f"keyword {keyword!r} takes X: give amount >= 1")
        if kw.arg == "tag" and amount is not None:
            raise ValueError(f"keyword {keyword!r} is a tag: no amount")
    if only is not None and only not in QUALIFIERS:
        raise ValueError(f"only {only!r}: expected one of {', '.join(QUALIFIERS)}")


class PassiveModifier(BaseModel):
    """A basic property modifier or granted keyword printed on an ability or item (hex.md
    "Basic property modifiers may also be stated here")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    stat: str | None = None
    keyword: str | None = None
    amount: Amount | None = None
    set: Annotated[int, Field(ge=0, le=AMOUNT_MAX)] | None = None
    only: str | None = None

    @model_validator(mode="after")
    def _one_change(self) -> "PassiveModifier":
        check_modifier(self.stat, self.keyword, self.amount, self.set, self.only)
        return self


class PassiveSpec(BaseModel):
    """What an ability or item gives its hero while the hero lives (hex.md "Item cards only affect
    the hero belonging to the same kingdom"; "do not affect the battlefield after the owning hero
    is dead")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    keywords: dict[str, int | bool] = Field(default_factory=dict)
    modifiers: list[PassiveModifier] = Field(default_factory=list)

    @model_validator(mode="after")
    def _known(self) -> "PassiveSpec":
        check_keywords(self.keywords, "passive.keywords")
        if not self.keywords and not self.modifiers:
            raise ValueError("an empty passive: give keywords or modifiers, or leave it out")
        return self


class ActiveSpec(BaseModel):
    """An active ability written on a card (hex.md "[Ability Name] – [Ability Cost]/[Ability
    Range]: [Ability Effect]"): a unit's own, an item's, or an ability card's body."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Name
    cost: Annotated[int, Field(ge=0, le=AMOUNT_MAX)] = 0  # "If no mana cost is specified, ... zero."
    cast_range: CastRange = None
    target: Literal["enemy", "ally", "unit", "hex", "self", "none"]
    once_per: Literal["round", "battle"] | None = None
    combinable: bool = False
    channel: Annotated[int, Field(ge=1, le=ROUNDS_MAX)] | None = None
    spell_power: Annotated[int, Field(ge=0, le=AMOUNT_MAX)] = 0
    effects: list[EffectSpec] = Field(min_length=1)
    text: str = ""

    @model_validator(mode="after")
    def _targets(self) -> "ActiveSpec":
        assert self.target in TARGETS
        if self.target == "self" and self.cast_range is not None:
            raise ValueError("target 'self' has no cast_range")
        return self

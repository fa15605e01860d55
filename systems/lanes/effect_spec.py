"""What one effect row of a card file may say, and an activated ability's shape.

An effect is a trigger, an opcode, a selector and the opcode's own parameters; every word is
checked against the registered vocabulary (systems/lanes/vocabulary.py, selectors.py,
opcodes.py, and what plugins declare), so a misspelled word is an error at load that names it
and suggests the closest one, never a game that silently does nothing.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from battlesim.components.keywords import KEYWORDS, STATUSES
from battlesim.ecs.datafiles import did_you_mean, explain, printable
from battlesim.ecs.plugin import plugins_summary
from battlesim.systems.lanes.vocabulary import AURA_KEYWORDS, AURA_OPCODES, EXECUTOR


def _registered(kind: str, name: str) -> str:
    reg = {"trigger": EXECUTOR.triggers, "opcode": EXECUTOR.opcodes, "selector": EXECUTOR.selectors}[kind]
    if name not in reg:
        raise ValueError(f"unknown {kind} {printable(name)!r}{did_you_mean(name, reg)}; known: {', '.join(reg)}; "
                         f"{plugins_summary()}")
    return name


class EffectSpec(BaseModel):
    """One effect row: when (trigger), what (op), on whom (select), how much (amount) and the
    op's own parameters. Checked against the registered vocabulary (systems/lanes/vocabulary.py,
    selectors.py, opcodes.py); an unknown word is an error naming it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    trigger: str
    op: str
    select: str | None = None
    amount: int = Field(0, ge=-100, le=100)
    stat: Literal["attack", "health", "both"] | None = None
    duration: Literal["permanent", "round"] = "permanent"
    status: str | None = None
    keyword: str | None = None
    card: str | None = None
    direction: Literal["left", "right", "toward"] | None = None
    range: int | None = Field(None, ge=1, le=5)

    @model_validator(mode="after")
    def _known(self) -> "EffectSpec":
        _registered("trigger", self.trigger)
        _registered("opcode", self.op)
        if self.select is not None:
            _registered("selector", self.select)
        op = EXECUTOR.opcodes[self.op]
        for fname in ("stat", "status", "keyword", "card", "direction", "range"):
            if getattr(self, fname) is not None and fname not in op.params and not (
                fname == "range" and self.select and self.select.endswith("_in_range")
            ):
                raise ValueError(f"op {self.op!r} takes no {fname!r} (it takes: {', '.join(op.params) or 'nothing'})")
        for fname in op.params:
            if fname in ("stat", "status", "keyword", "card", "direction") and getattr(self, fname) is None \
                    and fname in REQUIRED_PARAMS.get(self.op, ()):
                raise ValueError(f"op {self.op!r} needs {fname!r}")
        if self.status is not None and self.status not in STATUSES:
            raise ValueError(f"unknown status {printable(self.status)!r}{did_you_mean(self.status, STATUSES)}; known: {', '.join(STATUSES)}; {plugins_summary()}")
        if self.keyword is not None and self.keyword not in KEYWORDS:
            raise ValueError(f"unknown keyword {printable(self.keyword)!r}{did_you_mean(self.keyword, KEYWORDS)}; known: {', '.join(KEYWORDS)}; {plugins_summary()}")
        if self.op == "enchant_anchor":
            if (self.keyword is None) == (self.stat is None):
                raise ValueError("enchant_anchor takes either a keyword (armor, retaliate, regeneration) or stat = 'attack'")
            if self.keyword is not None and self.keyword not in ("armor", "retaliate", "regeneration"):
                raise ValueError("an anchor can be enchanted with armor, retaliate or regeneration")
            if self.stat is not None and self.stat != "attack":
                raise ValueError("an anchor's lane aura gives attack")
        if self.select and self.select.endswith("_in_range") and self.range is None:
            raise ValueError(f"selector {self.select!r} needs 'range'")
        if self.trigger == "while_in_lane":
            if self.op not in AURA_OPCODES:
                raise ValueError(f"a while_in_lane (aura) effect must be one of {AURA_OPCODES}, not {self.op!r}")
            if self.op == "grant_keyword" and self.keyword not in AURA_KEYWORDS:
                raise ValueError(f"auras may grant {AURA_KEYWORDS} only")
            if self.op == "buff" and self.stat != "attack":
                raise ValueError("an aura buff must have stat = 'attack'")
        return self


# Parameters an opcode cannot do without.
REQUIRED_PARAMS = {
    "buff": ("stat",), "grant_keyword": ("keyword",), "apply_status": ("status",), "summon": ("card",),
    "push": ("direction",), "swap": ("direction",), "move_lane": ("direction",),
}


class AbilitySpec(BaseModel):
    """An activated ability: a hero's active ability or an activated improvement.
    lanes.md "Hero Abilities" (Cooldown X, Mana Cost, Targeting; Quickcast) and "Activated
    Improvements" (cooldowns, charges, Quick)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mana: int = Field(0, ge=0, le=20)
    cooldown: int = Field(0, ge=0, le=20)
    charges: int = Field(-1, ge=-1, le=20)
    quickcast: bool = False
    target: Literal["none", "enemy_unit", "ally_unit", "unit", "lane"] = "none"
    range: Literal["lane", "any"] = "lane"
    effects: list[dict] = Field(min_length=1)
    text: str = ""

    @field_validator("effects")
    @classmethod
    def _effects_are_effects(cls, v: list[dict]) -> list[dict]:
        # checked at load like the card's own effects (they become on_activation effects later)
        for i, e in enumerate(v):
            if "trigger" in e:
                raise ValueError(f"effects[{i}]: an ability's effect has no trigger (it runs on activation)")
            try:
                EffectSpec.model_validate({"trigger": "on_activation", **e}, strict=True)
            except ValidationError as err:
                first = err.errors()[0]
                field = ".".join(str(p) for p in first["loc"])
                raise ValueError(f"effects[{i}]{'.' + field if field else ''}: {explain(first)}") from None
        return v

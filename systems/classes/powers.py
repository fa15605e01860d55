"""Class boards: each class's powers and level table, TOML in ``data/boards/classes/``.

classes.md "Experience and Power Boards": "Each box on the board with a full line ... is
considered to be a power. Powers in line with the level tracker are level dependent ... Innate
powers are unlocked from the start." The same power and level schemas serve a scenario's
``[[powers]]`` and ``[[levels]]`` (spec §14), so a designer can try a power before it ships.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from battlesim.data import data_dir
from battlesim.ecs.datafiles import DataError, did_you_mean, fail, key_line, printable, read_toml, validate
from battlesim.systems.classes.cards import CardSet
from battlesim.systems.classes.effect_spec import AbilitySpec, EffectSpec, Name, check_cost
from battlesim.systems.classes.vocabulary import BONUSES, CLASSES, COLOURS, LEVEL_COLOURS

LEVEL_MAX = 20
EXPERIENCE_MAX = 100  # int8 on the player
SLOTS_MAX = 5
ABILITIES_MAX = 3  # spec §13: A = 3 abilities per power
POWERS_MAX = 12  # spec §13: P = 12 powers
BOARD_POWERS = (8, 10)  # issue 15: "both class boards with 8-10 powers over levels 1-5"


class LevelSpec(BaseModel):
    """One row of a level table (spec §14 ``[[levels]]``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    level: int = Field(ge=1, le=LEVEL_MAX)
    max_experience: int = Field(ge=1, le=EXPERIENCE_MAX)
    bonus: list[str] = Field(default_factory=list, max_length=4)

    @field_validator("bonus")
    @classmethod
    def _known(cls, v: list[str]) -> list[str]:
        for b in v:
            if b not in BONUSES:
                raise ValueError(f"unknown bonus {printable(b)!r}{did_you_mean(b, BONUSES)}; known: {', '.join(BONUSES)}")
        return v


class PowerSpec(BaseModel):
    """One power (spec §14 ``[[powers]]`` without ``side``/``tokens``, which are a game's state)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Name
    text: str = ""
    innate: bool = False
    level: int = Field(1, ge=0, le=LEVEL_MAX)  # 0 = "defined outside the level tree"
    slots: int = Field(1, ge=0, le=SLOTS_MAX)
    requires: Name | None = None
    abilities: list[AbilitySpec] = Field(default_factory=list, max_length=ABILITIES_MAX)
    on_token: list[list[EffectSpec]] = Field(default_factory=list)

    @model_validator(mode="after")
    def _tokens_fit_the_slots(self) -> PowerSpec:
        # classes.md: "Each square 'slot' can accept 1 such power token."
        if len(self.on_token) > self.slots:
            raise ValueError(f"field 'on_token': on_token lists {len(self.on_token)} token effects but the power has {self.slots} slots")
        if not self.innate and self.slots < 1:
            raise ValueError("field 'slots': a non-innate power needs a slot for the token that unlocks it")
        if self.requires == self.name:
            raise ValueError("field 'requires': a power cannot require itself")
        for effects in self.on_token:
            for e in effects:
                if e.needs_target:
                    raise ValueError(f"field 'on_token': a token's effect resolves at once, with no target; op {e.op!r} "
                                     f"select {e.select!r} needs one")
        for a in self.abilities:
            for e in a.effects:
                if e.per_token and e.op != "tick_cooldown":
                    raise ValueError("field 'abilities': 'per_token' scales only 'tick_cooldown'")
        if not self.abilities and not self.on_token:
            raise ValueError("field 'abilities': a power needs 'abilities' (► texts) or 'on_token' effects")
        return self

    def all_effects(self) -> list[EffectSpec]:
        return [e for a in self.abilities for e in a.effects] + [e for t in self.on_token for e in t]


class BoardFile(BaseModel):
    """A class board file: the class, its colours, the level-1 pool, its levels and powers."""

    model_config = ConfigDict(extra="forbid")

    class_: str = Field(alias="class")
    colours: list[str] = Field(min_length=1, max_length=4)
    pool: dict[str, int]
    levels: list[LevelSpec] = Field(min_length=1)
    powers: list[dict[str, Any]] = Field(min_length=1)

    @field_validator("pool")
    @classmethod
    def _pool(cls, v: dict[str, int]) -> dict[str, int]:
        return check_cost(v, COLOURS)

    @field_validator("colours")
    @classmethod
    def _colours(cls, v: list[str]) -> list[str]:
        for c in v:
            if c not in LEVEL_COLOURS:
                raise ValueError(f"unknown class colour {printable(c)!r}{did_you_mean(c, LEVEL_COLOURS)}; "
                                 f"known: {', '.join(LEVEL_COLOURS)}")
        return v


@dataclass(frozen=True)
class ClassBoard:
    name: str
    colours: tuple[str, ...]
    pool: dict[str, int]
    levels: tuple[LevelSpec, ...]
    powers: tuple[PowerSpec, ...]
    path: Path

    def power(self, name: str) -> PowerSpec | None:
        return next((p for p in self.powers if p.name == name), None)

    @property
    def top_level(self) -> int:
        return len(self.levels)


def check_levels(levels: list[LevelSpec], path: Path, where: str = "levels") -> None:
    """Levels 1..N, each once, in order (a level table a game can walk)."""
    for i, lv in enumerate(levels):
        if lv.level != i + 1:
            raise DataError(f"{path}: {where}[{i}]: field 'level': expected {i + 1} (levels run 1, 2, 3... in order), "
                            f"got {lv.level}")


def check_powers(powers: list[PowerSpec], top: int, cards: CardSet, path: Path, text: str = "",
                 class_name: str | None = None) -> None:
    """Power names unique, dependencies known and acyclic, levels on the table, cards known."""
    names = [p.name for p in powers]
    for p in powers:
        if names.count(p.name) > 1:
            raise fail(path, text, p.name, "field 'name': two powers have this name")
        if p.level > top:
            raise fail(path, text, p.name, f"field 'level': {p.level}, but the level table stops at {top}")
        if p.requires is not None and p.requires not in names:
            raise fail(path, text, p.name, f"field 'requires': unknown power {printable(p.requires)!r}"
                       f"{did_you_mean(p.requires, names)}")
        seen, at = {p.name}, p.requires
        while at is not None:
            if at in seen:
                raise fail(path, text, p.name, "field 'requires': the dependencies form a cycle")
            seen.add(at)
            at = next(q.requires for q in powers if q.name == at)
        for e in p.all_effects():
            if e.card is not None:
                field = "field 'on_token'" if any(e in t for t in p.on_token) else "field 'abilities'"
                if e.card not in cards.specs:
                    raise fail(path, text, p.name, f"{field}: op {e.op!r} names unknown card {printable(e.card)!r}"
                               f"{did_you_mean(e.card, cards.specs)}")
                owner = cards.class_of[e.card]
                if class_name is not None and owner not in (None, class_name):
                    raise fail(path, text, p.name, f"{field}: op {e.op!r} names {e.card!r}, a {owner} card")


def load_board(path: Path, cards: CardSet) -> ClassBoard:
    """One class board file, checked against the card set."""
    raw, text = read_toml(path)
    head = validate(BoardFile, raw, path, text)
    if head.class_ not in CLASSES:
        raise DataError(f"{path}:{key_line(text, 'class') or 1}: field 'class': unknown class "
                        f"{printable(head.class_)!r}{did_you_mean(head.class_, CLASSES)}; known: {', '.join(CLASSES)}")
    levels = head.levels
    check_levels(levels, path)
    for i, lv in enumerate(levels):
        # spec choice 27: "the data puts one [power token] in every level's bonus"
        if "power_token" not in lv.bonus:
            raise DataError(f"{path}: levels[{i}]: field 'bonus': a class's level gives a power token "
                            f"(classes.md: 'You gain a power token every time you level up')")
    powers = [validate(PowerSpec, p, path, text, item=p.get("name") if isinstance(p.get("name"), str) else None)
              for p in head.powers]
    lo, hi = BOARD_POWERS
    if not lo <= len(powers) <= hi:
        raise DataError(f"{path}: powers: {len(powers)} powers, a class board has {lo} to {hi}")
    check_powers(powers, len(levels), cards, path, text, head.class_)
    return ClassBoard(head.class_, tuple(head.colours), dict(head.pool), tuple(levels), tuple(powers), path)


def load_boards(cards: CardSet, directory: Path | None = None) -> dict[str, ClassBoard]:
    """Every class board, by class name; each class of CLASSES must have exactly one."""
    directory = Path(directory) if directory is not None else data_dir() / "boards" / "classes"
    boards: dict[str, ClassBoard] = {}
    for path in sorted(directory.glob("*.toml")):
        board = load_board(path, cards)
        if board.name in boards:
            raise DataError(f"{path}: class {board.name!r} already has a board ({boards[board.name].path})")
        boards[board.name] = board
    missing = [c for c in CLASSES if c not in boards]
    if missing:
        raise DataError(f"{directory}: no class board for {missing[0]!r}")
    return boards

"""classes' cards: TOML in ``data/cards/classes/``, one file per class set, validated at load.

A card is a spell or a unit (classes.md: "A card is a spell if its type contains the word
'Spell'"). Every error is one line naming the file (and line), the card and the field; names
(keywords, ops, conditions, cards) are resolved here, so the engine never meets an unknown one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from battlesim.data import data_dir
from battlesim.ecs.datafiles import DataError, did_you_mean, fail, key_line, printable, read_toml, validate
from battlesim.systems.classes.effect_spec import (
    AMOUNT_MAX,
    AbilitySpec,
    EffectSpec,
    Name,
    TargetKind,
    check_cost,
    check_target,
)
from battlesim.systems.classes.plugin import check_plugin_keyword, expand, plugin_keywords
from battlesim.systems.classes.vocabulary import (
    CLASSES,
    KEYWORDS,
    POWER_ONLY_OPS,
    RANGE_MAX,
    SPELL_TRIGGERS,
    UNIT_TRIGGERS,
)

COPIES_MAX = 24  # the largest count classes.md gives for one kind ("24 followers")
KEYWORD_MAX = 10  # shield icons on a card; int16 on the unit


def is_spell(card_type: str) -> bool:
    """classes.md "Main Phase": "A card is a spell if its type contains the word 'Spell'"."""
    return re.search(r"\bSpell\b", card_type) is not None


class EnchantmentSpec(BaseModel):
    """The Enchantment clause (classes.md "Enchantment Duration": "This number is shown near the
    'Enchantment' keyword on the clause"); 0 = no duration (spec §14)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    duration: int = Field(0, ge=0, le=20)


class CardSpec(BaseModel):
    """One card as written (spec §14 ``[[cards]]``; docs/rules/classes.md lists every field)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Name
    type: Name
    text: str = ""
    copies: int = Field(1, ge=1, le=COPIES_MAX)
    cost: dict[str, int] = Field(default_factory=dict)
    target: TargetKind = "none"
    effects: list[EffectSpec] = Field(default_factory=list)
    enchantment: EnchantmentSpec | None = None
    attack: int | None = Field(None, ge=0, le=AMOUNT_MAX)
    health: int | None = Field(None, ge=1, le=AMOUNT_MAX)
    range: int = Field(1, ge=1, le=RANGE_MAX)
    keywords: dict[str, int | bool] = Field(default_factory=dict)
    ability: AbilitySpec | None = None

    @field_validator("cost")
    @classmethod
    def _colours(cls, v: dict[str, int]) -> dict[str, int]:
        return check_cost(v)

    @property
    def is_spell(self) -> bool:
        return is_spell(self.type)

    @model_validator(mode="after")
    def _shape_by_kind(self) -> CardSpec:
        if self.is_spell:
            for f in ("attack", "health", "ability"):
                if getattr(self, f) is not None:
                    raise ValueError(f"field {f!r}: a spell has no {f} (it is not summoned as a unit)")
            if self.keywords or self.range != 1:
                raise ValueError(f"field {'keywords' if self.keywords else 'range'!r}: a spell has no unit modifiers")
            if not self.effects:
                raise ValueError("field 'effects': a spell needs at least one effect (classes.md: 'resolve its text')")
            allowed = SPELL_TRIGGERS
        else:
            if self.cost:
                # spec choice 16: "Unit cards have no cost; summoning mana pays summon abilities"
                raise ValueError("field 'cost': a unit card has no cost (spec choice 16); put costs on abilities")
            allowed = UNIT_TRIGGERS
        for i, e in enumerate(self.effects):
            kind = "spell" if self.is_spell else "unit"
            if e.trigger not in allowed:
                raise ValueError(f"field 'effects[{i}]': a {kind}'s effect cannot have trigger {e.trigger!r} "
                                 f"(a {kind} takes: {', '.join(allowed)})")
            if e.op in POWER_ONLY_OPS:
                raise ValueError(f"field 'effects[{i}]': op {e.op!r} belongs to class-board powers, not cards")
        unleashed = [e for e in self.effects if e.trigger == "unleash"]
        if self.enchantment is not None and not unleashed:
            raise ValueError("field 'enchantment': an 'enchantment' clause needs effects with trigger 'unleash'")
        if unleashed and self.enchantment is None:
            raise ValueError("field 'effects': effects with trigger 'unleash' need an 'enchantment' clause (its duration)")
        try:
            check_target(self.target, self.effects)
        except ValueError as e:
            raise ValueError(f"field 'target': {e}") from None
        for k, v in self.keywords.items():
            where = f"field 'keywords.{printable(k)}'"
            if k not in KEYWORDS:
                try:
                    if check_plugin_keyword(k, v):  # a plugin's keyword (plugin.py): applied by CardSet.add
                        continue
                except ValueError as e:
                    raise ValueError(f"{where}: {e}") from None
                known = [*KEYWORDS, *plugin_keywords()]
                raise ValueError(f"{where}: unknown keyword {printable(k)!r}{did_you_mean(k, known)}; "
                                 f"known: {', '.join(known)}")
            tag = KEYWORDS[k][0] == "tag"
            if isinstance(v, bool) != tag:
                raise ValueError(f"{where}: keyword {k!r} takes {'true/false' if tag else 'a number'}, got {str(v).lower()}")
            if not tag and not 1 <= v <= KEYWORD_MAX:
                raise ValueError(f"{where}: keyword {k!r} = {v}: expected 1 to {KEYWORD_MAX}")
        return self

    def all_effects(self) -> list[EffectSpec]:
        """The card's effects and its ability's."""
        return [*self.effects, *(self.ability.effects if self.ability else [])]


class CardFile(BaseModel):
    """A class set file: ``class = "Paladin"`` and its ``[[cards]]``."""

    model_config = ConfigDict(extra="forbid")

    class_: str = Field(alias="class")
    cards: list[dict[str, Any]] = Field(default_factory=list)


@dataclass
class CardSet:
    """Every card by name, the class set it belongs to (None: a scenario's inline card) and the
    file it came from (errors and the run identity name it)."""

    specs: dict[str, CardSpec] = field(default_factory=dict)
    class_of: dict[str, str | None] = field(default_factory=dict)
    path_of: dict[str, Path] = field(default_factory=dict)
    plugin_keywords_of: dict[str, dict[str, bool | int]] = field(default_factory=dict)  # as written

    def of_class(self, name: str) -> list[CardSpec]:
        return [s for n, s in self.specs.items() if self.class_of[n] == name]

    def add(self, raw: list[Any], path: Path, text: str, class_name: str | None, where: str = "cards") -> None:
        """Validate and add cards; a name already in the set is an error naming both files."""
        for i, item in enumerate(raw):
            if not isinstance(item, dict):
                raise DataError(f"{path}: {where}[{i}]: expected a table, got {printable(str(item))}")
            name = item.get("name") if isinstance(item.get("name"), str) else None
            spec = validate(CardSpec, item, path, text, item=name)
            played, named = expand(spec.model_dump(exclude_none=True))
            if named:  # the card as the compiled loop plays it, the plugin keywords applied
                spec = validate(CardSpec, played, path, text, item=name)
                self.plugin_keywords_of[spec.name] = named
            if spec.name in self.specs:
                raise fail(path, text, spec.name, f"already defined in {self.path_of[spec.name]}")
            self.specs[spec.name] = spec
            self.class_of[spec.name] = class_name
            self.path_of[spec.name] = path

    def check_names(self, texts: dict[Path, str] | None = None) -> None:
        """Cards named by effects exist; a summon's ``card_type`` is some unit's type word."""
        types = {w for s in self.specs.values() if not s.is_spell for w in s.type.split()}
        for name, spec in self.specs.items():
            path = self.path_of[name]
            text = (texts or {}).get(path, "")
            for e in spec.all_effects():
                if e.card is not None and e.card not in self.specs:
                    raise fail(path, text, name, f"field 'effects': op {e.op!r} names unknown card {printable(e.card)!r}"
                               f"{did_you_mean(e.card, self.specs)}")
                if e.card_type is not None and e.card_type not in types:
                    raise fail(path, text, name, f"field 'effects': op 'summon' names card_type {printable(e.card_type)!r}, "
                               f"which no unit card has{did_you_mean(e.card_type, types)}")


def load_cards(directory: Path | None = None) -> CardSet:
    """Every ``*.toml`` in ``data/cards/classes/`` (sorted: the order is part of the catalog)."""
    directory = Path(directory) if directory is not None else data_dir() / "cards" / "classes"
    cards, texts = CardSet(), {}
    files = sorted(directory.glob("*.toml"))
    if not files:
        raise DataError(f"{directory}: no card files (*.toml)")
    for path in files:
        raw, text = read_toml(path)
        head = validate(CardFile, raw, path, text)
        if head.class_ not in CLASSES:
            raise DataError(f"{path}:{key_line(text, 'class') or 1}: field 'class': unknown class "
                            f"{printable(head.class_)!r}{did_you_mean(head.class_, CLASSES)}; known: {', '.join(CLASSES)}")
        cards.add(head.cards, path, text, head.class_)
        texts[path] = text
    cards.check_names(texts)
    return cards

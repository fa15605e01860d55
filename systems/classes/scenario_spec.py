"""What a classes scenario file may say (spec §14), checked before anything is built.

Exactly the spec's keys, each with its default; anything else is refused in one line naming the
file, the line and the field (``FILE:LINE: field 'units[2].row': must be <= 5, got 6``). Names
(cards, powers, classes) are resolved against the data by ``scenario_check.py``; running the
steps is the engine's (not built yet).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from battlesim.ecs.datafiles import did_you_mean, printable
from battlesim.systems.classes.board import LANES, ROWS
from battlesim.systems.classes.conditions import condition_names
from battlesim.systems.classes.effect_spec import MANA_MAX, AbilitySpec, EffectSpec, Name, check_cost
from battlesim.systems.classes.powers import EXPERIENCE_MAX, LEVEL_MAX, SLOTS_MAX, LevelSpec
from battlesim.systems.classes.vocabulary import COLOURS, COOLDOWN_SLOTS, LEVEL_COLOURS, SHAPES

COUNT_MAX = 100  # condition tokens, HP, Attack: int16 on the unit, far beyond any game
LIFE_MAX = 1000
HAND_MAX = 40  # spec §13: H = 40
Side = Literal[0, 1]
Lane = Annotated[int, Field(ge=0, le=LANES - 1)]
Row = Annotated[int, Field(ge=0, le=ROWS - 1)]
Count = Annotated[int, Field(ge=0, le=COUNT_MAX)]
Shape = Literal["pentagon", "triangle", "square", "circle", "hexagon"]
ClassName = Literal["Paladin", "Warlock", "none"]
Mana = dict[str, int]


def pool(v: Mana) -> Mana:
    return check_cost(v, COLOURS)


def choice(answer: str) -> str:
    """A level-up answer (spec §14 ``choices``): a colour to gain ("red"), a colour replaced by a
    summoning orb ("summoning:white"), or a power to put the token on ("power:Name")."""
    if answer in LEVEL_COLOURS:
        return answer
    kind, _, rest = answer.partition(":")
    if kind == "summoning" and rest in LEVEL_COLOURS:
        return answer
    if kind == "power" and rest:
        return answer
    known = [*LEVEL_COLOURS, *(f"summoning:{c}" for c in LEVEL_COLOURS), "power:NAME"]
    raise ValueError(f"unknown level-up answer {printable(answer)!r}{did_you_mean(answer, known)}; expected a colour "
                     f"({', '.join(LEVEL_COLOURS)}), 'summoning:COLOUR' or 'power:NAME'")


class PlayersSpec(BaseModel):
    """``[players]``: each key a list [player 0, player 1]; every key optional."""

    model_config = ConfigDict(extra="forbid")

    class_: list[ClassName] = Field(default_factory=lambda: ["none", "none"], alias="class", min_length=2, max_length=2)
    life: list[Annotated[int, Field(ge=0, le=LIFE_MAX)]] = Field(default_factory=lambda: [20, 20], min_length=2, max_length=2)
    level: list[Annotated[int, Field(ge=1, le=LEVEL_MAX)]] = Field(default_factory=lambda: [1, 1], min_length=2, max_length=2)
    experience: list[Annotated[int, Field(ge=0, le=EXPERIENCE_MAX)]] = Field(
        default_factory=lambda: [0, 0], min_length=2, max_length=2)
    pool: list[Mana] = Field(default_factory=lambda: [{}, {}], min_length=2, max_length=2)
    cooldown: list[Annotated[list[Mana], Field(min_length=COOLDOWN_SLOTS, max_length=COOLDOWN_SLOTS)]] = Field(
        default_factory=lambda: [[{}, {}, {}], [{}, {}, {}]], min_length=2, max_length=2)
    cooldown_current: list[Annotated[int, Field(ge=0, le=COOLDOWN_SLOTS - 1)]] = Field(
        default_factory=lambda: [0, 0], min_length=2, max_length=2)
    hand: list[Annotated[list[Name], Field(max_length=HAND_MAX)]] = Field(
        default_factory=lambda: [[], []], min_length=2, max_length=2)
    nether: list[list[Name]] = Field(default_factory=lambda: [[], []], min_length=2, max_length=2)
    choices: list[list[str]] = Field(default_factory=lambda: [[], []], min_length=2, max_length=2)

    @field_validator("pool")
    @classmethod
    def _pools(cls, v: list[Mana]) -> list[Mana]:
        return [pool(p) for p in v]

    @field_validator("cooldown")
    @classmethod
    def _tracks(cls, v: list[list[Mana]]) -> list[list[Mana]]:
        return [[pool(slot) for slot in track] for track in v]

    @field_validator("choices")
    @classmethod
    def _choices(cls, v: list[list[str]]) -> list[list[str]]:
        return [[choice(a) for a in side] for side in v]


class ScenarioPower(BaseModel):
    """``[[powers]]``: a power added to a side's board, or (only ``side``, ``name``, ``tokens``)
    the tokens on a power of that side's class board."""

    model_config = ConfigDict(extra="forbid")

    side: Side
    name: Name
    tokens: int = Field(0, ge=0, le=SLOTS_MAX)
    innate: bool | None = None
    level: int | None = Field(None, ge=0, le=LEVEL_MAX)
    slots: int | None = Field(None, ge=0, le=SLOTS_MAX)
    requires: Name | None = None
    text: str | None = None
    abilities: list[AbilitySpec] | None = None
    on_token: list[list[EffectSpec]] | None = None

    @property
    def defines(self) -> bool:
        """True when the entry defines a power (any field beyond side, name and tokens)."""
        return any(getattr(self, f) is not None for f in ("innate", "level", "slots", "requires", "text",
                                                           "abilities", "on_token"))

    def definition(self) -> dict[str, Any]:
        """The entry as a PowerSpec would read it (validated by ``scenario_check``)."""
        return {k: v for k, v in self.model_dump(exclude={"side", "tokens"}).items() if v is not None}


class ScenarioLevel(LevelSpec):
    """``[[levels]]``: a row of a side's level table (the rows of one side replace its class's)."""

    side: Side


class PreparedSpec(BaseModel):
    """``[[prepared]]``: classes.md "Preparing a spell": "place necessary Mana on top of that spell"."""

    model_config = ConfigDict(extra="forbid")

    side: Side
    card: Name
    mana: Mana = Field(default_factory=dict)
    this_turn: bool = False

    @field_validator("mana")
    @classmethod
    def _mana(cls, v: Mana) -> Mana:
        return pool(v)


class PlayAreaSpec(BaseModel):
    """``[[play_area]]``: a card left in the play area (an Aura or an Enchantment)."""

    model_config = ConfigDict(extra="forbid")

    side: Side
    card: Name
    shape: Shape | None = None  # default: the first shape the side does not use
    tokens: int | None = Field(None, ge=0, le=20)  # default: its duration, or 1


class EnchantedSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    side: Side
    shape: Shape
    tokens: int = Field(1, ge=1, le=20)


class UnitSpec(BaseModel):
    """``[[units]]``: a unit on the battlefield, inline (``name``) or from a card (``card``)."""

    model_config = ConfigDict(extra="forbid")

    side: Side
    lane: Lane
    row: Row
    name: Name | None = None
    card: Name | None = None
    attack: int | None = Field(None, ge=0, le=COUNT_MAX)  # omit: no Attack value
    health: int | None = Field(None, ge=1, le=COUNT_MAX)  # omit: 1 (or the card's)
    base_attack: int | None = Field(None, ge=0, le=COUNT_MAX)
    base_health: int | None = Field(None, ge=1, le=COUNT_MAX)
    range: int | None = Field(None, ge=1, le=10)
    keywords: dict[str, int | bool] = Field(default_factory=dict)
    conditions: dict[str, Count] = Field(default_factory=dict)
    defending: bool = False
    enchanted: list[EnchantedSpec] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_source(self) -> UnitSpec:
        if (self.name is None) == (self.card is None):
            raise ValueError("a unit needs exactly one of 'name' (inline) or 'card' (from the card set)")
        if self.card is None and self.base_attack is not None and self.attack is None:
            raise ValueError("'base_attack' without 'attack': an inline unit without Attack has no base Attack")
        known = condition_names()  # the text's and the loaded plugins'
        for k in self.conditions:
            if k not in known:
                raise ValueError(f"unknown condition {printable(k)!r}{did_you_mean(k, known)}; "
                                 f"known: {', '.join(known)}")
        shapes = [(e.side, e.shape) for e in self.enchanted]
        if len(set(shapes)) < len(shapes):
            raise ValueError("'enchanted' names the same side and shape twice")
        return self


Target = Annotated[list[int], Field(min_length=2, max_length=2)] | Literal["enemy_player", "own_player"]


def _target_on_board(target: Any) -> Any:
    if isinstance(target, list):
        lane, row = target
        if not (0 <= lane < LANES and 0 <= row < ROWS):
            raise ValueError(f"target {target}: expected [lane 0-{LANES - 1}, row 0-{ROWS - 1}]")
    return target


class OrderSpec(BaseModel):
    """One unit's orders in ``act_step`` / ``battle_phase``."""

    model_config = ConfigDict(extra="forbid")

    lane: Lane
    row: Row
    first: Literal["action", "advance"] | None = None
    action: Literal["attack", "defend", "ability"] | None = None
    target: Target | None = None

    @field_validator("target")
    @classmethod
    def _on_board(cls, v: Any) -> Any:
        return _target_on_board(v)


# spec §14 step table: the fields each `do` takes
STEP_FIELDS: dict[str, tuple[str, ...]] = {
    "begin_phase": (),
    "mana_step": (),
    "enchantments_step": ("order",),
    "cast": ("side", "card", "from", "target", "intersection", "lane", "pay"),
    "prepare": ("side", "card", "pay"),
    "class_ability": ("side", "power", "ability", "target", "intersection", "card", "lane", "pay"),
    "act": ("lane", "row", "first", "action", "target", "pay"),
    "act_step": ("orders",),
    "battle_phase": ("orders",),
    "gain_experience_step": (),
    "end_phase": (),
    "turn": (),
}


class Step(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    do: Literal["begin_phase", "mana_step", "enchantments_step", "cast", "prepare", "class_ability", "act",
                "act_step", "battle_phase", "gain_experience_step", "end_phase", "turn"]
    side: Side | None = None
    card: Name | None = None
    from_: Literal["hand", "prepared"] | None = Field(None, alias="from")
    target: Target | None = None
    intersection: Annotated[list[int], Field(min_length=2, max_length=2)] | None = None
    lane: Lane | None = None
    row: Row | None = None
    pay: Mana | None = None
    power: Name | None = None
    ability: int | None = Field(None, ge=0, le=2)
    first: Literal["action", "advance"] | None = None
    action: Literal["attack", "defend", "ability"] | None = None
    orders: list[OrderSpec] | None = None
    order: list[Name] | None = None

    @field_validator("target")
    @classmethod
    def _on_board(cls, v: Any) -> Any:
        return _target_on_board(v)

    @field_validator("pay")
    @classmethod
    def _pay(cls, v: Mana | None) -> Mana | None:
        return None if v is None else pool(v)

    @field_validator("intersection")
    @classmethod
    def _intersection(cls, v: list[int] | None) -> list[int] | None:
        if v is not None and not (0 <= v[0] < LANES - 1 and 0 <= v[1] < ROWS - 1):
            raise ValueError(f"intersection {v}: expected [lane 0-{LANES - 2}, row 0-{ROWS - 2}] (interior corners)")
        return v

    @model_validator(mode="after")
    def _fields_of_the_step(self) -> Step:
        allowed = STEP_FIELDS[self.do]
        for f in type(self).model_fields:
            key = "from" if f == "from_" else f
            if f != "do" and getattr(self, f) is not None and key not in allowed:
                raise ValueError(f"step {self.do!r} takes no {key!r} (it takes: {', '.join(allowed) or 'nothing'})")
        required = {"cast": ("card",), "prepare": ("card",), "class_ability": ("power",), "act": ("lane", "row")}
        for f in required.get(self.do, ()):
            if getattr(self, f) is None:
                raise ValueError(f"step {self.do!r} needs {f!r}")
        if self.target is not None and self.intersection is not None:
            raise ValueError("give 'target' or 'intersection', not both")
        return self


class ExpectPlayer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    side: Side
    class_: str | None = Field(None, alias="class")
    life: int | None = None
    level: int | None = None
    experience: int | None = None
    pool: Mana | None = None
    cooldown: list[Mana] | None = None
    cooldown_current: int | None = None
    hand: list[str] | None = None
    nether: list[str] | None = None
    prepared: dict[str, Any] | bool | None = None  # false: none prepared
    play_area: list[dict[str, Any]] | None = None
    powers: list[dict[str, Any]] | None = None


class ExpectUnit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    lane: Lane
    row: Row
    absent: bool = False
    side: Side | None = None
    name: str | None = None
    attack: int | bool | None = None  # false: no Attack value
    health: int | None = None
    base_attack: int | None = None
    base_health: int | None = None
    range: int | None = None
    keywords: dict[str, int | bool] | None = None
    conditions: dict[str, int] | None = None
    defending: bool | None = None
    enchanted: list[EnchantedSpec] | None = None


class ExpectSpec(BaseModel):
    """The shape of ``[expect]``: the ``--json`` state's fields, each optional."""

    model_config = ConfigDict(extra="forbid")

    turn: int | None = None
    active: Side | None = None
    winner: Side | None = None
    draw: bool | None = None
    units_count: int | None = Field(None, ge=0)
    players: list[ExpectPlayer] | None = None
    units: list[ExpectUnit] | None = None


class ScenarioSpec(BaseModel):
    """A whole classes scenario file (spec §14)."""

    model_config = ConfigDict(extra="forbid")

    ruleset: Literal["classes"]
    seed: int = Field(0, ge=0, le=2**62)
    turn: int = Field(1, ge=1, le=10_000)
    active: Side = 0
    rule: str | list[str] = ""
    description: str = ""
    players: PlayersSpec = Field(default_factory=PlayersSpec)
    cards: list[dict[str, Any]] = Field(default_factory=list)  # the card-file schema, checked by scenario_check
    powers: list[ScenarioPower] = Field(default_factory=list)
    levels: list[ScenarioLevel] = Field(default_factory=list)
    prepared: list[PreparedSpec] = Field(default_factory=list)
    play_area: list[PlayAreaSpec] = Field(default_factory=list)
    units: list[UnitSpec] = Field(default_factory=list)
    steps: list[Step] = Field(default_factory=list)
    expect: ExpectSpec | None = None
    expect_error: str | None = None

    @model_validator(mode="after")
    def _a_state_a_game_could_hold(self) -> ScenarioSpec:
        seen: dict[tuple[int, int], int] = {}
        for i, u in enumerate(self.units):
            # classes.md "The Battleground": "Field: it can contain only one unit."
            if (u.lane, u.row) in seen:
                raise ValueError(f"units[{seen[(u.lane, u.row)]}] and units[{i}] both stand on [{u.lane}, {u.row}] "
                                 f"(a field can contain only one unit)")
            seen[(u.lane, u.row)] = i
        sides = [p.side for p in self.prepared]
        for s in (0, 1):
            # classes.md: "You may only have one spell prepared at any time."
            if sides.count(s) > 1:
                raise ValueError(f"prepared: side {s} has {sides.count(s)} prepared spells (only one at any time)")
            shapes = [a.shape for a in self.play_area if a.side == s and a.shape is not None]
            if len(set(shapes)) < len(shapes):
                raise ValueError(f"play_area: side {s} uses a shape twice (classes.md: 'making sure that its shape "
                                 f"isn't already used for another one of your active enchantments')")
            if len([a for a in self.play_area if a.side == s]) > len(SHAPES):
                raise ValueError(f"play_area: side {s} has more enchantments than shapes ({len(SHAPES)})")
            for i, track in enumerate(self.players.cooldown[s]):
                if any(n > MANA_MAX for n in track.values()):
                    raise ValueError(f"players.cooldown[{s}][{i}]: at most {MANA_MAX} of a colour")
        if self.expect is not None and self.expect_error is not None:
            raise ValueError("give '[expect]' or 'expect_error', not both")
        return self

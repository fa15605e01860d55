"""Loading a classes scenario: the file validated (``scenario_spec.py``), then every name in it
resolved against the card set and the class boards, before any engine sees it.

Errors are one line, ``FILE[:LINE]: <where>: <what>`` (the CLI prints it after ``error: `` and
exits with status 2, spec §14). What cannot be known without playing (can the cost be paid, is
the field free when the step runs) is the engine's check, at the step: ``error: step N (do): ...``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

from battlesim.ecs.datafiles import DataError, did_you_mean, printable, read_toml, validate
from battlesim.systems.classes.cards import CardSet, load_cards
from battlesim.systems.classes.powers import (
    LEVEL_MAX,
    ClassBoard,
    LevelSpec,
    PowerSpec,
    check_levels,
    check_powers,
    load_boards,
)
from battlesim.systems.classes.scenario_error import ScenarioError
from battlesim.systems.classes.scenario_spec import ScenarioSpec, Step
from battlesim.systems.classes.vocabulary import KEYWORDS


@dataclass
class Side:
    """One player's board as the scenario sets it: its powers (with tokens) and level table."""

    class_name: str
    powers: list[PowerSpec]
    tokens: dict[str, int]
    levels: list[LevelSpec]

    def power(self, name: str) -> PowerSpec | None:
        return next((p for p in self.powers if p.name == name), None)


@dataclass
class Scenario:
    spec: ScenarioSpec
    path: Path
    cards: CardSet
    sides: tuple[Side, Side]


def load_scenario(path: Path, cards: CardSet | None = None, boards: dict[str, ClassBoard] | None = None) -> Scenario:
    """Read, validate and resolve a scenario file; raises ScenarioError (one line)."""
    path = Path(path)
    try:
        raw, text = read_toml(path)
        spec = validate(ScenarioSpec, raw, path, text)
        base = cards if cards is not None else load_cards()
        boards = boards if boards is not None else load_boards(base)
        return _resolve(spec, path, text, base, boards)
    except ScenarioError:
        raise
    except DataError as e:
        raise ScenarioError(str(e)) from None


def _err(path: Path, where: str, what: str) -> ScenarioError:
    return ScenarioError(f"{path}: {where}: {what}")


def _resolve(spec: ScenarioSpec, path: Path, text: str, base: CardSet, boards: dict[str, ClassBoard]) -> Scenario:
    cards = copy.copy(base)
    cards.specs, cards.class_of, cards.path_of = dict(base.specs), dict(base.class_of), dict(base.path_of)
    for i, raw in enumerate(spec.cards):
        name = raw.get("name") if isinstance(raw, dict) else None
        if isinstance(name, str) and name in base.specs:
            raise _err(path, f"cards[{i}]", f"{printable(name)!r} already exists in the card set")
    cards.add(spec.cards, path, text, None)
    cards.check_names({path: text})
    sides = tuple(_side(spec, s, path, text, cards, boards) for s in (0, 1))
    _check_names(spec, path, cards, sides)
    return Scenario(spec, path, cards, sides)  # type: ignore[arg-type]


def _side(spec: ScenarioSpec, s: int, path: Path, text: str, cards: CardSet, boards: dict[str, ClassBoard]) -> Side:
    class_name = spec.players.class_[s]
    board = boards.get(class_name)
    powers = list(board.powers) if board else []
    levels = list(board.levels) if board else []
    tokens: dict[str, int] = {}
    for i, entry in enumerate(spec.powers):
        if entry.side != s:
            continue
        where = f"powers[{i}] ({printable(entry.name)!r})"
        known = next((p for p in powers if p.name == entry.name), None)
        if entry.defines:
            if known is not None:
                raise _err(path, where, f"side {s}'s board already has this power (give only side, name, tokens)")
            known = validate(PowerSpec, entry.definition(), path, text, item=entry.name)
            powers.append(known)
        elif known is None:
            raise _err(path, where, f"not a power of side {s}'s board ({class_name}){did_you_mean(entry.name, [p.name for p in powers])}; "
                       f"to add one, define it (abilities or on_token)")
        if entry.tokens > known.slots:
            raise _err(path, f"{where}.tokens", f"{entry.tokens} tokens, the power has {known.slots} slots")
        tokens[entry.name] = entry.tokens
    rows = [lv for lv in spec.levels if lv.side == s]
    if rows:
        levels = [LevelSpec(level=r.level, max_experience=r.max_experience, bonus=r.bonus) for r in rows]
        try:
            check_levels(levels, path, where=f"levels (side {s})")
        except DataError as e:
            raise ScenarioError(str(e)) from None
    try:
        check_powers(powers, LEVEL_MAX, cards, path, text)  # an inline level table may be shorter than the board
    except DataError as e:
        raise ScenarioError(str(e)) from None
    level, exp = spec.players.level[s], spec.players.experience[s]
    if levels:
        if level > len(levels):
            raise _err(path, f"players.level[{s}]", f"level {level}, the level table stops at {len(levels)}")
        top = level == len(levels)
        cap = levels[level - 1].max_experience
        # "After reaching maximum experience, you level up"; at the top it stops there (spec choice 17)
        if exp > cap or (exp == cap and not top):
            raise _err(path, f"players.experience[{s}]", f"{exp}, level {level} is complete at {cap}")
    return Side(class_name, powers, tokens, levels)


def _card(path: Path, cards: CardSet, where: str, name: str, spell: bool | None = None) -> None:
    spec = cards.specs.get(name)
    if spec is None:
        raise _err(path, where, f"unknown card {printable(name)!r}{did_you_mean(name, cards.specs)}")
    if spell is not None and spec.is_spell != spell:
        raise _err(path, where, f"{name!r} is {'not ' if spell else ''}a spell (its type is {spec.type!r})")


def _check_names(spec: ScenarioSpec, path: Path, cards: CardSet, sides: tuple[Side, ...]) -> None:
    p = spec.players
    for s in (0, 1):
        for i, name in enumerate(p.hand[s]):
            _card(path, cards, f"players.hand[{s}][{i}]", name)
        for i, name in enumerate(p.nether[s]):
            _card(path, cards, f"players.nether[{s}][{i}]", name)
        for i, answer in enumerate(p.choices[s]):
            if answer.startswith("power:") and sides[s].power(answer[6:]) is None:
                raise _err(path, f"players.choices[{s}][{i}]", f"side {s} has no power {printable(answer[6:])!r}")
    for i, prep in enumerate(spec.prepared):
        _card(path, cards, f"prepared[{i}].card", prep.card, spell=True)
    for i, entry in enumerate(spec.play_area):
        _card(path, cards, f"play_area[{i}].card", entry.card, spell=True)
        c = cards.specs[entry.card]
        aura = any(e.trigger == "aura" for e in c.effects)
        if c.enchantment is None and not aura:
            raise _err(path, f"play_area[{i}].card", f"{entry.card!r} has no Aura or Enchantment: it would not stay "
                       f"in the play area")
    for i, u in enumerate(spec.units):
        where = f"units[{i}]"
        if u.card is not None:
            _card(path, cards, f"{where}.card", u.card, spell=False)
        for k, v in u.keywords.items():
            if k not in KEYWORDS:
                raise _err(path, f"{where}.keywords", f"unknown keyword {printable(k)!r}{did_you_mean(k, KEYWORDS)}; "
                           f"known: {', '.join(KEYWORDS)}")
            tag = KEYWORDS[k][0] == "tag"
            if isinstance(v, bool) != tag or (not tag and not 0 <= v <= 10):
                raise _err(path, f"{where}.keywords", f"keyword {k!r} takes {'true/false' if tag else 'a number 0-10'}, "
                           f"got {str(v).lower()}")
    for i, step in enumerate(spec.steps):
        where = f"steps[{i}] ({step.do})"
        if step.card is not None and step.do in ("cast", "prepare"):
            _card(path, cards, f"{where}.card", step.card, spell=True)
            if step.do == "cast":
                _target_fits(path, where, step, cards.specs[step.card].target)
        elif step.card is not None:
            _card(path, cards, f"{where}.card", step.card, spell=False)
        for name in step.order or ():
            _card(path, cards, f"{where}.order", name, spell=None)
        if step.power is not None:
            side = step.side if step.side is not None else spec.active
            power = sides[side].power(step.power)
            if power is None:
                raise _err(path, f"{where}.power", f"side {side} has no power {printable(step.power)!r}"
                           f"{did_you_mean(step.power, [q.name for q in sides[side].powers])}")
            if (step.ability or 0) >= max(len(power.abilities), 1) or not power.abilities:
                raise _err(path, f"{where}.ability", f"{step.power!r} has {len(power.abilities)} abilities")
            _target_fits(path, where, step, power.abilities[step.ability or 0].target)


# what a step must give for each target kind (spec §14: target = [lane, row] or a player; intersection; lane)
_GIVES = {"unit": "target", "enemy_unit": "target", "allied_unit": "target", "field": "target", "player": "target",
          "intersection": "intersection", "first_row": "lane"}


def _target_fits(path: Path, where: str, step: Step, kind: str) -> None:
    """A cast or an ability step gives exactly the target its card or ability asks for."""
    given = [k for k in ("target", "intersection", "lane") if getattr(step, k) is not None]
    need = _GIVES.get(kind)
    for k in given:
        if k != need:
            raise _err(path, f"{where}.{k}", f"the target is {kind!r}: give {need!r}" if need else
                       "the target is 'none': nothing to give")
    if need is not None and need not in given:
        raise _err(path, where, f"needs {need!r} (the target is {kind!r})")
    if need == "target":
        is_player = isinstance(step.target, str)
        if is_player != (kind == "player"):
            raise _err(path, f"{where}.target", f"the target is {kind!r}: give "
                       f"{'enemy_player or own_player' if kind == 'player' else '[lane, row]'}")

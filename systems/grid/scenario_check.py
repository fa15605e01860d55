"""A grid scenario file read, checked and resolved into a typed plan the engine can build from.

Checks that need more than one field (spec §5): cells on the scenario's board, one unit per cell,
no unit on a wall unless it may stand there (grid.md 4.2.7), unique unit names, the fields each
step kind needs, names resolved against the card set (plus the file's own ``[[cards]]``).
Whether a step is *legal* is the engine's question when it runs the steps (``not legal``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from pydantic import ValidationError

from battlesim.ecs.datafiles import did_you_mean, explain, locate, printable, read_toml, validate
from battlesim.systems.grid.board import Board, make_board
from battlesim.systems.grid.cards import MAX_ABILITIES, AbilitySpec, CardSpec, Resist, card_label, check_keywords
from battlesim.systems.grid.catalog import unit_range
from battlesim.systems.grid.keywords import keyword_bonus
from battlesim.systems.grid.maps import cells_problem
from battlesim.systems.grid.params import GridParams
from battlesim.systems.grid.scenario_error import ScenarioError
from battlesim.systems.grid.scenario_spec import STEP_FIELDS, ExpectTable, ScenarioSpec, UnitSpec, step_label
from battlesim.systems.grid.vocabulary import DEFAULT_RANGE, MAP_FEATURES, STATUSES


@dataclass(frozen=True)
class PlacedUnit:
    """A scenario unit with every value the rules read resolved (card, then the file's fields)."""

    side: int
    x: int
    y: int
    name: str
    card: str | None
    cls: str
    hero: bool
    hp: int
    max_hp: int
    mv: int
    damage: int
    damage_type: str
    range: int
    resist: tuple[int, int, int]
    kill_points: int
    keywords: dict[str, bool | int]
    statuses: dict[str, bool]
    abilities: tuple[AbilitySpec, ...]
    turn_over: bool


@dataclass
class ScenarioPlan:
    """Everything a scenario says, checked: the engine builds its state from this."""

    path: Path
    spec: ScenarioSpec
    board: Board
    cards: dict[str, CardSpec]  # the card set plus the file's [[cards]]
    units: list[PlacedUnit]
    se: list[int]
    extra_cards: list[str] = field(default_factory=list)


def load_scenario_plan(path: Path, params: GridParams, cards: dict[str, CardSpec]) -> ScenarioPlan:
    """Read ``path`` and check it; every refusal is a ScenarioError of one line."""
    path = Path(path)
    raw, text = read_toml(path)
    spec = validate(ScenarioSpec, raw, path, text)
    if spec.expect is not None:
        validate(ExpectTable, {"expect": spec.expect}, path, text)

    def bad(loc: list, where: str, msg: str) -> ScenarioError:
        line = locate(text, loc)
        return ScenarioError(f"{path}:{line}: {where}: {msg}" if line else f"{path}: {where}: {msg}")

    if spec.expect is not None and spec.expect_error is not None:
        raise bad(["expect_error"], "expect_error", "a scenario expects a state ([expect]) or an error, not both")
    width = spec.board.width or params.width
    height = spec.board.height or params.height
    problem = cells_problem({f: getattr(spec.board, f) for f in MAP_FEATURES}, width, height)
    if problem:
        fld, msg = problem
        raise bad(["board", fld.split("[")[0]], f"board.{fld}", msg)
    board = make_board(width, height, spec.board.walls, spec.board.webs, spec.board.mana_pools)
    all_cards = dict(cards)
    for i, item in enumerate(spec.cards):
        card = validate(CardSpec, item, path, text, item=card_label(item, i))
        if card.name in all_cards:
            raise bad(["cards", i], f"cards[{i}]", f"{card.name!r} already exists in the card set")
        all_cards[card.name] = card
    for i, card in enumerate(all_cards[c.get("name")] for c in spec.cards):
        for a in list(card.abilities) + ([card.effect] if card.effect else []):
            if a.card is not None and a.card not in all_cards:
                raise bad(["cards", i], f"cards[{i}]", f"ability {a.name!r}: unknown card {printable(a.card)!r}"
                                                       f"{did_you_mean(a.card, all_cards)}")
    p = spec.players
    for key in ("hand", "deck"):
        for seat, pile in enumerate(getattr(p, key)):
            for name in pile:
                if name not in all_cards:
                    raise bad(["players", key], f"players.{key}[{seat}]",
                              f"unknown card {printable(name)!r}{did_you_mean(name, all_cards)}")
    for seat, hand in enumerate(p.hand):
        if len(hand) > params.hand_limit:
            raise bad(["players", "hand"], f"players.hand[{seat}]",
                      f"{len(hand)} cards, a hand holds at most {params.hand_limit} (hand_limit)")
    units = [_place(u, i, all_cards, width, height, lambda where, msg, i=i: bad(["units", i], where, msg))
             for i, u in enumerate(spec.units)]
    cells: dict[tuple[int, int], int] = {}
    names: dict[str, int] = {}
    for i, u in enumerate(units):
        here = None
        if (u.x, u.y) in cells:
            here = f"stands on [{u.x}, {u.y}] with units[{cells[(u.x, u.y)]}] (one unit per cell, grid.md 4.2.4)"
        elif u.name in names:
            here = f"name {u.name!r} is also units[{names[u.name]}]'s (steps name units by it)"
        elif board.wall[board.cell(u.x, u.y)] and not (u.cls == "rogue" or u.keywords.get("flying")):
            here = f"stands on the wall [{u.x}, {u.y}] (only rogues and flyers may, grid.md 4.2.7)"
        if here:
            raise bad(["units", i], f"units[{i}]", here)
        cells[(u.x, u.y)] = i
        names[u.name] = i
    _check_steps(spec, units, all_cards, width, height, lambda i, where, msg: bad(["steps", i], where, msg))
    se = list(p.se) if p.se is not None else [params.se_start, params.se_start]
    return ScenarioPlan(path, spec, board, all_cards, units, se, [c.get("name") for c in spec.cards])


def _place(u: UnitSpec, i: int, cards: dict[str, CardSpec], width: int, height: int, bad) -> PlacedUnit:
    where = f"units[{i}]"
    card = None
    if u.card is not None:
        card = cards.get(u.card)
        if card is None:
            raise bad(where, f"unknown card {printable(u.card)!r}{did_you_mean(u.card, cards)}")
        if not card.is_unit:
            raise bad(where, f"{u.card!r} is a {card.type}, only units and heroes stand on the board")
    else:
        for need in ("name", "class_", "hp", "mv", "damage"):
            if getattr(u, need) is None:
                raise bad(where, f"an inline unit (no 'card') needs {need.rstrip('_')!r}")
    if not (u.x < width and u.y < height):
        raise bad(where, f"cell [{u.x}, {u.y}] is off the {width}x{height} board")

    keywords = dict(u.keywords) if u.keywords is not None else dict(card.keywords if card else {})
    try:
        check_keywords(keywords)
    except ValueError as e:
        raise bad(f"{where}.keywords", str(e)) from None
    # a plugin keyword adds to the unit's stats as to a card's (keywords.py, grid.md 4.3.13 "always
    # in effect"): to a stat the file writes, and to one taken from the card less what the card's
    # own keywords already added to it (card_set.with_plugin_keywords)
    own_add = keyword_bonus(keywords)
    card_add = keyword_bonus(card.keywords) if card is not None else dict.fromkeys(own_add, 0)

    def pick(own, from_card, default, stat=None):
        if stat is None:
            return own if own is not None else (from_card if card is not None else default)
        add = own_add[stat]
        if own is not None:
            return own + add
        if card is not None:
            return from_card + add - card_add[stat]
        return default + add

    cls = pick(u.class_, card.class_ if card else None, None)
    hero = pick(u.hero, card.type == "hero" if card else False, False)
    hp = pick(u.hp, card.hp if card else 0, 0, "hp")
    card_hp = pick(None, card.hp, 0, "hp") if card is not None else 0
    max_hp = (u.max_hp + own_add["hp"] if u.max_hp is not None else card_hp if card is not None and u.hp is None
              else max(hp, card_hp) if card is not None else hp)
    if hp > max_hp:
        raise bad(where, f"hp {hp} is above max_hp {max_hp}")
    if u.range is not None:
        rng = u.range + own_add["range"]
    elif card is not None and u.class_ is None:
        rng = (card.range if card.range is not None else unit_range(card)) + own_add["range"] - card_add["range"]
    else:
        rng = DEFAULT_RANGE[cls] + own_add["range"]
    for k in u.statuses:
        if k not in STATUSES:
            raise bad(f"{where}.statuses", f"unknown status {printable(k)!r}{did_you_mean(k, STATUSES)}; "
                                           f"known: {', '.join(STATUSES)}")
    if u.abilities is not None:
        if len(u.abilities) > MAX_ABILITIES:
            raise bad(f"{where}.abilities", f"{len(u.abilities)} abilities, at most {MAX_ABILITIES}")
        abilities = []
        for k, a in enumerate(u.abilities):
            try:
                abilities.append(AbilitySpec.model_validate(a, strict=True))
            except ValidationError as err:  # in the project's words, one line
                first = err.errors()[0]
                loc = ".".join(str(x) for x in first["loc"])
                raise bad(f"{where}.abilities[{k}]" + (f".{loc}" if loc else ""), explain(first)) from None
    else:
        abilities = list(card.abilities) if card else []
    resist = u.resist if u.resist is not None else (card.resist if card else Resist())
    less = card_add if u.resist is None and card is not None else dict.fromkeys(own_add, 0)
    resist = resist.model_copy(update={t: getattr(resist, t) + own_add[t] - less[t] for t in ("physical", "magic", "poison")})
    statuses = {k: v for k, v in u.statuses.items() if v}
    return PlacedUnit(
        side=u.side, x=u.x, y=u.y, name=u.name or card.name, card=u.card, cls=cls, hero=hero, hp=hp,
        max_hp=max_hp, mv=pick(u.mv, card.mv if card else 0, 0, "mv"),
        damage=pick(u.damage, card.damage if card else 0, 0, "damage"),
        damage_type=pick(u.damage_type, card.damage_type if card else "physical", "physical"), range=rng,
        resist=resist.as_tuple(), kill_points=pick(u.kill_points, card.points if card else (3 if hero else 1),
                                                   3 if hero else 1),
        keywords=keywords, statuses=statuses, abilities=tuple(abilities), turn_over=u.turn_over)


def _check_steps(spec: ScenarioSpec, units: list[PlacedUnit], cards: dict[str, CardSpec], width: int,
                 height: int, bad) -> None:
    """Each step has the fields its kind needs (spec §5's table) and nothing else; its cells are on
    the board; the units, abilities and cards it names exist (a hired unit is named by its card)."""
    by_name = {u.name: u for u in units}
    for i, s in enumerate(spec.steps):
        where = step_label(i, s.do)
        need, may = STEP_FIELDS[s.do]
        given = {f for f in ("unit", "target", "cell", "to", "at", "ability", "card", "side") if getattr(s, f) is not None}
        allowed = set(may) | {f for n in need for f in n.split("|")}
        extra = sorted(given - allowed)
        if extra:
            raise bad(i, where, f"field {extra[0]!r} is not used by {s.do!r} (it takes: "
                                f"{', '.join(sorted(allowed)) or 'no fields'})")
        for n in need:
            options = n.split("|")
            present = [f for f in options if f in given]
            if not present:
                raise bad(i, where, f"field {' or '.join(repr(f) for f in options)}: missing (required)")
            if len(present) > 1:
                raise bad(i, where, f"give {' or '.join(repr(f) for f in options)}, not both")
        if {"target", "cell"} <= given:
            raise bad(i, where, "give 'target' or 'cell', not both")
        for f in ("cell", "to", "at"):
            xy = getattr(s, f)
            if xy is not None and not (xy[0] < width and xy[1] < height):
                raise bad(i, where, f"field {f!r}: cell {xy} is off the {width}x{height} board")
        for f in ("unit", "target"):
            name = getattr(s, f)
            if name is not None and name not in by_name and name not in _hired_before(spec, i):
                raise bad(i, where, f"field {f!r}: no unit named {printable(name)!r}{did_you_mean(name, by_name)}")
        if s.card is not None:
            card = cards.get(s.card)
            if card is None:
                raise bad(i, where, f"field 'card': unknown card {printable(s.card)!r}{did_you_mean(s.card, cards)}")
            kinds = ("unit", "hero") if s.do == "hire" else ("spell", "item", "trap")
            if card.type not in kinds:
                raise bad(i, where, f"field 'card': {s.card!r} is a {card.type}; {s.do} takes a {' or a '.join(kinds)}")
        if s.ability is not None:
            _check_ability(s.do, s.unit, s.ability, by_name, cards, i, where, bad)


def _hired_before(spec: ScenarioSpec, i: int) -> set[str]:
    return {s.card for s in spec.steps[:i] if s.do == "hire" and s.card}


def _check_ability(do: str, unit: str | None, ability: str, by_name: dict[str, PlacedUnit],
                   cards: dict[str, CardSpec], i: int, where: str, bad) -> None:
    """The ability is the unit's (a placed unit's list, a hired unit's card), of the step's kind:
    ``attack`` takes an attack-op ability, ``ability`` any other (spec §5)."""
    u = by_name.get(unit or "")
    abilities = u.abilities if u is not None else tuple(cards[unit].abilities) if unit in cards else ()
    found = next((a for a in abilities if a.name == ability), None)
    if found is None:
        names = [a.name for a in abilities]
        raise bad(i, where, f"field 'ability': {unit!r} has no ability {printable(ability)!r}"
                            f"{did_you_mean(ability, names)} (it has: {', '.join(names) or 'none'})")
    if (found.op == "attack") != (do == "attack"):
        use = "an 'attack' step" if found.op == "attack" else "an 'ability' step"
        raise bad(i, where, f"field 'ability': {ability!r} is op {found.op!r}, used with {use}")


def occupancy(plan: ScenarioPlan) -> np.ndarray:
    """int8[C]: the side standing on each cell, -1 empty (the board functions' ``occ``)."""
    occ = np.full(plan.board.cells, -1, dtype=np.int8)
    for u in plan.units:
        occ[plan.board.cell(u.x, u.y)] = u.side
    return occ

"""The card set, the class-board powers and every effect as the numbers compiled code reads
(``Rules``): one int32 table per kind, names resolved to ids here, so a kernel never meets a string.

DESIGN.md "The World": "Static card data is compiled once from data/ into a catalog of numpy arrays
by card id." Effects of cards, unit abilities, power abilities and power tokens share one table;
each owner holds a (start, count) into it, so one interpreter (``effects.py``) runs them all.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from battlesim.systems.classes.board import LANES, ROWS, geometry
from battlesim.systems.classes.cards import CardSet, CardSpec
from battlesim.systems.classes.conditions import condition_names, plugin_conditions
from battlesim.systems.classes.effect_spec import EffectSpec
from battlesim.systems.classes.handle import Handle, HandleType, register
from battlesim.systems.classes.powers import PowerSpec
from battlesim.systems.classes.state import ABILITIES, NONE, T_INTERSECTION, T_LANE, T_NONE, T_PLAYER, TOKENS
from battlesim.systems.classes.vocabulary import (
    COLOURS,
    COST_COLOURS,
    DISCARDS,
    KEYWORDS,
    OPS,
    SELECTORS,
    STATS,
    TARGET_KINDS,
    TRIGGERS,
)

NCOST = len(COST_COLOURS)
# -- cards[c, column] ---------------------------------------------------------------------
C_SPELL, C_COST = 0, 1
C_TARGET = C_COST + NCOST
C_HAS_ATTACK, C_ATTACK, C_HEALTH, C_RANGE = C_TARGET + 1, C_TARGET + 2, C_TARGET + 3, C_TARGET + 4
C_KEYWORD = C_RANGE + 1
C_DURATION = C_KEYWORD + len(KEYWORDS)  # NONE: no Enchantment clause; 0: no duration
C_AURA, C_HP_AURA, C_HAS_ABILITY = C_DURATION + 1, C_DURATION + 2, C_DURATION + 3
C_AB_COST = C_HAS_ABILITY + 1
C_AB_CLOCK = C_AB_COST + NCOST
C_AB_TARGET, C_TYPE_BITS, C_EFF_START, C_EFF_N, C_AB_EFF_START, C_AB_EFF_N = range(C_AB_CLOCK + 1, C_AB_CLOCK + 7)
C_DEATH = C_AB_EFF_N + 1  # has on_death text
NC = C_DEATH + 1
# -- powers[p, column] --------------------------------------------------------------------
PW_INNATE, PW_LEVEL, PW_SLOTS, PW_REQUIRES, PW_NAB = range(5)
PW_AB = 5  # + a * NAB + (AB_COST .. AB_N)
AB_COST, AB_CLOCK, AB_TARGET, AB_TOKENS, AB_START, AB_N = 0, NCOST, NCOST + 1, NCOST + 2, NCOST + 3, NCOST + 4
NAB = AB_N + 1
PW_TOK = PW_AB + ABILITIES * NAB  # + t * 2 + (0 start, 1 n)
NPW = PW_TOK + TOKENS * 2
# -- effects[e, column] -------------------------------------------------------------------
EFFECT_FIELDS = ("trigger", "op", "select", "amount", "stat", "condition", "colour", "steps", "card", "card_type",
                 "range", "per_token")
(F_TRIGGER, F_OP, F_SELECT, F_AMOUNT, F_STAT, F_CONDITION, F_COLOUR, F_STEPS, F_CARD, F_CARD_TYPE, F_RANGE,
 F_PER_TOKEN) = range(len(EFFECT_FIELDS))
NF = len(EFFECT_FIELDS)
# -- conditions[k, column]: plugin condition k (unit column U_CONDITION + len(CONDITIONS) + k) -----
CD_START, CD_N, CD_DISCARD = range(3)
NCD = 3
DISCARD_ONE, DISCARD_ALL = DISCARDS.index("one"), DISCARDS.index("all")

TR = {n: i for i, n in enumerate(TRIGGERS)}
TR_CAST, TR_UNLEASH, TR_AURA, TR_SUMMON, TR_DEATH = TR["on_cast"], TR["unleash"], TR["aura"], TR["on_summon"], TR["on_death"]
OP = {n: i for i, n in enumerate(OPS)}
SEL = {n: i for i, n in enumerate(SELECTORS)}
TK = {n: i for i, n in enumerate(TARGET_KINDS)}
ST_ATTACK, ST_HEALTH = STATS.index("attack"), STATS.index("health")


RULES_ARRAYS = ("cards", "powers", "effects", "conditions", "search", "search_distance", "front", "acting_order",
                "distance", "intersection_distance", "adjacent", "targets")


def target_list(kind: int, rows: int = ROWS) -> list[int]:
    """Every target a choice of ``kind`` (``TK``) may name on a board of ``rows`` rows (spec §13
    TARGET: 30 fields, 2 players, 20 intersections on 6 rows; a summon: the 5 first-row lanes);
    legality is the action's check (``legal.check_target``)."""
    if kind == TK["none"]:
        return [T_NONE]
    if kind == TK["player"]:
        return [T_PLAYER, T_PLAYER + 1]
    if kind == TK["intersection"]:
        return [T_INTERSECTION + i for i in range((LANES - 1) * (rows - 1))]
    if kind == TK["first_row"]:
        return [T_LANE + lane for lane in range(LANES)]
    return list(range(LANES * rows))  # the unit kinds and ``field``


def target_table(rows: int = ROWS) -> np.ndarray:
    """``target_list`` of every kind as one table: ``[kind, 0]`` the count, then the targets. Built
    once per board: the agents' listings read a kind's row where they built the list per card."""
    lists = [target_list(k, rows) for k in range(len(TARGET_KINDS))]
    table = np.full((len(lists), 1 + max(len(t) for t in lists)), NONE, np.int32)
    for k, t in enumerate(lists):
        table[k, 0] = len(t)
        table[k, 1:1 + len(t)] = t
    table.setflags(write=False)
    return table


class RulesType(HandleType):
    """The numba type of ``Rules``."""


class Rules(Handle):
    """The static tables a kernel reads (int32, NONE where unused), one pointer in compiled code
    (``handle.py``): cards [cards, NC]; powers [powers, NPW]; effects [effects, NF]; conditions
    [plugin conditions, NCD] (each one's tick: its effects, what it discards); then the board's
    tables (``board.geometry(rows)``, int8: the attack search order and its distances, the field
    in front, the acting order, distances from a field or an intersection, adjacent fields) and
    every target kind's candidates (``target_table``), so one compiled engine plays any ``rows``
    (spec choice 1)."""

    ARRAYS = RULES_ARRAYS


register(RulesType, Rules, RULES_ARRAYS)


@njit(cache=True)
def make_rules(cards, powers, effects, conditions, search, search_distance, front, acting_order, distance,  # type: ignore[no-untyped-def]
               intersection_distance, adjacent, targets):
    """The compiled handle of these tables (cached: numba's own constructor compiles per process)."""
    return Rules(cards, powers, effects, conditions, search, search_distance, front, acting_order, distance,
                 intersection_distance, adjacent, targets)


Rules.MAKE = make_rules


@dataclass
class Compiled:
    """``Rules`` with the names behind its ids (scenarios and the JSON state print them)."""

    rules: Rules
    card_names: list[str]
    power_names: list[str]
    power_specs: list[PowerSpec]
    type_words: tuple[str, ...]

    def card(self, name: str) -> int:
        return self.card_names.index(name)

    def power(self, spec: PowerSpec) -> int:
        """The id of ``spec``: the very object first (a set-up names its boards' own specs; a
        pydantic comparison per spec was a fifth of a one-game call), else an equal one."""
        for i, p in enumerate(self.power_specs):
            if p is spec:
                return i
        return next(i for i, p in enumerate(self.power_specs) if p == spec)


def _cost(cost: dict[str, int]) -> list[int]:
    return [cost.get(c, 0) for c in COST_COLOURS]


def compile_rules(cards: CardSet, powers: list[PowerSpec], rows: int = ROWS) -> Compiled:
    """Every card of ``cards`` and every power of ``powers`` (both sides' boards) as tables, and
    the tables of a board of ``rows`` rows."""
    names = list(cards.specs)
    index = {n: i for i, n in enumerate(names)}
    words = tuple(sorted({w for s in cards.specs.values() for w in s.type.split()}))
    if len(words) > 30:
        raise ValueError(f"{len(words)} card type words; the type mask holds 30")
    effects: list[list[int]] = []
    conditions = condition_names()

    def add(effs: list[EffectSpec]) -> tuple[int, int]:
        start = len(effects)
        for e in effs:
            row = [TR[e.trigger], OP[e.op], SEL[e.select] if e.select else NONE,
                   NONE if e.amount is None else e.amount, NONE if e.stat is None else STATS.index(e.stat),
                   NONE if e.condition is None else conditions.index(e.condition),
                   NONE if e.colour is None else COLOURS.index(e.colour), NONE if e.steps is None else e.steps,
                   NONE if e.card is None else index[e.card],
                   0 if e.card_type is None else 1 << words.index(e.card_type),
                   NONE if e.range is None else e.range, int(bool(e.per_token))]
            effects.append(row)
        return start, len(effs)

    table = np.full((max(len(names), 1), NC), NONE, np.int32)
    for i, n in enumerate(names):
        s: CardSpec = cards.specs[n]
        row = table[i]
        row[C_SPELL] = int(s.is_spell)
        row[C_COST:C_COST + NCOST] = _cost(s.cost)
        row[C_TARGET] = TK[s.target]
        row[C_HAS_ATTACK] = int(s.attack is not None)
        row[C_ATTACK] = s.attack or 0
        row[C_HEALTH] = 0 if s.is_spell else (s.health or 1)  # classes.md: "If no HP is specified, set a single die set to 1."
        row[C_RANGE] = s.range
        row[C_KEYWORD:C_KEYWORD + len(KEYWORDS)] = [int(s.keywords.get(k, 0)) for k in KEYWORDS]
        row[C_DURATION] = NONE if s.enchantment is None else s.enchantment.duration
        auras = [e for e in s.effects if e.trigger == "aura"]
        row[C_AURA] = int(bool(auras))
        row[C_HP_AURA] = int(any(e.stat == "health" for e in auras))
        row[C_HAS_ABILITY] = int(s.ability is not None)
        row[C_AB_COST:C_AB_COST + NCOST] = _cost(s.ability.cost if s.ability else {})
        row[C_AB_CLOCK] = int(bool(s.ability and s.ability.clock))
        row[C_AB_TARGET] = TK[s.ability.target] if s.ability else NONE
        row[C_TYPE_BITS] = sum(1 << words.index(w) for w in s.type.split())
        row[C_EFF_START], row[C_EFF_N] = add(list(s.effects))
        row[C_AB_EFF_START], row[C_AB_EFF_N] = add(list(s.ability.effects) if s.ability else [])
        row[C_DEATH] = int(any(e.trigger == "on_death" for e in s.effects))
    specs: list[PowerSpec] = []
    for p in powers:
        if not any(q is p or q == p for q in specs):
            specs.append(p)
    ptable = np.full((max(len(specs), 1), NPW), NONE, np.int32)
    for i, p in enumerate(specs):
        row = ptable[i]
        row[PW_INNATE] = int(p.innate)
        row[PW_LEVEL] = p.level
        row[PW_SLOTS] = p.slots
        row[PW_REQUIRES] = next((j for j, q in enumerate(specs) if q.name == p.requires), NONE)
        row[PW_NAB] = len(p.abilities)
        for a, ab in enumerate(p.abilities):
            base = PW_AB + a * NAB
            row[base + AB_COST:base + AB_COST + NCOST] = _cost(ab.cost)
            row[base + AB_CLOCK] = int(ab.clock)
            row[base + AB_TARGET] = TK[ab.target]
            row[base + AB_TOKENS] = ab.tokens
            row[base + AB_START], row[base + AB_N] = add(list(ab.effects))
        for t, effs in enumerate(p.on_token):
            row[PW_TOK + 2 * t], row[PW_TOK + 2 * t + 1] = add(list(effs))
    ctable = np.full((len(plugin_conditions()), NCD), NONE, np.int32)
    for k, c in enumerate(plugin_conditions().values()):
        ctable[k, CD_START], ctable[k, CD_N] = add(list(c.effects))
        ctable[k, CD_DISCARD] = DISCARDS.index(c.discard)
    eff = np.array(effects, np.int32).reshape(len(effects), NF) if effects else np.full((1, NF), NONE, np.int32)
    g = geometry(rows)
    board = (g.search, g.search_distance, g.front, g.acting_order, g.distance, g.intersection_distance, g.adjacent,
             target_table(rows))
    return Compiled(Rules(table, ptable, eff, ctable, *board), names, [p.name for p in specs], specs, words)

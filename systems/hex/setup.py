"""A hex army on the board from its kingdom (spec §2.2 blitz, §2.5 pre-battle setup), written into
one game of a World; ``tile`` copies that game into every game of a batch (all games of a batch
share the two armies; only the seeded first player differs, drawn in the compiled loop).

What a card becomes: its printed stats and keywords; its own active abilities, and for the hero
the actives of its ability cards and items, as ability rows (``state.AB_FIELDS``); the passives of
ability cards and items as permanent modifier instances on the hero (so they end with it: hex.md
"do not affect the battlefield after the owning hero is dead", I-40). Effects the compiled engine
does not play yet (a relocate elsewhere than the target hex) are left out and listed in ``Army.skipped`` (ledger: "cards in batch
games"), never played half.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from battlesim.systems.hex.board import from_rank, hex_id
from battlesim.systems.hex.cards import AbilityCard, HexCardSet, ItemCard, UnitCard
from battlesim.systems.hex.effect_spec import PassiveSpec
from battlesim.systems.hex.kingdoms import Kingdom
from battlesim.systems.hex.state import (
    A_CAST_RANGE,
    A_CHANNEL,
    A_COMBINABLE,
    A_COST,
    A_EFFECTS,
    A_EMPTY_HEX,
    A_MOVES_SELF,
    A_NEFFECTS,
    A_ONCE,
    A_PRESENT,
    A_SPELL_POWER,
    A_TARGET,
    ABILITIES,
    ACTIONS,
    ALL,
    CONTROLLER,
    E_AMOUNT,
    E_KEYWORD,
    E_NONLETHAL,
    E_ONLY,
    E_OP,
    E_ROUNDS,
    E_SELECT,
    E_SET,
    E_STAT,
    E_STATUS,
    E_TYPE,
    EFFECT_OPS,
    EFFECTS,
    FIRST_TAG,
    HEALTH,
    HERO,
    INFINITE,
    M_AMOUNT,
    M_BY,
    M_KEYWORD,
    M_ONLY,
    M_SET,
    M_SLOT,
    M_STAT,
    M_UNTIL,
    MANA,
    MAX_HEALTH,
    MAX_MANA,
    MOD_STATS,
    MOVEMENT,
    NEF,
    NULL,
    ONCE_BATTLE,
    ONCE_ROUND,
    PERMANENT,
    POWER,
    RANGE,
    SELECTS,
    SIDE,
    STATUS_NAMES,
    TARGETS,
    UNDEAD,
    kw,
    modifier_on,
)
from battlesim.systems.hex.vocabulary import APPLIED_STATUSES, DAMAGE_TYPES, QUALIFIERS

U = 16  # a side's unit slots (spec §6)


@dataclass
class Army:
    """What ``place`` put on the board: per slot the card key, and each ability row's name; the
    card effects and abilities left out (not played by the compiled engine yet)."""

    card: dict[int, str] = field(default_factory=dict)
    abilities: dict[int, list[str]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)


def playable(active) -> list:
    """The effects of ``active`` the compiled engine plays (ops of ``EFFECT_OPS``, any selector;
    a relocate only onto the target hex)."""
    return [e for e in active.effects if e.op in EFFECT_OPS and (e.op != "relocate" or e.to == "target_hex")]


def write_ability(row: np.ndarray, active, effects: list, templates=None) -> None:
    """One ability row (``state.AB_FIELDS`` then the effects' ``EFFECT_FIELDS``) from a card's
    ``ActiveSpec`` or a scenario's ``AbilitySpec``; a summon's ``amount`` is its template slot
    (``templates(card name)``)."""
    row[:] = 0
    row[A_PRESENT] = 1
    row[A_COST] = active.cost
    cr = active.cast_range
    row[A_CAST_RANGE] = INFINITE if cr is None else (1 if cr == "adjacent" else cr)
    row[A_TARGET] = TARGETS.index(active.target)
    once = getattr(active, "once_per", None) or ("round" if getattr(active, "once_per_round", False) else None)
    row[A_ONCE] = {None: 0, "round": ONCE_ROUND, "battle": ONCE_BATTLE}[once]
    row[A_NEFFECTS] = min(len(effects), EFFECTS)
    row[A_COMBINABLE] = int(active.combinable)
    row[A_SPELL_POWER] = getattr(active, "spell_power", 0) or 0
    row[A_CHANNEL] = getattr(active, "channel", None) or 0
    # hex.md "Relocate – A relocated unit is moved directly to another hex": onto an empty one
    row[A_EMPTY_HEX] = int(any(e.op in ("relocate", "summon") for e in effects))
    # hex.md "Since relocation involves movement, it is prevented by root effects."
    row[A_MOVES_SELF] = int(any(e.op == "switch" or (e.op == "relocate" and e.select == "self") for e in effects))
    for e, eff in enumerate(effects[:EFFECTS]):
        base = A_EFFECTS + e * NEF
        row[base + E_OP] = EFFECT_OPS.index(eff.op)
        row[base + E_AMOUNT] = templates(eff.card) if eff.op == "summon" else (eff.amount or 0)
        row[base + E_TYPE] = DAMAGE_TYPES.index(eff.type) if eff.type else 1
        row[base + E_NONLETHAL] = int(bool(eff.nonlethal))
        row[base + E_STATUS] = STATUS_NAMES.index(APPLIED_STATUSES[eff.status]) if eff.status else 0
        row[base + E_ROUNDS] = eff.rounds or 0
        row[base + E_STAT] = -1 if eff.stat is None else MOD_STATS.index(eff.stat)
        row[base + E_SET] = -1 if eff.set is None else eff.set
        row[base + E_KEYWORD] = -1 if eff.keyword is None else kw(eff.keyword)
        row[base + E_ONLY] = -1 if eff.only is None else QUALIFIERS.index(eff.only)
        row[base + E_SELECT] = SELECTS.index(eff.select)


def highest_levels(extras: list) -> list:
    """The hero's ability and item cards with each ability at its highest level only (I-44: "a
    higher level needs and replaces the lower (same name)"), so one ability row carries a once-per
    limit for every level (hex.md "The ability level is not considered part of the ability name")."""
    top: dict[str, int] = {}
    for c in extras:
        if isinstance(c, AbilityCard):
            top[c.name] = max(top.get(c.name, 0), c.level)
    return [c for c in extras if not isinstance(c, AbilityCard) or c.level == top[c.name]]


def put_unit(bt, b: int, s: int, card: UnitCard, side: int, pos: int, alive: bool = True) -> None:
    """Unit card ``card``'s printed stats, keywords and types in slot s of game b (owner and
    controller ``side``, on hex ``pos``); spec §2.5 "Units with mana start at their (max) mana"."""
    st, cols = bt.st, bt.cols
    st.alive[b, s] = alive
    bt.stand(b, s, pos)
    mana = NULL if card.mana is None else card.mana
    for c, v in ((SIDE, side), (CONTROLLER, side),
                 (HEALTH, card.health), (MAX_HEALTH, card.health), (ACTIONS, 1),
                 (POWER, NULL if card.power is None else card.power),
                 (RANGE, NULL if card.range is None else card.range),
                 (MOVEMENT, NULL if card.movement is None else card.movement), (MANA, mana), (MAX_MANA, mana)):
        st.i16[cols[c], b, s] = v
    st.flags[cols[HERO], b, s] = card.type == "hero"
    st.flags[cols[UNDEAD], b, s] = "undead" in card.types
    for name, value in card.keywords.items():
        c = kw(name)
        if c >= FIRST_TAG:
            st.flags[cols[c], b, s] = bool(value)
        else:
            st.i16[cols[c], b, s] = ALL if value is True else int(value)


class Templates:
    """Summon templates of one side (I-45): each summoned card once, in a slot at the end of the
    side's half, not alive and off the board; the summon op copies it into a never-used slot."""

    def __init__(self, bt, b: int, side: int, cards: HexCardSet, first_free: int) -> None:
        self.bt, self.b, self.side, self.cards = bt, b, side, cards
        self.slot: dict[str, int] = {}
        self.next = side * U + U - 1
        self.floor = side * U + first_free

    def __call__(self, name: str) -> int:
        if name not in self.slot:
            if self.next < self.floor:
                return -1  # a full side (16 units): no template, and no slot a summon could enter
            card = next(c for c in self.cards.cards.values() if isinstance(c, UnitCard) and c.name == name)
            put_unit(self.bt, self.b, self.next, card, self.side, -1, alive=False)
            self.slot[name] = self.next
            self.next -= 1
        return self.slot[name]


def place(bt, b: int, side: int, kingdom: Kingdom, cards: HexCardSet, army: Army) -> None:
    """Kingdom ``kingdom``'s blitz army on side ``side`` of game b (``bt``: an ``actions.Battle``):
    I-7 "its units name their hex as [col, rank] from the own edge, mirrored for side 1"; spec
    §2.5 "Units with mana start at their (max) mana"; every unit has its one action (hex.md
    "Every unit has one action each round, by default"); summon templates (``Templates``)."""
    f = bt.f
    hero_extras = highest_levels([cards.cards[k] for k in kingdom.cards
                                  if isinstance(cards.cards[k], (AbilityCard, ItemCard))])
    templates = Templates(bt, b, side, cards, len(kingdom.placed))
    for i, (key, col, rk) in enumerate(kingdom.placed):
        s = side * U + i
        card = cards.cards[key]
        assert isinstance(card, UnitCard)
        army.card[s] = key
        put_unit(bt, b, s, card, side, hex_id(*from_rank(side, col, rk)))
        actives = [(a.name, a) for a in card.abilities]
        if card.type == "hero":
            for extra in hero_extras:
                act = extra.active() if isinstance(extra, AbilityCard) else extra.ability
                if act is not None:
                    actives.append((extra.name, act))
                if extra.passive is not None:
                    passive(bt, b, s, extra.passive)
        names: list[str] = []
        for name, act in actives:
            effects = playable(act)
            if len(effects) < len(act.effects) or len(names) >= ABILITIES:
                army.skipped.append(f"{key}: {name}" + ("" if effects else " (left out)"))
            if not effects or len(names) >= ABILITIES:
                continue
            write_ability(f.abil[b, s, len(names)], act, effects, templates)
            names.append(name)
        army.abilities[s] = names


def passive(bt, b: int, s: int, spec: PassiveSpec) -> None:
    """An ability card's or item's passive on its hero: permanent modifier instances (a granted
    keyword, a "+X Prop" or "Prop X"), the hero's own buffs (``by`` = its side)."""
    mods = bt.f.mods[b]
    rows = [(kw(n), -1, ALL if v is True else int(v), -1, -1) for n, v in spec.keywords.items()]
    rows += [(-1 if m.keyword is None else kw(m.keyword), -1 if m.stat is None else MOD_STATS.index(m.stat),
              m.amount if m.amount is not None else 0, -1 if m.set is None else m.set,
              -1 if m.only is None else QUALIFIERS.index(m.only)) for m in spec.modifiers]
    for keyword, stat, amount, set_, only in rows:
        free = int(np.flatnonzero(mods[:, M_SLOT] < 0)[0])
        m = mods[free]
        modifier_on(bt.f.g, b, s, free)
        m[:] = -1
        m[M_SLOT], m[M_BY], m[M_UNTIL], m[M_ONLY] = s, bt.i(SIDE, b, s), PERMANENT, only
        if keyword >= 0:
            m[M_KEYWORD], m[M_AMOUNT] = keyword, max(amount, 1)
        else:
            m[M_STAT] = stat
            if set_ >= 0:
                m[M_SET] = set_
            else:
                m[M_AMOUNT] = amount
                if MOD_STATS[stat] == "health":  # I-35: "+X Health raises max and current"
                    for c in (MAX_HEALTH, HEALTH):
                        bt.put(c, b, s, bt.i(c, b, s) + amount)


def tile(src, dst) -> None:
    """Game 0 of Battle ``src`` copied into every game of Battle ``dst`` (the same layout)."""
    for name in ("i16", "i8", "flags"):
        getattr(dst.st, name)[:] = getattr(src.st, name)[:, :1]
    dst.st.alive[:] = src.st.alive[:1]
    for a, b in zip(dst.f, src.f):
        a[:] = b[:1]


def refill(src, dst) -> None:
    """Every batch-axis array of Battle ``dst`` back to game 0 of ``src`` (``tile``, and the
    arrays a new World starts as its template has them: the 2-wide columns, the serials, the
    event rows): a played batch made new again in place (``HexBatch.refilled``)."""
    tile(src, dst)
    for name in ("i16x2", "serial", "events", "nevents"):
        getattr(dst.st, name)[:] = getattr(src.st, name)[:1]


def put_game(src, dst, b: int) -> None:
    """Game 0 of Battle ``src`` copied into game b of Battle ``dst`` (a drafted game's own armies
    in a batch whose games differ in their armies)."""
    for name in ("i16", "i8", "flags"):
        getattr(dst.st, name)[:, b] = getattr(src.st, name)[:, 0]
    dst.st.alive[b] = src.st.alive[0]
    for a, s in zip(dst.f, src.f):
        a[b] = s[0]

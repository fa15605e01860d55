"""Legal masks of the play phase: which cards, abilities and activations a seat may use now
(lanes.md "Phase 2: Play Phase", "Faction Restrictions", "Lane Rules", "Hero Abilities",
"Activated Improvements", "Equipment"). ``PlayPhase`` (play.py) builds each decision's legal row
from them; they read the board once per request through a shared ``SeatBoard``.
"""

from __future__ import annotations

import functools
from types import SimpleNamespace

import numpy as np

from battlesim.ecs.npx import any_axis
from battlesim.systems.lanes import board, cellsets
from battlesim.systems.lanes.cards import EQUIPMENT, FACTIONS, IMPROVEMENT, SPELL, UNIT
from battlesim.systems.lanes.targets import ALLY_UNIT, ANY_UNIT, ENEMY_UNIT, aimable, sides
from battlesim.systems.lanes.vocabulary import TARGET_KINDS

N_FACTIONS = len(FACTIONS)
N_KINDS = len(TARGET_KINDS)
# aim column (range "any" * K + target kind, see ``_card_columns``) -> whether it aims at a unit
_AIMS_AT_UNIT = np.tile(np.isin(np.arange(N_KINDS), [ENEMY_UNIT, ALLY_UNIT, ANY_UNIT]), 2)


@functools.cache
def _aim_lanes(L: int) -> np.ndarray:
    """``uint8[2**L, 2**L, 2 * K]``: for the lanes holding an enemy target (e) and an ally target
    (a), the origin lanes from which a card or ability of each aim column (range "any" * K +
    target kind) finds a unit to aim at (``SeatBoard.aim``)."""
    every = 2 ** L - 1
    e, a = np.arange(2 ** L)[:, None], np.arange(2 ** L)[None, :]
    here = np.full((2 ** L, 2 ** L, N_KINDS), every)  # range "lane"; kinds aiming at no unit: every lane
    here[..., ENEMY_UNIT], here[..., ALLY_UNIT], here[..., ANY_UNIT] = e, a, e | a
    anywhere = np.where(here != 0, every, 0)  # range "any"
    return np.concatenate([here, anywhere], axis=2).astype(np.uint8)


def _card_columns(w) -> SimpleNamespace:
    """Per-card columns the legal masks read, indexed by card id, computed once per catalog and
    cached on the World, with an extra last entry for an empty hand slot (card id -1): ``cost``
    (the empty slot's is never affordable), ``kind``, ``faction`` (the column of
    ``SeatBoard.faction_lanes``: faction + 1), ``aim`` and ``ability_aim`` (range "any" * K +
    target kind: the column of ``SeatBoard.aim``)."""
    cache = getattr(w, "cache", None)
    if cache is not None and "play_columns" in cache:
        return cache["play_columns"]
    cat = w.catalog.arrays

    def column(values, empty):
        return np.append(values, empty).astype(np.intp)

    cols = SimpleNamespace(
        cost=column(cat.cost, np.iinfo(np.intp).max),
        kind=column(cat.kind, -1),
        faction=column(cat.faction + 1, 0),
        aim=column((cat.range == 1) * N_KINDS + cat.target, 0),
        ability_aim=column((cat.ability_range == 1) * N_KINDS + cat.ability_target, 0),
    )
    if cache is not None:
        cache["play_columns"] = cols
    return cols


class SeatBoard:
    """The board as one legal-mask request sees it, read once and shared by the plays, abilities,
    activations and target checks (``targets.sides``: the acting seat's cells ``own``, the
    opponent's ``opp``, their flat entity indices), with the own heroes; which lanes hold a hero of
    each faction, and which a unit to aim at, when first asked. Sets of cells and lanes are bit
    sets (``cellsets``)."""

    def __init__(self, w, games: np.ndarray, seat: np.ndarray) -> None:
        _, _, L, P = w.g.board.shape
        self.w, self.games, self.n, self.L, self.P = w, games, games.size, L, P
        self.row = games * 2 + seat  # the (game, seat) row of per-seat state
        self.own, self.own_fl, self.opp, self.opp_fl = sides(w, games, seat)
        self.hero = (self.own >= 0) & w.take("hero", self.own_fl)  # [n, L*P]
        self._heroes = self._faction_lanes = self._aim = None

    def heroes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(i, r, cell, flat)``: the own heroes' flat index into ``hero``, rows, cells, and flat
        entity indices."""
        if self._heroes is None:
            i = np.flatnonzero(self.hero)
            r, cell = np.divmod(i, self.L * self.P)
            self._heroes = i, r, cell, self.own_fl.reshape(-1)[i]
        return self._heroes

    def faction_lanes(self) -> np.ndarray:
        """``uint8[n, F + 1]``: at column f + 1, the lanes (bit l) where the seat has a hero of
        faction f; column 0 (cards of no faction) is empty. lanes.md "Faction Restrictions": a
        card needs "a matching-faction hero in the origin lane"; dead heroes are off the board, so
        they give no access ("Hero Death & Respawn")."""
        if self._faction_lanes is None:
            # one byte of lanes per column, column c at bits 8c..8c+7 of a word per cell, OR-ed over the cells
            column = self.w.take("faction", self.own_fl).astype(np.intp) + 1  # [n, L*P]
            bit = column * 8 + np.arange(self.L * self.P) // self.P  # lane l of column c: bit 8c + l
            at = np.left_shift(self.hero.astype(np.uint64), bit.astype(np.uint64))
            lanes = np.bitwise_or.reduceat(at.reshape(-1), np.arange(0, at.size, at.shape[1]))  # one C loop over the rows
            lanes &= ~np.uint64(0xFF)  # a hero of no faction (column 0) opens no lane
            self._faction_lanes = lanes.astype("<u8", copy=False).view(np.uint8).reshape(self.n, 8)[:, :N_FACTIONS + 1]
        return self._faction_lanes

    def aim(self, r: np.ndarray, column: np.ndarray) -> np.ndarray:
        """``uint8``, shaped like ``r``: the origin lanes (bit l) from which a card or ability of
        row ``r`` finds a unit to aim at, by its aim ``column`` (range "any" * K + target kind,
        ``_card_columns``): range "lane", one in the origin lane; "any", one anywhere (every lane
        or none); a kind that aims at no unit, every lane (``_aim_lanes``)."""
        if self._aim is None:  # per row: the lanes holding an enemy target, an ally target
            enemy, ally = aimable(self.w, self.own, self.own_fl, self.opp, self.opp_fl)
            found = any_axis(np.stack([enemy, ally], axis=1).reshape(self.n, 2, self.L, self.P), 3)  # [n, 2, L]
            lanes = cellsets.to_bits(found).astype(np.intp)
            self._aim = (lanes[:, 0] << self.L | lanes[:, 1]) * (2 * N_KINDS)
        return _aim_lanes(self.L).reshape(-1)[self._aim[r] + column]

    def equip_cells(self, r: np.ndarray) -> np.ndarray:
        """``uint64``, shaped like ``r``: the cells of row ``r`` equipment may be attached to: an
        own unit or hero, not a creep, unless it is "Locked" and already holds equipment (lanes.md
        "Equipment": "Equipment cannot be removed or replaced"). Read for the rows asked about."""
        w, own, fl = self.w, self.own[r], self.own_fl[r]
        ok = (own >= 0) & ~w.take("creep", fl)
        locked = w.take("locked", fl) > 0
        if locked.any():
            ok &= ~(locked & (w.take("equipment", fl) >= 0))
        return cellsets.to_bits(ok)


def legal_plays(w, games: np.ndarray, seat: np.ndarray, view: SeatBoard | None = None) -> np.ndarray:
    """``uint64[n, H]``: for each hand card, the cells (bit l * P + p) where it may be played.

    - a card whose cost is within the seat's resources ("Playing a card costs resources");
    - units, spells and improvements in a lane with a hero of their faction ("All cards (units,
      spells, improvements) require a matching-faction hero in the origin lane"); equipment "is
      not gated by faction/lanes";
    - a unit on an empty position of the seat's side, or one held by its own non-hero unit, which
      is bounced ("Playing a unit on a position occupied by your own unit destroys the existing
      unit"; ledger: heroes cannot be bounced);
    - a spell or an improvement from its origin lane (position 0 stands for the lane); a spell
      that needs a target only if one exists; at most 3 improvements per lane and player;
    - equipment onto an own unit or hero (not a creep) at that cell, unless it is "Locked" and
      already holds equipment ("Equipment cannot be removed or replaced").

    Read on the affordable hand cards only.
    """
    b = SeatBoard(w, games, seat) if view is None else view
    col = _card_columns(w)
    H = w.g.hand.shape[2]
    hand = w.g.hand.reshape(-1, H)[b.row]  # [n, H]; an empty slot (-1) reads the columns' last entry
    i = np.flatnonzero(col.cost[hand] <= w.g.resources.reshape(-1)[b.row][:, None])
    r = i // H
    card = hand.reshape(-1)[i]
    kind = col.kind[card]
    gate = b.faction_lanes().reshape(-1)[r * (N_FACTIONS + 1) + col.faction[card]]  # lanes
    every, first = cellsets.lane_cells(b.L, b.P)
    cells = np.where(kind == UNIT, every[gate] & cellsets.to_bits(~b.hero)[r], np.uint64(0))
    origin = np.zeros(gate.shape, dtype=np.uint8)  # lanes a spell or an improvement may be played from
    spell = kind == SPELL
    if spell.any():
        aim = col.aim[card]
        origin = np.where(spell, b.aim(r, aim) if _AIMS_AT_UNIT[aim[spell]].any() else np.uint8(2 ** b.L - 1), origin)
    imp = (kind == IMPROVEMENT).nonzero()[0]
    if imp.size:  # lanes with an empty improvement slot
        slots = w.g.improvements.shape[3]
        empty = w.g.improvements.reshape(-1, b.L, slots)[b.row[r[imp]]] == board.EMPTY  # [m, L, I]
        origin[imp] = cellsets.to_bits(any_axis(empty, 2))
    cells |= first[gate & origin]
    eq = (kind == EQUIPMENT).nonzero()[0]
    if eq.size:  # read once per row holding equipment (r is sorted)
        held = r[eq]
        first_of_row = np.ones(held.size, dtype=bool)
        np.not_equal(held[1:], held[:-1], out=first_of_row[1:])
        cells[eq] = b.equip_cells(held[first_of_row])[np.cumsum(first_of_row) - 1]
    out = np.zeros(b.n * H, dtype=np.uint64)
    out[i] = cells
    return out.reshape(b.n, H)


def legal_abilities(w, games: np.ndarray, seat: np.ndarray, out: np.ndarray, view: SeatBoard | None = None) -> None:
    """``out: bool[n, L, P]``: own heroes whose active ability can be used now. lanes.md "Hero
    Abilities": "Cooldown X", "Mana Cost - Requires spending mana from the lane's mana pool",
    "Silenced - Unit cannot use abilities"; ledger: once per round, and only with a target to aim
    at if it needs one. Read on the hero cells only."""
    b = SeatBoard(w, games, seat) if view is None else view
    i, r, cell, fl = b.heroes()
    card = w.take("card_id", fl)
    cat = w.catalog.arrays
    k = cat.has_ability[card].nonzero()[0]  # about half the heroes: the rest is read on those
    i, r, cell, fl, card = i[k], r[k], cell[k], fl[k], card[k]
    lane = cell // b.P
    ok = (w.take("silenced", fl) <= 0) & (cat.ability_mana[card] <= w.g.lane_mana.reshape(-1)[b.row[r] * b.L + lane])
    np.put(out, i[_ready(w, b, games, r, fl, card, lane, ok)], True)  # i: flat index into [n, L*P]


def legal_activations(w, games: np.ndarray, seat: np.ndarray, out: np.ndarray, view: SeatBoard | None = None) -> None:
    """``out: bool[n, L, I]``: own improvements whose activated ability can be used now
    (lanes.md "Activated Improvements": cooldowns, charges; ledger: once per round). Read on the
    improvements only."""
    b = SeatBoard(w, games, seat) if view is None else view
    _, _, L, I = w.g.improvements.shape
    imp = w.g.improvements.reshape(-1, L * I)[b.row]  # [n, L*I]
    i = np.flatnonzero(imp >= 0)
    if i.size == 0:
        return
    r, cell = np.divmod(i, L * I)
    fl = games[r] * w.n_slots + imp.reshape(-1)[i]
    card = w.take("card_id", fl)
    cat = w.catalog.arrays
    ok = cat.has_ability[card]
    np.put(out, i[_ready(w, b, games, r, fl, card, cell // I, ok)], True)  # i: flat index into [n, L*I]


def _ready(w, view: SeatBoard, games: np.ndarray, r: np.ndarray, fl: np.ndarray, card: np.ndarray,
           lane: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """``ok`` narrowed to the abilities (a hero's or an improvement's, entity ``fl`` of row ``r``
    in ``lane``) that can be used now: "Cooldown X" over, a charge left, not used yet this round
    (ledger: once per round), and a unit to aim at if they aim at one."""
    ok = ok & (w.take("cooldown", fl) <= 0) & (w.take("charges", fl) != 0)
    ok &= w.take("used_round", fl) != w.g.round[games][r]
    aim = _card_columns(w).ability_aim[card]
    if (ok & _AIMS_AT_UNIT[aim]).any():
        ok &= (view.aim(r, aim) >> lane) & 1 != 0
    return ok

"""The play phase's legal actions, compiled, one game at a time (issue 13; the numpy twin is
``PlayPhase.request`` in ``systems/lanes/play.py`` over ``legal.py``, ``targets.py``,
``casters.py``).

``legal_play(st, f, cols, b, seat, row)`` writes into ``row: bool[A]`` the legal row of the
fixed action table (``actions.py``) for game ``b``, seat ``seat`` to act, exactly as the numpy
request writes it:

- no pending decision: pass (lanes.md "Pass - Skip your turn without playing a card"), the hand
  cards' cells (PLAY), the heroes' abilities (ABILITY), the improvements' activations (ACTIVATE);
- a pending target (a unit, spell, ability or activation aiming at a unit): the cells of the
  units it may be aimed at (TARGET), and nothing else;
- a pending caster choice: the cells of the valid casters (TARGET; ``casters.py``).

Arguments: ``st`` the ``WorldState`` (``ecs/compiled/world_view.py``: the World's own component
buffers and catalog rows), ``f`` the per-game fields the request reads (``PlayFields``, the
World's own arrays, by name), ``cols`` (``legal_columns``): the column ids, catalog rows, the
ruleset's vocabulary codes and the action table's block starts, as one argument, never module
globals (DESIGN.md "Rules of the road": a plugin set may move a column; numba checks only this
file for staleness, so a code defined elsewhere is not baked in).

Legality reads no aura: the auras add only attack and armor (``auras.py``), and no legal
action depends on either.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from battlesim.ecs.compiled.world_view import ViewError, WorldView

# positions in ``cols``: components (group, as the view files them)
CARD_ID, HERO, CREEP, FACTION, UNTARGETABLE, STEALTH, SILENCED, COOLDOWN, CHARGES, USED_ROUND, LOCKED, EQUIPMENT = range(12)
_COMPONENTS = (("card_id", "i16"), ("hero", "flags"), ("creep", "flags"), ("faction", "i8"), ("untargetable", "i16"),
               ("stealth", "flags"), ("silenced", "i16"), ("cooldown", "i16"), ("charges", "i16"),
               ("used_round", "i16"), ("locked", "i16"), ("equipment", "i16"))
# catalog rows (``st.cat``)
C_COST, C_KIND, C_FACTION, C_RANGE, C_TARGET, C_ABILITY_RANGE, C_ABILITY_TARGET, C_HAS_ABILITY, C_ABILITY_MANA, C_KW_STEALTH = range(12, 22)
_CATALOG = ("cost", "kind", "faction", "range", "target", "ability_range", "ability_target", "has_ability",
            "ability_mana", "kw_stealth")
STEALTH_BY_ITEM = 22  # 1 when held equipment grants stealth (``stats.keyword_flat``)
# vocabulary codes: card kinds, target kinds, the range "any", pending decisions, the empty slot
K_UNIT, K_SPELL, K_IMPROVEMENT, K_EQUIPMENT, T_ENEMY, T_ALLY, T_ANY, RANGE_ANY = range(23, 31)
P_NONE, P_UNIT, P_SPELL, P_ABILITY, P_ACTIVATE, P_CASTER, EMPTY = range(31, 38)
# the action table's block starts
PLAY_BASE, TARGET_BASE, ABILITY_BASE, ACTIVATE_BASE, N_COLS = range(38, 43)


class PlayFields(NamedTuple):
    """The per-game fields (``w.g.<name>``, the World's own arrays) the request reads."""

    hand: np.ndarray  # int16[B, 2, H]: card ids, -1 empty
    resources: np.ndarray  # int16[B, 2]
    board: np.ndarray  # int16[B, 2, L, P]: slots, -1 empty
    improvements: np.ndarray  # int16[B, 2, L, I]: slots, -1 empty
    lane_mana: np.ndarray  # int16[B, 2, L]
    round: np.ndarray  # int16[B]
    pending_kind: np.ndarray  # int8[B]
    pending_card: np.ndarray  # int16[B]
    pending_lane: np.ndarray  # int8[B]


def play_fields(view: WorldView) -> PlayFields:
    """The ``PlayFields`` of a World's view: its own arrays, no copy."""
    return PlayFields(*(view.g[name] for name in PlayFields._fields))


def legal_columns(view: WorldView, actions: Any, equip_keywords: Any = ()) -> np.ndarray:
    """``int64[N_COLS]``: the ``cols`` argument of ``legal_play`` for this World (``view``), its
    action table and the keywords held equipment grants (``w.equip_keywords``). A component
    living in another group than the kernel reads it from is an error, not a wrong read."""
    from battlesim.systems.lanes import board, play
    from battlesim.systems.lanes.cards import EQUIPMENT as EQ
    from battlesim.systems.lanes.cards import IMPROVEMENT, SPELL, UNIT
    from battlesim.systems.lanes.targets import ALLY_UNIT, ANY_UNIT, ENEMY_UNIT

    out = np.zeros(N_COLS, dtype=np.int64)
    for k, (name, group) in enumerate(_COMPONENTS):
        got = view.columns.get(name)
        if got is None or got[0] != group:
            raise ViewError(f"component {name!r} is {got and got[0]}, the compiled legal request reads it as {group}")
        out[k] = got[1]
    for k, name in enumerate(_CATALOG):
        if name not in view.cat_rows:
            raise ViewError(f"the catalog has no column {name!r}")
        out[C_COST + k] = view.cat_rows[name]
    out[STEALTH_BY_ITEM] = int("stealth" in equip_keywords)
    out[K_UNIT:RANGE_ANY + 1] = (UNIT, SPELL, IMPROVEMENT, EQ, ENEMY_UNIT, ALLY_UNIT, ANY_UNIT, 1)
    out[P_NONE:EMPTY + 1] = (play.PENDING_NONE, play.PENDING_UNIT, play.PENDING_SPELL, play.PENDING_ABILITY,
                             play.PENDING_ACTIVATE, play.PENDING_CASTER, board.EMPTY)
    out[PLAY_BASE:N_COLS] = (actions.play_base, actions.target_base, actions.ability_base, actions.activate_base)
    return out


@njit(cache=True)
def _stealthy(st, cols, b, s) -> bool:
    """lanes.md "Stealth - Cannot be targeted": the unit's own keyword, or its item's
    (``stats.keyword_flat``)."""
    if st.flags[cols[STEALTH], b, s]:
        return True
    return cols[STEALTH_BY_ITEM] != 0 and st.cat[cols[C_KW_STEALTH], st.i16[cols[EQUIPMENT], b, s]] != 0


@njit(cache=True)
def _enemy_target(st, f, cols, b, side, l, p) -> bool:
    """A unit of the opponent's cell the seat may choose (``targets.aimable``): not
    "Untargetable", not "Stealth"."""
    s = f.board[b, side, l, p]
    return s >= 0 and st.i16[cols[UNTARGETABLE], b, s] <= 0 and not _stealthy(st, cols, b, s)


@njit(cache=True)
def _ally_target(st, f, cols, b, seat, l, p) -> bool:
    """A unit of the seat's own cell it may choose (``targets.aimable``): not "Untargetable",
    not a creep ("Creeps do not count as units you 'control'")."""
    s = f.board[b, seat, l, p]
    return s >= 0 and st.i16[cols[UNTARGETABLE], b, s] <= 0 and not st.flags[cols[CREEP], b, s]


@njit(cache=True)
def _aims_at_unit(cols, kind) -> bool:
    return kind == cols[T_ENEMY] or kind == cols[T_ALLY] or kind == cols[T_ANY]


@njit(cache=True)
def _aim_lanes(cols, kind, rng, enemy_lanes, ally_lanes, every) -> int:
    """The origin lanes (bit l) from which a card or ability of target ``kind`` and range ``rng``
    finds a unit to aim at (``legal._aim_lanes``): range "lane", one in the origin lane; "any",
    one anywhere (every lane or none); a kind aiming at no unit, every lane."""
    if kind == cols[T_ENEMY]:
        here = enemy_lanes
    elif kind == cols[T_ALLY]:
        here = ally_lanes
    elif kind == cols[T_ANY]:
        here = enemy_lanes | ally_lanes
    else:
        here = every
    if rng == cols[RANGE_ANY]:
        return every if here != 0 else 0
    return here


@njit(cache=True)
def _ready(st, f, cols, b, s, card, lane, enemy_lanes, ally_lanes, every) -> bool:
    """An ability (a hero's or an improvement's, entity ``s`` in ``lane``) usable now
    (``legal._ready``): "Cooldown X" over, a charge left, not used yet this round (ledger: once
    per round), and a unit to aim at if it aims at one."""
    if st.i16[cols[COOLDOWN], b, s] > 0 or st.i16[cols[CHARGES], b, s] == 0:
        return False
    if st.i16[cols[USED_ROUND], b, s] == f.round[b]:
        return False
    lanes = _aim_lanes(cols, st.cat[cols[C_ABILITY_TARGET], card], st.cat[cols[C_ABILITY_RANGE], card],
                       enemy_lanes, ally_lanes, every)
    return (lanes >> lane) & 1 != 0


@njit(cache=True)
def _targets(st, f, cols, b, seat, row) -> None:
    """TARGET block of a game waiting for a target or a caster (``PlayPhase._targets``)."""
    L, P = f.board.shape[2], f.board.shape[3]
    base = cols[TARGET_BASE]
    kind = f.pending_kind[b]
    card = f.pending_card[b]
    origin = f.pending_lane[b]
    if kind == cols[P_CASTER]:  # "caster selection required if multiple valid heroes exist"
        faction = st.cat[cols[C_FACTION], card]
        for p in range(P):
            s = f.board[b, seat, origin, p]
            if s >= 0 and st.flags[cols[HERO], b, s] and st.i8[cols[FACTION], b, s] == faction:
                row[base + (seat * L + origin) * P + p] = True
        return
    if kind == cols[P_ABILITY] or kind == cols[P_ACTIVATE]:
        tk, rng = st.cat[cols[C_ABILITY_TARGET], card], st.cat[cols[C_ABILITY_RANGE], card]
    else:
        tk, rng = st.cat[cols[C_TARGET], card], st.cat[cols[C_RANGE], card]
    enemy = tk == cols[T_ENEMY] or tk == cols[T_ANY]
    ally = tk == cols[T_ALLY] or tk == cols[T_ANY]
    for l in range(L):
        if rng != cols[RANGE_ANY] and l != origin:  # range "lane": inside the origin lane
            continue
        for p in range(P):
            if ally and _ally_target(st, f, cols, b, seat, l, p):
                row[base + (seat * L + l) * P + p] = True
            if enemy and _enemy_target(st, f, cols, b, 1 - seat, l, p):
                row[base + ((1 - seat) * L + l) * P + p] = True


@njit(cache=True)
def legal_play(st, f, cols, b, seat, row) -> None:
    """Write game ``b``'s legal row (``bool[A]``) for ``seat``, the player to act in the play
    phase (lanes.md "Phase 2: Play Phase"); see the module's docstring."""
    row[:] = False
    if f.pending_kind[b] != cols[P_NONE]:
        _targets(st, f, cols, b, seat, row)
        return
    row[0] = True  # "Pass - Skip your turn without playing a card"
    H, L, P, I = f.hand.shape[2], f.board.shape[2], f.board.shape[3], f.improvements.shape[3]
    every = (1 << L) - 1
    opp = 1 - seat
    # one pass over the board: the lanes holding a target of each side, and each faction's lanes
    enemy_lanes = 0
    ally_lanes = 0
    for l in range(L):
        for p in range(P):
            if _enemy_target(st, f, cols, b, opp, l, p):
                enemy_lanes |= 1 << l
            if _ally_target(st, f, cols, b, seat, l, p):
                ally_lanes |= 1 << l
    resources = f.resources[b, seat]
    for h in range(H):  # PLAY: hand card h at (l, p)
        card = f.hand[b, seat, h]
        if card < 0 or st.cat[cols[C_COST], card] > resources:  # "Playing a card costs resources"
            continue
        kind = st.cat[cols[C_KIND], card]
        first = cols[PLAY_BASE] + h * L * P
        if kind == cols[K_EQUIPMENT]:  # "not gated by faction/lanes": an own unit or hero, not a creep
            for l in range(L):
                for p in range(P):
                    s = f.board[b, seat, l, p]
                    if s < 0 or st.flags[cols[CREEP], b, s]:
                        continue
                    # "Equipment cannot be removed or replaced" while "Locked"
                    if st.i16[cols[LOCKED], b, s] > 0 and st.i16[cols[EQUIPMENT], b, s] >= 0:
                        continue
                    row[first + l * P + p] = True
            continue
        # "All cards (units, spells, improvements) require a matching-faction hero in the origin lane"
        faction = st.cat[cols[C_FACTION], card]
        gate = 0
        if faction >= 0:
            for l in range(L):
                for p in range(P):
                    s = f.board[b, seat, l, p]
                    if s >= 0 and st.flags[cols[HERO], b, s] and st.i8[cols[FACTION], b, s] == faction:
                        gate |= 1 << l
                        break
        if gate == 0:
            continue
        if kind == cols[K_UNIT]:  # an empty cell, or one held by an own non-hero unit (bounced)
            for l in range(L):
                if (gate >> l) & 1:
                    for p in range(P):
                        s = f.board[b, seat, l, p]
                        if s < 0 or not st.flags[cols[HERO], b, s]:
                            row[first + l * P + p] = True
            continue
        if kind == cols[K_SPELL]:  # from an origin lane where it finds a target, if it needs one
            origin = _aim_lanes(cols, st.cat[cols[C_TARGET], card], st.cat[cols[C_RANGE], card],
                                enemy_lanes, ally_lanes, every)
        elif kind == cols[K_IMPROVEMENT]:  # "maximum of 3 Improvements per lane per player"
            origin = 0
            for l in range(L):
                for i in range(I):
                    if f.improvements[b, seat, l, i] == cols[EMPTY]:
                        origin |= 1 << l
                        break
        else:
            origin = 0
        for l in range(L):
            if (gate & origin) >> l & 1:
                row[first + l * P] = True  # position 0 stands for the lane
    for l in range(L):  # ABILITY: "Cooldown X", "Mana Cost", "Silenced - Unit cannot use abilities"
        mana = f.lane_mana[b, seat, l]
        for p in range(P):
            s = f.board[b, seat, l, p]
            if s < 0 or not st.flags[cols[HERO], b, s]:
                continue
            card = st.i16[cols[CARD_ID], b, s]
            if st.cat[cols[C_HAS_ABILITY], card] == 0 or st.i16[cols[SILENCED], b, s] > 0:
                continue
            if st.cat[cols[C_ABILITY_MANA], card] > mana:
                continue
            if _ready(st, f, cols, b, s, card, l, enemy_lanes, ally_lanes, every):
                row[cols[ABILITY_BASE] + l * P + p] = True
    for l in range(L):  # ACTIVATE: lanes.md "Activated Improvements": cooldowns, charges
        for i in range(I):
            s = f.improvements[b, seat, l, i]
            if s < 0:
                continue
            card = st.i16[cols[CARD_ID], b, s]
            if st.cat[cols[C_HAS_ABILITY], card] != 0 and _ready(st, f, cols, b, s, card, l, enemy_lanes,
                                                                 ally_lanes, every):
                row[cols[ACTIVATE_BASE] + l * I + i] = True


@njit(cache=True)
def legal_rows(st, f, cols, games, seats, out) -> None:
    """``out[k]``: ``legal_play`` for game ``games[k]``, seat ``seats[k]`` (the numpy request's
    shape, for tests and benches; the compiled loop calls ``legal_play`` per game)."""
    for k in range(games.size):
        legal_play(st, f, cols, games[k], seats[k], out[k])

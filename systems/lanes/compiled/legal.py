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

No reference counting (``_nrt=False`` on the kernels): numba increfs and decrefs every array
argument, and every array of a tuple argument, on each call of a function that uses it (an
out-of-line call into the runtime each; refcount pruning gives up on a body with this many
branches). Measured on captured B = 4,096 requests: 0.79 µs a game with it, 0.53 without; the
kernels allocate nothing, so nothing needs counting. ``_nrt`` is a flag of numba's own
``njit`` options, not of its documented API: if a numba release drops it, remove the flag (the
results stay the same, only slower).

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


@njit(cache=True, inline="always")
def _enemy_target(i16, flags, cat, cols, b, s) -> bool:
    """The opponent's unit ``s`` is one the seat may choose (``targets.aimable``): not
    "Untargetable", not "Stealth" (its own keyword, or its item's: ``stats.keyword_flat``)."""
    if i16[cols[UNTARGETABLE], b, s] > 0 or flags[cols[STEALTH], b, s]:
        return False
    return cols[STEALTH_BY_ITEM] == 0 or cat[cols[C_KW_STEALTH], i16[cols[EQUIPMENT], b, s]] == 0


@njit(cache=True, inline="always")
def _ally_target(i16, flags, cols, b, s) -> bool:
    """The seat's own unit ``s`` is one it may choose (``targets.aimable``): not "Untargetable",
    not a creep ("Creeps do not count as units you 'control'")."""
    return i16[cols[UNTARGETABLE], b, s] <= 0 and not flags[cols[CREEP], b, s]


@njit(cache=True, inline="always")
def _aims_at_unit(cols, kind) -> bool:
    return kind == cols[T_ENEMY] or kind == cols[T_ALLY] or kind == cols[T_ANY]


@njit(cache=True, inline="always")
def _aim_lanes(cols, kind, rng, aims, every) -> int:
    """The origin lanes (bit l) from which a card or ability of target ``kind`` and range ``rng``
    finds a unit to aim at (``legal._aim_lanes``): range "lane", one in the origin lane; "any",
    one anywhere (every lane or none); a kind aiming at no unit, every lane. ``aims``:
    ``_aimable_lanes`` (read only for a kind aiming at a unit)."""
    if kind == cols[T_ENEMY]:
        here = aims >> 8
    elif kind == cols[T_ALLY]:
        here = aims & 0xFF
    elif kind == cols[T_ANY]:
        here = (aims >> 8) | (aims & 0xFF)
    else:
        here = every
    if rng == cols[RANGE_ANY]:
        return every if here != 0 else 0
    return here


@njit(cache=True, inline="always")
def _ready(i16, cols, round_, b, s) -> bool:
    """An ability (a hero's or an improvement's, entity ``s``) usable now as far as its own state
    goes (``legal._ready``): "Cooldown X" over, a charge left, not used yet this round (ledger:
    once per round). Whether it finds a unit to aim at is ``_aims_from``."""
    return not (i16[cols[COOLDOWN], b, s] > 0 or i16[cols[CHARGES], b, s] == 0 or i16[cols[USED_ROUND], b, s] == round_)


@njit(cache=True, inline="always")
def _aimable_lanes(i16, flags, cat, board, cols, b, seat) -> int:
    """``enemy_lanes << 8 | ally_lanes``: the lanes (bit l) holding a unit the seat may aim at,
    on the opponent's side and on its own (``targets.aimable``); read only when a card or an
    ability aiming at a unit asks (a lane set is at most 8 lanes: ``cellsets.lane_cells``)."""
    L, P = board.shape[2], board.shape[3]
    enemy = 0
    ally = 0
    for l in range(L):
        for p in range(P):
            s = board[b, 1 - seat, l, p]
            if s >= 0 and _enemy_target(i16, flags, cat, cols, b, s):
                enemy |= 1 << l
            s = board[b, seat, l, p]
            if s >= 0 and _ally_target(i16, flags, cols, b, s):
                ally |= 1 << l
    return enemy << 8 | ally


@njit(cache=True, inline="always")
def _equip_cells(i16, flags, board, cols, b, seat) -> int:
    """The seat's cells (bit l * P + p) equipment may be attached to (``SeatBoard.equip_cells``):
    an own unit or hero, not a creep, unless it is "Locked" and already holds equipment
    (lanes.md "Equipment cannot be removed or replaced")."""
    L, P = board.shape[2], board.shape[3]
    cells = 0
    for l in range(L):
        for p in range(P):
            s = board[b, seat, l, p]
            if s < 0 or flags[cols[CREEP], b, s]:
                continue
            if not (i16[cols[LOCKED], b, s] > 0 and i16[cols[EQUIPMENT], b, s] >= 0):
                cells |= 1 << (l * P + p)
    return cells


@njit(cache=True, inline="always")
def _put_bits(row, first, bits, n) -> None:
    """``row[first + c]``: bit c of ``bits``, for c below ``n`` (branch-free: every entry is
    written, the row's are False before)."""
    for c in range(n):
        row[first + c] = (bits >> c) & 1 != 0


@njit(cache=True, _nrt=False)
def _targets(st, f, cols, b, seat, row) -> None:
    """TARGET block of a game waiting for a target or a caster (``PlayPhase._targets``)."""
    i16, i8, flags, cat, board = st.i16, st.i8, st.flags, st.cat, f.board
    L, P = board.shape[2], board.shape[3]
    base = cols[TARGET_BASE]
    kind = f.pending_kind[b]
    card = f.pending_card[b]
    origin = np.int64(f.pending_lane[b])
    if kind == cols[P_CASTER]:  # "caster selection required if multiple valid heroes exist"
        faction = cat[cols[C_FACTION], card]
        for p in range(P):
            s = board[b, seat, origin, p]
            if s >= 0 and flags[cols[HERO], b, s] and i8[cols[FACTION], b, s] == faction:
                row[base + (seat * L + origin) * P + p] = True
        return
    if kind == cols[P_ABILITY] or kind == cols[P_ACTIVATE]:
        tk, rng = cat[cols[C_ABILITY_TARGET], card], cat[cols[C_ABILITY_RANGE], card]
    else:
        tk, rng = cat[cols[C_TARGET], card], cat[cols[C_RANGE], card]
    enemy = tk == cols[T_ENEMY] or tk == cols[T_ANY]
    ally = tk == cols[T_ALLY] or tk == cols[T_ANY]
    for l in range(L):
        if rng != cols[RANGE_ANY] and l != origin:  # range "lane": inside the origin lane
            continue
        for p in range(P):
            s = board[b, seat, l, p]
            if ally and s >= 0 and _ally_target(i16, flags, cols, b, s):
                row[base + (seat * L + l) * P + p] = True
            s = board[b, 1 - seat, l, p]
            if enemy and s >= 0 and _enemy_target(i16, flags, cat, cols, b, s):
                row[base + ((1 - seat) * L + l) * P + p] = True


@njit(cache=True, _nrt=False)
def legal_play(st, f, cols, b, seat, row) -> None:
    """Write game ``b``'s legal row (``bool[A]``) for ``seat``, the player to act in the play
    phase (lanes.md "Phase 2: Play Phase"); see the module's docstring. The board is read once
    into bit sets (cell ``l * P + p``, lane ``l``), as the numpy request's ``SeatBoard`` does;
    the opponent's side, and what equipment may go to, only when a card or ability asks."""
    i16, i8, flags, cat = st.i16, st.i8, st.flags, st.cat
    hand, board, improvements = f.hand, f.board, f.improvements
    row[:] = False
    if f.pending_kind[b] != cols[P_NONE]:
        _targets(st, f, cols, b, seat, row)
        return
    row[0] = True  # "Pass - Skip your turn without playing a card"
    H, L, P, I = hand.shape[2], board.shape[2], board.shape[3], improvements.shape[3]
    every = (1 << L) - 1
    aims = -1  # _aimable_lanes, read when first needed
    equip_cells = -1  # _equip_cells, read when first needed
    unit_cells = 0  # cells a unit may be played on: empty, or held by an own non-hero unit (bounced)
    heroes = 0  # own heroes' cells
    faction_lanes = 0  # bit 8 f + l: an own hero of faction f in lane l
    for l in range(L):
        for p in range(P):
            c = l * P + p
            s = board[b, seat, l, p]
            if s < 0:
                unit_cells |= 1 << c
            elif flags[cols[HERO], b, s]:
                heroes |= 1 << c
                faction = np.int64(i8[cols[FACTION], b, s])  # int64 as numba computes, also without the JIT
                if faction >= 0:  # a hero of no faction opens no lane
                    faction_lanes |= 1 << (8 * faction + l)
            else:
                unit_cells |= 1 << c  # lanes.md "Bounce"; ledger: heroes cannot be bounced
    lane_cells = (1 << P) - 1
    money = f.resources[b, seat]
    for h in range(H):  # PLAY: hand card h at (l, p)
        card = hand[b, seat, h]
        if card < 0 or cat[cols[C_COST], card] > money:  # "Playing a card costs resources"
            continue
        kind = cat[cols[C_KIND], card]
        first = cols[PLAY_BASE] + h * L * P
        if kind == cols[K_EQUIPMENT]:  # "not gated by faction/lanes"
            if equip_cells < 0:
                equip_cells = _equip_cells(i16, flags, board, cols, b, seat)
            _put_bits(row, first, equip_cells, L * P)
            continue
        # "All cards (units, spells, improvements) require a matching-faction hero in the origin lane"
        faction = cat[cols[C_FACTION], card]
        gate = (faction_lanes >> (8 * faction)) & every if faction >= 0 else 0
        if gate == 0:
            continue
        if kind == cols[K_UNIT]:
            cells = 0
            for l in range(L):
                if (gate >> l) & 1:
                    cells |= lane_cells << (l * P)
            _put_bits(row, first, unit_cells & cells, L * P)
            continue
        if kind == cols[K_SPELL]:  # from an origin lane where it finds a target, if it needs one
            tk = cat[cols[C_TARGET], card]
            if aims < 0 and _aims_at_unit(cols, tk):
                aims = _aimable_lanes(i16, flags, cat, board, cols, b, seat)
            origin = _aim_lanes(cols, tk, cat[cols[C_RANGE], card], aims, every)
        elif kind == cols[K_IMPROVEMENT]:  # "maximum of 3 Improvements per lane per player"
            origin = 0
            for l in range(L):
                for i in range(I):
                    if improvements[b, seat, l, i] == cols[EMPTY]:
                        origin |= 1 << l
                        break
        else:
            origin = 0
        for l in range(L):
            if ((gate & origin) >> l) & 1:
                row[first + l * P] = True  # position 0 stands for the lane
    round_ = f.round[b]
    for c in range(L * P):  # ABILITY: "Cooldown X", "Mana Cost", "Silenced - Unit cannot use abilities"
        if not (heroes >> c) & 1:
            continue
        l = c // P
        s = board[b, seat, l, c % P]
        card = i16[cols[CARD_ID], b, s]
        if cat[cols[C_HAS_ABILITY], card] == 0 or i16[cols[SILENCED], b, s] > 0:
            continue
        if cat[cols[C_ABILITY_MANA], card] > f.lane_mana[b, seat, l]:
            continue
        if not _ready(i16, cols, round_, b, s):
            continue
        tk = cat[cols[C_ABILITY_TARGET], card]  # ledger: only with a unit to aim at if it needs one
        if aims < 0 and _aims_at_unit(cols, tk):
            aims = _aimable_lanes(i16, flags, cat, board, cols, b, seat)
        if (_aim_lanes(cols, tk, cat[cols[C_ABILITY_RANGE], card], aims, every) >> l) & 1:
            row[cols[ABILITY_BASE] + c] = True
    for l in range(L):  # ACTIVATE: lanes.md "Activated Improvements": cooldowns, charges
        for i in range(I):
            s = improvements[b, seat, l, i]
            if s < 0:
                continue
            card = i16[cols[CARD_ID], b, s]
            if cat[cols[C_HAS_ABILITY], card] == 0 or not _ready(i16, cols, round_, b, s):
                continue
            tk = cat[cols[C_ABILITY_TARGET], card]
            if aims < 0 and _aims_at_unit(cols, tk):
                aims = _aimable_lanes(i16, flags, cat, board, cols, b, seat)
            if (_aim_lanes(cols, tk, cat[cols[C_ABILITY_RANGE], card], aims, every) >> l) & 1:
                row[cols[ACTIVATE_BASE] + l * I + i] = True


@njit(cache=True, _nrt=False)
def legal_rows(st, f, cols, games, seats, out) -> None:
    """``out[k]``: ``legal_play`` for game ``games[k]``, seat ``seats[k]`` (the numpy request's
    shape, for tests and benches)."""
    for k in range(games.size):
        legal_play(st, f, cols, games[k], seats[k], out[k])

"""What makes a target or a summon legal (compiled): the checks an action makes before it pays,
returning an error code of ``state.ERRORS`` (E_OK when legal). The agent's mask asks the same
functions, so a scenario's illegal step and an agent's masked action are one rule.
"""

from __future__ import annotations

from numba import njit

from battlesim.systems.classes.board import LANES
from battlesim.systems.classes.rules import C_SPELL, C_TYPE_BITS, F_CARD_TYPE, F_OP, F_TRIGGER, OP, TK, TR_CAST
from battlesim.systems.classes.state import (
    E_ANTIMAGIC,
    E_NO_TYPE,
    E_OCCUPIED,
    E_OK,
    E_TARGET,
    NONE,
    T_INTERSECTION,
    T_LANE,
    T_NONE,
    T_PLAYER,
    U_ANTIMAGIC,
    U_PRESENT,
    U_SIDE,
    U_TURNOVER,
)
from battlesim.systems.classes.units import first_of_type, holds

K_NONE, K_UNIT, K_ENEMY, K_ALLIED, K_PLAYER, K_FIELD, K_INTERSECTION, K_FIRST_ROW = (
    TK[n] for n in ("none", "unit", "enemy_unit", "allied_unit", "player", "field", "intersection", "first_row"))
OP_SUMMON = OP["summon"]


@njit(cache=True, _nrt=False, inline="always")
def first_row(u, side):
    """Spec choice 2: the first row on ``side``'s side, row 0 or the last (``board.first_row``) of
    the board the unit array ``u`` is laid out for (``rows`` = its fields / LANES)."""
    return 0 if side == 0 else u.shape[1] // LANES - 1


@njit(cache=True, _nrt=False, inline="always")
def intersections(u):
    """The interior intersections of the board of ``u`` (``board.INTERSECTIONS`` on 6 rows)."""
    return (LANES - 1) * (u.shape[1] // LANES - 1)


@njit(cache=True, _nrt=False, inline="always")
def check_target(u, b, owner, kind, target, by_card):
    """A target of ``kind`` (spec §14 ``target``) chosen by ``owner``. Antimagic: "A unit with
    Antimagic cannot be targeted ... by cards" (choice 12: spells and unit abilities, ``by_card``;
    class abilities are not cards); a summon needs "an empty spot in the front row on your side".
    It reads the unit array alone (``G.u``): the random agent's listing calls it per target
    (inlined), and it needs nothing else of ``Game``."""
    if kind == K_NONE:
        return E_OK if target == T_NONE else E_TARGET
    if kind in (K_UNIT, K_ENEMY, K_ALLIED):
        if not (0 <= target < u.shape[1]) or not u[b, target, U_PRESENT]:
            return E_TARGET
        side = u[b, target, U_SIDE] ^ (1 if u[b, target, U_TURNOVER] > 0 else 0)  # units.team
        if kind == K_ENEMY and side == owner or kind == K_ALLIED and side != owner:
            return E_TARGET
        if by_card and u[b, target, U_ANTIMAGIC] > 0:
            return E_ANTIMAGIC
        return E_OK
    if kind == K_PLAYER:
        return E_OK if T_PLAYER <= target <= T_PLAYER + 1 else E_TARGET
    if kind == K_FIELD:
        return E_OK if 0 <= target < u.shape[1] else E_TARGET
    if kind == K_INTERSECTION:
        return E_OK if T_INTERSECTION <= target < T_INTERSECTION + intersections(u) else E_TARGET
    if kind == K_FIRST_ROW:
        lane = target - T_LANE
        if not 0 <= lane < LANES:
            return E_TARGET
        return E_OCCUPIED if u[b, first_row(u, owner) * LANES + lane, U_PRESENT] else E_OK
    return E_TARGET


@njit(cache=True, _nrt=False, inline="always")
def check_summons(hand, cards, effects, b, owner, start, n, choice):
    """Every ``summon`` among effects ``start .. start + n`` finds its card in hand (``G.hand``,
    ``R.cards``, ``R.effects``): the chosen one (of the asked type), or any card of the type."""
    for e in range(start, start + n):
        if effects[e, F_OP] != OP_SUMMON or effects[e, F_TRIGGER] != TR_CAST:
            continue
        mask = effects[e, F_CARD_TYPE]
        if choice >= 0:
            if not holds(hand, b, owner, choice) or cards[choice, C_SPELL] == 1:
                return E_NO_TYPE
            if mask != 0 and (cards[choice, C_TYPE_BITS] & mask) == 0:
                return E_NO_TYPE
        elif first_of_type(hand, cards, b, owner, mask) == NONE:
            return E_NO_TYPE
    return E_OK

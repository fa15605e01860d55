"""Target selectors of lanes: who an effect row hits.

Each selector takes the rows of a firing (``Ctx``) and returns ``(row_index, target_slot)``
pairs, one per target, in an order that depends only on each game's own board (rows in
row order, targets by side, lane, position), so random draws stay per-game deterministic.

"your units" excludes creeps (lanes.md "Creep Properties": "Creeps do not count as units you
'control' for card effects that specify 'your units'"); ally selectors therefore skip creeps.
Area selectors exclude the source itself (use ``self`` for the source).
"""

from __future__ import annotations

import numpy as np

from battlesim.ecs.effects import Ctx, EffectTable
from battlesim.ecs.npx import any_axis, nonzero
from battlesim.ecs.rng import Stream
from battlesim.systems.lanes.board import EMPTY, anchor_slot
from battlesim.systems.lanes.vocabulary import lanes as _lanes


def _pairs(ctx: Ctx, cells: np.ndarray, keep: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``cells[m, ...]`` slots (or -1) per row -> (row, slot) pairs for occupied, kept cells."""
    flat = cells.reshape(len(ctx), -1)
    ok = flat >= 0
    if keep is not None:
        ok &= keep.reshape(len(ctx), -1)
    ri, ci = nonzero(ok)
    return ri, flat[ri, ci]


def _lane(ctx: Ctx) -> np.ndarray:
    """The lane an area effect works in: a chosen lane if the card chose one, else its origin."""
    return np.where(ctx.chosen_lane >= 0, ctx.chosen_lane, ctx.lane)


def _not_creep_or_self(w, ctx: Ctx, cells: np.ndarray) -> np.ndarray:
    g = ctx.game.reshape((-1,) + (1,) * (cells.ndim - 1))
    occ = cells >= 0
    sl = np.where(occ, cells, 0)
    src = ctx.source.reshape(g.shape)
    return occ & ~w.take("creep", g, sl) & (cells != src)


def _not_self(ctx: Ctx, cells: np.ndarray) -> np.ndarray:
    return cells != ctx.source.reshape((-1,) + (1,) * (cells.ndim - 1))


def _living(w, ctx: Ctx, slots: np.ndarray):
    """(row, slot) for the rows whose one named entity (-1: none) is still alive. One flat
    read for every row: a -1 reads some other entity, masked out by ``slots >= 0``."""
    ok = (slots >= 0) & w.alive.reshape(-1)[w.flat(ctx.game, slots)]
    ri = ok.nonzero()[0]
    return ri, slots[ri]


def chosen(w, ctx: Ctx, table: EffectTable, e: int):
    return _living(w, ctx, ctx.chosen)


def self_(w, ctx: Ctx, table: EffectTable, e: int):
    """The source; a spell has none on the board, so its "self" is its caster."""
    return _living(w, ctx, np.where(ctx.source >= 0, ctx.source, ctx.caster))


def caster(w, ctx: Ctx, table: EffectTable, e: int):
    return _living(w, ctx, ctx.caster)


def other(w, ctx: Ctx, table: EffectTable, e: int):
    return _living(w, ctx, ctx.other)


def blocker(w, ctx: Ctx, table: EffectTable, e: int):
    ok = ctx.pos >= 0
    cell = np.full(len(ctx), EMPTY, dtype=np.intp)
    cell[ok] = w.g.board[ctx.game[ok], 1 - ctx.owner[ok], ctx.lane[ok], ctx.pos[ok]]
    ri = np.flatnonzero(cell >= 0)
    return ri, cell[ri]


def _adjacent(w, ctx: Ctx, side: np.ndarray, allies: bool):
    P = w.params.positions
    out_r, out_t = [], []
    for d in (-1, 1):  # left neighbour first, then right
        p = ctx.pos + d
        ok = (ctx.pos >= 0) & (p >= 0) & (p < P)
        cell = np.full(len(ctx), EMPTY, dtype=np.intp)
        cell[ok] = w.g.board[ctx.game[ok], side[ok], ctx.lane[ok], p[ok]]
        keep = _not_creep_or_self(w, ctx, cell) if allies else cell >= 0
        ri = np.flatnonzero(keep)
        out_r.append(ri)
        out_t.append(cell[ri])
    ri, t = np.concatenate(out_r), np.concatenate(out_t)
    order = np.argsort(ri, kind="stable")
    return ri[order], t[order]


def adjacent_allies(w, ctx, table, e):
    return _adjacent(w, ctx, ctx.owner, True)


def adjacent_enemies(w, ctx, table, e):
    return _adjacent(w, ctx, 1 - ctx.owner, False)


def _in_lane(w, ctx: Ctx, side: np.ndarray, allies: bool):
    cells = w.g.board[ctx.game, side, _lane(ctx)]  # [m, P]
    keep = _not_creep_or_self(w, ctx, cells) if allies else (cells >= 0) & _not_self(ctx, cells)
    return _pairs(ctx, cells, keep)


def allies_in_lane(w, ctx, table, e):
    return _in_lane(w, ctx, ctx.owner, True)


def enemies_in_lane(w, ctx, table, e):
    return _in_lane(w, ctx, 1 - ctx.owner, False)


def units_in_lane(w, ctx, table, e):
    lane = _lane(ctx)
    cells = w.g.board[ctx.game, :, lane]  # [m, 2, P]
    return _pairs(ctx, cells, _not_self(ctx, cells))


def _in_range(w, ctx: Ctx, table: EffectTable, e: int, side: np.ndarray, allies: bool):
    r = table.params["range"][ctx.card, e]
    cells = w.g.board[ctx.game, side, ctx.lane]  # [m, P]
    pos = np.arange(cells.shape[1])[None, :]
    near = (ctx.pos[:, None] >= 0) & (np.abs(pos - ctx.pos[:, None]) <= r[:, None])
    keep = (_not_creep_or_self(w, ctx, cells) if allies else (cells >= 0) & _not_self(ctx, cells)) & near
    return _pairs(ctx, cells, keep)


def allies_in_range(w, ctx, table, e):
    return _in_range(w, ctx, table, e, ctx.owner, True)


def enemies_in_range(w, ctx, table, e):
    return _in_range(w, ctx, table, e, 1 - ctx.owner, False)


def all_allies(w, ctx, table, e):
    cells = w.g.board[ctx.game, ctx.owner]  # [m, L, P]
    return _pairs(ctx, cells, _not_creep_or_self(w, ctx, cells))


def all_enemies(w, ctx, table, e):
    cells = w.g.board[ctx.game, 1 - ctx.owner]
    return _pairs(ctx, cells)


def _random_of(w, ctx: Ctx, cells: np.ndarray):
    occ = (cells >= 0).reshape(len(ctx), -1)
    has = any_axis(occ, 1)
    ri = np.flatnonzero(has)
    if ri.size == 0:
        return ri, ri
    pick = w.rng.choice(ctx.game[ri], occ[ri], Stream.EFFECT)
    return ri, cells.reshape(len(ctx), -1)[ri, pick]


def random_enemy(w, ctx, table, e):
    return _random_of(w, ctx, w.g.board[ctx.game, 1 - ctx.owner])


def random_enemy_in_lane(w, ctx, table, e):
    return _random_of(w, ctx, w.g.board[ctx.game, 1 - ctx.owner, _lane(ctx)])


def own_anchor(w, ctx, table, e):
    ri = np.flatnonzero(_lane(ctx) >= 0)
    return ri, anchor_slot(ctx.owner[ri], _lane(ctx)[ri])


def enemy_anchor(w, ctx, table, e):
    ri = np.flatnonzero(_lane(ctx) >= 0)
    return ri, anchor_slot(1 - ctx.owner[ri], _lane(ctx)[ri])


def enemy_improvements_in_lane(w, ctx, table, e):
    cells = w.g.improvements[ctx.game, 1 - ctx.owner, _lane(ctx)]  # [m, 3] in age order
    return _pairs(ctx, cells)


_SELECTORS = [
    (chosen, "chosen", "The target chosen when the card or ability was played."),
    (self_, "self", "The source itself (for a spell: its caster)."),
    (caster, "caster", "The hero whose lane the card was cast from (the unit itself for a unit's effects)."),
    (other, "other", "The entity the event is about (the dying enemy, the attacker, the deployed unit)."),
    (blocker, "blocker", "The enemy unit directly opposite the source."),
    (adjacent_allies, "adjacent_allies", "Allied units at the positions next to the source (range 1)."),
    (adjacent_enemies, "adjacent_enemies", "Enemy units at the positions next to the source's position."),
    (allies_in_lane, "allies_in_lane", "Allied units in the lane (lane-wide), source excluded."),
    (enemies_in_lane, "enemies_in_lane", "Enemy units in the lane (lane-wide)."),
    (units_in_lane, "units_in_lane", "Every unit in the lane, both sides, source excluded."),
    (allies_in_range, "allies_in_range", "Allied units within `range` positions of the source."),
    (enemies_in_range, "enemies_in_range", "Enemy units within `range` positions of the source's position."),
    (all_allies, "all_allies", "Allied units in every lane (cross lane), source excluded."),
    (all_enemies, "all_enemies", "Enemy units in every lane (cross lane)."),
    (random_enemy, "random_enemy", "One enemy unit drawn at random from every lane."),
    (random_enemy_in_lane, "random_enemy_in_lane", "One enemy unit in the lane drawn at random."),
    (own_anchor, "own_anchor", "The owner's anchor (or essence) of the lane."),
    (enemy_anchor, "enemy_anchor", "The opponent's anchor (or essence) of the lane."),
    (enemy_improvements_in_lane, "enemy_improvements_in_lane", "The opponent's improvements in the lane, oldest first."),
]
for _fn, _name, _doc in _SELECTORS:
    _lanes.selector(_name, _doc)(_fn)  # the public API (ecs/plugin.py), as a plugin would

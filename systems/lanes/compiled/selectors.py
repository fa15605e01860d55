"""Target selectors of lanes, compiled: the numba twins of ``systems/lanes/selectors.py``.

Each writes, for the firing rows of one game, ``(row, target)`` pairs in the numpy selector's
order for that game (rows in row order; a row's targets by side, lane, position; adjacent:
left, then right), so the opcodes see the same hits and the random picks draw in the same
order. "your units" excludes creeps (lanes.md "Creep Properties"); area selectors exclude the
source itself. A lane of -1 (no chosen lane and no origin lane) reads the last lane, as numpy's
negative index does. Every selector of the numpy set is ported.
"""

from __future__ import annotations

from numba import njit

from battlesim.ecs.compiled import rng as crng
from battlesim.ecs.compiled.interpreter import (C_CARD, C_CASTER, C_CHOSEN, C_CHOSEN_LANE, C_LANE, C_OTHER,
                                                C_OWNER, C_POS, C_SOURCE)
from battlesim.ecs.rng import Stream
from battlesim.ecs.plugin import extend

lanes = extend("lanes")  # its compiled parts are declared as a plugin declares them

EMPTY = -1
EFFECT_STREAM = int(Stream.EFFECT)  # a fixed constant of the determinism contract, not a registry id


@njit
def living(w, b, slot, r, out, n):
    """selectors._living: the row's one named entity, if it is alive."""
    if slot >= 0 and w.alive[b, slot]:
        out[n, 0] = r
        out[n, 1] = slot
        return n + 1
    return n


@njit
def area_lane(ctx, r):
    """selectors._lane: a chosen lane if the card chose one, else its origin."""
    return ctx[r, C_CHOSEN_LANE] if ctx[r, C_CHOSEN_LANE] >= 0 else ctx[r, C_LANE]


@njit
def keep_cell(w, ctx, r, b, cell, allies, creep):
    """An occupied cell the area keeps: allies skip creeps and the source; enemies skip only
    the source (selectors._not_creep_or_self, _not_self)."""
    if cell < 0 or cell == ctx[r, C_SOURCE]:
        return False
    return not (allies and w.flags[creep, b, cell])


@lanes.compiled_selector("chosen")
def chosen(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
    n = 0
    for r in range(nctx):
        n = living(w, b, ctx[r, C_CHOSEN], r, out, n)
    return n


@lanes.compiled_selector("self")
def self_(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
    """The source; a spell has none on the board, so its "self" is its caster."""
    n = 0
    for r in range(nctx):
        n = living(w, b, ctx[r, C_SOURCE] if ctx[r, C_SOURCE] >= 0 else ctx[r, C_CASTER], r, out, n)
    return n


@lanes.compiled_selector("caster")
def caster(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
    n = 0
    for r in range(nctx):
        n = living(w, b, ctx[r, C_CASTER], r, out, n)
    return n


@lanes.compiled_selector("other")
def other(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
    n = 0
    for r in range(nctx):
        n = living(w, b, ctx[r, C_OTHER], r, out, n)
    return n


@lanes.compiled_selector("blocker")
def blocker(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
    """The enemy unit directly opposite the source."""
    n = 0
    for r in range(nctx):
        if ctx[r, C_POS] < 0:
            continue
        cell = g.board[b, 1 - ctx[r, C_OWNER], ctx[r, C_LANE], ctx[r, C_POS]]
        if cell >= 0:
            out[n, 0] = r
            out[n, 1] = cell
            n += 1
    return n


@njit
def adjacent(w, g, b, ctx, nctx, out, allies, P, creep):
    n = 0
    for r in range(nctx):
        pos = ctx[r, C_POS]
        side = ctx[r, C_OWNER] if allies else 1 - ctx[r, C_OWNER]
        for d in (-1, 1):  # left neighbour first, then right
            p = pos + d
            if pos < 0 or p < 0 or p >= P:
                continue
            cell = g.board[b, side, ctx[r, C_LANE], p]
            if (allies and keep_cell(w, ctx, r, b, cell, True, creep)) or (not allies and cell >= 0):
                out[n, 0] = r
                out[n, 1] = cell
                n += 1
    return n


@lanes.compiled_selector("adjacent_allies", ("param.positions", "creep"))
def adjacent_allies(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
    return adjacent(w, g, b, ctx, nctx, out, True, w.params[cols[0]], cols[1])


@lanes.compiled_selector("adjacent_enemies", ("param.positions", "creep"))
def adjacent_enemies(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
    return adjacent(w, g, b, ctx, nctx, out, False, w.params[cols[0]], cols[1])


@njit
def in_lane(w, g, b, ctx, nctx, out, allies, creep):
    n = 0
    for r in range(nctx):
        side = ctx[r, C_OWNER] if allies else 1 - ctx[r, C_OWNER]
        lane = area_lane(ctx, r)
        for p in range(g.board.shape[3]):
            cell = g.board[b, side, lane, p]
            if keep_cell(w, ctx, r, b, cell, allies, creep):
                out[n, 0] = r
                out[n, 1] = cell
                n += 1
    return n


@lanes.compiled_selector("allies_in_lane", ("creep",))
def allies_in_lane(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
    return in_lane(w, g, b, ctx, nctx, out, True, cols[0])


@lanes.compiled_selector("enemies_in_lane", ("creep",))
def enemies_in_lane(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
    return in_lane(w, g, b, ctx, nctx, out, False, cols[0])


@lanes.compiled_selector("units_in_lane", ("creep",))
def units_in_lane(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
    """Every unit in the lane, both sides (side 0 first), source excluded."""
    n = 0
    for r in range(nctx):
        lane = area_lane(ctx, r)
        for side in range(2):
            for p in range(g.board.shape[3]):
                cell = g.board[b, side, lane, p]
                if keep_cell(w, ctx, r, b, cell, False, cols[0]):
                    out[n, 0] = r
                    out[n, 1] = cell
                    n += 1
    return n


@njit
def in_range(w, g, b, ctx, nctx, tbl, e, out, allies, creep, range_row):
    """Units of a side within ``range`` positions of the source, in the source's own lane."""
    n = 0
    for r in range(nctx):
        reach = tbl[range_row, ctx[r, C_CARD], e]
        pos = ctx[r, C_POS]
        side = ctx[r, C_OWNER] if allies else 1 - ctx[r, C_OWNER]
        if pos < 0:
            continue
        for p in range(g.board.shape[3]):
            if abs(p - pos) > reach:
                continue
            cell = g.board[b, side, ctx[r, C_LANE], p]
            if keep_cell(w, ctx, r, b, cell, allies, creep):
                out[n, 0] = r
                out[n, 1] = cell
                n += 1
    return n


@lanes.compiled_selector("allies_in_range", ("creep", "effect.range"))
def allies_in_range(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
    return in_range(w, g, b, ctx, nctx, tbl, e, out, True, cols[0], cols[1])


@lanes.compiled_selector("enemies_in_range", ("creep", "effect.range"))
def enemies_in_range(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
    return in_range(w, g, b, ctx, nctx, tbl, e, out, False, cols[0], cols[1])


@lanes.compiled_selector("all_allies", ("creep",))
def all_allies(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
    """Allied units in every lane (lane, then position), creeps and the source excluded."""
    n = 0
    for r in range(nctx):
        for lane in range(g.board.shape[2]):
            for p in range(g.board.shape[3]):
                cell = g.board[b, ctx[r, C_OWNER], lane, p]
                if keep_cell(w, ctx, r, b, cell, True, cols[0]):
                    out[n, 0] = r
                    out[n, 1] = cell
                    n += 1
    return n


@lanes.compiled_selector("all_enemies")
def all_enemies(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
    """Enemy units in every lane (the source is never an enemy of itself: nothing excluded)."""
    n = 0
    for r in range(nctx):
        for lane in range(g.board.shape[2]):
            for p in range(g.board.shape[3]):
                cell = g.board[b, 1 - ctx[r, C_OWNER], lane, p]
                if cell >= 0:
                    out[n, 0] = r
                    out[n, 1] = cell
                    n += 1
    return n


@njit
def random_of(rng, b, ctx, nctx, out, g, every_lane):
    """selectors._random_of: one occupied enemy cell, uniformly (``CounterRng.choice`` over the
    cells in lane, then position order), drawn only for a row that has one."""
    n = 0
    L, P = g.board.shape[2], g.board.shape[3]
    for r in range(nctx):
        side = 1 - ctx[r, C_OWNER]
        lane = area_lane(ctx, r)
        lo, hi = (0, L) if every_lane else (lane, lane + 1)
        count = 0
        for ln in range(lo, hi):
            for p in range(P):
                if g.board[b, side, ln, p] >= 0:
                    count += 1
        if count == 0:
            continue
        k = crng.integers(rng, b, count, EFFECT_STREAM)
        for ln in range(lo, hi):
            for p in range(P):
                cell = g.board[b, side, ln, p]
                if cell >= 0:
                    if k == 0:
                        out[n, 0] = r
                        out[n, 1] = cell
                        n += 1
                    k -= 1
    return n


@lanes.compiled_selector("random_enemy")
def random_enemy(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
    return random_of(rng, b, ctx, nctx, out, g, True)


@lanes.compiled_selector("random_enemy_in_lane")
def random_enemy_in_lane(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
    return random_of(rng, b, ctx, nctx, out, g, False)


@njit
def anchor_of(ctx, nctx, out, enemy):
    """board.anchor_slot of the row's lane: anchors take fixed slots side * 3 + lane."""
    n = 0
    for r in range(nctx):
        lane = area_lane(ctx, r)
        if lane < 0:
            continue
        side = 1 - ctx[r, C_OWNER] if enemy else ctx[r, C_OWNER]
        out[n, 0] = r
        out[n, 1] = side * 3 + lane
        n += 1
    return n


@lanes.compiled_selector("own_anchor")
def own_anchor(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
    return anchor_of(ctx, nctx, out, False)


@lanes.compiled_selector("enemy_anchor")
def enemy_anchor(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
    return anchor_of(ctx, nctx, out, True)


@lanes.compiled_selector("enemy_improvements_in_lane")
def enemy_improvements_in_lane(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
    """The opponent's improvements in the lane, oldest first."""
    n = 0
    for r in range(nctx):
        lane = area_lane(ctx, r)
        for j in range(g.improvements.shape[3]):
            cell = g.improvements[b, 1 - ctx[r, C_OWNER], lane, j]
            if cell >= 0:
                out[n, 0] = r
                out[n, 1] = cell
                n += 1
    return n

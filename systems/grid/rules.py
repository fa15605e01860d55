"""What a grid unit is and may do, read over one game: the values the rules read (card + item),
and the legality of every action of the action table (spec §4: the
agent's mask, and the scenario runner's "not legal").

Every function is compiled (``@njit(cache=True)``) and takes the World as kernels see it (``w``),
the column table ``cols`` (``state.columns``), the per-game fields ``f`` (``GridFields``), the
board ``bd`` (``BoardTables``), the card tables ``ct``, the parameters ``pr`` and the game ``b``;
``legal_mask`` also the thread's working space ``k`` (``work.GridWork``). None allocates, so all
run without numba's reference counting (``_nrt=False``: work.py says why).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.systems.grid import kernel_cache
from battlesim.systems.grid.action_table import (
    ATTACK,
    END_UNIT,
    HIDE,
    MOVE,
    PASS,
    PLAY,
    SELECT,
    USE,
    block_start,
    encode,
)
from battlesim.systems.grid.board import (
    EMPTY,
    can_stop,
    jump_landing,
    los_distance_into,
    move_costs_into,
    push_destination,
    rush_cells,
)
from battlesim.systems.grid.state import (
    A_AMOUNT,
    A_AREA,
    A_BONUS,
    A_CARD,
    A_ONLY_CLASS,
    A_OP,
    A_RANGE,
    A_REQUIRES_HIDDEN,
    A_SE,
    ACTION_USED,
    ACTIVE,
    ACTIVE_TURN,
    ATTACKED,
    BONUS_USED,
    C_COST,
    C_TYPE,
    CELL,
    CLS,
    DAMAGE,
    DECK_N,
    DTYPE,
    FLYING,
    G_DAMAGE,
    G_DTYPE,
    G_FLYING,
    G_HIDING,
    G_MV,
    G_PARRY,
    G_RANGE,
    G_RES,
    GAME_OVER,
    GOLD,
    HAND_N,
    HIDDEN,
    HIDING,
    INVISIBLE,
    ITEM,
    MV,
    MV_LEFT,
    OP_ATTACK,
    OP_CONCEAL,
    OP_EXTRA_MV,
    OP_GATHER,
    OP_HEAL,
    OP_JUMP,
    OP_PUSH,
    OP_RUSH,
    OP_SEARCH,
    OP_TELEPORT,
    PARRY,
    RANGE,
    READY,
    RES0,
    ROGUE,
    SE,
    SIDE,
    T_HERO,
    T_ITEM,
    T_SPELL,
    T_TRAP,
    T_UNIT,
    TURN,
    TURN_STATE,
    K,
)


# -- the values the rules read: the unit's own plus its item's grants (spec §5 "card + item") --------
@njit(cache=True, _nrt=False, inline="always")
def grant(w, cols, ct, b, s, field):
    """The item's grant ``field`` for unit s, 0 without an item (spec §3 Items: "`grants` while held")."""
    item = w.i16[cols[ITEM], b, s]
    return np.int64(ct.card[item, field]) if item >= 0 else np.int64(0)


@njit(cache=True, _nrt=False, inline="always")
def eff_mv(w, cols, ct, b, s):
    """grid.md 4.2.1 "as many spaces ... as they have MV points"; 4.2.3 "items ... increase movement"."""
    return np.int64(w.i8[cols[MV], b, s]) + grant(w, cols, ct, b, s, G_MV)


@njit(cache=True, _nrt=False, inline="always")
def eff_damage(w, cols, ct, b, s):
    """grid.md 4.4.3 "the base damage": the unit's, plus an item's damage grant."""
    return np.int64(w.i16[cols[DAMAGE], b, s]) + grant(w, cols, ct, b, s, G_DAMAGE)


@njit(cache=True, _nrt=False, inline="always")
def eff_range(w, cols, ct, b, s):
    """grid.md 4.3.14 "A bow and arrow symbol indicates that this ability includes a range modifier"."""
    return np.int64(w.i8[cols[RANGE], b, s]) + grant(w, cols, ct, b, s, G_RANGE)


@njit(cache=True, _nrt=False, inline="always")
def eff_resist(w, cols, ct, b, s, dtype):
    """grid.md 4.4.3 "subtracting any resistances from the target card": of the hit's type."""
    return np.int64(w.i16[cols[RES0 + dtype], b, s]) + grant(w, cols, ct, b, s, G_RES + dtype)


@njit(cache=True, _nrt=False, inline="always")
def eff_dtype(w, cols, ct, b, s):
    """grid.md 4.4.3 "Poison damage occurs from base attacks by cards with the poison symbol": the
    unit's damage type, or its item's (Poisoned Blade)."""
    item = w.i16[cols[ITEM], b, s]
    if item >= 0 and ct.card[item, G_DTYPE] >= 0:
        return np.int64(ct.card[item, G_DTYPE])
    return np.int64(w.i8[cols[DTYPE], b, s])


@njit(cache=True, _nrt=False, inline="always")
def flies(w, cols, ct, b, s):
    """grid.md 4.2.9: "Flying creatures are not affected by web obstacles." (the card's keyword or its item's)."""
    return w.flags[cols[FLYING], b, s] or grant(w, cols, ct, b, s, G_FLYING) > 0


@njit(cache=True, _nrt=False, inline="always")
def hides(w, cols, ct, b, s):
    """grid.md 4.2.14: "Units or heroes with the hiding ability can move and then hide"."""
    return w.flags[cols[HIDING], b, s] or grant(w, cols, ct, b, s, G_HIDING) > 0


@njit(cache=True, _nrt=False, inline="always")
def parry_of(w, cols, ct, b, s):
    """grid.md 4.4.4: "Attacks can be nullified by using abilities such as parry": Parry N (ledger)."""
    return np.int64(w.i8[cols[PARRY], b, s]) + grant(w, cols, ct, b, s, G_PARRY)


@njit(cache=True, _nrt=False, inline="always")
def passes_walls(w, cols, ct, b, s):
    """grid.md 4.2.7: "cannot move onto or past a wall obstacle unless they are a rogue or can fly"."""
    return w.i8[cols[CLS], b, s] == ROGUE or flies(w, cols, ct, b, s)


@njit(cache=True, _nrt=False, inline="always")
def concealed(w, cols, b, s):
    """grid.md 4.4.1: "A unit or hero cannot target a hidden or invisible unit."."""
    return w.flags[cols[HIDDEN], b, s] or w.flags[cols[INVISIBLE], b, s]


@njit(cache=True, _nrt=False, inline="always")
def free_slot(w, b):
    """A free entity slot for a hire (grid.md 4.1.4 "hire more units or heroes"), -1 if the game is full."""
    for s in range(w.alive.shape[1]):
        if not w.alive[b, s]:
            return s
    return -1


@njit(cache=True, _nrt=False, inline="always")
def deck_has(f, b, side, card):
    """grid.md 4.3.12: "search their deck to find a specific card": is a copy there?"""
    for i in range(f.g[b, DECK_N + side]):
        if f.deck[b, side, i] == card:
            return True
    return False


@njit(cache=True, _nrt=False, inline="always")
def slot_free(w, cols, b, s, bonus):
    """grid.md 4.3.3: "Each unit or hero is allowed to use only 1 action and 1 bonus action each turn."."""
    if bonus:
        return not w.flags[cols[BONUS_USED], b, s]
    return not w.flags[cols[ACTION_USED], b, s] and not w.flags[cols[ATTACKED], b, s]


@njit(cache=True, _nrt=False, inline="always")
def sight_limit(w, cols, f, ct, b, a, side):
    """grid.md 4.4.1: "A unit or hero must have a line of sight (LoS) before it can attack any card":
    the farthest the active unit a may need to see this decision, the longest range of its basic
    attack, its abilities and the spells in its player's hand (a range that reads no line of sight
    only makes this larger). The LoS search stops there (``board.los_distance_into``)."""
    reach = eff_range(w, cols, ct, b, a)
    for j in range(K):
        reach = max(reach, np.int64(f.abil[b, a, j, A_RANGE]))
    for h in range(f.g[b, HAND_N + side]):
        card = f.hand[b, side, h]
        if ct.card[card, C_TYPE] == T_SPELL:
            reach = max(reach, np.int64(ct.abil[card, 0, A_RANGE]))
    return reach


@njit(cache=True, _nrt=False, inline="always")
def move_costs_of(w, cols, f, bd, ct, b, k, s):
    """grid.md 4.2.1: "A unit or hero can move any number of spaces in a turn as they have MV
    points.": unit s's least MV to each cell within its MV left (``board.move_costs_into``), in
    ``k.cost``. Computed once for the game as it is: the legal mask computes them and the move it
    allows (or greedy's scores) reads them (``k.costs_of`` says for which game and unit ``k.cost``
    holds them; every action forgets them, ``work.forget_move_costs``)."""
    if k.costs_of[0] != b or k.costs_of[1] != s:
        move_costs_into(bd.neighbours, bd.wall, bd.web, f.occ[b], w.i16[cols[CELL], b, s], w.i8[cols[SIDE], b, s],
                        passes_walls(w, cols, ct, b, s), flies(w, cols, ct, b, s), np.int64(w.i8[cols[MV_LEFT], b, s]),
                        k.cost, k.queue, k.queued)
        k.costs_of[0] = b
        k.costs_of[1] = s
    return k.cost


@njit(cache=True, _nrt=False, inline="always")
def mark_targets(w, cols, f, bd, ct, b, s, row, occ, who, dist, out):
    """grid.md 4.3.1: "An “action” is defined as using an ability listed on the card": sets
    ``out[c]`` (the ability's or the spell's block of the action table, ``block_of``) for every
    cell c unit s may aim the ability ``row`` at (its target's cell, destination, area centre; its
    own cell for self abilities). ``dist`` is s's LoS distance map. Each op looks only at the
    cells it can reach (own cell, the four directions, units)."""
    op = row[A_OP]
    start = w.i16[cols[CELL], b, s]
    side = w.i8[cols[SIDE], b, s]
    mv_left = np.int64(w.i8[cols[MV_LEFT], b, s])
    cells = occ.shape[0]
    if op == OP_ATTACK:
        # grid.md 4.4.4: "A rogue must be hidden to perform a back stab."
        if row[A_REQUIRES_HIDDEN] > 0 and not concealed(w, cols, b, s):
            return
        r = np.int64(row[A_RANGE]) if row[A_RANGE] >= 0 else eff_range(w, cols, ct, b, s)
        area = row[A_AREA] >= 0
        for c in range(cells):
            if bd.wall[c] or dist[c] > r:  # grid.md 4.4.1: "must have a line of sight (LoS)"
                continue
            t = who[c]
            if t >= 0:
                out[c] = occ[c] != side and not concealed(w, cols, b, t)
            else:
                out[c] = area  # an area's centre: a visible enemy or an empty cell
    elif op == OP_EXTRA_MV:
        out[start] = True
    elif op == OP_GATHER:
        out[start] = bd.mana[start]
    elif op == OP_SEARCH:
        out[start] = deck_has(f, b, side, row[A_CARD])
    elif op == OP_JUMP:
        pw, fl = passes_walls(w, cols, ct, b, s), flies(w, cols, ct, b, s)
        for d in range(4):
            land = jump_landing(bd.neighbours, bd.wall, bd.web, occ, start, d, mv_left, pw, fl)
            if land >= 0:
                out[land] = True
    elif op == OP_TELEPORT:
        for c in range(cells):
            out[c] = (c != start and bd.manhattan[start, c] <= row[A_RANGE] and occ[c] == EMPTY
                      and not bd.wall[c])
    elif op == OP_PUSH:
        for d in range(4):
            c = bd.neighbours[start, d]
            if c < 0 or who[c] < 0 or (occ[c] != side and concealed(w, cols, b, who[c])):
                continue
            if push_destination(bd.neighbours, bd.wall, occ, start, c, np.int64(row[A_AMOUNT]),
                                passes_walls(w, cols, ct, b, who[c])) >= 0:
                out[c] = True
    elif op == OP_RUSH:
        pw, fl = passes_walls(w, cols, ct, b, s), flies(w, cols, ct, b, s)
        for d in range(4):
            c = bd.neighbours[start, d]
            if c < 0:
                continue
            shoved_passes = passes_walls(w, cols, ct, b, who[c]) if who[c] >= 0 else False
            to, _ = rush_cells(bd.neighbours, bd.wall, bd.web, occ, start, d, mv_left, pw, fl, shoved_passes)
            if to >= 0:
                out[c] = True
    elif op == OP_HEAL or op == OP_CONCEAL:
        for t in range(w.alive.shape[1]):
            if not w.alive[b, t] or w.i8[cols[SIDE], b, t] != side:
                continue
            c = w.i16[cols[CELL], b, t]
            if dist[c] <= row[A_RANGE] and (op == OP_HEAL or row[A_ONLY_CLASS] < 0
                                            or w.i8[cols[CLS], b, t] == row[A_ONLY_CLASS]):
                out[c] = True


@njit(cache=True, _nrt=False)
def legal_mask(w, cols, f, bd, ct, pr, b, k, out, since=-1):
    """``out[a]`` (bool[A], the action table of spec §4) = action a is legal now for the player
    whose turn it is. grid.md 4.4.1: "combat can only be initiated during a player's turn": only
    that player's units appear in it.

    ``since``: the kind of the one action applied to the game since ``out`` was last filled for
    it (-1, the default: ``out`` holds nothing of this game). After a SELECT or an END_UNIT only
    the blocks those can change are recomputed (``kept_after``); the whole mask otherwise."""
    mark_legal(w, cols, f, bd, ct, pr, b, k, out, since)


@njit(cache=True, _nrt=False, inline="always")
def mark_legal(w, cols, f, bd, ct, pr, b, k, out, since):
    """spec §4, the legal actions: ``legal_mask``'s work, inlined where the mask is filled on every
    decision (the random agent, ``play.random_action``): a call passes each of the ~30 arrays of
    its arguments as ~7 scalars."""
    cells = bd.wall.shape[0]
    side = f.g[b, TURN]
    a = f.g[b, ACTIVE]
    kept = kept_after(since)
    occ, who = f.occ[b], f.who[b]  # the occupancy map, kept as game state (occupancy.py)
    dist = k.dist  # the thread's working space (``work.GridWork``): nothing allocated per call
    if kept:
        clear_active_blocks(out, cells)
        if since == SELECT:  # the selected unit is no longer ready
            out[encode(SELECT, -1, w.i16[cols[CELL], b, a], cells, K)] = False
    else:
        out[:] = False
        if f.g[b, GAME_OVER]:
            return
    if not kept:
        out[PASS] = True  # grid.md 4.1.4: the turn ends when the player has exhausted all desired options
        for s in range(w.alive.shape[1]):  # grid.md 4.1.3: starting another unit's turn ends the previous one's
            if w.alive[b, s] and w.i8[cols[SIDE], b, s] == side and w.i8[cols[TURN_STATE], b, s] == READY:
                out[encode(SELECT, -1, w.i16[cols[CELL], b, s], cells, K)] = True
    # the active unit's LoS distances, found when first needed (a spell to aim, or its own turn)
    have_dist = False
    gold = f.g[b, GOLD + side]
    have_slot = not kept and free_slot(w, b) >= 0  # read only when the hires are recomputed
    # the cells a hire, an item or a trap may go to depend on the board, not on the card: each is
    # found once (when a card of its kind is affordable) and copied into every such card's block
    spots = k.spots  # hire, item, trap cells
    found_hire, found_item, found_trap = False, False, False
    for h in range(f.g[b, HAND_N + side]):
        card = f.hand[b, side, h]
        typ = ct.card[card, C_TYPE]
        cost = ct.card[card, C_COST]
        base = encode(PLAY, h, 0, cells, K)
        # each block is set only when the card is affordable (most hand cards most of the time are not)
        if kept:
            pass  # hires, items and traps read gold, occupancy and free slots: a select changes none
        elif typ == T_UNIT or typ == T_HERO:  # spec §2 Deployment: own deploy rows, empty, not a wall
            if have_slot and cost <= gold:
                if not found_hire:
                    for c in range(cells):
                        spots[0, c] = bd.home[c] == side and occ[c] == EMPTY and not bd.wall[c]
                    found_hire = True
                copy_block(out, base, spots[0])
        elif typ == T_ITEM:
            if cost <= gold:
                if not found_item:
                    for c in range(cells):
                        spots[1, c] = occ[c] == side
                    found_item = True
                copy_block(out, base, spots[1])
        elif typ == T_TRAP and cost <= gold:  # ledger: Traps: an empty non-wall cell of the own half
            if not found_trap:
                for c in range(cells):
                    spots[2, c] = bd.half[c] == side and occ[c] == EMPTY and not bd.wall[c] and f.trap[b, c, 0] < 0
                found_trap = True
            copy_block(out, base, spots[2])
        if typ != T_SPELL:
            continue
        if kept:  # a spell is cast by the active unit, who has changed
            out[base:base + cells] = False
        row = ct.abil[card, 0]
        if a >= 0 and cost <= f.g[b, SE + side] and slot_free(w, cols, b, a, row[A_BONUS] > 0):
            # cast by the active unit (spec §3 Spells), aimed as its own ability would be
            if not have_dist:
                los_distance_into(bd.neighbours, bd.wall, occ, w.i16[cols[CELL], b, a], side,
                                  sight_limit(w, cols, f, ct, b, a, side), dist, k.queue)
                have_dist = True
            mark_targets(w, cols, f, bd, ct, b, a, row, occ, who, dist, block_of(out, base, cells))
    if a < 0 or w.i8[cols[TURN_STATE], b, a] != ACTIVE_TURN:
        return
    out[END_UNIT] = True
    start = w.i16[cols[CELL], b, a]
    if not have_dist:
        los_distance_into(bd.neighbours, bd.wall, occ, start, side, sight_limit(w, cols, f, ct, b, a, side), dist,
                          k.queue)
    mv_left = np.int64(w.i8[cols[MV_LEFT], b, a])
    pw = passes_walls(w, cols, ct, b, a)
    if mv_left > 0:  # grid.md 4.2.1: "A unit or hero can move any number of spaces in a turn as they have MV points."
        cost = move_costs_of(w, cols, f, bd, ct, b, k, a)
        moves = block_of(out, encode(MOVE, -1, 0, cells, K), cells)
        for c in range(cells):  # board.reachable, without its array
            moves[c] = 0 < cost[c] <= mv_left and can_stop(bd.wall, occ, c, pw)
    rng = eff_range(w, cols, ct, b, a)
    for t in range(w.alive.shape[1]):  # grid.md 4.4.1: in range, in sight, not hidden or invisible
        if w.alive[b, t] and w.i8[cols[SIDE], b, t] != side and not concealed(w, cols, b, t):
            c = w.i16[cols[CELL], b, t]
            if dist[c] <= rng:
                out[encode(ATTACK, -1, c, cells, K)] = True
    # grid.md 4.2.14: "can move and then hide as long as no other action or combat is taken"
    if (hides(w, cols, ct, b, a) and not w.flags[cols[ACTION_USED], b, a] and not w.flags[cols[BONUS_USED], b, a]
            and not w.flags[cols[ATTACKED], b, a] and not w.flags[cols[HIDDEN], b, a]):
        out[hide_index(cells)] = True
    for j in range(K):
        row = f.abil[b, a, j]
        # grid.md 4.3.7: "Each unit or hero can only use actions if the player has enough SE."
        if row[A_OP] < 0 or row[A_SE] > f.g[b, SE + side] or not slot_free(w, cols, b, a, row[A_BONUS] > 0):
            continue
        mark_targets(w, cols, f, bd, ct, b, a, row, occ, who, dist, block_of(out, encode(USE, j, 0, cells, K), cells))


@njit(cache=True, _nrt=False, inline="always")
def kept_after(since):
    """Whether the mask of the decision before may be kept after an action of kind ``since``.
    grid.md 4.1.3: "Starting the turn of another unit or hero results in the immediate
    termination of the previous card's turn.": a SELECT or an END_UNIT changes who is active and
    nothing else (no cell, gold, SE, hand card or free slot), so the select entries (but the
    selected unit's) and the hand's hire, item and trap blocks stay as they were."""
    return since == SELECT or since == END_UNIT


@njit(cache=True, _nrt=False, inline="always")
def clear_active_blocks(out, cells):
    """Clears the active unit's entries: END_UNIT and the MOVE, ATTACK, USE and HIDE blocks of the
    action table (spec §4: they lie one after the other). A slice fill: an element loop from an
    offset is not vectorized (its index might be negative), ~20x slower (docs/grid-speed.md)."""
    out[END_UNIT] = False
    out[block_start(MOVE, cells, K):block_start(PLAY, cells, K)] = False


@njit(cache=True, _nrt=False, inline="always")
def copy_block(out, base, cells):
    """spec §4: a hand card's block of the action table is the cells it may be played on:
    ``out[base + c] = cells[c]`` element by element into the block (``block_of``; a slice
    assignment of an array may allocate a copy)."""
    block = block_of(out, base, cells.shape[0])
    for c in range(cells.shape[0]):
        block[c] = cells[c]


@njit(cache=True, _nrt=False, inline="always")
def block_of(out, base, cells):
    """spec §4: the block of ``cells`` entries of the action table from ``base``, as a view indexed
    by cell. Why a view: a loop writing ``out[base + c]`` is not vectorized (numba wraps a
    negative index, and ``base + c`` might be one), one that writes ``block[c]`` for c from 0 is:
    a 64-entry copy ~50 ns -> ~3 ns (docs/grid-speed.md, session 12)."""
    return out[base:base + cells]


@njit(cache=True, _nrt=False)
def hide_index(cells):
    """The index of the HIDE action (spec §4; grid.md 4.2.14 "can move and then hide")."""
    return encode(HIDE, -1, 0, cells, K)


kernel_cache.check("rules", kernel_cache.kernels_of(globals(), __name__))

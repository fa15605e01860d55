"""The battle turn's legal action table (spec §6: the agent's mask), built whole
(``legal_actions``) or kept between decisions and rebuilt only where the game changed since
(``kept_actions``).

Why keep it: units have one action a round (I-13), so a side's table was rebuilt for every one
of its decisions although one action changes few of its entries: a round of n units per side
built ~n^2/2 blocks for n decisions (docs/hex-speed.md). A kept block is rebuilt when its own
unit changed (anything its entries read of it: ``KEY_COLUMNS``, its abilities' use), and
otherwise only when a hex whose occupant changed lies within what the block reads of the board:
its moves, attacks and charges read the hexes within Movement + Range of the unit; its
unit-targeted and empty-hex abilities read only the occupant of the target hex itself, so those
entries are set again on the changed hexes alone. A new round or a changed modifier rebuilds
all (both change what every block reads). The change is found by comparing the game against a
copy of what the table read (``Work.keys``), not by tracing every write: no rule can update
state behind the table's back. ``tests/rules/hex/test_hex_legal_kept.py`` checks the kept table
equals a fresh one at every decision of many games.

Every function takes ``(w, cols, f, k, b, ...)`` as ``battle.py``'s do.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.systems.hex import kernel_cache
from battlesim.systems.hex.battle import (
    ABILITY_0,
    ATTACK,
    CHARGE,
    MOVE,
    SKIP,
    U,
    V,
    ability_reach,
    ability_ready,
    acting_slot,
    has,
    may_attack,
    occupancy,
    prop,
    reach_within,
    target_entry,
)
from battlesim.systems.hex.board import DIST, N_HEXES, NEIGHBOURS
from battlesim.systems.hex.kernel_cache import kernel
from battlesim.systems.hex.state import (
    A_EMPTY_HEX,
    A_TARGET,
    A_USED,
    ABILITIES,
    ACTIONS,
    ALLIED_PATHING,
    BROKEN,
    CHANNEL_C,
    CHARGING,
    CONTROLLER,
    DEFENDER,
    DISARMED,
    FIRST_TAG,
    FLYING,
    MANA,
    MOVEMENT,
    NULL,
    PATHING,
    POS,
    POWER,
    RANGE,
    ROOTED,
    ROUND,
    S_MOVEMENT,
    S_RANGE,
    SILENCED,
    STEADFAST,
    T_HEX,
    T_NONE,
    T_SELF,
    TRAMPLE,
)

WIDTH = U * V * N_HEXES  # the battle action table (spec §6): 9,440
BLOCK = V * N_HEXES  # one unit's entries

# What a block reads of a unit (its own, or an occupant's): every column ``unit_entries`` and
# the predicates it calls read, besides the modifiers (compared whole) and the abilities' use.
KEY_COLUMNS = (POS, CONTROLLER, ACTIONS, CHANNEL_C, POWER, RANGE, MOVEMENT, MANA, ROOTED, DISARMED, SILENCED, BROKEN,
               TRAMPLE, FLYING, PATHING, ALLIED_PATHING, CHARGING, DEFENDER, STEADFAST)
KEY_I16 = np.array([c for c in KEY_COLUMNS if c < FIRST_TAG], dtype=np.int64)
KEY_FLAGS = np.array([c for c in KEY_COLUMNS if c >= FIRST_TAG], dtype=np.int64)
KEY_POS = 0  # POS is KEY_I16[0]: the row of ``Work.keys`` holding where each unit stood
assert KEY_I16[KEY_POS] == POS
KEY_ALIVE = len(KEY_I16) + len(KEY_FLAGS)  # rows: the i16 columns, the flags, alive, each ability's use
N_KEYS = KEY_ALIVE + 1 + ABILITIES
GAME, ROUND_KEPT = 0, 1  # ``Work.kept[seat]``: the game and round the seat's table was kept for (-1: none)


@njit(cache=True, inline='always')
def board_reach(w, cols, f, b, s):
    """How far from unit s its moves, attacks and charges read the board: Movement (if it can
    move) + Range (1 for melee). Its search stops at Movement; a charge attacks from there."""
    w_i16 = w.i16
    mv = prop(w, cols, f, b, s, S_MOVEMENT)
    rng = prop(w, cols, f, b, s, S_RANGE)
    moves = mv >= 1 and w_i16[cols[ROOTED], b, s] == 0
    return (mv if moves else 0) + (1 if rng == NULL else rng)


@njit(cache=True, inline='always')
def unit_entries(w, cols, f, k, b, seat, s, base, out):
    """Unit s's legal entries into its block ``out[base:base + BLOCK]`` (all False before): skip,
    its moves, attacks, charges and abilities (spec §2.7). Returns how many it set.

    Why it walks lists, not the 59 hexes: a decision's cost was this table. Moves are read off
    the hexes the search reached; attacks, charges and unit-targeted abilities off the units on
    the board (each occupied hex once: the unit ``k.occ`` names there); only hex-targeted
    abilities scan the hexes in cast range. Every entry is set at most once, True only."""
    w_i16 = w.i16
    w_alive = w.alive
    f_abil = f.abil
    occ = k.occ
    steps = k.steps
    frontier = k.frontier
    approach = k.approach
    out[base + SKIP * N_HEXES] = True
    n = 1
    mv = prop(w, cols, f, b, s, S_MOVEMENT)
    moves = mv >= 1 and w_i16[cols[ROOTED], b, s] == 0
    if moves:
        reached = reach_within(w, cols, f, b, s, occ, steps, k.prev, frontier, mv, -1)
        for i in range(reached):
            h = frontier[i]
            if occ[h] < 0 and steps[h] <= mv:
                out[base + MOVE * N_HEXES + h] = True
                n += 1
    charges = moves and has(w, cols, f, b, s, CHARGING)
    # legal_attack and charge_from, with what depends only on the unit read once
    # (T/test_hex_turns.py checks the two agree on every entry)
    attacks = may_attack(w, cols, f, b, s)
    rng = prop(w, cols, f, b, s, S_RANGE)
    here = w_i16[cols[POS], b, s]
    if charges:  # the approach hexes once per unit: empty, >= 1 step, and the attack still reachable
        last = mv - 1 if rng == NULL else mv
        for a in range(N_HEXES):
            approach[a] = occ[a] < 0 and 1 <= steps[a] <= last
    for o in range(w_alive.shape[1]):
        h = w_i16[cols[POS], b, o]
        if not attacks or not w_alive[b, o] or h < 0 or occ[h] != o or w_i16[cols[CONTROLLER], b, o] == seat:
            continue
        if (DIST[here, h] == 1 and moves) if rng == NULL else DIST[here, h] <= rng:
            out[base + ATTACK * N_HEXES + h] = True
            n += 1
        if charges and not has(w, cols, f, b, o, STEADFAST):
            if rng == NULL:  # melee: an approach hex among the target's 6 neighbours
                for j in range(6):
                    a = NEIGHBOURS[h, j]
                    if a >= 0 and approach[a]:
                        out[base + CHARGE * N_HEXES + h] = True
                        n += 1
                        break
            else:
                for a in range(N_HEXES):
                    if approach[a] and DIST[a, h] <= rng:
                        out[base + CHARGE * N_HEXES + h] = True
                        n += 1
                        break
    for ab in range(f_abil.shape[2]):
        # legal_ability, with what depends only on the unit and ability read once
        if not ability_ready(w, cols, f, b, s, ab):
            continue
        target = f_abil[b, s, ab, A_TARGET]
        empty = f_abil[b, s, ab, A_EMPTY_HEX] != 0
        reach_ = ability_reach(w, cols, f, b, s, ab)
        at = base + (ABILITY_0 + ab) * N_HEXES
        if target == T_SELF or target == T_NONE:
            out[at + here] = True  # no target: one entry (the hex it does not read is the unit's own)
            n += 1
        elif target == T_HEX:
            for h in range(N_HEXES):
                if DIST[here, h] <= reach_ and target_entry(w, cols, b, seat, target, empty, occ[h]):
                    out[at + h] = True
                    n += 1
        else:
            for o in range(w_alive.shape[1]):
                h = w_i16[cols[POS], b, o]
                if not w_alive[b, o] or h < 0 or occ[h] != o or DIST[here, h] > reach_:
                    continue
                if target_entry(w, cols, b, seat, target, empty, o):
                    out[at + h] = True
                    n += 1
    return n


@kernel
def legal_actions(w, cols, f, k, b, seat, out):
    """The battle turn's flat action table (spec §6), built whole: ``out[(u * V + v) * 59 + h]``
    for unit u of ``seat`` (``acting_slot``: slot ``seat * 16 + u``, or a unit the seat controls),
    verb v, hex h. CHARGE marks the target hexes that some approach hex makes legal (the approach
    is the follow-up decision). Skip is always legal (H10.4). Returns a bit per unit u of ``seat``
    that can act (the blocks of the others are all False: agents read only the acting units'
    blocks); ``k.counts[u]``: unit u's legal entries. ``k``: the thread's scratch
    (``work.Work``), so a decision allocates nothing."""
    counts = k.counts
    out[:] = False
    active = 0
    occupancy(w, cols, b, k.occ)
    for u in range(U):
        counts[u] = 0
        s = acting_slot(w, cols, b, seat, u)
        if s >= 0:
            active |= 1 << u
            counts[u] = unit_entries(w, cols, f, k, b, seat, s, u * BLOCK, out)
    return active


@njit(cache=True, inline='always')
def changes(w, cols, f, k, b, seat):
    """Compare game b with what ``seat``'s kept table read (``k.keys[seat]``) and bring that copy
    up to date: a bit per slot whose key changed; into ``k.changed``, the hexes where such a
    slot stood then or stands now (their count is returned second). Also whether every block
    must be rebuilt: another game or round, a modifier added, changed or gone, or no table yet."""
    w_i16 = w.i16
    w_flags = w.flags
    w_alive = w.alive
    f_mods = f.mods
    f_abil = f.abil
    key = k.keys[seat]
    kmods = k.kmods[seat]
    kept = k.kept[seat]
    changed = k.changed
    whole = kept[GAME] != b or kept[ROUND_KEPT] != f.g[b, ROUND]
    kept[GAME] = b
    kept[ROUND_KEPT] = f.g[b, ROUND]
    for m in range(f_mods.shape[1]):
        for x in range(f_mods.shape[2]):
            if kmods[m, x] != f_mods[b, m, x]:
                kmods[m, x] = f_mods[b, m, x]
                whole = True
    nslots = w_alive.shape[1]
    dirty = np.int64(0)
    for i in range(KEY_I16.shape[0]):
        c = cols[KEY_I16[i]]
        for s in range(nslots):
            if key[i, s] != w_i16[c, b, s]:
                dirty |= np.int64(1) << s
    for i in range(KEY_FLAGS.shape[0]):
        c = cols[KEY_FLAGS[i]]
        r = KEY_I16.shape[0] + i
        for s in range(nslots):
            if key[r, s] != w_flags[c, b, s]:
                key[r, s] = w_flags[c, b, s]
                dirty |= np.int64(1) << s
    for s in range(nslots):
        if key[KEY_ALIVE, s] != w_alive[b, s]:
            key[KEY_ALIVE, s] = w_alive[b, s]
            dirty |= np.int64(1) << s
        for ab in range(ABILITIES):
            if key[KEY_ALIVE + 1 + ab, s] != f_abil[b, s, ab, A_USED]:
                key[KEY_ALIVE + 1 + ab, s] = f_abil[b, s, ab, A_USED]
                dirty |= np.int64(1) << s
    n = 0
    for s in range(nslots):
        if dirty >> s & 1:
            for h in (key[KEY_POS, s], w_i16[cols[POS], b, s]):
                if 0 <= h < N_HEXES:
                    changed[n] = h
                    n += 1
    for i in range(KEY_I16.shape[0]):  # after the hexes: they read where each unit stood
        c = cols[KEY_I16[i]]
        for s in range(nslots):
            key[i, s] = w_i16[c, b, s]
    return dirty, n, whole


@njit(cache=True, inline='always')
def retarget(w, cols, f, k, b, seat, s, base, out, n):
    """Unit s's ability entries on the ``n`` changed hexes (``k.changed``) set again, for the
    abilities whose entry reads the hex's occupant (unit targets; an empty hex for a relocation):
    nothing else of the unit changed. Returns the change in its count of legal entries."""
    w_i16 = w.i16
    f_abil = f.abil
    occ = k.occ
    changed = k.changed
    here = w_i16[cols[POS], b, s]
    delta = 0
    for ab in range(f_abil.shape[2]):
        target = f_abil[b, s, ab, A_TARGET]
        empty = f_abil[b, s, ab, A_EMPTY_HEX] != 0
        if target == T_SELF or target == T_NONE or (target == T_HEX and not empty):
            continue
        if not ability_ready(w, cols, f, b, s, ab):
            continue
        reach_ = ability_reach(w, cols, f, b, s, ab)
        at = base + (ABILITY_0 + ab) * N_HEXES
        for i in range(n):
            h = changed[i]
            if DIST[here, h] > reach_:
                continue
            now = target_entry(w, cols, b, seat, target, empty, occ[h])
            if now != out[at + h]:
                out[at + h] = now
                delta += 1 if now else -1
    return delta


@kernel
def kept_actions(w, cols, f, k, b, seat):
    """``legal_actions`` of ``seat`` into its kept table ``k.tables[seat]`` (counts:
    ``k.tcounts[seat]``), rebuilding only the blocks the game's changes since that table was
    last brought up to date can alter (the module's docstring). Returns the acting units' bits."""
    out = k.tables[seat]
    counts = k.tcounts[seat]
    occupancy(w, cols, b, k.occ)
    dirty, n, whole = changes(w, cols, f, k, b, seat)
    changed = k.changed
    active = 0
    for u in range(U):
        s = acting_slot(w, cols, b, seat, u)
        base = u * BLOCK
        rebuild = whole or (dirty >> (seat * U + u) & 1) != 0 or (dirty >> ((1 - seat) * U + u) & 1) != 0
        if not rebuild and s >= 0 and n > 0:
            here = w.i16[cols[POS], b, s]
            near = board_reach(w, cols, f, b, s)
            for i in range(n):
                if DIST[here, changed[i]] <= near:
                    rebuild = True
                    break
            if not rebuild:
                counts[u] += retarget(w, cols, f, k, b, seat, s, base, out, n)
        if rebuild:
            out[base:base + BLOCK] = False
            counts[u] = unit_entries(w, cols, f, k, b, seat, s, base, out) if s >= 0 else 0
        if s >= 0:
            active |= 1 << u
    return active


@kernel
def kept_is_fresh(w, cols, f, k, b, seat, fresh):
    """The kept table of ``seat``, brought up to date, equals ``legal_actions`` built whole into
    ``fresh`` (entries, acting units and counts): the check run of the game loop asks it at
    every decision."""
    kept_units = kept_actions(w, cols, f, k, b, seat)
    units = legal_actions(w, cols, f, k, b, seat, fresh)
    if kept_units != units:
        return False
    table = k.tables[seat]
    for a in range(WIDTH):
        if table[a] != fresh[a]:
            return False
    for u in range(U):
        if k.tcounts[seat, u] != k.counts[u]:
            return False
    return True


kernel_cache.check("legal", [v for v in list(globals().values()) if hasattr(v, "py_func") and v.__module__ == __name__])

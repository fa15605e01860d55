"""The battle turn's legal action table (spec §6: the agent's mask), built whole for each decision
(``legal_rows``), a unit's block at a time (``unit_entries``), as one hex set per unit and verb
(``hexset``: bit h of ``k.rows[u, v]`` is entry ``(u * V + v) * 59 + h``); ``legal_actions``
writes the same entries out as the flat boolean table, ``nth_entry`` names the j-th legal entry
in the table's order (the random agent's draw) without it.

Why it is not kept between decisions: a kept table, rebuilding only the blocks a change could
alter (a unit's own change, or an occupant changed within its Movement + Range), was built and
checked equal to a fresh table at every decision of thousands of games, and measured slower
(docs/hex-speed.md step 5): on a 59-hex board a move changes hexes within reach of most units, so
most blocks were rebuilt anyway, and finding what changed cost more than it saved.

Every function takes ``(w, cols, f, ...)`` as ``battle.py``'s do, and the scratch it writes.
"""

from __future__ import annotations

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
    block_slot,
    can_act,
    has,
    may_attack,
    prop,
    reach_sets,
    target_entry,
    trample_kills,
    trample_x,
)
from battlesim.systems.hex.board import DIST, MAX_DISTANCE, N_HEXES
from battlesim.systems.hex.hexset import ALL, BALL, EMPTY, bit, lowest, nth, size, without_lowest
from battlesim.systems.hex.kernel_cache import kernel
from battlesim.systems.hex.state import (
    A_EMPTY_HEX,
    A_TARGET,
    CHARGING,
    CONTROLLER,
    NULL,
    POS,
    ROOTED,
    S_MOVEMENT,
    S_RANGE,
    STEADFAST,
    T_HEX,
    T_NONE,
    T_SELF,
)

WIDTH = U * V * N_HEXES  # the battle action table (spec §6): 9,440

@njit(cache=True, inline='always')
def unit_entries(w, cols, f, rows, dcols, b, seat, s, u, vacant, mine, foes):
    """Unit s's legal entries into block u's hex sets ``rows[u]`` (empty before): skip, its
    moves, attacks, charges and abilities (spec §2.7). Returns how many it set. ``vacant``,
    ``mine``, ``foes``: the empty hexes, those of ``seat``'s units, those of the others'.

    Why sets, not the 59 hexes: a decision's cost was this table. Moves and charges' approach
    hexes are the reach's sets (``battle.reach_sets``); attacks and charges are tried on the
    enemies' hexes (``foes``), unit-targeted abilities on the occupied hexes in cast range (the
    unit the kept board ``f.board`` names there), hex-targeted ones are a ball of hexes. Every entry is set at
    most once, so the count is the sets' sizes (tests/rules/hex/test_hex_turns.py checks it)."""
    w_i16 = w.i16
    f_abil = f.abil
    occ = f.board[b]
    rows[u, SKIP] = bit(0)
    n = 1
    mv = prop(w, cols, f, b, s, S_MOVEMENT)
    moves = mv >= 1 and w_i16[cols[ROOTED], b, s] == 0
    reached = EMPTY
    before = EMPTY
    if moves:
        reached, before = reach_sets(w, cols, f, b, s, occ, vacant, mine, foes, mv)
        rows[u, MOVE] = reached & vacant
        if trample_x(w, cols, f, b, s) > 0:  # I-23: and the enemies' hexes reached that the trample empties
            x = reached & foes
            while x != EMPTY:
                h = lowest(x)
                x = without_lowest(x)
                if trample_kills(w, cols, f, b, s, occ[h], dcols):
                    rows[u, MOVE] |= bit(h)
        n += size(rows[u, MOVE])
    charges = moves and has(w, cols, f, b, s, CHARGING)
    # legal_attack and charge_from, with what depends only on the unit read once
    # (T/test_hex_turns.py checks the two agree on every entry)
    attacks = may_attack(w, cols, f, b, s)
    rng = prop(w, cols, f, b, s, S_RANGE)
    here = w_i16[cols[POS], b, s]
    # the approach hexes once per unit: empty, >= 1 step (the start is the charger's), and the
    # attack still reachable (a melee charger keeps a step)
    approach = ((before if rng == NULL else reached) & vacant) if charges else EMPTY
    x = foes if attacks else EMPTY  # the enemies' hexes, each once
    while x != EMPTY:
        h = lowest(x)
        x = without_lowest(x)
        if (DIST[here, h] == 1 and moves) if rng == NULL else DIST[here, h] <= rng:
            rows[u, ATTACK] |= bit(h)
            n += 1
        # melee: an approach hex among the target's 6 neighbours; ranged: within Range of it
        if charges and approach & BALL[h, 1 if rng == NULL else min(rng, MAX_DISTANCE)] != EMPTY \
                and not has(w, cols, f, b, occ[h], STEADFAST):
            rows[u, CHARGE] |= bit(h)
            n += 1
    for ab in range(f_abil.shape[2]):
        # legal_ability, with what depends only on the unit and ability read once
        if not ability_ready(w, cols, f, b, s, ab):
            continue
        target = f_abil[b, s, ab, A_TARGET]
        empty = f_abil[b, s, ab, A_EMPTY_HEX] != 0
        reach_ = ability_reach(w, cols, f, b, s, ab)
        v = ABILITY_0 + ab
        if target == T_SELF or target == T_NONE:
            rows[u, v] |= bit(here)  # no target: one entry (the hex it does not read is the unit's own)
            n += 1
        elif target == T_HEX:  # target_entry of a hex: any, or an empty one for a relocation
            if reach_ >= 0:
                rows[u, v] = BALL[here, min(reach_, MAX_DISTANCE)] & (vacant if empty else ALL)
                n += size(rows[u, v])
        elif reach_ >= 0:  # a unit target: the occupied hexes in cast range, each once
            x = ~vacant & BALL[here, min(reach_, MAX_DISTANCE)]
            while x != EMPTY:
                h = lowest(x)
                x = without_lowest(x)
                if target_entry(w, cols, b, seat, target, empty, occ[h]):
                    rows[u, v] |= bit(h)
                    n += 1
    return n


@kernel
def legal_rows(w, cols, f, rows, counts, dcols, b, seat):
    """The battle turn's action table (spec §6) as hex sets: ``rows[u, v]`` holds the hexes h of
    the legal entries ``(u * V + v) * 59 + h`` for unit u of ``seat`` (``acting_slot``: slot
    ``seat * 16 + u``, or a unit the seat controls), verb v. CHARGE marks the target hexes that
    some approach hex makes legal (the approach is the follow-up decision). Skip is always legal
    (H10.4). Returns a bit per unit u of ``seat`` that can act: only their blocks are written (a
    reader reads only those: clearing all 16 was a 1,280-byte fill per decision);
    ``counts[u]``: unit u's legal entries. ``rows``, ``counts`` and ``dcols`` (the damage stages'
    columns, for a trample's forecast) are the thread's scratch (``work.Work``'s), so a decision
    allocates nothing; handed alone, not the whole scratch: a call passes every array of a tuple
    (docs/hex-speed.md step 19)."""
    w_alive = w.alive
    at = w.i16[cols[POS], b]  # the game's rows of the columns read per slot, taken once
    controller = w.i16[cols[CONTROLLER], b]
    active = 0
    # one pass over the slots: who can act (``acting_slot``'s bits) and the hexes of the units the
    # seat controls and of the others' (what the kept board holds, without a walk over 59 hexes)
    can = 0
    mine = EMPTY
    foes = EMPTY
    for s in range(w_alive.shape[1]):
        if not w_alive[b, s]:
            continue
        if can_act(w, cols, b, s, seat):
            can |= 1 << s
        if at[s] >= 0:
            if controller[s] == seat:
                mine |= bit(at[s])
            else:
                foes |= bit(at[s])
    vacant = ALL & ~(mine | foes)
    for u in range(U):
        counts[u] = 0
        s = block_slot(can, seat, u)
        if s >= 0:
            active |= 1 << u
            rows[u, :] = EMPTY
            counts[u] = unit_entries(w, cols, f, rows, dcols, b, seat, s, u, vacant, mine, foes)
    return active


@kernel
def legal_actions(w, cols, f, k, b, seat, out):
    """``legal_rows`` written out as the flat boolean table: ``out[(u * V + v) * 59 + h]`` (the
    agent's mask of spec §6; all False but the legal entries). Returns the acting units' bits."""
    rows = k.rows
    active = legal_rows(w, cols, f, rows, k.counts, k.dcols, b, seat)
    out[:] = False
    for u in range(U):
        if not active >> u & 1:
            continue
        for v in range(V):
            x = rows[u, v]
            while x != EMPTY:
                out[(u * V + v) * N_HEXES + lowest(x)] = True
                x = without_lowest(x)
    return active


@kernel
def nth_entry(rows, units, counts, j):
    """The j-th legal entry (0-based) in the table's order, of the blocks of ``units`` (their
    ``counts`` and hex sets ``rows``, as ``legal_rows`` left them); -1 past the last: what the
    j-th True of the flat table is, found by counts and popcounts, not by a scan."""
    for u in range(U):
        if not units >> u & 1:
            continue
        if j >= counts[u]:
            j -= counts[u]
            continue
        for v in range(V):
            c = size(rows[u, v])
            if j < c:
                return (u * V + v) * N_HEXES + nth(rows[u, v], j)
            j -= c
    return -1


kernel_cache.check("legal", [v for v in list(globals().values()) if hasattr(v, "py_func") and v.__module__ == __name__])

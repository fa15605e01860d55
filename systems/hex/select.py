"""The units an ability effect hits (spec §5 selectors, ``state.SELECTS``), compiled: the target,
the acting unit, the enemies or allies adjacent to the target or within the cast range, a chain
starting at the target, the best triad adjacent to the acting unit. ``apply.do_ability`` applies
each effect to the units ``select_units`` lists, in the listed order.

Choices (ledger "Ability effects in batch games"):
- "Allied" / "Enemy" are by controller (hex.md "Allied – Refers to any unit that is under a
  player's control."); the acting unit is its own ally, within any cast range of itself (distance 0).
- Chained (hex.md "Chained – Refers to unique units, each adjacent to the next"; "abilities that
  target chained units require that all units in the chain are within the ability's cast range"):
  the chain starts at the target and takes, while it can, the unit of the target's allegiance (to
  the acting unit) not yet in the chain, adjacent to the last link, within cast range, on the
  lowest hex id (I-47: "you choose" ties = lowest hex id).
- Triad (hex.md "Triad – Three hexes that are all adjacent to each other"; "A triad is considered
  adjacent to a unit when at least one of its three hexes is adjacent to that unit."): the triad
  adjacent to the acting unit, without its own hex, holding the most enemies minus allies (the
  effect hits every unit on it), ties by the lowest hex ids (I-47).
"""

from __future__ import annotations

import numpy as np

from battlesim.systems.hex import kernel_cache
from battlesim.systems.hex.board import DIST, N_HEXES, NEIGHBOURS
from battlesim.systems.hex.kernel_cache import kernel
from battlesim.systems.hex.state import (
    CONTROLLER,
    POS,
    SEL_ADJ_ALLIES,
    SEL_ADJ_ENEMIES,
    SEL_ALLIES_IN_RANGE,
    SEL_CHAINED,
    SEL_ENEMIES_IN_RANGE,
    SEL_SELF,
    SEL_TARGET,
    SEL_TRIAD,
)


@kernel
def select_units(w, cols, b, s, t, sel, reach_, occ, out):
    """The slots effect selector ``sel`` of unit s's ability on hex t hits, into ``out``; their
    count. ``occ``: the occupancy (``battle.occupancy``); ``reach_``: the ability's cast range."""
    w_i16 = w.i16
    w_alive = w.alive
    seat = w_i16[cols[CONTROLLER], b, s]
    here = np.int64(w_i16[cols[POS], b, s])
    n = 0
    if sel == SEL_SELF:
        out[0] = s
        return 1
    if sel == SEL_TARGET:
        if t >= 0 and occ[t] >= 0:
            out[0] = occ[t]
            n = 1
        return n
    if sel == SEL_ADJ_ENEMIES or sel == SEL_ADJ_ALLIES:
        if t < 0:
            return 0
        for j in range(6):
            h = NEIGHBOURS[t, j]
            if h < 0 or occ[h] < 0:
                continue
            o = occ[h]
            if (w_i16[cols[CONTROLLER], b, o] == seat) == (sel == SEL_ADJ_ALLIES):
                out[n] = o
                n += 1
        return n
    if sel == SEL_ENEMIES_IN_RANGE or sel == SEL_ALLIES_IN_RANGE:
        for h in range(N_HEXES):
            o = occ[h]
            if o < 0 or not w_alive[b, o] or DIST[here, h] > reach_:
                continue
            if (w_i16[cols[CONTROLLER], b, o] == seat) == (sel == SEL_ALLIES_IN_RANGE):
                out[n] = o
                n += 1
        return n
    if sel == SEL_CHAINED:
        if t < 0 or occ[t] < 0 or DIST[here, t] > reach_:
            return 0
        ally = w_i16[cols[CONTROLLER], b, occ[t]] == seat
        out[0] = occ[t]
        n = 1
        last = t
        while True:
            best = -1
            for j in range(6):
                h = np.int64(NEIGHBOURS[last, j])
                if h < 0 or occ[h] < 0 or DIST[here, h] > reach_ or (best >= 0 and h >= best):
                    continue
                o = occ[h]
                if (w_i16[cols[CONTROLLER], b, o] == seat) != ally:
                    continue
                seen = False
                for i in range(n):
                    if out[i] == o:
                        seen = True
                if not seen:
                    best = h
            if best < 0:
                return n
            out[n] = occ[best]
            n += 1
            last = best
    if sel == SEL_TRIAD:
        best_score = -1000
        b0 = -1
        b1 = -1
        b2 = -1
        for h in range(N_HEXES):
            for j in range(6):
                a = np.int64(NEIGHBOURS[h, j])
                for jj in range(j + 1, 6):
                    c = np.int64(NEIGHBOURS[h, jj])
                    if a < 0 or c < 0 or DIST[a, c] != 1 or a < h or c < h:
                        continue  # each triad once: from its lowest hex h
                    if h == here or a == here or c == here:
                        continue
                    if DIST[here, h] != 1 and DIST[here, a] != 1 and DIST[here, c] != 1:
                        continue
                    score = 0
                    for x in (h, a, c):
                        if occ[x] >= 0:
                            score += -1 if w_i16[cols[CONTROLLER], b, occ[x]] == seat else 1
                    lo, hi = min(a, c), max(a, c)
                    better = score > best_score or (score == best_score and h == b0
                                                    and (lo < b1 or (lo == b1 and hi < b2)))
                    if better:
                        best_score = score
                        b0, b1, b2 = h, lo, hi
        if b0 >= 0:
            for x in (b0, b1, b2):
                if occ[x] >= 0:
                    out[n] = occ[x]
                    n += 1
        return n
    return 0


kernel_cache.check("select", [v for v in list(globals().values()) if hasattr(v, "py_func") and v.__module__ == __name__])

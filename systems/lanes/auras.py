"""Auras (lanes.md "Aura System"): derived from the board each time they are read.

"Auras are continuous effects that affect units within range": Range X, Lane-wide, Cross Lane,
Adjacent. Nothing is stored on the affected units, so an aura "Appl[ies] immediately when a unit
enters range", is "Remove[d] immediately when a unit leaves range or the source dies", and never
double-counts. Each source contributes once per aura effect to each unit in range ("Do not stack
from the same source"). Anchors enchanted with a lane aura ("Lane-wide auras tied to the anchor")
are sources too. Auras are passive abilities, so silence does not switch them off (ledger).

A read asks for the units it needs (``b``, ``s``): the work is one ``[n, S]`` comparison of those
units against every slot of their own game, so it grows with what is read, not with the batch.
"""

from __future__ import annotations

import numpy as np

from components.keywords import KEYWORDS
from systems.lanes.vocabulary import EXECUTOR

_STAT = {"attack": ("buff", None), "armor": ("grant_keyword", "armor")}


def aura_sources(w) -> tuple[np.ndarray, np.ndarray]:
    """(game, slot) of every aura source, sorted by game; cached until an entity comes or goes."""
    cached = w.cache.get("aura_sources")
    if cached is None or cached[0] != w.version:
        sb, ss = np.nonzero(w.c.aura & w.alive)
        cached = (w.version, sb, ss)
        w.cache["aura_sources"] = cached
    return cached[1], cached[2]


def aura_bonus(w, what: str, b: np.ndarray, s: np.ndarray) -> np.ndarray | None:
    """``int32[n]``: what the auras standing in each unit's game add to ``what`` ("attack" or
    "armor") for units ``(b, s)``; None when no aura stands in those games."""
    if not w.cache["auras_possible"] or b.size == 0:
        return None
    sb, ss = aura_sources(w)
    anchor_aura = what == "attack" and w.c.anchor_aura[:, :6].any()
    if sb.size == 0 and not anchor_aura:
        return None
    n = b.size
    bonus = np.zeros(n, dtype=np.int64)
    q_side, q_lane, q_pos = w.c.owner[b, s], w.c.lane[b, s], w.c.pos[b, s]
    q_unit = ~w.c.anchor[b, s] & ~w.c.improvement[b, s]
    q_ally_ok = q_unit & ~w.c.creep[b, s]  # "your units" are never creeps
    if sb.size:
        # pair each queried unit with the sources of its own game
        lo = np.searchsorted(sb, b, side="left")
        cnt = np.searchsorted(sb, b, side="right") - lo
        qi = np.repeat(np.arange(n), cnt)
        if qi.size:
            sj = lo[qi] + (np.arange(qi.size) - np.repeat(np.cumsum(cnt) - cnt, cnt))
            g, src = sb[sj], ss[sj]
            card = w.c.card_id[g, src]
            ally = (w.c.owner[g, src] == q_side[qi]) & q_ally_ok[qi]
            enemy = (w.c.owner[g, src] != q_side[qi]) & q_unit[qi]
            same_lane = w.c.lane[g, src] == q_lane[qi]
            dist = np.abs(w.c.pos[g, src].astype(np.int16) - q_pos[qi])
            is_self = src == s[qi]
            table = w.effects
            op_name, kw = _STAT[what]
            tid = EXECUTOR.id("trigger", "while_in_lane")
            op_id = EXECUTOR.id("opcode", op_name)
            kw_id = list(KEYWORDS).index(kw) if kw else -1
            ids = {name: EXECUTOR.id("selector", name) for name in EXECUTOR.selectors}
            for e in range(table.n_effects):
                on = (table.trigger[card, e] == tid) & (table.op[card, e] == op_id)
                if kw is not None:
                    on &= table.params["keyword"][card, e] == kw_id
                if not on.any():
                    continue
                sel = table.select[card, e]
                rng = table.params["range"][card, e]
                reach = np.select(
                    [sel == ids["adjacent_allies"], sel == ids["adjacent_enemies"],
                     sel == ids["allies_in_range"], sel == ids["enemies_in_range"],
                     sel == ids["allies_in_lane"], sel == ids["enemies_in_lane"],
                     sel == ids["all_allies"], sel == ids["all_enemies"], sel == ids["self"]],
                    [ally & same_lane & (dist == 1), enemy & same_lane & (dist == 1),
                     ally & same_lane & (dist <= rng) & ~is_self, enemy & same_lane & (dist <= rng),
                     ally & same_lane & ~is_self, enemy & same_lane,
                     ally & ~is_self, enemy, is_self],
                    False,
                )
                bonus += np.bincount(qi, weights=on * reach * table.amount[card, e], minlength=n).astype(np.int64)
    if anchor_aura:
        anchor = q_side.astype(np.intp) * 3 + q_lane.astype(np.intp)
        bonus += np.where(q_ally_ok & (q_lane >= 0), w.c.anchor_aura[b, np.maximum(anchor, 0)], 0)
    return bonus.astype(np.int32)

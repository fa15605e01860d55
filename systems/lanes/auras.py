"""Auras (lanes.md "Aura System"): derived from the board each time they are read.

"Auras are continuous effects that affect units within range": Range X, Lane-wide, Cross Lane,
Adjacent. Nothing is stored on the affected units, so an aura "Appl[ies] immediately when a unit
enters range", is "Remove[d] immediately when a unit leaves range or the source dies", and never
double-counts. Each source contributes once per aura effect to each unit in range ("Do not stack
from the same source"). Anchors enchanted with a lane aura ("Lane-wide auras tied to the anchor")
are sources too. Auras are passive abilities, so silence does not switch them off (ledger).
"""

from __future__ import annotations

import numpy as np

from components.keywords import KEYWORDS
from systems.lanes.vocabulary import EXECUTOR

_STAT = {"attack": ("buff", None), "armor": ("grant_keyword", "armor")}


def aura_bonus(w, what: str) -> np.ndarray | None:
    """``int32[B, S]`` bonus to ``what`` ("attack" or "armor") from every aura on the board, or
    None when no aura stands anywhere (the common case costs one ``any``)."""
    if not w.cache["auras_possible"]:
        return None
    src_b, src_s = np.nonzero(w.c.aura)
    anchor_aura = w.c.anchor_aura if what == "attack" else None
    has_anchor = anchor_aura is not None and anchor_aura[:, :6].any()
    if src_b.size == 0 and not has_anchor:
        return None
    bonus = np.zeros((w.n_games, w.n_slots), dtype=np.int32)
    units = w.alive & ~w.c.anchor & ~w.c.improvement
    not_creep = units & ~w.c.creep
    side, lane, pos = w.c.owner, w.c.lane, w.c.pos
    if src_b.size:
        table = w.effects
        tid = EXECUTOR.id("trigger", "while_in_lane")
        op_name, kw = _STAT[what]
        op_id = EXECUTOR.id("opcode", op_name)
        kw_id = list(KEYWORDS).index(kw) if kw else -1
        card = w.c.card_id[src_b, src_s]
        sels = list(EXECUTOR.selectors)
        for e in range(table.n_effects):
            on = (table.trigger[card, e] == tid) & (table.op[card, e] == op_id)
            if kw is not None:
                on &= table.params["keyword"][card, e] == kw_id
            if not on.any():
                continue
            b, s, c = src_b[on], src_s[on], card[on]
            amt = table.amount[c, e]
            sel = np.array(sels, dtype=object)[table.select[c, e]]
            rng = table.params["range"][c, e]
            # [m, S] masks over the source's game
            ts, tl, tp = side[b], lane[b], pos[b]
            ss, sl, sp = side[b, s][:, None], lane[b, s][:, None], pos[b, s][:, None]
            ally = (ts == ss) & not_creep[b]
            enemy = (ts != ss) & units[b]
            same_lane = tl == sl
            dist = np.abs(tp - sp)
            r = np.where(sel == "adjacent_allies", 1, np.where(sel == "adjacent_enemies", 1, rng))[:, None]
            is_self = np.arange(w.n_slots)[None, :] == s[:, None]
            mask = np.zeros((b.size, w.n_slots), dtype=bool)
            for name, m in (
                ("adjacent_allies", ally & same_lane & (dist == 1)),
                ("adjacent_enemies", enemy & same_lane & (dist == 1)),
                ("allies_in_range", ally & same_lane & (dist <= r) & ~is_self),
                ("enemies_in_range", enemy & same_lane & (dist <= r)),
                ("allies_in_lane", ally & same_lane & ~is_self),
                ("enemies_in_lane", enemy & same_lane),
                ("all_allies", ally & ~is_self),
                ("all_enemies", enemy),
                ("self", is_self),
            ):
                pick = sel == name
                if pick.any():
                    mask[pick] = m[pick]
            np.add.at(bonus, b, mask * amt[:, None])
    if has_anchor:
        ab, asl = np.nonzero((anchor_aura != 0) & w.alive)
        m = (side[ab] == side[ab, asl][:, None]) & (lane[ab] == lane[ab, asl][:, None]) & not_creep[ab]
        np.add.at(bonus, ab, m * anchor_aura[ab, asl][:, None])
    return bonus

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

from battlesim.components.keywords import KEYWORDS
from battlesim.ecs.npx import nonzero
from battlesim.systems.lanes.vocabulary import EXECUTOR

_STAT = {"attack": ("buff", None), "armor": ("grant_keyword", "armor")}

# how far each aura selector reaches: (side: 1 ally / 2 enemy / 3 self, same lane required,
# min distance, max distance (None: the effect's range), the source itself excluded)
_FAR = 1000
_NONE = np.zeros(0, dtype=np.intp)
_REACH = {
    "adjacent_allies": (1, True, 1, 1, False),
    "adjacent_enemies": (2, True, 1, 1, False),
    "allies_in_range": (1, True, 0, None, True),
    "enemies_in_range": (2, True, 0, None, False),
    "allies_in_lane": (1, True, 0, _FAR, True),
    "enemies_in_lane": (2, True, 0, _FAR, False),
    "all_allies": (1, False, 0, _FAR, True),
    "all_enemies": (2, False, 0, _FAR, False),
    "self": (3, False, 0, _FAR, False),
}


def _aura_tables(w) -> dict:
    """Per card, compiled once per card set (cached on the World): for "attack" and "armor",
    the effect slots holding such an aura and, per card and slot, how far it reaches and what
    it adds (0 where the card has none there); ``sources[what]``: cards having one at all."""
    tables = w.cache.get("aura_tables")
    if tables is not None:
        return tables
    table = w.effects
    n_cards = table.trigger.shape[0]
    tid = EXECUTOR.id("trigger", "while_in_lane")
    sel_ids = {EXECUTOR.id("selector", name): spec for name, spec in _REACH.items() if name in EXECUTOR.selectors}
    tables = {"sources": {}, "slots": {}}
    for what, (op_name, kw) in _STAT.items():
        op_id = EXECUTOR.id("opcode", op_name)
        kw_id = list(KEYWORDS).index(kw) if kw else -1
        slots = []
        any_card = np.zeros(n_cards, dtype=bool)
        for e in range(table.n_effects):
            on = (table.trigger[:, e] == tid) & (table.op[:, e] == op_id)
            if kw is not None:
                on &= table.params["keyword"][:, e] == kw_id
            if not on.any():
                continue
            sel = table.select[:, e]
            side = np.zeros(n_cards, dtype=np.int8)
            lane_req = np.zeros(n_cards, dtype=bool)
            dmin = np.zeros(n_cards, dtype=np.int32)
            dmax = np.zeros(n_cards, dtype=np.int32)
            excl = np.zeros(n_cards, dtype=bool)
            for sid, (sd, lr, lo, hi, ex) in sel_ids.items():
                m = sel == sid
                side[m], lane_req[m], dmin[m], excl[m] = sd, lr, lo, ex
                dmax[m] = table.params["range"][m, e] if hi is None else hi
            amount = np.where(on & (side > 0), table.amount[:, e], 0).astype(np.int64)
            if not amount.any():
                continue
            any_card |= amount != 0
            slots.append((side, lane_req, dmin, dmax, excl, amount))
        tables["sources"][what] = any_card
        tables["slots"][what] = slots
    w.cache["aura_tables"] = tables
    return tables


def aura_sources(w, what: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(game, slot) of every aura source (of ``what``: only those adding to it), sorted by game."""
    cached = _sources(w)
    if what is None:
        return cached[1], cached[2]
    return _sources_of(w, what)[:2]


def _sources(w) -> tuple:
    """``(count, sb, ss, per-stat lists, flat)`` of every aura source.

    Cached while ``w.changes["aura"]`` stands still (``World.track``): the component is given
    only through ``World.add`` (board.spawn, play_improvements, an esper load) and taken away
    only by ``World.release``, and both move the count; so after a birth or death anywhere in
    the batch that is not an aura's, the list is reused without looking at the board."""
    key = w.track("aura")
    cached = w.cache.get("aura_sources")
    if cached is None or cached[0] != key:
        sb, ss = nonzero(w.c.aura & w.alive)
        cached = w.cache["aura_sources"] = (key, sb, ss, {}, sb * w.n_slots + ss)
    return cached


def _sources_of(w, what: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(sb, ss, start)``: the sources adding to ``what``, sorted by game; game ``b``'s are
    ``start[b]:start[b + 1]`` (one gather per read instead of two binary searches)."""
    cached = _sources(w)
    per = cached[3].get(what)
    if per is None:
        keep = _aura_tables(w)["sources"][what][w.c.card_id.reshape(-1)[cached[4]]]
        sb, ss = cached[1][keep], cached[2][keep]
        start = np.zeros(w.n_games + 1, dtype=np.intp)
        np.cumsum(np.bincount(sb, minlength=w.n_games), out=start[1:])
        per = cached[3][what] = (sb, ss, start)
    return per


def aura_bonus(w, what: str, b: np.ndarray, s: np.ndarray) -> np.ndarray | None:
    """``int32[n]``: what the auras standing in each unit's game add to ``what`` ("attack" or
    "armor") for units ``(b, s)``; None when no aura adds to it for those units."""
    if not w.cache["auras_possible"] or b.size == 0:
        return None
    if _aura_tables(w)["slots"][what]:
        sb, ss, start = _sources_of(w, what)
    else:  # no card of the set has such an aura: no source to look for (and none to validate)
        sb = ss = _NONE
    if sb.size == 0 and what != "attack":  # only attack has anchor auras
        return None
    n = b.size
    S = w.n_slots
    fq = np.asarray(b, dtype=np.intp) * S + s  # flat entity indices of the queried units (one 1-D gather per component)
    c = w.c
    q_side, q_lane = c.owner.reshape(-1)[fq], c.lane.reshape(-1)[fq]
    q_unit = ~c.anchor.reshape(-1)[fq] & ~c.improvement.reshape(-1)[fq]
    q_ally_ok = q_unit & ~c.creep.reshape(-1)[fq]  # "your units" are never creeps
    anchor_bonus = None
    if what == "attack":  # the lane aura of each unit's own anchor (a unit in no lane has none)
        anchor = fq - s + np.maximum(q_side.astype(np.intp) * 3 + q_lane, 0)
        anchor_bonus = np.where(q_ally_ok & (q_lane >= 0), c.anchor_aura.reshape(-1)[anchor], 0)
        if not anchor_bonus.any():
            anchor_bonus = None
    if sb.size == 0 and anchor_bonus is None:
        return None
    bonus = np.zeros(n, dtype=np.int64)
    if sb.size:
        # pair each queried unit with the sources of its own game
        lo = start[b]
        cnt = start[np.asarray(b) + 1] - lo
        qi = np.repeat(np.arange(n), cnt)
        if qi.size:
            sj = lo[qi] + (np.arange(qi.size) - np.repeat(np.cumsum(cnt) - cnt, cnt))
            src = ss[sj]
            fs = sb[sj] * S + src
            card = c.card_id.reshape(-1)[fs].astype(np.intp)  # intp: the table gathers below are ~2x faster
            same_side = c.owner.reshape(-1)[fs] == q_side[qi]
            ally = same_side & q_ally_ok[qi]
            enemy = ~same_side & q_unit[qi]
            same_lane = c.lane.reshape(-1)[fs] == q_lane[qi]
            dist = np.abs(c.pos.reshape(-1)[fs].astype(np.int16) - c.pos.reshape(-1)[fq][qi])
            is_self = src == s[qi]
            for side, lane_req, dmin, dmax, excl, amount in _aura_tables(w)["slots"][what]:
                sd = side[card]
                reach = np.where(sd == 1, ally, enemy) & (same_lane | ~lane_req[card])
                reach &= (dist >= dmin[card]) & (dist <= dmax[card]) & ~(excl[card] & is_self)
                reach = np.where(sd == 3, is_self, reach & (sd > 0))
                bonus += np.bincount(qi, weights=reach * amount[card], minlength=n).astype(np.int64)
    if anchor_bonus is not None:
        bonus += anchor_bonus
    return bonus.astype(np.int32)

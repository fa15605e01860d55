"""Removing destroyed units: death triggers, bounties, hero timers, freeing the cell.

lanes.md "Unit Removal": "Destroyed units are only removed after the entire lane resolves"
(combat calls ``settle`` after each lane); outside combat "Deaths are processed immediately"
(the play phase calls ``settle`` after each action). "Gold System": "Kill enemy hero: +5 gold",
"Kill enemy unit/creep: +1 gold"; "Bounty System": "Minimum bounty is 0 gold". "Hero Death &
Respawn": "The hero enters a 1-round death timer"; "Rapid Deployment - Hero returns to play
immediately when killed (no death timer)". "Equipment is destroyed when its holder dies".
"""

from __future__ import annotations

import esper
import numpy as np

from battlesim.ecs.effects import Ctx
from battlesim.ecs.npx import any_axis
from battlesim.systems.lanes import board, stats
from battlesim.systems.lanes.listeners import listen_bits, listening_entities
from battlesim.systems.lanes.state import DEAD, ON_BOARD, READY
from battlesim.systems.lanes.vocabulary import EXECUTOR

MAX_WAVES = 50


def settle(w) -> None:
    """Process deaths until none is pending: each wave fires "On Death" (the dying units still
    stand where they died) and "On Enemy Death", then removes the wave; effects may mark more."""
    for _ in range(MAX_WAVES):
        flat = w.c.dying.reshape(-1).nonzero()[0]  # dying units are few: find them, then keep the living
        flat = flat[w.alive.reshape(-1)[flat]]
        b, s = np.divmod(flat, w.n_slots)
        if b.size == 0:
            return
        owner = w.c.owner[b, s].astype(np.intp)
        die(w, b, s, owner, bounty=w.c.hit_by[b, s] != owner)
    b = np.flatnonzero((w.c.dying & w.alive).any(axis=1))
    raise RuntimeError(f"deaths still cascading after {MAX_WAVES} waves (game with seed {int(w.seeds[b[0]])})")


def die(w, b: np.ndarray, s: np.ndarray, owner: np.ndarray, bounty: np.ndarray | bool) -> None:
    """One unit's death: "On Death" (it still stands where it died), "On Enemy Death", then off
    the board. Shared by ``settle`` and a bounce, which "destroys the existing unit" (lanes.md
    "Lane Rules"), so its On Death fires like any other death's (ledger, interpretation 4)."""
    k = EXECUTOR.listening(w, "on_death", w.c.card_id[b, s])
    if k is not None:
        bk, sk = b[k], s[k]
        EXECUTOR.fire(w, "on_death", Ctx.make(bk, w.c.card_id[bk, sk], owner[k], w.c.lane[bk, sk], w.c.pos[bk, sk],
                                              source=sk))
    _enemy_death(w, b, s, owner)
    destroy(w, b, s, bounty=bounty)


def _enemy_death(w, b: np.ndarray, s: np.ndarray, owner: np.ndarray) -> None:
    """"On Enemy Death - Triggers when an enemy unit dies": every living enemy of the dead unit
    with such an effect fires once per death (in any lane)."""
    listen = w.cache.get("on_enemy_death")
    if listen is None:
        return
    bits_of, _ = listen_bits(w, ("on_enemy_death",))
    ri, ls, _ = listening_entities(w, b, bits_of)  # the few listening entities, then the rest of the test on them
    if ri.size == 0:
        return
    gb = b[ri]
    flat = gb * w.n_slots + ls
    keep = (w.alive.reshape(-1)[flat] & ~w.c.dying.reshape(-1)[flat]
            & (w.c.owner.reshape(-1)[flat] != owner[ri])).nonzero()[0]
    if keep.size == 0:
        return
    ri, ls, gb = ri[keep], ls[keep], gb[keep]
    EXECUTOR.fire(w, "on_enemy_death", Ctx.make(
        gb, w.c.card_id[gb, ls], w.c.owner[gb, ls], w.c.lane[gb, ls], w.c.pos[gb, ls], source=ls, other=s[ri],
    ))


def destroy(w, b: np.ndarray, s: np.ndarray, bounty: np.ndarray | bool) -> None:
    """Take destroyed units off the board now (no triggers: ``settle`` fires them).
    ``bounty`` says which deaths are kills by the enemy (a bounce pays nothing)."""
    p = w.params
    c = w.c
    f = np.asarray(b, dtype=np.intp) * w.n_slots + s  # flat entity indices: one 1-D gather per read
    owner = c.owner.reshape(-1)[f].astype(np.intp)
    is_hero = c.hero.reshape(-1)[f]
    pay = np.broadcast_to(np.asarray(bounty), b.shape)
    if pay.any():
        gold = np.maximum(np.where(is_hero, p.bounty_hero, p.bounty_unit) + c.bounty.reshape(-1)[f], 0)
        # several kills in one game add up: ``add.at`` on the flat [B * 2] gold, in its own dtype
        # (numpy's fast path: no per-element casting)
        np.add.at(w.g.gold.reshape(-1), b[pay] * 2 + (1 - owner[pay]), gold[pay].astype(w.g.gold.dtype))
    src = c.deck_pos.reshape(-1)[f]
    from_deck = src >= 0
    w.g.card_died[b[from_deck], owner[from_deck], src[from_deck]] = w.g.round[b[from_deck]]
    hb, ho = b[is_hero], owner[is_hero]
    hf = f[is_hero]
    k = c.hero_index.reshape(-1)[hf]
    rapid = stats.keyword_flat(w, "rapid_deployment", hf) if hb.size else np.zeros(0, dtype=bool)
    hero_lane = c.lane.reshape(-1)[hf].astype(np.intp)
    esper.dispatch_event("lanes.deaths", w, b, s, c.card_id.reshape(-1)[f])
    board.remove(w, b, s)
    w.g.hero_status[hb, ho, k] = DEAD
    w.g.hero_ready_round[hb, ho, k] = w.g.round[hb] + p.hero_death_timer
    if rapid.any():
        redeploy_now(w, hb[rapid], ho[rapid], k[rapid], hero_lane[rapid])


def redeploy_now(w, b: np.ndarray, seat: np.ndarray, k: np.ndarray, lane: np.ndarray) -> None:
    """Rapid Deployment: the hero comes straight back with full health, in its own lane at the
    leftmost empty position, else the first lane with room (ledger); with no room anywhere it
    waits READY for the next deployment phase. Games are distinct per call (rows are grouped)."""
    order = np.lexsort((k, seat, b))
    b, seat, k, lane = b[order], seat[order], k[order], lane[order]
    w.g.hero_status[b, seat, k] = READY
    # one hero per game per pass keeps board.spawn's "distinct games" contract (<= 5 passes)
    pending = np.ones(b.size, dtype=bool)
    while pending.any():
        idx = pending.nonzero()[0]
        first = np.r_[True, b[idx][1:] != b[idx][:-1]]
        idx = idx[first]
        pending[idx] = False
        gb, gs, gk, gl = b[idx], seat[idx], k[idx], lane[idx]
        cells = w.g.board[gb, gs]  # [m, L, P]
        empty = cells == board.EMPTY
        # prefer the hero's own lane, then lanes 0..2
        lanes_order = np.stack([gl, np.zeros_like(gl), np.ones_like(gl), np.full_like(gl, 2)], axis=1)
        lane_has = np.take_along_axis(any_axis(empty, 2), lanes_order, axis=1)
        ok = any_axis(lane_has, 1)
        pick_lane = lanes_order[np.arange(gl.size), np.argmax(lane_has, axis=1)]
        gb, gs, gk, pick_lane = gb[ok], gs[ok], gk[ok], pick_lane[ok]
        if gb.size == 0:
            continue
        pos = np.argmax(empty[ok][np.arange(gb.size), pick_lane], axis=1)
        board.spawn(w, gb, gs, pick_lane, pos, w.g.hero_card[gb, gs, gk], hero_index=gk)
        w.g.hero_status[gb, gs, gk] = ON_BOARD

"""The combat phase (lanes.md "Phase 3: Combat Phase", "Combat Resolution", "Combat Keywords").

"Combat proceeds lane by lane"; "Odd rounds (1, 3, 5...): Lane 0 -> Lane 1 -> Lane 2",
"Even rounds (2, 4, 6...): Lane 2 -> Lane 1 -> Lane 0". "Units only attack the opposing unit at
the same position"; "If no opposing unit exists, the unit attacks the anchor directly", except
that "Unopposed enemy units attack the leftmost Taunt unit instead of the anchor" unless they have
Stealth ("bypasses taunt"). "Within a lane, all fights at each position are simultaneous"; First
Strike instances go first. "Destroyed units are only removed after the entire lane resolves".
Stunned and disarmed units do not attack; a unit attacks when it has attack above 0 (ledger).
"""

from __future__ import annotations

import esper
import numpy as np

from ecs.damage import COMBAT, DamageBatch
from ecs.effects import Ctx
from ecs.npx import any_axis, nonzero
from systems.lanes import board, stats
from systems.lanes.battle import attack_batch, first_strike_step
from systems.lanes.deaths import settle
from systems.lanes.vocabulary import EXECUTOR


def lane_attacks(w, games: np.ndarray, lane: int) -> tuple[np.ndarray, ...]:
    """Every attack of one lane: (game, attacker, target, siege bonus)."""
    out = []
    for side in range(2):
        mine = w.g.board[games, side, lane]  # [n, P]
        theirs = w.g.board[games, 1 - side, lane]
        gi = np.broadcast_to(games[:, None], mine.shape)
        has = mine >= 0
        b, src = gi[has], mine[has]
        can = (w.c.stunned[b, src] <= 0) & (w.c.disarmed[b, src] <= 0) & (stats.attack(w, b, src) > 0)
        b, src = b[can], src[can]
        opp = theirs[has][can]
        opposed = opp >= 0
        # leftmost Taunt unit of the other side in this lane, for unopposed attackers
        tcell = w.g.board[b, 1 - side, lane]  # [m, P]
        occ = tcell >= 0
        tslot = np.where(occ, tcell, 0)
        taunts = occ & stats.keyword(w, "taunt", np.broadcast_to(b[:, None], tcell.shape), tslot)
        has_taunt = any_axis(taunts, 1)
        taunt_slot = tslot[np.arange(b.size), np.argmax(taunts, axis=1)]
        stealthy = stats.keyword(w, "stealth", b, src)
        anchor = board.anchor_slot(1 - side, lane)
        to_taunt = ~opposed & has_taunt & ~stealthy
        target = np.where(opposed, opp, np.where(to_taunt, taunt_slot, anchor))
        to_anchor = ~opposed & ~to_taunt
        # Once an objective is destroyed there is nothing left to attack there.
        keep = ~to_anchor | ~w.c.ruined[b, anchor]
        siege = np.where(to_anchor, stats.keyword(w, "siege", b, src), 0).astype(np.int64)
        out.append((b[keep], src[keep], target[keep], siege[keep]))
    return tuple(np.concatenate(parts) for parts in zip(*out))


def cleave_batch(w, game: np.ndarray, attacker: np.ndarray, lane: int) -> DamageBatch | None:
    """"Cleave X - Deals X damage to all enemy units in the lane when attacking" (ledger: a
    separate instance per enemy, not an attack: it triggers no retaliate and no overflow)."""
    x = stats.keyword(w, "cleave", game, attacker).astype(np.int64)
    has = x > 0
    if not has.any():
        return None
    g, a, x = game[has], attacker[has], x[has]
    cells = w.g.board[g, 1 - w.c.owner[g, a], lane]  # [m, P]
    ri, ci = nonzero(cells >= 0)
    return DamageBatch(g[ri], a[ri], cells[ri, ci], x[ri], COMBAT)


def attack_triggers(w, game: np.ndarray, attacker: np.ndarray) -> None:
    """"On Attack", "On Ally Attack" (allies in the same lane, once per attacking ally) and
    "On Equipped Attack" (the attacker's equipment). They resolve before the lane's damage."""
    if not any(EXECUTOR.listens(w, t) for t in ("on_attack", "on_equipped_attack", "on_ally_attack")):
        return
    owner = w.c.owner[game, attacker]
    lane = w.c.lane[game, attacker]
    pos = w.c.pos[game, attacker]
    # each firing keeps only the rows whose card has an effect on it (the others would be skipped)
    k = EXECUTOR.listening(w, "on_attack", w.c.card_id[game, attacker])
    if k is not None:
        EXECUTOR.fire(w, "on_attack", Ctx.make(game[k], w.c.card_id[game[k], attacker[k]], owner[k], lane[k], pos[k],
                                               source=attacker[k]))
    eq = w.c.equipment[game, attacker]
    held = np.flatnonzero(eq >= 0)
    if held.size:
        k = EXECUTOR.listening(w, "on_equipped_attack", eq[held])
        if k is not None:
            h = held[k]
            EXECUTOR.fire(w, "on_equipped_attack", Ctx.make(game[h], eq[h], owner[h], lane[h], pos[h], source=attacker[h]))
    if not EXECUTOR.listens(w, "on_ally_attack"):
        return
    allies = w.g.board[game, owner, lane]  # [n, P]
    occ = (allies >= 0) & (allies != attacker[:, None])
    ri, ci = nonzero(occ)
    if ri.size:
        g, s = game[ri], allies[ri, ci]
        k = EXECUTOR.listening(w, "on_ally_attack", w.c.card_id[g, s])
        if k is not None:
            ri, g, s = ri[k], g[k], s[k]
            EXECUTOR.fire(w, "on_ally_attack", Ctx.make(g, w.c.card_id[g, s], owner[ri], lane[ri], w.c.pos[g, s],
                                                        source=s, other=attacker[ri]))


class Combat(esper.Processor):
    """lanes.md "Combat Phase": every lane fights at once, first strikers first; units attack the unit opposite, taunts or the anchor, through the damage pipeline."""

    def process(self, w) -> None:
        games = np.flatnonzero(w.active)
        if games.size == 0:
            return
        self.before_combat(w, games)
        odd = (w.g.round[games] % 2) == 1
        L = w.params.lanes
        for order, sel in ((range(L), odd), (range(L - 1, -1, -1), ~odd)):
            g = games[sel]
            for lane in order if g.size else ():
                self.resolve_lane(w, g, lane)

    def before_combat(self, w, games: np.ndarray) -> None:
        """"Before Combat - Triggers before combat resolution begins"."""
        if not EXECUTOR.listens(w, "before_combat"):
            return
        b, s = nonzero(w.alive[games] & ~w.c.anchor[games])
        b = games[b]
        k = EXECUTOR.listening(w, "before_combat", w.c.card_id[b, s])
        if k is None:
            settle(w)
            return
        b, s = b[k], s[k]
        EXECUTOR.fire(w, "before_combat", Ctx.make(b, w.c.card_id[b, s], w.c.owner[b, s], w.c.lane[b, s],
                                                   w.c.pos[b, s], source=s))
        settle(w)

    def resolve_lane(self, w, games: np.ndarray, lane: int) -> None:
        games = games[w.active[games]]
        if games.size == 0:
            return
        game, attacker, target, siege = lane_attacks(w, games, lane)
        attack_triggers(w, game, attacker)
        first = first_strike_step(w, game, attacker, target)
        for i, step in enumerate((first, ~first)):
            idx = np.flatnonzero(step)
            if i == 1:  # destroyed by a first strike: never deals its damage
                idx = idx[w.c.health[game[idx], attacker[idx]] > 0]
            if idx.size == 0:
                continue
            g, a = game[idx], attacker[idx]
            batch = attack_batch(w, g, a, target[idx], COMBAT, extra=siege[idx])
            cleave = cleave_batch(w, g, a, lane)
            if cleave is not None:
                batch = DamageBatch.concat([batch, cleave])
            w.pipeline.run(w, batch)
            esper.dispatch_event("lanes.combat", w, lane, batch)
        # "Stealth ... (lost when attacking)"
        w.c.stealth[game, attacker] = False
        settle(w)
        self.after_combat(w, games, lane)

    def after_combat(self, w, games: np.ndarray, lane: int) -> None:
        """"After Combat - Triggers after combat in each lane": units in the lane, once it resolved."""
        if not EXECUTOR.listens(w, "after_combat"):
            return
        cells = w.g.board[games, :, lane]  # [n, 2, P]
        ri, side, p = nonzero(cells >= 0)
        if ri.size == 0:
            return
        b, s = games[ri], cells[ri, side, p]
        k = EXECUTOR.listening(w, "after_combat", w.c.card_id[b, s])
        if k is None:
            settle(w)
            return
        b, s, side, p = b[k], s[k], side[k], p[k]
        EXECUTOR.fire(w, "after_combat", Ctx.make(b, w.c.card_id[b, s], side, lane, p, source=s))
        settle(w)

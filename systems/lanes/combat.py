"""The combat phase (lanes.md "Phase 3: Combat Phase", "Combat Resolution", "Combat Keywords").

"Combat proceeds lane by lane"; "Odd rounds (1, 3, 5...): Lane 0 -> Lane 1 -> Lane 2",
"Even rounds (2, 4, 6...): Lane 2 -> Lane 1 -> Lane 0". "Units only attack the opposing unit at
the same position"; "If no opposing unit exists, the unit attacks the anchor directly", except
that "Unopposed enemy units attack the leftmost Taunt unit instead of the anchor" unless they have
Stealth ("bypasses taunt"). "Within a lane, all fights at each position are simultaneous"; First
Strike instances go first. "Destroyed units are only removed after the entire lane resolves".
Stunned and disarmed units do not attack ("cannot attack"); every other unit attacks, one with
0 attack ("Enfeebled - Attack reduced to 0") for 0 damage, its Siege, Cleave and attack
triggers included (ledger, interpretations 21 and 35).
"""

from __future__ import annotations

import esper
import numpy as np

from battlesim.ecs.damage import COMBAT, DamageBatch
from battlesim.ecs.effects import Ctx
from battlesim.ecs.npx import any_axis, nonzero
from battlesim.systems.lanes import board, stats
from battlesim.systems.lanes.battle import attack_batch, first_strike_step
from battlesim.systems.lanes.deaths import settle
from battlesim.systems.lanes.vocabulary import EXECUTOR


def lane_attacks(w, games: np.ndarray, lane: int) -> tuple[np.ndarray, ...]:
    """Every attack of one lane: (game, attacker, target, siege bonus, attack, row), side 0's
    attackers first, then side 1's, each in (game, position) order; ``attack`` is the attacker's
    current attack (0 or more), ``row`` its game's index in ``games``. Both sides are read at once,
    the taunts once per game and side."""
    c = w.c
    S = w.n_slots
    n = games.size
    cells = w.g.board[:, :, lane].transpose(1, 0, 2)[:, games]  # [2, n, P]: side, game, position
    half = cells[0].size
    flat_cells = cells.reshape(-1)
    cell = np.flatnonzero(flat_cells >= 0)  # occupied cells: side 0 first, then (game, position)
    ri = (cell // cells.shape[2]) % n
    f = games[ri] * S + flat_cells[cell]  # flat entity indices of the units there
    # per side and game, its leftmost Taunt unit: where the other side's unopposed attackers go
    taunts = np.zeros(cells.shape, dtype=bool)
    taunts.reshape(-1)[cell] = stats.keyword_flat(w, "taunt", f)
    has_taunt = any_axis(taunts, 2).reshape(-1)  # [2 * n]: side-major
    taunt_slot = np.take_along_axis(cells, np.argmax(taunts, axis=2)[:, :, None], axis=2).reshape(-1)
    can = np.flatnonzero((c.stunned.reshape(-1)[f] <= 0) & (c.disarmed.reshape(-1)[f] <= 0))
    cell, ri, f = cell[can], ri[can], f[can]
    b = games[ri]
    src = flat_cells[cell]
    atk = stats.attack(w, b, src)
    side = cell // half
    foe = 1 - side
    opp = flat_cells[cell + (foe - side) * half]  # the cell opposite
    opposed = opp >= 0
    to_taunt = ~opposed & has_taunt[foe * n + ri] & ~stats.keyword_flat(w, "stealth", f)
    anchor = board.anchor_slot(foe, lane)
    target = np.where(opposed, opp, np.where(to_taunt, taunt_slot[foe * n + ri], anchor))
    to_anchor = ~opposed & ~to_taunt
    # Once an objective is destroyed there is nothing left to attack there.
    keep = np.flatnonzero(~to_anchor | ~c.ruined.reshape(-1)[b * S + anchor])
    siege = np.where(to_anchor, stats.keyword_flat(w, "siege", f), 0).astype(np.int64)
    return b[keep], src[keep], target[keep], siege[keep], atk[keep], ri[keep]


def lane_units(w, games: np.ndarray, lane: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(cells, occupied, units)``: the lane's cells of both sides (``int16[n, 2, P]``, a slot
    or -1), the flat indices into ``cells`` of the occupied ones, and the flat entity indices of
    the units there (game order, then side, then position)."""
    cells = w.g.board[games, :, lane]
    occupied = np.flatnonzero(cells >= 0)
    return cells, occupied, games[occupied // cells[0].size] * w.n_slots + cells.reshape(-1)[occupied]


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


def attack_triggers(w, games: np.ndarray, row: np.ndarray, attacker: np.ndarray, lane_no: int) -> np.ndarray | None:
    """"On Attack", "On Ally Attack" (allies in the same lane, once per attacking ally) and
    "On Equipped Attack" (the attacker's equipment), for the attacks ``lane_attacks`` listed
    (``games[row]``, ``attacker``) in lane ``lane_no``. They resolve before the lane's damage.
    Returns the games where one fired (``bool[n_games]``), None if none did: only there can
    the effects have changed anything (a game's result depends on its own rows only)."""
    if not any(EXECUTOR.listens(w, t) for t in ("on_attack", "on_equipped_attack", "on_ally_attack")):
        return None
    c = w.c
    game = games[row]
    fa = game * w.n_slots + attacker  # flat entity indices of the attackers
    owner = c.owner.reshape(-1)[fa]
    lane = c.lane.reshape(-1)[fa]
    pos = c.pos.reshape(-1)[fa]
    fired = np.zeros(w.n_games, dtype=bool)
    # each firing keeps only the rows whose card has an effect on it (the others would be skipped)
    k = EXECUTOR.listening(w, "on_attack", c.card_id.reshape(-1)[fa])
    if k is not None:
        fired[game[k]] = True
        EXECUTOR.fire(w, "on_attack", Ctx.make(game[k], c.card_id.reshape(-1)[fa[k]], owner[k], lane[k], pos[k],
                                               source=attacker[k]))
    eq = c.equipment.reshape(-1)[fa]
    held = np.flatnonzero(eq >= 0)
    if held.size:
        k = EXECUTOR.listening(w, "on_equipped_attack", eq[held])
        if k is not None:
            h = held[k]
            fired[game[h]] = True
            EXECUTOR.fire(w, "on_equipped_attack", Ctx.make(game[h], eq[h], owner[h], lane[h], pos[h], source=attacker[h]))
    if EXECUTOR.listens(w, "on_ally_attack"):
        # the listening units of each game and side of the lane first (few), then the attackers
        # that have one beside them: the same (attacker, ally position) rows, in the same order,
        # as pairing every attacker with every ally
        cells, occupied, units = lane_units(w, games, lane_no)  # read after the firings above
        k = EXECUTOR.listening(w, "on_ally_attack", c.card_id.reshape(-1)[units])
        if k is not None:
            listens = np.zeros(cells.shape, dtype=bool)
            listens.reshape(-1)[occupied[k]] = True
            side = owner.astype(np.intp)
            m = np.flatnonzero(any_axis(listens, 2)[row, side])
            allies = cells[row[m], side[m]]  # [m, P]
            mi, ci = nonzero(listens[row[m], side[m]] & (allies != attacker[m, None]))
            if mi.size:
                ri, s = m[mi], allies[mi, ci]
                g = game[ri]
                fs = g * w.n_slots + s
                fired[g] = True
                EXECUTOR.fire(w, "on_ally_attack", Ctx.make(g, c.card_id.reshape(-1)[fs], owner[ri], lane[ri],
                                                            c.pos.reshape(-1)[fs], source=s, other=attacker[ri]))
    return fired if fired.any() else None


class Combat(esper.Processor):
    """The numpy twin of ``compiled.processors.Combat`` (whose docstring cites the rule): the
    reference it was proved against, played only by the opt-in differential tests."""

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
        playing = np.zeros(w.n_games, dtype=bool)
        playing[games] = True
        # every live non-anchor entity of those games, as flat indices (game order, then slot)
        ents = np.flatnonzero(w.alive & ~w.c.anchor & playing[:, None])
        c = w.c
        card = c.card_id.reshape(-1)[ents]
        k = EXECUTOR.listening(w, "before_combat", card)
        if k is None:
            settle(w)
            return
        f = ents[k]
        b, s = np.divmod(f, w.n_slots)
        EXECUTOR.fire(w, "before_combat", Ctx.make(b, card[k], c.owner.reshape(-1)[f], c.lane.reshape(-1)[f],
                                                   c.pos.reshape(-1)[f], source=s))
        settle(w)

    def resolve_lane(self, w, games: np.ndarray, lane: int) -> None:
        games = games[w.active[games]]
        if games.size == 0:
            return
        game, attacker, target, siege, attack, row = lane_attacks(w, games, lane)
        # games where something may have changed since ``attack`` was read: only their
        # attackers' attack is read again before each step (the others' cannot have moved)
        touched = attack_triggers(w, games, row, attacker, lane)
        first = first_strike_step(w, game, attacker, target)
        for i, step in enumerate((first, ~first)):
            idx = np.flatnonzero(step)
            if i == 1:  # destroyed by a first strike: never deals its damage
                idx = idx[w.c.health[game[idx], attacker[idx]] > 0]
            if idx.size == 0:
                continue
            g, a = game[idx], attacker[idx]
            atk = attack[idx]
            if touched is not None:
                stale = np.flatnonzero(touched[g])
                if stale.size:
                    atk[stale] = stats.attack(w, g[stale], a[stale])
            batch = attack_batch(w, g, a, target[idx], COMBAT, extra=siege[idx], attack=atk)
            cleave = cleave_batch(w, g, a, lane)
            if cleave is not None:
                batch = DamageBatch.concat([batch, cleave])
            w.pipeline.run(w, batch)
            esper.dispatch_event("lanes.combat", w, lane, batch)
            if len(batch):
                if touched is None:
                    touched = np.zeros(w.n_games, dtype=bool)
                touched[batch.game] = True
        # "Stealth ... (lost when attacking)"
        w.c.stealth[game, attacker] = False
        settle(w)
        self.after_combat(w, games, lane)

    def after_combat(self, w, games: np.ndarray, lane: int) -> None:
        """"After Combat - Triggers after combat in each lane": units in the lane, once it resolved."""
        if not EXECUTOR.listens(w, "after_combat"):
            return
        cells, occupied, units = lane_units(w, games, lane)
        if occupied.size == 0:
            return
        card = w.c.card_id.reshape(-1)[units]
        k = EXECUTOR.listening(w, "after_combat", card)
        if k is None:  # nothing fired: nothing can be dying since the lane's settle
            return
        ri, side, p = np.unravel_index(occupied[k], cells.shape)
        EXECUTOR.fire(w, "after_combat", Ctx.make(games[ri], card[k], side, lane, p,
                                                  source=cells.reshape(-1)[occupied[k]]))
        settle(w)

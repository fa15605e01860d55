"""Heuristic agents for lanes (issue 4 "Agents").

``greedy`` scores every action of the flat table (systems/lanes/actions.py) from the state and
takes the best legal one; ties are broken by a tiny uniform noise drawn from each game's own
counter-based RNG (``Stream.AGENT``), so results depend only on the seed, never on the batch.
Everything is vectorized over the listed games; the only Python loops are over the few action
blocks.

Heuristics (deliberately simple and fast):
- units and heroes: stats and cost (mana efficiency), plus the trade they take at their cell:
  killing and/or surviving the enemy opposite, blocking its attack, or hitting an open anchor
  (a lethal hit on a low anchor scores very high); bouncing an own unit is penalised;
- spells, improvements, abilities: a flat positive value (cost-weighted); their target is a
  second decision, scored separately: hostile effects aim at the enemy with the highest
  attack + health that the card's damage can kill (else the highest value), friendly ones at
  the strongest own unit;
- equipment: onto the strongest own unit;
- shop: buy the best affordable offer (tier, price); upgrade when nothing is affordable;
- pass only when no legal action scores above 0.
"""

from __future__ import annotations

import copy

import numpy as np

from ecs.npx import nonzero
from ecs.plugin import agent
from ecs.rng import Stream
from systems.lanes import stats
from systems.lanes.cards import EQUIPMENT, IMPROVEMENT, SPELL, UNIT
from systems.lanes.vocabulary import EXECUTOR

NOISE = 1e-3
LETHAL = 60.0  # a hit that destroys an anchor
KILLABLE = 20.0  # a hostile target the card's damage destroys
BIG = 99


def _card_tables(w) -> dict[str, np.ndarray]:
    """Per-card effect summaries, computed once per catalog and cached on the World."""
    cache = getattr(w, "cache", None)
    if cache is not None and "greedy_cards" in cache:
        return cache["greedy_cards"]
    fx = w.effects
    op = fx.op
    ids = {name: EXECUTOR.id("opcode", name) for name in EXECUTOR.opcodes}
    dmg = np.where(op == ids["damage"], fx.amount, 0).sum(axis=1)
    kill = (op == ids["destroy"]).any(axis=1)
    hostile_ops = [ids[n] for n in ("damage", "destroy", "apply_status", "bounce", "battle", "strike",
                                    "caster_strike", "battle_blocker", "push", "purge") if n in ids]
    friendly_ops = [ids[n] for n in ("heal", "buff", "grant_keyword") if n in ids]
    hostile = np.isin(op, hostile_ops).any(axis=1)
    friendly = np.isin(op, friendly_ops).any(axis=1)
    tables = {
        "damage": np.where(kill, BIG, dmg).astype(np.int32),
        "hostile": hostile | ~friendly,  # unknown effects: aim at the enemy
    }
    if cache is not None:
        cache["greedy_cards"] = tables
    return tables


class GreedyAgent:
    """Scores every legal action and takes the best (see the module docstring)."""

    name = "greedy"

    def act(self, world, games: np.ndarray, seat: int, legal: np.ndarray) -> np.ndarray:
        scores = self.scores(world, games, seat, legal)
        scores += NOISE * world.rng.uniform(games, legal.shape[1], Stream.AGENT)
        scores[~legal] = -np.inf
        return np.argmax(scores, axis=1)

    # -- scoring --------------------------------------------------------------------------
    def scores(self, w, games: np.ndarray, seat: int, legal: np.ndarray) -> np.ndarray:
        """``float[n, A]`` heuristic value of every action (illegal ones too; the caller masks)."""
        A = w.actions
        n = games.size
        out = np.zeros(legal.shape, dtype=np.float64)  # pass = 0
        if n == 0:
            return out
        cat = w.catalog.arrays
        g = w.g
        L, P = A.L, A.P
        opp = 1 - seat

        any_block = {name: legal[:, sl].any() for name, sl in A.slices.items()}
        board_needed = any_block["play"] or any_block["deploy"] or any_block["target"]
        if board_needed:
            cells = g.board[games]  # [n, 2, L, P]
            occ = cells >= 0
            gi = np.broadcast_to(games[:, None, None, None], cells.shape)
            atk = np.zeros(cells.shape, dtype=np.int32)
            hp = np.zeros(cells.shape, dtype=np.int32)
            ob, os_ = gi[occ], cells[occ]
            atk[occ] = stats.attack(w, ob, os_)
            hp[occ] = w.c.health[ob, os_]
            val = (atk + hp).astype(np.float64)
            # enemy anchors per lane, seen from the actor
            anchors = opp * 3 + np.arange(L)
            a_hp = w.c.health[games[:, None], anchors[None, :]].astype(np.int32)  # [n, L]
            a_ruined = w.c.ruined[games[:, None], anchors[None, :]].astype(bool)
            a_hp = np.maximum(a_hp, 1)

        def unit_value(ua, uh, at):
            """Trade value of a unit with stats (ua, uh) [n, X, 1, 1] placed on each own cell
            [n, 1, L, P] (``at``: broadcast shape)."""
            eo, ea, eh = occ[:, opp][:, None], atk[:, opp][:, None], hp[:, opp][:, None]
            kills = ua >= eh
            survives = ea < uh
            fight = (np.where(kills, 2.0 + ea + eh, 0.0) + np.where(survives, 2.0 + ea, 0.0)
                     - np.where(~kills & ~survives, 0.5 * (ua + uh), 0.0))
            ahp = a_hp[:, None, :, None]
            open_hit = np.where(a_ruined[:, None, :, None], -1.0,
                                ua * (1.0 + 10.0 / ahp) + np.where(ua >= ahp, LETHAL, 0.0))
            return np.broadcast_to(np.where(eo, fight, open_hit), at)

        # play: hand card h at lane l, position p
        if any_block["play"]:
            H = A.H
            hand = g.hand[games, seat]  # [n, H]
            card = np.maximum(hand, 0)
            kind = np.where(hand >= 0, cat.kind[card], -1)
            cost = cat.cost[card].astype(np.float64)
            ua = cat.attack[card].astype(np.int32)[:, :, None, None]
            uh = cat.health[card].astype(np.int32)[:, :, None, None]
            shape = (n, H, L, P)
            s = np.zeros(shape)
            is_unit = (kind == UNIT)[:, :, None, None]
            if is_unit.any():
                own_val = val[:, seat][:, None]  # bounce penalty
                unit = (1.0 + ua + uh + 0.5 * cost[:, :, None, None] + unit_value(ua, uh, shape)
                        - np.where(occ[:, seat][:, None], 5.0 + 2.0 * own_val, 0.0))
                s = np.where(is_unit, unit, s)
            kk = kind[:, :, None, None]
            s = np.where((kk == SPELL) | (kk == IMPROVEMENT), 2.0 + cost[:, :, None, None], s)
            is_eq = kk == EQUIPMENT
            if is_eq.any():
                eq = 2.0 + ua + uh + 0.5 * val[:, seat][:, None]
                s = np.where(is_eq, eq, s)
            out[:, A.play_slice] = s.reshape(n, -1)

        # deploy: roster hero k at lane l, position p
        if any_block["deploy"]:
            K = A.K
            hc = np.maximum(g.hero_card[games, seat], 0)  # [n, K]
            ha = cat.attack[hc].astype(np.int32)[:, :, None, None]
            hh = cat.health[hc].astype(np.int32)[:, :, None, None]
            s = 1.0 + ha + hh + unit_value(ha, hh, (n, K, L, P))
            out[:, A.deploy_slice] = s.reshape(n, -1)

        # target: the cell (side, lane, pos) a pending card or ability aims at
        if any_block["target"]:
            t = _card_tables(w)
            pc = np.maximum(g.pending_card[games], 0)
            dmg = t["damage"][pc][:, None, None, None]
            hostile = t["hostile"][pc]
            side = np.arange(2)[None, :, None, None]
            enemy = side == opp
            kill_bonus = np.where(hp <= dmg, KILLABLE, 0.0)
            enemy_score = 1.0 + val + kill_bonus
            ally_score = 1.0 + val
            good = np.where(hostile[:, None, None, None], enemy, ~enemy)
            s = np.where(good, np.where(enemy, enemy_score, ally_score), 0.05)
            out[:, A.target_slice] = s.reshape(n, -1)

        if any_block["ability"]:
            out[:, A.ability_slice] = 4.0
        if any_block["activate"]:
            out[:, A.activate_slice] = 4.0

        # shop
        if any_block["buy"] or any_block["upgrade"]:
            offers = g.offers[games, seat]  # [n, O]
            has = offers >= 0
            oc = np.where(has, g.equip_pool[games[:, None], seat, np.maximum(offers, 0)], 0)
            price = cat.gold[oc].astype(np.float64)
            out[:, A.buy_slice] = 10.0 + 3.0 * cat.tier[oc] + price
            affordable = legal[:, A.buy_slice].any(axis=1)
            out[:, A.upgrade_slice] = np.where(affordable, -1.0, 3.0)[:, None]
        return out


def subset_world(w, rows: np.ndarray):
    """A new World holding copies of games ``rows`` of ``w`` (rows may repeat), sharing the
    catalog, effects and pipeline. Much cheaper than ``w.copy()`` (a deep copy of everything)."""
    from types import SimpleNamespace

    rows = np.asarray(rows, dtype=np.intp)
    s = copy.copy(w)
    s.c = SimpleNamespace(**{k: v[rows] for k, v in vars(w.c).items()})
    s.g = SimpleNamespace(**{k: v[rows] for k, v in vars(w.g).items()})
    s.present = {k: v[rows] for k, v in w.present.items()}
    for name in ("alive", "serial", "_next_serial", "active", "seeds"):
        setattr(s, name, getattr(w, name)[rows])
    s.rng = copy.copy(w.rng)
    for name in ("seeds", "counter", "_keys"):
        setattr(s.rng, name, getattr(w.rng, name)[rows])
    s.n_games = rows.size
    s.games = np.arange(rows.size)
    s.cache = {k: v for k, v in w.cache.items() if k != "aura_sources"}  # per-game caches go
    s.version = w.version + 1
    s.agents = []
    return s


def position_value(w, games: np.ndarray, seat: int) -> np.ndarray:
    """``float[n]``: the seat's board (attack + health), anchors and hand minus the opponent's."""
    cells = w.g.board[games]
    occ = cells >= 0
    gi = np.broadcast_to(games[:, None, None, None], cells.shape)
    val = np.zeros(cells.shape)
    ob, os_ = gi[occ], cells[occ]
    val[occ] = stats.attack(w, ob, os_) + w.c.health[ob, os_]
    side = val.sum(axis=(2, 3))  # [n, 2]
    L = cells.shape[2]
    anchors = w.c.health[games[:, None], np.arange(2 * L)[None, :]].reshape(-1, 2, L).astype(np.float64)
    ruined = w.c.ruined[games[:, None], np.arange(2 * L)[None, :]].reshape(-1, 2, L)
    anchor = np.where(ruined, -30.0, np.maximum(anchors, 0)).sum(axis=2)
    hand = (w.g.hand[games] >= 0).sum(axis=2)
    total = side + 2.0 * anchor + 1.0 * hand
    won = w.g.winner[games]
    return np.where(won == seat, 1e4, np.where(won == 1 - seat, -1e4, total[:, seat] - total[:, 1 - seat]))


class LookaheadAgent:
    """Greedy, refined in the play phase: for each game the ``k`` best greedy candidates are
    applied on a copy of the game, the rest of the play phase is played greedily by both
    seats, and the candidate whose end position scores best is taken (other decisions:
    greedy)."""

    name = "lookahead"
    max_steps = 200

    def __init__(self, k: int = 4) -> None:
        self.k = k
        self.greedy = GreedyAgent()

    def act(self, world, games: np.ndarray, seat: int, legal: np.ndarray) -> np.ndarray:
        from systems.lanes.play import PlayPhase

        scores = self.greedy.scores(world, games, seat, legal)
        scores += NOISE * world.rng.uniform(games, legal.shape[1], Stream.AGENT)
        scores[~legal] = -np.inf
        best = np.argmax(scores, axis=1)
        A = world.actions
        # play-phase decisions with a real choice (not a pending target, not the shop, not deploy)
        play_phase = world.g.in_play[games] & (world.g.pending_kind[games] == 0) & legal[:, 0]
        choice = play_phase & (legal.sum(axis=1) > 1)
        rows = np.flatnonzero(choice)
        if rows.size == 0 or self.k <= 1:
            return best
        k = min(self.k, legal.shape[1])
        top = np.argsort(-scores[rows], axis=1, kind="stable")[:, :k]  # [m, k]
        ok = np.isfinite(np.take_along_axis(scores[rows], top, axis=1))
        r_idx, c_idx = nonzero(ok)
        cand = top[r_idx, c_idx]
        sub = subset_world(world, games[rows][r_idx])
        sub.agents = [self.greedy, self.greedy]
        phase = PlayPhase(A)
        idx = sub.games
        phase.apply(sub, idx, np.full(idx.size, seat, dtype=np.intp), cand)
        for _ in range(self.max_steps):
            pend = np.flatnonzero(phase.pending(sub) & sub.active)
            if pend.size == 0:
                break
            actor, leg = phase.request(sub, pend)
            phase.apply(sub, pend, actor, sub.decide(pend, actor, leg))
        value = np.full(top.shape, -np.inf)
        value[r_idx, c_idx] = position_value(sub, idx, seat)
        pick = np.argmax(value, axis=1)
        out = best.copy()
        out[rows] = top[np.arange(rows.size), pick]
        return out


agent("greedy")(GreedyAgent)  # the public API (ecs/plugin.py), as a plugin would
agent("lookahead")(LookaheadAgent)

"""The shop phase (lanes.md "Phase 4: Shop Phase", "Gold System", "Shop Tiers").

"Each player is presented with 3 equipment items to choose from", drawn from their equipment
deck ("Equipment deck: 10 cards minimum (separate from main deck, used in Shop Phase)") among the
items of the current tier or below ("Tier 2: Uncommon equipment (Tier 1-2)"...). A player may:
"Buy - Purchase items from the selection (costs gold) - can buy multiple items"; "Upgrade Shop -
FREE - Unlock higher tier items and reshuffle offerings (forfeits +5 skip bonus, once per shop
phase)", before or after buying; "Skip - Pass on buying, gain +5 gold (only if no upgrade and no
buy)". "Purchased equipment goes to your hand". Ledger: a bought item leaves the equipment deck;
buying needs a free hand slot; the two players' shops are independent (seat 0 shops, then 1).
"""

from __future__ import annotations

import esper
import numpy as np

from battlesim.ecs.decisions import DecisionSystem
from battlesim.ecs.npx import any_axis
from battlesim.ecs.rng import Stream


def roll_offers(w, games: np.ndarray, seat: np.ndarray) -> None:
    """New offers for (game, seat) rows (games distinct): up to 3 distinct items of the
    equipment deck whose tier the shop has unlocked, drawn uniformly."""
    pool = w.g.equip_pool[games, seat]  # [n, M]
    card = np.where(pool >= 0, pool, 0)
    ok = (pool >= 0) & (w.catalog.arrays.tier[card] <= w.g.shop_tier[games, seat][:, None])
    keys = w.rng.bits(games, pool.shape[1], Stream.SHOP)
    keys[~ok] = np.iinfo(np.uint64).max
    order = np.argsort(keys, axis=1, kind="stable")[:, : w.params.shop_offers]
    picked = np.take_along_axis(ok, order, axis=1)
    offers = np.full((games.size, w.g.offers.shape[2]), -1, dtype=np.int16)
    offers[:, : order.shape[1]] = np.where(picked, order, -1)
    w.g.offers[games, seat] = offers


class ShopPhase(DecisionSystem):
    """The numpy twin of ``compiled.processors.ShopPhase`` (whose docstring cites the rule): the
    reference it was proved against, played only by the opt-in differential tests."""

    def __init__(self, actions) -> None:
        self.actions = actions

    def begin(self, w) -> None:
        games = np.flatnonzero(w.active)
        g = w.g
        for arr in (g.shop_bought, g.shop_upgraded, g.shop_done):
            arr[games] = False
        for seat in range(2):
            roll_offers(w, games, np.full(games.size, seat))

    def pending(self, w) -> np.ndarray:
        return any_axis(~w.g.shop_done, 1)  # not all done

    def request(self, w, games: np.ndarray):
        A, g = self.actions, w.g
        actor = np.where(g.shop_done[games, 0], 1, 0)
        n = games.size
        legal = np.zeros((n, A.size), dtype=bool)
        legal[:, 0] = True  # done shopping
        offers = g.offers[games, actor]  # [n, O] pool indexes
        has = offers >= 0
        card = np.where(has, g.equip_pool[games[:, None], actor[:, None], np.maximum(offers, 0)], 0)
        price = w.catalog.arrays.gold[card]
        room = any_axis(g.hand[games, actor] < 0, 1)
        legal[:, A.buy_slice] = has & (price <= g.gold[games, actor][:, None]) & room[:, None]
        legal[:, A.upgrade_slice] = (~g.shop_upgraded[games, actor] & (g.shop_tier[games, actor] < w.params.shop_max_tier))[:, None]
        return actor, legal

    def apply(self, w, games, actor, actions) -> None:
        A, g = self.actions, w.g
        done = actions == 0
        d, s = games[done], actor[done]
        skip = ~g.shop_bought[d, s] & ~g.shop_upgraded[d, s]
        g.gold[d[skip], s[skip]] += w.params.skip_gold
        g.shop_done[d, s] = True
        if skip.any():
            esper.dispatch_event("lanes.shop_skip", w, d[skip], s[skip])
        buy = (actions >= A.buy_base) & (actions < A.buy_base + A.O)
        if buy.any():
            b, s, k = games[buy], actor[buy], actions[buy] - A.buy_base
            idx = g.offers[b, s, k].astype(np.intp)
            card = g.equip_pool[b, s, idx]
            g.gold[b, s] -= w.catalog.arrays.gold[card]
            free = g.hand[b, s] < 0
            h = np.argmax(free, axis=1)
            g.hand[b, s, h] = card
            g.hand_src[b, s, h] = -1
            g.equip_pool[b, s, idx] = -1
            g.offers[b, s, k] = -1
            g.shop_bought[b, s] = True
            esper.dispatch_event("lanes.buy", w, b, s, card)
        up = actions == A.upgrade
        if up.any():
            b, s = games[up], actor[up]
            g.shop_tier[b, s] += 1
            g.shop_upgraded[b, s] = True
            roll_offers(w, b, s)
            esper.dispatch_event("lanes.upgrade", w, b, s, g.shop_tier[b, s].copy())

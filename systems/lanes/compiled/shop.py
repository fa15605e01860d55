"""The shop phase, compiled, one game at a time (issue 13; the numpy twin is ``ShopPhase`` in
``systems/lanes/shop.py``: its ``begin``, ``request`` and ``apply``, and ``roll_offers``).

- ``shop_begin(st, f, cols, rng, b)``: a new shop for both seats (flags cleared, offers rolled);
- ``roll_offers(st, f, cols, rng, b, seat)``: the same draws as numpy (``Stream.SHOP``, one key per
  equipment-pool entry, the first ``shop_offers`` of a stable sort, items not on offer keyed last);
- ``legal_shop(st, f, cols, b, row) -> seat``: the request (seat 0 shops, then seat 1);
- ``apply_shop(st, f, cols, rng, b, seat, action) -> (what, value)``: done/skip, buy or upgrade.

``apply_shop`` returns what the numpy ``apply`` reports on esper for the replay log (the caller
dispatches it): ``(SKIP, 0)`` for "lanes.shop_skip", ``(BUY, card)`` for "lanes.buy", ``(UPGRADE,
tier)`` for "lanes.upgrade", ``(DONE, 0)`` for a shop closed after buying or upgrading. No card
trigger fires in the shop.

The offers' stable sort is a selection, not ``np.argsort``: the kernels allocate nothing and run
without reference counting (``_nrt=False``, legal.py's note); the keys are recomputed from the
counter (``bits_at``) for each of the few offers rather than stored. Arguments as in
``round.py``: ``cols`` (``shop_columns``) carries the catalog rows, parameter indices, the stream
and the action table's block starts; ``rng`` is the batch's ``uint64[B, 2]`` state
(``ecs/compiled/rng.py``).

The kernels that draw (``roll_offers``, ``shop_begin``, ``apply_shop``) are ``cache=False``: they
call ``ecs/compiled/rng.py``, and numba's cache checks only the defining file, so a changed RNG
would be missed (docs/compiled-core.md "Why stale machine code is impossible"); the generated
engine, which hashes every file it depends on, is where they will be cached.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from battlesim.ecs.compiled.rng import advance, bits_at
from battlesim.ecs.compiled.world_view import ViewError, WorldView

C_TIER, C_GOLD, P_SHOP_OFFERS, P_SHOP_MAX_TIER, P_SKIP_GOLD, STREAM, BUY_BASE, N_OFFERS, UPGRADE, N_COLS = range(10)
_CATALOG = ("tier", "gold")
_PARAMS = ("shop_offers", "shop_max_tier", "skip_gold")
DONE, SKIP, BUY, UPGRADED = 0, 1, 2, 3  # what ``apply_shop`` did
NOT_ON_OFFER = np.uint64(0xFFFFFFFFFFFFFFFF)


class ShopFields(NamedTuple):
    """The per-game arrays the shop reads and writes (the World's own, no copy)."""

    active: np.ndarray  # bool[B]
    gold: np.ndarray  # int32[B, 2]
    shop_tier: np.ndarray  # int8[B, 2]
    offers: np.ndarray  # int16[B, 2, O]: equipment-pool indexes, -1 none
    equip_pool: np.ndarray  # int16[B, 2, M]: card ids, -1 bought
    shop_bought: np.ndarray  # bool[B, 2]
    shop_upgraded: np.ndarray  # bool[B, 2]
    shop_done: np.ndarray  # bool[B, 2]
    hand: np.ndarray  # int16[B, 2, H]
    hand_src: np.ndarray  # int16[B, 2, H]


def shop_fields(w: Any, view: WorldView) -> ShopFields:
    """The ``ShopFields`` of World ``w`` (its own arrays, no copy)."""
    return ShopFields(w.active, *(view.g[name] for name in ShopFields._fields[1:]))


def shop_columns(view: WorldView, actions: Any) -> np.ndarray:
    """``int64[N_COLS]``: the ``cols`` argument of the shop kernels for this World and action table."""
    from battlesim.ecs.rng import Stream

    out = np.zeros(N_COLS, dtype=np.int64)
    for k, name in enumerate(_CATALOG):
        if name not in view.cat_rows:
            raise ViewError(f"the catalog has no column {name!r}")
        out[C_TIER + k] = view.cat_rows[name]
    for k, name in enumerate(_PARAMS):
        if name not in view.param_index:
            raise ViewError(f"the ruleset has no parameter {name!r}")
        out[P_SHOP_OFFERS + k] = view.param_index[name]
    out[STREAM:N_COLS] = (int(Stream.SHOP), actions.buy_base, actions.O, actions.upgrade)
    return out


@njit(cache=True, _nrt=False)
def _on_offer(st, f, cols, b, seat, j) -> bool:
    """Pool entry j is still in the deck and of a tier the shop has unlocked."""
    card = f.equip_pool[b, seat, j]
    return card >= 0 and st.cat[cols[C_TIER], card] <= f.shop_tier[b, seat]


@njit(cache=False, _nrt=False)
def roll_offers(st, f, cols, rng, b, seat) -> None:
    """shop.py's ``roll_offers`` for one game and seat (lanes.md: "Each player is presented with 3
    equipment items to choose from", of the tiers unlocked): one ``Stream.SHOP`` key per pool
    entry, the entries not on offer keyed last, the first ``shop_offers`` of the stable order
    offered (an entry not on offer among them offers nothing)."""
    M = f.equip_pool.shape[2]
    stream = cols[STREAM]
    n = min(st.params[cols[P_SHOP_OFFERS]], M)
    last_key = np.uint64(0)
    last_j = -1
    for r in range(f.offers.shape[2]):
        f.offers[b, seat, r] = -1
    for r in range(n):
        # the next entry in (key, index) order after (last_key, last_j): the stable sort's r-th
        best_j = -1
        best_key = NOT_ON_OFFER
        for j in range(M):
            key = bits_at(rng, b, j, stream) if _on_offer(st, f, cols, b, seat, j) else NOT_ON_OFFER
            after = r == 0 or key > last_key or (key == last_key and j > last_j)
            if after and (best_j < 0 or key < best_key):
                best_j, best_key = j, key
        last_key, last_j = best_key, best_j
        if _on_offer(st, f, cols, b, seat, best_j):
            f.offers[b, seat, r] = best_j
    advance(rng, b, M)


@njit(cache=False, _nrt=False)
def shop_begin(st, f, cols, rng, b) -> None:
    """``ShopPhase.begin`` for one game: the shop flags cleared, then seat 0's offers rolled, then
    seat 1's (ledger: the two players' shops are independent, seat 0 first)."""
    if not f.active[b]:
        return
    for seat in range(2):
        f.shop_bought[b, seat] = False
        f.shop_upgraded[b, seat] = False
        f.shop_done[b, seat] = False
    for seat in range(2):
        roll_offers(st, f, cols, rng, b, seat)


@njit(cache=True, _nrt=False)
def legal_shop(st, f, cols, b, row) -> int:
    """``ShopPhase.request`` for one game: the seat to act (0 until it is done) and its legal row.
    lanes.md: "Buy - Purchase items from the selection (costs gold)" (ledger: with a free hand
    slot); "Upgrade Shop - FREE - ... once per shop phase" (up to the top tier); done is always legal."""
    seat = 1 if f.shop_done[b, 0] else 0
    for a in range(row.shape[0]):
        row[a] = False
    row[0] = True
    room = False
    for h in range(f.hand.shape[2]):
        if f.hand[b, seat, h] < 0:
            room = True
            break
    for k in range(cols[N_OFFERS]):
        idx = f.offers[b, seat, k]
        if idx >= 0 and room:
            card = f.equip_pool[b, seat, idx]
            row[cols[BUY_BASE] + k] = st.cat[cols[C_GOLD], card] <= f.gold[b, seat]
    row[cols[UPGRADE]] = not f.shop_upgraded[b, seat] and f.shop_tier[b, seat] < st.params[cols[P_SHOP_MAX_TIER]]
    return seat


@njit(cache=False, _nrt=False)
def apply_shop(st, f, cols, rng, b, seat, action) -> tuple[int, int]:
    """``ShopPhase.apply`` for one game: "Skip - Pass on buying, gain +5 gold (only if no upgrade
    and no buy)"; "Purchased equipment goes to your hand" (ledger: it leaves the equipment deck);
    "Upgrade Shop - ... Unlock higher tier items and reshuffle offerings". Returns what happened
    and its value, for the replay log."""
    if action == 0:
        skip = not f.shop_bought[b, seat] and not f.shop_upgraded[b, seat]
        if skip:
            f.gold[b, seat] += st.params[cols[P_SKIP_GOLD]]
        f.shop_done[b, seat] = True
        return (SKIP, 0) if skip else (DONE, 0)
    if cols[BUY_BASE] <= action < cols[BUY_BASE] + cols[N_OFFERS]:
        k = action - cols[BUY_BASE]
        idx = f.offers[b, seat, k]
        card = f.equip_pool[b, seat, idx]
        f.gold[b, seat] -= st.cat[cols[C_GOLD], card]
        for h in range(f.hand.shape[2]):
            if f.hand[b, seat, h] < 0:
                f.hand[b, seat, h] = card
                f.hand_src[b, seat, h] = -1
                break
        f.equip_pool[b, seat, idx] = -1
        f.offers[b, seat, k] = -1
        f.shop_bought[b, seat] = True
        return BUY, np.int64(card)
    if action == cols[UPGRADE]:
        f.shop_tier[b, seat] += 1
        f.shop_upgraded[b, seat] = True
        roll_offers(st, f, cols, rng, b, seat)
        return UPGRADED, np.int64(f.shop_tier[b, seat])
    return DONE, 0

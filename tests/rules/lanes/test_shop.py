"""lanes.md "Phase 4: Shop Phase", "Gold System", "Shop Tiers", "Card Tiers" (equipment).

Each player's equipment deck is the shop's pool (lanes.md: "Equipment deck: ... used in Shop
Phase"). Ledger: a shop phase offers up to 3 distinct items of the pool whose tier the shop has
unlocked, drawn at random; a bought item leaves the pool; buying needs a free hand slot; seat 0
shops first, then seat 1 (their shops are independent). Items are defined inline here.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from battlesim.ecs.ruleset import get_ruleset
from battlesim.systems.lanes.compiled.processors import ShopPhase
from battlesim.systems.lanes.scenario import Step, load_scenario
from battlesim.systems.lanes.scenario_steps import run_step

G = np.array([0])

ITEMS = {  # name: (tier, gold)
    "Test Dagger": (1, 1), "Test Cap": (1, 1), "Test Sling": (1, 2), "Test Boots": (1, 2),
    "Test Mace": (2, 3), "Test Kite Shield": (2, 3),
    "Test Runeblade": (3, 5),
    "Test Aegis": (4, 7),
    "Test Godslayer": (5, 9),
}


def cards_toml() -> str:
    out = []
    for name, (tier, gold) in ITEMS.items():
        out.append(f'[[cards]]\nname = "{name}"\ntype = "equipment"\ntier = {tier}\ngold = {gold}\ncost = 1\n'
                   f'attack = {tier}\n')
    return "\n".join(out)


def build(game, tmp_path, seed=0, gold=(20, 20), pool=None, tier=(1, 1), hand=None, other=None):
    pool = list(ITEMS) if pool is None else pool
    other = list(ITEMS) if other is None else other
    hand = hand or [[], []]
    q = lambda xs: "[" + ", ".join(f'"{x}"' for x in xs) + "]"  # noqa: E731
    body = textwrap.dedent(f"""
        ruleset = "lanes"
        rule = "test"
        seed = {seed}
        units = [{{ side = 0, lane = 0, pos = 2, name = "Squire", attack = 1, health = 3 }}]
        [players]
        gold = [{gold[0]}, {gold[1]}]
        shop_tier = [{tier[0]}, {tier[1]}]
        equipment = [{q(pool)}, {q(other)}]
        hand = [{q(hand[0])}, {q(hand[1])}]
        """)
    path = tmp_path / f"shop{seed}.toml"
    path.write_text(body + "\n" + cards_toml())
    return load_scenario(path, game=game)


def offers(sc, seat=0) -> list[str]:
    """Names of the seat's current offers (None for an empty offer slot)."""
    w, cat = sc.w, sc.game.cards.catalog
    out = []
    for k in w.g.offers[0, seat]:
        out.append(None if k < 0 else cat.names[int(w.g.equip_pool[0, seat, k])])
    return out


def open_shop(sc):
    phase = ShopPhase(sc.game.actions)
    phase.begin(sc.w)
    return phase


def legal(sc, phase):
    actor, lg = phase.request(sc.w, G)
    return int(actor[0]), lg[0]


def do(sc, phase, action):
    actor, lg = phase.request(sc.w, G)
    assert lg[0, action], sc.game.actions.describe(action)
    phase.apply(sc.w, G, actor, np.array([action]))


def test_three_distinct_offers_from_the_unlocked_tiers(game, tmp_path):
    # lanes.md: "Each player is presented with 3 equipment items to choose from"; "Tier 1 | Basic
    # equipment (Tier 1)"; "Equipment tiers determine which shop tier is required to purchase them"
    tier1 = {n for n, (t, _) in ITEMS.items() if t == 1}
    seen = set()
    for seed in range(12):
        sc = build(game, tmp_path, seed=seed)
        open_shop(sc)
        got = offers(sc)
        assert len(got) == 3 and None not in got and len(set(got)) == 3
        assert set(got) <= tier1
        seen |= set(got)
    assert seen == tier1  # drawn at random from the whole tier-1 pool


def test_fewer_items_than_three_in_the_pool(game, tmp_path):
    sc = build(game, tmp_path, pool=["Test Dagger", "Test Mace", "Test Cap"])
    open_shop(sc)
    assert sorted(offers(sc), key=str) == sorted(["Test Dagger", "Test Cap", None], key=str)


@pytest.mark.parametrize("tier", [1, 2, 3, 4, 5])
def test_each_tier_offers_its_items_and_the_lower_tiers(game, tmp_path, tier):
    # lanes.md "Shop Tiers": "2 | Uncommon equipment (Tier 1-2)" ... "5 | Legendary equipment
    # (Tier 1-5)"; "Higher shop tiers unlock more powerful equipment options"
    seen = set()
    for seed in range(16):
        sc = build(game, tmp_path, seed=seed, tier=(tier, 1))
        open_shop(sc)
        seen |= set(offers(sc))
    assert seen == {n for n, (t, _) in ITEMS.items() if t <= tier}


def test_upgrade_reshuffles_from_the_new_tier_pool(game, tmp_path):
    # lanes.md: "Upgrade Shop - FREE - Unlock higher tier items and reshuffle offerings";
    # "Upgrading reshuffles your shop offerings immediately with items from the new tier pool"
    A = game.actions
    sc = build(game, tmp_path, pool=["Test Dagger", "Test Mace", "Test Kite Shield", "Test Runeblade"])
    phase = open_shop(sc)
    assert offers(sc) == ["Test Dagger", None, None]
    do(sc, phase, A.upgrade)
    assert sc.w.g.shop_tier[0, 0] == 2 and sc.w.g.gold[0, 0] == 20  # free
    assert sorted(offers(sc)) == ["Test Dagger", "Test Kite Shield", "Test Mace"]


def test_upgrade_before_or_after_buying_once_per_phase(game, tmp_path):
    # lanes.md: "Upgrade timing is flexible: You can upgrade before OR after buying (but only once
    # per shop phase)"; "After upgrading, you can still buy items from your new offerings this round"
    A = game.actions
    for first_buy in (True, False):
        sc = build(game, tmp_path)
        phase = open_shop(sc)
        if first_buy:
            do(sc, phase, A.buy(0))
        do(sc, phase, A.upgrade)
        seat, lg = legal(sc, phase)
        assert seat == 0 and not lg[A.upgrade]
        if not first_buy:
            assert lg[A.buy(0)]
            do(sc, phase, A.buy(0))
        do(sc, phase, 0)
        assert sc.w.g.shop_tier[0, 0] == 2
        assert sum(c >= 0 for c in sc.w.g.hand[0, 0]) == 1
        assert sc.w.g.gold[0, 0] < 20  # no skip bonus


def test_tier_five_is_the_top(game, tmp_path):
    # lanes.md "Card Tiers"/"Shop Tiers": tiers 1 to 5
    A = game.actions
    assert game.params.shop_max_tier == 5
    sc = build(game, tmp_path, tier=(4, 5))
    phase = open_shop(sc)
    do(sc, phase, A.upgrade)
    assert sc.w.g.shop_tier[0, 0] == 5
    do(sc, phase, 0)
    seat, lg = legal(sc, phase)
    assert seat == 1 and not lg[A.upgrade]  # seat 1 is at tier 5 already


def test_buy_several_items_pays_gold_and_puts_them_in_hand(game, tmp_path):
    # lanes.md: "Buy - Purchase items from the selection (costs gold) - can buy multiple items";
    # "Purchased equipment goes to your hand"; "Gold is spent on equipment items".
    # Ledger: a bought item leaves the equipment deck (it is not offered again)
    A = game.actions
    pool = ["Test Dagger", "Test Sling", "Test Cap"]
    sc = build(game, tmp_path, pool=pool, gold=(5, 0))
    phase = open_shop(sc)
    names = offers(sc)
    do(sc, phase, A.buy(names.index("Test Sling")))
    do(sc, phase, A.buy(names.index("Test Dagger")))
    assert sc.w.g.gold[0, 0] == 2
    assert offers(sc).count(None) == 2
    cat = sc.game.cards.catalog
    hand = sorted(cat.names[int(c)] for c in sc.w.g.hand[0, 0] if c >= 0)
    assert hand == ["Test Dagger", "Test Sling"]
    do(sc, phase, 0)
    do(sc, phase, 0)
    assert sc.w.g.gold[0].tolist() == [2, 5]  # seat 1 skipped
    open_shop(sc)  # next shop phase: only the Cap is left in the pool
    assert sorted(offers(sc), key=str) == sorted(["Test Cap", None, None], key=str)


def test_bought_equipment_is_played_like_a_card(game, tmp_path):
    # lanes.md: "Purchased equipment goes to your hand and can be played like cards during Play Phase"
    sc = build(game, tmp_path, pool=["Test Mace"], tier=(2, 1), gold=(3, 0))
    run_step(sc, 0, Step.model_validate({"do": "shop", "buy": [[0], []]}))
    run_step(sc, 1, Step.model_validate({"do": "play", "side": 0, "card": "Test Mace", "lane": 0, "pos": 2}))
    state = sc.state()
    assert state["hand"][0] == [] and state["gold"][0] == 0
    (squire,) = state["units"]
    assert squire["equipment"] == "Test Mace" and squire["attack"] == 3


def test_buying_needs_the_gold_and_a_free_hand_slot(game, tmp_path):
    # lanes.md: "Buy - Purchase items from the selection (costs gold)"; ledger: the item goes to
    # the hand, so a full hand (10 cards) cannot buy
    A = game.actions
    sc = build(game, tmp_path, pool=["Test Sling", "Test Dagger"], gold=(1, 0))
    phase = open_shop(sc)
    names = offers(sc)
    _, lg = legal(sc, phase)
    assert lg[A.buy(names.index("Test Dagger"))] and not lg[A.buy(names.index("Test Sling"))]
    full = build(game, tmp_path, pool=["Test Dagger"], hand=[["Test Cap"] * 10, []])
    phase = open_shop(full)
    _, lg = legal(full, phase)
    assert not lg[A.buy_slice].any() and lg[A.upgrade] and lg[0]


def test_skip_gives_the_bonus_only_without_buy_or_upgrade(game, tmp_path):
    # lanes.md: "Skip - Pass on buying, gain +5 gold (only if no upgrade and no buy)";
    # "Skip shop: +5 gold (only if no upgrade and no buy)"
    A = game.actions
    sc = build(game, tmp_path, gold=(3, 3))
    phase = open_shop(sc)
    do(sc, phase, 0)  # seat 0 skips
    do(sc, phase, A.upgrade)  # seat 1 upgrades, then is done
    do(sc, phase, 0)
    assert sc.w.g.gold[0].tolist() == [8, 3]


def test_skip_bonus_is_a_parameter(tmp_path):
    # ledger: skip_gold (default 5, lanes.md "+5 gold")
    g = get_ruleset("lanes").load(params={"skip_gold": 2})
    sc = build(g, tmp_path, gold=(0, 0))
    phase = open_shop(sc)
    do(sc, phase, 0)
    do(sc, phase, 0)
    assert sc.w.g.gold[0].tolist() == [2, 2]


def test_seat_zero_shops_first_then_seat_one(game, tmp_path):
    # ledger: "players visit the shop": seat 0 finishes, then seat 1; both shops are independent
    A = game.actions
    sc = build(game, tmp_path)
    phase = open_shop(sc)
    seat, _ = legal(sc, phase)
    assert seat == 0
    do(sc, phase, A.buy(0))
    seat, _ = legal(sc, phase)
    assert seat == 0
    do(sc, phase, 0)
    seat, _ = legal(sc, phase)
    assert seat == 1
    do(sc, phase, 0)
    assert not phase.pending(sc.w)[0]


def test_shop_comes_after_combat_every_round(game):
    # lanes.md "Phase 4: Shop Phase": "After combat, players visit the shop to purchase equipment"
    names = [p.name for p in game.schedule.phases]
    assert names.index("shop") == names.index("combat") + 1

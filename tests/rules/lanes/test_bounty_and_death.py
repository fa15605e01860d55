"""lanes.md "Gold System (Artifact-style Bounty)", "Bounty System", "Hero Death & Respawn"
(death side), "Creep Properties" (creep bounty)."""

from __future__ import annotations

import numpy as np

from battlesim.ecs.decisions import make_agent
from battlesim.ecs.ruleset import get_ruleset
from battlesim.systems.lanes.compiled.event_stream import events_of
from battlesim.systems.lanes.compiled.processors import (
    Combat,
    CreepSpawn,
    DrawPhase,
    HeroAvailability,
    RefreshResources,
    RoundEnd,
)
from battlesim.systems.lanes.state import DEAD, ON_BOARD


def fight(w):
    Combat().process(w)


def test_killing_an_enemy_unit_pays_one_gold_to_the_killer(new_world, put):
    # lanes.md: "Kill enemy unit/creep: +1 gold (bounty to opponent)"; table: "Enemy unit | +1 gold"
    w = new_world(1)
    put(w, 0, side=0, lane=0, pos=0, attack=3, health=5)
    put(w, 0, side=1, lane=0, pos=0, attack=1, health=3)
    fight(w)
    assert w.g.gold[0].tolist() == [1, 0]


def test_killing_an_enemy_creep_pays_one_gold(new_world, put):
    # lanes.md: "Destroying enemy creeps awards 1 gold"; table: "Enemy creep | +1 gold"
    # ledger: creeps give +1 bounty
    w = new_world(1)
    put(w, 0, side=1, lane=2, pos=3, attack=1, health=1, creep=True, card="Ostland Sentry")
    put(w, 0, side=0, lane=2, pos=3, attack=2, health=5)
    fight(w)
    assert w.g.gold[0].tolist() == [1, 0]


def test_killing_an_enemy_hero_pays_five_gold(new_world, put):
    # lanes.md: "Kill enemy hero: +5 gold (bounty to opponent)"; table: "Enemy hero | +5 gold"
    w = new_world(1)
    put(w, 0, side=0, lane=1, pos=2, attack=4, health=7, hero=True)
    put(w, 0, side=1, lane=1, pos=2, attack=9, health=9)
    fight(w)
    assert w.g.gold[0].tolist() == [0, 5]


def test_mutual_kills_pay_both_sides(new_world, put):
    # lanes.md "Gold System": both bounties, in one simultaneous fight
    w = new_world(1)
    put(w, 0, side=0, lane=0, pos=1, attack=9, health=2, hero=True)  # side 0's hero
    put(w, 0, side=1, lane=0, pos=1, attack=2, health=2, creep=True, card="Ostland Sentry")
    put(w, 0, side=0, lane=2, pos=0, attack=1, health=1)
    put(w, 0, side=1, lane=2, pos=0, attack=1, health=1)
    put(w, 0, side=0, lane=1, pos=4, attack=5, health=1)
    put(w, 0, side=1, lane=1, pos=4, attack=5, health=5, hero=True)
    fight(w)
    # side 0 killed: creep (1) + unit (1) + hero (5); side 1 killed: hero (5) + unit (1) + unit (1)
    assert w.g.gold[0].tolist() == [7, 7]


def test_no_gold_for_anchor_damage(new_world, put, set_anchor):
    # lanes.md: "No gold for anchor damage"
    w = new_world(1)
    set_anchor(w, 0, side=1, lane=0, health=3)
    set_anchor(w, 0, side=1, lane=1, health=2, essence=True)
    put(w, 0, side=0, lane=0, pos=0, attack=9, health=1)
    put(w, 0, side=0, lane=1, pos=0, attack=9, health=1)
    put(w, 0, side=0, lane=2, pos=0, attack=9, health=1)
    fight(w)
    assert w.c.essence[0, 3] and w.c.ruined[0, 4] and w.c.health[0, 5] == 21
    assert w.g.gold[0].tolist() == [0, 0]


def test_gold_persists_between_rounds(new_world, put):
    # lanes.md: "Gold persists between rounds (unspent gold carries over)"
    w = new_world(1)
    w.g.gold[0] = [6, 2]
    w.g.round[:] = 3
    RoundEnd().process(w)
    for system in (CreepSpawn(), HeroAvailability(), DrawPhase(), RefreshResources()):
        system.process(w)
    assert w.g.gold[0].tolist() == [6, 2]
    put(w, 0, side=1, lane=0, pos=1, attack=1, health=1)
    put(w, 0, side=0, lane=0, pos=1, attack=1, health=3)
    fight(w)
    # the six creeps spawned at position 0 trade (3 kills each), plus side 0's kill at position 1
    assert w.g.gold[0].tolist() == [6 + 3 + 1, 2 + 3]


def test_bounties_are_parameters():
    # lanes.md bounty table as data (bounty_unit, bounty_hero)
    g = get_ruleset("lanes").load(params={"bounty_unit": 2, "bounty_hero": 7})
    w = g.new_world(np.arange(1), ("red_vanguard", "blue_tide"), [make_agent("pass")] * 2)
    import esper

    from battlesim.ecs.esper_bridge import C, load, snapshot

    name = snapshot(w, 0)
    esper.create_entity(C.Owner(0), C.Lane(0), C.Pos(0), C.Attack(9), C.Health(9), C.MaxHealth(9))
    esper.create_entity(C.Owner(1), C.Lane(0), C.Pos(0), C.Attack(1), C.Health(1), C.MaxHealth(1))
    esper.create_entity(C.Owner(1), C.Lane(1), C.Pos(0), C.Attack(1), C.Health(1), C.MaxHealth(1),
                        C.Hero(), C.HeroIndex(2), C.CardId(int(w.g.hero_card[0, 1, 2])))
    esper.create_entity(C.Owner(0), C.Lane(1), C.Pos(0), C.Attack(1), C.Health(5), C.MaxHealth(5))
    load(w, 0, name)
    Combat().process(w)
    assert w.g.gold[0].tolist() == [9, 0]


def test_a_played_game_pays_bounties_only_for_kills(game):
    # lanes.md "Gold System": "Gold is earned through combat bounties" (plus the shop's
    # "Skip shop: +5 gold"); "No gold for anchor damage"; gold is "spent on equipment items"
    import esper

    seeds = np.arange(32)
    w = game.new_world(seeds, ("red_vanguard", "blue_tide"), [make_agent("random"), make_agent("random")])
    expect = np.zeros((32, 2), dtype=np.int64)
    ctx = "bounty-test-events"
    esper.switch_world(ctx)
    p = game.params

    def on_deaths(world, b, s, cards):
        owner = world.c.owner[b, s]
        kill = world.c.dying[b, s] & (world.c.hit_by[b, s] != owner)  # a bounce is no kill
        pay = np.maximum(np.where(world.c.hero[b, s], p.bounty_hero, p.bounty_unit) + world.c.bounty[b, s], 0)
        np.add.at(expect, (b[kill], 1 - owner[kill]), pay[kill])

    def on_skip(world, b, s):
        np.add.at(expect, (b, s), p.skip_gold)

    def on_buy(world, b, s, card):
        np.add.at(expect, (b, s), -world.catalog.arrays.gold[card])

    def on_effect_gold(world, b, s, amount):  # cards that "gain gold" (issue 3 opcodes)
        np.add.at(expect, (b, s), amount)

    handlers = (("lanes.deaths", on_deaths), ("lanes.shop_skip", on_skip), ("lanes.buy", on_buy),
                ("lanes.gold", on_effect_gold))
    for n, fn in handlers:
        esper.set_handler(n, fn)
    try:
        with events_of(w):  # the accounting listens to the compiled game's events
            game.run(w)
    finally:
        for n, fn in handlers:
            esper.remove_handler(n, fn)
        esper.switch_world("default")
        esper.delete_world(ctx)
    assert expect.sum() > 0
    assert (w.g.gold == expect).all()


# -- hero death --------------------------------------------------------------------------------

def test_killed_hero_leaves_the_board_and_its_roster_slot_is_dead(new_world, put):
    # lanes.md "Hero Death & Respawn": "When a hero is destroyed: The hero enters a 1-round death
    # timer (cannot act or provide lane faction access)"
    w = new_world(1)
    w.g.round[:] = 6
    w.g.hero_status[0] = ON_BOARD
    hero = put(w, 0, side=1, lane=2, pos=0, attack=3, health=3, hero=True, hero_index=3)
    put(w, 0, side=0, lane=2, pos=0, attack=3, health=9)
    fight(w)
    assert not w.alive[0, hero] and w.g.board[0, 1, 2, 0] == -1
    assert w.g.hero_status[0, 1].tolist() == [ON_BOARD, ON_BOARD, ON_BOARD, DEAD, ON_BOARD]
    assert w.g.hero_ready_round[0, 1, 3] == 7
    assert w.g.gold[0].tolist() == [5, 0]


def test_dead_hero_does_not_act(new_world, put):
    # lanes.md: "(cannot act ...)": a dead hero is off the board, so it attacks nothing in later rounds
    w = new_world(1)
    w.g.round[:] = 6
    put(w, 0, side=0, lane=1, pos=0, attack=4, health=1, hero=True)
    put(w, 0, side=1, lane=1, pos=0, attack=1, health=9)
    fight(w)
    assert w.g.board[0, 1, 1, 0] >= 0 and w.c.health[0, w.g.board[0, 1, 1, 0]] == 5
    w.g.round[:] = 7
    fight(w)  # the next round's combat: the enemy is now unopposed, nothing hits it
    assert w.c.health[0, w.g.board[0, 1, 1, 0]] == 5
    assert w.c.health[0, 1] == 29  # it hits side 0's lane-1 anchor instead

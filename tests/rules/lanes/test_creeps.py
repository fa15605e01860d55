"""lanes.md "Creep System" and "Phase 0: Creep Spawn"."""

from __future__ import annotations

import numpy as np

from battlesim.ecs.decisions import make_agent
from battlesim.ecs.ruleset import get_ruleset
from battlesim.systems.lanes.compiled.processors import Combat, CreepSpawn


def creeps_of(w, b, side):
    return [(int(w.c.lane[b, s]), int(w.c.pos[b, s])) for s in np.flatnonzero(w.c.creep[b] & w.alive[b])
            if w.c.owner[b, s] == side]


def test_each_player_spawns_one_creep_per_lane(new_world):
    # lanes.md: "Each player spawns 1 creep per lane (3 total per player)"
    # lanes.md "Phase 0": "Both players' creeps spawn simultaneously"
    w = new_world(3)
    CreepSpawn().process(w)
    for b in range(3):
        for side in range(2):
            assert sorted(creeps_of(w, b, side)) == [(0, 0), (1, 0), (2, 0)]
    assert w.c.creep.sum() == 3 * 6


def test_creeps_spawn_every_round_including_round_one(new_world, script, monkeypatch):
    # lanes.md: "Every round (including Round 1)"; "Happens every round, including Round 1"
    # lanes.md: "Creep spawns happen before hero deployment and the play phase"
    spawned = []
    a = script()
    w = new_world(1, agents=[a, script()])
    system = next(s for _, systems in w.schedule._order for s in systems if isinstance(s, CreepSpawn))
    orig = system.process

    def spy(w_):  # the creeps the scheduled system makes: entities that were not there before
        before = w_.serial * w_.alive
        orig(w_)
        g, s = np.nonzero(w_.alive & w_.c.creep & (w_.serial != before))
        spawned.extend((int(w_.g.round[b]), int(w_.c.owner[b, k]), int(w_.c.lane[b, k])) for b, k in zip(g, s))

    monkeypatch.setattr(system, "process", spy)
    for _ in range(3):
        w.schedule.run(w)
    assert sorted(spawned) == [(r, s, l) for r in (1, 2, 3) for s in range(2) for l in range(3)]
    first_decision = a.calls[0]  # round 1, hero deployment: the creeps are already there
    assert first_decision["round"][0] == 1
    assert (first_decision["board"][0, :, :, 0] >= 0).all()


def test_creeps_spawn_at_the_leftmost_empty_position(new_world, put):
    # lanes.md: "Creeps spawn at the leftmost empty position in each lane"
    # lanes.md "Lane Rules": "Empty positions remain empty until filled - no automatic shifting"
    w = new_world(1)
    put(w, 0, side=0, lane=0, pos=0, attack=1, health=1)
    put(w, 0, side=0, lane=0, pos=1, attack=1, health=1)
    put(w, 0, side=0, lane=0, pos=3, attack=1, health=1)
    put(w, 0, side=1, lane=2, pos=0, attack=1, health=1)
    CreepSpawn().process(w)
    assert sorted(creeps_of(w, 0, 0)) == [(0, 2), (1, 0), (2, 0)]
    assert sorted(creeps_of(w, 0, 1)) == [(0, 0), (1, 0), (2, 1)]
    CreepSpawn().process(w)
    assert sorted(creeps_of(w, 0, 0)) == [(0, 2), (0, 4), (1, 0), (1, 1), (2, 0), (2, 1)]


def test_creep_is_skipped_when_the_lane_is_full(new_world, put):
    # lanes.md: "If a lane is full, the creep for that lane is skipped"
    w = new_world(1)
    for pos in range(5):
        put(w, 0, side=1, lane=1, pos=pos, attack=1, health=1)
    CreepSpawn().process(w)
    assert sorted(creeps_of(w, 0, 1)) == [(0, 0), (2, 0)]
    assert sorted(creeps_of(w, 0, 0)) == [(0, 0), (1, 0), (2, 0)]


def test_creeps_count_toward_the_five_unit_lane_limit(new_world):
    # lanes.md: "Creeps do count toward the 5-unit lane limit"
    w = new_world(1)
    for _ in range(6):
        CreepSpawn().process(w)
    for side in range(2):
        assert len(creeps_of(w, 0, side)) == 15  # 5 per lane, the 6th spawn skipped
    assert (w.g.board[0] >= 0).all()


def test_creeps_are_one_one_of_the_decks_creep_card(game, new_world):
    # lanes.md "Creep Stats": "Faction Creep | 1 | 1 | Thematic variant per faction"
    # ledger (interpretation): the variant is the deck's creep card, not a random one
    w = new_world(1)
    CreepSpawn().process(w)
    cat = game.cards.catalog
    want = {0: cat.id("Normark Raider"), 1: cat.id("Ostland Sentry")}
    for s in np.flatnonzero(w.c.creep[0] & w.alive[0]):
        side = int(w.c.owner[0, s])
        assert w.c.card_id[0, s] == want[side]
        assert w.c.attack[0, s] == 1 and w.c.health[0, s] == 1 and w.c.max_health[0, s] == 1
        assert not w.c.hero[0, s]
    assert game.cards.deck("red_vanguard").creep == want[0]
    assert game.cards.deck("blue_tide").creep == want[1]


def test_creep_stats_are_parameters():
    # lanes.md "Creep Stats" (1/1) as data: creep_attack / creep_health
    g = get_ruleset("lanes").load(params={"creep_attack": 2, "creep_health": 3})
    w = g.new_world(np.arange(1), ("green_grove", "black_covenant"), [make_agent("pass")] * 2)
    CreepSpawn().process(w)
    cs = np.flatnonzero(w.c.creep[0] & w.alive[0])
    assert cs.size == 6
    assert (w.c.attack[0, cs] == 2).all() and (w.c.health[0, cs] == 3).all()
    cat = g.cards.catalog
    assert sorted({cat.names[c] for c in w.c.card_id[0, cs]}) == ["Karness Thrall", "Varenth Sprout"]


def test_creeps_fight_units_and_anchors(new_world, put):
    # lanes.md: "Creeps attack and take damage like normal units"
    # lanes.md: "Creeps can block enemy units or absorb damage meant for anchors"
    w = new_world(1)
    c0 = put(w, 0, side=0, lane=0, pos=0, attack=1, health=1, creep=True, card="Normark Raider")
    put(w, 0, side=1, lane=0, pos=0, attack=3, health=4)  # a unit blocked by the creep
    put(w, 0, side=0, lane=1, pos=2, attack=1, health=1, creep=True, card="Normark Raider")  # unopposed
    Combat().process(w)
    assert w.g.board[0, 0, 0, 0] == -1  # the creep died
    opp = w.g.board[0, 1, 0, 0]
    assert w.c.health[0, opp] == 3  # and dealt its 1 damage
    assert w.c.health[0, 3] == 30  # side 1's lane-0 anchor was shielded by the creep
    assert w.c.health[0, 4] == 29  # the unopposed creep hit the lane-1 anchor
    assert c0 >= 6


def test_creeps_need_no_hero_and_give_no_faction_access(game, new_world, legal_plays, put):
    # lanes.md: "Creeps have no faction gating" (they spawn in lanes with no hero of their faction)
    # lanes.md "Faction Restrictions": cards "require a matching-faction hero" (a creep is no hero)
    w = new_world(1)
    CreepSpawn().process(w)
    assert len(creeps_of(w, 0, 0)) == 3 and not w.c.hero[0].any()
    w.g.hand[0, 0, 0] = game.cards.catalog.id("Cinder Recruit")  # Red, cost 1
    w.g.resources[0] = 10
    legal = legal_plays(w, 0, 0)
    assert not legal.any()
    put(w, 0, side=0, lane=2, pos=3, attack=4, health=7, hero=True)  # a Red hero opens lane 2
    legal = legal_plays(w, 0, 0)
    assert legal[0].tolist() == [[False] * 5, [False] * 5, [True, True, True, False, True]]  # the Red creeps open no lane to Red cards


def test_heroes_count_toward_the_lane_limit_for_creeps(new_world, put):
    # lanes.md: "Heroes occupy normal board positions (0-4) like regular units and count toward
    # the 5-unit lane limit" — a lane of 1 hero + 4 units is full: its creep is skipped
    w = new_world(1)
    put(w, 0, side=0, lane=2, pos=2, attack=4, health=7, hero=True)
    for pos in (0, 1, 3, 4):
        put(w, 0, side=0, lane=2, pos=pos, attack=1, health=1)
    CreepSpawn().process(w)
    assert sorted(creeps_of(w, 0, 0)) == [(0, 0), (1, 0)]

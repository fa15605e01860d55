"""lanes.md "Phase 3: Combat Phase", "Combat Resolution", "Combat Order", "Unit Removal".

Every board here is built through the esper bridge (the ``put`` / ``set_anchor`` fixtures).
"""

from __future__ import annotations

import numpy as np

from battlesim.systems.lanes.compiled.event_stream import events_of
from battlesim.systems.lanes.compiled.processors import Combat
from battlesim.systems.lanes.damage_stages import lanes_pipeline


def fight(w):
    Combat().process(w)


def hp(w, b, side, lane, pos):
    s = w.g.board[b, side, lane, pos]
    return None if s < 0 else int(w.c.health[b, s])


# -- combat order ----------------------------------------------------------------------------

def test_lane_order_alternates_with_the_round(new_world, put, events):
    # lanes.md "Combat Order": "Odd rounds (1, 3, 5...): Lane 0 → Lane 1 → Lane 2 (left to right)"
    # "Even rounds (2, 4, 6...): Lane 2 → Lane 1 → Lane 0 (right to left)"
    # lanes.md "Phase 3": "Combat proceeds lane by lane"
    w = new_world(4)
    w.g.round[:] = [1, 2, 3, 4]
    for b in range(4):
        for lane in range(3):
            put(w, b, side=0, lane=lane, pos=0, attack=1, health=5)
    log = events("lanes.combat")
    with events_of(w):  # the order as the compiled Combat posts it
        Combat().process(w)
    seq = {}
    for _, lane, batch in log["lanes.combat"]:
        for b in np.unique(batch.game):
            seq.setdefault(int(b), []).append(lane)
    assert seq == {0: [0, 1, 2], 1: [2, 1, 0], 2: [0, 1, 2], 3: [2, 1, 0]}


def test_lane_order_in_played_rounds(new_world, events):
    # lanes.md "Combat Order": "Combat direction alternates each round"
    w = new_world(1)
    log = events("lanes.combat")
    with events_of(w):
        for _ in range(4):
            w.schedule.run(w)
    lanes = [lane for _, lane, _ in log["lanes.combat"]]
    assert lanes == [0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0]


# -- unit vs unit ----------------------------------------------------------------------------

def test_opposing_units_damage_each_other_simultaneously(new_world, put):
    # lanes.md "Unit vs Unit (same position)": "Both units deal their attack as damage to each
    # other (simultaneous)"; "Units only attack the opposing unit at the same position"
    w = new_world(1)
    put(w, 0, side=0, lane=1, pos=2, attack=3, health=5)
    put(w, 0, side=1, lane=1, pos=2, attack=4, health=7)
    fight(w)
    assert hp(w, 0, 0, 1, 2) == 1 and hp(w, 0, 1, 1, 2) == 4
    assert w.c.health[0, 1] == 30 and w.c.health[0, 4] == 30  # no anchor was hit


def test_mutual_kill_both_die(new_world, put):
    # lanes.md: "Both units deal their attack as damage to each other (simultaneous)"
    # lanes.md: "Units with 0 or less health are marked as destroyed"
    w = new_world(1)
    put(w, 0, side=0, lane=0, pos=4, attack=2, health=2)
    put(w, 0, side=1, lane=0, pos=4, attack=5, health=1)
    fight(w)
    assert w.g.board[0, :, 0, 4].tolist() == [-1, -1]
    assert w.c.health[0, 0] == 30 and w.c.health[0, 3] == 30


def test_exactly_zero_health_is_destroyed(new_world, put):
    # lanes.md: "Units with 0 or less health are marked as destroyed"
    w = new_world(1)
    put(w, 0, side=0, lane=2, pos=1, attack=3, health=10)
    put(w, 0, side=1, lane=2, pos=1, attack=1, health=3)
    fight(w)
    assert hp(w, 0, 1, 2, 1) is None and hp(w, 0, 0, 2, 1) == 9


def test_units_fight_only_the_same_position(new_world, put):
    # lanes.md "Lane Rules": "Cards fight the opposing card at the same index (position 0 vs 0, 1 vs 1, etc.)"
    # lanes.md: "Players may strategically place units in specific positions to avoid certain matchups"
    w = new_world(1)
    put(w, 0, side=0, lane=0, pos=1, attack=2, health=3)
    put(w, 0, side=1, lane=0, pos=2, attack=5, health=3)
    put(w, 0, side=1, lane=0, pos=3, attack=1, health=4)
    put(w, 0, side=0, lane=0, pos=3, attack=2, health=4)
    fight(w)
    assert hp(w, 0, 0, 0, 1) == 3 and hp(w, 0, 1, 0, 2) == 3  # offset: untouched
    assert hp(w, 0, 0, 0, 3) == 3 and hp(w, 0, 1, 0, 3) == 2
    assert w.c.health[0, 3] == 28  # side 0's pos-1 unit hit side 1's lane-0 anchor
    assert w.c.health[0, 0] == 25  # side 1's pos-2 unit hit side 0's lane-0 anchor


def test_lanes_do_not_interact(new_world, put):
    # lanes.md: "Units only attack the opposing unit at the same position" (same lane)
    w = new_world(1)
    put(w, 0, side=0, lane=0, pos=0, attack=2, health=3)
    put(w, 0, side=1, lane=1, pos=0, attack=2, health=3)
    fight(w)
    assert hp(w, 0, 0, 0, 0) == 3 and hp(w, 0, 1, 1, 0) == 3
    assert w.c.health[0, 3] == 28 and w.c.health[0, 1] == 28


def test_heroes_fight_like_units(new_world, put):
    # lanes.md "Heroes": "Occupy normal board positions (0-4) like units"; "Have Attack, Health"
    w = new_world(1)
    put(w, 0, side=0, lane=1, pos=0, attack=4, health=7, hero=True)
    put(w, 0, side=1, lane=1, pos=0, attack=3, health=8, hero=True)
    put(w, 0, side=0, lane=2, pos=0, attack=4, health=9, hero=True, hero_index=2)
    fight(w)
    assert hp(w, 0, 0, 1, 0) == 4 and hp(w, 0, 1, 1, 0) == 4
    assert w.c.health[0, 5] == 26


# -- unopposed units -------------------------------------------------------------------------

def test_unopposed_units_attack_the_anchor(new_world, put):
    # lanes.md "Unopposed Units": "Units with no opposing unit at their position attack the anchor directly"
    # lanes.md "Phase 3": "If no opposing unit exists, the unit attacks the anchor directly"
    w = new_world(1)
    for pos, atk in ((0, 2), (2, 3), (4, 5)):
        put(w, 0, side=1, lane=2, pos=pos, attack=atk, health=1)
    fight(w)
    assert w.c.health[0, 2] == 30 - 10
    assert w.c.health[0, 5] == 30  # nothing attacked side 1's anchor
    assert [hp(w, 0, 1, 2, p) for p in (0, 2, 4)] == [1, 1, 1]  # the anchor does not hit back


def test_unopposed_units_attack_the_essence(new_world, put, set_anchor):
    # lanes.md: "Essence continues taking damage from unopposed cards"
    w = new_world(1)
    set_anchor(w, 0, side=0, lane=0, health=40, essence=True)
    put(w, 0, side=1, lane=0, pos=3, attack=7, health=1)
    fight(w)
    assert w.c.essence[0, 0] and w.c.health[0, 0] == 33


def test_zero_attack_deals_no_damage(new_world, put):
    # lanes.md: "Attack - Damage dealt in combat"; ledger 21: a 0-attack unit attacks, for 0
    # (its Siege, Cleave and triggers: S/enfeebled_still_attacks_disarmed_does_not)
    w = new_world(1)
    put(w, 0, side=0, lane=0, pos=0, attack=0, health=2)
    put(w, 0, side=0, lane=1, pos=0, attack=0, health=2)
    put(w, 0, side=1, lane=1, pos=0, attack=1, health=2)
    fight(w)
    assert w.c.health[0, 3] == 30 and hp(w, 0, 1, 1, 0) == 2 and hp(w, 0, 0, 1, 0) == 1


# -- unit removal ---------------------------------------------------------------------------

def test_destroyed_units_are_removed_only_after_the_lane_resolves(new_world, put, events):
    # lanes.md "Unit Removal": "Destroyed units are only removed after the entire lane resolves"
    # lanes.md: "Within a lane, all fights at each position are simultaneous"
    import esper

    w = new_world(1)
    put(w, 0, side=0, lane=0, pos=0, attack=1, health=5)  # lane 0 fights too (an unopposed hit)
    a = put(w, 0, side=0, lane=1, pos=0, attack=3, health=1)
    b = put(w, 0, side=1, lane=1, pos=0, attack=1, health=2)
    put(w, 0, side=0, lane=1, pos=1, attack=9, health=9)
    c = put(w, 0, side=0, lane=2, pos=0, attack=1, health=1)
    put(w, 0, side=1, lane=2, pos=0, attack=1, health=1)
    seen = []

    def on_combat(world, lane, batch):
        if lane == 1:  # the lane has resolved its damage; removal has not happened yet
            seen.append((int(world.g.board[0, 0, 1, 0]), int(world.g.board[0, 1, 1, 0]),
                         bool(world.c.dying[0, a]), bool(world.c.dying[0, b])))

    log = events("lanes.combat", "lanes.deaths")
    esper.set_handler("lanes.combat", on_combat)
    try:
        with events_of(w):  # the moment between a lane's damage and its removals
            Combat().process(w)
    finally:
        esper.remove_handler("lanes.combat", on_combat)
    assert seen == [(a, b, True, True)]
    assert w.g.board[0, :, 1, 0].tolist() == [-1, -1]
    assert not w.alive[0, a] and not w.alive[0, b]
    # round 1 resolves lane 0, 1, 2: each lane's dead leave before the next lane fights
    order = [(n, args[1] if n == "lanes.combat" else sorted(args[2].tolist())) for n, args in log["_order"]]
    assert [n for n, _ in order] == ["lanes.combat", "lanes.combat", "lanes.deaths", "lanes.combat", "lanes.deaths"]
    assert order[2][1] == sorted([a, b])
    assert len(order[4][1]) == 2 and c in order[4][1]


def test_empty_positions_stay_empty_no_shifting(new_world, put):
    # lanes.md: "Empty positions remain empty - units do not shift to fill gaps"
    w = new_world(1)
    put(w, 0, side=0, lane=2, pos=1, attack=1, health=1)
    survivor = put(w, 0, side=0, lane=2, pos=2, attack=1, health=5)
    put(w, 0, side=1, lane=2, pos=1, attack=1, health=5)
    fight(w)
    assert w.g.board[0, 0, 2].tolist() == [-1, -1, survivor, -1, -1]
    assert w.c.pos[0, survivor] == 2


def test_destroyed_lane_absorbs_nothing(new_world, put, set_anchor, events):
    # lanes.md: "When essence reaches 0 HP, that lane's objective is destroyed"
    # ledger (interpretation): attacks at a destroyed lane hit nothing (the damage is lost)
    def board():
        w = new_world(1)
        set_anchor(w, 0, side=1, lane=1, health=0, ruined=True)
        put(w, 0, side=0, lane=1, pos=0, attack=5, health=3)
        put(w, 0, side=0, lane=1, pos=1, attack=2, health=3)
        put(w, 0, side=1, lane=1, pos=1, attack=1, health=3)  # units still fight in that lane
        return w

    w = board()
    fight(w)
    assert w.c.ruined[0, 4] and w.c.health[0, 4] == 0
    assert hp(w, 0, 0, 1, 1) == 2 and hp(w, 0, 1, 1, 1) == 1
    assert hp(w, 0, 0, 1, 0) == 3
    assert (w.c.health[0, [3, 5]] == 30).all()  # no spill into other lanes
    w = board()
    log = events("lanes.combat")
    with events_of(w):  # the attacks themselves, as the compiled Combat posts them
        Combat().process(w)
    lane1 = [batch for _, lane, batch in log["lanes.combat"] if lane == 1][0]
    assert sorted(lane1.target.tolist()) == sorted(w.g.board[0, :, 1, 1].tolist())  # no attack on slot 4


def test_combat_pipeline_stages(new_world):
    # DESIGN.md "Damage pipeline": combat damage goes through one pipeline (health, anchors, deaths)
    names = [s.name for s in lanes_pipeline().stages]
    # health first, then anchors falling to essence, then death marks
    assert names.index("apply_health") < names.index("anchor_falls") < names.index("mark_dying")
    assert names[-1] == "mark_dying"


def test_units_persist_with_their_damage_between_rounds(new_world, put):
    # lanes.md "Units": "Persist on board until destroyed"
    # ledger (interpretation): damage stays on a unit between rounds (the rules name no healing)
    w = new_world(1)
    put(w, 0, side=0, lane=0, pos=2, attack=1, health=6)
    put(w, 0, side=1, lane=0, pos=2, attack=2, health=9)
    fight(w)
    w.g.round[:] = 2
    fight(w)
    assert hp(w, 0, 0, 0, 2) == 2 and hp(w, 0, 1, 0, 2) == 7

"""lanes.md "Game Setup", "Lane Rules", "Anchor & Essence System" and "Win Condition"."""

from __future__ import annotations

import numpy as np

from battlesim.ecs.decisions import make_agent
from battlesim.ecs.ruleset import get_ruleset
from battlesim.systems.lanes.compiled.processors import Combat, VictoryCheck
from battlesim.systems.lanes.state import END_REASONS, RUNNING


def combat_and_check(w):
    Combat().process(w)
    VictoryCheck().process(w)


def reason(w, b=0):
    return END_REASONS[int(w.g.end_reason[b])]


# -- the board -----------------------------------------------------------------------------

def test_board_is_two_sides_three_lanes_five_positions(game, new_world):
    # lanes.md: "Each player has 3 lanes with an anchor objective"
    # lanes.md: "Players choose the position (0 through 4)"; "Maximum 5 units per lane"
    w = new_world(4)
    assert w.g.board.shape == (4, 2, 3, 5)
    assert (w.g.board == -1).all()
    assert game.params.lanes == 3 and game.params.positions == 5
    # the play and deploy actions address exactly lanes 0-2 and positions 0-4
    A = game.actions
    assert (A.L, A.P) == (3, 5)
    assert A.n_play == game.params.hand_limit * 15 and A.n_deploy == 5 * 15


def test_each_side_has_one_anchor_of_30_hp_per_lane(new_world):
    # lanes.md: "Each player has 3 lanes with an anchor objective"; "Each anchor starts with 30 HP"
    w = new_world(3)
    anchors = np.flatnonzero(w.c.anchor[0])
    assert anchors.tolist() == [0, 1, 2, 3, 4, 5]
    for s in range(6):
        assert (w.c.owner[:, s] == s // 3).all()
        assert (w.c.lane[:, s] == s % 3).all()
        assert (w.c.health[:, s] == 30).all()
        assert (w.c.max_health[:, s] == 30).all()
    assert not w.c.essence.any() and not w.c.ruined.any()


def test_anchor_hp_and_essence_hp_are_parameters():
    # lanes.md: "Each anchor starts with 30 HP"; "Essence has 40 HP" (both data, not code)
    g = get_ruleset("lanes").load(params={"anchor_hp": 25, "essence_hp": 35})
    w = g.new_world(np.arange(1), ("red_vanguard", "blue_tide"), [make_agent("pass")] * 2)
    assert (w.c.health[0, :6] == 25).all()
    assert g.params.essence_hp == 35


# -- anchor -> essence -> destroyed --------------------------------------------------------

def test_unopposed_unit_damages_the_anchor(new_world, put):
    # lanes.md: "Anchors take damage from unopposed cards"
    w = new_world()
    put(w, 0, side=0, lane=1, pos=2, attack=4, health=3)
    combat_and_check(w)
    assert w.c.health[0, 3 + 1] == 26  # side 1's lane-1 anchor
    assert not w.c.essence[0, 4]
    assert w.g.winner[0] == RUNNING


def test_anchor_at_zero_becomes_a_40_hp_essence(new_world, put):
    # lanes.md: "When an anchor reaches 0 HP, it transforms into an essence"; "Essence has 40 HP"
    w = new_world()
    put(w, 0, side=1, lane=0, pos=0, attack=30, health=5)
    combat_and_check(w)
    assert w.c.essence[0, 0] and not w.c.ruined[0, 0]
    assert w.c.health[0, 0] == 40 and w.c.max_health[0, 0] == 40
    assert w.g.winner[0] == RUNNING  # one fallen anchor alone wins nothing


def test_no_damage_carries_over_from_anchor_to_essence(new_world, put, set_anchor):
    # ledger (interpretation): overkill on an anchor is lost; the essence starts at a full 40
    w = new_world()
    set_anchor(w, 0, side=1, lane=2, health=2)
    put(w, 0, side=0, lane=2, pos=0, attack=9, health=5)
    put(w, 0, side=0, lane=2, pos=4, attack=3, health=5)
    combat_and_check(w)
    assert w.c.essence[0, 5]
    assert w.c.health[0, 5] == 40


def test_essence_takes_damage_from_unopposed_units(new_world, put, set_anchor):
    # lanes.md: "Essence continues taking damage from unopposed cards"
    w = new_world()
    set_anchor(w, 0, side=1, lane=1, health=40, essence=True)
    put(w, 0, side=0, lane=1, pos=3, attack=6, health=1)
    combat_and_check(w)
    assert w.c.essence[0, 4] and w.c.health[0, 4] == 34 and not w.c.ruined[0, 4]


def test_essence_at_zero_destroys_the_lane_objective(new_world, put, set_anchor):
    # lanes.md: "When essence reaches 0 HP, that lane's objective is destroyed"
    w = new_world()
    set_anchor(w, 0, side=0, lane=2, health=3, essence=True)
    put(w, 0, side=1, lane=2, pos=1, attack=3, health=1)
    Combat().process(w)
    assert w.c.ruined[0, 2]
    assert w.c.health[0, 2] == 0


# -- win conditions --------------------------------------------------------------------------

def test_two_anchors_in_two_different_lanes_win(new_world, put, set_anchor):
    # lanes.md: "Win by either: - Destroying 2 anchors across 2 different lanes"
    w = new_world()
    set_anchor(w, 0, side=1, lane=0, health=5)
    set_anchor(w, 0, side=1, lane=2, health=5)
    put(w, 0, side=0, lane=0, pos=0, attack=5, health=1)
    put(w, 0, side=0, lane=2, pos=4, attack=7, health=1)
    combat_and_check(w)
    assert w.g.winner[0] == 0
    assert reason(w) == "two_anchors"
    assert not w.active[0]
    assert w.g.rounds[0] == 1


def test_an_essence_already_standing_counts_as_a_destroyed_anchor(new_world, put, set_anchor):
    # lanes.md: "Destroying 2 anchors across 2 different lanes" (one fell in an earlier round)
    w = new_world()
    set_anchor(w, 0, side=0, lane=1, health=40, essence=True)
    set_anchor(w, 0, side=0, lane=0, health=1)
    put(w, 0, side=1, lane=0, pos=2, attack=1, health=1)
    combat_and_check(w)
    assert w.g.winner[0] == 1 and reason(w) == "two_anchors"


def test_anchor_and_its_essence_in_one_lane_win(new_world, put, set_anchor):
    # lanes.md: "Destroying 1 anchor AND its essence in the same lane (full lane destruction)"
    w = new_world()
    set_anchor(w, 0, side=0, lane=1, health=2, essence=True)
    put(w, 0, side=1, lane=1, pos=0, attack=2, health=1)
    combat_and_check(w)
    assert w.g.winner[0] == 1
    assert reason(w) == "lane_destroyed"
    assert not w.active[0]


def test_win_is_checked_only_after_all_lanes_resolve(new_world, put, set_anchor):
    # lanes.md: "After all lanes resolve, check win condition"
    # Round 1 resolves lanes 0 -> 1 -> 2. Side 0 brings down anchors in lanes 0 and 1, side 1
    # in lanes 1 and 2. Checked after lane 1, side 0 would have won; checked after all lanes
    # both sides meet a condition. Lane 2 is still fought after side 0's second anchor fell.
    w = new_world()
    for side, lane in ((1, 0), (1, 1), (0, 1), (0, 2)):
        set_anchor(w, 0, side=side, lane=lane, health=1)
    put(w, 0, side=0, lane=0, pos=0, attack=1, health=1)
    put(w, 0, side=0, lane=1, pos=0, attack=1, health=1)
    put(w, 0, side=1, lane=1, pos=1, attack=1, health=1)
    put(w, 0, side=1, lane=2, pos=0, attack=1, health=1)
    Combat().process(w)
    assert w.c.essence[0, 2]  # lane 2 was fought
    assert w.g.winner[0] == RUNNING  # combat alone decides nothing
    VictoryCheck().process(w)
    # ledger (interpretation): both sides meeting a win condition in one check is a draw
    assert w.g.winner[0] == -1
    assert reason(w) == "simultaneous"


def test_both_lanes_destroyed_in_one_check_is_a_draw(new_world, put, set_anchor):
    # ledger (interpretation): both winners in one check -> draw "simultaneous"
    w = new_world()
    set_anchor(w, 0, side=0, lane=0, health=1, essence=True)
    set_anchor(w, 0, side=1, lane=2, health=1, essence=True)
    put(w, 0, side=1, lane=0, pos=0, attack=1, health=1)
    put(w, 0, side=0, lane=2, pos=0, attack=1, health=1)
    combat_and_check(w)
    assert w.g.winner[0] == -1 and reason(w) == "simultaneous"


def test_victory_check_runs_after_combat_in_the_schedule(game):
    # lanes.md "Phase 3": "After all lanes resolve, check win condition"; "Start new round if no winner"
    order = [(name, [type(s).__name__ for s in systems]) for name, systems in game.schedule._order]
    names = [n for n, _ in order]
    combat = dict(order)["combat"]
    assert combat == ["Combat", "VictoryCheck"]
    # a decided game plays no further phase: every later system masks by ``w.active``
    assert names.index("combat") < names.index("round_end")


def test_finished_game_stays_finished(new_world, put, set_anchor):
    # "Start new round if no winner": a decided game takes no further part in the batch
    w = new_world(2)
    set_anchor(w, 0, side=1, lane=0, health=1, essence=True)
    put(w, 0, side=0, lane=0, pos=0, attack=1, health=1)
    combat_and_check(w)
    assert w.active.tolist() == [False, True]
    before = w.g.round.copy()
    from battlesim.systems.lanes.compiled.processors import RoundEnd
    RoundEnd().process(w)
    assert w.g.round.tolist() == [before[0], before[1] + 1]
    assert w.g.winner[0] == 0 and w.g.rounds[0] == 1


# -- the round limit (not in the rules text) -------------------------------------------------

def test_round_limit_is_a_draw():
    # ledger (not in the rules): a game still running after `round_limit` rounds is a draw
    g = get_ruleset("lanes").load(params={"round_limit": 2})
    seeds = np.arange(6)
    res = g.play(seeds, ("red_vanguard", "blue_tide"), [make_agent("pass"), make_agent("pass")])
    assert (res["winner"] == -1).all()
    assert (res["end_reason"] == "round_limit").all()
    assert (res["rounds"] == 2).all()


def test_round_limit_defaults_to_50(game):
    # ledger: default round limit (data/rulesets/lanes.toml)
    assert game.params.round_limit == 50


def test_a_win_in_the_last_round_is_a_win_not_a_round_limit_draw(put, set_anchor):
    # lanes.md "Win Condition" is checked in the combat phase, before the round limit (ledger)
    g = get_ruleset("lanes").load(params={"round_limit": 1})
    w = g.new_world(np.arange(1), ("red_vanguard", "blue_tide"), [make_agent("pass")] * 2)
    set_anchor(w, 0, side=1, lane=1, health=1, essence=True)
    put(w, 0, side=0, lane=1, pos=4, attack=5, health=9)  # the pass agents' heroes go to position 1
    g.run(w)
    assert w.g.winner[0] == 0 and reason(w) == "lane_destroyed" and w.g.rounds[0] == 1

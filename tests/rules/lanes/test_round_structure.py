"""lanes.md "Round Structure", "Game Phases" (order), "Resource System", draw rules."""

from __future__ import annotations

from battlesim.systems.lanes.compiled.processors import DrawPhase, RefreshResources


def test_schedule_runs_the_phases_in_rule_order(game):
    # lanes.md "Game Phases": "Each round proceeds through these phases in order:
    # Phase 0: Creep Spawn, Phase 1: Hero Deployment, Phase 2: Play Phase, Phase 3: Combat Phase"
    # lanes.md "Round Start": "Creep Spawn Phase", "Draw Phase - Draw 1 card", "Resources refresh"
    # lanes.md: "After hero deployment, players draw their starting hand of 5 cards"
    # lanes.md "Phase 4: Shop Phase": "After combat, players visit the shop"
    # lanes.md "Effect Timings": "Start of Round - ... (after creep spawn, before play phase)"
    names = [p.name for p in game.schedule.phases]
    assert names == ["creep_spawn", "start_of_round", "hero_deployment", "draw", "resources", "play",
                     "combat", "shop", "round_end"]
    dep = dict(game.schedule._order)["hero_deployment"]
    assert [type(s).__name__ for s in dep] == ["HeroAvailability", "HeroDeployment"]


def test_round_order_as_seen_by_the_players(new_world, script):
    # lanes.md: "Creep spawns happen before hero deployment and the play phase"
    # lanes.md: "After hero deployment, players draw their starting hand of 5 cards"
    # lanes.md: "Resources refresh to current maximum" (round start, before the play phase)
    a, b = script(), script()
    w = new_world(1, agents=[a, b])
    w.schedule.run(w)  # round 1
    w.schedule.run(w)  # round 2
    dep = [c for c in a.calls if c["legal"][0, w.actions.deploy_slice].any()]
    play = [c for c in a.calls if c["in_play"][0]]
    r1_dep = [c for c in dep if c["round"][0] == 1]
    r1_play = [c for c in play if c["round"][0] == 1]
    r2_dep = [c for c in dep if c["round"][0] == 2]
    r2_play = [c for c in play if c["round"][0] == 2]
    assert len(r1_dep) == 3 and len(r2_dep) == 1
    # round 1, deployment: the three creeps already stand at position 0; hand still empty
    first = r1_dep[0]
    assert (first["board"][0, 0, :, 0] >= 0).all()
    assert (first["hand"][0, 0] < 0).all()
    assert first["max_resources"][0, 0] == 0
    # round 1, play: 5 cards in hand, 3 resources
    assert (r1_play[0]["hand"][0, 0] >= 0).sum() == 5
    assert r1_play[0]["resources"][0, 0] == 3
    # round 2, deployment: the new creep is already there, the draw and refresh are not
    assert (r2_dep[0]["hand"][0, 0] >= 0).sum() == 5
    assert r2_dep[0]["max_resources"][0, 0] == 3
    # round 2, play: one more card, 4 resources
    assert (r2_play[0]["hand"][0, 0] >= 0).sum() == 6
    assert r2_play[0]["resources"][0, 0] == 4 and r2_play[0]["max_resources"][0, 0] == 4


def test_round_one_starts_with_three_resources(new_world):
    # lanes.md: "Round 1 starts with 3 resources"
    w = new_world(2)
    RefreshResources().process(w)
    assert (w.g.resources == 3).all() and (w.g.max_resources == 3).all()


def test_maximum_resources_grow_by_one_per_round_up_to_ten(new_world):
    # lanes.md: "Maximum resources increase by 1 (cap: 10)"; table: 1 -> 3, 2 -> 4, 3 -> 5, 8+ -> 10
    w = new_world(1)
    seen = {}
    for r in range(1, 13):
        w.g.round[:] = r
        RefreshResources().process(w)
        seen[r] = int(w.g.max_resources[0, 0])
        assert w.g.max_resources[0, 1] == seen[r]
    assert seen == {1: 3, 2: 4, 3: 5, 4: 6, 5: 7, 6: 8, 7: 9, 8: 10, 9: 10, 10: 10, 11: 10, 12: 10}


def test_resources_fully_refill_and_unspent_ones_are_lost(new_world):
    # lanes.md: "Resources fully refill at round start"; "Unspent resources are lost at round end"
    w = new_world(1)
    w.g.round[:] = 3
    w.g.resources[0] = [0, 4]  # seat 0 spent everything, seat 1 kept 4
    RefreshResources().process(w)
    assert w.g.resources[0].tolist() == [5, 5]


def test_resources_over_a_played_game(new_world):
    # lanes.md "Resource System" table, observed through the schedule (rounds 1-9)
    w = new_world(1)
    seen = []
    for _ in range(9):
        w.schedule.run(w)
        seen.append(int(w.g.max_resources[0, 0]))
    assert w.active[0]  # two pass agents play ~20 rounds
    assert seen == [3, 4, 5, 6, 7, 8, 9, 10, 10]


def test_draw_phase_draws_one_card_from_the_top_of_the_deck(new_world):
    # lanes.md "Round Start": "Draw Phase - Draw 1 card"
    w = new_world(1)
    w.g.round[:] = 2
    DrawPhase().process(w)
    for seat in range(2):
        hand = w.g.hand[0, seat]
        assert (hand >= 0).sum() == 1
        assert hand[0] == w.g.deck[0, seat, 0]
        assert w.g.deck_top[0, seat] == 1
    DrawPhase().process(w)
    assert (w.g.hand[0, 0] >= 0).sum() == 2 and w.g.hand[0, 0, 1] == w.g.deck[0, 0, 1]


def test_starting_hand_replaces_round_one_draw(new_world):
    # lanes.md: "After hero deployment, players draw their starting hand of 5 cards"
    # ledger (interpretation): round 1 draws the starting hand only, not 5 + 1
    w = new_world(1)
    DrawPhase().process(w)
    for seat in range(2):
        assert (w.g.hand[0, seat] >= 0).sum() == 5
        assert w.g.hand[0, seat, :5].tolist() == w.g.deck[0, seat, :5].tolist()
        assert w.g.deck_top[0, seat] == 5


def test_empty_deck_draws_nothing(new_world):
    # ledger (interpretation): drawing from an empty deck draws nothing (no fatigue, no loss)
    w = new_world(1)
    w.g.round[:] = 30
    w.g.deck_top[0] = w.g.deck_size[0]
    DrawPhase().process(w)
    assert (w.g.hand[0] < 0).all()
    assert w.g.deck_top[0].tolist() == w.g.deck_size[0].tolist()
    assert (w.g.burned[0] == 0).all()
    assert w.active[0]


def test_hand_limit_ten_and_overdraw_is_burned(game, new_world):
    # ledger (not in the rules): hand limit 10; a card drawn into a full hand is burned
    assert game.params.hand_limit == 10
    w = new_world(1)
    w.g.round[:] = 2
    w.g.hand[0, 0] = w.g.deck[0, 0, 30:40]  # a full hand
    before = w.g.hand[0, 0].copy()
    DrawPhase().process(w)
    assert w.g.hand[0, 0].tolist() == before.tolist()
    assert w.g.burned[0].tolist() == [1, 0]
    assert w.g.deck_top[0].tolist() == [1, 1]  # the burned card left the deck


def test_inactive_games_do_not_advance(new_world):
    # A finished game is left alone by the round-start systems.
    w = new_world(2)
    w.active[1] = False
    DrawPhase().process(w)
    RefreshResources().process(w)
    assert (w.g.hand[1] < 0).all() and (w.g.resources[1] == 0).all()
    assert (w.g.hand[0] >= 0).sum() == 10

"""lanes.md "Hero Deployment Phase", "Phase 1: Hero Deployment", "Hero Death & Respawn"."""

from __future__ import annotations

import numpy as np

from battlesim.ecs.decisions import make_agent
from battlesim.systems.lanes.compiled.event_stream import events_of
from battlesim.systems.lanes.compiled.processors import Combat, CreepSpawn, HeroAvailability, HeroDeployment
from battlesim.systems.lanes.state import DEAD, LOCKED, ON_BOARD, READY


def deploy_calls(agent, actions, rnd=None):
    out = []
    for c in agent.calls:
        d = c["legal"][:, actions.deploy_slice]
        if d.any() and (rnd is None or c["round"][0] == rnd):
            out.append(c)
    return out


def legal_deploys(call, actions, i=0):
    """(heroes k, lanes, positions) offered in one decision, as sets."""
    A = actions
    d = call["legal"][i, A.deploy_slice].reshape(A.K, A.L, A.P)
    k, lane, pos = np.nonzero(d)
    return set(k.tolist()), set(lane.tolist()), set(pos.tolist())


def heroes_on_board(w, b, side):
    """{hero_index: (lane, pos)} of the side's heroes standing on the board."""
    s = np.flatnonzero(w.c.hero[b] & w.alive[b] & (w.c.owner[b] == side))
    return {int(w.c.hero_index[b, x]): (int(w.c.lane[b, x]), int(w.c.pos[b, x])) for x in s}


def start_round(w, deployment=HeroDeployment):
    CreepSpawn().process(w)
    HeroAvailability().process(w)
    deployment(w.actions).process(w)


# -- round 1 -------------------------------------------------------------------------------

def test_round_one_deploys_heroes_one_to_three_one_per_lane(game, new_world):
    # lanes.md: "Round 1: Heroes 1, 2, and 3 (deck slots 1-3) become available for deployment"
    # lanes.md: "Exactly 1 hero per lane is required"
    w = new_world(32)
    w.agents = [make_agent("random"), make_agent("random")]
    start_round(w)
    for b in range(32):
        for side in range(2):
            on = heroes_on_board(w, b, side)
            assert sorted(on) == [0, 1, 2]
            assert sorted(lane for lane, _ in on.values()) == [0, 1, 2]
        assert w.g.hero_status[b].tolist() == [[ON_BOARD] * 3 + [LOCKED] * 2] * 2


def test_round_one_three_steps_mid_then_random_sides_then_remaining(game, new_world, script):
    # lanes.md "Round 1 (Initial Deployment - Three Steps)":
    # "Step 1 (Mid): Both players choose which hero and position for Mid lane (1)"
    # "Step 2 (Random sides): System randomly assigns which player deploys Left (0) vs Right (2)"
    # "Step 3 (Remaining): Players deploy remaining hero to their remaining side lane"
    A = game.actions
    for seed in range(8):
        a, b = script(), script()
        w = new_world(1, agents=[a, b], seeds=[seed])
        start_round(w)
        left = int(w.g.left_side[0])
        for seat, agent in enumerate((a, b)):
            calls = deploy_calls(agent, A, rnd=1)
            assert len(calls) == 3
            lanes = [legal_deploys(c, A)[1] for c in calls]
            first_side = 0 if seat == left else 2
            assert lanes == [{1}, {first_side}, {2 - first_side}]
            # Heroes 1-3 only, and only the ones not deployed yet
            assert legal_deploys(calls[0], A)[0] == {0, 1, 2}
            assert len(legal_deploys(calls[1], A)[0]) == 2
            assert len(legal_deploys(calls[2], A)[0]) == 1


def test_round_one_side_assignment_is_random_per_game(new_world, events):
    # lanes.md: "System randomly assigns which player deploys Left (0) vs Right (2)"
    # lanes.md "Phase 1": "one player deploys Left (0), opponent deploys Right (2)"
    # ledger (interpretation): drawn from the game's own counter-based RNG
    w2 = new_world(64)
    start_round(w2)
    w = new_world(64)
    log = events("lanes.deploy")
    with events_of(w):  # the steps as the compiled deployment posts them, game by game
        start_round(w)
    left = w.g.left_side.copy()
    assert set(left.tolist()) == {0, 1}
    assert 16 <= int(left.sum()) <= 48
    assert w2.g.left_side.tolist() == left.tolist()  # same seeds, same assignment
    steps: dict[int, list] = {}
    for _, g, side, k, lane, pos in log["lanes.deploy"]:
        steps.setdefault(int(g[0]), []).append((int(side[0]), int(lane[0])))
    assert sorted(steps) == list(range(64))
    for g, placed in steps.items():
        assert len(placed) == 6  # 3 steps x 2 seats
        for i, (side, lane) in enumerate(placed):
            step = i // 2
            mine = left[g] == side
            want = {0: 1, 1: 0 if mine else 2, 2: 2 if mine else 0}[step]
            assert lane == want, f"game {g} step {step + 1}"


def test_deployment_steps_are_revealed_simultaneously(game, new_world, script):
    # lanes.md: "Both players choose ... → revealed simultaneously"
    # ledger (interpretation): each player chooses against the board as it was before the step
    A = game.actions
    a, b = script(), script()
    w = new_world(1, agents=[a, b])
    start_round(w)
    for agent in (a, b):
        for i, c in enumerate(deploy_calls(agent, A, rnd=1)):
            # before step i each side has exactly i heroes out: the opponent's choice in
            # the same step is not visible yet, whichever seat is asked first
            assert (c["hero_status"][0] == ON_BOARD).sum(axis=1).tolist() == [i, i]
            assert ((c["board"][0] >= 0).sum(axis=(1, 2))).tolist() == [3 + i, 3 + i]


def test_deployment_positions_are_the_players_choice(game, new_world, script):
    # lanes.md: "players choose hero and position"; "Players choose the position (0 through 4)
    # when playing a card or deploying a hero"; heroes "Occupy normal board positions (0-4)"
    A = game.actions
    picks = {1: (2, 1, 4), 0: (0, 0, 3), 2: (1, 2, 2)}  # lane -> (hero k, lane, pos)

    def choose(world, games, seat, legal):
        d = legal[0, A.deploy_slice].reshape(A.K, A.L, A.P)
        lane = int(np.nonzero(d.any(axis=(0, 2)))[0][0])
        k, l, p = picks[lane]
        if not d[k, l, p]:
            k = int(np.nonzero(d[:, l, p])[0][0])
        return [A.deploy(k, l, p)]

    a = script(choose)
    w = new_world(1, agents=[a, script()])
    start_round(w)
    calls = deploy_calls(a, A, rnd=1)
    assert legal_deploys(calls[0], A)[2] == {1, 2, 3, 4}  # position 0 holds the creep
    on = heroes_on_board(w, 0, 0)
    assert sorted(on.values()) == [(0, 3), (1, 4), (2, 2)]
    assert on[2] == (1, 4)


# -- rounds 2 and 3 ------------------------------------------------------------------------

def test_hero_four_in_round_two_and_hero_five_in_round_three_anywhere(game, new_world, put, script):
    # lanes.md "Round 2": "Hero 4 (deck slot 4) becomes available"; "Player chooses any lane/position"
    # lanes.md "Round 3": "Hero 5 (deck slot 5) becomes available"
    A = game.actions
    a, b = script(), script()
    w = new_world(1, agents=[a, b])
    w.g.hero_status[0] = [ON_BOARD, ON_BOARD, ON_BOARD, LOCKED, LOCKED]
    put(w, 0, side=0, lane=1, pos=2, attack=1, health=1)
    for rnd, k in ((2, 3), (3, 4)):
        w.g.round[:] = rnd
        HeroAvailability().process(w)
        assert w.g.hero_status[0, :, k].tolist() == [READY, READY]
        HeroDeployment(A).process(w)
        for seat, agent in enumerate((a, b)):
            calls = deploy_calls(agent, A, rnd=rnd)
            assert len(calls) == 1
            assert legal_deploys(calls[0], A)[0] == {k}
            # any lane, any position: exactly the empty cells of the player's side
            free = calls[0]["board"][0, seat] < 0
            d = calls[0]["legal"][0, A.deploy_slice].reshape(A.K, A.L, A.P)
            assert (d[k] == free).all()
            assert free.sum() == (14 if seat == 0 else 15) - (rnd - 2)
        assert w.g.hero_status[0, :, k].tolist() == [ON_BOARD, ON_BOARD]
    assert w.g.hero_status[0].tolist() == [[ON_BOARD] * 5] * 2


def test_all_five_heroes_are_out_after_round_three(new_world):
    # lanes.md "After Round 3": "All 5 heroes have been deployed"
    w = new_world(16)
    for _ in range(3):
        w.schedule.run(w)
    assert w.active.all()
    assert not (w.g.hero_status == LOCKED).any()
    assert not (w.g.hero_status == READY).any()  # every hero is out (or dead and waiting)


def test_no_deployment_after_round_three_without_respawns(game, new_world, script):
    # lanes.md "After Round 3 (Respawn Only)": "Only occurs if heroes are ready to respawn"
    A = game.actions
    a = script()
    w = new_world(1, agents=[a, script()])
    for _ in range(3):
        w.schedule.run(w)
    w.g.hero_status[0] = ON_BOARD
    n = len(a.calls)
    HeroAvailability().process(w)
    HeroDeployment(A).process(w)
    assert len(a.calls) == n


def test_deployment_is_mandatory_when_a_cell_is_free(game, new_world, script):
    # ledger, interpretation 13: a READY hero with a free cell must deploy (pass is not offered),
    # resting on lanes.md: "After Round 3: - All 5 heroes have been deployed" and
    # lanes.md: "Players choose any lane/position for respawning heroes" (a choice of place, not of whether)
    A = game.actions
    a = script()
    w = new_world(1, agents=[a, script()])
    w.schedule.run(w)
    w.schedule.run(w)
    for c in deploy_calls(a, A):
        assert not c["legal"][0, 0]
        assert not c["legal"][0, A.play_slice].any()


def test_hero_with_no_free_cell_waits(game, new_world, put, script):
    # lanes.md: "Heroes ... count toward the 5-unit lane limit"
    # ledger (interpretation): a READY hero with no free cell on its side waits, still READY
    A = game.actions
    a = script()
    w = new_world(1, agents=[a, script()])
    w.g.round[:] = 2
    w.g.hero_status[0] = [ON_BOARD, ON_BOARD, ON_BOARD, LOCKED, LOCKED]
    for lane in range(3):
        for pos in range(5):
            put(w, 0, side=0, lane=lane, pos=pos, attack=1, health=1)
    HeroAvailability().process(w)
    HeroDeployment(A).process(w)
    assert a.calls == []
    assert w.g.hero_status[0, 0, 3] == READY
    assert w.g.hero_status[0, 1, 3] == ON_BOARD  # the other seat had room
    # a cell frees up: the waiting hero deploys there next time
    from battlesim.systems.lanes import board

    board.remove(w, np.array([0]), np.array([w.g.board[0, 0, 2, 3]]))
    w.g.round[:] = 3
    HeroAvailability().process(w)
    HeroDeployment(A).process(w)
    assert heroes_on_board(w, 0, 0) == {3: (2, 3)}
    assert len(deploy_calls(a, A)) == 1


# -- death and respawn ---------------------------------------------------------------------

def kill_hero_in_combat(w, put, side=0, k=0, lane=0, pos=0):
    """Round-4 board: side's hero k at (lane, pos) with 2 HP facing a 5-attack enemy."""
    w.g.round[:] = 4
    w.g.hero_status[0] = ON_BOARD
    slot = put(w, 0, side=side, lane=lane, pos=pos, attack=1, health=2, hero=True, hero_index=k, max_health=7)
    put(w, 0, side=1 - side, lane=lane, pos=pos, attack=5, health=9)
    Combat().process(w)
    return slot


def test_killed_hero_enters_a_one_round_death_timer(game, new_world, put):
    # lanes.md "Hero Death & Respawn": "The hero enters a 1-round death timer"
    # lanes.md: "At the start of the following round, the hero becomes available for redeployment"
    w = new_world(1)
    kill_hero_in_combat(w, put, side=0, k=1)
    assert heroes_on_board(w, 0, 0) == {}
    assert w.g.hero_status[0, 0, 1] == DEAD
    HeroAvailability().process(w)  # still round 4: not yet
    assert w.g.hero_status[0, 0, 1] == DEAD
    w.g.round[:] = 5
    HeroAvailability().process(w)
    assert w.g.hero_status[0, 0, 1] == READY
    assert w.g.hero_status[0, 0].tolist() == [ON_BOARD, READY, ON_BOARD, ON_BOARD, ON_BOARD]


def test_redeployed_hero_returns_anywhere_with_full_health(game, new_world, put, script):
    # lanes.md: "the player can redeploy the hero to any lane"; "Redeployed heroes return with full health"
    # lanes.md "After Round 3": "Players choose any lane/position for respawning heroes"
    A = game.actions
    a = script(lambda world, games, seat, legal: [A.deploy(0, 2, 4)])
    w = new_world(1, agents=[a, script()])
    kill_hero_in_combat(w, put, side=0, k=0, lane=0, pos=1)
    w.g.round[:] = 5
    HeroAvailability().process(w)
    HeroDeployment(A).process(w)
    k, lanes, _ = legal_deploys(a.calls[0], A)
    assert k == {0} and lanes == {0, 1, 2}
    on = heroes_on_board(w, 0, 0)
    assert on == {0: (2, 4)}
    s = w.g.board[0, 0, 2, 4]
    card = w.g.hero_card[0, 0, 0]
    assert w.c.card_id[0, s] == card
    assert w.c.health[0, s] == game.cards.catalog.arrays.health[card] == 7
    assert w.c.max_health[0, s] == 7
    assert w.g.hero_status[0, 0, 0] == ON_BOARD


def test_respawning_hero_deploys_in_round_two_alongside_hero_four(game, new_world, put, script):
    # lanes.md "Round 2": "Respawning heroes can also be deployed this round"
    A = game.actions
    a = script()
    w = new_world(1, agents=[a, script()])
    w.g.round[:] = 1
    w.g.hero_status[0] = [ON_BOARD, DEAD, ON_BOARD, LOCKED, LOCKED]
    w.g.hero_ready_round[0, 0, 1] = 2
    w.g.round[:] = 2
    HeroAvailability().process(w)
    assert w.g.hero_status[0, 0].tolist() == [ON_BOARD, READY, ON_BOARD, READY, LOCKED]
    HeroDeployment(A).process(w)
    calls = deploy_calls(a, A)
    assert len(calls) == 2
    assert legal_deploys(calls[0], A)[0] == {1, 3}
    assert sorted(heroes_on_board(w, 0, 0)) == [1, 3]


def test_death_timer_is_a_parameter(new_world, put):
    # lanes.md: "1-round death timer" as data (hero_death_timer)
    w = new_world(1)
    assert w.params.hero_death_timer == 1
    kill_hero_in_combat(w, put, side=1, k=4, lane=2, pos=3)
    assert w.g.hero_status[0, 1, 4] == DEAD
    assert w.g.hero_ready_round[0, 1, 4] == 5


def test_later_rounds_reveal_all_choices_at_once(game, new_world, script):
    # lanes.md "Round 2 (Simultaneous Reveal)": "Respawning heroes can also be deployed this
    # round"; "Both submit → all revealed at once"; "After Round 3": "Both submit → all revealed at once"
    # With two heroes to place (hero 4 and a respawning hero), no choice of the phase may see
    # an opponent's hero placed in the same phase.
    A = game.actions
    a, b = script(), script()
    w = new_world(1, agents=[a, b])
    w.g.round[:] = 2
    w.g.hero_status[0] = [ON_BOARD, DEAD, ON_BOARD, LOCKED, LOCKED]
    w.g.hero_ready_round[0, :, 1] = 2
    HeroAvailability().process(w)
    HeroDeployment(A).process(w)
    for seat, agent in enumerate((a, b)):
        calls = deploy_calls(agent, A, rnd=2)
        assert len(calls) == 2
        for c in calls:
            opp = c["board"][0, 1 - seat]
            assert (opp < 0).all(), f"seat {seat} saw the opponent's new hero before submitting"
    assert sorted(heroes_on_board(w, 0, 0)) == [1, 3] and sorted(heroes_on_board(w, 0, 1)) == [1, 3]

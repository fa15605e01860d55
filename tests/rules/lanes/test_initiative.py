"""lanes.md "Initiative System", "Turn Order" and the turn rules of "Phase 2: Play Phase".

Ledger (interpretation): strict alternation; the initiative holder opens each play phase.
"""

from __future__ import annotations

import numpy as np

from battlesim.ecs.decisions import make_agent
from battlesim.systems.lanes.compiled.processors import PlayPhase

RECRUIT = "Cinder Recruit"  # Red, cost 1
PIKEMAN = "Ostland Pikeman"  # Blue


def play_world(new_world, put, script, s0, s1, initiative, n_cards=4):
    """Both seats hold ``n_cards`` cheap cards, a matching hero in lane 0 and 10 resources."""
    a, b = script.playing(*s0), script.playing(*s1)
    w = new_world(1, agents=[a, b])
    cat = w.catalog
    w.g.hand[0, 0, :n_cards] = cat.id(RECRUIT)
    w.g.hand[0, 1, :n_cards] = cat.id(PIKEMAN)
    w.g.resources[0] = 10
    put(w, 0, side=0, lane=0, pos=0, attack=4, health=7, hero=True)
    put(w, 0, side=1, lane=0, pos=0, attack=3, health=8, hero=True)
    w.g.initiative[0] = initiative
    return w, a, b


def order(a, b):
    """Seats in the order they acted, from the agents' call logs."""
    calls = [(c, 0) for c in a.calls] + [(c, 1) for c in b.calls]
    return [seat for c, seat in sorted(calls, key=lambda x: x[0]["_n"])]


def numbered(script):
    """A Script subclass that stamps each call with a global sequence number."""
    counter = iter(range(10**9))

    class N(script):
        def act(self, world, games, seat, legal):
            out = super().act(world, games, seat, legal)
            self.calls[-1]["_n"] = next(counter)
            return out

    return N


def test_initiative_is_random_at_the_start(new_world):
    # lanes.md: "At the start of the game, initiative is randomly assigned to one player"
    w = new_world(200)
    init = w.g.initiative
    assert set(init.tolist()) == {0, 1}
    assert 70 <= int(init.sum()) <= 130
    assert (w.g.first_player == init).all()
    again = new_world(200)
    assert again.g.initiative.tolist() == init.tolist()  # drawn from each game's seed


def test_first_player_column_reports_the_starting_initiative(game):
    # lanes.md: "At the start of the game, initiative is randomly assigned"
    seeds = np.arange(40)
    res = game.play(seeds, ("red_vanguard", "blue_tide"), [make_agent("random"), make_agent("random")])
    w = game.new_world(seeds, ("red_vanguard", "blue_tide"), [make_agent("pass")] * 2)
    assert res["first_player"].tolist() == w.g.initiative.tolist()


def test_initiative_holder_acts_first(game, new_world, put, script):
    # lanes.md: "The player with initiative acts first each turn"
    # lanes.md: "Players alternate turns throughout the Play Phase based on initiative"
    S = numbered(script)
    for holder in (0, 1):
        w, a, b = play_world(new_world, put, S, [0], [0], holder)
        PlayPhase(game.actions).process(w)
        assert order(a, b) == [holder, 1 - holder]


def test_two_consecutive_passes_end_the_phase_and_keep_initiative(game, new_world, put, script):
    # lanes.md: "Phase continues until both players pass consecutively"
    # lanes.md: "Passing does NOT pass initiative (you keep it and act first again)"
    S = numbered(script)
    w, a, b = play_world(new_world, put, S, [0], [0], 1)
    PlayPhase(game.actions).process(w)
    assert order(a, b) == [1, 0]
    assert w.g.initiative[0] == 1
    assert not w.g.in_play[0]


def test_playing_a_card_passes_initiative_and_ends_the_turn(game, new_world, put, script):
    # lanes.md: "Playing a card passes initiative to the opponent (they act first next turn)"
    # lanes.md: "Playing a card automatically ends your turn"
    A = game.actions
    S = numbered(script)
    w, a, b = play_world(new_world, put, S, [A.play(0, 0, 1), 0], [0], 0)
    PlayPhase(A).process(w)
    assert order(a, b) == [0, 1, 0]
    assert a.calls[1]["initiative"][0] == 1 and b.calls[0]["initiative"][0] == 1
    assert w.g.initiative[0] == 1
    assert (w.g.board[0, 0, 0, 1] >= 0)


def test_pass_then_opponent_plays_gives_another_turn(game, new_world, put, script):
    # lanes.md: "If Player A passes, then Player B plays a card, Player A gets another turn"
    A = game.actions
    S = numbered(script)
    # A = seat 0 (initiative) passes, B plays, A acts again and plays, B passes, A passes
    w, a, b = play_world(new_world, put, S, [0, A.play(0, 0, 2), 0], [A.play(0, 0, 1), 0], 0)
    PlayPhase(A).process(w)
    assert order(a, b) == [0, 1, 0, 1, 0]
    assert w.g.board[0, 1, 0, 1] >= 0 and w.g.board[0, 0, 0, 2] >= 0
    # B played, then A played: initiative went to A, then back to B; passes keep it with B
    assert w.g.initiative[0] == 1


def test_a_pass_by_the_new_holder_gives_the_opponent_the_next_turn(game, new_world, put, script):
    # ledger, interpretation 3 (strict alternation), resting on
    # lanes.md: "Passing allows the opponent to take another turn but keeps initiative" and
    # lanes.md: "Players alternate turns (Player 1 → Player 2 → Player 1 → ...)":
    # seat 0 (initiative) plays, so seat 1 holds it; seat 1 passes and keeps it, and the next
    # turn is seat 0's, not a second one of the holder (the reading "the holder acts first in
    # every turn" would give seat 1 two turns in a row here)
    A = game.actions
    S = numbered(script)
    w, a, b = play_world(new_world, put, S, [A.play(0, 0, 1), 0], [0], 0)
    PlayPhase(A).process(w)
    assert order(a, b) == [0, 1, 0]  # then seat 0's pass is the second in a row: the phase ends
    assert a.calls[1]["initiative"][0] == 1  # seat 0 acts while seat 1 holds the initiative
    assert w.g.initiative[0] == 1


def test_non_consecutive_passes_do_not_end_the_phase(game, new_world, put, script):
    # lanes.md: "Phase continues until both players pass consecutively"
    A = game.actions
    S = numbered(script)
    w, a, b = play_world(new_world, put, S,
                         [A.play(0, 0, 1), A.play(1, 0, 2), 0],
                         [0, 0, A.play(0, 0, 3), 0], 1)
    # seat 1 passes, seat 0 plays, seat 1 passes, seat 0 plays, seat 1 plays, seat 0 passes, seat 1 passes
    PlayPhase(A).process(w)
    assert order(a, b) == [1, 0, 1, 0, 1, 0, 1]
    assert w.g.initiative[0] == 0  # the last card played was seat 1's
    assert (w.g.board[0, 0, 0, 1:3] >= 0).all() and w.g.board[0, 1, 0, 3] >= 0


def test_initiative_carries_over_between_rounds(game, new_world, put, script):
    # lanes.md: "Initiative carries over between rounds - whoever has it at round end keeps it"
    # lanes.md: "Since initiative carries over, players who pass to end a round maintain their advantage"
    A = game.actions
    S = numbered(script)
    w, a, b = play_world(new_world, put, S, [A.play(0, 0, 1), 0, 0, 0], [0, 0, 0], 0)
    PlayPhase(A).process(w)  # seat 0 plays: seat 1 holds initiative at round end
    assert w.g.initiative[0] == 1
    n = len(a.calls) + len(b.calls)
    PlayPhase(A).process(w)  # the next round's play phase
    assert order(a, b)[n:] == [1, 0]
    assert w.g.initiative[0] == 1


def test_initiative_survives_the_rest_of_the_round(new_world):
    # lanes.md: "whoever has it at round end keeps it for next round" — only plays move it
    w = new_world(64, agents=[make_agent("random"), make_agent("random")])
    moved = 0
    for _ in range(4):
        for name, systems in w.schedule._order:
            before = w.g.initiative.copy()
            for s in systems:
                s.process(w)
            if name == "play":
                moved += int((w.g.initiative != before).sum())
            else:
                assert (w.g.initiative == before).all(), name
    assert moved > 0


def test_random_games_respect_turn_alternation(game, new_world):
    # lanes.md: "Players alternate turns (Player 1 → Player 2 → Player 1 → ...)"
    # lanes.md: "Phase continues until both players pass consecutively"
    # lanes.md "Action Keywords": "Quickcast - Playing this card/ability does not end your turn";
    # a card's target is chosen by the same player in the same turn ("Select targets (if required)")
    from battlesim.ecs.decisions import RandomAgent

    A = game.actions
    cat = game.cards.catalog.arrays
    log = []

    class Rec(RandomAgent):
        def act(self, world, games, seat, legal):
            out = super().act(world, games, seat, legal)
            for i, (g, x) in enumerate(zip(games, out)):
                if not world.g.in_play[g]:
                    continue  # deployment and shop decisions
                target = not legal[i, 0]  # only a pending target may not be passed
                block = list(A.slices)[int(A.block(np.array(x))) - 1] if x else "pass"
                quick = False
                if target:
                    quick = bool(world.g.pending_free[g])
                elif block == "play":
                    h, _, _ = A.decode_play(np.array(x))
                    quick = bool(cat.quickcast[world.g.hand[g, seat, int(h)]])
                elif block == "ability":
                    lane, pos = A.decode_ability(np.array(x))
                    quick = bool(cat.ability_quickcast[world.c.card_id[g, world.g.board[g, seat, lane, pos]]])
                elif block == "activate":
                    lane, k = A.decode_activate(np.array(x))
                    quick = bool(cat.ability_quickcast[world.c.card_id[g, world.g.improvements[g, seat, lane, k]]])
                log.append((int(world.g.round[g]), int(g), seat, int(x), target, quick))
            return out

    w = new_world(16, agents=[Rec(), Rec()])
    for _ in range(3):
        w.schedule.run(w)
    by_game = {}
    for rnd, g, seat, x, target, quick in log:
        by_game.setdefault((g, rnd), []).append((seat, x, target, quick))
    assert len(by_game) >= 40
    for key, turns in by_game.items():
        for (seat, x, _, quick), (nseat, _, ntarget, _) in zip(turns, turns[1:]):
            if ntarget:
                assert nseat == seat and x != 0, (key, turns)
            elif x == 0:
                assert nseat != seat, (key, turns)
            else:
                assert (nseat == seat) == quick, (key, turns)
        assert [x for _, x, _, _ in turns[-2:]] == [0, 0]  # ended by two consecutive passes
        assert turns[-1][0] != turns[-2][0]
        passes = [x == 0 for _, x, _, _ in turns]
        assert not any(passes[i] and passes[i + 1] for i in range(len(passes) - 2)), (key, turns)

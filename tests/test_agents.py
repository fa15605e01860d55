"""The lanes heuristic agents (issue 4 "Agents"): legal on every decision, deterministic per
seed whatever the batch, and stronger than random."""

import numpy as np
import pytest

import battlesim.systems.lanes.agents  # noqa: F401  (registers "greedy")
from battlesim.ecs.balance.stats import wilson
from battlesim.ecs.decisions import agent_names, make_agent


class Counting:
    """Wraps an agent and checks/counts every decision it makes."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name
        self.decisions = 0

    def act(self, world, games, seat, legal):
        actions = self.inner.act(world, games, seat, legal)
        assert actions.shape == (games.size,)
        assert legal[np.arange(games.size), actions].all()
        self.decisions += games.size
        return actions


def test_registered():
    assert "greedy" in agent_names()
    assert make_agent("greedy").name == "greedy"


@pytest.mark.parametrize("greedy_seat", [0, 1])
def test_greedy_plays_legal_actions(lanes, greedy_seat):
    greedy = Counting(make_agent("greedy"))
    agents = [make_agent("random"), make_agent("random")]
    agents[greedy_seat] = greedy
    cols = lanes.play(np.arange(200), lanes.default_decks(), agents)
    assert greedy.decisions > 2_000
    assert (np.asarray(cols["winner"]) >= -1).all()


def test_greedy_vs_greedy_legal(lanes):
    a, b = Counting(make_agent("greedy")), Counting(make_agent("greedy"))
    lanes.play(np.arange(100), ("red_black_raiders", "green_grove"), [a, b])
    assert a.decisions > 500 and b.decisions > 500


def test_greedy_deterministic_across_batch_sizes(lanes):
    decks = lanes.default_decks()
    seeds = np.arange(100, 164)
    batch = lanes.play(seeds, decks, [make_agent("greedy"), make_agent("random")])
    again = lanes.play(seeds, decks, [make_agent("greedy"), make_agent("random")])
    for key in ("winner", "rounds", "end_reason"):
        np.testing.assert_array_equal(np.asarray(batch[key]), np.asarray(again[key]))
    for i in range(0, 64, 4):  # batch size 1 for a sample of the seeds
        one = lanes.play(seeds[i:i + 1], decks, [make_agent("greedy"), make_agent("random")])
        for key in batch:
            assert np.asarray(one[key])[0] == np.asarray(batch[key])[i], (key, int(seeds[i]))


def test_greedy_beats_random(lanes):
    decks = lanes.default_decks()
    seeds = np.arange(1000, 1150)
    wins = decided = 0
    for greedy_seat in (0, 1):
        agents = [make_agent("random"), make_agent("random")]
        agents[greedy_seat] = make_agent("greedy")
        winner = np.asarray(lanes.play(seeds, decks, agents)["winner"])
        wins += int((winner == greedy_seat).sum())
        decided += int((winner >= 0).sum())
    low, _ = wilson(wins, decided)
    assert low > 0.5, (wins, decided)


def test_lookahead_legal_and_deterministic(lanes):
    decks = lanes.default_decks()
    seeds = np.arange(300, 308)
    look = Counting(make_agent("lookahead"))
    batch = lanes.play(seeds, decks, [look, make_agent("random")])
    assert look.decisions > 100
    for i in (0, 5):
        one = lanes.play(seeds[i:i + 1], decks, [make_agent("lookahead"), make_agent("random")])
        for key in batch:
            assert np.asarray(one[key])[0] == np.asarray(batch[key])[i], (key, int(seeds[i]))


def test_subset_world_leaves_the_original_alone(lanes):
    from battlesim.systems.lanes.agents import subset_world

    w = lanes.new_world(np.arange(4), lanes.default_decks(), [])
    before = {k: v.copy() for k, v in vars(w.g).items()}
    sub = subset_world(w, np.array([2, 2, 0]))
    sub.g.gold[:] += 7
    sub.c.health[:] += 1
    assert sub.n_games == 3 and (sub.seeds == np.array([2, 2, 0])).all()
    for k, v in vars(w.g).items():
        np.testing.assert_array_equal(v, before[k])
    assert (w.c.health[w.alive] > 0).all() and not (sub.c.health[:, :6] == w.c.health[[2, 2, 0], :6]).any()


def test_sparse_noise_is_the_full_draw(lanes):
    """The tie-break noise drawn for the legal entries only equals those entries of the full
    draw, and advances every listed game's counter by the table size, as the full draw does."""
    from battlesim.ecs.rng import Stream
    from battlesim.systems.lanes.agents import _noise

    w = lanes.new_world(np.arange(10), lanes.default_decks(), [])
    games = np.array([1, 4, 5, 9])
    legal = np.random.default_rng(0).random((4, 50)) < 0.2
    legal[:, 0] = True
    r, a = np.nonzero(legal)
    w.rng.counter[:] = np.arange(10, dtype=np.uint64) * 7
    before = w.rng.counter.copy()
    got = _noise(w.rng, games, 50, r, a, Stream.AGENT)
    after = w.rng.counter.copy()
    w.rng.counter[:] = before
    full = w.rng.uniform(games, 50, Stream.AGENT)
    np.testing.assert_array_equal(got, full[r, a])
    np.testing.assert_array_equal(after, w.rng.counter)


def test_greedy_scores_per_row_seat_match_per_seat_calls(lanes):
    """Asking greedy once for both seats (as lookahead rollouts do) gives each row the same
    scores as asking each seat for its own rows."""
    from battlesim.systems.lanes.agents import GreedyAgent
    from battlesim.systems.lanes.play import PlayPhase

    w = lanes.new_world(np.arange(64), lanes.default_decks(), [make_agent("greedy"), make_agent("greedy")])
    for p in lanes.schedule.phases:  # to the play phase of round 1
        if p.name == "play":
            break
        for s in p.ordered():
            s.process(w)
    phase = PlayPhase(w.actions)
    phase.begin(w)
    greedy = GreedyAgent()
    for _ in range(6):
        games = np.flatnonzero(phase.pending(w) & w.active)
        actor, legal = phase.request(w, games)
        both = greedy.scores(w, games, actor, legal)
        for seat in (0, 1):
            sel = actor == seat
            np.testing.assert_array_equal(both[sel], greedy.scores(w, games[sel], seat, legal[sel]))
        phase.apply(w, games, actor, w.decide(games, actor, legal))


@pytest.mark.parametrize("decks", [("red_vanguard", "blue_tide"), ("red_black_raiders", "green_grove")])
def test_lookahead_rollout_reuse_changes_nothing(lanes, decks):
    """Against greedy, lookahead reuses the rollout of the candidate it took; the games are the
    same as without the reuse."""
    seeds = np.arange(40, 72)
    with_memo = make_agent("lookahead")
    without = make_agent("lookahead")
    without._memo = lambda world, seat: None
    a = lanes.play(seeds, decks, [with_memo, make_agent("greedy")])
    b = lanes.play(seeds, decks, [without, make_agent("greedy")])
    for key in a:
        np.testing.assert_array_equal(np.asarray(a[key]), np.asarray(b[key]), err_msg=key)

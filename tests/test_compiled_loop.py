"""The compiled game loop (ecs/compiled/loop.py, systems/lanes/compiled/{game,loop}.py;
docs/compiled-core.md "The game loop"): ``play_batch`` plays the games the numpy schedule plays,
row for row (games and cards tables); a Python agent through the step API plays the games the
compiled agent plays; a game's result does not depend on its batch.

The golden tables (bench/golden.py) check the same at scale; these are the small, fast twins."""

from __future__ import annotations

import numpy as np
import pytest

from battlesim.ecs.compiled import loop as cl
from battlesim.ecs.decisions import make_agent
from battlesim.ecs.plugin import extend
from battlesim.ecs.rng import Stream
from battlesim.ecs.threads import THREADS_ENV, blocks, threads
from battlesim.systems.lanes.compiled import loop as ll
from battlesim.systems.lanes.ruleset import RULESET


@pytest.fixture(scope="module")
def game():
    return RULESET.load()


def _tables(game, w, decks, agents):
    return game.results(w, decks, agents), game.card_rows(w)


def _same(a, b) -> list[str]:
    return [f"{t}.{k}" for t, (x, y) in enumerate(zip(a, b)) for k in x if not np.array_equal(x[k], y[k])]


@pytest.mark.parametrize("names,decks", [
    (("random", "random"), None),
    (("random", "random"), ("red_black_raiders", "green_grove")),
    (("greedy", "greedy"), None),
    (("greedy", "random"), ("blue_tide", "black_covenant")),
    (("pass", "random"), None),
    (("lookahead", "greedy"), None),  # numpy keeps lookahead's memo: a plain greedy opponent
    (("random", "lookahead"), ("blue_tide", "black_covenant")),  # no memo
])
def test_play_batch_plays_the_games_the_schedule_plays(game, names, decks):
    decks = decks or game.default_decks()
    agents = [make_agent(n) for n in names]
    seeds = np.arange(100, 106 if "lookahead" in names else 124, dtype=np.int64)  # numpy's lookahead is slow
    assert ll.compiled_agents(agents)
    looped = game.new_world(seeds, decks, agents)
    ll.play_batch(game, looped)
    scheduled = game.new_world(seeds, decks, agents)
    game.run(scheduled)
    assert not looped.active.any()
    assert _same(_tables(game, looped, decks, agents), _tables(game, scheduled, decks, agents)) == []
    assert np.array_equal(looped.rng.counter, scheduled.rng.counter)  # every draw, the agents' included


class PythonRandom:
    """A Python agent (no compiled twin): uniform over the legal row, from the game's own RNG, as
    a notebook would write it. It counts what it was asked."""

    name = "python-random"

    def __init__(self) -> None:
        self.asked = 0

    def act(self, world, games, seat, legal):
        self.asked += len(games)
        return world.rng.choice(games, legal, Stream.AGENT)


def test_a_python_agent_through_the_step_api_plays_the_compiled_agents_games(game):
    decks = game.default_decks()
    seeds = np.arange(7, 27, dtype=np.int64)
    py = [PythonRandom(), PythonRandom()]
    assert not ll.compiled_agents(py) and list(ll.agent_codes(py)) == [0, 0]
    w_py = game.new_world(seeds, decks, py)
    ll.play_batch(game, w_py)
    compiled = [make_agent("random"), make_agent("random")]
    w_c = game.new_world(seeds, decks, compiled)
    ll.play_batch(game, w_c)
    assert py[0].asked > 0 and py[1].asked > 0
    assert _same(_tables(game, w_py, decks, compiled), _tables(game, w_c, decks, compiled)) == []
    assert np.array_equal(w_py.rng.counter, w_c.rng.counter)


def test_the_step_api_stops_at_each_decision_of_a_python_agent(game):
    """``advance`` returns the games waiting for a Python agent with their legal rows and seats;
    ``advance`` with the answers goes on (the shop: the first system the loop asks in)."""
    decks = game.default_decks()
    w = game.new_world(np.arange(3, dtype=np.int64), decks, [PythonRandom(), PythonRandom()])
    names = [s.name for _, specs in extend("lanes").schedule_specs() for s in specs]
    shop = names.index("ShopPhase")
    L = ll.loop_args(w)
    games = np.arange(3, dtype=np.int64)
    L.pc[:, cl.PC_SYSTEM] = shop
    waiting = ll.advance(w, games, shop + 1)
    assert list(waiting) == [0, 1, 2]
    actor, legal = ll.pending(w, waiting)
    assert list(actor) == [0, 0, 0] and legal[:, 0].all()  # seat 0 first; "done" is always legal
    asked = 0
    while waiting.size:
        actor, legal = ll.pending(w, waiting)
        waiting = ll.advance(w, waiting, shop + 1, np.zeros(waiting.size, dtype=np.int64))  # done
        asked += 1
    assert asked == 2  # seat 0, then seat 1
    assert (L.pc[:, cl.PC_STATUS] == cl.STOPPED).all() and (L.pc[:, cl.PC_SYSTEM] == shop + 1).all()
    assert w.g.shop_done.all()


def test_a_games_result_does_not_depend_on_its_batch(game):
    decks = game.default_decks()
    agents = [make_agent("greedy"), make_agent("random")]
    seeds = np.array([11, -5, 2**40, 0], dtype=np.int64)
    w = game.new_world(seeds, decks, agents)
    ll.play_batch(game, w)
    whole = game.results(w, decks, agents)
    for i, s in enumerate(seeds):
        one = game.new_world(np.array([s]), decks, agents)
        ll.play_batch(game, one)
        alone = game.results(one, decks, agents)
        assert all(np.array_equal(alone[k], whole[k][i:i + 1]) for k in whole), int(s)


def test_the_loop_is_generated_from_the_schedule(game):
    module = ll.engine().game
    names = [s.name for _, specs in extend("lanes").schedule_specs() for s in specs]
    assert list(module.SYSTEMS) == names and module.N_SYSTEMS == len(names)
    order = [type(s).__name__ for _, systems in game.schedule._order for s in systems]
    assert order == names  # the loop's k is the schedule's k


def test_threads_play_consecutive_blocks_of_the_chunk():
    """``threads.blocks``: every game once, in order, n blocks of consecutive games whose sizes differ by at
    most one (threads writing neighbouring games' rows would share cache lines), each contiguous (numba's
    one array type)."""
    games = np.arange(10, 31)
    for n in (1, 2, 3, 4, 21):
        parts = blocks(games, n)
        assert len(parts) == n and np.array_equal(np.concatenate(parts), games)
        sizes = [p.size for p in parts]
        assert max(sizes) - min(sizes) <= 1 and all(p.flags.c_contiguous for p in parts)
        assert all(np.all(np.diff(p) == 1) for p in parts)


def test_results_do_not_depend_on_the_number_of_threads(game, monkeypatch):
    """DESIGN.md "Threads": results identical for any N (``advance`` on N threads without the GIL: each thread its own
    resolution machine, each a block of consecutive games: ``run_threads``)."""
    decks = game.default_decks()
    agents = [make_agent("greedy"), make_agent("random")]
    seeds = np.arange(40, 61, dtype=np.int64)
    tables = []
    for n in (1, 2, 3):
        monkeypatch.setenv(THREADS_ENV, str(n))
        assert threads() == n
        w = game.new_world(seeds, decks, agents)
        ll.play_batch(game, w)
        tables.append((_tables(game, w, decks, agents), w.rng.counter.copy()))
    for t, counter in tables[1:]:
        assert _same(t, tables[0][0]) == [] and np.array_equal(counter, tables[0][1])


@pytest.mark.parametrize("names,n_threads", [
    (("random", "random"), 1),
    (("greedy", "random"), 2),
    (("lookahead", "greedy"), 1),
    (("python", "greedy"), 1),
])
def test_a_restarted_world_plays_the_games_a_new_world_plays(names, n_threads, monkeypatch):
    """``LanesGame._batch_world``: a batch of the shape of the last one restarts its World
    (``World.restart``, ``restart_world``, ``loop.restart``) instead of building one; its games and
    cards tables and RNG counters are a new World's, batch after batch, whatever the previous batch
    left in the loop's arrays (positions, legal rows, memo, the machines of every thread)."""
    monkeypatch.setenv(THREADS_ENV, str(n_threads))
    decks = ("blue_tide", "black_covenant")
    agents = [PythonRandom() if n == "python" else make_agent(n) for n in names]
    reused = RULESET.load()
    first = None
    for seeds in ([5, 6, 7], [40, 41, 42], [7, 900, 3]):
        seeds = np.array(seeds, dtype=np.int64)
        got = reused.play_tables(seeds, decks, agents)
        assert len(reused._spare) == 1
        w = next(iter(reused._spare.values()))
        first = first or w
        assert w is first  # the same World each batch: restarted, not rebuilt
        want = RULESET.load().play_tables(seeds, decks, agents)
        assert _same((got["games"], got["cards"]), (want["games"], want["cards"])) == []
        assert list(seeds) == list(got["games"]["seed"])


def test_one_game_after_another_restarts_one_world(game):
    """The one-game case the restart is for: each ``play`` of a single seed plays the game a batch
    of its own plays, in one World."""
    decks = game.default_decks()
    agents = [make_agent("random"), make_agent("random")]
    solo = RULESET.load()
    rows = [solo.play(np.array([s]), decks, agents) for s in range(300, 306)]
    batch = RULESET.load().play(np.arange(300, 306), decks, agents)
    assert len(solo._spare) == 1
    for i, row in enumerate(rows):
        for k, col in row.items():
            assert np.array_equal(np.asarray(col)[0], np.asarray(batch[k])[i]) or col[0] is batch[k][i], (i, k)

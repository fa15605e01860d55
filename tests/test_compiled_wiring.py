"""The compiled twins wired into runs (systems/lanes/compiled/{bundle,drivers,processors}.py,
docs/compiled-core.md "Wiring"): one RNG state for numpy and compiled draws, one bundle per World
that is the World's own memory, the replay events and the World's bookkeeping kept.

The games themselves are proved identical by the golden tables (bench/golden.py) and, system by
system, by the differential tests against the numpy twins (test_compiled_lanes_round.py,
test_compiled_lanes_legal.py)."""

from __future__ import annotations

import copy
import pickle

import esper
import numpy as np
import pytest

from battlesim.ecs.compiled import rng as crng
from battlesim.ecs.decisions import make_agent
from battlesim.ecs.rng import CounterRng, Stream
from battlesim.ecs.schedule import Phase, Schedule
from battlesim.ecs.world import SlotsExhausted
from battlesim.systems.lanes.agents import subset_world
from battlesim.systems.lanes.compiled import processors
from battlesim.systems.lanes.compiled.bundle import bundle

EVENTS = ("lanes.game_over", "lanes.shop_skip", "lanes.buy", "lanes.upgrade")


def test_numpy_and_compiled_draws_advance_one_counter():
    rng = CounterRng(np.array([5, -7, 2**62], dtype=np.int64))
    assert rng.counter.base is rng.packed and rng._keys.base is rng.packed
    rng.bits(np.array([0, 2]), 3, Stream.SHOP)
    got = crng.integers(rng.packed, 1, 6, int(Stream.AGENT))
    assert list(rng.counter) == [3, 1, 3]
    twin = CounterRng(np.array([5, -7, 2**62], dtype=np.int64))
    assert twin.integers(np.array([1]), 6, Stream.AGENT)[0] == got  # the same draw, either side
    for other in (copy.deepcopy(rng), pickle.loads(pickle.dumps(rng))):
        assert other.counter.base is other.packed and list(other.counter) == [3, 1, 3]
        crng.advance(other.packed, 0, 10)
        assert other.counter[0] == 13 and rng.counter[0] == 3
    sub = rng.subset(np.array([2, 2]))
    assert sub.counter.base is sub.packed and list(sub.counter) == [3, 3]
    sub.bits(np.array([0]), 1, Stream.SHOP)
    assert list(rng.counter) == [3, 1, 3]


def test_the_bundle_is_built_once_and_is_the_worlds_own_memory(lanes):
    w = lanes.new_world(np.arange(4, dtype=np.int64), lanes.default_decks(), [make_agent("random")] * 2)
    k = bundle(w)
    assert bundle(w) is k and k.rng is w.rng.packed
    row = k.view.columns["health"][1]
    k.st.i16[row, 2, 0] = 17
    assert w.c.health[2, 0] == 17
    f, _ = k.round
    assert f.round is w.g.round and f.active is w.active and k.shop_fields.gold is w.g.gold
    sub = subset_world(w, np.array([1, 1]))  # lookahead's copies: their own arrays, their own bundle
    ks = bundle(sub)
    assert ks is not k and ks.st.i16 is not k.st.i16 and ks.rng is sub.rng.packed
    dup = w.copy()  # a deep copy gets no bundle; its own is built on its (regrouped) arrays
    kd = bundle(dup)
    assert kd is not k
    kd.st.i16[row, 2, 0] = 3
    assert dup.c.health[2, 0] == 3 and w.c.health[2, 0] == 17


def test_a_creep_spawn_keeps_the_worlds_bookkeeping(lanes):
    """``World.version`` and a tracked component's count move as ``World.allocate``/``add`` move
    them (the numpy caches key on them); a game without a free slot names its seed."""
    w = lanes.new_world(np.array([11, 12], dtype=np.int64), lanes.default_decks(), [make_agent("random")] * 2)
    w.track("health")
    version, health = w.version, w.changes["health"]
    processors.CreepSpawn().process(w)
    assert w.c.creep.sum() == 12
    assert w.version > version and w.changes["health"] > health
    w.alive[1] = True
    with pytest.raises(SlotsExhausted, match="seed 12 "):
        processors.CreepSpawn().process(w)


def _numpy_schedule(schedule: Schedule) -> Schedule:
    """The same schedule with each compiled processor replaced by its numpy twin (same state)."""
    phases = []
    for phase in schedule.phases:
        systems = []
        for s in phase.systems:
            if type(s).__module__ == processors.__name__:
                twin = type(s).__mro__[1]
                s2 = twin.__new__(twin)
                s2.__dict__.update(s.__dict__)
                s = s2
            systems.append(s)
        phases.append(Phase(phase.name, systems))
    return Schedule(phases)


def _events(game, seeds, decks, agents) -> list[tuple]:
    seen: list[tuple] = []
    handlers = {name: (lambda *a, name=name: seen.append((name, a[1:]))) for name in EVENTS}  # esper holds weak refs
    for name, h in handlers.items():
        esper.set_handler(name, h)
    try:
        game.play_reference(seeds, decks, [make_agent(a) for a in agents])
    finally:
        for name, h in handlers.items():
            esper.remove_handler(name, h)
    return seen


@pytest.mark.differential  # numpy twin against compiled kernel: opt-in (pyproject.toml)
@pytest.mark.parametrize("decks,agents", [(("red_vanguard", "blue_tide"), ("random", "random")),
                                          (("green_grove", "black_covenant"), ("greedy", "random"))])
def test_the_replay_events_are_the_numpy_twins(lanes, decks, agents):
    """The events the compiled systems dispatch from the kernels' returns (game over, the shop's
    skip, buy and upgrade) are those the numpy systems dispatch: names, order, arguments, dtypes."""
    seeds = np.arange(48, dtype=np.int64) + 300
    compiled = _events(lanes, seeds, decks, agents)
    schedule = lanes.schedule
    lanes.schedule = _numpy_schedule(schedule)
    try:
        reference = _events(lanes, seeds, decks, agents)
    finally:
        lanes.schedule = schedule
    assert [e[0] for e in compiled] == [e[0] for e in reference]
    for (name, got), (_, want) in zip(compiled, reference):
        assert len(got) == len(want), name
        for a, b in zip(got, want):
            a, b = np.asarray(a), np.asarray(b)
            assert a.dtype.kind == b.dtype.kind and np.array_equal(a, b), name
    kinds = {e[0] for e in compiled}
    assert kinds == set(EVENTS), kinds  # each kind met

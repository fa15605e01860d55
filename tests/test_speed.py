"""``battlesim bench``'s service split: each second counted once, in the innermost service.

The timers are checked against a fake clock (a test never asserts a real duration)."""

from __future__ import annotations

import numpy as np
import pytest

import battlesim.ecs.speed as speed
from battlesim.ecs.damage import DamagePipeline
from battlesim.ecs.effects import Executor
from battlesim.ecs.ruleset import get_ruleset


class Clock:
    """perf_counter stand-in: time moves only when the test says so."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Outer:
    def work(self, inner: "Inner", clock: Clock) -> None:
        clock.now += 1.0  # outer's own time
        inner.work(clock)
        clock.now += 2.0  # outer's own time again
        inner.work(clock)


class Inner:
    def work(self, clock: Clock) -> None:
        clock.now += 10.0


def test_nested_time_counts_in_the_innermost_service_only(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(speed.time, "perf_counter", clock)
    with speed._exclusive_timers([("outer", Outer, "work"), ("inner", Inner, "work")]) as seconds:
        Outer().work(Inner(), clock)
        Inner().work(clock)  # called alone too
    assert seconds == {"outer": 3.0, "inner": 30.0}


def test_timers_are_removed_afterwards_even_on_error():
    before = Inner.__dict__["work"]
    with pytest.raises(ZeroDivisionError):
        with speed._exclusive_timers([("inner", Inner, "work")]):
            assert Inner.__dict__["work"] is not before
            1 / 0
    assert Inner.__dict__["work"] is before


def test_service_split_covers_the_engine_and_leaves_it_unchanged():
    game = get_ruleset("lanes").load()
    fire, run = Executor.__dict__["fire"], DamagePipeline.__dict__["run"]
    split = speed.service_split(game, 8)
    assert set(split) == {"legal actions", "agents", "card effects", "damage pipeline", speed.REST}
    assert split["legal actions"] > 0 and split["agents"] > 0
    assert Executor.__dict__["fire"] is fire and DamagePipeline.__dict__["run"] is run
    # and the games played under the timers are the same games
    from battlesim.ecs.decisions import make_agent
    ags = [make_agent("random")] * 2
    plain = game.play(np.arange(2_000_000, 2_000_008), game.default_decks(), ags)
    with speed._exclusive_timers([("card effects", Executor, "fire")]):
        timed = game.play(np.arange(2_000_000, 2_000_008), game.default_decks(), ags)
    for col in plain:
        assert np.array_equal(plain[col], timed[col]), col

"""Throughput on the user's own machine: games per second and where the time goes.

This backs ``battlesim bench``. The pytest-benchmark suites in ``bench/`` are the tool for
tracking speed over time; this is the quick answer to "how fast is it here, and which
system costs what".
"""

from __future__ import annotations

import statistics
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Sequence

import numpy as np

from battlesim.ecs.damage import DamagePipeline
from battlesim.ecs.decisions import DecisionSystem, make_agent
from battlesim.ecs.effects import Executor
from battlesim.ecs.world import World


@dataclass
class SpeedSample:
    label: str
    batch: int
    agents: tuple[str, str]
    games_per_second: list[float]  # one value per repeat

    @property
    def median(self) -> float:
        return statistics.median(self.games_per_second)

    @property
    def low(self) -> float:
        return min(self.games_per_second)

    @property
    def high(self) -> float:
        return max(self.games_per_second)


def measure(game, batch: int, agents: tuple[str, str], repeats: int = 3, seed: int = 1_000_000) -> SpeedSample:
    """Play ``repeats`` batches of ``batch`` games (fresh seeds each time) and time each.

    A first, untimed, small batch warms caches and imports so the first repeat is not an outlier.
    """
    ags = [make_agent(a) for a in agents]
    decks = game.default_decks()
    game.play(np.arange(seed - 64, seed), decks, ags)
    rates = []
    for r in range(repeats):
        seeds = np.arange(seed + r * batch, seed + (r + 1) * batch, dtype=np.int64)
        t0 = time.perf_counter()
        game.play(seeds, decks, ags)
        rates.append(batch / (time.perf_counter() - t0))
    return SpeedSample(f"{agents[0]} vs {agents[1]}", batch, tuple(agents), rates)


def phase_split(game, batch: int, agents: tuple[str, str] = ("random", "random"), seed: int = 2_000_000) -> dict[str, float]:
    """Seconds spent in each ``phase/System`` while playing one batch to the end. A ruleset with
    a compiled game loop (``game.system_split``) times each system over the batch through the
    loop, system by system (what its Processors do); others through the schedule's profile."""
    ags = [make_agent(a) for a in agents]
    seeds = np.arange(seed, seed + batch, dtype=np.int64)
    if hasattr(game, "system_split"):
        return dict(sorted(game.system_split(seeds, game.default_decks(), ags).items(), key=lambda kv: -kv[1]))
    game.schedule.profile(True)
    try:
        game.play(seeds, game.default_decks(), ags)
        return dict(sorted(game.schedule.timings.items(), key=lambda kv: -kv[1]))
    finally:
        game.schedule.profile(False)


REST = "systems' own work"


def service_split(game, batch: int, agents: tuple[str, str] = ("random", "random"), seed: int = 2_000_000) -> dict[str, float]:
    """Seconds spent in each engine service while playing one batch to the end (a ruleset with a
    compiled game loop: its numpy reference schedule, ``play_reference``, since compiled code calls
    none of these services from Python), each second
    counted once, in the innermost service running (so the shares add up to the whole run):

    - ``legal actions``: the decision systems' ``request`` (legal-action masks, targets);
    - ``agents``: ``World.decide`` (the agents' choices; a lookahead agent's rollouts count
      under the services they call);
    - ``card effects``: ``Executor.fire`` (triggers, selectors, opcode kernels);
    - ``damage pipeline``: ``DamagePipeline.run`` (every stage, combat or effect damage);
    - ``systems' own work``: everything else (combat, spawn, draw, shop, placement...).

    The phase split says *which system* costs; this says *which machinery*, across systems:
    the play phase alone is most of a run, and most of it is effects and legal masks. The
    services are timed by wrapping their methods for the duration of the call (a profiler's
    trick, undone before returning); the wrappers cost ~1 us per call, far below what they time.
    """
    ags = [make_agent(a) for a in agents]
    targets = [("card effects", Executor, "fire"), ("damage pipeline", DamagePipeline, "run"),
               ("agents", World, "decide")]
    targets += [("legal actions", cls, "request") for cls in _decision_classes(game)]
    with _exclusive_timers(targets) as seconds:
        t0 = time.perf_counter()
        seeds = np.arange(seed, seed + batch, dtype=np.int64)
        # a compiled loop calls no Python service: time the numpy reference schedule
        play = getattr(game, "play_reference", game.play)
        play(seeds, game.default_decks(), ags)
        total = time.perf_counter() - t0
    seconds[REST] = max(total - sum(seconds.values()), 0.0)
    return dict(sorted(seconds.items(), key=lambda kv: -kv[1]))


def _decision_classes(game) -> list[type]:
    """The concrete decision systems of the schedule ``service_split`` plays (each overrides
    ``request``): a compiled ruleset's reference schedule, else its own."""
    found: list[type] = []
    for phase in getattr(game, "reference", game.schedule).phases:
        for system in phase.systems:
            cls = type(system)
            if isinstance(system, DecisionSystem) and cls not in found:
                found.append(cls)
    return found


@contextmanager
def _exclusive_timers(targets: list[tuple[str, type, str]]) -> Iterator[dict[str, float]]:
    """Wrap each ``(label, class, method)`` so that its time is added to ``seconds[label]``,
    minus the time spent in nested wrapped calls (they add to their own label)."""
    seconds: dict[str, float] = {label: 0.0 for label, _, _ in targets}
    stack: list[list] = []  # [label, start of the current stretch]
    saved: list[tuple[type, str, object]] = []

    def wrap(label: str, fn):
        def timed(*args, **kwargs):
            now = time.perf_counter()
            if stack:  # pause the caller's service
                outer = stack[-1]
                seconds[outer[0]] += now - outer[1]
            frame = [label, now]
            stack.append(frame)
            try:
                return fn(*args, **kwargs)
            finally:
                end = time.perf_counter()
                seconds[label] += end - frame[1]
                stack.pop()
                if stack:
                    stack[-1][1] = end  # the caller's service resumes
        return timed

    for label, cls, name in targets:
        if name in cls.__dict__:
            saved.append((cls, name, cls.__dict__[name]))
            setattr(cls, name, wrap(label, cls.__dict__[name]))
    try:
        yield seconds
    finally:
        for cls, name, fn in reversed(saved):
            setattr(cls, name, fn)


def standard_configs(quick: bool) -> Sequence[tuple[int, tuple[str, str]]]:
    if quick:
        return [(1, ("random", "random")), (256, ("random", "random"))]
    return [
        (1, ("random", "random")),
        (1024, ("random", "random")),
        (4096, ("random", "random")),
        (16384, ("random", "random")),
        (4096, ("random", "pass")),
        (1024, ("greedy", "greedy")),
        (4096, ("greedy", "greedy")),
    ]

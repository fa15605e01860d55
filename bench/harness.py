"""The shared set-up of the benchmark suites (public engine calls only)."""

from __future__ import annotations

import numpy as np

from battlesim.ecs.decisions import make_agent

DECKS = ("red_vanguard", "blue_tide")


def agents(*names: str):
    return [make_agent(n) for n in names]


def fresh_world(game, n_games: int, agent_names=("random", "random"), decks=DECKS, seed: int = 0):
    """A batch of ``n_games`` new games with seeds ``seed .. seed + n_games - 1``."""
    return game.new_world(np.arange(seed, seed + n_games, dtype=np.int64), decks, agents(*agent_names))


def phase_names(game) -> list[str]:
    return [p.name for p in game.schedule.phases]


def find_system(game, phase: str, cls_name: str):
    """The system instance the game's schedule runs in ``phase`` (by class name)."""
    for p in game.schedule.phases:
        if p.name == phase:
            for s in p.ordered():
                if type(s).__name__ == cls_name:
                    return s
    raise LookupError(f"no system {cls_name!r} in phase {phase!r}; phases: {phase_names(game)}")


def advance(game, w, full_rounds: int, until_phase: str | None = None, until_system: str | None = None):
    """Play ``full_rounds`` whole rounds, then the next round's systems up to (excluding)
    phase ``until_phase`` -- or, inside that phase, up to system ``until_system``."""
    for _ in range(full_rounds):
        game.schedule.run(w)
    if until_phase is None:
        return w
    if until_phase not in phase_names(game):
        raise LookupError(f"no phase {until_phase!r}; phases: {phase_names(game)}")
    for p in game.schedule.phases:
        for s in p.ordered():
            if p.name == until_phase and (until_system is None or type(s).__name__ == until_system):
                return w
            s.process(w)
    return w


def record_rate(benchmark, n: int, unit: str = "games") -> float | None:
    """Put ``<unit>_per_s`` (from the median time) and the best/worst rates (from the min and
    max times) into ``extra_info``; returns the median rate (None when benchmarks are disabled)."""
    benchmark.extra_info[unit] = int(n)
    meta = getattr(benchmark, "stats", None)
    st = getattr(meta, "stats", None)
    if st is None or not getattr(st, "data", None):
        return None  # --benchmark-disable: the function ran once, untimed
    med = n / st.median
    benchmark.extra_info[f"{unit}_per_s"] = round(med, 1)
    benchmark.extra_info[f"{unit}_per_s_best"] = round(n / st.min, 1)
    benchmark.extra_info[f"{unit}_per_s_worst"] = round(n / st.max, 1)
    return med

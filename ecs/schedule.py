"""Systems and the schedule.

A system is an ``esper.Processor`` whose ``process(world)`` advances every active game of
the batch at once. A ruleset's schedule is an ordered list of phases; inside a phase,
systems run by descending ``priority`` (esper's convention), ties by insertion order, so
the order is explicit and deterministic.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Iterable

import esper


@dataclass
class Phase:
    name: str
    systems: list[esper.Processor] = field(default_factory=list)

    def ordered(self) -> list[esper.Processor]:
        # sorted() is stable: equal priorities keep insertion order.
        return sorted(self.systems, key=lambda s: -getattr(s, "priority", 0))


class Schedule:
    """Phases in order. ``run(world)`` runs one pass over all phases (a round, for lanes)."""

    def __init__(self, phases: Iterable[Phase]) -> None:
        self.phases = list(phases)
        self._order = [(p.name, p.ordered()) for p in self.phases]
        self.timings: dict[str, float] | None = None

    def add(self, phase_name: str, system: esper.Processor) -> None:
        """Insert a system into a phase (plugins); the order is recomputed."""
        for p in self.phases:
            if p.name == phase_name:
                p.systems.append(system)
                self._order = [(q.name, q.ordered()) for q in self.phases]
                return
        raise KeyError(f"no phase {phase_name!r}; phases: {[p.name for p in self.phases]}")

    def profile(self, on: bool = True) -> None:
        """Accumulate wall time per system in ``self.timings`` (keys ``phase/System``)."""
        self.timings = {} if on else None

    def run(self, world) -> None:
        if self.timings is None:
            for _, systems in self._order:
                for system in systems:
                    system.process(world)
            return
        t = self.timings
        for phase, systems in self._order:
            for system in systems:
                t0 = time.perf_counter()
                system.process(world)
                key = f"{phase}/{type(system).__name__}"
                t[key] = t.get(key, 0.0) + time.perf_counter() - t0

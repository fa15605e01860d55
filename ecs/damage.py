"""The damage pipeline: all damage, combat or not, goes through here.

A ``DamageBatch`` holds many damage instances at once (one row each, across games).
Keywords contribute *stages* with a priority; a ruleset's pipeline runs its stages in
ascending priority over the batch. Combat code creates batches and never names a keyword,
so a new damage keyword is a component plus a stage.

Priority bands (by convention):
  100 prevention   (damage immunity, shield)
  200 mitigation   (armor, piercing)
  300 application  (health loss)
  400 reactions    (lifesteal, retaliate, overflow to anchors, anchor transformation)
  500 death detection
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

PREVENTION, MITIGATION, APPLICATION, REACTIONS, DEATH = 100, 200, 300, 400, 500

# kind flags
COMBAT = 1  # dealt in the combat phase
ATTACK = 2  # the source is attacking (combat attack, not a spell)
SPELL = 4
BATTLE = 8  # a battle or strike outside combat


@dataclass
class DamageBatch:
    """Parallel arrays, one row per damage instance. ``dealt`` is filled by application."""

    game: np.ndarray
    source: np.ndarray
    target: np.ndarray
    amount: np.ndarray
    kind: np.ndarray
    dealt: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        n = self.game.shape[0]
        self.game = np.asarray(self.game, dtype=np.intp)
        self.source = np.asarray(self.source, dtype=np.intp)
        self.target = np.asarray(self.target, dtype=np.intp)
        self.amount = np.asarray(self.amount, dtype=np.int64).copy()
        self.kind = np.broadcast_to(np.asarray(self.kind, dtype=np.int64), (n,)).copy()
        if self.dealt is None:
            self.dealt = np.zeros(n, dtype=np.int64)

    def __len__(self) -> int:
        return int(self.game.shape[0])

    @staticmethod
    def concat(batches: list["DamageBatch"]) -> "DamageBatch":
        return DamageBatch(
            np.concatenate([b.game for b in batches]),
            np.concatenate([b.source for b in batches]),
            np.concatenate([b.target for b in batches]),
            np.concatenate([b.amount for b in batches]),
            np.concatenate([b.kind for b in batches]),
        )


Stage = Callable[["object", DamageBatch], None]


@dataclass(frozen=True)
class StageSpec:
    name: str
    priority: int
    fn: Stage
    source: str = "built-in"


class DamagePipeline:
    """Ordered stages. Equal priorities resolve by name, then by source, so the order does not
    depend on import or registration order (the determinism contract)."""

    def __init__(self, stages: list[StageSpec] | None = None) -> None:
        self._stages: list[StageSpec] = []
        for s in stages or []:
            self.add(s)

    def add(self, stage: StageSpec) -> None:
        if any(s.name == stage.name for s in self._stages):
            raise ValueError(f"damage stage {stage.name!r} is already in the pipeline")
        self._stages.append(stage)
        self._stages.sort(key=lambda s: (s.priority, s.name, s.source))

    @property
    def stages(self) -> list[StageSpec]:
        return list(self._stages)

    def run(self, world, batch: DamageBatch) -> DamageBatch:
        if len(batch):
            for stage in self._stages:
                stage.fn(world, batch)
        return batch


def apply_to_health(world, batch: DamageBatch) -> None:
    """Application: remaining amount comes off ``health``. Several instances may hit one
    target in the same batch (simultaneous combat), hence the unbuffered ``np.add.at``."""
    amount = np.maximum(batch.amount, 0)
    batch.dealt[:] = amount
    np.subtract.at(world.c.health, (batch.game, batch.target), amount.astype(world.c.health.dtype))


APPLY_HEALTH = StageSpec("apply_health", APPLICATION, apply_to_health)

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
ATTACK = 2  # attack damage: a unit's attack in combat, a battle or a strike
SPELL = 4  # an effect's damage
BATTLE = 8  # a battle or strike outside combat
RETALIATE = 16  # damage dealt back by retaliate
OVERFLOW = 32  # overkill carried to an anchor (piercing, trample)
STATUS = 64  # damage over time (decay)
# every flag by name; plugins add theirs with battlesim.ecs.plugin.damage_kind (kind is int64)
KINDS: dict[str, int] = dict(COMBAT=COMBAT, ATTACK=ATTACK, SPELL=SPELL, BATTLE=BATTLE, RETALIATE=RETALIATE,
                             OVERFLOW=OVERFLOW, STATUS=STATUS)


@dataclass
class DamageBatch:
    """Parallel arrays, one row per damage instance. ``dealt`` is filled by application.
    ``game``, ``source``, ``target`` and ``kind`` are fixed once the batch is built (stages change
    ``amount``), so the facts stages share (``flat``, ``kinds``, ``sourced``) are computed once."""

    game: np.ndarray
    source: np.ndarray
    target: np.ndarray
    amount: np.ndarray
    kind: np.ndarray
    dealt: np.ndarray = field(default=None)  # type: ignore[assignment]
    excess: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        n = self.game.shape[0]
        self.game = np.asarray(self.game, dtype=np.intp)
        self.source = np.asarray(self.source, dtype=np.intp)
        self.target = np.asarray(self.target, dtype=np.intp)
        self.amount = np.array(self.amount, dtype=np.int64)  # a copy: stages change it in place
        kind = self.kind
        if isinstance(kind, (int, np.integer)):  # one kind for every row (the common case)
            self.kind = np.full(n, kind, dtype=np.int64)
            self._kinds = (int(kind), int(kind))
        else:
            self.kind = np.broadcast_to(np.asarray(kind, dtype=np.int64), (n,)).copy()
            self._kinds = None
        if self.dealt is None or self.excess is None:
            zeros = np.zeros((2, n), dtype=np.int64)  # one allocation for both
            self.dealt = zeros[0] if self.dealt is None else self.dealt
            self.excess = zeros[1] if self.excess is None else self.excess
        self._flat = self._sourced = None

    def kinds(self) -> tuple[int, int]:
        """(some, every): the kind flags at least one row has, and those every row has. Stages
        whose kind no row has return before reading anything (a batch of spells skips the
        attack reactions)."""
        if self._kinds is None:
            self._kinds = (int(np.bitwise_or.reduce(self.kind)), int(np.bitwise_and.reduce(self.kind)))
        return self._kinds

    def sourced(self) -> tuple[np.ndarray, bool]:
        """(``source >= 0`` per row, whether any row has one): computed once per batch for the
        stages that need a dealer (decay and other sourceless damage skip them)."""
        if self._sourced is None:
            has = self.source >= 0
            self._sourced = (has, bool(has.any()))
        return self._sourced

    def flat(self, world) -> tuple[np.ndarray, np.ndarray]:
        """(target, source) as flat entity indices ``game * n_slots + slot``, computed once per
        batch: every stage gathers the components it reads with one 1-D take through them
        (cheaper than a 2-D fancy index, and the batch's rows never change during a run). A
        source of -1 gives the index of an unrelated entity: mask those rows with ``source >= 0``."""
        if self._flat is None:
            base = self.game * world.n_slots
            self._flat = (base + self.target, base + self.source)
        return self._flat

    def take(self, idx: np.ndarray) -> "DamageBatch":
        return DamageBatch(self.game[idx], self.source[idx], self.target[idx], self.amount[idx], self.kind[idx],
                           self.dealt[idx], self.excess[idx])

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
        self._fns: tuple[Stage, ...] = ()
        for s in stages or []:
            self.add(s)

    def add(self, stage: StageSpec) -> None:
        if any(s.name == stage.name for s in self._stages):
            raise ValueError(f"damage stage {stage.name!r} is already in the pipeline")
        self._stages.append(stage)
        self._stages.sort(key=lambda s: (s.priority, s.name, s.source))
        self._fns = tuple(s.fn for s in self._stages)

    @property
    def stages(self) -> list[StageSpec]:
        return list(self._stages)

    def run(self, world, batch: DamageBatch) -> DamageBatch:
        if len(batch):
            for fn in self._fns:
                fn(world, batch)
        return batch


def earlier_on_same_target(world, key: np.ndarray, values: np.ndarray) -> np.ndarray | None:
    """``int64[n]``: for each row, the sum of ``values`` over the earlier rows with the same
    ``key`` (flat entity indices, ``DamageBatch.flat``); None when no two rows share a key (all
    0). Stages that consume something per instance (a shield stack, the health left) resolve a
    batch's instances in row order with it. A scatter and a gather through a scratch array of
    the world find the shared keys without a sort; only their rows are sorted (in combat, the
    anchors several unopposed attackers hit)."""
    n = key.size
    if n < 2:
        return None
    size = world.n_games * world.n_slots
    scratch = world.__dict__.get("_target_scratch")
    if scratch is None or scratch.size < size:
        scratch = world._target_scratch = np.empty(size, dtype=np.int64)
    rows = np.arange(n)
    scratch[key] = rows
    again = key[scratch[key] != rows]  # two rows with one key cannot both read their own index back
    if again.size == 0:
        return None
    scratch[again] = -1  # row indices elsewhere
    shared = np.flatnonzero(scratch[key] < 0)  # the rows whose key another row has too
    k = key[shared]
    order = np.argsort(k, kind="stable")
    sk, sv = k[order], values[shared[order]].astype(np.int64)
    run = np.cumsum(sv)
    start = np.flatnonzero(np.r_[True, sk[1:] != sk[:-1]])
    out = np.zeros(n, dtype=np.int64)
    out[shared[order]] = run - sv - np.repeat(run[start] - sv[start], np.diff(np.r_[start, sk.size]))
    return out


def apply_to_health(world, batch: DamageBatch) -> None:
    """Application: the remaining amount comes off ``health``. Several instances may hit one
    target in a batch (simultaneous combat); they apply in row order, so each instance knows how
    much of it the target could still absorb (``dealt``) and how much was overkill (``excess``)."""
    amount = np.maximum(batch.amount, 0)
    health = world.c.health.reshape(-1)
    ft = batch.flat(world)[0]
    hp = health[ft].astype(np.int64)
    earlier = earlier_on_same_target(world, ft, amount)  # damage the target took from earlier rows
    if earlier is not None:
        hp -= earlier
    dealt = np.minimum(amount, np.maximum(hp, 0))  # amount >= 0: clip(amount, 0, max(hp, 0))
    batch.dealt[:] = dealt
    np.subtract(amount, dealt, out=batch.excess)
    if earlier is None:  # one row per target: a plain fancy subtraction is the unbuffered one
        health[ft] -= amount.astype(health.dtype)
    else:
        np.subtract.at(health, ft, amount.astype(health.dtype))


APPLY_HEALTH = StageSpec("apply_health", APPLICATION, apply_to_health)

"""The engine's own compiled damage stage: application (health loss), in every pipeline.

The compiled twin of ``battlesim.ecs.damage.apply_to_health``: one row at a time, in queue
order, which is exactly the numpy stage's "several instances on one target apply in row
order" (tests/test_compiled_builder.py checks the two agree on queues with repeated targets).
"""

from __future__ import annotations

import numpy as np

from battlesim.ecs.compiled.damage_queue import AMOUNT, DEALT, EXCESS, TARGET
from battlesim.ecs.compiled.world_view import WorldState
from battlesim.ecs.compiled_declarations import engine_stage
from battlesim.ecs.damage import APPLICATION


def apply_health(w: WorldState, b: int, queue: np.ndarray, qlen: np.ndarray, i: int, cols: np.ndarray) -> None:
    """Application: the remaining amount comes off ``health``; ``dealt`` is what the target
    could still absorb, ``excess`` the overkill (piercing and trample carry it on)."""
    amount = max(queue[b, i, AMOUNT], 0)
    t = queue[b, i, TARGET]
    hp = np.int64(w.i16[cols[0], b, t])
    dealt = min(amount, max(hp, 0))
    queue[b, i, DEALT] = dealt
    queue[b, i, EXCESS] = amount - dealt
    w.i16[cols[0], b, t] = hp - amount  # into int16: wraps as numpy's astype does


# the engine's own (built-in whoever imports this module first: it may be a plugin being loaded)
engine_stage("apply_health", APPLICATION, apply_health, ("health",))

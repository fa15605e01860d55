"""Keep numba's cache of the hex kernels honest about the layout they were compiled against.

The kernels index the column table, the per-game fields and the ability rows with positions
that are constants of ``state.py`` (``POWER``, ``A_COST``...), which numba freezes into the cached
machine code. numba re-checks only the kernel's *own* file, so adding a keyword to the
vocabulary (which moves every status position) would leave kernels in the cache reading the
old positions, silently; nor does it see an edit of another kernel file whose functions a kernel
calls (``turn`` calls ``battle``). ``check(functions)`` records a digest of the layout and of the
kernel files beside the cache and flushes the kernels' cached code when it differs (the shared
mechanism: ``ecs/compiled/kernel_stamp.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from numba import njit

from battlesim.ecs import kernel_stamp
from battlesim.systems.hex import state

# How a hex kernel is compiled: cached, and without numba's reference counting (``_nrt=False``,
# numba's own flag). Every array a kernel reads out of the World, fields or scratch tuples costs
# an atomic incref and decref with it, on every call: most of a decision's time
# (docs/hex-speed.md). A kernel allocates nothing (its scratch is ``work.Work``'s), so there is
# nothing to count. A callee without the flag inherits its caller's; the one hex kernel that
# allocates (``lookahead.lookahead_action``, its saved rows) states reference counting on.
kernel = njit(cache=True, _nrt=False)

KERNEL_FILES = ("kernel_cache.py", "state.py", "board.py", "hexset.py", "battle.py", "legal.py", "turn.py", "damage_stages.py", "pipeline.py", "work.py", "select.py", "cast.py", "apply.py", "agents.py", "step.py", "lookahead.py",
                "play.py")


def layout_digest() -> str:
    """Every table whose positions a kernel reads, as one short hash."""
    parts = (state.COLUMNS, state.GAME_FIELDS, state.MOD_FIELDS, state.MOD_STATS, state.AB_FIELDS,
             state.EFFECT_FIELDS, state.EFFECT_OPS, state.SELECTS, state.TARGETS, state.STATUS_NAMES,
             (state.SLOTS, state.MODS, state.ABILITIES, state.EFFECTS, state.NULL, state.ALL, state.INFINITE))
    here = Path(__file__).parent
    return kernel_stamp.digest(parts, (here / name for name in KERNEL_FILES if (here / name).exists()))


def check(module: str, functions: Iterable[Any]) -> None:
    """Flush the cached code of ``functions`` (numba dispatchers of ``module``) compiled for
    another layout; record the current one (ecs/compiled/kernel_stamp.py)."""
    kernel_stamp.refresh(module, functions, layout_digest())

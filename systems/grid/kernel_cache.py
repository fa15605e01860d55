"""Keep numba's cache of the grid kernels honest about the layout they were compiled against.

The kernels (``occupancy.py``, ``rules.py``, ``outcome.py``, ``apply.py``, ``play.py``) index the column table, the game fields,
the ability and card rows with positions that are constants of ``state.py`` and call one
another and ``board.py``/``damage.py``; numba re-checks only a kernel's own file. ``check``
records a digest of those tables and files beside the cache and flushes stale code (the shared
mechanism of ``ecs/compiled/kernel_stamp.py``, which hex uses too).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from battlesim.ecs import kernel_stamp
from battlesim.ecs.kernel_stamp import kernels_of  # noqa: F401  (the kernel files call it through here)
from battlesim.systems.grid import state

KERNEL_FILES = ("state.py", "work.py", "board.py", "damage.py", "action_table.py", "draw.py", "occupancy.py", "rules.py",
                "outcome.py", "apply.py", "agents.py", "lookahead.py", "play.py")


def layout_digest() -> str:
    """Every table whose positions a grid kernel reads, and the kernel files, as one short hash."""
    parts = (state.COLUMNS, state.GAME_FIELDS, state.AB_FIELDS, state.CARD_FIELDS, state.PARAMS, state.LOG_FIELDS,
             (state.SLOTS, state.K, state.DECK_MAX, state.ROGUE, state.MAGIC))
    here = Path(__file__).parent
    return kernel_stamp.digest(parts, (here / n for n in KERNEL_FILES if (here / n).exists()))


def check(module: str, functions: Iterable[Any]) -> None:
    """Flush the cached code of ``functions`` compiled for another layout; record the current one."""
    kernel_stamp.refresh(f"grid_{module}", functions, layout_digest())

"""Keep numba's cache of the classes kernels honest about the files they were compiled against.

numba re-checks only a kernel's own file: a kernel calling a function of another file, or
reading a layout constant of ``state.py`` / ``rules.py`` / ``board.py``, would keep stale machine
code after those change. ``check_all`` hands every classes kernel and one digest of every kernel
file to the shared mechanism (``ecs/kernel_stamp.py``, as hex and grid do), once per process.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from battlesim.ecs import kernel_stamp

KERNEL_FILES = ("handle.py", "state.py", "rules.py", "board.py", "vocabulary.py", "jobs.py", "mana.py", "progress.py",
                "units.py", "effects.py", "legal.py", "acting.py", "actions.py", "invariants.py", "agent.py",
                "greedy.py", "lookahead.py", "loop.py")
_checked = False


def digest() -> str:
    """One short hash of every file a classes kernel is compiled from."""
    here = Path(__file__).parent
    return kernel_stamp.digest((), (here / name for name in KERNEL_FILES))


def kernels() -> list[Any]:
    """Every compiled function of the classes kernel modules."""
    out: list[Any] = []
    for name in KERNEL_FILES:
        module = importlib.import_module(f"battlesim.systems.classes.{name[:-3]}")
        out += kernel_stamp.kernels_of(vars(module), module.__name__)
    return out


def check_all() -> None:
    """Flush the kernels' cached code compiled from other files (once per process)."""
    global _checked
    if not _checked:
        _checked = True
        kernel_stamp.refresh("classes", kernels(), digest())

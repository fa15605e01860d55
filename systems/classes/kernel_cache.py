"""Keep numba's cache of the classes kernels honest about the files they were compiled against.

numba re-checks only a kernel's own file: a kernel calling a function of another file, or
reading a layout constant of ``state.py`` / ``rules.py`` / ``board.py``, would keep stale machine
code after those change. ``check_all`` records one digest of every kernel file beside the cache and
flushes every kernel's cached code when it differs (hex's ``kernel_cache`` does the same for hex;
once ``ecs/compiled`` holds a shared one, this becomes a one-line call to it).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

KERNEL_FILES = ("state.py", "rules.py", "board.py", "vocabulary.py", "jobs.py", "mana.py", "progress.py",
                "units.py", "effects.py", "legal.py", "acting.py", "actions.py", "invariants.py", "agent.py")
_checked = False


def digest() -> str:
    """One short hash of every file a classes kernel is compiled from."""
    h = hashlib.sha256()
    here = Path(__file__).parent
    for name in KERNEL_FILES:
        h.update((here / name).read_bytes())
    return h.hexdigest()[:16]


def kernels() -> list:
    """Every compiled function of the classes kernel modules."""
    import importlib

    out = []
    for name in KERNEL_FILES:
        module = importlib.import_module(f"battlesim.systems.classes.{name[:-3]}")
        out += [f for f in vars(module).values() if getattr(f, "_cache", None) is not None
                and getattr(f, "__module__", "") == module.__name__]
    return out


def check_all() -> None:
    """Flush the kernels' cached code compiled from other files (once per process)."""
    global _checked
    if _checked:
        return
    _checked = True
    functions = kernels()
    if not functions:
        return
    stamp = Path(functions[0]._cache._cache_path) / "classes.layout"
    now = digest()
    try:
        if stamp.read_text() == now:
            return
    except OSError:
        pass
    for f in functions:
        f._cache.flush()
    try:
        stamp.write_text(now)
    except OSError:  # a read-only cache: numba then compiles in memory each run
        pass

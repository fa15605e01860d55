"""Keep numba's on-disk cache of a ruleset's kernels honest about what they were compiled against.

numba re-checks only a kernel's *own* file for staleness. A ruleset's kernels index tables by
positions that are constants of another file (column tables, per-game fields, ability rows) and
call kernels of other files; an edit there would leave cached machine code reading the old
positions or running the old callee, silently. ``refresh(stamp_name, functions, digest)`` keeps a
digest of those tables and files beside the cache and flushes the kernels' cached code when it
differs. Used by hex (``systems/hex/kernel_cache.py``) and grid (``systems/grid/kernel_cache.py``):
each names its own tables and files.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def digest(parts: Any, files: Iterable[Path]) -> str:
    """One short hash of ``parts`` (tables whose positions kernels read, by ``repr``) and the
    bytes of ``files`` (the kernel files that call one another)."""
    h = hashlib.sha256(repr(parts).encode())
    for path in files:
        h.update(Path(path).read_bytes())
    return h.hexdigest()[:16]


def kernels_of(namespace: dict[str, Any], module: str) -> list[Any]:
    """The numba dispatchers defined in ``module`` (``globals()`` of a kernel file)."""
    return [v for v in list(namespace.values()) if hasattr(v, "py_func") and v.__module__ == module]


def refresh(stamp_name: str, functions: Iterable[Any], current: str) -> None:
    """Flush the cached code of ``functions`` (numba dispatchers) compiled for another digest than
    ``current``; record ``current`` in ``<cache dir>/<stamp_name>.layout``."""
    functions = [f for f in functions if getattr(f, "_cache", None) is not None]
    if not functions:
        return
    stamp = Path(functions[0]._cache._cache_path) / f"{stamp_name}.layout"
    try:
        if stamp.read_text() == current:
            return
    except OSError:
        pass
    for f in functions:
        f._cache.flush()
    try:
        stamp.write_text(current)
    except OSError:  # a read-only cache: numba then compiles in memory each run
        pass

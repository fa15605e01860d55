"""Where engine modules live: hash-named directories in a per-user cache, pruned.

An engine is ``<root>/<ruleset>_<hash>/battlesim_engine_<ruleset>_<hash>.py``. ``<hash>`` covers
the module's text, every source file it depends on (``codegen.dependency_files``), and the
versions of Python, numpy, numba and llvmlite: the same name always means the same machine
code, so numba's own staleness check (one file's timestamp) is never what keeps us correct.

``<root>`` is ``$NUMBA_CACHE_DIR/battlesim`` when numba has a cache directory set, else
``$XDG_CACHE_HOME/battlesim`` or ``~/.cache/battlesim``: site-packages may be read-only. numba
writes its index and machine code next to the module (``__pycache__``), or, under
``NUMBA_CACHE_DIR``, in ``$NUMBA_CACHE_DIR/<ruleset>_<hash>_<sha1 of the directory>``; pruning
removes both for every other hash of the same ruleset.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
from pathlib import Path
from types import ModuleType

import llvmlite
import numba
import numpy as np

from battlesim.ecs.module_files import exec_file

HASH_CHARS = 16
MARKER = "compiled"  # written next to the module once its machine code is in the cache


class EngineCacheError(OSError):
    """The engine cache directory cannot be used; the message says which and why."""


def numba_cache_dir() -> str:
    """``NUMBA_CACHE_DIR`` as numba read it when imported (what it really uses), or ''."""
    return str(getattr(numba.config, "CACHE_DIR", "") or "")


def cache_root() -> Path:
    """The directory that holds every engine module (see the module doc)."""
    nb = numba_cache_dir()
    if nb:
        return Path(nb) / "battlesim"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "battlesim"


def engine_hash(text: str, files: list[Path]) -> str:
    """The name of an engine: a hash of its text, its source files' contents and the versions
    of everything that turns them into machine code."""
    h = hashlib.sha256()
    for part in (sys.version, np.__version__, numba.__version__, llvmlite.__version__, text):
        h.update(part.encode())
        h.update(b"\0")
    for f in files:
        h.update(str(f).encode())
        h.update(b"\0")
        h.update(f.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:HASH_CHARS]


def safe_name(ruleset: str) -> str:
    return re.sub(r"\W", "_", ruleset)


def engine_path(root: Path, ruleset: str, digest: str) -> Path:
    name = f"{safe_name(ruleset)}_{digest}"
    return root / name / f"battlesim_engine_{name}.py"


def write_engine(path: Path, text: str) -> None:
    """Write the module once (atomically: workers may build the same engine at once)."""
    if path.exists() and path.read_text() == text:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
    except OSError as e:
        raise EngineCacheError(f"cannot write the compiled engine to {path.parent}: {e.strerror or e}; "
                               f"set NUMBA_CACHE_DIR to a writable directory") from None


def import_engine(path: Path) -> ModuleType:
    """Import the module from its file (the same module object on a second call)."""
    name = path.stem
    mod = sys.modules.get(name)
    if mod is not None and Path(mod.__file__ or "") == path:
        return mod
    return exec_file(name, path)


def prune(root: Path, ruleset: str, keep: str) -> list[Path]:
    """Remove the engines of ``ruleset`` with another hash than ``keep``, and numba's cache
    of them; returns what was removed."""
    prefix = re.escape(safe_name(ruleset))
    ours = re.compile(rf"^{prefix}_([0-9a-f]{{{HASH_CHARS}}})$")
    numbas = re.compile(rf"^{prefix}_([0-9a-f]{{{HASH_CHARS}}})_[0-9a-f]{{40}}$")
    removed = []
    for folder, pattern in ((root, ours), (Path(numba_cache_dir()) if numba_cache_dir() else None, numbas)):
        if folder is None or not folder.is_dir():
            continue
        for entry in folder.iterdir():
            m = pattern.match(entry.name)
            if m and m.group(1) != keep and entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
                removed.append(entry)
    return removed

"""Test-only fault injection, loaded as a plugin (never by the product): the batch holding
seed SEED misbehaves.

A test writes a copy of this file with ``SPEC`` and ``STATE`` filled in (``armed``
below: worker processes fork from a server started earlier, so neither the environment nor
the test's memory reaches them, but a plugin file does) and passes it as a plugin.
``SPEC = "SEED:MODE[:TIMES]"`` with MODE one of

- ``raise``: the game of that seed raises (a rule error: deterministic, also alone);
- ``crash``: the worker process exits at once (``os._exit``);
- ``stop``: the worker process stops itself (SIGSTOP, as ``kill -STOP`` would);
- ``hang``: the batch never ends (sleeps);
- ``enospc``: writing the batch's shards fails with "No space left on device".

TIMES (default: always) counts firings across processes, in files under ``STATE`` (a
directory), so "once" means once for the whole run. Nothing fires unless ``STATE/armed``
exists: the test removes it when it ends, and a copy loaded into the test process (which keeps
its plugins) can do no harm after.
"""

from __future__ import annotations

import errno
import os
import signal
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import numpy as np

from battlesim.ecs.runs import chunks
from battlesim.systems.lanes.ruleset import LanesGame



SPEC = ""
STATE = ""


def _spec() -> list[str]:
    return SPEC.split(":") if SPEC and (Path(STATE) / "armed").exists() else []


def _fires(spec: list[str]) -> bool:
    if len(spec) < 3:
        return True
    state = Path(STATE)
    for i in range(int(spec[2])):
        try:
            os.close(os.open(state / f"fired-{i}", os.O_CREAT | os.O_EXCL))
            return True
        except FileExistsError:
            continue
    return False


def _misbehave(seeds: np.ndarray) -> None:
    spec = _spec()
    if not spec or spec[1] == "enospc" or int(spec[0]) not in seeds or not _fires(spec):
        return
    seed, mode = int(spec[0]), spec[1]
    if mode == "raise":
        raise RuntimeError(f"card 'Test Fault' broke its rule in the game of seed {seed}")
    if mode == "crash":
        os._exit(70)
    if mode == "stop":
        os.kill(os.getpid(), signal.SIGSTOP)
    if mode == "hang":
        time.sleep(3600)


_play_tables = LanesGame.play_tables


def play_tables(self, seeds, decks, agents, cards=True):
    _misbehave(np.asarray(seeds))
    return _play_tables(self, seeds, decks, agents, cards)


LanesGame.play_tables = play_tables  # type: ignore[method-assign]

_write_shard = chunks.write_shard


def write_shard(root, table_name, table, start, n, run):
    spec = _spec()
    if spec and spec[1] == "enospc" and start <= int(spec[0]) < start + n:
        raise OSError(errno.ENOSPC, "No space left on device", str(root))
    return _write_shard(root, table_name, table, start, n, run)


chunks.write_shard = write_shard


@contextmanager
def armed(tmp_path: Path, spec: str) -> Iterator[tuple[str]]:
    """``(plugin path,)``: a copy of this plugin armed with ``spec``, for the test that owns
    ``tmp_path``. On exit it is disarmed, and whatever loading it did in this process (the
    plugin registry, the patched game and shard writer) is undone, so later tests see none of it."""
    import hashlib

    from battlesim.ecs.plugin import isolated

    state = tmp_path / "fault-state"
    state.mkdir(exist_ok=True)
    (state / "armed").touch()
    text = Path(__file__).read_text().replace('SPEC = ""', f"SPEC = {spec!r}", 1).replace(
        'STATE = ""', f"STATE = {str(state)!r}", 1)
    path = tmp_path / f"fault_{hashlib.sha1(str(tmp_path).encode()).hexdigest()[:12]}.py"
    path.write_text(text)
    saved = LanesGame.play_tables, chunks.write_shard
    try:
        with isolated():
            yield (str(path),)
    finally:
        (state / "armed").unlink(missing_ok=True)
        LanesGame.play_tables, chunks.write_shard = saved  # type: ignore[method-assign]

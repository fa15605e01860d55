"""A run directory on disk: its configuration record, its shards, its lock.

Layout of ``--out DIR``::

    DIR/run.json                                   the run's configuration (what makes it this run)
    DIR/games/part-<first seed, 20 digits>-<n>.parquet   one per chunk: one row per game
    DIR/cards/part-<first seed, 20 digits>-<n>.parquet   one per chunk: one row per card instance

A shard is written to a hidden temp file (``.part-….parquet.<pid>.tmp``) and renamed into place,
so a shard that exists is complete. Readers (``pyarrow.dataset`` skips names starting with ``.``)
never see a half-written one, and opening the directory deletes any left by a killed run. A
chunk is finished when its ``games`` shard exists; ``cards`` is written first, so the games
shard is the chunk's commit mark.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

try:  # POSIX: an advisory lock, released by the kernel even on SIGKILL
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

FORMAT = 2
TABLES = ("games", "cards")


class RunDirError(ValueError):
    """The directory cannot hold this run; ``str()`` is a one-line message for the user."""


def shard_path(root: str | Path, table: str, start: int, n: int) -> Path:
    return Path(root) / table / f"part-{start:020d}-{n}.parquet"


def write_atomic(table: pa.Table, path: Path) -> None:
    """Write a Parquet file so that it appears complete or not at all (temp file + rename)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():  # a failed write leaves nothing behind
            tmp.unlink()


class RunDir:
    """An open run directory (``open`` records or checks the configuration and takes the lock)."""

    def __init__(self, root: str | Path, tables: tuple[str, ...] = TABLES) -> None:
        self.root = Path(root)
        self.tables = tables
        self._lock_fd: int | None = None

    # -- opening ---------------------------------------------------------------------------

    def recorded_chunk(self) -> int | None:
        """The chunk size of an existing run here (None for a new directory)."""
        record = self._read_record()
        return record.get("chunk") if record else None

    def open(self, identity: dict[str, Any], chunk: int) -> "RunDir":
        """Create or reopen the directory for the run ``identity`` played in chunks of ``chunk``.

        A directory holding a different run is refused with a message naming what differs.
        """
        self.root.mkdir(parents=True, exist_ok=True)
        self._lock()
        record = self._read_record()
        if record is not None:
            old = record.get("config", {})
            if old != identity or record.get("chunk") != chunk:
                self.close()
                raise RunDirError(
                    f"{self.root} holds a different run ({_diff(old, identity, record.get('chunk'), chunk)}); "
                    "use another --out directory or the same options"
                )
        else:
            meta = self.root / "run.json"
            tmp = self.root / ".run.json.tmp"
            tmp.write_text(json.dumps({"format": FORMAT, "config": identity, "chunk": chunk,
                                       "tables": list(self.tables)}, indent=2, sort_keys=True))
            os.replace(tmp, meta)
        for t in self.tables:
            (self.root / t).mkdir(exist_ok=True)
        self.clean_temp_files()
        return self

    def _read_record(self) -> dict[str, Any] | None:
        meta = self.root / "run.json"
        if not meta.exists():
            return None
        try:
            return json.loads(meta.read_text())
        except (OSError, json.JSONDecodeError) as e:
            raise RunDirError(f"{meta}: unreadable run record ({e}); use another --out directory") from None

    def _lock(self) -> None:
        if fcntl is None:  # pragma: no cover
            return
        fd = os.open(self.root / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise RunDirError(f"{self.root} is in use by another battlesim run; wait for it or use another --out directory") from None
        self._lock_fd = fd

    def close(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # releases the lock
            self._lock_fd = None

    def __enter__(self) -> "RunDir":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def clean_temp_files(self) -> list[Path]:
        """Delete temp shards a killed run left behind (they are never read)."""
        gone = []
        for t in self.tables:
            for p in (self.root / t).glob(".*.tmp"):
                p.unlink(missing_ok=True)
                gone.append(p)
        return gone

    # -- shards ------------------------------------------------------------------------------

    def path(self, table: str, start: int, n: int) -> Path:
        return shard_path(self.root, table, start, n)

    def done(self, start: int, n: int) -> bool:
        """Whether the chunk is finished (its games shard, the commit mark, exists)."""
        return self.path("games", start, n).exists() and all(
            self.path(t, start, n).exists() for t in self.tables)

    def write(self, tables: dict[str, pa.Table], start: int, n: int) -> None:
        """Write one chunk's shards, games last (the commit mark)."""
        for name in sorted(tables, key=lambda t: t == "games"):
            write_atomic(tables[name], self.path(name, start, n))

    def read(self, table: str, start: int, n: int, columns: list[str] | None = None) -> pa.Table:
        return pq.read_table(self.path(table, start, n), columns=columns)


def _diff(old: dict, new: dict, old_chunk: Any, new_chunk: int) -> str:
    keys = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
    parts = [f"{k}: {old.get(k)!r} there, {new.get(k)!r} now" for k in keys]
    if old_chunk != new_chunk:
        parts.append(f"chunk: {old_chunk!r} there, {new_chunk!r} now")
    return "; ".join(parts)

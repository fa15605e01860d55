"""A run directory on disk: its record, its shards, its lock.

Layout of ``--out DIR``::

    DIR/run.json                                   the run's record: its identity, seeds, chunk
    DIR/manifest.jsonl                             every good shard's row count, size and SHA-256
    DIR/games/part-<first seed, 20 digits>-<n>.parquet   one per chunk: one row per game
    DIR/cards/part-<first seed, 20 digits>-<n>.parquet   one per chunk: one row per card instance

The record holds the run's identity (``battlesim.ecs.runs.identity``: options, the hash of
every file read, the version); reopening the directory for a run with another identity is
refused, naming what changed, unless ``restart`` (``--restart``) empties it first. A larger
``games`` grows the run. Every shard is checked against the manifest before it is trusted
(``battlesim.ecs.runs.shards``). Shards appear by atomic rename; opening the directory deletes
the temp files a killed run left. An advisory lock keeps two runs out of one directory.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any, Callable

import pyarrow as pa
import pyarrow.parquet as pq

from battlesim.ecs.runs.identity import RunIdentity
from battlesim.ecs.runs.shards import MANIFEST, shard_path, verify, write_shard

try:  # POSIX: an advisory lock, released by the kernel even on SIGKILL
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

FORMAT = 3
RECORD = "run.json"
LOCK = ".lock"
TABLES = ("games", "cards")
RESTART_HINT = "run with --restart to start the run over (its games are deleted), or use another --out"



def make_out_dir(root: Path) -> None:
    """Create ``--out`` (and its parents) and check battlesim can write there, naming ``--out``
    in one line if not. balance and sweep call it before their first pairing, so a bad ``--out``
    is refused as itself, not as the first pairing's directory under it."""
    if root.exists() and not root.is_dir():
        raise RunDirError(f"--out {root}: not a directory (a run directory holds a run's shards)")
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise RunDirError(f"--out {root}: cannot create the run directory ({e.strerror or e})") from None
    probe = root / f".battlesim-write-probe-{os.getpid()}"
    try:
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise RunDirError(f"--out {root}: cannot write there ({e.strerror or e})") from None

class RunDirError(ValueError):
    """The directory cannot hold this run; ``str()`` is a one-line message for the user."""


def read_record(root: Path) -> dict[str, Any] | None:
    """The validated record of the run directory ``root`` (None: there is none). A record
    that is not one this version wrote (edited, truncated, older) is refused in one line."""
    path = root / RECORD
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise RunDirError(f"{path}: unreadable ({e.strerror})") from None
    try:
        record = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise RunDirError(f"{path}: not a run record ({type(e).__name__}); {RESTART_HINT}") from None
    problem = _record_problem(record)
    if problem:
        raise RunDirError(f"{path}: not a run record this battlesim wrote ({problem}); {RESTART_HINT}")
    return record


def _record_problem(r: Any) -> str | None:
    if not isinstance(r, dict):
        return "not a JSON object"
    if r.get("format") != FORMAT:
        return f"run format {r.get('format')!r}, expected {FORMAT}"
    for key in ("seed", "games", "chunk"):
        v = r.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or (key != "seed" and v < 1):
            return f"{key}: {v!r} is not a {'' if key == 'seed' else 'positive '}integer"
    if not -(2**63) <= r["seed"] <= 2**63 - r["games"]:
        return "its seeds leave the 64-bit range"
    ident = r.get("identity")
    if not isinstance(ident, dict) or not isinstance(ident.get("options"), dict) \
            or not isinstance(ident.get("files"), dict) or not isinstance(ident.get("paths", {}), dict):
        return "identity: not the expected object"
    tables = r.get("tables")
    if not isinstance(tables, list) or not tables or not set(tables) <= set(TABLES) or "games" not in tables:
        return f"tables: {tables!r}"
    return None


class RunDir:
    """An open run directory (``open`` records or checks the run and takes the lock)."""

    def __init__(self, root: str | Path, tables: tuple[str, ...] = TABLES,
                 report: Callable[[str], None] | None = None) -> None:
        self.root = Path(root)
        self.tables = tables
        self.report = report or (lambda message: None)
        self.finished: list[tuple[int, int]] = []  # chunks on disk whose every shard checked out
        self.run = ""  # the run's identity key, on every manifest line
        self._lock_fd: int | None = None

    # -- opening ---------------------------------------------------------------------------

    def recorded_chunk(self) -> int | None:
        """The chunk size of an existing run here (None for a new or unusable directory)."""
        try:
            record = read_record(self.root) if self.root.is_dir() else None
        except RunDirError:
            return None  # ``open`` says what is wrong
        return record["chunk"] if record else None

    def open(self, identity: RunIdentity, seed: int, games: int, chunk: int, restart: bool = False) -> "RunDir":
        """Create or reopen the directory for the run ``identity`` of seeds ``seed ..
        seed + games - 1``; then check every shard (``finished``: the good chunks).

        A directory holding another run (or an unreadable record) is refused with a message
        naming what differs, unless ``restart``: then it is emptied first. A directory that
        is not a run directory is never emptied.
        """
        self._make_root()
        self._lock()
        try:
            if restart:
                self._empty()
            record = read_record(self.root)
            if record is not None:
                self._check(record, identity, seed, games)
                games = max(games, record["games"])
            elif self._entries():
                raise RunDirError(self._not_a_run() if self._foreign() else
                                  f"{self.root} holds shards but no {RECORD} (their run is unknown); {RESTART_HINT}")
            self._write_record({"format": FORMAT, "identity": identity.record(), "seed": seed, "games": games,
                                "chunk": chunk, "tables": list(self.tables)})
            for t in self.tables:
                (self.root / t).mkdir(exist_ok=True)
            self.clean_temp_files()
            self.run = identity.key()
            self.finished = verify(self.root, self.tables, seed, games, self.run, self.report)
        except OSError as e:
            self.close()
            raise RunDirError(f"--out {self.root}: {e.strerror or e} ({e.filename or self.root})") from None
        except RunDirError:
            self.close()
            raise
        return self

    def _make_root(self) -> None:
        make_out_dir(self.root)

    def _check(self, record: dict[str, Any], identity: RunIdentity, seed: int, games: int) -> None:
        diff = identity.difference(record["identity"])
        if diff is None and record["seed"] != seed:
            diff = f"seed: {record['seed']} there, {seed} now"
        if diff is None and record["tables"] != list(self.tables):
            diff = f"tables: {record['tables']} there, {list(self.tables)} now"
        if diff is not None:
            raise RunDirError(f"{self.root} holds a different run: {diff}; {RESTART_HINT}")
        if games < record["games"]:
            raise RunDirError(f"{self.root} holds a run of {record['games']:,} games; --games {games:,} would "
                              f"leave some out: give --games {record['games']:,} (or more to grow it), or --restart")

    def _entries(self) -> list[str]:
        return sorted(p.name for p in self.root.iterdir() if p.name not in (LOCK, f".{RECORD}.tmp", f".{MANIFEST}.tmp"))

    def _foreign(self) -> list[str]:
        """What in the directory a run did not write (then it is nobody's run to empty)."""
        return [e for e in self._entries() if e not in (RECORD, MANIFEST, *TABLES)]

    def _not_a_run(self) -> str:
        return (f"--out {self.root}: not a run directory (it holds {', '.join(self._foreign()[:3])}); "
                "give a new or empty directory")

    def _empty(self) -> None:
        """``--restart``: delete the run's files (only a run directory's, never anything else)."""
        if self._foreign():
            raise RunDirError(self._not_a_run() + "; --restart only empties run directories")
        for t in TABLES:
            if (self.root / t).is_dir():
                shutil.rmtree(self.root / t)
        for name in (MANIFEST, RECORD):
            (self.root / name).unlink(missing_ok=True)

    def _write_record(self, record: dict[str, Any]) -> None:
        tmp = self.root / f".{RECORD}.tmp"
        tmp.write_text(json.dumps(record, indent=2, sort_keys=True), encoding="utf-8")
        os.replace(tmp, self.root / RECORD)

    def _lock(self) -> None:
        if fcntl is None:  # pragma: no cover
            return
        try:
            fd = os.open(self.root / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise RunDirError(f"--out {self.root}: cannot write there ({e.strerror})") from None
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

    def write(self, tables: dict[str, pa.Table], start: int, n: int) -> None:
        """Write one chunk's shards, games last (the chunk's commit mark)."""
        for name in sorted(tables, key=lambda t: t == "games"):
            write_shard(self.root, name, tables[name], start, n, self.run)

    def read(self, table: str, start: int, n: int, columns: list[str] | None = None) -> pa.Table:
        return pq.read_table(self.path(table, start, n), columns=columns)

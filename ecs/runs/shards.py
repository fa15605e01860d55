"""Shards and the manifest that vouches for them.

A shard is one chunk's rows of one table, ``TABLE/part-<first seed, 20 digits>-<n>.parquet``.
It is written to a hidden temp file, checked (its seeds are exactly the chunk's) and hashed;
a line with its row count, size, SHA-256 and the run's identity key is appended to
``manifest.jsonl`` (one ``write`` of a short line in append mode: whole even with several
workers appending), and only then is the file renamed into place, so a shard in place is
always vouched for. A resume trusts a shard only if the manifest vouches for its bytes for
this run, so a truncated, flipped, swapped, foreign or stray file is caught by hashing the
bytes (fast at any run size: no rows are decoded). The manifest is append-only (a torn last
line, from a kill mid-append, is ignored) and rewritten atomically, holding only the shards
found good, each time a run directory is opened.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Iterable

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from battlesim.ecs.runs.identity import file_sha256

MANIFEST = "manifest.jsonl"
SHARD_NAME = re.compile(r"^part-(-?\d{19,20})-(\d+)\.parquet$")


@dataclass(frozen=True)
class ShardRecord:
    """What the manifest says of one shard."""

    table: str
    start: int
    n: int
    rows: int
    bytes: int
    sha256: str
    run: str  # the run's identity key (``RunIdentity.key``)

    def line(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @staticmethod
    def parse(line: str) -> "ShardRecord | None":
        try:
            d = json.loads(line)
            r = ShardRecord(str(d["table"]), int(d["start"]), int(d["n"]), int(d["rows"]), int(d["bytes"]),
                            str(d["sha256"]), str(d["run"]))
        except (ValueError, KeyError, TypeError):
            return None
        return r if r.n >= 1 and r.rows >= 0 else None


def shard_name(start: int, n: int) -> str:
    return f"part-{start:020d}-{n}.parquet"


def shard_path(root: str | Path, table: str, start: int, n: int) -> Path:
    return Path(root) / table / shard_name(start, n)


def parse_shard_name(name: str) -> tuple[int, int] | None:
    m = SHARD_NAME.match(name)
    return (int(m.group(1)), int(m.group(2))) if m else None


def write_shard(root: str | Path, table_name: str, table: pa.Table, start: int, n: int, run: str) -> ShardRecord:
    """Write one shard so that it appears complete or not at all (temp file + rename), after
    checking that its seeds are the chunk's (every games row once; cards rows of its games)."""
    seeds = table.column("seed").to_numpy()
    if table_name == "games":
        ok = seeds.size == n and np.array_equal(np.sort(seeds), np.arange(start, start + n, dtype=np.int64))
    else:
        ok = seeds.size == 0 or (int(seeds.min()) >= start and int(seeds.max()) < start + n)
    if not ok:
        raise RuntimeError(f"the {table_name} rows of the chunk of seeds {start}..{start + n - 1} do not hold "
                           "exactly its seeds (a ruleset bug)")
    path = shard_path(root, table_name, start, n)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        pq.write_table(table, tmp)
        record = ShardRecord(table_name, start, n, table.num_rows, tmp.stat().st_size, file_sha256(tmp), run)
        Manifest(Path(root)).append([record])
        os.replace(tmp, path)
    finally:
        if tmp.exists():  # a failed write leaves nothing behind
            tmp.unlink()
    return record


class Manifest:
    """``manifest.jsonl`` of a run directory: one ``ShardRecord`` per line, the last one of a
    shard winning."""

    def __init__(self, root: Path) -> None:
        self.path = root / MANIFEST

    def read(self) -> dict[tuple[str, int, int], ShardRecord]:
        records: dict[tuple[str, int, int], ShardRecord] = {}
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return records
        for line in text.splitlines():
            r = ShardRecord.parse(line)
            if r is not None:
                records[(r.table, r.start, r.n)] = r
        return records

    def append(self, records: Iterable[ShardRecord]) -> None:
        data = "".join(r.line() + "\n" for r in records).encode("utf-8")
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)

    def rewrite(self, records: Iterable[ShardRecord]) -> None:
        tmp = self.path.with_name(f".{MANIFEST}.tmp")
        tmp.write_text("".join(r.line() + "\n" for r in sorted(records, key=lambda r: (r.start, r.table))),
                       encoding="utf-8")
        os.replace(tmp, self.path)


def check_shard(path: Path, record: ShardRecord | None, run: str) -> str | None:
    """Why the shard at ``path`` cannot be trusted (None: it can): the manifest must vouch for
    its size and bytes, for this run, and its footer must hold the recorded row count."""
    if record is None:
        return "not recorded in the manifest (a stray file, or written by a run stopped before recording it)"
    if record.run != run:
        return "recorded for another run"
    try:
        size = path.stat().st_size
    except OSError as e:
        return f"unreadable ({e.strerror})"
    if size != record.bytes:
        return f"truncated or altered ({size:,} bytes, {record.bytes:,} recorded)"
    if file_sha256(path) != record.sha256:
        return "corrupt or swapped (its checksum is not the recorded one)"
    try:
        rows = pq.read_metadata(path).num_rows
    except Exception as e:  # noqa: BLE001 - any unreadable footer is a bad shard
        return f"unreadable Parquet ({type(e).__name__})"
    if rows != record.rows:
        return f"holds {rows} rows, {record.rows} recorded"
    return None


def verify(root: Path, tables: tuple[str, ...], seed: int, games: int, run: str,
           report: Callable[[str], None]) -> list[tuple[int, int]]:
    """The finished chunks of the run of seeds ``seed .. seed + games - 1`` whose every shard
    checks out, sorted. Any other shard file (bad, foreign, overlapping, out of the run's range,
    or of a chunk missing a table) is reported in one line and removed, and the manifest is
    rewritten to hold exactly the good shards: what stays is one row per seed, once."""
    manifest = Manifest(root)
    recorded = manifest.read()
    found: dict[tuple[int, int], dict[str, Path]] = {}
    for t in tables:
        d = root / t
        if not d.is_dir():
            continue
        for p in sorted(d.iterdir()):
            if p.name.startswith("."):
                continue
            key = parse_shard_name(p.name)
            if key is None or not p.is_file():
                _remove(p, "not a shard of this run", report)
                continue
            found.setdefault(key, {})[t] = p
    for (t, start, n), r in sorted(recorded.items(), key=lambda kv: kv[0][1:]):
        if t in tables and t not in found.get((start, n), {}):
            report(f"{t} shard of seeds {start}..{start + n - 1} is missing: its games are played again")
    good: list[tuple[int, int]] = []
    keep: list[ShardRecord] = []
    end = seed + games
    for (start, n), paths in sorted(found.items()):
        problem = None
        if start < seed or start + n > end:
            problem = f"outside the run's seeds {seed}..{end - 1}"
        elif good and start < good[-1][0] + good[-1][1]:
            problem = "overlaps another shard"
        if problem is None:
            for t in tables:
                if t not in paths:
                    continue
                why = check_shard(paths[t], recorded.get((t, start, n)), run)
                if why is not None:
                    report(f"{paths[t]}: {why}: removed, its games are played again")
                    del paths[t]
            if set(paths) != set(tables):
                problem = "its chunk is incomplete (a shard of another table is missing or bad)"
        if problem is not None:
            for p in paths.values():
                _remove(p, problem, report)
            continue
        good.append((start, n))
        keep += [recorded[(t, start, n)] for t in tables]
    manifest.rewrite(keep)
    return good


def _remove(path: Path, why: str, report: Callable[[str], None]) -> None:
    report(f"{path}: {why}: removed")
    if path.is_dir() and not path.is_symlink():
        import shutil

        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)

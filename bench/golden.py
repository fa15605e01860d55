"""Golden games: record the games and cards tables of fixed seeds and agents, and compare.

Every change to how the engine computes anything is made behind these tables: record them before,
compare after each step; they must be identical unless the change is a rule fix with its own test.

    python bench/golden.py record /tmp/golden-before      # plays the set, writes Parquet + hashes
    python bench/golden.py compare /tmp/golden-before     # plays it again, reports differing rows
    python bench/golden.py hashes /tmp/golden-before      # the per-table hashes only
    python bench/golden.py verify                         # plays the set, checks bench/golden_hashes.json

``bench/golden_hashes.json`` holds the hashes of the tables the engine must reproduce (recorded
after issue 12's rule fixes; the compiled core reproduces them row for row), so identity can be
checked on any machine without the tables; ``compare`` against recorded tables says which rows
differ.

The set is the one the compiled-core issue names: random vs random on three deck pairs (2,048
seeds each), greedy vs greedy and greedy vs random (512 each), lookahead vs greedy (64).
``--quick`` plays an eighth of each (for a step of a refactor; the full set before a commit).
The script imports whatever ``battlesim`` (or, on older commits, ``ecs``) is importable, so the
same file records any commit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

try:  # the one namespace
    from battlesim.ecs.runs.runner import run_games
except ImportError:  # commits before it
    from ecs.runner import run_games  # type: ignore[no-redef]

# (name, decks, agents, seed, games)
CASES: list[tuple[str, tuple[str, str] | None, tuple[str, str], int, int]] = [
    ("random_default", None, ("random", "random"), 0, 2048),
    ("random_rb_gg", ("red_black_raiders", "green_grove"), ("random", "random"), 10_000, 2048),
    ("random_bt_bc", ("blue_tide", "black_covenant"), ("random", "random"), 20_000, 2048),
    ("greedy_greedy", None, ("greedy", "greedy"), 30_000, 512),
    ("greedy_random", None, ("greedy", "random"), 40_000, 512),
    ("lookahead_greedy", None, ("lookahead", "greedy"), 50_000, 64),
]


def play(quick: bool) -> dict[str, dict[str, pa.Table]]:
    """Each case's games and cards tables, sorted by seed."""
    out: dict[str, dict[str, pa.Table]] = {}
    for name, decks, agents, seed, games in CASES:
        n = max(8, games // 8) if quick else games
        with tempfile.TemporaryDirectory() as tmp:
            run_games(n, seed=seed, decks=decks, agents=agents, out=tmp)
            tables = {}
            for t in ("games", "cards"):
                table = ds.dataset(f"{tmp}/{t}").to_table()
                # Arrow's sort is stable: rows of one seed keep the order the engine wrote them in
                tables[t] = table.sort_by([("seed", "ascending")]).combine_chunks()
        out[name] = tables
        print(f"{name}: {n} games", file=sys.stderr)
    return out


def digest(table: pa.Table) -> str:
    """A hash of a table's content (column names, types and values, in row order)."""
    h = hashlib.sha256()
    for col in table.column_names:
        h.update(col.encode())
        h.update(str(table.schema.field(col).type).encode())
        h.update(json.dumps(table.column(col).to_pylist(), default=str).encode())
    return h.hexdigest()


def record(path: Path, quick: bool) -> dict[str, str]:
    path.mkdir(parents=True, exist_ok=True)
    import pyarrow.parquet as pq

    hashes = {}
    for name, tables in play(quick).items():
        for t, table in tables.items():
            pq.write_table(table, path / f"{name}.{t}.parquet")
            hashes[f"{name}.{t}"] = digest(table)
    (path / "hashes.json").write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n")
    return hashes


def compare(path: Path, quick: bool) -> int:
    import pyarrow.parquet as pq

    bad = 0
    for name, tables in play(quick).items():
        for t, table in tables.items():
            old = pq.read_table(path / f"{name}.{t}.parquet")
            if quick:  # the recorded games of the seeds played now
                old = old.filter(pc.is_in(old.column("seed"), value_set=pc.unique(table.column("seed"))))
            if old.equals(table):
                continue
            bad += 1
            if old.num_rows != table.num_rows or old.schema != table.schema:
                print(f"{name}.{t}: shape differs ({old.num_rows} vs {table.num_rows} rows; "
                      f"schema equal: {old.schema == table.schema})")
                continue
            for col in old.column_names:
                a, b = old.column(col).to_pylist(), table.column(col).to_pylist()
                diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
                if diff:
                    i = diff[0]
                    seed = old.column("seed")[i].as_py()
                    print(f"{name}.{t}: column {col} differs in {len(diff)} rows; first at seed {seed}: "
                          f"{a[i]!r} -> {b[i]!r}")
    print("golden: identical" if not bad else f"golden: {bad} tables differ")
    return 1 if bad else 0


HASHES = Path(__file__).with_name("golden_hashes.json")


def verify() -> int:
    """Play the full set and check each table's hash against ``bench/golden_hashes.json``."""
    want = json.loads(HASHES.read_text())
    bad = [f"{name}.{t}" for name, tables in play(False).items() for t, table in tables.items()
           if want.get(f"{name}.{t}") != digest(table)]
    print("golden: identical" if not bad else f"golden: {len(bad)} tables differ: {', '.join(bad)}")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("verb", choices=["record", "compare", "hashes", "verify"])
    ap.add_argument("path", type=Path, nargs="?", default=HASHES.parent)
    ap.add_argument("--quick", action="store_true", help="an eighth of each case")
    a = ap.parse_args()
    if a.verb == "record":
        print(json.dumps(record(a.path, a.quick), indent=1, sort_keys=True))
        return 0
    if a.verb == "verify":
        return verify()
    if a.verb == "hashes":
        print((a.path / "hashes.json").read_text())
        return 0
    return compare(a.path, a.quick)


if __name__ == "__main__":
    sys.exit(main())

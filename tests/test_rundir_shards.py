"""Every shard is verified before it is trusted (issue 12): "On resume a missing, truncated,
corrupt, foreign or extra shard is reported in one line on stderr and replayed or removed, so
the final tables always hold exactly one row per seed." (Today: "a truncated games shard makes
every resume crash; a truncated cards shard, flipped bytes, a shard swapped for another chunk's,
or a stray extra shard are accepted, and the summary is then wrong".)"""

import json
import shutil

import pyarrow.dataset as ds
import pytest

from battlesim.ecs.runs.chunks import Tally
from battlesim.ecs.runs.runner import RunConfig, simulate
from battlesim.ecs.runs.shards import MANIFEST, shard_name

DECKS = ("green_grove", "black_covenant")
CFG = RunConfig(games=60, seed=100, decks=DECKS, chunk=20)


@pytest.fixture(scope="module")
def reference(lanes):
    return simulate(CFG, game=lanes, cards=True)


def shard(out, table, start, n=20):
    return out / table / shard_name(start, n)


def truncate(p):
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])


def flip(p):
    data = bytearray(p.read_bytes())
    data[len(data) // 3] ^= 0xFF
    p.write_bytes(bytes(data))


def swap(out):
    a, b = shard(out, "games", 100), shard(out, "games", 120)
    tmp = a.with_name("x")
    a.rename(tmp), b.rename(a), tmp.rename(b)


def foreign(out):
    # the same chunk of another run (other agents): a name that fits, rows that do not
    other = out.parent / "other"
    simulate(RunConfig(games=60, seed=100, decks=DECKS, chunk=20, agents=("pass", "pass")), other)
    shutil.copy(shard(other, "cards", 140), shard(out, "cards", 140))


def foreign_manifest(out):
    # a whole chunk of another run, its manifest lines too: vouched for, but not for this run
    other = out.parent / "other"
    simulate(RunConfig(games=60, seed=100, decks=DECKS, chunk=20, agents=("pass", "pass")), other)
    for t in ("games", "cards"):
        shutil.copy(shard(other, t, 120), shard(out, t, 120))
    lines = [line for line in (other / MANIFEST).read_text().splitlines() if '"start": 120' in line]
    with open(out / MANIFEST, "a") as f:
        f.write("\n".join(lines) + "\n")


def extra(out):
    shutil.copy(shard(out, "games", 120), shard(out, "games", 125, 5))  # overlaps 120..139
    shutil.copy(shard(out, "games", 120), shard(out, "games", 160))  # past the run's last seed
    (out / "cards" / "notes.parquet").write_bytes(b"PAR1")  # not a shard name


FAULTS = {
    "games shard truncated": (lambda out: truncate(shard(out, "games", 120)), 20),
    "cards shard truncated": (lambda out: truncate(shard(out, "cards", 100)), 20),
    "games shard with flipped bytes": (lambda out: flip(shard(out, "games", 140)), 20),
    "cards shard with flipped bytes": (lambda out: flip(shard(out, "cards", 120)), 20),
    "two games shards swapped": (swap, 40),
    "a foreign cards shard": (foreign, 20),
    "a foreign chunk with its manifest lines": (foreign_manifest, 20),
    "extra shards": (extra, 0),
    "games shard missing": (lambda out: shard(out, "games", 140).unlink(), 20),
    "cards shard missing": (lambda out: shard(out, "cards", 100).unlink(), 20),
    "manifest lost": (lambda out: (out / MANIFEST).unlink(), 60),
    "manifest with a torn line": (lambda out: (out / MANIFEST).write_text((out / MANIFEST).read_text()[:-30]), 20),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_bad_shard_is_reported_and_replayed_leaving_one_row_per_seed(lanes, reference, tmp_path, fault):
    out = tmp_path / "run"
    simulate(CFG, out, game=lanes)
    damage, replayed = FAULTS[fault]
    damage(out)
    reports = []
    again = simulate(CFG, out, game=lanes, cards=True, warn=reports.append)
    assert again.games_played == replayed
    assert reports and all("\n" not in r for r in reports)
    assert all(("removed" in r or "played again" in r) for r in reports), reports
    # the tables hold exactly one row per seed, and the summary is the reference's
    games = ds.dataset(out / "games").to_table().sort_by("seed")
    assert games.column("seed").to_pylist() == list(range(100, 160))
    assert games.equals(reference.table)
    cards = ds.dataset(out / "cards").to_table().sort_by([("seed", "ascending"), ("player", "ascending")])
    assert cards.num_rows == reference.cards.num_rows
    assert cards.column("seed").to_pylist() == reference.cards.sort_by(
        [("seed", "ascending"), ("player", "ascending")]).column("seed").to_pylist()
    assert again.tally == Tally.of_table(reference.table)
    # and once repaired, a resume finds nothing to say
    quiet = []
    assert simulate(CFG, out, game=lanes, warn=quiet.append).games_played == 0 and quiet == []


def test_a_report_names_the_shard_and_what_is_wrong(lanes, tmp_path):
    out = tmp_path / "run"
    simulate(CFG, out, game=lanes)
    truncate(shard(out, "games", 120))
    reports = []
    simulate(CFG, out, game=lanes, warn=reports.append)
    bad = [r for r in reports if shard_name(120, 20) in r and "games" in r]
    assert bad and "truncated" in bad[0]


def test_the_manifest_records_size_rows_and_checksum_of_every_shard(lanes, tmp_path):
    out = tmp_path / "run"
    simulate(CFG, out, game=lanes)
    lines = [json.loads(line) for line in (out / MANIFEST).read_text().splitlines()]
    assert sorted((r["table"], r["start"], r["n"]) for r in lines) == sorted(
        (t, s, 20) for t in ("games", "cards") for s in (100, 120, 140))
    for r in lines:
        p = shard(out, r["table"], r["start"])
        assert r["bytes"] == p.stat().st_size and len(r["sha256"]) == 64
        assert r["rows"] == (20 if r["table"] == "games" else ds.dataset(p).count_rows())


def test_pool_workers_record_their_shards(tmp_path):
    out = tmp_path / "run"
    simulate(CFG, out, workers=2)
    reports = []
    assert simulate(CFG, out, warn=reports.append).games_played == 0 and reports == []
    assert len((out / MANIFEST).read_text().splitlines()) == 6

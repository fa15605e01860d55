"""Resuming a run directory: finished shards are kept, missing ones played; a run killed with
SIGKILL and resumed ends with every seed exactly once; temp shards are never read."""

import json
import os
import signal
import subprocess
import sys
import time

import pyarrow.dataset as ds
import pytest

from battlesim.ecs.runs.identity import run_identity
from battlesim.ecs.runs.rundir import RunDir
from battlesim.ecs.runs.runner import RunConfig, RunError, simulate

DECKS = ("green_grove", "black_covenant")


def seeds_of(out, table="games"):
    return ds.dataset(out / table).to_table(columns=["seed"]).column("seed").to_pylist()


def test_rerun_plays_only_missing_shards(lanes, tmp_path):
    out = tmp_path / "run"
    cfg = RunConfig(games=100, seed=9, decks=DECKS, chunk=20)
    first = simulate(cfg, out, game=lanes)
    games_dir, cards_dir = out / "games", out / "cards"
    (games_dir / "part-00000000000000000049-20.parquet").unlink()  # chunk 49..68 lost its commit mark
    (cards_dir / "part-00000000000000000089-20.parquet").unlink()  # chunk 89..108 lost its cards
    before = {p: p.stat().st_mtime_ns for p in games_dir.iterdir()}
    again = simulate(cfg, out, game=lanes)
    assert again.games_played == 40
    assert again.table.equals(first.table)
    rewritten = {p for p in games_dir.iterdir() if before.get(p) != p.stat().st_mtime_ns}
    assert {p.name for p in rewritten} == {"part-00000000000000000049-20.parquet", "part-00000000000000000089-20.parquet"}
    assert sorted(seeds_of(out)) == list(range(9, 109))
    assert sorted(set(seeds_of(out, "cards"))) == list(range(9, 109))


def test_different_configuration_is_refused_with_what_differs(lanes, tmp_path):
    out = tmp_path / "run"
    simulate(RunConfig(games=10, decks=DECKS, chunk=5, agents=("pass", "pass")), out, game=lanes)
    with pytest.raises(RunError) as e:
        simulate(RunConfig(games=10, decks=DECKS, chunk=5, agents=("random", "pass")), out, game=lanes)
    msg = str(e.value)
    assert "holds a different run" in msg and "agents" in msg and "'random'" in msg and "--restart" in msg
    record = json.loads((out / "run.json").read_text())
    assert record["identity"]["options"]["agents"] == ["pass", "pass"] and record["chunk"] == 5


def test_a_directory_in_use_is_refused(lanes, tmp_path):
    out = tmp_path / "run"
    config = RunConfig(games=10, decks=DECKS, chunk=5, agents=("pass", "pass"))
    simulate(config, out, game=lanes)
    identity = run_identity(lanes, ruleset="lanes", seed=0, decks=DECKS, agents=("pass", "pass"), params={})
    holder = RunDir(out).open(identity, 0, 10, 5)
    try:
        with pytest.raises(RunError, match="in use by another battlesim run"):
            simulate(config, out, game=lanes)
    finally:
        holder.close()
    simulate(config, out, game=lanes)  # free again


def cli(*args):
    env = dict(os.environ)
    return [sys.executable, "-m", "battlesim.ecs.cli", "simulate", *args], env


@pytest.mark.parametrize("workers", [1, 2])
def test_killed_run_resumed_has_every_seed_exactly_once(tmp_path, workers):
    out = tmp_path / "run"
    games, chunk = 300, 10  # many small chunks: killed after the first, whatever the engine's speed
    args = ["--games", str(games), "--chunk", str(chunk), "--deck", DECKS[0], "--vs", DECKS[1], "--agents", "pass,pass",
            "--out", str(out), "--quiet", "--json", "--workers", str(workers)]
    cmd, env = cli(*args)
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 60
    try:
        while not list((out / "games").glob("part-*.parquet")):
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "no shard appeared"
            time.sleep(0.005)
    finally:
        os.kill(proc.pid, signal.SIGKILL)  # the driver only: its workers must not outlive it
        proc.wait()
    done = len(list((out / "games").glob("part-*.parquet")))
    assert 1 <= done < games // chunk, "the run finished before it could be killed"
    # what a write cut short leaves behind: a temp shard that must never be read
    junk = out / "games" / f".part-{0:020d}-{chunk}.parquet.99999.tmp"
    junk.write_bytes(b"PAR1 half a file")

    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    assert summary["games"] == games and summary["games_played"] <= games - done * chunk
    assert not junk.exists()
    seeds = seeds_of(out)
    assert len(seeds) == games and sorted(seeds) == list(range(games))
    cards = ds.dataset(out / "cards").to_table(columns=["seed"]).column("seed").to_pylist()
    assert sorted(set(cards)) == list(range(games))
    assert not list(out.rglob("*.tmp"))
    assert not survivors(proc.pid), "processes of the killed run outlived it"


def survivors(pgid, wait=5.0):
    """Processes still in the killed run's process group (its forkserver and workers)."""
    deadline = time.monotonic() + wait
    while True:
        ps = subprocess.run(["ps", "-eo", "pid=,pgid=,stat="], capture_output=True, text=True).stdout.split("\n")
        alive = [l.split() for l in ps if l.strip()]
        left = [p for p, g, st in alive if int(g) == pgid and not st.startswith("Z")]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)

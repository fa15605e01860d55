"""The determinism contract across backends and chunkings, and failing chunks.

"for the same seeds the games table is identical (row for row, after sorting by seed) for
inline, --workers 2, and Ray, and for any --chunk". Failures are injected from the tests only:
in this process by monkeypatching the game, in worker processes by the test plugin
tests/fault_plugin.py (loaded with ``plugins=``, configured by environment variables)."""

import contextlib
from pathlib import Path

import pytest

from battlesim.ecs.runs.runner import ChunkFailed, RunConfig, RunError, simulate
from battlesim.systems.lanes.ruleset import LanesGame
from fault_plugin import armed


def inject(monkeypatch, seed, times=None):
    """In this process: the batch holding ``seed`` raises, the first ``times`` times (None: always)."""
    real = LanesGame.play_tables
    fired = []

    def play_tables(self, seeds, *args, **kwargs):
        if seed in list(seeds) and (times is None or len(fired) < times):
            fired.append(seed)
            raise RuntimeError(f"injected fault at seed {seed}")
        return real(self, seeds, *args, **kwargs)

    monkeypatch.setattr(LanesGame, "play_tables", play_tables)
    return fired


@pytest.fixture
def faulty(tmp_path):
    """``faulty(spec)``: plugins that misbehave as ``spec`` in worker processes
    (tests/fault_plugin.py), disarmed and unloaded when the test ends."""
    with contextlib.ExitStack() as stack:
        yield lambda spec: stack.enter_context(armed(tmp_path, spec))

DECKS = ("red_black_raiders", "blue_tide")
GAMES = 120


def cfg(chunk):
    return RunConfig(games=GAMES, seed=1000, decks=DECKS, chunk=chunk)


@pytest.fixture(scope="module")
def reference(lanes):
    """Seeds 1000..1119 played in this process as one batch."""
    return simulate(cfg(GAMES), game=lanes).table


def test_inline_any_chunking_equals_reference(lanes, reference):
    for chunk in (17, 64):
        assert simulate(cfg(chunk), game=lanes).table.equals(reference)


def test_two_workers_equal_reference(reference, tmp_path):
    r = simulate(cfg(30), tmp_path / "run", workers=2, cards=True)
    assert r.table.sort_by("seed").equals(reference)
    assert r.cards.column("seed").to_pylist() == sorted(r.cards.column("seed").to_pylist())
    # what the workers wrote is what came back
    import pyarrow.dataset as ds

    assert ds.dataset(tmp_path / "run" / "games").to_table().sort_by("seed").equals(reference)


def small(chunk=20):
    return RunConfig(games=60, seed=1000, decks=DECKS, chunk=chunk)


def test_a_raising_chunk_is_retried_in_process(lanes, reference, monkeypatch):
    inject(monkeypatch, 1025, times=1)  # the batch fails once (its games alone do not): then plays
    warnings = []
    r = simulate(small(), game=lanes, warn=warnings.append)
    assert r.table.equals(reference.slice(0, 60))
    assert len(warnings) == 1 and warnings[0].startswith("chunk of seeds 1020..1039 failed") and "retrying" in warnings[0]


def test_a_chunk_failing_twice_the_same_way_stops_the_run_naming_the_seed(lanes, monkeypatch, tmp_path):
    # the issue: "a chunk that fails the same way twice on the same seeds (a rule error is
    # deterministic) stops the run at once, naming the seed"
    inject(monkeypatch, 1031)
    warnings = []
    with pytest.raises(ChunkFailed) as e:
        simulate(small(), tmp_path / "run", game=lanes, retries=5, warn=warnings.append)
    msg = str(e.value)
    assert "seeds 1020..1039 failed twice the same way" in msg and "seed 1031: RuntimeError: injected fault at seed 1031" in msg
    assert "run the same command again" in msg and len(warnings) == 1  # stopped at the 2nd attempt, not the 6th
    assert (e.value.start, e.value.n) == (1020, 20)
    monkeypatch.undo()
    # the shards written before the stop are kept (1000..1019); a rerun completes the run
    again = simulate(small(), tmp_path / "run", game=lanes)
    assert again.games_played == 40 and again.table.column("seed").to_pylist() == list(range(1000, 1060))


def test_a_chunk_that_keeps_failing_differently_stops_after_its_retries(lanes, monkeypatch):
    real = LanesGame.play
    calls = []

    def flaky(self, seeds, *args, **kwargs):  # (without --out no cards table: play, not play_tables)
        if 1030 in list(seeds):
            calls.append(1)
            raise RuntimeError(f"transient failure number {len(calls)}")
        return real(self, seeds, *args, **kwargs)

    monkeypatch.setattr(LanesGame, "play", flaky)
    with pytest.raises(ChunkFailed, match=r"seeds 1020\.\.1039 failed 2 time\(s\), last: .*transient failure"):
        simulate(small(), game=lanes, retries=1)


def test_a_crashed_worker_chunk_is_retried(reference, faulty):
    plugins = faulty("1065:crash:1")  # the worker holding seed 1065 dies, once
    warnings = []
    r = simulate(RunConfig(games=GAMES, seed=1000, decks=DECKS, chunk=30, plugins=plugins),
                 workers=2, warn=warnings.append)
    assert r.table.sort_by("seed").equals(reference)
    assert len(warnings) == 1
    assert "1060..1089" in warnings[0] and "worker process died" in warnings[0] and "retrying" in warnings[0]


def test_a_stopped_worker_is_timed_out_and_its_chunk_retried_elsewhere(reference, faulty):
    # the issue: "a stopped worker hangs the run forever"; now "a chunk that runs past a timeout
    # (a hung or stopped worker) is retried elsewhere"
    plugins = faulty("1065:stop:1")  # the worker holding seed 1065 SIGSTOPs itself, once
    warnings = []
    r = simulate(RunConfig(games=GAMES, seed=1000, decks=DECKS, chunk=30, plugins=plugins),
                 workers=2, warn=warnings.append, chunk_timeout=20)
    assert r.table.sort_by("seed").equals(reference)
    assert len(warnings) == 1 and "1060..1089" in warnings[0] and "no result after 20 s" in warnings[0]


def test_a_chunk_that_hangs_twice_stops_the_run(faulty):
    plugins = faulty("1005:hang")
    with pytest.raises(ChunkFailed, match=r"seeds 1000\.\.1019 failed twice the same way: no result after 5 s"):
        simulate(RunConfig(games=40, seed=1000, decks=DECKS, chunk=20, plugins=plugins),
                 workers=2, chunk_timeout=5, retries=3)


def test_a_full_disk_stops_the_run_at_once_keeping_the_shards(lanes, monkeypatch, tmp_path):
    # the issue: "a full disk stops it at once with a clear message"
    import errno

    from battlesim.ecs.runs import shards

    real = shards.pq.write_table

    def full(table, where, *a, **k):
        if 1030 in table.column("seed").to_pylist():
            raise OSError(errno.ENOSPC, "No space left on device", str(where))
        return real(table, where, *a, **k)

    monkeypatch.setattr(shards.pq, "write_table", full)
    warnings = []
    with pytest.raises(ChunkFailed) as e:
        simulate(small(), tmp_path / "run", game=lanes, warn=warnings.append)
    assert "No space left on device" in str(e.value) and "seeds 1020..1039" in str(e.value) and "kept" in str(e.value)
    assert warnings == []  # not retried
    monkeypatch.undo()
    again = simulate(small(), tmp_path / "run", game=lanes)
    assert again.games_played == 40 and again.table.num_rows == 60


def test_a_full_disk_in_a_worker_stops_the_run(faulty, tmp_path):
    plugins = faulty("1030:enospc")
    with pytest.raises(ChunkFailed, match="No space left on device"):
        simulate(RunConfig(games=60, seed=1000, decks=DECKS, chunk=20, plugins=plugins),
                 tmp_path / "run", workers=2, retries=3)


def test_no_fault_hook_in_production_code():
    # the issue: "Test-only fault injection stays out of production code paths"
    root = Path(__file__).parents[1] / "ecs"
    assert not [p for p in root.rglob("*.py") if "BATTLESIM_FAULT" in p.read_text()]


def test_ray_missing_names_the_extra(lanes, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_ray(name, *args, **kwargs):
        if name == "ray" or name.startswith("ray."):
            raise ImportError("No module named 'ray'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    with pytest.raises(RunError, match=r"pip install 'battlesim\[ray\]'"):
        simulate(small(), game=lanes, backend="ray")


class TestRay:
    """A local Ray with 2 CPUs (skipped only when ray is not installed)."""

    @pytest.fixture(scope="class")
    def ray_local(self):
        ray = pytest.importorskip("ray")
        import logging

        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
        yield ray
        ray.shutdown()

    def test_ray_equals_reference_and_writes_shards(self, ray_local, reference, tmp_path):
        r = simulate(cfg(30), tmp_path / "run", backend="ray")
        assert r.table.equals(reference)
        import pyarrow.dataset as ds

        assert ds.dataset(tmp_path / "run" / "games").to_table().sort_by("seed").equals(reference)
        assert len(list((tmp_path / "run" / "cards").glob("*.parquet"))) == 4

    def test_ray_retries_a_hung_task_after_its_timeout(self, ray_local, reference, faulty):
        plugins = faulty("1025:hang:1")
        warnings = []
        r = simulate(RunConfig(games=60, seed=1000, decks=DECKS, chunk=20, plugins=plugins),
                     backend="ray", warn=warnings.append, chunk_timeout=15)
        assert r.table.equals(reference.slice(0, 60))
        assert len(warnings) == 1 and "1020..1039" in warnings[0] and "no result after 15 s" in warnings[0]

    def test_ray_driver_stops_at_once_on_a_full_disk(self, ray_local, monkeypatch, tmp_path):
        import errno

        from battlesim.ecs.runs import shards

        def full(*a, **k):
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(shards.pq, "write_table", full)  # the driver writes Ray's shards
        with pytest.raises(ChunkFailed, match="No space left on device.*kept"):
            simulate(small(), tmp_path / "run", backend="ray")

    def test_ray_retries_a_crashed_task(self, ray_local, reference, faulty):
        plugins = faulty("1000:crash:1")
        warnings = []
        r = simulate(RunConfig(games=60, seed=1000, decks=DECKS, chunk=20, plugins=plugins),
                     backend="ray", warn=warnings.append)
        assert r.table.equals(reference.slice(0, 60))
        assert len(warnings) == 1 and "1000..1019" in warnings[0]

"""The determinism contract across backends and chunkings, and failing chunks.

"for the same seeds the games table is identical (row for row, after sorting by seed) for
inline, --workers 2, and Ray, and for any --chunk". Failures are injected with the test-only
hook ``BATTLESIM_FAULT=SEED[:raise|crash[:ATTEMPTS]]`` (ecs/runs/chunks.py)."""

import pytest

from battlesim.ecs.runs.chunks import FAULT_ENV
from battlesim.ecs.runs.runner import ChunkFailed, RunConfig, RunError, simulate

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


def test_a_crashed_worker_chunk_is_retried(reference, monkeypatch):
    monkeypatch.setenv(FAULT_ENV, "1065:crash:1")  # the worker holding seed 1065 dies, once
    warnings = []
    r = simulate(cfg(30), workers=2, warn=warnings.append)
    assert r.table.sort_by("seed").equals(reference)
    assert len(warnings) == 1
    assert "1060..1089" in warnings[0] and "worker process died" in warnings[0] and "retrying" in warnings[0]


def small(chunk=20):
    return RunConfig(games=60, seed=1000, decks=DECKS, chunk=chunk)


def test_a_raising_chunk_is_retried_in_process(lanes, reference, monkeypatch):
    monkeypatch.setenv(FAULT_ENV, "1025:raise:2")  # fails twice, then plays
    warnings = []
    r = simulate(small(), game=lanes, warn=warnings.append)
    assert r.table.equals(reference.slice(0, 60))
    assert [w.split(" failed")[0] for w in warnings] == ["chunk of seeds 1020..1039"] * 2


@pytest.mark.parametrize("workers", [1, 2])
def test_a_chunk_that_keeps_failing_stops_the_run_naming_its_seeds(lanes, monkeypatch, tmp_path, workers):
    monkeypatch.setenv(FAULT_ENV, "1030:crash" if workers > 1 else "1030")
    with pytest.raises(ChunkFailed) as e:
        simulate(small(), tmp_path / "run", game=lanes, workers=workers, retries=1)
    msg = str(e.value)
    assert "seeds 1020..1039" in msg and "failed 2 time(s)" in msg and "run the same command again" in msg
    assert (e.value.start, e.value.n) == (1020, 20)
    monkeypatch.delenv(FAULT_ENV)
    # the shards written before the stop are kept (in one process: 1000..1019); a rerun completes the run
    again = simulate(small(), tmp_path / "run", game=lanes)
    assert again.table.num_rows == 60 and again.table.column("seed").to_pylist() == list(range(1000, 1060))
    if workers == 1:
        assert again.games_played == 40


def test_bad_fault_spec_is_refused(lanes, monkeypatch):
    monkeypatch.setenv(FAULT_ENV, "x:boom")
    with pytest.raises(RunError, match=FAULT_ENV):
        simulate(small(), game=lanes)


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

    def test_ray_retries_a_crashed_task(self, ray_local, reference, monkeypatch):
        monkeypatch.setenv(FAULT_ENV, "1000:crash:1")
        warnings = []
        r = simulate(small(), backend="ray", warn=warnings.append)
        assert r.table.equals(reference.slice(0, 60))
        assert len(warnings) == 1 and "1000..1019" in warnings[0]

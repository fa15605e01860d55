"""Where chunks are played: in this process, in a local pool of processes, or on Ray.

Every backend has the same small interface, driven by the runner:

- ``capacity``: how many chunks it wants in flight;
- ``submit(task)``: start a chunk;
- ``next_result() -> (task, ChunkOutput | Failure)``: wait for any chunk in flight to finish;
- ``close()``: stop everything (workers included).

A chunk that raises, whose worker process dies, or that runs past ``timeout`` seconds (a hung
or stopped worker: the local pool and Ray only; the worker is killed and replaced) comes back
as a ``Failure`` naming it; the runner decides whether to retry. Results depend only on the tasks, never on the backend (the
determinism contract), so the runner needs no ordering from a backend.
"""

from __future__ import annotations

import errno
import multiprocessing as mp
import signal
import time
import traceback
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any

from battlesim.ecs.datafiles import DataError
from battlesim.ecs.runs.chunks import ChunkOutput, ChunkPlayer, ChunkTask, RunSetup, one_line

RAY_MISSING = "the ray backend needs Ray, which is not installed: pip install 'battlesim[ray]'"


class BackendError(ValueError):
    """A backend cannot start; ``str()`` is a one-line message for the user."""


# A write that cannot succeed by retrying (full disk, quota, read-only): the run stops at once.
DISK_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS}


@dataclass
class Failure:
    message: str  # one line
    detail: str = ""  # traceback, if any
    fatal: bool = False  # retrying cannot help (a full disk): stop the run at once
    bad_data: bool = False  # a DataError (an effect chain that never quiets): the same on every retry


def failure_of(exc: BaseException) -> Failure:
    return Failure(one_line(exc), traceback.format_exc(),
                   fatal=isinstance(exc, OSError) and exc.errno in DISK_ERRNOS, bad_data=isinstance(exc, DataError))


def _timeout_failure(timeout: float) -> Failure:
    return Failure(f"no result after {timeout:g} s (a hung or stopped worker, or a chunk slower than "
                   "--chunk-timeout allows)")


class InlineBackend:
    """Chunks played one after the other in this process."""

    capacity = 1

    def __init__(self, setup: RunSetup, game: Any = None) -> None:
        self.player = ChunkPlayer(setup, game)
        self.queue: deque[ChunkTask] = deque()

    def submit(self, task: ChunkTask) -> None:
        self.queue.append(task)

    def next_result(self) -> tuple[ChunkTask, ChunkOutput | Failure]:
        task = self.queue.popleft()
        try:
            return task, self.player.play(task)
        except Exception as e:  # noqa: BLE001 - a chunk's failure is reported, then retried or not
            return task, failure_of(e)

    def close(self) -> None:
        self.queue.clear()


# ---- local process pool ---------------------------------------------------------------------


def _start_method() -> str:
    # fork would copy the driver's threads and locks (Arrow's thread pool, Ray...): not safe.
    return "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"


def _die_with_parent() -> None:
    """Linux: get SIGKILL when the parent (the forkserver, which exits with the driver) dies,
    so a killed run leaves no worker behind."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


def _worker_main(conn, setup: RunSetup) -> None:  # pragma: no cover - runs in the worker processes
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle
    _die_with_parent()
    try:
        player = ChunkPlayer(setup)  # the ruleset is loaded once per worker
    except Exception as e:  # noqa: BLE001
        conn.send(("init_error", one_line(e), traceback.format_exc()))
        return
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return  # the driver is gone
        if task is None:
            return
        try:
            out = player.play(task)
            msg: tuple = ("ok", out)
        except Exception as e:  # noqa: BLE001
            f = failure_of(e)
            msg = ("error", f.message, f.detail, f.fatal, f.bad_data)
        try:
            conn.send(msg)
        except (BrokenPipeError, OSError):
            return


class _Worker:
    def __init__(self, ctx, setup: RunSetup) -> None:
        self.conn, child = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(target=_worker_main, args=(child, setup), daemon=True)
        self.proc.start()
        child.close()
        self.task: ChunkTask | None = None
        self.deadline = float("inf")  # time.monotonic() by which its chunk must be back

    def stop(self, timeout: float = 2.0) -> None:
        try:
            self.conn.send(None)
        except (BrokenPipeError, OSError):
            pass
        self.proc.join(timeout)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(timeout)
        self.conn.close()


class ProcessBackend:
    """A local pool of ``workers`` processes (forkserver, or spawn where there is none).

    Each worker loads the ruleset once and plays one chunk at a time. The driver knows which
    chunk each worker holds, so a worker that dies (killed, out of memory, a crash in native
    code) fails exactly its own chunk, and is replaced.
    """

    def __init__(self, setup: RunSetup, workers: int, timeout: float | None = None) -> None:
        if workers < 1:
            raise BackendError(f"--workers must be at least 1 (got {workers})")
        self.setup = setup
        self.ctx = mp.get_context(_start_method())
        if self.ctx.get_start_method() == "forkserver":
            self.ctx.set_forkserver_preload(["battlesim.ecs.runs.chunks"])
        self.workers = [_Worker(self.ctx, setup) for _ in range(workers)]
        self.capacity = workers
        self.timeout = timeout

    def submit(self, task: ChunkTask) -> None:
        w = next(w for w in self.workers if w.task is None)
        w.task = task
        w.deadline = time.monotonic() + self.timeout if self.timeout else float("inf")
        try:
            w.conn.send(task)
        except (BrokenPipeError, OSError):
            pass  # the worker is dead: next_result reports it

    def next_result(self) -> tuple[ChunkTask, ChunkOutput | Failure]:
        busy = [w for w in self.workers if w.task is not None]
        if not busy:
            raise RuntimeError("next_result() with no chunk in flight")
        while True:
            first = min(busy, key=lambda w: w.deadline)
            left = first.deadline - time.monotonic()
            if left <= 0:  # hung or stopped (SIGSTOP): only killing it frees the chunk
                first.proc.kill()
                task, first.task = first.task, None
                self._replace(first)
                return task, _timeout_failure(self.timeout or 0)  # type: ignore[return-value]
            ready = wait([w.conn for w in busy] + [w.proc.sentinel for w in busy],
                         timeout=None if left == float("inf") else left)
            for w in busy:
                if w.conn in ready:
                    try:
                        msg = w.conn.recv()
                    except (EOFError, OSError):
                        return self._died(w)
                    task, w.task = w.task, None
                    if msg[0] == "ok":
                        return task, msg[1]
                    if msg[0] == "init_error":  # the same for every worker: no point retrying
                        raise BackendError(f"a worker could not load the ruleset: {msg[1]}")
                    return task, Failure(msg[1], msg[2], msg[3], msg[4])
            for w in busy:
                if w.proc.sentinel in ready and not w.conn.poll():
                    return self._died(w)

    def _died(self, w: _Worker) -> tuple[ChunkTask, Failure]:
        w.proc.join(1.0)
        code = w.proc.exitcode
        task, w.task = w.task, None
        self._replace(w)
        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit status {code}"
        return task, Failure(f"worker process died ({how})")  # type: ignore[return-value]

    def _replace(self, w: _Worker) -> None:
        i = self.workers.index(w)
        w.stop(timeout=0.5)
        self.workers[i] = _Worker(self.ctx, self.setup)

    def close(self) -> None:
        for w in self.workers:
            if w.task is not None:  # abandon a chunk in flight: do not wait for it
                w.proc.kill()
            w.stop()
        self.workers = []


# ---- Ray ------------------------------------------------------------------------------------


def _ray_play(setup: RunSetup, task: ChunkTask) -> ChunkOutput:  # pragma: no cover - runs in Ray workers
    from battlesim.ecs.runs import chunks

    return chunks.cached_player(setup).play(task)  # the ruleset is loaded once per Ray worker process


class RayBackend:
    """Chunks as Ray tasks, on a local Ray instance or the cluster at ``address``.

    Workers send each chunk's tables back and the driver writes the shards, so the run
    directory only needs to exist where the driver runs. Ray's own retries are off: the
    runner retries a failed chunk like on any backend.
    """

    def __init__(self, setup: RunSetup, address: str | None = None, workers: int | None = None,
                 timeout: float | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise BackendError(RAY_MISSING) from None
        self.ray = ray
        self.started = False
        if not ray.is_initialized():
            import logging

            kwargs: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
            if address:
                kwargs["address"] = address
            else:
                kwargs["include_dashboard"] = False
                if workers and workers > 1:
                    kwargs["num_cpus"] = workers
            try:
                ray.init(**kwargs)
            except Exception as e:  # noqa: BLE001 - cannot reach the cluster, bad address...
                raise BackendError(f"cannot start Ray{' at ' + address if address else ''}: {one_line(e)}") from None
            self.started = True
        cpus = int(ray.cluster_resources().get("CPU", 1)) or 1
        self.capacity = 2 * cpus  # keep every CPU busy while the driver writes shards
        self.remote = ray.remote(max_retries=0, num_cpus=1)(_ray_play)
        self.setup_ref = ray.put(setup)
        self.inflight: dict[Any, ChunkTask] = {}
        self.deadlines: dict[Any, float] = {}
        self.timeout = timeout

    def submit(self, task: ChunkTask) -> None:
        ref = self.remote.remote(self.setup_ref, task)
        self.inflight[ref] = task
        self.deadlines[ref] = time.monotonic() + self.timeout if self.timeout else float("inf")

    def next_result(self) -> tuple[ChunkTask, ChunkOutput | Failure]:
        while True:
            first = min(self.inflight, key=lambda r: self.deadlines[r])
            left = self.deadlines[first] - time.monotonic()
            if left <= 0:
                self.ray.cancel(first, force=True)  # kills the worker process running it
                self.deadlines.pop(first)
                return self.inflight.pop(first), _timeout_failure(self.timeout or 0)
            done, _ = self.ray.wait(list(self.inflight), num_returns=1,
                                    timeout=None if left == float("inf") else left)
            if done:
                break
        ref = done[0]
        task = self.inflight.pop(ref)
        self.deadlines.pop(ref)
        try:
            return task, self.ray.get(ref)
        except Exception as e:  # noqa: BLE001 - RayTaskError, WorkerCrashedError...
            cause = getattr(e, "cause", None)
            if isinstance(cause, BaseException):
                f = failure_of(cause)
                return task, Failure(f.message, str(e), f.fatal, f.bad_data)
            return task, Failure(one_line(e), str(e))

    def close(self) -> None:
        for ref in self.inflight:
            self.ray.cancel(ref, force=True)
        self.inflight.clear()
        if self.started:
            self.ray.shutdown()


def make_backend(name: str, setup: RunSetup, *, workers: int = 1, address: str | None = None, game: Any = None,
                 timeout: float | None = None):
    """``local`` (in this process with one worker, else a process pool) or ``ray``;
    ``timeout``: seconds a chunk may take in a pool or on Ray (in this process, none)."""
    if name == "ray":
        return RayBackend(setup, address, workers, timeout)
    if address:
        raise BackendError("--address is for --backend ray")
    if name not in ("local", "inline", "process"):
        raise BackendError(f"unknown backend {name!r}; available: local, ray")
    if workers < 1:
        raise BackendError(f"--workers must be at least 1 (got {workers})")
    if name == "inline" or (name == "local" and workers == 1):
        return InlineBackend(setup, game)
    return ProcessBackend(setup, workers, timeout)


__all__ = ["BackendError", "Failure", "InlineBackend", "ProcessBackend", "RayBackend", "make_backend", "RAY_MISSING"]

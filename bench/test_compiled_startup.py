"""group "compile": what the compiled engine costs before the first game (issue 13: "report cold
compile and cached start-up times").

Each round is a fresh process (``python -c``: import battlesim, load the lanes ruleset, build the
engine), as a run, a worker or a CI job starts:

- ``cold``: an empty ``NUMBA_CACHE_DIR``: the engine module is written and everything compiled
  (today the RNG and the damage dispatcher; issue 13 adds the whole game);
- ``cached``: the same directory, already warm: numba loads the machine code;
- ``none``: the same process without building the engine (importing battlesim and numba,
  loading the ruleset): the floor the other two stand on.

The timed value is the process's wall time; ``extra_info["build_s"]`` is ``build()`` alone (the
part the first-run message reports). Run: ``python -m pytest bench/test_compiled_startup.py
--benchmark-only -p no:cacheprovider``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

SCRIPT = ("import json, numba; from battlesim.ecs.ruleset import get_ruleset; get_ruleset('lanes'); "
          "from battlesim.ecs.compiled.engine import build; e = build('lanes'); "
          "print(json.dumps({'compiled': e.compiled, 'build_s': e.seconds}))")
FLOOR = ("import json, numba; from battlesim.ecs.ruleset import get_ruleset; get_ruleset('lanes'); "
         "print(json.dumps({'compiled': False, 'build_s': 0.0}))")


def _start(cache_dir: str, script: str = SCRIPT) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout)


@pytest.mark.benchmark(group="compile")
@pytest.mark.parametrize("kind", ["cold", "cached", "none"])
def test_engine_start_up(benchmark, kind, tmp_path):
    cache_dir = str(tmp_path / "numba")
    if kind == "cached":
        _start(cache_dir)
    builds: list[dict] = []

    def setup():
        if kind == "cold":
            shutil.rmtree(cache_dir, ignore_errors=True)
        return (cache_dir,), {}

    def start(d: str) -> None:
        builds.append(_start(d, FLOOR if kind == "none" else SCRIPT))

    benchmark.pedantic(start, setup=setup, rounds=5, iterations=1)
    assert all(b["compiled"] == (kind == "cold") for b in builds)
    secs = sorted(b["build_s"] for b in builds)
    benchmark.extra_info["build_s_min_median_max"] = [round(secs[0], 3), round(secs[len(secs) // 2], 3),
                                                      round(secs[-1], 3)]

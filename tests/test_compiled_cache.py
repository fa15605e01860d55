"""The engine cache (DESIGN.md "Rules of the road for compiled code"): stale machine code is
impossible, the first compile says so on stderr in one line, a cached start says nothing,
engines of older hashes are pruned, NUMBA_CACHE_DIR is respected. Each run is a fresh
process, as in real use: numba's cache is what carries machine code between them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numba
import pytest

from battlesim.ecs.compiled import cache

DRIVER = '''
import json, sys
import numpy as np
from battlesim.ecs.compiled.damage_queue import new_queue, push
from battlesim.ecs.compiled.engine import build
from battlesim.ecs.compiled.world_view import toy_state
from battlesim.ecs.plugin import load_plugins

load_plugins([sys.argv[1]])
engine = build("lanes")
w = toy_state(1, 2, i16_rows=1)
w.i16[0, 0, 1] = 100
queue, qlen, stack = new_queue(1, 4)
push(queue, qlen, 0, 0, 1, 10, 1)
engine.module.run_damage(w, 0, queue, qlen, 0, engine.columns({"health": 0}), stack)
print(json.dumps({"health": int(w.i16[0, 0, 1]), "compiled": engine.compiled, "path": str(engine.path)}))
'''

STAGE = '''
from scale_helper import factor

from battlesim.ecs.compiled.damage_queue import AMOUNT
from battlesim.ecs.compiled.stages import damage_stage


@damage_stage("lanes", "scale", 200)
def scale(w, b, queue, qlen, i, cols):
    queue[b, i, AMOUNT] = queue[b, i, AMOUNT] * 2 * factor()
'''

HELPER = '''
from numba import njit


@njit
def factor():
    return 1
'''


def _edit_keeping_mtime(path: Path, old: str, new: str) -> None:
    """The nastiest edit for numba's own check (the defining file's timestamp and size): same
    size, same modification time (a checkout, a copy with -p, a wheel's fixed timestamps)."""
    st = path.stat()
    text = path.read_text()
    assert old in text and len(old) == len(new)
    path.write_text(text.replace(old, new))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _run(tmp_path: Path) -> tuple[dict, str]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    p = subprocess.run([sys.executable, str(tmp_path / "driver.py"), str(tmp_path / "scale_plugin.py")],
                       capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout), p.stderr


def test_edits_are_always_compiled_and_old_engines_pruned(tmp_path: Path) -> None:
    (tmp_path / "driver.py").write_text(DRIVER)
    (tmp_path / "scale_plugin.py").write_text(STAGE)
    (tmp_path / "scale_helper.py").write_text(HELPER)

    first, err = _run(tmp_path)
    assert first == {"health": 80, "compiled": True, "path": first["path"]}  # 10 * 2 * 1
    assert re.fullmatch(r"compiling the lanes engine \(first run\)\.\.\. \d+\.\d s\n", err)
    assert Path(first["path"]).is_relative_to(tmp_path / "numba" / "battlesim")  # NUMBA_CACHE_DIR respected

    again, err = _run(tmp_path)
    assert again == dict(first, compiled=False) and err == ""  # a cached start prints nothing

    _edit_keeping_mtime(tmp_path / "scale_plugin.py", "* 2 *", "* 3 *")  # the stage itself
    edited, err = _run(tmp_path)
    assert edited["health"] == 70 and edited["compiled"] and edited["path"] != first["path"]
    assert err.startswith("compiling the lanes engine (first run)...")

    _edit_keeping_mtime(tmp_path / "scale_helper.py", "return 1", "return 2")  # a function it calls, another file
    helper, _ = _run(tmp_path)
    assert helper["health"] == 40 and helper["path"] != edited["path"]  # 10 * 3 * 2

    # only the newest engine of lanes is left, with its numba cache; the others were pruned
    ours = sorted(p.name for p in (tmp_path / "numba" / "battlesim").iterdir())
    assert ours == [Path(helper["path"]).parent.name]
    numbas = [p.name for p in (tmp_path / "numba").iterdir() if p.name.startswith("lanes_")]
    assert len(numbas) == 1 and numbas[0].startswith(Path(helper["path"]).parent.name + "_")


def _run_plugin(tmp_path: Path, plugin: str) -> tuple[dict, str]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    p = subprocess.run([sys.executable, str(tmp_path / "driver.py"), str(tmp_path / plugin)],
                       capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout), p.stderr


def test_engines_of_two_plugin_sets_do_not_prune_each_other(tmp_path: Path) -> None:
    """Runs with ``--plugin A`` and runs with ``--plugin B`` (or none) alternate in a designer's
    day: each plugin set keeps its engine, so neither recompiles the whole game after the other."""
    (tmp_path / "driver.py").write_text(DRIVER)
    (tmp_path / "scale_plugin.py").write_text(STAGE)
    (tmp_path / "scale_helper.py").write_text(HELPER)
    (tmp_path / "halve_plugin.py").write_text(STAGE.replace('"scale"', '"halve"').replace("def scale", "def halve")
                                              .replace("* 2 * factor()", "// 2"))
    a, _ = _run_plugin(tmp_path, "scale_plugin.py")
    b, _ = _run_plugin(tmp_path, "halve_plugin.py")
    assert (a["health"], b["health"]) == (80, 95) and a["path"] != b["path"] and b["compiled"]
    again, err = _run_plugin(tmp_path, "scale_plugin.py")
    assert again == dict(a, compiled=False) and err == ""  # still cached: B's build pruned nothing of A's
    assert Path(b["path"]).exists()


def test_prune_keeps_other_rulesets_and_unrelated_directories(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    root = cache.cache_root()
    names = ["lanes_" + "a" * 16, "lanes_" + "b" * 16, "hex_" + "a" * 16, "lanes_x_" + "a" * 16, "lanes_notahash"]
    for name in names:
        (root / name).mkdir(parents=True)
    (tmp_path / ("lanes_" + "a" * 16 + "_" + "c" * 40)).mkdir()  # numba's cache of engines, under NUMBA_CACHE_DIR
    (tmp_path / ("lanes_" + "b" * 16 + "_" + "c" * 40)).mkdir()
    removed = cache.prune(root, "lanes", "b" * 16)
    assert sorted(p.name for p in removed) == ["lanes_" + "a" * 16, "lanes_" + "a" * 16 + "_" + "c" * 40]
    assert sorted(p.name for p in root.iterdir()) == sorted(set(names) - {"lanes_" + "a" * 16})


def test_the_cache_root_is_numbas_cache_dir_else_the_users(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "nb"))
    assert cache.cache_root() == tmp_path / "nb" / "battlesim"
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_root() == tmp_path / "xdg" / "battlesim"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_root() == tmp_path / "home" / ".cache" / "battlesim"


def test_an_unwritable_cache_is_one_line_naming_the_directory(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    want = r"cannot write the compiled engine to .*file/lanes_0.*NUMBA_CACHE_DIR"
    with pytest.raises(cache.EngineCacheError, match=want):
        cache.write_engine(blocker / "lanes_0" / "engine.py", "x = 1\n")


def test_the_engine_name_changes_with_numbas_version_and_any_source(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # DESIGN.md: "hash of every source file the generated module depends on, and numba's version"
    dep = tmp_path / "dep.py"
    dep.write_text("X = 1\n")
    base = cache.engine_hash("text", [dep])
    assert cache.engine_hash("text", [dep]) == base  # the same inputs, the same name
    assert cache.engine_hash("text 2", [dep]) != base
    dep.write_text("X = 2\n")
    assert cache.engine_hash("text", [dep]) != base
    dep.write_text("X = 1\n")
    monkeypatch.setattr(numba, "__version__", numba.__version__ + ".post1")
    assert cache.engine_hash("text", [dep]) != base


LOCKER = '''
import sys
from pathlib import Path
from battlesim.systems.lanes.compiled.loop import _compile_lock
with _compile_lock(Path(sys.argv[1])):
    print("entered", flush=True)
'''


def test_a_second_process_waits_for_the_game_loop_being_compiled(tmp_path: Path) -> None:
    """Two runs started on a cold cache (two terminals, test workers): the second waits for the
    first's compile of the game loop, saying so, instead of compiling it again for minutes."""
    from battlesim.systems.lanes.compiled.loop import _compile_lock

    marker = tmp_path / "loop.compiled"
    want = b"waiting for another battlesim process compiling the lanes game loop..."
    with _compile_lock(marker):
        waiter = subprocess.Popen([sys.executable, "-c", LOCKER, str(marker)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        said = b""
        deadline = time.monotonic() + 120
        while len(said) < len(want) and time.monotonic() < deadline:
            said += os.read(waiter.stderr.fileno(), len(want) - len(said))
        assert said == want
        time.sleep(0.5)
        assert waiter.poll() is None  # still waiting while this process holds the lock
        marker.write_text("1.0\n")
    out, err = waiter.communicate(timeout=60)
    assert waiter.returncode == 0, err
    assert out == b"entered\n" and re.fullmatch(rb" \d+\.\d s\n", err)
    # once compiled, nobody waits: the marker says so and no lock is taken
    again = subprocess.run([sys.executable, "-c", LOCKER, str(marker)], capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and again.stderr == "" and again.stdout == "entered\n"

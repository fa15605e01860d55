"""``battlesim compile``: warms the engine cache and says where and how long; bad input is one line."""

from __future__ import annotations

import re

from pathlib import Path

import numba
import pytest
from typer.testing import CliRunner

import battlesim.systems.lanes.compiled  # noqa: F401  (lanes' compiled stages: part of the engine whatever ran before)
from battlesim.ecs.cli import app
from battlesim.ecs.compiled.cache import cache_root
from battlesim.ecs.compiled.engine import build
from battlesim.ecs.plugin import isolated, load_plugins
from battlesim.systems.lanes.compiled.loop import LOOP_MARKER

runner = CliRunner()


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "numba"))
    return tmp_path / "numba"


def test_compile_warms_the_cache_and_says_where() -> None:
    """The run cache every run uses (a cold one costs the whole game loop's compile: the session
    pays it once, whichever test comes first; ``test_compiled_cache`` covers fresh caches)."""
    r = runner.invoke(app, ["compile"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    where = Path(lines[0].removeprefix("lanes engine: "))
    assert where.parent == cache_root() and where.is_dir()
    assert list(where.glob("battlesim_engine_lanes_*.py"))
    loop = Path(lines[2].removeprefix("lanes game loop: ").rsplit(" (", 1)[0])
    assert loop.parent == cache_root() and loop.name.startswith("lanes_game_")
    assert (loop / LOOP_MARKER).exists()  # the game loop was compiled (a game played) too
    assert re.search(r"\((loaded from the cache|compiled now); \d+\.\d\d s with one game played\)$", lines[2])
    assert lines[1].startswith(("compiled", "already compiled; loaded from the cache in "))
    assert lines[1].endswith("(damage stages in run order: destroyed_objective, damage_immunity, shield, armor, "
                             "apply_health, record_hit, lifesteal, retaliate, overflow, anchor_falls, "
                             "damage_taken, mark_dying)")


def test_a_plugin_stage_runs_at_its_priority_in_the_engine(cache_dir: Path, tmp_path: Path) -> None:
    plugin = tmp_path / "cli_plugin.py"
    plugin.write_text("from battlesim.ecs.compiled.stages import damage_stage\n\n\n"
                      "@damage_stage('lanes', 'noop_reaction', 400)\n"
                      "def noop_reaction(w, b, queue, qlen, i, cols):\n    pass\n")
    with isolated():
        load_plugins([str(plugin)])
        engine = build("lanes")
    assert engine.path.parent.parent == cache_dir / "battlesim"
    # lanes' own compiled stages (imported above), with the plugin's at its priority: 400, after
    # lifesteal (400) by name, before retaliate (410)
    assert [s.name for s in engine.stages] == ["destroyed_objective", "damage_immunity", "shield", "armor",
                                               "apply_health", "record_hit", "lifesteal", "noop_reaction",
                                               "retaliate", "overflow", "anchor_falls", "damage_taken", "mark_dying"]


def test_compile_of_an_unknown_ruleset_is_one_line_exit_2(cache_dir: Path) -> None:
    r = runner.invoke(app, ["compile", "--ruleset", "nope"])
    assert r.exit_code == 2
    assert "unknown ruleset 'nope'" in r.output and "Traceback" not in r.output


def test_compile_to_an_unwritable_cache_is_one_line_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("")
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(blocker))
    r = runner.invoke(app, ["compile"])
    assert r.exit_code == 2
    assert "cannot write the compiled engine" in r.output and "Traceback" not in r.output


def test_a_stage_that_does_not_compile_is_one_line_naming_it(cache_dir: Path, tmp_path: Path) -> None:
    plugin = tmp_path / "broken_plugin.py"
    plugin.write_text("from battlesim.ecs.compiled.stages import damage_stage\n\n\n"
                      "@damage_stage('lanes', 'broken', 100)\n"
                      "def broken(w, b, queue, qlen, i, cols):\n    queue[b, i, 2] = undefined_name\n")
    with isolated():
        r = runner.invoke(app, ["compile", "--plugin", str(plugin)])
    assert r.exit_code == 2
    assert (f"{plugin}:4: damage stage 'broken' (broken_plugin) does not compile: "
            f"NameError: name 'undefined_name' is not defined") in r.output
    assert "Traceback" not in r.output

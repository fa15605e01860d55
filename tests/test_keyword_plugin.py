"""The example plugin (examples/keyword-plugin): installed with pip, found through its entry
point, played for 10,000 games; its two keywords checked exactly by scenario files.

pip installs it into a directory of this test session that the subprocesses put on their
path (``--target``), so the environment the other tests see is left as it was.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from battlesim.ecs.plugin import isolated
from battlesim.ecs.ruleset import get_ruleset
from battlesim.systems.lanes.scenario import compare, load_scenario

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "examples" / "keyword-plugin"
SCENARIOS = sorted((PACKAGE / "scenarios").glob("*.toml"))


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict[str, str]:
    """pip-install the example package; the environment of a process that sees it."""
    target = tmp_path_factory.mktemp("site")
    build = tmp_path_factory.mktemp("build")
    r = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
         "--target", str(target), str(PACKAGE)],
        capture_output=True, text=True, cwd=build,
    )
    assert r.returncode == 0, r.stderr
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(target), str(ROOT), env.get("PYTHONPATH", "")])
    return env


def battlesim(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "battlesim.ecs.cli", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=600)


def test_installed_plugin_is_discovered_through_its_entry_point(installed):
    r = battlesim(installed, "keywords", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert "frost_thorns" in data["installed_plugins"]
    assert {(p["name"], p["how"]) for p in data["plugins"]} == {("frost_thorns", "entry point")}
    by_name = {(e["kind"], e["name"]): e for e in data["entries"]}
    for kind, name in (("keyword", "frostbite"), ("keyword", "thorns"), ("damage_stage", "frostbite"),
                       ("damage_stage", "thorns")):
        assert by_name[(kind, name)]["source"] == "frost_thorns"


def test_ten_thousand_games_with_the_installed_plugin(installed):
    """issue 6: "The test suite installs it into the test environment and plays 10,000 games with it"."""
    r = battlesim(installed, "simulate", "--games", "10000", "--deck", "frost_thorns", "--vs", "red_vanguard",
                  "--json", "--quiet")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["games"] == 10000 and s["decks"] == ["frost_thorns", "red_vanguard"]
    assert sum(s["wins"]) + s["draws"] == 10000
    assert min(s["wins"]) > 0, "both decks win games"


def test_without_the_plugin_its_decks_do_not_exist():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = battlesim(env, "simulate", "--games", "2", "--deck", "frost_thorns", "--quiet")
    assert r.returncode == 2
    assert "unknown deck 'frost_thorns'" in r.stderr and "installed plugins" in r.stderr


@pytest.fixture(scope="module")
def plugin_game():
    with isolated():
        yield get_ruleset("lanes", [str(PACKAGE / "frost_thorns")]).load()


def test_there_are_scenarios_for_both_keywords():
    names = [p.stem for p in SCENARIOS]
    assert sum(n.startswith("frostbite") for n in names) >= 3
    assert sum(n.startswith("thorns") for n in names) >= 3


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_plugin_scenario(path, plugin_game):
    sc = load_scenario(path, game=plugin_game)
    assert sc.spec.rule and sc.spec.expect
    assert compare(sc.spec.expect, sc.run()) == []


def test_scenario_command_loads_a_plugin_by_path():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    r = battlesim(env, "scenario", str(SCENARIOS[0]), "--check", "--plugin", str(PACKAGE / "frost_thorns"))
    assert r.returncode == 0, r.stdout + r.stderr

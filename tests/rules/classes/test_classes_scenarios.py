"""Every classes scenario file (spec §14) played through the compiled engine and compared with its
``[expect]`` (each file cites its sentence in ``rule``); ``battlesim scenario`` for classes files
(``--json``, ``--check``, an illegal step = exit 2 with one line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from battlesim.ecs.cli import app
from battlesim.ecs.datafiles import DataError
from battlesim.systems.classes.scenario import run_file

DIR = Path(__file__).resolve().parents[2] / "scenarios" / "classes"
FILES = sorted(DIR.glob("*.toml"))
runner = CliRunner()


def test_there_are_at_least_60_scenarios() -> None:
    # issue 15: "at least 60 scenario files in tests/scenarios/classes/"
    assert len(FILES) >= 60


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario_matches_its_expect(path: Path) -> None:
    sc = run_file(path)
    if sc.spec.expect_error:
        with pytest.raises(DataError) as e:
            sc.run()
        assert sc.spec.expect_error in str(e.value)
        assert str(e.value).startswith(f"{path}: step ")
    else:
        state = sc.run()
        assert sc.check(state) == []


def test_a_wrong_expectation_is_reported(tmp_path: Path) -> None:
    # docs/scenarios.md: "a misplaced expectation cannot pass silently": the check above can fail
    text = (DIR / "spent_mana_goes_to_the_current_slot.toml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("health = 1", "health = 2"), encoding="utf-8")
    sc = run_file(bad)
    assert sc.check(sc.run()) == ["units[2, 3].health: expected 2, got 1"]


def test_cli_json_has_the_spec_fields() -> None:
    # spec §14: "--json prints one object: ruleset, turn, active, winner (null/0/1), draw, players ..., units"
    r = runner.invoke(app, ["scenario", str(DIR / "call_to_arms_summons_a_follower.toml"), "--json", "--check"])
    assert r.exit_code == 0, r.output
    state = json.loads(r.output.splitlines()[-1])
    assert set(state) == {"ruleset", "turn", "active", "winner", "draw", "players", "units"}
    assert set(state["players"][0]) == {"side", "class", "life", "level", "experience", "pool", "cooldown",
                                        "cooldown_current", "hand", "nether", "prepared", "play_area", "powers"}
    footman = state["units"][0]
    assert set(footman) == {"side", "lane", "row", "name", "attack", "health", "base_attack", "base_health", "range",
                            "keywords", "conditions", "defending", "enchanted"}
    assert (footman["name"], footman["lane"], footman["row"]) == ("Footman", 3, 0)
    assert {"name": "Call to Arms", "tokens": 0, "unlocked": True} in state["players"][0]["powers"]


def test_cli_illegal_step_is_one_line_and_exit_2() -> None:
    # spec §14: "stops the run with exit status 2 and one line error: step N (do): reason"
    path = DIR / "cannot_cast_without_paying.toml"
    r = runner.invoke(app, ["scenario", str(path)])
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0] == f"error: {path}: step 1 (cast): cannot pay its cost"


def test_cli_human_readable_state() -> None:
    r = runner.invoke(app, ["scenario", str(DIR / "life_zero_ends_the_game.toml"), "--check"])
    assert r.exit_code == 0, r.output
    assert "winner: side 0" in r.output and "Guard" in r.output and "matches" in r.output

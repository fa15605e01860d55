"""Every grid scenario file (spec §5) played through the engine and compared with its [expect]
(each file cites its sentences in ``rule``); ``battlesim scenario`` for grid files: ``--json``,
``--check``, an illegal step = exit status 2 and one line naming ``steps[i] (do)``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from battlesim.ecs.cli import app
from battlesim.ecs.datafiles import DataError
from battlesim.systems.grid.scenario import GridScenarioRun

FILES = sorted((Path(__file__).resolve().parents[2] / "scenarios" / "grid").glob("*.toml"))
runner = CliRunner()


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario_matches_its_expect(path: Path, params, card_set) -> None:
    sc = GridScenarioRun(path, params, card_set.specs)
    if sc.plan.spec.expect_error:
        with pytest.raises(DataError) as e:
            sc.run()
        assert "not legal" in str(e.value) and sc.plan.spec.expect_error in str(e.value)
    else:
        assert sc.check(sc.run()) == []


def test_a_wrong_expectation_is_reported(tmp_path: Path, params, card_set) -> None:
    # spec §5: "[expect] matches units by name": a mismatch is named, so the check above can fail
    text = (FILES[0].parent / "leap_bonus_then_attack.toml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("hp = 5", "hp = 6").replace("se = [9, 10]", "se = [10, 10]"), encoding="utf-8")
    sc = GridScenarioRun(bad, params, card_set.specs)
    assert sc.check(sc.run()) == ["se: expected [10, 10], got [9, 10]", "unit 'E' hp: expected 6, got 5"]


def test_a_dead_unit_expected_on_the_board_is_reported(tmp_path: Path, params, card_set) -> None:
    text = (FILES[0].parent / "kill_scores_kill_points.toml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("absent = true", "hp = 1"), encoding="utf-8")
    sc = GridScenarioRun(bad, params, card_set.specs)
    assert sc.check(sc.run()) == ["unit 'E': expected on the board, it is not"]


def test_cli_json_is_the_spec_object() -> None:
    # spec §5: "--json prints one object: round, turn, active_unit ..., units: [...]"
    r = runner.invoke(app, ["scenario", str(FILES[0].parent / "move_through_own_unit.toml"), "--json", "--check"])
    assert r.exit_code == 0, r.output
    state = json.loads(r.output.splitlines()[-1])
    assert set(state) == {"round", "turn", "active_unit", "winner", "draw", "gold", "se", "kill_points", "hand",
                          "deck_size", "cemetery", "board", "units"}
    assert set(state["board"]) == {"width", "height", "walls", "webs", "mana_pools"}
    assert set(state["units"][0]) == {"side", "x", "y", "name", "card", "class", "hero", "hp", "max_hp", "mv",
                                      "mv_left", "damage", "damage_type", "range", "resist", "kill_points",
                                      "keywords", "statuses", "abilities", "has_turn", "action_used", "bonus_used",
                                      "attacked"}
    a = next(u for u in state["units"] if u["name"] == "A")
    assert (a["x"], a["y"], a["mv_left"], state["active_unit"]) == (0, 2, 1, "A")


def test_cli_check_fails_with_exit_1_on_a_mismatch(tmp_path: Path) -> None:
    text = (FILES[0].parent / "minimum_one_damage.toml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("hp = 15", "hp = 14"), encoding="utf-8")
    r = runner.invoke(app, ["scenario", str(bad), "--check"])
    assert r.exit_code == 1 and "unit 'Golem' hp: expected 14, got 15" in r.output


def test_cli_illegal_step_is_one_line_and_exit_2() -> None:
    # spec §5: "An illegal step stops the scenario with a one-line error on stderr that names the
    # step as steps[i] (do) (i from 0) and contains not legal, exit status 2"
    path = FILES[0].parent / "move_beyond_mv_refused.toml"
    r = runner.invoke(app, ["scenario", str(path)])
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: steps[1] (move): not legal:")


def test_cli_human_readable_grid_state() -> None:
    r = runner.invoke(app, ["scenario", str(FILES[0].parent / "kill_points_win.toml")])
    assert r.exit_code == 0, r.output
    assert "winner: side 0" in r.output and "kill points [12, 0]" in r.output


def test_a_step_after_the_game_ended_fails(play) -> None:
    # spec §5: "A step after the game ended fails ("the game is already over")."
    p = play('''
[players]
kill_points = [9, 0]
[[units]]
side = 0
x = 3
y = 3
name = "A"
card = "Footman"
[[units]]
side = 1
x = 3
y = 4
name = "E"
card = "Footman"
hp = 1
[[steps]]
do = "attack"
unit = "A"
target = "E"
[[steps]]
do = "end_turn"
''')
    assert p.error is not None and "steps[1] (end_turn): not legal: the game is already over" in p.error

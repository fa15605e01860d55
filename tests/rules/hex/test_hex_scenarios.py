"""Every hex scenario file (spec §8) played through the engine and compared with its [expect]
(each file cites its sentence in ``rule``); ``battlesim scenario`` for hex files (--json,
--check, an illegal step = exit 2 with one line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from battlesim.ecs.cli import app
from battlesim.ecs.datafiles import DataError
from battlesim.systems.hex.scenario import run_file

FILES = sorted((Path(__file__).resolve().parents[2] / "scenarios" / "hex").glob("*.toml"))
runner = CliRunner()


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario_matches_its_expect(path: Path) -> None:
    sc = run_file(path)
    if sc.spec.expect_error:
        with pytest.raises(DataError) as e:
            sc.run()
        assert "not legal" in str(e.value) and sc.spec.expect_error in str(e.value)
    else:
        state = sc.run()
        assert sc.check(state) == []


def test_a_wrong_expectation_is_reported(tmp_path: Path) -> None:
    # spec §8 "[expect] as in lanes": a mismatch is named, so the check above can fail
    text = (FILES[0].parent / "damage_return_after_reductions.toml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("health = 4 }", "health = 5 }"), encoding="utf-8")
    sc = run_file(bad)
    assert sc.check(sc.run()) == ["(7, 2) health: expected 5, got 4"]


def test_cli_json_and_check() -> None:
    # spec §8 "--json output: one object: round, winner, first_player, to_act, last_actor, centre_shield, units"
    path = FILES[0].parent / "charge_moves_then_kills.toml"
    r = runner.invoke(app, ["scenario", str(path), "--json", "--check"])
    assert r.exit_code == 0, r.output
    state = json.loads(r.output.splitlines()[-1])
    assert set(state) == {"round", "winner", "first_player", "to_act", "last_actor", "centre_shield", "units"}
    lancer = next(u for u in state["units"] if u["name"] == "Lancer")
    assert (lancer["col"], lancer["row"], lancer["exhausted"]) == (2, 3, True)
    assert "Target" not in {u["name"] for u in state["units"]}  # "Dead units are absent."


def test_cli_illegal_step_is_one_line_and_exit_2() -> None:
    # spec §8: "else the scenario stops with exit status 2 and one line error: FILE: steps[i] (do): not legal: ..."
    path = FILES[0].parent / "out_of_range_is_illegal.toml"
    r = runner.invoke(app, ["scenario", str(path)])
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: steps[0] (attack): not legal:")


def test_cli_human_readable_hex_state() -> None:
    # spec §7 "battlesim scenario's human-readable printer is lanes-only (anchors)": hex has its own
    r = runner.invoke(app, ["scenario", str(FILES[0].parent / "centre_first_player_wins.toml")])
    assert r.exit_code == 0, r.output
    assert "winner: side 0" in r.output and "Holder" in r.output


def test_a_side_holds_at_most_16_units(tmp_path: Path) -> None:
    # spec §6: "u = the acting side's unit slot (U = 16: hero + units + summons)"
    hexes = [(c, r) for c in range(9) for r in range(2)][:17]
    units = ",\n".join(f'{{ side = 0, col = {c}, row = {r}, name = "U{i}", health = 1 }}' for i, (c, r) in enumerate(hexes))
    path = tmp_path / "many.toml"
    path.write_text(f'ruleset = "hex"\nunits = [\n{units}\n]\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"many.toml: units: side 0 has 17 units; a side holds at most 16"):
        run_file(path)


def test_compile_builds_the_hex_pipeline() -> None:
    # spec §3: hex's stages at their priorities, in the engine `battlesim compile --ruleset hex` builds
    r = runner.invoke(app, ["compile", "--ruleset", "hex"])
    assert r.exit_code == 0, r.output
    assert "shield, refraction, ethereal, armor, magic_resist, evasion, nonlethal, apply_health" in r.output

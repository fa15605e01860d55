"""`import battlesim`: the documented Python API (issue 12: "`import battlesim` gives the documented
Python API (`run_games`, balance, ...); `battlesim --version`"), the README's examples of it run
as written, and `simulate`'s summary ("Deck win rates carry intervals in `simulate`'s summary;
its JSON echoes parameter overrides")."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import battlesim
from battlesim.ecs.balance import measure, sweep
from battlesim.ecs.balance.stats import wilson
from battlesim.ecs.cli import app
from battlesim.ecs.runs import runner

ROOT = Path(__file__).resolve().parents[1]
DECKS = ("red_vanguard", "blue_tide")


def _readme_block(marker: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return next(b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if marker in b)


def test_the_namespace_exports_the_pieces_the_commands_use():
    # the same objects, not copies: one way to do each thing
    assert battlesim.run_games is runner.run_games
    assert battlesim.simulate is runner.simulate and battlesim.RunConfig is runner.RunConfig
    assert battlesim.summarize is runner.summarize and battlesim.RunError is runner.RunError
    assert battlesim.measure_balance is measure.measure and battlesim.BalanceSpec is measure.BalanceSpec
    assert battlesim.run_sweep is sweep.run_sweep and battlesim.Axis is sweep.Axis
    for name in battlesim.__all__:
        assert getattr(battlesim, name) is not None, name
        assert name == "__version__" or name in battlesim.__doc__, name  # each one documented


def test_version_option_prints_the_installed_version():
    r = CliRunner().invoke(app, ["--version"])
    assert r.exit_code == 0
    assert r.stdout.strip() == f"battlesim {battlesim.__version__}"
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", battlesim.__version__)


def test_readme_run_games_example_runs_from_the_namespace():
    code = _readme_block("battlesim.run_games(")
    assert "import battlesim" in code
    code = code.replace("20_000", "120").replace(", workers=2", "")
    ns: dict = {}
    exec(compile(code, "README.md run_games example", "exec"), ns)
    assert ns["games"].num_rows == 120
    assert 0.0 < ns["first"] < 1.0


def test_readme_balance_and_sweep_example_runs(tmp_path, monkeypatch):
    code = _readme_block("measure_balance(")
    assert "games_per_pairing=500" in code
    monkeypatch.chdir(tmp_path)  # the example writes runs/bal and runs/sweep where it runs
    ns: dict = {}
    exec(compile(code.replace("games_per_pairing=500", "games_per_pairing=8"), "README.md balance example", "exec"), ns)
    assert set(ns["ratings"]) == set(DECKS)
    for lo, hi in ns["ratings"].values():
        assert lo < hi
    assert isinstance(ns["flagged"], list)
    assert set(ns["moves"]) == {"anchor_hp=20", "anchor_hp=30"}
    assert json.loads((tmp_path / "runs" / "bal" / "balance.json").read_text())["meta"]["decks"] == list(DECKS)
    assert (tmp_path / "runs" / "sweep" / "sweep.json").is_file()


def test_bad_input_through_the_api_is_a_run_error():
    with pytest.raises(battlesim.RunError, match="nope"):
        battlesim.run_games(5, decks=("red_vanguard", "nope"))


def test_simulate_summary_has_deck_win_rate_intervals_and_echoes_overrides():
    r = CliRunner().invoke(app, ["simulate", "--games", "150", "--seed", "4", "--deck", DECKS[0], "--vs", DECKS[1],
                                 "--param", "anchor_hp=25", "--json", "-q"])
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    assert s["params"] == {"anchor_hp": 25}
    for seat in (0, 1):
        assert s["win_rates"][seat] == s["wins"][seat] / 150
        assert s["win_rates_ci"][seat] == pytest.approx(list(wilson(s["wins"][seat], 150)))
        lo, hi = s["win_rates_ci"][seat]
        assert lo < s["win_rates"][seat] < hi
    r = CliRunner().invoke(app, ["simulate", "--games", "150", "--seed", "4", "--deck", DECKS[0], "--vs", DECKS[1],
                                 "--param", "anchor_hp=25", "-q"])
    text = " ".join(r.output.split())
    lo, hi = s["win_rates_ci"][0]
    assert f"[95% CI {lo:.1%} - {hi:.1%}]" in text and "anchor_hp=25" in text
    # without overrides: an empty object, not a missing key
    r = CliRunner().invoke(app, ["simulate", "--games", "20", "--json", "-q"])
    assert json.loads(r.stdout)["params"] == {}

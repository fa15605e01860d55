"""battlesim sweep: parameter axes, errors naming the bad input, and a tiny real sweep."""

import json
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from battlesim.ecs.balance import sweep as sw
from battlesim.ecs.balance.measure import BalanceSpec
from battlesim.ecs.cli import app

ROOT = Path(__file__).resolve().parents[1]
DECKS = "red_vanguard,blue_tide"


def _toml_numbers() -> dict:
    raw = tomllib.loads((ROOT / "data" / "rulesets" / "lanes.toml").read_text(encoding="utf-8"))
    return {k: v for k, v in raw.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def _one_line_error(r, *words):
    assert r.exit_code == 2, r.output
    text = " ".join(r.output.split())  # rich may wrap a long line on a narrow terminal
    assert "Traceback" not in r.output
    for w in words:
        assert w in text, (w, text)


# ---------------------------------------------------------------- axes


def test_every_numeric_parameter_of_the_ruleset_file_can_be_swept():
    numbers = _toml_numbers()
    assert set(sw.numeric_params()) == set(numbers)
    axes = sw.parse_axes([f"{k}={v}" for k, v in numbers.items()], sw.numeric_params())
    assert [a.name for a in axes] == list(numbers)
    sw.check_values(axes)  # each default is valid on its own
    sw.check_points(BalanceSpec(decks=("red_vanguard", "blue_tide")), sw.points(axes))  # and all together


def test_points_are_the_cartesian_product_first_axis_slowest():
    axes = sw.parse_axes(["anchor_hp=20,25,30", "creep_attack=1,2"], sw.numeric_params())
    grid = sw.points(axes)
    assert len(grid) == 6
    assert grid[0] == {"anchor_hp": 20, "creep_attack": 1} and grid[1] == {"anchor_hp": 20, "creep_attack": 2}
    assert sw.point_name(grid[-1]) == "anchor_hp=30__creep_attack=2"


@pytest.mark.parametrize("item, words", [
    (["nope=1,2"], ["unknown parameter 'nope'", "valid:", "anchor_hp", "lane_mana_cap"]),
    (["anchor_hp=20,abc"], ["anchor_hp", "'abc'", "not a number"]),
    (["anchor_hp=2.5"], ["anchor_hp", "'2.5'", "whole number"]),
    (["anchor_hp=20,20"], ["anchor_hp", "twice"]),
    (["anchor_hp=1", "anchor_hp=2"], ["anchor_hp", "twice"]),
    (["anchor_hp="], ["anchor_hp", "empty"]),
    (["anchor_hp"], ["NAME=V1,V2"]),
])
def test_bad_axes_are_errors_naming_them(item, words):
    with pytest.raises(sw.SweepError) as e:
        sw.parse_axes(item, sw.numeric_params())
    for w in words:
        assert w in str(e.value)
    assert "\n" not in str(e.value)


# ---------------------------------------------------------------- the command line


def test_cli_unknown_parameter_lists_the_valid_ones(tmp_path):
    r = CliRunner().invoke(app, ["sweep", "--param", "anchor_health=20,30", "--out", str(tmp_path)])
    _one_line_error(r, "anchor_health", *_toml_numbers())
    assert not (tmp_path / "sweep.json").exists()


@pytest.mark.parametrize("param, words", [
    ("anchor_hp=20,x", ["anchor_hp", "'x'", "not a number"]),
    ("anchor_hp=20,0", ["anchor_hp=0", "greater than or equal to 1"]),
    ("lanes=3,4", ["lanes=4", "less than or equal to 3"]),
    ("resources_start=3,20", ["resources_start=20", "resources_cap"]),  # a rule across parameters
    ("deck_min=40,60", ["deck_min=60"]),  # the shipped decks are no longer legal
])
def test_cli_bad_value_names_the_parameter_and_the_value(tmp_path, param, words):
    r = CliRunner().invoke(app, ["sweep", "--param", param, "--decks", DECKS, "--games-per-pairing", "2",
                                 "--out", str(tmp_path)])
    _one_line_error(r, *words)
    assert not list(tmp_path.iterdir())  # nothing was played


def test_cli_lists_the_parameters():
    r = CliRunner().invoke(app, ["sweep", "--list-params"])
    assert r.exit_code == 0, r.output
    for k in _toml_numbers():
        assert k in r.output


def test_cli_help_explains_the_command():
    r = CliRunner().invoke(app, ["sweep", "--help"])
    assert r.exit_code == 0
    text = " ".join(r.output.split())
    for w in ("--param", "combination", "resum", "sweep.json", "--list-params"):
        assert w in text, w


# ---------------------------------------------------------------- a tiny real sweep


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep")
    args = ["sweep", "--param", "anchor_hp=10,60", "--param", "round_limit=40", "--decks", DECKS,
            "--games-per-pairing", "30", "--min-games", "10", "--seed", "2", "--out", str(out), "--json"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    return out, json.loads(r.stdout), args


def test_tiny_sweep_writes_json_plot_and_html(tiny):
    out, res, _ = tiny
    assert json.loads((out / "sweep.json").read_text()) == res
    assert res["meta"]["axes"] == {"anchor_hp": [10, 60]}
    assert res["meta"]["params"] == {"round_limit": 40}  # one value: fixed for every point, not an axis
    assert res["meta"]["defaults"] == {"anchor_hp": 30}
    assert [p["params"] for p in res["points"]] == [{"anchor_hp": 10}, {"anchor_hp": 60}]
    for p in res["points"]:
        assert p["games"] == 60
        for key in ("first_player_win_rate", "first_player_advantage", "rounds_mean", "drawishness"):
            lo, hi = p[key + "_ci"]
            assert lo <= p[key] <= hi, key
        assert set(p["decks"]) == set(DECKS.split(","))
        for d in p["decks"].values():
            assert d["games"] == 60 and d["ci"][0] <= d["win_rate"] <= d["ci"][1]
        point = out / p["dir"]
        assert (point / "balance.json").is_file() and (point / "report.html").is_file()
        assert json.loads((point / "balance.json").read_text())["meta"]["params"] == {"round_limit": 40, **p["params"]}
        assert len(list((point / "pairs").iterdir())) == 2
    png = (out / "sweep.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    page = (out / "sweep.html").read_text(encoding="utf-8")
    assert 'src="data:image/png;base64,' in page and "anchor_hp=60/report.html" in page


def test_larger_anchors_make_longer_games(tiny):
    _, res, _ = tiny
    small, large = res["points"]
    assert small["rounds_mean_ci"][1] < large["rounds_mean_ci"][0]  # intervals apart, not just means


def test_points_play_the_same_seeds_and_a_rerun_resumes(tiny):
    out, res, args = tiny
    seeds = []
    for p in res["points"]:
        bal = json.loads((out / p["dir"] / "balance.json").read_text())
        seeds.append(bal["meta"]["seed"])
    assert seeds[0] == seeds[1] == 2
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == res


def test_sweep_prints_its_report_path_and_points_without_cards(tiny, tmp_path):
    """issue 12: "the path of `report.html` printed at the end" and "When `--min-games` leaves no
    card, say so and suggest a value" -- for sweep, per point (on a copy: the games resume)."""
    import shutil

    pytest.importorskip("matplotlib")
    src, _, args = tiny
    out = tmp_path / "copy"
    shutil.copytree(src, out)
    args = [str(out) if a == str(src) else a for a in args if a != "--json"]
    args[args.index("--min-games") + 1] = "100000"
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    lines = r.output.rstrip().splitlines()
    assert lines[-1].startswith(f"report: {out / 'sweep.html'}")
    res = json.loads((out / "sweep.json").read_text())
    for p in res["points"]:
        assert p["cards_reported"] == 0
        assert any(line.startswith(f"{p['dir']}: no card was drawn in at least 100,000 games") and
                   f"try --min-games {p['no_cards']['suggested_min_games']}" in line for line in lines)


@pytest.mark.parametrize("command", [["balance"], ["sweep", "--param", "anchor_hp=20,30"]])
def test_an_unwritable_out_is_refused_as_itself_before_anything_is_played(tmp_path, monkeypatch, command):
    """A read-only ``--out`` names ``--out``, not the first pairing's directory under it (root
    writes into read-only directories, so the refusal is simulated where the probe writes)."""
    out = tmp_path / "ro"
    real_write = Path.write_bytes

    def refuse(self, data):
        if self.name.startswith(".battlesim-write-probe"):
            raise PermissionError(13, "Permission denied", str(self))
        return real_write(self, data)

    monkeypatch.setattr(Path, "write_bytes", refuse)
    r = CliRunner().invoke(app, [*command, "--decks", DECKS, "--games-per-pairing", "2", "--out", str(out), "--quiet"])
    _one_line_error(r, f"--out {out}: cannot write there (Permission denied)")
    assert list(out.iterdir()) == []  # no pairing was started

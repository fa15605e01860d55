"""The command line: `battlesim simulate` output, Parquet, errors, resume."""

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pytest
from typer.testing import CliRunner

from battlesim.ecs.cli import app
from battlesim.ecs.plugin import isolated

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def test_json_is_exactly_one_object_with_the_promised_keys():
    r = run("simulate", "--games", "200", "--seed", "3", "--json", "--chunk", "64")
    assert r.exit_code == 0, r.output
    lines = [l for l in r.stdout.splitlines() if l.strip()]
    assert len(lines) == 1
    out = json.loads(lines[0])
    for key in ("ruleset", "games", "seed", "wins", "draws", "first_player_wins", "mean_rounds", "games_per_second"):
        assert key in out
    assert out["ruleset"] == "lanes" and out["games"] == 200 and out["seed"] == 3
    assert len(out["wins"]) == 2 and sum(out["wins"]) + out["draws"] == 200
    assert out["first_player_wins"] <= sum(out["wins"])
    lo, hi = out["first_player_win_rate_ci"]
    assert lo <= out["first_player_win_rate"] <= hi


def test_summary_table_names_the_measures():
    r = run("simulate", "--games", "100", "--deck", "green_grove", "--vs", "black_covenant")
    assert r.exit_code == 0, r.output
    for word in ("games", "wins seat 0 (green_grove)", "draws", "first-player win rate", "95% CI", "mean rounds", "games per second"):
        assert word in r.stdout


def test_out_writes_parquet_with_the_games_table(tmp_path):
    out = tmp_path / "run"
    r = run("simulate", "--games", "300", "--chunk", "128", "--out", str(out), "--agents", "random,pass", "--quiet")
    assert r.exit_code == 0, r.output
    shards = sorted((out / "games").glob("*.parquet"))
    assert len(shards) == 3  # 128 + 128 + 44
    t = ds.dataset(out / "games").to_table().sort_by("seed")
    assert t.num_rows == 300
    assert t.schema.field("seed").type == pa.int64()
    assert t.column("seed").to_pylist() == list(range(300))
    assert set(t.column("winner").to_pylist()) <= {0, 1, -1}
    for col in ("rounds", "first_player", "end_reason", "deck_0", "deck_1", "agent_0", "agent_1"):
        assert col in t.column_names
    assert set(t.column("agent_1").to_pylist()) == {"pass"}
    assert set(t.column("deck_0").to_pylist()) == {"red_vanguard"}


def test_seed_offset_replays_the_same_game(tmp_path):
    a = json.loads(run("simulate", "--games", "100", "--seed", "0", "--json", "--out", str(tmp_path / "a")).stdout)
    t = ds.dataset(tmp_path / "a" / "games").to_table().sort_by("seed").to_pylist()
    run("simulate", "--games", "1", "--seed", "7", "--out", str(tmp_path / "b"), "--json")
    one = ds.dataset(tmp_path / "b" / "games").to_table().to_pylist()[0]
    assert a["games"] == 100 and one == t[7]


def test_rerun_resumes_and_a_different_run_is_refused(tmp_path):
    out = str(tmp_path / "run")
    first = run("simulate", "--games", "200", "--chunk", "100", "--out", out, "--json")
    assert first.exit_code == 0
    before = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "run" / "games").iterdir()}
    again = run("simulate", "--games", "200", "--chunk", "100", "--out", out, "--json")
    assert again.exit_code == 0
    assert json.loads(again.stdout)["wins"] == json.loads(first.stdout)["wins"]
    after = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "run" / "games").iterdir()}
    assert after == before  # nothing rewritten
    other = run("simulate", "--games", "200", "--chunk", "100", "--out", out, "--seed", "5")
    assert other.exit_code == 2
    assert "different run" in other.stderr and "seed" in other.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["--games", "-5"], "--games must be at least 1"),
        (["--deck", "no_such_deck"], "unknown deck 'no_such_deck'"),
        (["--agents", "random,wizard"], "unknown agent 'wizard'"),
        (["--ruleset", "chess"], "unknown ruleset 'chess'"),
        (["--param", "anchor_hp=abc"], "not a number"),
        (["--param", "no_such=3"], "unknown lanes parameter"),
        (["--param", "anchor_hp=0"], "anchor_hp"),
        (["--workers", "0"], "--workers must be at least 1"),
        (["--backend", "spark"], "unknown backend 'spark'"),
        (["--address", "auto"], "--address is for --backend ray"),
        (["--chunk", "0"], "--chunk must be at least 1"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message):
    r = run("simulate", "--games", "10", *args)
    assert r.exit_code == 2
    assert message in r.stderr
    assert "Traceback" not in r.output + r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_unreadable_card_file_is_one_line(tmp_path):
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "broken.toml").write_text('[[cards]]\nname = "X"\ntype = "unit"\nfaction = "Red"\ncost = 2\nattack = -1\nhealth = 2\n')
    r = run("simulate", "--games", "10", "--cards", str(cards))
    assert r.exit_code == 2
    assert "broken.toml:2" in r.stderr and "'X'" in r.stderr and "attack" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_installed_console_script_runs():
    r = subprocess.run([sys.executable, "-m", "battlesim.ecs.cli", "simulate", "--games", "20", "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["games"] == 20


def test_bench_quick_reports_speed_and_phase_split():
    r = run("bench", "--quick", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    batches = [c["batch"] for c in out["configs"]]
    assert batches == [1, 256]
    for c in out["configs"]:
        gps = c["games_per_second"]
        assert 0 < gps["min"] <= gps["median"] <= gps["max"]
    share = out["phase_split"]["share"]
    assert "play/PlayPhase" in share and "combat/Combat" in share
    assert abs(sum(share.values()) - 1.0) < 1e-9
    services = out["service_split"]
    assert set(services["share"]) == {"legal actions", "agents", "card effects", "damage pipeline", "systems' own work"}
    assert abs(sum(services["share"].values()) - 1.0) < 1e-9
    assert services["seconds"]["legal actions"] > 0 and services["seconds"]["card effects"] > 0


def test_workers_give_the_same_run_as_one_process(tmp_path):
    one = run("simulate", "--games", "100", "--chunk", "20", "--json", "--out", str(tmp_path / "one"))
    two = run("simulate", "--games", "100", "--chunk", "20", "--json", "--workers", "2", "--out", str(tmp_path / "two"))
    assert one.exit_code == 0 and two.exit_code == 0, one.output + two.output
    a, b = json.loads(one.stdout), json.loads(two.stdout)
    for key in ("wins", "draws", "first_player_wins", "mean_rounds", "end_reasons"):
        assert a[key] == b[key]
    ta = ds.dataset(tmp_path / "one" / "games").to_table().sort_by("seed")
    tb = ds.dataset(tmp_path / "two" / "games").to_table().sort_by("seed")
    assert ta.equals(tb)
    assert len(list((tmp_path / "two" / "cards").glob("*.parquet"))) == 5


def test_no_progress_bar_when_stderr_is_not_a_terminal():
    r = run("simulate", "--games", "20", "--chunk", "10", "--agents", "pass,pass", "--json")
    assert r.exit_code == 0 and r.stderr == ""


def test_progress_bar_counts_resumed_games_as_done_but_not_in_the_speed():
    import io

    from rich.console import Console

    from battlesim.ecs.cli.progress import RunProgress, _rate

    buf = io.StringIO()
    with RunProgress(1000, Console(file=buf, force_terminal=True, width=120)) as bar:
        bar(600, resumed=True)
        task = bar.bar.tasks[0]
        assert task.completed == 600 and _rate(task) is None
        bar(100)
        bar(100)
        assert task.completed == 800 and task.fields["played"] == 200
        assert _rate(task) > 0
        bar.bar.refresh()
    assert "simulating" in buf.getvalue() and "games/s" in buf.getvalue() and "eta" in buf.getvalue()


def test_scenario_command_prints_state_and_checks_expectations(tmp_path):
    path = Path(__file__).parent / "scenarios" / "lanes" / "armor_reduces_damage.toml"
    r = run("scenario", str(path), "--json", "--check")
    assert r.exit_code == 0, r.output
    state = json.loads(r.stdout)
    wall = next(u for u in state["units"] if u["name"] == "Wall")
    assert wall["health"] == 3 and wall["keywords"] == {"armor": 2}
    assert set(state) >= {"round", "winner", "gold", "anchors", "units"}
    assert [len(row) for row in state["anchors"]] == [3, 3]
    text = run("scenario", str(path), "--check")
    assert text.exit_code == 0 and "Wall" in text.stdout and "matches" in text.stdout
    wrong = tmp_path / "wrong.toml"
    wrong.write_text(path.read_text().replace("health = 3", "health = 2"))
    bad = run("scenario", str(wrong), "--check")
    assert bad.exit_code == 1 and "expected 2, got 3" in bad.stderr


@pytest.mark.parametrize("body, message", [
    ('[[units]]\nside = 0\nlane = 0\npos = 0\ncard = "Nope"\n', "unknown card 'Nope'"),
    ('[[units]]\nside = 0\nlane = 0\npos = 0\nattack = 1\nhealth = 1\nkeywords = { flying = true }\n', "unknown keyword 'flying'"),
    ('[[steps]]\ndo = "dance"\n', "steps[0].do"),
])
def test_scenario_bad_input_is_one_line(tmp_path, body, message):
    f = tmp_path / "s.toml"
    f.write_text('ruleset = "lanes"\n' + body)
    r = run("scenario", str(f))
    assert r.exit_code == 2 and message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_agents_lists_the_rulesets_agents():
    r = run("agents")
    assert r.exit_code == 0
    assert {"random", "pass", "greedy", "lookahead"} <= set(r.stdout.split())


def test_agents_says_which_decide_inside_the_compiled_loop(tmp_path):
    """issue 13: "`battlesim agents` lists both kinds": the built-in agents are compiled; a
    plugin's Python agent is asked through the step API."""
    plugin = tmp_path / "notebook_agent.py"
    plugin.write_text(
        "from battlesim.ecs.decisions import register_agent\n"
        "class FirstLegal:\n"
        "    name = 'first-legal'\n"
        "    def act(self, world, games, seat, legal):\n"
        "        return legal.argmax(axis=1)\n"
        "register_agent('first-legal', FirstLegal)\n")
    with isolated():  # the plugin's agent must not outlive this test
        r = run("agents", "--plugin", str(plugin))
    assert r.exit_code == 0, r.stderr
    kinds = {line.split()[0]: line.split()[1] for line in r.stdout.strip().splitlines()}
    assert {kinds[n] for n in ("random", "pass", "greedy", "lookahead")} == {"compiled:"}
    assert kinds["first-legal"] == "python:"


@pytest.mark.parametrize("ruleset, compiled", [("grid", {"random", "pass", "greedy", "lookahead"}),
                                               ("classes", {"random", "greedy", "lookahead"})])
def test_agents_lists_only_what_a_ruleset_without_the_step_api_accepts(ruleset, compiled):
    # grid and classes have no step API: --agents refuses any other agent, so the list must not
    # offer one as "python: asked through the step API" (it did, with every registered name)
    r = run("agents", "--ruleset", ruleset)
    assert r.exit_code == 0, r.output
    kinds = dict(line.split(None, 1) for line in r.stdout.splitlines())
    assert set(kinds) == compiled
    assert all(k.startswith("compiled") for k in kinds.values())


def test_python_dash_m_battlesim_is_the_command():
    """``python -m battlesim`` works as the ``battlesim`` console script does (a user without the
    script on PATH, or one choosing the interpreter)."""
    r = subprocess.run([sys.executable, "-m", "battlesim", "decks", "--ruleset", "grid"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "iron_vanguard" in r.stdout.split()


def test_threads_default_to_the_cores_shared_among_local_workers(monkeypatch):
    """A user's one command uses the machine (``--threads`` not given): its cores over the local
    workers, at least 1, at most MAX_THREADS; 1 when Ray places the work."""
    import battlesim.ecs.threads as th

    monkeypatch.setattr(th.os, "sched_getaffinity", lambda pid: set(range(6)), raising=False)
    assert [th.default_threads(w) for w in (1, 2, 3, 4, 8)] == [6, 3, 2, 1, 1]
    assert th.default_threads(0) == 1
    monkeypatch.setattr(th.os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    assert th.default_threads(1) == th.MAX_THREADS


def test_simulate_without_threads_plays_on_the_default_and_says_the_same(monkeypatch):
    """The default changes the speed only: the summary of 40 games is the one ``--threads 1`` prints."""
    import battlesim.ecs.threads as th

    monkeypatch.setattr(th.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setenv(th.THREADS_ENV, "1")  # restored (unset) after the test: the CLI sets it for the process
    monkeypatch.delenv(th.THREADS_ENV)
    runner = CliRunner()
    got = {}
    for extra in ([], ["--threads", "1"]):
        r = runner.invoke(app, ["simulate", "--games", "40", "--json", "--quiet", *extra])
        assert r.exit_code == 0, r.output
        got[len(extra)] = json.loads(r.stdout)
        if not extra:
            assert th.threads() == 2
    for key in ("wins", "draws", "games", "first_player_win_rate", "mean_rounds", "end_reasons"):
        assert got[0][key] == got[2][key], key

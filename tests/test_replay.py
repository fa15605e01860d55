"""`battlesim replay`: one game alone, turn by turn; its result is that seed's row in any run."""

import importlib.util
import re
from pathlib import Path

import esper
import numpy as np
import pytest
from typer.testing import CliRunner

from battlesim.ecs.cli import app
from battlesim.ecs.decisions import make_agent
from battlesim.ecs.runs.runner import RunConfig, simulate
from battlesim.systems.lanes import replay as replay_mod

GOLDEN_REPLAY = Path(__file__).resolve().parents[1] / "bench" / "golden_replay.py"

DECKS = ("red_black_raiders", "blue_green_wardens")
AGENTS = ("random", "pass")


@pytest.fixture(scope="module")
def run_rows(lanes):
    t = simulate(RunConfig(games=60, seed=500, decks=DECKS, agents=AGENTS, chunk=25), game=lanes).table
    return {r["seed"]: r for r in t.to_pylist()}


@pytest.mark.parametrize("seed", [500, 517, 531, 549, 559])
def test_replay_row_is_the_runs_row(lanes, run_rows, seed):
    lines = []
    row = lanes.replay(seed, DECKS, [make_agent(a) for a in AGENTS], write=lines.append)
    assert row == run_rows[seed]  # every column: winner, rounds, anchors, gold...
    text = "\n".join(lines)
    assert f"== round {row['rounds']} ==" in text and f"== round {row['rounds'] + 1} ==" not in text
    assert f"game over after round {row['rounds']}" in text


def test_log_reads_turn_by_turn(lanes):
    lines = []
    row = lanes.replay(3, DECKS, [make_agent("random"), make_agent("random")], write=lines.append)
    text = "\n".join(lines)
    assert lines[0].startswith("seed 3: seat 0 red_black_raiders (random) vs seat 1 blue_green_wardens (random)")
    for needle in ("== round 1 ==", "-- hero_deployment --", "deploy  s0 *", "-- play --", "resources; hand:",
                   "-- combat --", "board   lane 0: s0 A30 [", "lane 0  s", " hits ", "dies    s", "gold    s"):
        assert needle in text, needle
    assert re.search(r"play    s[01] .+ \d+/\d+ \(cost \d+\) -> lane \d pos \d", text)
    assert re.search(r"anchor  s[01] lane \d: anchor \d+ -> ", text)
    # three deployments in round 1 per seat
    round1 = text.split("== round 2 ==")[0]
    assert round1.count("deploy  s0") == 3 and round1.count("deploy  s1") == 3
    assert row["rounds"] >= 2


def test_spells_abilities_equipment_and_shop_are_logged(lanes):
    lines = []
    for seed in range(6):
        lanes.replay(seed, ("red_vanguard", "blue_tide"), [make_agent("random")] * 2, write=lines.append)
    text = "\n".join(lines)
    assert "-- shop --" in text
    for needle in ("   cast    s", "   target  s", "   ability s", "   equip   s", "   buy     s"):
        assert needle in text, needle


def test_replays_are_the_golden_texts(capsys):
    # the replay reads the compiled game's own events (compiled/event_stream.py); its text for the
    # golden set was recorded from the numpy twins' events, so the compiled game posts the same
    # events at the same moments (bench/golden_replay.py; the whole set: `verify` without --quick)
    spec = importlib.util.spec_from_file_location("golden_replay", GOLDEN_REPLAY)
    golden = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(golden)
    assert golden.verify(quick=True) == 0, capsys.readouterr().out


def test_replay_plays_the_compiled_systems(lanes, monkeypatch):
    # one engine: the replay's game is the compiled schedule's, with its events on; no numpy twin runs
    from battlesim.systems.lanes import combat, deploy, play, round_end, round_start

    def twin(self, *args):
        raise AssertionError(f"the numpy twin {type(self).__name__} ran")

    for cls in (round_start.StartOfRound, deploy.HeroDeployment, play.PlayPhase, combat.Combat,
                round_end.EndOfRound):
        monkeypatch.setattr(cls, "process", twin)
    lines = []
    lanes.replay(5, DECKS, [make_agent("random")] * 2, write=lines.append)
    assert any(" hits " in line for line in lines) and any(line.startswith("   dies") for line in lines)


def test_replay_leaves_no_handler_and_does_not_disturb_runs(lanes):
    before = {k: len(v) for k, v in esper.event_registry.items()}
    lanes.replay(11, DECKS, [make_agent("random")] * 2, write=lambda line: None)
    assert {k: len(v) for k, v in esper.event_registry.items()} == before
    assert lanes.schedule.phases[0].systems[0].__class__.__name__ != "_PhaseMarker"


def test_new_events_need_only_a_formatter(lanes, monkeypatch):
    monkeypatch.setattr(replay_mod, "FORMATTERS", dict(replay_mod.FORMATTERS))

    @replay_mod.formatter("lanes.play")
    def shout(log, w, games, seat, card, lane, pos, slots):
        return [f"   PLAY {log.card(c).upper()}" for (c,) in log.mine(games, card)]

    lines = []
    lanes.replay(3, DECKS, [make_agent("random")] * 2, write=lines.append)
    assert any(line.startswith("   PLAY ") for line in lines)


def test_cli_replay_prints_the_runs_result(run_rows):
    runner = CliRunner()
    for seed in (500, 549):
        r = runner.invoke(app, ["replay", "--seed", str(seed), "--deck", DECKS[0], "--vs", DECKS[1],
                                "--agents", ",".join(AGENTS)])
        assert r.exit_code == 0, r.output
        last = r.stdout.strip().splitlines()[-1]
        row = run_rows[seed]
        assert last.startswith(f"result: winner {row['winner']} ")
        assert f"rounds {row['rounds']}," in last and f"end reason {row['end_reason']}" in last


def test_cli_replay_bad_input_is_one_line():
    r = CliRunner().invoke(app, ["replay", "--seed", "1", "--agents", "random,wizard"])
    assert r.exit_code == 2 and "unknown agent 'wizard'" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


BOARD = """
ruleset = "lanes"
rule = "test"
units = [
  { side = 0, lane = 1, pos = 0, name = "Pyre", attack = 1, health = 5, hero = true, faction = "Red" },
  { side = 0, lane = 1, pos = 2, card = "Test Banner" },
  { side = 0, lane = 1, pos = 1, name = "Left", attack = 2, health = 3 },
  { side = 1, lane = 1, pos = 3, name = "Enemy", attack = 2, health = 6 },
]

[players]
resources = [10, 10]

[[cards]]
name = "Test Banner"
type = "unit"
faction = "Red"
cost = 1
attack = 1
health = 3
effects = [{ trigger = "while_in_lane", op = "buff", select = "adjacent_allies", stat = "attack", amount = 1 }]

[[cards]]
name = "Test Bolt"
type = "spell"
faction = "Red"
cost = 1
target = "enemy_unit"
effects = [{ trigger = "on_play", op = "damage", select = "chosen", amount = 4 }]
"""


def test_replay_writes_effect_damage_and_attack_after_auras(lanes, tmp_path):
    # the log says what the rules read: Left's attack with the Banner's aura (3, not its own 2),
    # and a spell's damage as it lands, with what is left of its target
    from battlesim.systems.lanes.compiled.event_stream import events_of
    from battlesim.systems.lanes.compiled.processors import PlayPhase
    from battlesim.systems.lanes.play import PENDING_NONE
    from battlesim.systems.lanes.scenario import load_scenario

    path = tmp_path / "board.toml"
    path.write_text(BOARD)
    sc = load_scenario(path, game=lanes)
    lines: list[str] = []
    log = replay_mod.ReplayLog(sc.w, ("a", "b"), ["x", "y"], write=lines.append)
    assert log.stats(int(sc.w.g.board[0, 0, 1, 1])) == "3/3"
    w, A, one = sc.w, lanes.actions, np.array([0])
    w.g.hand[0, 0, 0] = w.catalog.id("Test Bolt")
    w.g.to_act[0], w.g.pending_kind[0] = 0, PENDING_NONE
    phase = PlayPhase(A)  # the compiled play phase, its events on (as the replay plays it)
    with events_of(w), log:
        phase.apply(w, one, one, np.array([A.play(0, 1, 0)]))
        phase.apply(w, one, one, np.array([A.target(1, 1, 3)]))
    text = "\n".join(lines)
    # (units written inline in a scenario are named "(scenario unit)" by the catalog)
    assert "damage  s0 *(scenario unit) (lane 1 pos 0) deals effect damage to s1 (scenario unit) (lane 1 pos 3) " \
           "for 4: 2 HP left" in text, text


def test_replay_writes_an_attack_before_the_retaliation_it_provokes(lanes, tmp_path):
    # a batch's lines come before those of the damage it causes (retaliation is a nested run)
    from battlesim.systems.lanes.compiled.event_stream import events_of
    from battlesim.systems.lanes.compiled.processors import Combat
    from battlesim.systems.lanes.scenario import load_scenario

    path = tmp_path / "board.toml"
    path.write_text('ruleset = "lanes"\nrule = "test"\nunits = [\n'
                    '  { side = 0, lane = 0, pos = 1, name = "Axe", attack = 3, health = 5 },\n'
                    '  { side = 1, lane = 0, pos = 1, name = "Thorn", attack = 0, health = 9, keywords = { retaliate = 2 } },\n'
                    ']\n')
    sc = load_scenario(path, game=lanes)
    lines: list[str] = []
    with events_of(sc.w), replay_mod.ReplayLog(sc.w, ("a", "b"), ["x", "y"], write=lines.append):
        Combat().process(sc.w)  # the compiled Combat, its events on (as the replay plays it)
    hits = [i for i, line in enumerate(lines) if "s0 (scenario unit) (lane 0 pos 1) hits" in line]
    back = [i for i, line in enumerate(lines) if "retaliates on s0 (scenario unit) (lane 0 pos 1) for 2: 3 HP left" in line]
    assert hits and back and hits[0] < back[0], lines

"""Every scenario under tests/scenarios/<ruleset>/ runs and matches its [expect] table.

A scenario is a hand check of one rule (its `rule` field quotes the sentence); expected values
are worked out from the rules text, not recorded from the engine."""

import re
from pathlib import Path

import pytest

from battlesim.systems.lanes.scenario import ScenarioError, compare, load_scenario

FILES = sorted((Path(__file__).parent / "scenarios" / "lanes").glob("*.toml"))


def test_there_are_at_least_30_scenarios():
    assert len(FILES) >= 30


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_scenario(path, lanes):
    sc = load_scenario(path, game=lanes)
    assert sc.spec.rule, "a scenario cites the rule it checks"
    assert sc.spec.expect or sc.spec.expect_error, "a scenario says what it expects"
    if sc.spec.expect_error:
        with pytest.raises(ScenarioError, match=re.escape(sc.spec.expect_error)):
            sc.run()
        return
    state = sc.run()
    assert compare(sc.spec.expect, state) == []


def test_scenarios_run_the_compiled_systems_not_the_reference(lanes, monkeypatch):
    # issue 13 "One engine": a scenario steps its game through the systems the runs play (the
    # compiled Processors); the numpy reference twins of the systems that fire card effects are
    # never called. Every scenario that runs a step of each kind is played with them disabled.
    from battlesim.systems.lanes import combat, deaths, deploy, play, round_end, round_start

    def refused(*args, **kwargs):
        raise AssertionError("a scenario called a numpy reference system")

    for cls in (round_start.StartOfRound, deploy.HeroDeployment, combat.Combat, round_end.EndOfRound):
        monkeypatch.setattr(cls, "process", refused)
    monkeypatch.setattr(play.PlayPhase, "apply", refused)
    monkeypatch.setattr(play.PlayPhase, "request", refused)
    monkeypatch.setattr(deaths, "settle", refused)
    kinds = set()
    for path in FILES:
        sc = load_scenario(path, game=lanes)
        kinds |= {step.do for step in sc.spec.steps}
        if sc.spec.expect_error:
            continue
        assert compare(sc.spec.expect, sc.run()) == [], path.stem
    assert {"play", "combat", "round_start", "round_end"} <= kinds, kinds

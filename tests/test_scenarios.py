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

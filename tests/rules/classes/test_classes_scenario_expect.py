"""spec §14: "`[expect]` / `expect_error` work as in lanes (`[[expect.units]]` matched by `lane, row`;
`[[expect.players]]` by `side`)", against the `--json` state shape. States here are written by
hand in that shape (the engine that produces them is not built yet)."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path

import pytest

from battlesim.systems.classes.scenario_expect import compare

SCENARIOS = Path(__file__).resolve().parents[3] / "tests" / "scenarios" / "classes"
COLOURS = ("white", "red", "blue", "purple", "summoning")


def mana(**kw: int) -> dict[str, int]:
    return {c: kw.get(c, 0) for c in COLOURS}


def player(side: int, **kw) -> dict:
    base = {"side": side, "class": "none", "life": 20, "level": 1, "experience": 0, "pool": mana(),
            "cooldown": [mana(), mana(), mana()], "cooldown_current": 0, "hand": [], "nether": [], "prepared": None,
            "play_area": [], "powers": []}
    return base | kw


def unit(lane: int, row: int, **kw) -> dict:
    base = {"side": 0, "lane": lane, "row": row, "name": "U", "attack": 1, "health": 1, "base_attack": 1,
            "base_health": 1, "range": 1, "keywords": {}, "conditions": {}, "defending": False, "enchanted": []}
    return base | kw


def state(players, units, **kw) -> dict:
    return {"ruleset": "classes", "turn": 1, "active": 0, "winner": None, "draw": False, "players": players,
            "units": units} | kw


def expect_of(name: str) -> dict:
    return tomllib.loads((SCENARIOS / f"{name}.toml").read_text(encoding="utf-8"))["expect"]


def test_the_hand_worked_result_of_a_scenario_matches():
    # spent_mana_goes_to_the_current_slot: red to slot 2, the 3 HP unit at 1, the bolt in the Nether
    s = state([player(0, pool=mana(white=1), cooldown=[mana(), mana(), mana(red=1)], cooldown_current=2,
                      nether=["Test Bolt"]), player(1)],
              [unit(2, 3, side=1, name="Dummy", attack=None, base_attack=None, health=1, base_health=3)])
    assert compare(expect_of("spent_mana_goes_to_the_current_slot"), s) == []
    wrong = copy.deepcopy(s)
    wrong["players"][0]["cooldown"] = [mana(red=1), mana(), mana()]
    wrong["units"][0]["health"] = 2
    assert compare(expect_of("spent_mana_goes_to_the_current_slot"), wrong) == [
        "players[0].cooldown[0].red: expected 0, got 1", "players[0].cooldown[2].red: expected 1, got 0",
        "units[2, 3].health: expected 1, got 2"]


def test_units_by_lane_and_row_absent_and_count():
    s = state([player(0), player(1)], [unit(2, 4, name="B"), unit(2, 3, name="A", defending=True)])
    assert compare(expect_of("acting_order_far_row_first") | {"players": []}, s) == []
    assert compare({"units": [{"lane": 2, "row": 4, "absent": True}]}, s) == ["units[2, 4]: expected empty, found 'B'"]
    assert compare({"units": [{"lane": 0, "row": 0, "name": "X"}]}, s) == ["units[0, 0]: expected a unit, found none"]
    assert compare({"units_count": 3}, s) == ["units_count: expected 3, got 2"]


def test_false_means_none_for_prepared_and_attack():
    # ledger G10: TOML has no null
    s = state([player(0, prepared=None), player(1, prepared={"card": "Smite", "mana": mana(white=1), "turn": 2})],
              [unit(1, 1, attack=None)])
    assert compare({"players": [{"side": 0, "prepared": False}], "units": [{"lane": 1, "row": 1, "attack": False}]}, s) == []
    assert compare({"players": [{"side": 1, "prepared": False}]}, s)[0].startswith("players[1].prepared: expected None")
    assert compare({"players": [{"side": 1, "prepared": {"card": "Smite", "mana": {"white": 1}}}]}, s) == []


def test_hands_are_multisets_play_areas_in_order_conditions_exact():
    s = state([player(0, hand=["A", "B"], play_area=[{"card": "X", "shape": "pentagon", "tokens": 1}]), player(1)],
              [unit(0, 0, conditions={"stun": 1}, enchanted=[{"side": 0, "shape": "circle", "tokens": 1}])])
    assert compare({"players": [{"side": 0, "hand": ["B", "A"]}]}, s) == []
    assert compare({"players": [{"side": 0, "play_area": []}]}, s) == ["players[0].play_area: expected 0 cards, got ['X']"]
    assert compare({"units": [{"lane": 0, "row": 0, "conditions": {}}]}, s) == [
        "units[0, 0].conditions: expected {}, got {'stun': 1}"]
    assert compare({"units": [{"lane": 0, "row": 0, "enchanted": []}]}, s)[0].startswith("units[0, 0].enchanted")


@pytest.mark.parametrize("key, value", [("turn", 2), ("winner", 0), ("draw", True), ("active", 1)])
def test_top_level_fields(key, value):
    s = state([player(0), player(1)], [])
    assert compare({key: value}, s) == [f"{key}: expected {value!r}, got {s[key]!r}"]
    assert compare({key: value}, s | {key: value}) == []

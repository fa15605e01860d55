"""The scenario files' hand-worked results, checked against the board and damage functions.

The engine runs every file (test_grid_scenarios.py); this is a second, independent check: it
re-derives what the geometry and the damage arithmetic alone decide about a scenario's first
step (a move, or an attack by the current player's unit), so a slip in a hand-worked
``[expect]`` or ``expect_error`` shows up on both sides:
a refused first move must be unreachable, an accepted one reachable at the expected MV; a refused
attack must be out of range or sight (or break a rule named here), an accepted one in range, with
the expected HP for single-step scenarios.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from battlesim.systems.grid.board import area_cells, los_distance, move_costs, reachable
from battlesim.systems.grid.damage import attack_base, hit_damage, stun_damage
from battlesim.systems.grid.scenario_check import load_scenario_plan, occupancy
from battlesim.systems.grid.vocabulary import DAMAGE_TYPES

ROOT = Path(__file__).resolve().parents[3]
SCENARIOS = sorted((ROOT / "tests" / "scenarios" / "grid").glob("*.toml"))


def _first_do(path: Path) -> str:
    steps = tomllib.loads(path.read_text(encoding="utf-8")).get("steps") or [{}]
    return steps[0].get("do", "")


# the files whose first step is a move or an attack: what this module can check
FIRST_MOVE_OR_ATTACK = [p for p in SCENARIOS if _first_do(p) in ("move", "attack")]


def first_step(path, params, card_set):
    plan = load_scenario_plan(path, params, card_set.specs)
    if not plan.spec.steps:
        return None
    step = plan.spec.steps[0]
    by_name = {u.name: u for u in plan.units}
    unit = by_name.get(step.unit or "")
    if step.do not in ("move", "attack") or unit is None:
        return None
    can_act = unit.side == plan.spec.turn and not unit.turn_over and "stunned" not in unit.statuses
    return plan, step, unit, by_name, can_act


def expected_unit(plan, name):
    return next((u for u in (plan.spec.expect or {}).get("units", []) if u["name"] == name), None)


@pytest.mark.parametrize("path", FIRST_MOVE_OR_ATTACK, ids=lambda p: p.stem)
def test_first_step_agrees_with_the_rule_functions(path, params, card_set):
    found = first_step(path, params, card_set)
    assert found is not None, "the first step's unit is not one of the scenario's units"
    plan, step, unit, by_name, can_act = found
    refused = plan.spec.expect_error == f"steps[0] ({step.do}): not legal"
    if not can_act:
        assert refused, "a unit without a turn cannot act"
        return
    b, occ = plan.board, occupancy(plan)
    here = b.cell(unit.x, unit.y)
    if step.do == "move":
        flying = bool(unit.keywords.get("flying"))
        passes = unit.cls == "rogue" or flying
        cost = move_costs(b.neighbours, b.wall, b.web, occ, here, unit.side, passes, flying)
        to = b.cell(*step.to)
        legal = bool(reachable(cost, b.wall, occ, unit.mv, passes)[to])
        assert legal != refused
        mine = expected_unit(plan, unit.name)
        traps = any(s.do == "play" for s in plan.spec.steps)
        if legal and len(plan.spec.steps) == 1 and mine and "mv_left" in mine and not traps:
            assert mine["mv_left"] == unit.mv - cost[to]
        return
    ability = next((a for a in unit.abilities if a.name == step.ability), None)
    target = by_name.get(step.target or "")
    centre = b.cell(*step.cell) if step.cell else b.cell(target.x, target.y)
    reach = ability.range if ability is not None and ability.range is not None else unit.range
    dist = los_distance(b.neighbours, b.wall, occ, here, unit.side)
    legal = bool(dist[centre] <= reach)
    if target is not None:
        legal &= target.side != unit.side and not ({"hidden", "invisible"} & set(target.statuses))
    if ability is not None:
        se = plan.se[plan.spec.turn]
        legal &= se >= ability.se and (not ability.requires_hidden or "hidden" in unit.statuses)
    assert legal != refused
    if not legal or len(plan.spec.steps) != 1:
        return
    area = ability.area if ability is not None and ability.area is not None else 0
    hit = area_cells(b.manhattan, centre, area)
    kind = DAMAGE_TYPES.index(ability.damage_type if ability and ability.damage_type else unit.damage_type)
    for other in plan.units:
        mine = expected_unit(plan, other.name)
        if mine is None or "hp" not in mine or other.keywords.get("parry"):
            continue
        struck = other.side != unit.side and hit[b.cell(other.x, other.y)]
        if ability is not None and ability.stun:
            dmg = stun_damage(unit.damage, other.resist[kind])
        elif ability is not None:
            base = attack_base(unit.damage, ability.damage if ability.damage is not None else -1)
            dmg = hit_damage(base, ability.mult2, ability.bonus_damage or 0, other.resist[kind])
        else:
            dmg = hit_damage(unit.damage, 2, 0, other.resist[kind])
        assert mine["hp"] == (max(0, other.hp - dmg) if struck else other.hp), other.name


def test_the_check_above_covers_ten_moves_and_ten_attacks():
    kinds = [_first_do(p) for p in FIRST_MOVE_OR_ATTACK]
    assert kinds.count("move") >= 10 and kinds.count("attack") >= 10, kinds

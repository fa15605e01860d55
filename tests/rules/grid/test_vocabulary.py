"""The grid vocabulary and components: tables with their sentences, components in the grid namespace."""

from __future__ import annotations

import pytest

from battlesim.ecs.datafiles import DataError
from battlesim.ecs.registry import get_component
from battlesim.systems.grid import components
from battlesim.systems.grid.params import GridParams, load_params
from battlesim.systems.grid.vocabulary import CLASSES, KEYWORDS, OPS, STATUSES, vocabulary_rows


def test_components_live_in_the_grid_namespace():
    # DESIGN.md "The World": "hex's Shield X and lanes' Shield are different components"
    assert len(components.NAMES) == len(set(components.NAMES))
    for name in components.NAMES:
        assert name.startswith(components.PREFIX), name
        assert get_component(name).doc


def test_grid_words_do_not_take_another_rulesets_components():
    # lanes declares "stunned" and "stealth"; grid's stunned is its own component
    assert get_component("grid_stunned").dtype.name == "bool"
    # one resistance column per damage type (grid.md 4.4.3 "subtracting any resistances from the target card")
    for kind in ("physical", "magic", "poison"):
        assert get_component(f"grid_resist_{kind}").dtype.name == "int16"


def test_every_word_cites_its_sentence():
    for table in (KEYWORDS, STATUSES):
        for w in table.values():
            assert "grid.md 4." in w.rule, w.name
    for name, (rule, allowed, required) in OPS.items():
        assert "grid.md" in rule or "spec" in rule, name
        assert required <= allowed, name
    assert all("grid.md 4." in r for r in CLASSES.values())


def test_the_parameters_default_to_the_spec_choices():
    # spec §2: 8x8, crossroads, deploy 2 rows, deck >= 20, hand 4 / limit 7, gold 4 +3, SE 10 +2 cap 99,
    # 10 kill points, 20 rounds
    p = load_params()
    assert p == GridParams()
    assert (p.width, p.height, p.map, p.deploy_rows, p.deck_min, p.max_copies) == (8, 8, "crossroads", 2, 20, 3)
    assert (p.starting_hand, p.hand_limit, p.gold_start, p.gold_per_turn) == (4, 7, 4, 3)
    assert (p.se_start, p.se_per_turn, p.se_cap, p.kill_points_to_win, p.round_limit) == (10, 2, 99, 10, 20)
    assert not p.hired_units_act and not p.elimination and not p.aoe_friendly_fire


def test_parameter_overrides_are_checked():
    assert load_params(overrides={"width": 10, "height": 10}).width == 10
    with pytest.raises(DataError, match=r"--param widht: unknown grid parameter; did you mean 'width'"):
        load_params(overrides={"widht": 10})
    with pytest.raises(DataError, match=r"--param: field 'se_start': must be <= 99"):
        load_params(overrides={"se_start": 120})
    with pytest.raises(DataError, match=r"deploy_rows 5: the two sides' home rows overlap"):
        load_params(overrides={"deploy_rows": 5})


def test_the_vocabulary_lists_every_word_once():
    rows = vocabulary_rows()
    keys = [(r["kind"], r["name"]) for r in rows]
    assert len(keys) == len(set(keys))
    assert {k for k, _ in keys} == {"class", "damage type", "keyword", "status", "op"}
    assert len(rows) == len(CLASSES) + 3 + len(KEYWORDS) + len(STATUSES) + len(OPS)
    assert all(r["rule"].startswith(("grid.md", "spec")) for r in rows)

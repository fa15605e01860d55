"""The classes parameter file: the numbers the text fixes and the spec's choices, validated."""

from __future__ import annotations

import pytest

from battlesim.ecs.datafiles import DataError
from battlesim.systems.classes.params import load_params


def test_the_texts_numbers():
    p = load_params()
    # classes.md "Setup": "life points tracker set to 20"; "battlefield with 5 lanes"
    assert (p.life, p.lanes) == (20, 5)
    # classes.md: "The tracker has 3 slots"; "Each unit has a base defense value of 1."
    assert (p.cooldown_slots, p.base_defense) == (3, 1)
    # spec choices 1, 18, 21
    assert (p.rows, p.shapes, p.turn_limit) == (6, 5, 60)


def test_overrides_and_their_errors():
    assert load_params(overrides={"life": 30}).life == 30
    with pytest.raises(DataError, match="--param lif: unknown classes parameter; did you mean 'life'"):
        load_params(overrides={"lif": 30})
    assert load_params(overrides={"rows": 8}).rows == 8  # spec choice 1: a parameter
    with pytest.raises(DataError, match="field 'rows': must be <= 12"):
        load_params(overrides={"rows": 13})  # field ids are int8


def test_a_bad_file_names_file_line_and_field(tmp_path):
    path = tmp_path / "classes.toml"
    path.write_text("life = 20\nturn_limit = 0\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"classes.toml:2: field 'turn_limit': must be >= 1"):
        load_params(path)

"""The ledger docs/rules/grid.md lists every paragraph of the rules text, every scenario file and
every choice of the spec (DESIGN.md "The interpretation ledger")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from shared_texts import shared_file

ROOT = Path(__file__).resolve().parents[3]
LEDGER = (ROOT / "docs" / "rules" / "grid.md").read_text(encoding="utf-8")


def rows() -> set[str]:
    return set(re.findall(r"^\| (4\.\d+\.\d+)[a-z]?[ ,]", LEDGER, re.MULTILINE))


def test_every_numbered_paragraph_of_the_text_has_a_row():
    rules = shared_file("rules", "grid.md")
    if rules is None:
        pytest.skip("shared/rules/grid.md is not next to this checkout")
    numbers = set(re.findall(r"^(4\.\d+\.\d+)\s", rules.read_text(encoding="utf-8"), re.MULTILINE))
    assert numbers and numbers <= rows(), sorted(numbers - rows())


def test_every_scenario_file_is_cited():
    for path in sorted((ROOT / "tests" / "scenarios" / "grid").glob("*.toml")):
        assert f"S/{path.stem}" in LEDGER, path.stem


def test_every_choice_of_the_spec_has_a_row():
    spec = shared_file("specs", "grid.md")
    if spec is None:
        pytest.skip("shared/specs/grid.md is not next to this checkout")
    section = spec.read_text(encoding="utf-8").split("## 2.")[1].split("## 3.")[0]
    gaps = re.findall(r"^\| ([^|]+?) \| ", section, re.MULTILINE)
    gaps = [g for g in gaps if g not in ("Gap", "---")]
    assert len(gaps) >= 25
    for g in gaps:
        assert f"| {g} |" in LEDGER, g


def test_every_named_test_exists():
    for module, name in re.findall(r"T/(test_\w+)\.py::(test_\w+)", LEDGER):
        text = (ROOT / "tests" / "rules" / "grid" / f"{module}.py").read_text(encoding="utf-8")
        stem = name.rstrip("_")
        assert f"def {stem}" in text, f"{module}::{name}"

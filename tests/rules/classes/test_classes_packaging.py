"""The classes package and its data files ship (issue 15 groundwork: "Add your package(s) to
pyproject.toml's explicit packages list ... and your data globs": tests/test_install.py installs
and checks lanes; this checks, without an install, that classes' modules and files are listed)."""

from __future__ import annotations

import tomllib
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_classes_package_is_listed():
    assert "battlesim.systems.classes" in PYPROJECT["tool"]["setuptools"]["packages"]
    assert (ROOT / "systems" / "classes" / "__init__.py").is_file()


def test_every_classes_data_file_matches_a_package_data_glob():
    globs = PYPROJECT["tool"]["setuptools"]["package-data"]["battlesim.data"]
    files = [p.relative_to(ROOT / "data").as_posix() for kind in ("cards", "decks", "boards")
             for p in (ROOT / "data" / kind / "classes").glob("*")] + ["rulesets/classes.toml"]
    assert len(files) >= 2 + 4 + 2 + 1 and (ROOT / "data" / "rulesets" / "classes.toml").is_file()
    for f in files:
        assert any(fnmatch(f, g) for g in globs), f

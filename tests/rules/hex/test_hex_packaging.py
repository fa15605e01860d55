"""hex ships: its package is in pyproject's explicit list and its data files match the package-data
globs (tests/test_install.py installs the tree; this checks hex's part without a build)."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_the_hex_package_and_its_data_are_declared():
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "battlesim.systems.hex" in tool["packages"]
    assert not [p for p in (ROOT / "systems" / "hex").rglob("__init__.py") if p.parent.name != "hex"]
    globs = tool["package-data"]["battlesim.data"]
    files = [p.relative_to(ROOT / "data").as_posix() for d in ("cards/hex", "kingdoms/hex")
             for p in (ROOT / "data" / d).glob("*.toml")]
    assert len(files) >= 12
    assert all(any(fnmatch.fnmatch(f, g) for g in globs) for f in files), files

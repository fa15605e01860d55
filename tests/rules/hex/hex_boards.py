"""Small hex boards for the rules tests: a scenario text written to a file and set up."""

from __future__ import annotations

from pathlib import Path

from battlesim.systems.hex.scenario import HexScenarioRun


def board(tmp_path: Path, units: list[str], steps: str = "", head: str = "") -> HexScenarioRun:
    """A scenario of ``units`` (inline TOML tables) and ``steps`` (TOML), set up, not run."""
    text = f'ruleset = "hex"\nseed = 1\n{head}\nunits = [\n' + ",\n".join(units) + "\n]\n" + steps
    path = tmp_path / "board.toml"
    path.write_text(text, encoding="utf-8")
    return HexScenarioRun(path)

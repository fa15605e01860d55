"""The golden games: the games and cards tables of fixed seeds, decks and agents (bench/golden.py)
hash to bench/golden_hashes.json. A change that alters any game fails here; a deliberate rule fix
re-records the hashes in its own commit, with its own rule test (`python bench/golden.py record DIR`,
then copy DIR/hashes.json)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[1] / "bench" / "golden.py"


def test_the_golden_games_are_unchanged(capsys):
    spec = importlib.util.spec_from_file_location("golden", GOLDEN)
    golden = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(golden)
    assert golden.verify() == 0, capsys.readouterr().out

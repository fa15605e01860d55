"""docs/cards.md is the designer's reference: it must name every registered word."""

from pathlib import Path

import battlesim.systems.lanes.cards  # noqa: F401  (registers the vocabulary)
from battlesim.components.keywords import KEYWORDS, STATUSES
from battlesim.systems.lanes.vocabulary import EXECUTOR

DOC = (Path(__file__).resolve().parents[1] / "docs" / "cards.md").read_text()


def test_card_reference_names_every_registered_word():
    words = [*EXECUTOR.triggers, *EXECUTOR.selectors, *EXECUTOR.opcodes, *KEYWORDS, *STATUSES]
    missing = [w for w in words if f"`{w}`" not in DOC]
    assert not missing

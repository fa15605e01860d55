"""Shared fixtures for the hex rules tests (shared/rules/hex.md, shared/rules/hex-keywords.md).

The rules texts live beside the repository (``shared/rules/``), not in it: tests that read them
find them in the nearest parent directory that has them and skip, saying so, where none does.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from battlesim.systems.hex.cards import HexCardSet, load_cards

ROOT = Path(__file__).resolve().parents[3]
TEXTS = ("hex.md", "hex-keywords.md")


def rules_dir() -> Path | None:
    for p in ROOT.parents:
        if all((p / "shared" / "rules" / t).is_file() for t in TEXTS):
            return p / "shared" / "rules"
    return None


def glossary_terms(text: str) -> list[str]:
    """The entries of a keyword list ("Armor X – This unit ..."), sub-bullets excluded."""
    terms = []
    for line in text.splitlines():
        m = re.match(r"^(\s*)(•\s*)?([A-Z][A-Za-z\- ]*?) – ", line)
        if m and len(m.group(1)) <= 4 and not (len(m.group(1)) == 4 and m.group(2)):
            terms.append(m.group(3))
    return terms


@pytest.fixture(scope="session")
def texts() -> dict[str, str]:
    d = rules_dir()
    if d is None:
        pytest.skip("shared/rules/hex.md not found beside the repository")
    return {t: (d / t).read_text(encoding="utf-8") for t in TEXTS}


@pytest.fixture(scope="session")
def hex_cards() -> HexCardSet:
    return load_cards()


@pytest.fixture(scope="session")
def terms(texts) -> dict[str, list[str]]:
    """Each text's keyword-list entries (hex.md: those after "Keyword Reference")."""
    h = texts["hex.md"]
    return {"hex.md": glossary_terms(h[h.index("Keyword Reference"):]),
            "hex-keywords.md": glossary_terms(texts["hex-keywords.md"])}

"""The ledger docs/rules/hex.md (DESIGN "The interpretation ledger"): every line of both texts is
in it word for word, every choice I-1..I-47 has a row, and every test and scenario it names exists.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
LEDGER = ROOT / "docs" / "rules" / "hex.md"


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


def test_every_line_of_both_texts_is_in_the_ledger(texts):
    ledger = _norm(LEDGER.read_text(encoding="utf-8").replace("\\|", "|"))
    missing = []
    for name, text in texts.items():
        body = text[text.index("Unedited below this line.") + len("Unedited below this line."):]
        for line in body.splitlines():
            s = re.sub(r"^\s*(\d+\.|•)\s*", "", line).strip()
            if s and _norm(s) not in ledger:
                missing.append((name, s))
    assert not missing, missing[:5]


def test_every_keyword_entry_has_its_row(terms):
    rows = set(re.findall(r"^\| ([HK]:[^|(]+?) \|", LEDGER.read_text(encoding="utf-8"), re.M))
    want = {f"H:{t}" for t in terms["hex.md"]} | {f"K:{t}" for t in terms["hex-keywords.md"]}
    assert want <= rows, sorted(want - rows)


def test_every_choice_of_the_spec_has_a_row_with_a_reason():
    text = LEDGER.read_text(encoding="utf-8")
    for n in range(1, 48):
        m = re.search(rf"^\| I-{n} \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$", text, re.M)
        assert m and all(g.strip() for g in m.groups()), n


def test_every_test_and_scenario_the_ledger_names_exists():
    text = LEDGER.read_text(encoding="utf-8")
    tests = set(re.findall(r"T/(test_\w+\.py)::(test_\w+)", text))
    assert tests
    for file, fn in tests:
        source = (ROOT / "tests" / "rules" / "hex" / file).read_text(encoding="utf-8")
        assert re.search(rf"^def {fn}\(", source, re.M), f"{file}::{fn}"
    scenarios = set(re.findall(r"S/(\w+)", text))
    assert scenarios
    for s in scenarios:
        assert (ROOT / "tests" / "scenarios" / "hex" / f"{s}.toml").is_file(), s


def test_every_scenario_file_has_its_ledger_row():
    text = LEDGER.read_text(encoding="utf-8")
    files = sorted((ROOT / "tests" / "scenarios" / "hex").glob("*.toml"))
    assert [p.stem for p in files if not re.search(rf"S/{p.stem}\b", text)] == []

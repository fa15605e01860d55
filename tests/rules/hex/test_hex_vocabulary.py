"""The hex vocabulary (systems/hex/vocabulary.py): every keyword-list entry of both texts is
classified, the names are the spec's, and the components are hex's own (spec §7).
"""

from __future__ import annotations

from battlesim.ecs.registry import registered_components
from battlesim.systems.hex import vocabulary as V


def test_every_entry_of_both_keyword_lists_is_classified(terms):
    # hex-keywords.md: "Where it and hex.md disagree, this one is newer": both lists count
    union = set(terms["hex.md"]) | set(terms["hex-keywords.md"])
    assert len(terms["hex.md"]) == 64 and len(terms["hex-keywords.md"]) == 72
    assert union == set(V.GLOSSARY), sorted(union ^ set(V.GLOSSARY))


def test_each_classified_entry_names_a_word_of_its_table():
    tables = {"keyword": V.KEYWORDS, "status": {**V.APPLIED_STATUSES, "shield": "shield"}, "op": V.OPS,
              "selector": V.SELECTORS, "ability": {"cast_range", "spell_power", "combinable", "channel"},
              "card": {"faction", "gold", "legendary"}, "damage": {"nonlethal"}}
    for term, (kind, name, note) in V.GLOSSARY.items():
        if kind == "define":
            assert not name and note, term  # a definition says why no card carries it
        else:
            assert name in tables[kind], (term, kind, name)


def test_keyword_and_status_names_are_the_specs():
    # spec §3 (names cards and scenarios write) and §8 (statuses: counters and timed)
    assert set(V.STATUSES) == {"burn", "poison", "bleed", "shield", "refraction", "fade", "channel",
                               "rooted", "disarmed", "silenced", "broken", "overheated"}
    assert {n for n, s in V.STATUSES.items() if s.kind == "timed"} == {"rooted", "disarmed", "silenced", "broken",
                                                                      "overheated"}
    # I-32: "Keyword X" and "Keyword" are one keyword, true = all
    assert {n for n, k in V.KEYWORDS.items() if k.arg == "X|all"} == {
        "evasion", "piercing", "lifesteal", "physical_damage_return", "magic_damage_return", "damage_return"}
    assert len(V.KEYWORDS) == 32


def test_components_are_namespaced_and_clash_with_nothing_lanes_declares():
    # spec §7: lanes already has armor, shield, piercing, lifesteal, trample, rooted, disarmed, silenced
    import battlesim.systems.lanes.ruleset  # noqa: F401  (declares lanes' components)

    kw, st = V.keyword_components(), V.status_components()
    comps = [*kw.values(), *st.values()]
    assert all(c.startswith("hex_") for c in comps) and len(set(comps)) == len(comps)
    import battlesim.systems.hex.state  # noqa: F401  (declares hex's components)

    registered = set(registered_components())
    lanes = {n for n in registered if not n.startswith("hex_")}
    assert {"armor", "shield", "trample"} <= lanes and not lanes & set(comps) and set(comps) <= registered
    assert kw["armor"] == "hex_armor" and st["shield"] == "hex_shield_counters"
    assert kw["burn"] == "hex_burn" and st["burn"] == "hex_burn_counters"  # Burn 2 vs 2 Burn counters
    assert st["rooted"] == "hex_rooted"


def test_damage_kinds_are_distinct_bits():
    bits = list(V.DAMAGE_KINDS.values())
    assert all(b & (b - 1) == 0 for b in bits) and len(set(bits)) == len(bits)
    assert set(V.DAMAGE_TYPES) == {"physical", "magical", "pure"}  # hex.md "Damage types"

"""The per-unit components of classes, in the ``classes_`` namespace.

DESIGN.md "The World": "A component is declared once ... per ruleset namespace: hex's Shield X
and lanes' Shield are different components even where the card files of both say shield".
classes' shield adds defence while defending; lanes' shield blocks a hit: two components. Every
name here is ``classes_<word>`` so no declaration can collide with lanes' (the registry refuses
a same-name, different-spec declaration, and would silently merge an identical one). A World
allocates only the components its ruleset lists, so declaring them costs lanes nothing.
"""

from __future__ import annotations

import numpy as np

from battlesim.ecs.plugin import component
from battlesim.systems.classes.vocabulary import CONDITIONS, KEYWORDS, SHAPES

PREFIX = "classes_"


def name(word: str) -> str:
    """The component name of a classes word (``shield`` -> ``classes_shield``)."""
    return PREFIX + word


# The unit's own values (classes.md "Setting Up Unit Stats"; spec §6).
_STATS = [
    ("side", np.int8, -1, "mask", "Owner seat (classes.md: 'A card is owned by a player that cast or summoned it')."),
    ("card", np.int16, -1, "mask", "Catalog id of the unit's card."),
    ("field", np.int8, -1, "mask", "Field id row*5+lane (board.py); one unit per field."),
    ("health", np.int16, 0, "mask", "Current HP: 'sum of values shown on its HP dice'."),
    ("attack", np.int16, 0, "mask", "Current Attack (meaningful only with classes_has_attack)."),
    ("base_health", np.int16, 0, "mask", "'Base HP – An HP value shown on the unit's card' (1 if none)."),
    ("base_attack", np.int16, 0, "mask", "'Base Attack – An Attack value shown on the unit's card'."),
    ("range", np.int8, 1, "mask", "Total attack range (base 1, +1 per Attack range modifier)."),
    ("defending", np.bool_, False, "tag", "'rotate its card sideways to indicate it's in defense mode'."),
    ("acted", np.bool_, False, "tag", "Acted in this Act step (spec choice 5: one act per unit per step)."),
]
COMPONENTS = {w: component(name(w), dt, d, p, doc) for w, dt, d, p, doc in _STATS}
COMPONENTS["has_attack"] = component(
    name("has_attack"), np.bool_, False, "tag",
    "'If not, no Attack die is placed': a unit without an Attack value cannot attack or flank.")
for _w, (_kind, _rule) in KEYWORDS.items():
    COMPONENTS[_w] = component(name(_w), np.bool_ if _kind == "tag" else np.int16, False if _kind == "tag" else 0,
                               "tag" if _kind == "tag" else "nonzero", _rule)
for _w, _rule in CONDITIONS.items():
    COMPONENTS[_w] = component(name(_w), np.int16, 0, "nonzero", _rule)
# Enchantment tokens on the unit, per player and shape (classes.md "Enchantment-Unit relationship").
COMPONENTS["enchanted"] = component(
    name("enchanted"), np.int8, 0, "nonzero",
    "Enchantment tokens on the unit per [player, shape] ('place an enchantment token of matching shape onto that unit').",
    shape=(2, len(SHAPES)))

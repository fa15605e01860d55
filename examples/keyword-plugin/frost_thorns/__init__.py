"""frost_thorns: two lanes keywords the rules do not have, declared as a designer would.

- ``frostbite X``: "a unit damaged by this unit's attack is stunned X".
- ``thorns X``: "physical damage taken returns X to the attacker, once per instance".

Each keyword is a component (``extend("lanes").keyword``) plus a damage-pipeline stage, written
in numba's subset over one row of one game's damage queue (``compiled.py``,
``extend("lanes").compiled_damage_stage``). The card and deck files in this package name them
like built-ins. Nothing in battlesim's core knows about them.
"""

from __future__ import annotations

from pathlib import Path

from battlesim.ecs.plugin import extend

from . import compiled  # noqa: F401  (the two damage stages)

lanes = extend("lanes")

lanes.keyword("frostbite", value="number",
              doc="Frostbite X: a unit damaged by this unit's attack is stunned X (X stun stacks).")
lanes.keyword("thorns", value="number",
              doc="Thorns X: physical damage taken returns X damage to the attacker, once per instance.")

_HERE = Path(__file__).resolve().parent
lanes.card_files(cards=_HERE / "cards", decks=_HERE / "decks")

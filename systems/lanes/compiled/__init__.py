"""Lanes' rules compiled (issue 13, docs/compiled-core.md): numba twins of the numpy systems,
opcodes and selectors of ``systems/lanes/``, each over one game; importing this package declares
the damage stages with the compiled core.

- ``damage_stages``: every stage of lanes' damage pipeline over one row of a game's queue;
- ``tables``: the per-card rows and numbers those stages read besides the components;
- ``legal``: the play phase's legal-action request for one game and seat;
- ``opcodes``, ``damage_opcodes``, ``selectors``: the effect vocabulary for the compiled interpreter;
- ``board``: the one place compiled code creates, moves and removes units;
- ``combat``, ``deaths``: the combat phase and settle, phases compiled into the engine module
  (they call the resolution machine, ``ecs/compiled/machine.py``).

Not wired into runs yet: ``battlesim simulate`` still plays the numpy engine.
"""

from battlesim.systems.lanes.compiled import damage_stages  # noqa: F401  (declares the stages)
from battlesim.systems.lanes.compiled import opcodes, selectors  # noqa: F401  (the effect vocabulary)
from battlesim.systems.lanes.compiled import damage_opcodes  # noqa: F401  (the opcodes that deal damage)
from battlesim.systems.lanes.compiled import combat, deaths  # noqa: F401  (phases: combat, settle)

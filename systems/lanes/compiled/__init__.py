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

- ``phase_entries``: one compiled entry per phase family (tests, debugging);
- ``bundle``, ``drivers``, ``processors``: the twins wired into runs (setup, the round's own
  phases, the shop, the play phase's legal request; docs/compiled-core.md "Wiring").
"""

# importing them declares lanes' compiled damage stages, opcodes, selectors and phases
from battlesim.systems.lanes.compiled import (  # noqa: F401
    combat,
    damage_opcodes,
    damage_stages,
    deaths,
    game,
    game_phases,
    opcodes,
    phase_entries,
    selectors,
)

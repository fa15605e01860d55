"""Lanes' rules compiled (issue 13, docs/compiled-core.md): its systems as numba functions over one
game, each the twin of a numpy system of ``systems/lanes/``; importing this package declares the
damage stages with the compiled core.

- ``damage_stages``: every stage of lanes' damage pipeline over one row of a game's queue;
- ``tables``: the per-card rows and numbers those stages read besides the components;
- ``legal``: the play phase's legal-action request for one game and seat.

Not wired into runs yet: ``battlesim simulate`` still plays the numpy engine.
"""

from battlesim.systems.lanes.compiled import damage_stages  # noqa: F401  (declares the stages)

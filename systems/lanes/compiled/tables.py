"""What lanes' compiled stages read besides the World's components: per-card rows derived from
the card set's effect table, and a few numbers, handed to ``world_view`` (``extra_cards``,
``extra_params``) so they reach compiled code as columns of ``w.cat`` and ``w.params``.

- Armor auras (lanes.md "Aura System"): the numpy reader's own per-card tables
  (``auras._aura_tables``: per aura effect slot, who it reaches and what it adds), one row per
  (slot, field): ``aura_armor.{j}.{field}`` for ``field`` in ``AURA_FIELDS``, contiguous, so a
  stage reads the first row's id and steps from it; ``aura_armor_slots`` says how many slots.
  At least one slot of rows always exists (all 0 when no card has an armor aura), so the stage's
  column ids resolve for every card set.
- "On Damage Taken": ``listens.on_damage_taken`` (1 for the cards with an effect on it, as
  ``Executor.listening`` has it) and the
  trigger's id ``trigger.on_damage_taken``, written into the events the stage pushes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from battlesim.ecs.compiled.world_view import WorldView, world_view
from battlesim.systems.lanes.auras import _aura_tables
from battlesim.systems.lanes.vocabulary import EXECUTOR

AURA_FIELDS = ("side", "lane_req", "dmin", "dmax", "excl", "amount")


def lanes_tables(w: Any) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """``(extra_cards, extra_params)`` of a lanes World, for ``world_view``."""
    n = len(w.catalog)
    cards: dict[str, np.ndarray] = {}
    slots = _aura_tables(w)["slots"]["armor"] if w.cache.get("auras_possible") else []
    for j in range(max(len(slots), 1)):
        values = slots[j] if j < len(slots) else [np.zeros(n, dtype=np.int64)] * len(AURA_FIELDS)
        for name, col in zip(AURA_FIELDS, values):
            cards[f"aura_armor.{j}.{name}"] = np.asarray(col).astype(np.int64)
    trigger = "on_damage_taken"
    tid = EXECUTOR.id("trigger", trigger)
    cards[f"listens.{trigger}"] = w.effects.cards_with(tid).astype(np.int64)
    params = {"aura_armor_slots": len(slots), f"trigger.{trigger}": tid}
    return cards, params


def lanes_view(w: Any) -> WorldView:
    """The World as lanes' compiled stages see it: ``world_view`` with lanes' derived tables."""
    cards, params = lanes_tables(w)
    return world_view(w, extra_cards=cards, extra_params=params)

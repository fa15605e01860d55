"""What compiled code needs of one World, built once per World (a chunk) and kept in ``w.cache``.

``bundle(w)`` is the ONE place a lanes World is turned into kernel arguments (issue 13;
docs/compiled-core.md "Wiring"):

- ``view``, ``st``: ``world_view`` of the World (its own component buffers, no copy) with every
  per-card row and number a lanes family reads: ``combat_tables`` (which holds ``lanes_tables``:
  the damage stages' armor-aura rows and "On Damage Taken" listeners; then combat's attack-aura
  rows, listeners, trigger ids) and ``round_trigger_rows`` (start/end of round listeners). One
  view for every family: a row a family does not read costs a few bytes per card;
- the per-game fields each family reads (``RoundFields``, ``ShopFields``, ``SetupFields``,
  ``PlayFields``: the World's own arrays by name) and its column table (``round_columns``,
  ``shop_columns``, ``setup_columns``, ``legal_columns``), each built by the family's own
  function from that one view (the families keep their own positions in ``cols``);
- ``rng``: ``w.rng.packed``, the ``uint64[B, 2]`` (key, counter) the numpy ``CounterRng`` draws
  from too (its ``counter`` is a column of it), so numpy and compiled draws share one counter
  and nothing is copied between phases.

A bundle is valid while the World keeps the arrays, catalog, effect table and equipment keywords
it was built from (``valid_for``; a catalog changed in place is not seen: clear ``w.cache``): a World
whose namespaces were replaced (a subset or deep copy made for lookahead, ``regroup``) gets a
new one; a deep copy is ``regroup``-ed first (its arrays are no longer one buffer per group).
"""

from __future__ import annotations

import weakref
from functools import cached_property
from typing import Any

import numpy as np

from battlesim.ecs.compiled.world_view import ViewError, WorldView, regroup, world_view

KEY = "compiled_bundle"


class Bundle:
    """The kernel arguments of one World (see the module's docstring)."""

    def __init__(self, w: Any) -> None:
        from battlesim.systems.lanes.compiled.combat_layout import combat_tables
        from battlesim.systems.lanes.compiled.round import round_trigger_rows

        cards, params = combat_tables(w)
        round_cards, round_params = round_trigger_rows(w)
        for name, row in round_cards.items():
            cards.setdefault(name, row)
        for name, value in round_params.items():
            params.setdefault(name, value)
        from battlesim.systems.lanes.compiled.play_layout import play_tables
        from battlesim.systems.lanes.compiled.round_layout import phase_tables

        for more in (phase_tables(w), play_tables(w)):
            for name, row in more[0].items():
                cards.setdefault(name, row)
            for name, value in more[1].items():
                params.setdefault(name, value)
        from battlesim.systems.lanes.agents import _card_tables  # greedy's per-card summaries (agents.agent_view)

        t = _card_tables(w)
        cards.setdefault("greedy_damage", np.asarray(t["damage"]).astype(np.int64))
        cards.setdefault("greedy_hostile", np.asarray(t["hostile"]).astype(np.int64))
        try:
            view = world_view(w, extra_cards=cards, extra_params=params)
        except ViewError:  # a deep copy: its arrays are no longer one buffer per group
            regroup(w)
            view = world_view(w, extra_cards=cards, extra_params=params)
        self.view: WorldView = view
        self.tables = (cards, params)  # the view's extra rows: a scratch World's view takes the same
        self.st = view.state
        self.rng: np.ndarray = w.rng.packed
        self._w = weakref.ref(w)  # no cycle World -> cache -> bundle -> World: a chunk's World is freed at once
        self._owner = _identity(w)
        self._by_actions: dict[int, tuple[Any, np.ndarray, np.ndarray]] = {}

    def valid_for(self, w: Any) -> bool:
        """The World still holds the very arrays this bundle hands to kernels."""
        return self._w() is w and all(a is b for a, b in zip(self._owner, _identity(w)))

    def __deepcopy__(self, memo: dict) -> None:
        """A deep-copied World (``World.copy``) gets no bundle: the copy's arrays are new, and a
        copied bundle would hand kernels copies of the old ones; it builds its own on first use."""
        return

    @cached_property
    def round(self) -> tuple[Any, np.ndarray]:
        """``(RoundFields, round_columns)``: creep spawn, hero availability, draw, resources,
        victory check, objective snapshot, round end."""
        from battlesim.systems.lanes.compiled.round import round_columns, round_fields

        return round_fields(self._w(), self.view), round_columns(self.view)

    @cached_property
    def setup(self) -> tuple[Any, np.ndarray]:
        """``(SetupFields, setup_columns)``: ``setup_game``."""
        from battlesim.systems.lanes.compiled.setup import setup_columns, setup_fields

        return setup_fields(self._w(), self.view), setup_columns(self.view)

    @cached_property
    def shop_fields(self) -> Any:
        from battlesim.systems.lanes.compiled.shop import shop_fields

        return shop_fields(self._w(), self.view)

    @cached_property
    def play_fields(self) -> Any:
        from battlesim.systems.lanes.compiled.legal import play_fields

        return play_fields(self.view)

    def columns_for(self, actions: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(shop_columns, legal_columns)`` for an action table (the decision phases hold it;
        a World gets ``w.actions`` only after setup)."""
        got = self._by_actions.get(id(actions))
        if got is None or got[0] is not actions:
            from battlesim.systems.lanes.compiled.legal import legal_columns
            from battlesim.systems.lanes.compiled.shop import shop_columns

            got = (actions, shop_columns(self.view, actions), legal_columns(self.view, actions, self._w().equip_keywords))
            self._by_actions[id(actions)] = got
        return got[1], got[2]


def _identity(w: Any) -> tuple:
    return (w.c, w.present, w.g, w.alive, w.serial, w.active, w._next_serial, w.rng.packed, w.catalog, w.effects,
            w.equip_keywords)


def bundle(w: Any) -> Bundle:
    """World ``w``'s bundle, built on first use and kept in ``w.cache`` while valid."""
    got = w.cache.get(KEY)
    if got is None or not got.valid_for(w):
        got = w.cache[KEY] = Bundle(w)
    return got

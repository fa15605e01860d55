"""A game's setup, compiled, one game at a time (issue 13; the numpy twin is the per-game part of
``new_world`` in ``systems/lanes/state.py``).

``setup_game(st, f, cols, tables, deck_index, rng, b)`` fills game ``b`` of a fresh World (every
array at its default, as ``World(...)`` allocates it): the six anchors (slots 0-5, one per side and
lane), each seat's deck, heroes, creep and equipment pool from its deck (``tables``, built once by
``setup_tables``), the shuffle, then initiative, with the same draws in the same order as numpy
(lanes.md: "At the start of the game, initiative is randomly assigned to one player").

The World's allocation itself (its arrays, catalog, effect table, damage pipeline,
``attach_rules``) stays in Python: it is done once per chunk, not per game.

Unlike the round's kernels this one allocates (the shuffle's keys and stable sort, once per game),
so it keeps numba's reference counting. It is ``cache=False``: it calls ``ecs/compiled/rng.py``, and
numba's cache checks only the defining file (shop.py's note).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from battlesim.ecs.compiled.rng import integers, permutation_keys
from battlesim.ecs.compiled.world_view import ViewError, WorldView

OWNER, LANE, POS, HEALTH, MAX_HEALTH, ANCHOR = range(6)
_COMPONENTS = (("owner", "i8"), ("lane", "i8"), ("pos", "i8"), ("health", "i16"), ("max_health", "i16"),
               ("anchor", "flags"))
PR_OWNER, PR_LANE, PR_POS, PR_HEALTH, PR_MAX_HEALTH = range(6, 11)  # presence rows, -1 none
P_LANES, P_ANCHOR_HP, SHUFFLE, INITIATIVE, N_COLS = range(11, 16)
PADDING = np.uint64(0xFFFFFFFFFFFFFFFF)


class SetupFields(NamedTuple):
    """The per-game arrays setup writes (the World's own, no copy)."""

    next_serial: np.ndarray  # int32[B]
    deck_index: np.ndarray  # int16[B, 2]
    deck: np.ndarray  # int16[B, 2, D]
    deck_size: np.ndarray  # int16[B, 2]
    hero_card: np.ndarray  # int16[B, 2, K]
    creep_card: np.ndarray  # int16[B, 2]
    equip_pool: np.ndarray  # int16[B, 2, M]
    initiative: np.ndarray  # int8[B]
    first_player: np.ndarray  # int8[B]


class SetupTables(NamedTuple):
    """The decks of a batch as arrays by deck index (``new_world``'s ``mains``, ``sizes``...)."""

    mains: np.ndarray  # int16[n_decks, D], -1 padding
    sizes: np.ndarray  # int16[n_decks]
    heroes: np.ndarray  # int16[n_decks, K]
    creeps: np.ndarray  # int16[n_decks]
    pools: np.ndarray  # int16[n_decks, M], -1 padding


def setup_fields(w: Any, view: WorldView) -> SetupFields:
    """The ``SetupFields`` of World ``w`` (its own arrays, no copy)."""
    return SetupFields(w._next_serial, *(view.g[name] for name in SetupFields._fields[1:]))


def setup_tables(decks: Sequence[Any], D: int, M: int) -> SetupTables:
    """The decks as ``new_world`` lays them out: main decks padded to ``D``, pools to ``M``."""
    mains = np.full((len(decks), D), -1, dtype=np.int16)
    pools = np.full((len(decks), M), -1, dtype=np.int16)
    for i, d in enumerate(decks):
        mains[i, : d.main.size] = d.main
        pools[i, : d.equipment.size] = d.equipment
    return SetupTables(mains, np.array([d.main.size for d in decks], dtype=np.int16),
                       np.stack([d.heroes for d in decks]).astype(np.int16),
                       np.array([d.creep for d in decks], dtype=np.int16), pools)


def setup_columns(view: WorldView) -> np.ndarray:
    """``int64[N_COLS]``: the ``cols`` argument of ``setup_game`` for this World."""
    from battlesim.ecs.rng import Stream

    out = np.zeros(N_COLS, dtype=np.int64)
    for k, (name, group) in enumerate(_COMPONENTS):
        got = view.columns.get(name)
        if got is None or got[0] != group:
            raise ViewError(f"component {name!r} is {got and got[0]}, the compiled setup reads it as {group}")
        out[k] = got[1]
    for k, (name, _) in enumerate(_COMPONENTS[:5]):
        out[PR_OWNER + k] = view.presence.get(name, -1)
    for k, name in enumerate(("lanes", "anchor_hp")):
        if name not in view.param_index:
            raise ViewError(f"the ruleset has no parameter {name!r}")
        out[P_LANES + k] = view.param_index[name]
    out[SHUFFLE], out[INITIATIVE] = int(Stream.SHUFFLE), int(Stream.INITIATIVE)
    return out


@njit(cache=False)
def setup_game(st, f, cols, tables, deck_index, rng, b) -> None:
    """``new_world`` for game b: anchors (lanes.md: "Each anchor starts with 30 HP"), each seat's
    deck by ``deck_index[b, seat]``, the shuffle (one ``Stream.SHUFFLE`` key per card of both
    seats' padded decks, padding last, stable), then initiative (``Stream.INITIATIVE``)."""
    L = st.params[cols[P_LANES]]
    hp = st.params[cols[P_ANCHOR_HP]]
    for side in range(2):
        for lane in range(L):
            slot = 0
            while st.alive[b, slot]:
                slot += 1
            st.alive[b, slot] = True
            st.serial[b, slot] = f.next_serial[b]
            f.next_serial[b] += 1
            st.i8[cols[OWNER], b, slot] = side
            st.i8[cols[LANE], b, slot] = lane
            st.i8[cols[POS], b, slot] = -1
            st.i16[cols[HEALTH], b, slot] = hp
            st.i16[cols[MAX_HEALTH], b, slot] = hp
            for k in range(PR_OWNER, PR_MAX_HEALTH + 1):
                if cols[k] >= 0:
                    st.flags[cols[k], b, slot] = True
            st.flags[cols[ANCHOR], b, slot] = True
    D = f.deck.shape[2]
    for seat in range(2):
        d = deck_index[b, seat]
        f.deck_index[b, seat] = d
        f.equip_pool[b, seat, :] = tables.pools[d]
        f.deck[b, seat, :] = tables.mains[d]
        f.deck_size[b, seat] = tables.sizes[d]
        f.hero_card[b, seat, :] = tables.heroes[d]
        f.creep_card[b, seat] = tables.creeps[d]
    keys = np.empty(2 * D, dtype=np.uint64)
    permutation_keys(rng, b, cols[SHUFFLE], keys)
    shuffled = np.empty(D, dtype=np.int16)
    for seat in range(2):
        mine = keys[seat * D:(seat + 1) * D].copy()
        for j in range(D):
            if f.deck[b, seat, j] < 0:
                mine[j] = PADDING
        order = np.argsort(mine, kind="mergesort")
        for j in range(D):
            shuffled[j] = f.deck[b, seat, order[j]]
        f.deck[b, seat, :] = shuffled
    f.initiative[b] = integers(rng, b, 2, cols[INITIATIVE])
    f.first_player[b] = f.initiative[b]

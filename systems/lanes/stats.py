"""Effective values: what the rules read when they read a unit's attack, armor or keyword.

Value = the unit's own component (its card's keywords, permanent buffs and grants)
+ its temporary buffs + what its equipment grants + auras. Keeping this in one place means
combat, battles and the damage pipeline can never disagree about a unit's attack or armor.
"""

from __future__ import annotations

import numpy as np

from battlesim.ecs.npx import sum_last
from battlesim.systems.lanes.auras import aura_bonus


def keyword(w, name: str, b: np.ndarray, s: np.ndarray) -> np.ndarray:
    """A keyword as the rules see it: own + equipment (tags: either; numbers: the sum)."""
    return keyword_flat(w, name, np.asarray(b, dtype=np.intp) * w.n_slots + s)


def keyword_flat(w, name: str, flat: np.ndarray) -> np.ndarray:
    """``keyword`` for flat entity indices (``w.flat(b, s)``; any shape)."""
    own = getattr(w.c, name).reshape(-1)[flat]
    if name not in w.equip_keywords:
        return own
    # what the held item grants, read through the item's card id; an empty hand (-1) reads the
    # table's extra last entry, 0: no mask and no branch for units without equipment
    extra = _by_item(w, f"kw_{name}", np.bool_ if own.dtype == np.bool_ else None).take(w.c.equipment.reshape(-1)[flat])
    return (own | extra) if own.dtype == np.bool_ else own + extra


def _by_item(w, column: str, dtype=None) -> np.ndarray:
    """The catalog column ``column`` read by an equipment card id, with a 0 appended for "no
    item" (-1); cached. Its dtype (``dtype``, else the column's with a Python 0, as
    ``np.where(held, col, 0)`` had it) keeps every sum the same as with a held mask."""
    key = ("by_item", column, dtype)
    table = w.cache.get(key)
    if table is None:
        col = getattr(w.catalog.arrays, column)
        table = np.zeros(col.size + 1, dtype=dtype or np.result_type(col.dtype, 0))
        table[:-1] = col
        w.cache[key] = table
    return table


def attack(w, b: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Current attack: base + temporary + equipment + auras, 0 while enfeebled, never below 0.
    lanes.md "Battle rules": "Uses current attack values (including buffs/debuffs)"."""
    c = w.c
    f = np.asarray(b, dtype=np.intp) * w.n_slots + s  # flat entity indices: one 1-D gather per read
    val = c.attack.reshape(-1)[f].astype(np.int32) + sum_last(c.temp_attack.reshape(-1, c.temp_attack.shape[2])[f])
    val += _by_item(w, "attack").take(c.equipment.reshape(-1)[f])  # the held item's attack (none: 0)
    auras = aura_bonus(w, "attack", b, s)
    if auras is not None:
        val += auras
    val = np.where(c.enfeebled.reshape(-1)[f] > 0, 0, val)  # "Enfeebled - Attack reduced to 0"
    return np.maximum(val, 0)


def armor(w, b: np.ndarray, s: np.ndarray) -> np.ndarray:
    val = keyword(w, "armor", b, s).astype(np.int32)
    auras = aura_bonus(w, "armor", b, s)
    if auras is not None:
        val += auras
    return val

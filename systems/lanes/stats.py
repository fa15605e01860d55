"""Effective values: what the rules read when they read a unit's attack, armor or keyword.

Value = the unit's own component (its card's keywords, permanent buffs and grants)
+ its temporary buffs + what its equipment grants + auras. Keeping this in one place means
combat, battles and the damage pipeline can never disagree about a unit's attack or armor.
"""

from __future__ import annotations

import numpy as np

from systems.lanes.auras import aura_bonus


def equipment_value(w, name: str, b: np.ndarray, s: np.ndarray) -> np.ndarray:
    """What the held equipment adds to keyword ``name`` (0/False without equipment)."""
    eq = w.c.equipment[b, s]
    held = eq >= 0
    col = getattr(w.catalog.arrays, f"kw_{name}")
    return np.where(held, col[np.where(held, eq, 0)], 0)


def keyword(w, name: str, b: np.ndarray, s: np.ndarray) -> np.ndarray:
    """A keyword as the rules see it: own + equipment (tags: either; numbers: the sum)."""
    own = getattr(w.c, name)[b, s]
    if name not in w.equip_keywords:
        return own
    extra = equipment_value(w, name, b, s)
    return (own | extra.astype(bool)) if own.dtype == np.bool_ else own + extra


def attack(w, b: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Current attack: base + temporary + equipment + auras, 0 while enfeebled, never below 0.
    lanes.md "Battle rules": "Uses current attack values (including buffs/debuffs)"."""
    val = w.c.attack[b, s].astype(np.int32) + w.c.temp_attack[b, s].sum(axis=-1)
    eq = w.c.equipment[b, s]
    held = eq >= 0
    if held.any():
        val += np.where(held, w.catalog.arrays.attack[np.where(held, eq, 0)], 0)
    auras = aura_bonus(w, "attack", b, s)
    if auras is not None:
        val += auras
    val = np.where(w.c.enfeebled[b, s] > 0, 0, val)  # "Enfeebled - Attack reduced to 0"
    return np.maximum(val, 0)


def armor(w, b: np.ndarray, s: np.ndarray) -> np.ndarray:
    val = keyword(w, "armor", b, s).astype(np.int32)
    auras = aura_bonus(w, "armor", b, s)
    if auras is not None:
        val += auras
    return val

"""Attack exchanges: the part combat and battles share.

lanes.md "Combat Resolution": "Both units deal their attack as damage to each other
(simultaneous)"; "First Strike - Deals damage before opponent in combat". "Battle Mechanics
(Outside Combat Phase)": "Uses current attack values"; "Respects First Strike - unit with First
Strike deals damage first"; "Respects Armor and Shield"; "Triggers on-damage effects".

An exchange is a list of attack instances (attacker -> target). Instances whose attacker has
First Strike and whose target does not go in a first step; the rest follow, minus attackers the
first step destroyed (they never deal their damage). Two First Strikers hit simultaneously.
"""

from __future__ import annotations

import numpy as np

from battlesim.ecs.damage import ATTACK, DamageBatch
from battlesim.systems.lanes import stats


def first_strike_step(w, game: np.ndarray, attacker: np.ndarray, target: np.ndarray) -> np.ndarray:
    """``bool[n]``: instances that resolve in the first step."""
    base = np.asarray(game, dtype=np.intp) * w.n_slots
    fs_a = stats.keyword_flat(w, "first_strike", base + attacker)
    if not fs_a.any():
        return fs_a
    ft = base + target  # an anchor's own first_strike never counts: it is not a unit
    return fs_a & ~(stats.keyword_flat(w, "first_strike", ft) & ~w.c.anchor.reshape(-1)[ft])


def attack_batch(w, game, attacker, target, kind: int, extra=None, attack=None) -> DamageBatch:
    """Instances dealing the attackers' current attack (+ ``extra``), one per attack: an attack
    of 0 is still an attack (ledger, interpretation 21: "Enfeebled - Attack reduced to 0" is not
    "cannot attack"), so its target's Retaliate answers it; the 0 itself changes nothing (no
    shield stack, armor or hit is spent on it). ``attack``: that current attack, when the
    caller has just read it."""
    amount = (stats.attack(w, game, attacker) if attack is None else attack).astype(np.int64)
    if extra is not None:
        amount = amount + extra
    return DamageBatch(game, attacker, target, amount, kind | ATTACK)


def exchange(w, game: np.ndarray, attacker: np.ndarray, target: np.ndarray, kind: int) -> None:
    """Resolve attack instances outside combat (battles, strikes), first strikers first."""
    if game.size == 0:
        return
    first = first_strike_step(w, game, attacker, target)
    for i, step in enumerate((first, ~first)):
        idx = np.flatnonzero(step)
        if i == 1:
            idx = idx[w.c.health[game[idx], attacker[idx]] > 0]
        if idx.size:
            w.pipeline.run(w, attack_batch(w, game[idx], attacker[idx], target[idx], kind))

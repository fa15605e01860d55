"""Lanes' stages of the damage pipeline: every keyword that touches damage, in rules order.

lanes.md "Armor vs Shield": "Shield is checked first and blocks ALL damage completely
(consumes 1 shield stack)"; "If no shield, armor reduces damage (but armor is not consumed)";
"Any remaining damage goes to health". Damage immunity comes before the shield, so an immune
unit keeps its shield. Reactions (lifesteal, retaliate, overflow to the anchor, "On Damage
Taken") follow application; each may start a new batch through the same pipeline.
"""

from __future__ import annotations

import numpy as np

from ecs.damage import (
    APPLY_HEALTH, ATTACK, DEATH, MITIGATION, OVERFLOW, PREVENTION, REACTIONS, RETALIATE, SPELL,
    DamageBatch, DamagePipeline,
)
from ecs.effects import Ctx
from systems.lanes import stats
from systems.lanes.board import anchor_slot
from systems.lanes.vocabulary import EXECUTOR, lanes


def destroyed_objective(w, batch: DamageBatch) -> None:
    """A destroyed lane objective is gone (lanes.md: "When essence reaches 0 HP, that lane's
    objective is destroyed"): damage aimed at it, e.g. by an attack chosen before a first strike
    destroyed it, is lost."""
    gone = w.c.ruined[batch.game, batch.target]
    batch.amount[gone] = 0


def damage_immunity(w, batch: DamageBatch) -> None:
    """"Damage Immunity - Cannot take damage"."""
    immune = w.c.damage_immunity[batch.game, batch.target] > 0
    batch.amount[immune] = 0


def shield(w, batch: DamageBatch) -> None:
    """"Shield - Blocks the next instance of damage completely (then removed). Can stack.":
    a target with k stacks blocks its first k instances of the batch (row order)."""
    live = batch.amount > 0
    if not live.any():
        return
    stacks = w.c.shield[batch.game, batch.target].astype(np.int64)
    has = live & (stacks > 0)
    if not has.any():
        return
    sub = np.flatnonzero(has)
    part = batch.take(sub)
    rank = np.zeros(sub.size, dtype=np.intp) if part.distinct_targets(w) else part.same_target_rank()[1]
    blocked = rank < stacks[sub]
    batch.amount[sub[blocked]] = 0
    np.subtract.at(w.c.shield.reshape(-1), part.game[blocked] * w.n_slots + part.target[blocked], 1)


def armor(w, batch: DamageBatch) -> None:
    """"Formula: damage_to_health = max(damage - armor, 0)"; "Piercing ignores POSITIVE armor
    (deals full damage)"; "Piercing is still amplified by NEGATIVE armor"."""
    live = np.flatnonzero(batch.amount > 0)
    if live.size == 0:
        return
    b, t, src = batch.game[live], batch.target[live], batch.source[live]
    a = stats.armor(w, b, t)
    has_src = (src >= 0) & ((batch.kind[live] & SPELL) == 0)  # a spell is not the caster's piercing attack
    pierce = np.zeros(live.size, dtype=bool)
    pierce[has_src] = stats.keyword(w, "piercing", b[has_src], src[has_src])
    a = np.where(pierce, np.minimum(a, 0), a)
    batch.amount[live] = np.maximum(batch.amount[live] - a, 0)


def record_hit(w, batch: DamageBatch) -> None:
    """Remember which seat hit each unit last, so a death pays its bounty to the killer's
    opponent only when the enemy killed it (lanes.md: "Kill enemy unit/creep: +1 gold")."""
    rows = np.flatnonzero((batch.amount > 0) & (batch.source >= 0))
    if rows.size:
        b = batch.game[rows]
        w.c.hit_by[b, batch.target[rows]] = w.c.owner[b, batch.source[rows]]


def lifesteal(w, batch: DamageBatch) -> None:
    """"Lifesteal - Heal own anchor for damage dealt": the anchor of the source's lane."""
    rows = np.flatnonzero((batch.dealt > 0) & (batch.source >= 0) & ((batch.kind & SPELL) == 0))
    if rows.size == 0:
        return
    b, s = batch.game[rows], batch.source[rows]
    ls = stats.keyword(w, "lifesteal", b, s) & ~w.c.anchor[b, s]
    if not ls.any():
        return
    b, s, amt = b[ls], s[ls], batch.dealt[rows[ls]]
    heal_anchor(w, b, anchor_slot(w.c.owner[b, s].astype(np.intp), w.c.lane[b, s].astype(np.intp)), amt)


def heal_anchor(w, b: np.ndarray, anchor: np.ndarray, amount: np.ndarray) -> None:
    """Heal anchors (or essences) up to their maximum; a destroyed objective stays destroyed."""
    live = ~w.c.ruined[b, anchor]
    np.add.at(w.c.health, (b[live], anchor[live]), amount[live].astype(w.c.health.dtype))
    hp = w.c.health[b[live], anchor[live]]
    w.c.health[b[live], anchor[live]] = np.minimum(hp, w.c.max_health[b[live], anchor[live]])


def retaliate(w, batch: DamageBatch) -> None:
    """"Retaliate X - When this unit is attacked, it deals X damage back to each attacker.
    Triggers even if the unit dies from the attack. Retaliate damage respects armor and shields".
    Attacked = attack damage (combat, battles, strikes), whether or not it got through; anchors
    enchanted with Retaliate answer unopposed attackers the same way."""
    rows = np.flatnonzero(((batch.kind & ATTACK) != 0) & (batch.source >= 0))
    if rows.size == 0:
        return
    b, t, src = batch.game[rows], batch.target[rows], batch.source[rows]
    x = stats.keyword(w, "retaliate", b, t).astype(np.int64)
    back = x > 0
    if back.any():
        w.pipeline.run(w, DamageBatch(b[back], t[back], src[back], x[back], RETALIATE))


def overflow(w, batch: DamageBatch) -> None:
    """"Trample - Excess damage (overkill on units) hits enemy anchor"; "Piercing - Excess damage
    (overkill) hits enemy anchor". The anchor hit is the one behind the unit that died."""
    rows = np.flatnonzero((batch.excess > 0) & (batch.source >= 0) & ((batch.kind & ATTACK) != 0))
    if rows.size == 0:
        return
    b, t, src = batch.game[rows], batch.target[rows], batch.source[rows]
    unit = ~w.c.anchor[b, t]
    carries = unit & (stats.keyword(w, "trample", b, src) | stats.keyword(w, "piercing", b, src))
    if not carries.any():
        return
    b, t, src, amt = b[carries], t[carries], src[carries], batch.excess[rows[carries]]
    anchor = anchor_slot(w.c.owner[b, t].astype(np.intp), w.c.lane[b, t].astype(np.intp))
    open_ = ~w.c.ruined[b, anchor]
    if open_.any():
        w.pipeline.run(w, DamageBatch(b[open_], src[open_], anchor[open_], amt[open_], OVERFLOW))


def anchor_falls(w, batch: DamageBatch) -> None:
    """lanes.md "Anchor & Essence System": "When an anchor reaches 0 HP, it transforms into an
    essence"; "Essence has 40 HP"; "When essence reaches 0 HP, that lane's objective is
    destroyed". Ledger: damage beyond an anchor's last HP does not carry into the essence.
    Anchor enchantments stay ("When anchor becomes essence, enchantments remain active")."""
    b, t = batch.game, batch.target
    hit = w.c.anchor[b, t] & (w.c.health[b, t] <= 0) & ~w.c.ruined[b, t]
    if not hit.any():
        return
    b, t = b[hit], t[hit]
    was_essence = w.c.essence[b, t]
    fall = b[~was_essence], t[~was_essence]
    w.c.essence[fall] = True
    w.c.health[fall] = w.params.essence_hp
    w.c.max_health[fall] = w.params.essence_hp
    ruin = b[was_essence], t[was_essence]
    w.c.ruined[ruin] = True
    w.c.health[ruin] = 0


def damage_taken(w, batch: DamageBatch) -> None:
    """"On Damage Taken - Triggers when this unit takes damage" (damage that reached health)."""
    if not EXECUTOR.listens(w, "on_damage_taken"):
        return
    rows = np.flatnonzero(batch.dealt > 0)
    if rows.size == 0:
        return
    b, t = batch.game[rows], batch.target[rows]
    unit = ~w.c.anchor[b, t]
    if not unit.any():
        return
    b, t, src = b[unit], t[unit], batch.source[rows[unit]]
    card = w.c.card_id[b, t]
    keep = EXECUTOR.listening(w, "on_damage_taken", card)
    if keep is None:
        return
    b, t, src = b[keep], t[keep], src[keep]
    EXECUTOR.fire(w, "on_damage_taken", Ctx.make(
        b, w.c.card_id[b, t], w.c.owner[b, t], w.c.lane[b, t], w.c.pos[b, t], source=t, other=src,
    ))


def mark_dying(w, batch: DamageBatch) -> None:
    """"Units with 0 or less health are marked as destroyed" (lanes.md "Combat Resolution")."""
    b, t = batch.game, batch.target
    dead = ~w.c.anchor[b, t] & ~w.c.improvement[b, t] & (w.c.health[b, t] <= 0) & w.alive[b, t]
    w.c.dying[b[dead], t[dead]] = True


STAGES = [
    ("destroyed_objective", PREVENTION - 10, destroyed_objective),
    ("damage_immunity", PREVENTION, damage_immunity),
    ("shield", PREVENTION + 10, shield),
    ("armor", MITIGATION, armor),
    (APPLY_HEALTH.name, APPLY_HEALTH.priority, APPLY_HEALTH.fn),
    ("record_hit", REACTIONS - 10, record_hit),
    ("lifesteal", REACTIONS, lifesteal),
    ("retaliate", REACTIONS + 10, retaliate),
    ("overflow", REACTIONS + 20, overflow),
    ("anchor_falls", REACTIONS + 50, anchor_falls),
    ("damage_taken", REACTIONS + 60, damage_taken),
    ("mark_dying", DEATH, mark_dying),
]
for _name, _priority, _fn in STAGES:
    lanes.damage_stage(_name, _priority)(_fn)  # the public API (ecs/plugin.py), as a plugin would


def lanes_pipeline() -> DamagePipeline:
    """Every declared stage (built-in and plugins'), in the documented order."""
    return lanes.pipeline()

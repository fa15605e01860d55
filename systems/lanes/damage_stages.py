"""Lanes' stages of the damage pipeline: every keyword that touches damage, in rules order.

lanes.md "Armor vs Shield": "Shield is checked first and blocks ALL damage completely
(consumes 1 shield stack)"; "If no shield, armor reduces damage (but armor is not consumed)";
"Any remaining damage goes to health". Damage immunity comes before the shield, so an immune
unit keeps its shield. Reactions (lifesteal, retaliate, overflow to the anchor, "On Damage
Taken") follow application; each may start a new batch through the same pipeline.
"""

from __future__ import annotations

import numpy as np

from battlesim.ecs.damage import (
    APPLY_HEALTH,
    ATTACK,
    DEATH,
    MITIGATION,
    OVERFLOW,
    PREVENTION,
    REACTIONS,
    RETALIATE,
    SPELL,
    DamageBatch,
    DamagePipeline,
    earlier_on_same_target,
)
from battlesim.ecs.effects import Ctx
from battlesim.systems.lanes import stats
from battlesim.systems.lanes.board import anchor_slot
from battlesim.systems.lanes.vocabulary import EXECUTOR, lanes


def destroyed_objective(w, batch: DamageBatch) -> None:
    """A destroyed lane objective is gone (lanes.md: "When essence reaches 0 HP, that lane's
    objective is destroyed"): damage aimed at it, e.g. by an attack chosen before a first strike
    destroyed it, is lost."""
    batch.amount[w.c.ruined.reshape(-1)[batch.flat(w)[0]]] = 0


def damage_immunity(w, batch: DamageBatch) -> None:
    """"Damage Immunity - Cannot take damage"."""
    batch.amount[w.c.damage_immunity.reshape(-1)[batch.flat(w)[0]] > 0] = 0


def shield(w, batch: DamageBatch) -> None:
    """"Shield - Blocks the next instance of damage completely (then removed). Can stack.":
    a target with k stacks blocks its first k instances of the batch (row order)."""
    ft = batch.flat(w)[0]
    shields = w.c.shield.reshape(-1)
    stacks = shields[ft]
    if not stacks.any():  # no target has a stack
        return
    has = (stacks > 0) & (batch.amount > 0)
    if not has.any():
        return
    sub = np.flatnonzero(has)
    key = ft[sub]
    rank = earlier_on_same_target(w, key, np.ones(sub.size, dtype=np.int64))  # earlier instances on it
    if rank is None:  # one instance per target: each one is blocked
        batch.amount[sub] = 0
        shields[key] -= 1
        return
    blocked = rank < stacks[sub]
    batch.amount[sub[blocked]] = 0
    np.subtract.at(shields, key[blocked], 1)


def armor(w, batch: DamageBatch) -> None:
    """"Formula: damage_to_health = max(damage - armor, 0)"; "Piercing ignores POSITIVE armor
    (deals full damage)"; "Piercing is still amplified by NEGATIVE armor"."""
    live = np.flatnonzero(batch.amount > 0)
    if live.size == 0:
        return
    a = stats.armor(w, batch.game[live], batch.target[live])
    if not a.any():  # no armor, positive or negative, on any target
        return
    armored = np.flatnonzero(a > 0)  # piercing only matters against positive armor
    sourced, any_source = batch.sourced()
    if armored.size and any_source and not batch.kinds()[1] & SPELL:  # a spell is not the caster's piercing attack
        r = live[armored]
        pierce = sourced[r] & ((batch.kind[r] & SPELL) == 0) & stats.keyword_flat(w, "piercing", batch.flat(w)[1][r])
        a[armored[pierce]] = 0  # min(armor, 0)
    batch.amount[live] = np.maximum(batch.amount[live] - a, 0)


def record_hit(w, batch: DamageBatch) -> None:
    """Remember which seat hit each unit last, so a death pays its bounty to the killer's
    opponent only when the enemy killed it (lanes.md: "Kill enemy unit/creep: +1 gold")."""
    sourced, any_source = batch.sourced()
    if not any_source:
        return
    rows = np.flatnonzero((batch.amount > 0) & sourced)
    if rows.size:
        ft, fs = batch.flat(w)
        w.c.hit_by.reshape(-1)[ft[rows]] = w.c.owner.reshape(-1)[fs[rows]]


def lifesteal(w, batch: DamageBatch) -> None:
    """"Lifesteal - Heal own anchor for damage dealt": the anchor of the source's lane."""
    sourced, any_source = batch.sourced()
    if batch.kinds()[1] & SPELL or not any_source:  # spells only, or no dealer
        return
    rows = np.flatnonzero((batch.dealt > 0) & sourced & ((batch.kind & SPELL) == 0))
    if rows.size == 0:
        return
    fs = batch.flat(w)[1][rows]
    ls = stats.keyword_flat(w, "lifesteal", fs) & ~w.c.anchor.reshape(-1)[fs]
    if not ls.any():
        return
    b, s, amt = batch.game[rows[ls]], batch.source[rows[ls]], batch.dealt[rows[ls]]
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
    sourced, any_source = batch.sourced()
    if not batch.kinds()[0] & ATTACK or not any_source:  # no attack among the rows
        return
    rows = np.flatnonzero(((batch.kind & ATTACK) != 0) & sourced)
    if rows.size == 0:
        return
    x = stats.keyword_flat(w, "retaliate", batch.flat(w)[0][rows])
    answers = x > 0
    if answers.any():
        back = rows[answers]
        w.pipeline.run(w, DamageBatch(batch.game[back], batch.target[back], batch.source[back],
                                      x[answers], RETALIATE))


def overflow(w, batch: DamageBatch) -> None:
    """"Trample - Excess damage (overkill on units) hits enemy anchor"; "Piercing - Excess damage
    (overkill) hits enemy anchor". The anchor hit is the one behind the unit that died."""
    sourced, any_source = batch.sourced()
    if not batch.kinds()[0] & ATTACK or not any_source:  # no attack among the rows
        return
    rows = np.flatnonzero((batch.excess > 0) & sourced & ((batch.kind & ATTACK) != 0))
    if rows.size == 0:
        return
    ft, fs = batch.flat(w)
    ft, fs = ft[rows], fs[rows]
    unit = ~w.c.anchor.reshape(-1)[ft]
    carries = unit & (stats.keyword_flat(w, "trample", fs) | stats.keyword_flat(w, "piercing", fs))
    if not carries.any():
        return
    rows = rows[carries]
    b, t, src, amt = batch.game[rows], batch.target[rows], batch.source[rows], batch.excess[rows]
    anchor = anchor_slot(w.c.owner[b, t].astype(np.intp), w.c.lane[b, t].astype(np.intp))
    open_ = ~w.c.ruined[b, anchor]
    if open_.any():
        w.pipeline.run(w, DamageBatch(b[open_], src[open_], anchor[open_], amt[open_], OVERFLOW))


def anchor_falls(w, batch: DamageBatch) -> None:
    """lanes.md "Anchor & Essence System": "When an anchor reaches 0 HP, it transforms into an
    essence"; "Essence has 40 HP"; "When essence reaches 0 HP, that lane's objective is
    destroyed". Ledger: damage beyond an anchor's last HP does not carry into the essence.
    Anchor enchantments stay ("When anchor becomes essence, enchantments remain active")."""
    ft = batch.flat(w)[0]
    hit = w.c.anchor.reshape(-1)[ft]
    if not hit.any():  # most batches hit units only
        return
    hit &= (w.c.health.reshape(-1)[ft] <= 0) & ~w.c.ruined.reshape(-1)[ft]
    if not hit.any():
        return
    b, t = batch.game[hit], batch.target[hit]
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
    # the rows whose card reacts first (few, often none), then the damage and the unit tests on them
    c = w.c
    ft = batch.flat(w)[0]
    card = c.card_id.reshape(-1)[ft]
    rows = EXECUTOR.listening(w, "on_damage_taken", card)
    if rows is None:
        return
    rows = rows[(batch.dealt[rows] > 0) & ~c.anchor.reshape(-1)[ft[rows]]]  # anchors have no card
    if rows.size == 0:
        return
    ft = ft[rows]
    EXECUTOR.fire(w, "on_damage_taken", Ctx.make(
        batch.game[rows], card[rows], c.owner.reshape(-1)[ft], c.lane.reshape(-1)[ft], c.pos.reshape(-1)[ft],
        source=batch.target[rows], other=batch.source[rows],
    ))


def mark_dying(w, batch: DamageBatch) -> None:
    """"Units with 0 or less health are marked as destroyed" (lanes.md "Combat Resolution")."""
    ft = batch.flat(w)[0]
    dead = w.c.health.reshape(-1)[ft] <= 0
    if not dead.any():
        return
    c = w.c
    dead &= ~c.anchor.reshape(-1)[ft] & ~c.improvement.reshape(-1)[ft] & w.alive.reshape(-1)[ft]
    c.dying.reshape(-1)[ft[dead]] = True


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

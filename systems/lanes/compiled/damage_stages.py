"""Lanes' damage pipeline, compiled: each stage of ``systems/lanes/damage_stages.py`` over one row
of one game's damage queue (the signature of ``battlesim.ecs.compiled.stages``).

lanes.md "Armor vs Shield": "Shield is checked first and blocks ALL damage completely
(consumes 1 shield stack)"; "If no shield, armor reduces damage (but armor is not consumed)";
"Any remaining damage goes to health". The numpy stage works on a whole batch at once and
resolves several instances on one target in row order; here the dispatcher hands a stage one
row at a time, in the batch's per-game row order, which is that same order. The engine's own
``apply_health`` (``ecs/compiled/application.py``) is the application stage.

Column ids arrive in ``cols`` in the order of each stage's ``reads`` (names as
``WorldView.layout()`` has them). Each stage's docstring cites the rule of its numpy twin.

The trigger boundary: "On Damage Taken" pushes an event (``ecs/compiled/events.py``) instead of
running card effects; docs/compiled-core.md "The trigger boundary" says what the interpreter
must do with it to keep the numpy order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.ecs.compiled.damage_queue import AMOUNT, DEALT, EXCESS, KIND, SOURCE, TARGET, push
from battlesim.ecs.compiled.events import push_event
from battlesim.ecs.compiled.world_view import WorldState
from battlesim.ecs.damage import ATTACK, DEATH, MITIGATION, OVERFLOW, PREVENTION, REACTIONS, RETALIATE, SPELL
from battlesim.ecs.plugin import extend
from battlesim.systems.lanes.compiled.tables import AURA_FIELDS

NAF = len(AURA_FIELDS)  # rows per armor-aura slot in w.cat


def destroyed_objective(w: WorldState, b: int, queue: np.ndarray, qlen: np.ndarray, i: int, cols: np.ndarray) -> None:
    """A destroyed lane objective is gone (lanes.md: "When essence reaches 0 HP, that lane's
    objective is destroyed"): damage aimed at it is lost. reads: ruined."""
    if w.flags[cols[0], b, queue[b, i, TARGET]]:
        queue[b, i, AMOUNT] = 0


def damage_immunity(w: WorldState, b: int, queue: np.ndarray, qlen: np.ndarray, i: int, cols: np.ndarray) -> None:
    """"Damage Immunity - Cannot take damage". reads: damage_immunity."""
    if w.i16[cols[0], b, queue[b, i, TARGET]] > 0:
        queue[b, i, AMOUNT] = 0


def shield(w: WorldState, b: int, queue: np.ndarray, qlen: np.ndarray, i: int, cols: np.ndarray) -> None:
    """"Shield - Blocks the next instance of damage completely (then removed). Can stack.": each
    instance that still finds a stack is blocked and takes one. reads: shield."""
    t = queue[b, i, TARGET]
    if queue[b, i, AMOUNT] > 0 and w.i16[cols[0], b, t] > 0:
        queue[b, i, AMOUNT] = 0
        w.i16[cols[0], b, t] -= 1


@njit(cache=False, inline="always")
def _reach(w: WorldState, b: int, t: int, s: int, cols: np.ndarray, q_side: int, q_lane: int, q_pos: int,
           q_unit: bool, q_ally_ok: bool, n_slots: int) -> int:
    """What the aura source in slot s adds to unit t (lanes.md "Aura System": each aura effect of
    its card once, by its reach: self, allies or enemies, same lane or any, a distance band)."""
    card = w.i16[cols[6], b, s]
    same_side = w.i8[cols[7], b, s] == q_side
    ally = same_side and q_ally_ok
    enemy = (not same_side) and q_unit
    same_lane = w.i8[cols[8], b, s] == q_lane
    dist = abs(np.int16(w.i8[cols[9], b, s]) - q_pos)
    is_self = s == t
    bonus = 0
    for j in range(n_slots):
        row = cols[13] + j * NAF
        side = w.cat[row, card]
        if side == 3:
            reach = is_self
        elif side > 0:
            reach = (ally if side == 1 else enemy) and (same_lane or w.cat[row + 1, card] == 0)
            reach = reach and w.cat[row + 2, card] <= dist <= w.cat[row + 3, card]
            reach = reach and not (w.cat[row + 4, card] != 0 and is_self)
        else:
            reach = False
        if reach:
            bonus += w.cat[row + 5, card]
    return bonus


EVERY_SLOT = -1  # ``aura_sources`` of a World with more slots than bits; ``aura_bonus`` then looks at every slot


@njit(cache=False)
def armor_aura(w: WorldState, b: int, t: int, cols: np.ndarray) -> int:
    """What the armor auras standing in game b add to unit t's armor (lanes.md "Aura System":
    each source once per aura effect, by its reach; ``auras.aura_bonus``). cols[5..14]: aura,
    card_id, owner, lane, pos, anchor, improvement, creep, the first aura_armor row, the number
    of aura slots. Every slot is looked at: a damage row may follow a death or a summon."""
    return aura_bonus(w, b, t, cols, EVERY_SLOT)


@njit(cache=False)
def aura_sources(w: WorldState, b: int, cols: np.ndarray) -> int:
    """The slots of game b holding a live aura source, as bits (slot s: bit s), read once for the
    many ``aura_bonus`` reads of one board that does not change meanwhile (an agent scoring a
    decision reads up to every cell's attack): the walk over every slot, done once instead of per
    unit. ``EVERY_SLOT`` when the World has more slots than an int64 has bits. cols as ``armor_aura``."""
    S = w.alive.shape[1]
    if S > 62:
        return EVERY_SLOT
    bits = 0
    for s in range(S):
        if w.alive[b, s] and w.flags[cols[5], b, s]:
            bits |= np.int64(1) << s
    return bits


@njit(cache=False)
def aura_bonus(w: WorldState, b: int, t: int, cols: np.ndarray, sources: int) -> int:
    """``armor_aura`` over the sources ``aura_sources`` found, in slot order; ``EVERY_SLOT``: every
    live slot with the aura flag, found as it walks."""
    n_slots = w.params[cols[14]]
    if n_slots == 0:
        return 0
    q_side = w.i8[cols[7], b, t]
    q_lane = w.i8[cols[8], b, t]
    q_pos = np.int16(w.i8[cols[9], b, t])
    q_unit = not w.flags[cols[10], b, t] and not w.flags[cols[11], b, t]
    q_ally_ok = q_unit and not w.flags[cols[12], b, t]
    bonus = 0
    if sources == EVERY_SLOT:
        for s in range(w.alive.shape[1]):
            if w.alive[b, s] and w.flags[cols[5], b, s]:
                bonus += _reach(w, b, t, s, cols, q_side, q_lane, q_pos, q_unit, q_ally_ok, n_slots)
        return bonus
    s = 0
    while sources != 0:
        if sources & 1:
            bonus += _reach(w, b, t, s, cols, q_side, q_lane, q_pos, q_unit, q_ally_ok, n_slots)
        sources >>= 1
        s += 1
    return bonus


def armor(w: WorldState, b: int, queue: np.ndarray, qlen: np.ndarray, i: int, cols: np.ndarray) -> None:
    """"Formula: damage_to_health = max(damage - armor, 0)"; "Piercing ignores POSITIVE armor
    (deals full damage)"; "Piercing is still amplified by NEGATIVE armor". Armor is the unit's
    own + its equipment's + auras' (``stats.armor``); a spell is not the caster's piercing
    attack. reads: armor, equipment, piercing, card.kw_armor, card.kw_piercing, then the aura
    reads of ``armor_aura``."""
    amount = queue[b, i, AMOUNT]
    if amount <= 0:
        return
    t = queue[b, i, TARGET]
    own = np.int16(w.i16[cols[0], b, t] + w.cat[cols[3], w.i16[cols[1], b, t]])  # int16, as stats.keyword
    a = np.int64(own) + armor_aura(w, b, t, cols)
    src = queue[b, i, SOURCE]
    if a > 0 and src >= 0 and queue[b, i, KIND] & SPELL == 0:
        if w.flags[cols[2], b, src] or w.cat[cols[4], w.i16[cols[1], b, src]] != 0:
            a = 0
    queue[b, i, AMOUNT] = max(amount - a, 0)


def record_hit(w: WorldState, b: int, queue: np.ndarray, qlen: np.ndarray, i: int, cols: np.ndarray) -> None:
    """Remember which seat hit each unit last, so a death pays its bounty to the killer's
    opponent only when the enemy killed it (lanes.md: "Kill enemy unit/creep: +1 gold").
    reads: hit_by, owner."""
    src = queue[b, i, SOURCE]
    if src >= 0 and queue[b, i, AMOUNT] > 0:
        w.i8[cols[0], b, queue[b, i, TARGET]] = w.i8[cols[1], b, src]


def lifesteal(w: WorldState, b: int, queue: np.ndarray, qlen: np.ndarray, i: int, cols: np.ndarray) -> None:
    """"Lifesteal - Heal own anchor for damage dealt": the anchor of the source's lane, up to its
    maximum; a destroyed objective stays destroyed (``heal_anchor``). reads: lifesteal,
    equipment, card.kw_lifesteal, anchor, owner, lane, ruined, health, max_health, param.lanes."""
    src = queue[b, i, SOURCE]
    dealt = queue[b, i, DEALT]
    if src < 0 or dealt <= 0 or queue[b, i, KIND] & SPELL != 0:
        return
    steals = w.flags[cols[0], b, src] or w.cat[cols[2], w.i16[cols[1], b, src]] != 0
    if not steals or w.flags[cols[3], b, src]:
        return
    anchor = w.i8[cols[4], b, src] * w.params[cols[9]] + w.i8[cols[5], b, src]  # board.anchor_slot
    if w.flags[cols[6], b, anchor]:
        return
    hp = np.int16(w.i16[cols[7], b, anchor] + dealt)
    w.i16[cols[7], b, anchor] = min(hp, w.i16[cols[8], b, anchor])


def retaliate(w: WorldState, b: int, queue: np.ndarray, qlen: np.ndarray, i: int, cols: np.ndarray) -> None:
    """"Retaliate X - When this unit is attacked, it deals X damage back to each attacker.
    Triggers even if the unit dies from the attack. Retaliate damage respects armor and shields":
    attack damage, whether or not it got through, pushes X back through the whole pipeline.
    reads: retaliate, equipment, card.kw_retaliate."""
    src = queue[b, i, SOURCE]
    if src < 0 or queue[b, i, KIND] & ATTACK == 0:
        return
    t = queue[b, i, TARGET]
    x = np.int16(w.i16[cols[0], b, t] + w.cat[cols[2], w.i16[cols[1], b, t]])
    if x > 0:
        push(queue, qlen, b, t, src, x, RETALIATE)


def overflow(w: WorldState, b: int, queue: np.ndarray, qlen: np.ndarray, i: int, cols: np.ndarray) -> None:
    """"Trample - Excess damage (overkill on units) hits enemy anchor"; "Piercing - Excess damage
    (overkill) hits enemy anchor". The anchor hit is the one behind the unit that died, unless
    that objective is destroyed. reads: anchor, trample, piercing, equipment, card.kw_trample,
    card.kw_piercing, owner, lane, ruined, param.lanes."""
    src = queue[b, i, SOURCE]
    excess = queue[b, i, EXCESS]
    if src < 0 or excess <= 0 or queue[b, i, KIND] & ATTACK == 0:
        return
    t = queue[b, i, TARGET]
    if w.flags[cols[0], b, t]:
        return
    item = w.i16[cols[3], b, src]
    carries = (w.flags[cols[1], b, src] or w.cat[cols[4], item] != 0
               or w.flags[cols[2], b, src] or w.cat[cols[5], item] != 0)
    if not carries:
        return
    anchor = w.i8[cols[6], b, t] * w.params[cols[9]] + w.i8[cols[7], b, t]  # board.anchor_slot
    if not w.flags[cols[8], b, anchor]:
        push(queue, qlen, b, src, anchor, excess, OVERFLOW)


def anchor_falls(w: WorldState, b: int, queue: np.ndarray, qlen: np.ndarray, i: int, cols: np.ndarray) -> None:
    """lanes.md "Anchor & Essence System": "When an anchor reaches 0 HP, it transforms into an
    essence"; "Essence has 40 HP"; "When essence reaches 0 HP, that lane's objective is
    destroyed". Damage beyond an anchor's last HP does not carry into the essence (ledger).
    reads: anchor, health, ruined, essence, max_health, param.essence_hp."""
    t = queue[b, i, TARGET]
    if not w.flags[cols[0], b, t] or w.i16[cols[1], b, t] > 0 or w.flags[cols[2], b, t]:
        return
    if w.flags[cols[3], b, t]:
        w.flags[cols[2], b, t] = True
        w.i16[cols[1], b, t] = 0
    else:
        w.flags[cols[3], b, t] = True
        w.i16[cols[1], b, t] = w.params[cols[5]]
        w.i16[cols[4], b, t] = w.params[cols[5]]


def damage_taken(w: WorldState, b: int, queue: np.ndarray, qlen: np.ndarray, i: int, cols: np.ndarray) -> None:
    """"On Damage Taken - Triggers when this unit takes damage" (damage that reached health):
    pushes the trigger's event for the effect interpreter (the trigger boundary), with what the
    numpy ``Ctx`` carries: the card, the damaged unit (and its serial), the dealer, the unit's
    owner, lane and position. reads: anchor, card_id, owner, lane, pos,
    card.listens.on_damage_taken, param.trigger.on_damage_taken."""
    t = queue[b, i, TARGET]
    if queue[b, i, DEALT] <= 0 or w.flags[cols[0], b, t]:  # anchors have no card
        return
    card = w.i16[cols[1], b, t]
    if w.cat[cols[5], card] == 0:
        return
    push_event(w.events, w.nevents, b, w.params[cols[6]], card, t, w.serial[b, t], queue[b, i, SOURCE],
               w.i8[cols[2], b, t], w.i8[cols[3], b, t], w.i8[cols[4], b, t])


def mark_dying(w: WorldState, b: int, queue: np.ndarray, qlen: np.ndarray, i: int, cols: np.ndarray) -> None:
    """"Units with 0 or less health are marked as destroyed" (lanes.md "Combat Resolution"):
    not anchors, not improvements, not a freed slot. reads: health, anchor, improvement, dying."""
    t = queue[b, i, TARGET]
    if (w.i16[cols[0], b, t] <= 0 and not w.flags[cols[1], b, t] and not w.flags[cols[2], b, t]
            and w.alive[b, t]):
        w.flags[cols[3], b, t] = True


_AURA_READS = ("aura", "card_id", "owner", "lane", "pos", "anchor", "improvement", "creep",
               "card.aura_armor.0.side", "param.aura_armor_slots")
STAGES = [
    ("destroyed_objective", PREVENTION - 10, destroyed_objective, ("ruined",)),
    ("damage_immunity", PREVENTION, damage_immunity, ("damage_immunity",)),
    ("shield", PREVENTION + 10, shield, ("shield",)),
    ("armor", MITIGATION, armor, ("armor", "equipment", "piercing", "card.kw_armor", "card.kw_piercing",
                                  *_AURA_READS)),
    ("record_hit", REACTIONS - 10, record_hit, ("hit_by", "owner")),
    ("lifesteal", REACTIONS, lifesteal, ("lifesteal", "equipment", "card.kw_lifesteal", "anchor", "owner", "lane",
                                         "ruined", "health", "max_health", "param.lanes")),
    ("retaliate", REACTIONS + 10, retaliate, ("retaliate", "equipment", "card.kw_retaliate")),
    ("overflow", REACTIONS + 20, overflow, ("anchor", "trample", "piercing", "equipment", "card.kw_trample",
                                            "card.kw_piercing", "owner", "lane", "ruined", "param.lanes")),
    ("anchor_falls", REACTIONS + 50, anchor_falls, ("anchor", "health", "ruined", "essence", "max_health",
                                                    "param.essence_hp")),
    ("damage_taken", REACTIONS + 60, damage_taken, ("anchor", "card_id", "owner", "lane", "pos",
                                                    "card.listens.on_damage_taken", "param.trigger.on_damage_taken")),
    ("mark_dying", DEATH, mark_dying, ("health", "anchor", "improvement", "dying")),
]
# the same names and priorities as the numpy pipeline (systems/lanes/damage_stages.py STAGES);
lanes = extend("lanes")
for _name, _priority, _fn, _reads in STAGES:
    lanes.compiled_damage_stage(_name, _priority, _reads)(_fn)  # as a plugin declares one

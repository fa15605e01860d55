"""Hex's damage pipeline: compiled stages at the priorities of spec §3, one per keyword.

Every damage instance is a row of the compiled damage queue (``ecs/compiled/damage_queue.py``);
its KIND holds the type bit (PHYSICAL / MAGICAL / PURE) and where it came from (COMBAT, ATTACK,
RETALIATION, RANGED, RETURN, STATUS, NONLETHAL: ``vocabulary.DAMAGE_KINDS``). The bits are
hex's own (the queue's KIND is a plain integer read only by the ruleset's stages), so hex
registers no global damage kind and lanes' kinds are untouched. The engine's ``apply_health``
(APPLICATION, 300) takes the health; the reactions (400) read what was applied.

A keyword is off while its unit is broken (hex.md "Break – A broken unit has its passive
abilities disabled."): every keyword stage reads ``hex_broken`` beside its keyword.
"""

from __future__ import annotations

from numba import njit

from battlesim.ecs.compiled.damage_queue import AMOUNT, DEALT, KIND, SOURCE, TARGET, push
from battlesim.ecs.compiled.stages import damage_stage
from battlesim.ecs.damage import APPLICATION, MITIGATION, PREVENTION, REACTIONS
from battlesim.systems.hex.vocabulary import DAMAGE_KINDS

PHYSICAL, MAGICAL, PURE = DAMAGE_KINDS["PHYSICAL"], DAMAGE_KINDS["MAGICAL"], DAMAGE_KINDS["PURE"]
COMBAT, ATTACK, RETALIATION = DAMAGE_KINDS["COMBAT"], DAMAGE_KINDS["ATTACK"], DAMAGE_KINDS["RETALIATION"]
RANGED, RETURN, STATUS, NONLETHAL = (DAMAGE_KINDS["RANGED"], DAMAGE_KINDS["RETURN"], DAMAGE_KINDS["STATUS"],
                                     DAMAGE_KINDS["NONLETHAL"])
TYPES = PHYSICAL | MAGICAL | PURE
RULESET = "hex"


# What a stage before application leaves of an instance is a function of its own (``after_*``),
# writing nothing: the stage calls it and then writes (a counter used, the amount), and the
# forecast of an instance (``pipeline.health_after``: may a trample move end on an enemy's hex,
# I-23) calls the same functions in the same order, so the legality and the damage are one
# arithmetic. Each takes the instance as (source s, target t, amount, kind).


@njit(cache=True, inline='always')
def after_shield(w, b, s, t, amount, kind, cols):
    """hex-keywords.md "Shield X – ... reduce the next X incoming damage to zero and remove that
    many" (K over H, I-31: absorb min(shield, damage)); hex.md "Pure damage cannot be reduced by
    any effect" (I-26: Shield untouched)."""
    if kind & PURE or amount <= 0:
        return amount
    return amount - min(max(w.i16[cols[0], b, t], 0), amount)


@damage_stage(RULESET, "shield", PREVENTION + 10, reads=("hex_shield_counters",))
def shield(w, b, queue, qlen, i, cols):
    """``after_shield``, the absorbed damage taken off the counters ("Shield is applied before
    other damage reductions")."""
    amount = queue[b, i, AMOUNT]
    t = queue[b, i, TARGET]
    left = after_shield(w, b, queue[b, i, SOURCE], t, amount, queue[b, i, KIND], cols)
    if left < amount:
        w.i16[cols[0], b, t] -= amount - left
        queue[b, i, AMOUNT] = left


@njit(cache=True, inline='always')
def after_refraction(w, b, s, t, amount, kind, cols):
    """hex-keywords.md "Refraction X – ... the next instance of damage is reduced to zero and a
    refraction counter is removed" (I-26: after Shield, only if damage remains; not pure)."""
    if kind & PURE or amount <= 0 or w.i16[cols[0], b, t] <= 0:
        return amount
    return 0


@damage_stage(RULESET, "refraction", PREVENTION + 20, reads=("hex_refraction_counters",))
def refraction(w, b, queue, qlen, i, cols):
    """``after_refraction``; a counter removed when it reduced the instance."""
    amount = queue[b, i, AMOUNT]
    t = queue[b, i, TARGET]
    left = after_refraction(w, b, queue[b, i, SOURCE], t, amount, queue[b, i, KIND], cols)
    if left < amount:
        w.i16[cols[0], b, t] -= 1
        queue[b, i, AMOUNT] = left


@njit(cache=True, inline='always')
def after_ethereal(w, b, s, t, amount, kind, cols):
    """hex-keywords.md "Ethereal – This unit reduces incoming physical damage to zero."."""
    if kind & PHYSICAL and w.flags[cols[0], b, t] and w.i16[cols[1], b, t] == 0:
        return 0
    return amount


@damage_stage(RULESET, "ethereal", MITIGATION, reads=("hex_ethereal", "hex_broken"))
def ethereal(w, b, queue, qlen, i, cols):
    """``after_ethereal``."""
    queue[b, i, AMOUNT] = after_ethereal(w, b, queue[b, i, SOURCE], queue[b, i, TARGET], queue[b, i, AMOUNT],
                                         queue[b, i, KIND], cols)


@njit(cache=True, inline='always')
def after_armor(w, b, s, t, amount, kind, cols):
    """hex.md "Armor X – This unit reduces incoming physical damage by X."; "Piercing – This unit
    ignores Armor during combat." / "Piercing X" (combat damage only, the attacker's own unless
    broken); "Armor can never be a negative number"; Armor modifiers (I-35) stay while broken."""
    if not kind & PHYSICAL:
        return amount
    a = 0 if w.i16[cols[2], b, t] > 0 else w.i16[cols[0], b, t]
    if w.i16[cols[4], b, t] >= 0:
        a = w.i16[cols[4], b, t]
    a = max(a + w.i16[cols[3], b, t], 0)
    if kind & COMBAT and s >= 0 and w.i16[cols[2], b, s] == 0:
        a = max(a - w.i16[cols[1], b, s], 0)
    if a > 0:
        return max(amount - a, 0)
    return amount


@damage_stage(RULESET, "armor", MITIGATION + 10,
              reads=("hex_armor", "hex_piercing", "hex_broken", "hex_armor_add", "hex_armor_set"))
def armor(w, b, queue, qlen, i, cols):
    """``after_armor``."""
    queue[b, i, AMOUNT] = after_armor(w, b, queue[b, i, SOURCE], queue[b, i, TARGET], queue[b, i, AMOUNT],
                                      queue[b, i, KIND], cols)


@njit(cache=True, inline='always')
def after_magic_resist(w, b, s, t, amount, kind, cols):
    """hex.md "Magic Resist X – This unit reduces incoming magical damage by X." (with its
    modifiers, I-35, which stay while broken)."""
    if not kind & MAGICAL:
        return amount
    r = 0 if w.i16[cols[1], b, t] > 0 else w.i16[cols[0], b, t]
    if w.i16[cols[3], b, t] >= 0:
        r = w.i16[cols[3], b, t]
    r = max(r + w.i16[cols[2], b, t], 0)
    return max(amount - r, 0)


@damage_stage(RULESET, "magic_resist", MITIGATION + 20,
              reads=("hex_magic_resist", "hex_broken", "hex_magic_resist_add", "hex_magic_resist_set"))
def magic_resist(w, b, queue, qlen, i, cols):
    """``after_magic_resist``."""
    queue[b, i, AMOUNT] = after_magic_resist(w, b, queue[b, i, SOURCE], queue[b, i, TARGET], queue[b, i, AMOUNT],
                                             queue[b, i, KIND], cols)


@njit(cache=True, inline='always')
def after_evasion(w, b, s, t, amount, kind, cols):
    """hex.md "Evasion – This unit reduces incoming ranged attack damage to zero." / "Evasion X"
    (ranged *attack* damage only: not abilities, not melee)."""
    if kind & RANGED and kind & ATTACK and not kind & PURE and w.i16[cols[1], b, t] == 0:
        return max(amount - w.i16[cols[0], b, t], 0)
    return amount


@damage_stage(RULESET, "evasion", MITIGATION + 30, reads=("hex_evasion", "hex_broken"))
def evasion(w, b, queue, qlen, i, cols):
    """``after_evasion``."""
    queue[b, i, AMOUNT] = after_evasion(w, b, queue[b, i, SOURCE], queue[b, i, TARGET], queue[b, i, AMOUNT],
                                        queue[b, i, KIND], cols)


@njit(cache=True, inline='always')
def after_nonlethal(w, b, s, t, amount, kind, cols):
    """hex.md "Non-lethal – Non-lethal damage cannot reduce a unit's health below 1." (a unit
    at 1 stays at 1)."""
    if kind & NONLETHAL:
        return max(min(amount, w.i16[cols[0], b, t] - 1), 0)
    return amount


@damage_stage(RULESET, "nonlethal", APPLICATION - 1, reads=("health",))
def nonlethal(w, b, queue, qlen, i, cols):
    """``after_nonlethal``."""
    queue[b, i, AMOUNT] = after_nonlethal(w, b, queue[b, i, SOURCE], queue[b, i, TARGET], queue[b, i, AMOUNT],
                                          queue[b, i, KIND], cols)


@damage_stage(RULESET, "lifesteal", REACTIONS - 5,
              reads=("hex_lifesteal", "hex_broken", "hex_overheated", "health", "max_health"))
def lifesteal(w, b, queue, qlen, i, cols):
    """hex-keywords.md "Lifesteal X – This unit heals for up to X of the combat damage it deals"
    (I-29: min(X, dealt, the defender's health before); an Overheated unit cannot be healed).
    Just before the other reactions: "If the defender has damage return, lifesteal healing occurs
    simultaneously (thereby mitigating some or all of the damage return)": the heal lands before
    the returned damage (the dispatcher resolves a pushed return right after its stage)."""
    s = queue[b, i, SOURCE]
    if s < 0 or not queue[b, i, KIND] & COMBAT or not w.alive[b, s]:
        return
    x = w.i16[cols[0], b, s]
    if x <= 0 or w.i16[cols[1], b, s] > 0 or w.i16[cols[2], b, s] > 0:
        return
    heal = min(x, queue[b, i, DEALT])
    hp = w.i16[cols[3], b, s]
    if heal > 0 and hp > 0:
        w.i16[cols[3], b, s] = min(hp + heal, w.i16[cols[4], b, s])


@damage_stage(RULESET, "damage_return", REACTIONS,
              reads=("hex_physical_damage_return", "hex_magic_damage_return", "hex_damage_return", "hex_broken"))
def damage_return(w, b, queue, qlen, i, cols):
    """hex.md "Physical Damage Return X – When this unit receives physical damage, it returns up
    to X of that damage back to the source."; hex-keywords.md Magic / any-type "Damage Return X"
    ("that is not from retaliation"; I-28: the damage applied after reductions, same type, not
    from other returns or statuses, even when it kills)."""
    kind = queue[b, i, KIND]
    s = queue[b, i, SOURCE]
    t = queue[b, i, TARGET]
    amount = queue[b, i, AMOUNT]
    if s < 0 or amount <= 0 or kind & (RETALIATION | RETURN | STATUS) or w.i16[cols[3], b, t] > 0:
        return
    x = w.i16[cols[2], b, t]
    if kind & PHYSICAL:
        x = max(x, w.i16[cols[0], b, t])
    if kind & MAGICAL:
        x = max(x, w.i16[cols[1], b, t])
    if x > 0 and w.alive[b, s]:
        push(queue, qlen, b, t, s, min(x, amount), (kind & TYPES) | RETURN)


@damage_stage(RULESET, "status_on_hit", REACTIONS,
              reads=("hex_burn", "hex_poison", "hex_bleed", "hex_broken",
                     "hex_burn_counters", "hex_poison_counters", "hex_bleed_counters"))
def status_on_hit(w, b, queue, qlen, i, cols):
    """hex-keywords.md "Burn X – When this unit deals combat damage, the enemy unit has its Burn
    counters increased to X." (Poison, Bleed alike; K over H, I-30: on combat damage > 0 after
    reductions, attack or retaliation; "increased to X" = max(current, X))."""
    s = queue[b, i, SOURCE]
    t = queue[b, i, TARGET]
    if s < 0 or not queue[b, i, KIND] & COMBAT or queue[b, i, AMOUNT] <= 0 or w.i16[cols[3], b, s] > 0:
        return
    for j in range(3):
        x = w.i16[cols[j], b, s]
        w.i16[cols[4 + j], b, t] = max(w.i16[cols[4 + j], b, t], x)

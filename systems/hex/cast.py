"""What an ability does, compiled: ``cast`` applies each effect of ability kk of unit s to the
units its selector lists (``select.py``), with Spell Power on the first damage or heal instance;
``effect`` is one op on one unit; ``add_modifier`` a modifier instance (I-35, I-36). Channel
(hex-keywords.md "Channel X", I-38): ``start_channel`` places the counters at the cast, and
``turn_start`` (called whenever a seat's turn begins: after every action's turn end and at round
start) removes one from each of that seat's channelling units, casting the ability when the last
goes; ``channel_fallback`` ticks, at the round's end, the channels of a seat that had no turn.

Every function takes ``(w, cols, f, k, b, ...)`` as ``apply.py``'s do.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.systems.hex import kernel_cache
from battlesim.systems.hex.battle import U, ability_reach, has, modified, stand
from battlesim.systems.hex.damage_stages import MAGICAL, NONLETHAL, PHYSICAL, PURE
from battlesim.systems.hex.kernel_cache import kernel
from battlesim.systems.hex.select import select_units
from battlesim.systems.hex.state import (
    A_CHANNEL,
    A_EFFECTS,
    A_NEFFECTS,
    A_PENDING_HEX,
    A_PENDING_UNIT,
    A_SPELL_POWER,
    A_TARGET,
    ABILITIES,
    ACTIONS,
    CHANNEL_C,
    CONTROL_UNTIL,
    CONTROLLER,
    E_AMOUNT,
    E_KEYWORD,
    E_NONLETHAL,
    E_ONLY,
    E_OP,
    E_ROUNDS,
    E_SELECT,
    E_SET,
    E_STAT,
    E_STATUS,
    E_TYPE,
    FADE_C,
    FADING,
    FIRST_STATUS,
    HEALTH,
    M_AMOUNT,
    M_BY,
    M_KEYWORD,
    M_ONLY,
    M_SET,
    M_SLOT,
    M_SOURCE,
    M_STAT,
    M_UNTIL,
    MANA,
    MAX_HEALTH,
    MODDED,
    MODS_TOP,
    NEF,
    NULL,
    OP_CONTROL,
    OP_DAMAGE,
    OP_DESTROY,
    OP_HEAL,
    OP_MANA,
    OP_MODIFIER,
    OP_PULL,
    OP_PUSH,
    OP_RELOCATE,
    OP_SACRIFICE,
    OP_SHIELD,
    OP_STATUS,
    OP_SUMMON,
    OP_SWITCH,
    OVERHEATED,
    PERMANENT,
    POS,
    RANGE,
    ROOTED,
    ROUND,
    S_HEALTH,
    S_SPELL_POWER,
    SHIELD_C,
    SIDE,
    SILENCED,
    SPELLPROOF,
    SUMMONED,
    T_ALLY,
    T_ENEMY,
    T_UNIT,
    TO_ACT,
    TURNED,
    WINNER,
)
from battlesim.systems.hex.turn import cancel_channel, drop_modifier, early_end, seat_can_act, sync_modifiers
from battlesim.systems.hex.work import bury, deal, displace, heal


@kernel
def cast(w, cols, f, k, b, s, kk, t):
    """Each effect of unit s's ability kk on hex t, in order, on the units its selector lists
    (hex.md "Spellproof – This unit is not affected by enemy active abilities.": skipped, I-39),
    Spell Power on the first damage or heal instance (``spell_power``)."""
    w_i16 = w.i16
    w_alive = w.alive
    f_abil = f.abil
    k_occ = f.board[b]
    hit = k.hit
    seat = w_i16[cols[CONTROLLER], b, s]
    sp = spell_power(w, cols, f, b, s, kk)
    reach_ = ability_reach(w, cols, f, b, s, kk)
    for e in range(f_abil[b, s, kk, A_NEFFECTS]):
        base = A_EFFECTS + e * NEF
        if f_abil[b, s, kk, base + E_OP] == OP_SUMMON:
            summon(w, cols, f, k, b, s, t, f_abil[b, s, kk, base + E_AMOUNT])
            continue
        n = select_units(w, cols, b, s, t, f_abil[b, s, kk, base + E_SELECT], reach_, k_occ, hit)
        for i in range(n):
            o = hit[i]
            if not w_alive[b, o] or (w_i16[cols[CONTROLLER], b, o] != seat and has(w, cols, f, b, o, SPELLPROOF)):
                continue
            if effect(w, cols, f, k, b, s, o, kk, base, s * ABILITIES + kk, t, sp):
                sp = 0  # hex-keywords.md "only one target or instance is modified"


@kernel
def summon(w, cols, f, k, b, s, t, tpl):
    """hex.md "Summoned units also have a NULL value for gold cost" (I-45: the summoned card's unit
    enters on the empty target hex, exhausted, under the summoner's controller, owned by the
    summoner's side): template slot ``tpl`` (``setup.Templates``) copied into the first never-used
    slot of the side's half; hex-keywords.md "Fading X – This unit enters the battlefield with X
    Fade counters on it.". No slot left: nothing enters."""
    w_i16 = w.i16
    w_i8 = w.i8
    w_flags = w.flags
    w_alive = w.alive
    f_abil = f.abil
    k_occ = f.board[b]
    if t < 0 or k_occ[t] >= 0 or tpl < 0:
        return
    side = w_i16[cols[SIDE], b, tpl]
    n = -1
    for x in range(side * U, side * U + U):
        if not w_alive[b, x] and w_i16[cols[MAX_HEALTH], b, x] == 0:
            n = x
            break
    if n < 0:
        return
    # the template's rows, element by element (a slice assigned from a slice of the same array
    # is copied through a temporary: an allocation)
    for c in range(w_i16.shape[0]):
        w_i16[c, b, n] = w_i16[c, b, tpl]
    for c in range(w_i8.shape[0]):
        w_i8[c, b, n] = w_i8[c, b, tpl]
    for c in range(w_flags.shape[0]):
        w_flags[c, b, n] = w_flags[c, b, tpl]
    for a in range(f_abil.shape[2]):
        for x in range(f_abil.shape[3]):
            f_abil[b, n, a, x] = f_abil[b, tpl, a, x]
    w_alive[b, n] = True
    w_flags[cols[SUMMONED], b, n] = True  # not a card of the army: no cards-table row, no kill for its death
    stand(w, cols, f, b, n, t)
    w_i16[cols[CONTROLLER], b, n] = w_i16[cols[CONTROLLER], b, s]
    w_i16[cols[ACTIONS], b, n] = 0  # I-13: "units entering mid-round enter exhausted"
    w_i16[cols[FADE_C], b, n] = w_i16[cols[FADING], b, n]


@kernel
def start_channel(w, cols, f, b, s, kk, t, o):
    """hex-keywords.md "When a unit channels an ability, place X Channel counters on it.": the
    target (hex t, unit o or -1) is kept for when the last counter goes."""
    w_i16 = w.i16
    f_abil = f.abil
    w_i16[cols[CHANNEL_C], b, s] = f_abil[b, s, kk, A_CHANNEL]
    f_abil[b, s, kk, A_PENDING_HEX] = t + 1
    f_abil[b, s, kk, A_PENDING_UNIT] = o + 1


@kernel  # a call: ``turn_start`` makes it only while some unit has Channel counters
def tick_channels(w, cols, f, k, b, seat):
    """hex-keywords.md "At the start of each of your turns, remove a Channel counter. If the last
    Channel counter is removed, the ability effect occurs." (seat's units, in slot order). A
    unit-targeted cast hits its unit wherever it stands (if it lives); a hex or no target, the hex."""
    w_i16 = w.i16
    w_alive = w.alive
    f_abil = f.abil
    counters = w_i16[cols[CHANNEL_C], b]  # the game's row, taken once: the walk runs every turn
    for s in range(w_alive.shape[1]):
        if counters[s] <= 0:
            continue  # no counters, no pending cast (``play.violation`` checks it)
        for kk in range(f_abil.shape[2]):
            if f_abil[b, s, kk, A_PENDING_HEX] == 0:
                continue
            if (not w_alive[b, s] or w_i16[cols[SILENCED], b, s] > 0 or w_i16[cols[CHANNEL_C], b, s] <= 0
                    or w_i16[cols[CONTROLLER], b, s] != seat):
                if not w_alive[b, s] or w_i16[cols[SILENCED], b, s] > 0 or w_i16[cols[CHANNEL_C], b, s] <= 0:
                    cancel_channel(w, cols, f, b, s)
                continue
            w_i16[cols[CHANNEL_C], b, s] -= 1
            if w_i16[cols[CHANNEL_C], b, s] > 0:
                continue
            t = np.int64(f_abil[b, s, kk, A_PENDING_HEX]) - 1
            o = np.int64(f_abil[b, s, kk, A_PENDING_UNIT]) - 1
            f_abil[b, s, kk, A_PENDING_HEX] = 0
            f_abil[b, s, kk, A_PENDING_UNIT] = 0
            target = f_abil[b, s, kk, A_TARGET]
            if target == T_ENEMY or target == T_ALLY or target == T_UNIT:
                if o < 0 or not w_alive[b, o]:
                    continue
                t = np.int64(w_i16[cols[POS], b, o])
            cast(w, cols, f, k, b, s, kk, t)


@njit(cache=True, inline='always')
def channelling(w, cols, b):
    """Whether a unit of game b has Channel counters (a channelled cast is pending only on such a
    unit: ``play.violation`` checks it)."""
    counters = w.i16[cols[CHANNEL_C], b]
    for s in range(counters.shape[0]):
        if counters[s] > 0:
            return True
    return False


@njit(cache=True, inline='always')  # at every action's end (docs/hex-speed.md step 19)
def turn_start(w, cols, f, k, b):
    """The turn of ``to_act`` begins: its channels tick (``tick_channels``); the seat is marked as
    having had a turn this round (I-38). If the effects leave it no unit that can act, the turn
    passes as at a turn's end (I-12): the opponent (its channels tick too), or nobody.
    Inlined, with the tick a call made only while some unit has Channel counters (without them it
    has nothing to do, and no tick makes new ones): as a call at every action's end, the World,
    fields and scratch it was handed (~300 words) cost more than its work."""
    f_g = f.g
    tick = channelling(w, cols, b)
    for _ in range(2):
        seat = f_g[b, TO_ACT]
        if seat < 0:
            return
        f_g[b, TURNED] |= 1 << seat
        if tick:
            tick_channels(w, cols, f, k, b, seat)
        if f_g[b, WINNER] >= 0:
            f_g[b, TO_ACT] = -1
            return
        if seat_can_act(w, cols, b, seat):
            return
        if not seat_can_act(w, cols, b, 1 - seat):
            f_g[b, TO_ACT] = -1
            return
        f_g[b, TO_ACT] = 1 - seat


@kernel
def channel_fallback(w, cols, f, k, b):
    """I-38: "if that player has no turn in a round, -1 at the round's end" (each seat without a
    turn in the round that just ended); then the turns of the new round are counted afresh."""
    f_g = f.g
    for seat in range(2):
        if (f_g[b, TURNED] >> seat) & 1 == 0:
            tick_channels(w, cols, f, k, b, seat)
    f_g[b, TURNED] = 0
    early_end(w, cols, f, b)


@kernel
def spell_power(w, cols, f, b, s, kk):
    """hex-keywords.md "Spell Power – This refers to the amount of damage or heal done by an active
    ability.": the ability's own ``spell_power`` plus unit s's Spell Power modifiers (an item's
    "+1 Spell Power", hex-keywords.md "Stat modifiers include ... Cast Range, and Spell Power").
    "If multiple items or abilities provide additional Spell Power, each may be applied to a
    separate target or instance.": they all go to the first damage or heal instance (the choice
    the player may make; no extra decision)."""
    w_i16 = w.i16
    f_abil = f.abil
    extra = modified(f, b, s, S_SPELL_POWER, 0, w_i16[cols[RANGE], b, s] != NULL)
    return np.int64(f_abil[b, s, kk, A_SPELL_POWER]) + extra


@kernel
def effect(w, cols, f, k, b, s, o, kk, base, source, t, sp):
    """One effect op of an ability (spec §5 ops: damage, heal, shield, status, mana, modifier,
    push, pull, sacrifice, destroy, relocate, switch) on unit o; its fields are
    ``f_abil[b, s, kk, base:base + NEF]``; t the ability's target hex. ``sp``: Spell Power added
    to this instance if it is damage or heal (hex-keywords.md "The additional damage from Spell
    Power is applied after the damage it would normally cause is calculated." and "Spell Power
    does not affect damage caused by buffs or debuffs.": never to a status). True when ``sp``
    was used."""
    w_i16 = w.i16
    w_alive = w.alive
    f_abil = f.abil
    k_path = k.path
    k_occ = f.board[b]
    row = f_abil[b, s, kk]
    op = row[base + E_OP]
    amount = np.int64(row[base + E_AMOUNT])
    if not w_alive[b, o]:
        return False
    buff = w_i16[cols[CONTROLLER], b, o] == w_i16[cols[CONTROLLER], b, s]
    if buff and (op == OP_SHIELD or op == OP_STATUS or op == OP_MODIFIER) and w_i16[cols[OVERHEATED], b, o] > 0:
        return False  # hex.md "Overheat – An overheated unit cannot be healed or buffed this round."
    if op == OP_DAMAGE:
        # hex.md "Magical damage is dealt by abilities unless otherwise specified."
        ty = row[base + E_TYPE]
        kind = PHYSICAL if ty == 0 else (MAGICAL if ty == 1 else PURE)
        deal(w, cols, f, k, b, s, o, amount + sp, kind | (NONLETHAL if row[base + E_NONLETHAL] else 0))
        return True
    elif op == OP_HEAL:
        heal(w, cols, b, o, amount + sp)
        return True
    elif op == OP_SHIELD:
        w_i16[cols[SHIELD_C], b, o] += amount
    elif op == OP_STATUS:
        c = FIRST_STATUS + row[base + E_STATUS]
        value = amount if row[base + E_ROUNDS] <= 0 else np.int64(row[base + E_ROUNDS])
        w_i16[cols[c], b, o] = max(np.int64(w_i16[cols[c], b, o]), value)
        if c == SILENCED:
            cancel_channel(w, cols, f, b, o)  # hex-keywords.md "If the channeling unit becomes ... silenced"
    elif op == OP_MANA:
        if w_i16[cols[MANA], b, o] != NULL:
            w_i16[cols[MANA], b, o] = max(w_i16[cols[MANA], b, o] + amount, 0)
    elif op == OP_MODIFIER:
        add_modifier(w, cols, f, b, s, o, row[base + E_STAT], amount, row[base + E_SET], row[base + E_KEYWORD],
                     row[base + E_ROUNDS], row[base + E_ONLY], source)
    elif op == OP_PUSH or op == OP_PULL:
        # hex.md "Pushed X" / "Pulled X": from / toward the acting unit's hex
        displace(w, cols, f, k, b, o, w_i16[cols[POS], b, s], amount, op == OP_PULL, k_path, -1)
    elif op == OP_SACRIFICE or op == OP_DESTROY:
        # hex.md "Sacrifice – ... remove one of the cards they control from the battlefield";
        # "Destroy – A destroyed unit is removed from the battlefield." (as a push off the map)
        w_i16[cols[HEALTH], b, o] = 0
        bury(w, cols, f, k, b)
    elif op == OP_RELOCATE:
        # hex.md "Relocate – A relocated unit is moved directly to another hex without passing
        # through any other hexes."; "Since relocation involves movement, it is prevented by root effects."
        if t >= 0 and k_occ[t] < 0 and w_i16[cols[ROOTED], b, o] == 0:
            stand(w, cols, f, b, o, t)
    elif op == OP_SWITCH and o != s:
        # hex.md "Switch – Refers to two units relocating into the other's hex." (the acting unit
        # and o); "Since relocation involves movement, it is prevented by root effects."
        if w_i16[cols[ROOTED], b, o] == 0 and w_i16[cols[ROOTED], b, s] == 0:
            here = w_i16[cols[POS], b, s]
            stand(w, cols, f, b, s, w_i16[cols[POS], b, o])
            stand(w, cols, f, b, o, here)
    elif op == OP_CONTROL:
        # hex-keywords.md "Control – When you control a unit, it becomes an allied unit."; "A controlled
        # unit retains all status effects." (statuses and modifiers stay); ``rounds``: until the end
        # of round ``round + rounds - 1`` (``turn.round_end`` gives it back), none: for good
        w_i16[cols[CONTROLLER], b, o] = w_i16[cols[CONTROLLER], b, s]
        rounds = np.int64(row[base + E_ROUNDS])
        w_i16[cols[CONTROL_UNTIL], b, o] = PERMANENT if rounds <= 0 else f.g[b, ROUND] + rounds - 1
        early_end(w, cols, f, b)
    return False


@kernel
def add_modifier(w, cols, f, b, s, o, stat, amount, set_, keyword, rounds, only, source):
    """hex.md "Some items and abilities modify the numerical value of properties." (I-35: an
    instance with the seat that applied it; ``rounds`` -> it expires at the end of round
    ``round + rounds - 1``, I-34). I-36: a non-stacking one ("Prop X", a granted keyword) from
    the same source replaces the earlier instance (hex-keywords.md "if a buff does not stack,
    applying it again replaces it"); "+X" ones add an instance each (hex.md "Numerical values stack")."""
    w_i16 = w.i16
    f_g = f.g
    f_mods = f.mods
    mods = f_mods
    stacks = keyword < 0 and set_ < 0
    if not stacks and source >= 0:
        for m in range(f_g[b, MODS_TOP]):
            if (mods[b, m, M_SLOT] == o and mods[b, m, M_SOURCE] == source and mods[b, m, M_STAT] == stat
                    and mods[b, m, M_KEYWORD] == keyword):
                drop_modifier(w, cols, f, b, m)
                break
    free = -1
    for m in range(mods.shape[1]):
        if mods[b, m, M_SLOT] < 0:
            free = m
            break
    if free < 0:
        raise RuntimeError("hex: more modifier instances than the game holds (state.MODS)")
    mods[b, free, :] = -1
    mods[b, free, M_SLOT] = o
    f_g[b, MODDED] |= np.int64(1) << np.int64(o)
    f_g[b, MODS_TOP] = max(f_g[b, MODS_TOP], free + 1)
    mods[b, free, M_BY] = w_i16[cols[CONTROLLER], b, s]
    mods[b, free, M_UNTIL] = PERMANENT if rounds <= 0 else f_g[b, ROUND] + rounds - 1
    mods[b, free, M_ONLY] = only
    mods[b, free, M_SOURCE] = source
    if keyword >= 0:
        mods[b, free, M_KEYWORD] = keyword
        mods[b, free, M_AMOUNT] = max(amount, 1)
    else:
        mods[b, free, M_STAT] = stat
        if set_ >= 0:
            mods[b, free, M_SET] = set_
        else:
            mods[b, free, M_AMOUNT] = amount
            if stat == S_HEALTH:  # I-35: "+X Health raises max and current"
                mx = max(w_i16[cols[MAX_HEALTH], b, o] + amount, 1)
                w_i16[cols[MAX_HEALTH], b, o] = mx
                w_i16[cols[HEALTH], b, o] = max(min(w_i16[cols[HEALTH], b, o] + amount, mx), 1)
    sync_modifiers(w, cols, f, b)


kernel_cache.check("cast", [v for v in list(globals().values()) if hasattr(v, "py_func") and v.__module__ == __name__])

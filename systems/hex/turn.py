"""The hex battle's bookkeeping over one game, compiled: deaths, turn passing, the centre token,
exhaustion, round start and end, victory (spec §2.6, §2.10, §2.11). Damage-dealing steps push
rows onto the damage queue; the caller resolves them (``actions.resolve``)."""

from __future__ import annotations

from numba import njit

from battlesim.ecs.compiled.damage_queue import push
from battlesim.systems.hex import kernel_cache
from battlesim.systems.hex.battle import can_act, number, qualifies, returns_on_death, stand
from battlesim.systems.hex.board import CENTRE_ID
from battlesim.systems.hex.damage_stages import MAGICAL, STATUS
from battlesim.systems.hex.kernel_cache import kernel
from battlesim.systems.hex.state import (
    A_PENDING_HEX,
    A_PENDING_UNIT,
    ACTIONS,
    ARMOR_ADD,
    ARMOR_SET,
    BLEED_C,
    BURN_C,
    CENTRE_SHIELD,
    CHANNEL_C,
    CONTROL_UNTIL,
    CONTROLLER,
    END_CENTRE,
    END_NO_UNITS,
    END_REASON,
    FADE_C,
    FIRST_PLAYER,
    FIRST_STATUS,
    HEALTH,
    HEALTH_REGEN,
    LAST_ACTOR,
    LAST_STATUS,
    M_AMOUNT,
    M_SET,
    M_SLOT,
    M_STAT,
    M_UNTIL,
    MAGIC_RESIST_ADD,
    MAGIC_RESIST_SET,
    MANA,
    MANA_REGEN,
    MAX_HEALTH,
    MAX_MANA,
    MODS_TOP,
    NULL,
    OPENER,
    OVERHEATED,
    PERMANENT,
    POISON_C,
    POS,
    RANGE,
    ROUND,
    ROUNDS,
    S_ARMOR,
    S_HEALTH,
    S_MAGIC_RESIST,
    SHIELD_C,
    SIDE,
    TO_ACT,
    TURNED,
    UNDEAD,
    WINNER,
)

TIMED_FIRST = OVERHEATED - 4  # rooted, disarmed, silenced, broken, overheated: the timed statuses


@kernel
def cancel_channel(w, cols, f, b, s):
    """hex-keywords.md "If the channeling unit becomes dead or silenced, the channeling is cancelled.":
    its counters and its pending cast gone (a cast is pending only while counters are on it:
    ``cast.tick_channels`` walks only the units with counters)."""
    w_i16 = w.i16
    f_abil = f.abil
    w_i16[cols[CHANNEL_C], b, s] = 0
    for kk in range(f_abil.shape[2]):
        f_abil[b, s, kk, A_PENDING_HEX] = 0
        f_abil[b, s, kk, A_PENDING_UNIT] = 0


@kernel
def settle(w, cols, f, b, returned):
    """Deaths: hex.md "If a unit's health is reduced to less than 1, it dies and is removed";
    hex-keywords.md "Undying – When this unit dies, if it is not #undead, return it to the
    battlefield" (I-25: in its hex, exhausted, #undead, full health, 0 mana, no statuses or
    modifiers, under its owner). ``returned[s]`` = 1 for a unit that came back now."""
    w_i16 = w.i16
    w_flags = w.flags
    w_alive = w.alive
    f_mods = f.mods
    returned[:] = 0
    for s in range(w_alive.shape[1]):
        if not w_alive[b, s] or w_i16[cols[HEALTH], b, s] >= 1:
            continue
        if returns_on_death(w, cols, f, b, s):
            for m in range(f.g[b, MODS_TOP]):
                if f_mods[b, m, M_SLOT] == s:
                    drop_modifier(w, cols, f, b, m)
            w_flags[cols[UNDEAD], b, s] = True
            w_i16[cols[HEALTH], b, s] = w_i16[cols[MAX_HEALTH], b, s]
            if w_i16[cols[MANA], b, s] != NULL:
                w_i16[cols[MANA], b, s] = 0
            cancel_channel(w, cols, f, b, s)  # it died: hex-keywords.md "If the channeling unit becomes dead"
            for k in range(FIRST_STATUS, LAST_STATUS + 1):
                w_i16[cols[k], b, s] = 0
            w_i16[cols[ACTIONS], b, s] = 0
            w_i16[cols[CONTROLLER], b, s] = w_i16[cols[SIDE], b, s]
            w_i16[cols[CONTROL_UNTIL], b, s] = 0
            returned[s] = 1
        else:
            w_alive[b, s] = False
            stand(w, cols, f, b, s, -1)
            w_i16[cols[HEALTH], b, s] = 0
            for m in range(f.g[b, MODS_TOP]):
                if f_mods[b, m, M_SLOT] == s:
                    f_mods[b, m, :] = -1
    sync_modifiers(w, cols, f, b)
    early_end(w, cols, f, b)


@kernel
def drop_modifier(w, cols, f, b, m):
    """Remove modifier instance m; a "+X Health" one takes its X off max health again and health
    is then at most max health, never below 1 (I-35: losing a buff does not kill)."""
    w_i16 = w.i16
    w_alive = w.alive
    f_mods = f.mods
    s = f_mods[b, m, M_SLOT]
    if s >= 0 and f_mods[b, m, M_STAT] == S_HEALTH and f_mods[b, m, M_SET] < 0 and w_alive[b, s]:
        mx = max(w_i16[cols[MAX_HEALTH], b, s] - f_mods[b, m, M_AMOUNT], 1)
        w_i16[cols[MAX_HEALTH], b, s] = mx
        hp = w_i16[cols[HEALTH], b, s]
        if hp >= 1:
            w_i16[cols[HEALTH], b, s] = max(min(hp, mx), 1)
    f_mods[b, m, :] = -1


@kernel
def sync_modifiers(w, cols, f, b):
    """Armor and Magic Resist modifiers as the damage stages read them (hex.md "Example: "Target
    unit gets Armor 1""; I-35: "+X" stacks, "Prop X" takes the highest): their sum and highest
    set, per unit, recomputed from the modifier instances whenever those change."""
    w_i16 = w.i16
    w_alive = w.alive
    f_mods = f.mods
    for s in range(w_alive.shape[1]):
        w_i16[cols[ARMOR_ADD], b, s] = 0
        w_i16[cols[MAGIC_RESIST_ADD], b, s] = 0
        w_i16[cols[ARMOR_SET], b, s] = -1
        w_i16[cols[MAGIC_RESIST_SET], b, s] = -1
    for m in range(f.g[b, MODS_TOP]):
        s = f_mods[b, m, M_SLOT]
        stat = f_mods[b, m, M_STAT]
        if s < 0 or (stat != S_ARMOR and stat != S_MAGIC_RESIST):
            continue
        if not qualifies(f_mods, b, m, w_i16[cols[RANGE], b, s] != NULL):
            continue
        add = ARMOR_ADD if stat == S_ARMOR else MAGIC_RESIST_ADD
        put = ARMOR_SET if stat == S_ARMOR else MAGIC_RESIST_SET
        if f_mods[b, m, M_SET] >= 0:
            w_i16[cols[put], b, s] = max(w_i16[cols[put], b, s], f_mods[b, m, M_SET])
        else:
            w_i16[cols[add], b, s] += f_mods[b, m, M_AMOUNT]


@kernel
def early_end(w, cols, f, b):
    """Spec §2.11 (I-17): the first player owns and controls no unit on the battlefield -> the
    second player wins at once (hex.md "Otherwise, the second player wins.")."""
    w_i16 = w.i16
    w_alive = w.alive
    f_g = f.g
    if f_g[b, WINNER] >= 0:
        return
    first = f_g[b, FIRST_PLAYER]
    for s in range(w_alive.shape[1]):
        if not w_alive[b, s] or w_i16[cols[SIDE], b, s] != first:
            continue
        until = w_i16[cols[CONTROL_UNTIL], b, s]
        if w_i16[cols[CONTROLLER], b, s] == first or 0 < until < PERMANENT:  # a Control that ends gives it back
            return
    f_g[b, WINNER] = 1 - first
    f_g[b, END_REASON] = END_NO_UNITS
    f_g[b, TO_ACT] = -1


@njit(cache=True, inline='always')
def seat_can_act(w, cols, b, seat):
    w_alive = w.alive
    for s in range(w_alive.shape[1]):
        if can_act(w, cols, b, s, seat):
            return True
    return False


@njit(cache=True, inline='always')  # on every decision's path: see docs/hex-speed.md step 13
def centre_token(w, cols, b, g, board):
    """hex.md "The first buffable unit to end its turn on the center hex receives +1 Shield";
    I-16: checked at every turn's end, whoever's unit, however it got there; an Overheated unit
    cannot be buffed."""
    w_i16 = w.i16
    if g[b, CENTRE_SHIELD] == 0:
        return
    s = board[b, CENTRE_ID]  # the game's kept board (``battle.stand``): no walk over the slots
    if s >= 0 and w_i16[cols[OVERHEATED], b, s] == 0:
        w_i16[cols[SHIELD_C], b, s] += 1
        g[b, CENTRE_SHIELD] = 0


@njit(cache=True, inline='always')  # on every decision's path: see docs/hex-speed.md step 13
def end_turn(w, cols, f, b, seat, acted):
    """The turn's end (I-12): the centre token; ``last_actor`` when an action was performed (a
    skip "does not count as taking an action", H10.4); the opponent acts next if it has a unit
    with an action left, else the same player ("multiple turns in a row"), else nobody (the
    round ends, to_act = -1)."""
    f_g = f.g
    f_g[b, TURNED] |= 1 << seat  # the seat had a turn this round (Channel, I-38)
    if acted:
        f_g[b, LAST_ACTOR] = seat
    centre_token(w, cols, b, f_g, f.board)
    if f_g[b, WINNER] >= 0:
        f_g[b, TO_ACT] = -1
    elif seat_can_act(w, cols, b, 1 - seat):
        f_g[b, TO_ACT] = 1 - seat
    elif seat_can_act(w, cols, b, seat):
        f_g[b, TO_ACT] = seat
    else:
        f_g[b, TO_ACT] = -1


@kernel
def status_damage(w, cols, f, b, queue, qlen):
    """Round start, first half (spec §2.10, I-33, hex.md "At the start of the next round"): from
    the state at the start, each Burn / Poison / Bleed pile is one magical instance (through
    Shield, Refraction, Magic Resist; not returned); ``status_tick`` then adds regen, and deaths
    are settled only after both, so the two apply together."""
    w_i16 = w.i16
    w_alive = w.alive
    for s in range(w_alive.shape[1]):
        if not w_alive[b, s]:
            continue
        for k in (BURN_C, POISON_C, BLEED_C):
            n = w_i16[cols[k], b, s]
            if n > 0:
                push(queue, qlen, b, -1, s, n, MAGICAL | STATUS)


@kernel
def status_tick(w, cols, f, b):
    """Round start, second half: hex-keywords.md "Health Regen X ... The unit heals X and takes
    damage from all its statuses simultaneously" (health = min(max, health - damage + regen);
    no heal while Overheated); "Burn ... remove a Burn counter" and Bleed -1 (Poison stays);
    Mana Regen X up to max mana; "At the start of each round, remove a Fade counter" and the
    unit is sacrificed at 0. Deaths follow (``settle``)."""
    w_i16 = w.i16
    w_alive = w.alive
    for s in range(w_alive.shape[1]):
        if not w_alive[b, s]:
            continue
        regen = number(w, cols, b, s, HEALTH_REGEN)
        if regen > 0 and w_i16[cols[OVERHEATED], b, s] == 0:
            w_i16[cols[HEALTH], b, s] = min(w_i16[cols[HEALTH], b, s] + regen, w_i16[cols[MAX_HEALTH], b, s])
        for k in (BURN_C, BLEED_C):
            if w_i16[cols[k], b, s] > 0:
                w_i16[cols[k], b, s] -= 1
        mr = number(w, cols, b, s, MANA_REGEN)
        if mr > 0 and w_i16[cols[MANA], b, s] != NULL:
            w_i16[cols[MANA], b, s] = min(w_i16[cols[MANA], b, s] + mr, w_i16[cols[MAX_MANA], b, s])
        if w_i16[cols[FADE_C], b, s] > 0:
            w_i16[cols[FADE_C], b, s] -= 1
            if w_i16[cols[FADE_C], b, s] == 0:
                w_i16[cols[HEALTH], b, s] = 0  # hex-keywords.md "When the last is removed, sacrifice this unit."


@kernel
def refresh(w, cols, f, b):
    """Round start: hex.md "Every unit has one action each round, by default" (I-13: refresh
    sets 1; channelling units 0); then I-11: the player who last performed an action in the
    previous round acts second; if nobody did, the previous opener opens again."""
    w_i16 = w.i16
    w_alive = w.alive
    f_g = f.g
    for s in range(w_alive.shape[1]):
        if w_alive[b, s]:
            w_i16[cols[ACTIONS], b, s] = 0 if w_i16[cols[CHANNEL_C], b, s] > 0 else 1
    last = f_g[b, LAST_ACTOR]
    opener = f_g[b, OPENER] if last < 0 else 1 - last
    f_g[b, OPENER] = opener
    f_g[b, LAST_ACTOR] = -1
    if f_g[b, WINNER] >= 0:
        f_g[b, TO_ACT] = -1
    elif seat_can_act(w, cols, b, opener):
        f_g[b, TO_ACT] = opener
    elif seat_can_act(w, cols, b, 1 - opener):
        f_g[b, TO_ACT] = 1 - opener
    else:
        f_g[b, TO_ACT] = -1


@kernel
def round_end(w, cols, f, b):
    """hex.md "all effects that last 'this round' end" (I-34: a timed status holds rounds left,
    -1 at each round end, gone at 0; modifiers expire after their last round); then "The victory
    check occurs after all other end-of-round events": after round 7, the first player wins iff
    a unit it controls stands on the centre (I-15), else the second; otherwise the round advances."""
    w_i16 = w.i16
    w_alive = w.alive
    f_g = f.g
    f_mods = f.mods
    rnd = f_g[b, ROUND]
    for s in range(w_alive.shape[1]):
        if w_alive[b, s]:
            for k in range(TIMED_FIRST, OVERHEATED + 1):
                if w_i16[cols[k], b, s] > 0:
                    w_i16[cols[k], b, s] -= 1
    for m in range(f.g[b, MODS_TOP]):
        if f_mods[b, m, M_SLOT] >= 0 and f_mods[b, m, M_UNTIL] <= rnd:
            drop_modifier(w, cols, f, b, m)
    sync_modifiers(w, cols, f, b)
    for s in range(w_alive.shape[1]):
        until = w_i16[cols[CONTROL_UNTIL], b, s]
        if until > 0 and until <= rnd:  # a Control "until the end of the round" ends: the owner controls it
            w_i16[cols[CONTROL_UNTIL], b, s] = 0
            if w_alive[b, s]:
                w_i16[cols[CONTROLLER], b, s] = w_i16[cols[SIDE], b, s]
    if f_g[b, WINNER] >= 0:
        return
    if rnd >= f_g[b, ROUNDS]:
        first = f_g[b, FIRST_PLAYER]
        f_g[b, WINNER] = 1 - first
        for s in range(w_alive.shape[1]):
            if w_alive[b, s] and w_i16[cols[POS], b, s] == CENTRE_ID and w_i16[cols[CONTROLLER], b, s] == first:
                f_g[b, WINNER] = first
        f_g[b, END_REASON] = END_CENTRE
        f_g[b, TO_ACT] = -1
    else:
        f_g[b, ROUND] = rnd + 1



kernel_cache.check("turn", [v for v in list(globals().values()) if hasattr(v, "py_func") and v.__module__ == __name__])

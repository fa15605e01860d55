"""Hex battle actions and effects over one game, compiled: move, attack (melee, ranged, charge,
retreat), skip, ability and its effect ops, push and pull, heal, round start. The game loop
(``play.py``), replays and the scenario runner (``actions.Battle``, which checks a step's
legality in Python first and names what is wrong) all apply actions through these kernels, so
the 93 scenario files check the code that batch games run.

Every function takes ``(w, cols, f, k, b, ...)``: the World as kernels see it, the column table,
the per-game fields (``HexFields``), the scratch ``Work`` (damage queue, per-thread buffers) and
the game.
"""

from __future__ import annotations

from numba import njit

from battlesim.ecs.compiled.damage_queue import push
from battlesim.systems.hex import kernel_cache
from battlesim.systems.hex.battle import has, legal_move, number, prop, reach, stand
from battlesim.systems.hex.cast import cast, channel_fallback, start_channel, turn_start
from battlesim.systems.hex.damage_stages import ATTACK, COMBAT, MAGICAL, PHYSICAL, RANGED, RETALIATION
from battlesim.systems.hex.kernel_cache import kernel
from battlesim.systems.hex.state import (
    A_CHANNEL,
    A_COST,
    A_USED,
    BACKSTAB,
    CONTROLLER,
    COUNTERSTRIKE,
    DISARMED,
    IMBUED,
    INTIMIDATE,
    MANA,
    MANABURN,
    NULL,
    OPENER,
    OVERWATCH,
    POS,
    RETREATING,
    ROOTED,
    ROUND,
    S_POWER,
    S_RANGE,
    TO_ACT,
    VENGEANCE,
    WINNER,
)
from battlesim.systems.hex.turn import (
    end_turn,
    refresh,
    seat_can_act,
    status_damage,
    status_tick,
)
from battlesim.systems.hex.work import bury, deal, resolve, spend, walk, walk_to

# return codes of the actions (0 = done); the scenario runner turns them into its "not legal" line
DONE, NO_RETREATING, BAD_RETREAT, BAD_MOVE = range(4)

@njit(cache=True, inline='always')  # on every decision's path: see docs/hex-speed.md step 13
def do_move(w, cols, f, k, b, s, h, path, npath):
    """H10.3.1: a move action (``npath`` < 0: the shortest path; else ``path[:npath]``)."""
    w_i16 = w.i16
    seat = w_i16[cols[CONTROLLER], b, s]
    if npath < 0:
        walk_to(w, cols, f, k, b, s, h)
    else:
        walk(w, cols, f, k, b, s, path, npath)
    spend(w, cols, b, s)
    end_turn(w, cols, f, b, seat, True)
    turn_start(w, cols, f, k, b)


@njit(cache=True, inline='always')  # on every decision's path: see docs/hex-speed.md step 13
def do_skip(w, cols, f, k, b, s):
    """hex.md "Skipping consumes the unit's action, but does not count as taking an action"."""
    w_i16 = w.i16
    seat = w_i16[cols[CONTROLLER], b, s]
    spend(w, cols, b, s)
    end_turn(w, cols, f, b, seat, False)
    turn_start(w, cols, f, k, b)


@kernel
def do_attack(w, cols, f, k, b, s, t, approach, path, npath, retreat):
    """H10.3.2 / H11: an attack on the unit on hex t, a charge from ``approach`` (>= 0; I-22),
    Retreating to ``retreat`` after it (>= 0; the own hex = stay). Legality of the attack and
    charge is the caller's (the mask); a retreat is checked after the combat: BAD_RETREAT."""
    w_i16 = w.i16
    w_alive = w.alive
    k_occ = f.board[b]
    k_steps = k.steps
    k_prev = k.prev
    seat = w_i16[cols[CONTROLLER], b, s]
    code = DONE
    if approach >= 0:
        if npath < 0:
            walk_to(w, cols, f, k, b, s, approach)
        else:
            walk(w, cols, f, k, b, s, path, npath)
    d = k_occ[t]
    if w_alive[b, s] and d >= 0:
        combat(w, cols, f, k, b, s, d)
    if retreat >= 0 and w_alive[b, s]:
        x = number(w, cols, b, s, RETREATING)
        here = w_i16[cols[POS], b, s]
        if x <= 0:
            code = NO_RETREATING
        elif retreat != here:
            reach(w, cols, f, b, s, k_occ, k_steps, k_prev, k.frontier)
            if k_occ[retreat] >= 0 or k_steps[retreat] > x or w_i16[cols[ROOTED], b, s] > 0:
                code = BAD_RETREAT
            else:
                walk_to(w, cols, f, k, b, s, retreat)
    if code != DONE:
        return code
    if w_alive[b, s]:
        spend(w, cols, b, s)
    end_turn(w, cols, f, b, seat, True)
    turn_start(w, cols, f, k, b)
    return DONE


@kernel
def retaliation_power(w, cols, f, b, d, a):
    """hex-keywords.md "Vengeance X – This unit gets +X Power while retaliating."; "Intimidate X
    – ... the defender retaliates with -X Power." (I-21: floor 0)."""
    p = prop(w, cols, f, b, d, S_POWER)
    return max(p + number(w, cols, b, d, VENGEANCE) - number(w, cols, b, a, INTIMIDATE), 0)


@kernel
def can_retaliate(w, cols, f, b, d, a):
    """hex.md "A disarmed unit cannot attack or retaliate."; NULL power "cannot ... retaliate";
    "Backstab – When this unit attacks, the defender cannot retaliate."."""
    w_i16 = w.i16
    w_alive = w.alive
    return (w_alive[b, d] and prop(w, cols, f, b, d, S_POWER) != NULL and w_i16[cols[DISARMED], b, d] == 0
            and not has(w, cols, f, b, a, BACKSTAB))


@kernel
def combat_kind(w, cols, f, b, s):
    """hex.md "Combat damage is physical"; "Imbued – This unit deals its combat damage as magic damage."."""
    return COMBAT | (MAGICAL if has(w, cols, f, b, s, IMBUED) else PHYSICAL)


@kernel
def combat(w, cols, f, k, b, a, d):
    """Spec §2.8 (I-20): declaration (Manaburn), Overwatch, the attack (Counterstrike at the
    same instant), the kill-and-occupy or the push back and one retaliation; ranged: no
    retaliation (H11.4.2.3)."""
    w_i16 = w.i16
    w_alive = w.alive
    k_queue = k.queue
    k_qlen = k.qlen
    k_returned = k.returned
    ranged = prop(w, cols, f, b, a, S_RANGE) != NULL
    from_hex = w_i16[cols[POS], b, a]
    target_hex = w_i16[cols[POS], b, d]
    mb = number(w, cols, b, a, MANABURN)
    if mb > 0 and w_i16[cols[MANA], b, d] != NULL:  # hex.md "Manaburn X – When this unit attacks, remove X mana"
        w_i16[cols[MANA], b, d] = max(w_i16[cols[MANA], b, d] - mb, 0)
    retaliated = ranged
    if not ranged and has(w, cols, f, b, d, OVERWATCH) and can_retaliate(w, cols, f, b, d, a):
        # hex-keywords.md "Overwatch – This unit retaliates before the attacker deals damage to it."
        deal(w, cols, f, k, b, d, a, retaliation_power(w, cols, f, b, d, a), combat_kind(w, cols, f, b, d) | RETALIATION)
        retaliated = True
        if not w_alive[b, a]:
            return
    power = prop(w, cols, f, b, a, S_POWER)
    counter = not retaliated and has(w, cols, f, b, d, COUNTERSTRIKE) and can_retaliate(w, cols, f, b, d, a)
    back = retaliation_power(w, cols, f, b, d, a) if counter else 0
    push(k_queue, k_qlen, b, a, d, power, combat_kind(w, cols, f, b, a) | ATTACK | (RANGED if ranged else 0))
    # spec §2.8 (3): "Lifesteal heals before the counterstrike damage lands"
    resolve(w, cols, f, k, b, not counter)
    if counter:
        # hex.md "Counterstrike – This unit retaliates at the same time that it is attacked."
        push(k_queue, k_qlen, b, d, a, back, combat_kind(w, cols, f, b, d) | RETALIATION)
        resolve(w, cols, f, k, b, True)
        retaliated = True
    if ranged or not w_alive[b, a]:
        return
    if not w_alive[b, d]:
        stand(w, cols, f, b, a, target_hex)  # hex.md "the attacking unit moves into the defender's hex"
        return
    if k_returned[d]:
        return  # I-25: pushed back to its own hex; the returned unit does not retaliate
    stand(w, cols, f, b, a, from_hex)
    if not retaliated and can_retaliate(w, cols, f, b, d, a):
        deal(w, cols, f, k, b, d, a, retaliation_power(w, cols, f, b, d, a), combat_kind(w, cols, f, b, d) | RETALIATION)


@kernel
def do_ability(w, cols, f, k, b, s, kk, t, move_to, move_first):
    """H10.3.3: an ability action of unit s, ability kk, on hex t: hex.md "When paid, adjust the
    mana counter accordingly."; each effect on the units its selector lists (``select.py``), in
    order (hex.md "Spellproof – This unit is not affected by enemy active abilities.": cost paid,
    no effect, I-39); Spell Power (``spell_power``); with ``move_to`` >= 0 and not ``move_first``:
    hex.md "Combinable – This unit may move and use this ability in a single action." (the move
    after; a move first is the caller's ``walk_to`` before this). Legality is the caller's (the
    mask, or the scenario runner's checks); a bad move after: BAD_MOVE."""
    w_i16 = w.i16
    w_alive = w.alive
    f_g = f.g
    f_abil = f.abil
    k_occ = f.board[b]
    k_steps = k.steps
    k_prev = k.prev
    seat = w_i16[cols[CONTROLLER], b, s]
    cost = f_abil[b, s, kk, A_COST]
    if cost > 0:
        w_i16[cols[MANA], b, s] = w_i16[cols[MANA], b, s] - cost
    f_abil[b, s, kk, A_USED] = f_g[b, ROUND]
    if f_abil[b, s, kk, A_CHANNEL] > 0:
        start_channel(w, cols, f, b, s, kk, t, k_occ[t] if t >= 0 else -1)
    else:
        cast(w, cols, f, k, b, s, kk, t)
    if move_to >= 0 and not move_first and w_alive[b, s]:
        if not legal_move(w, cols, f, b, s, move_to, k_occ, k_steps, k_prev, k.frontier, k.dcols):
            return BAD_MOVE
        walk_to(w, cols, f, k, b, s, move_to)
    if w_alive[b, s]:
        spend(w, cols, b, s)
    end_turn(w, cols, f, b, seat, True)
    turn_start(w, cols, f, k, b)
    return DONE


@kernel
def round_start(w, cols, f, k, b):
    """Spec §2.6 round start (I-10): refresh, the simultaneous status update, Fade, deaths, who
    opens (decided again from the living units)."""
    f_g = f.g
    k_queue = k.queue
    k_qlen = k.qlen
    channel_fallback(w, cols, f, k, b)
    refresh(w, cols, f, b)
    status_damage(w, cols, f, b, k_queue, k_qlen)
    resolve(w, cols, f, k, b, False)
    status_tick(w, cols, f, b)
    bury(w, cols, f, k, b)
    opener = f_g[b, OPENER]
    if f_g[b, WINNER] >= 0:
        f_g[b, TO_ACT] = -1
    elif seat_can_act(w, cols, b, opener):
        f_g[b, TO_ACT] = opener
    elif seat_can_act(w, cols, b, 1 - opener):
        f_g[b, TO_ACT] = 1 - opener
    else:
        f_g[b, TO_ACT] = -1
    turn_start(w, cols, f, k, b)


kernel_cache.check("apply", [v for v in list(globals().values()) if hasattr(v, "py_func") and v.__module__ == __name__])

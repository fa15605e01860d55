"""What a hex unit is and may do, read over one game: effective properties, the board's
occupancy, reachability, and the legality of each battle action (spec §2.7: the agent's mask).

Every function is compiled (``@njit``) and takes the World as kernels see it (``w``, a
``WorldState``), the column table ``cols`` (``state.columns``), the per-game fields ``f``
(``HexFields``) and the game ``b``.

The small predicates the game loop asks thousands of times a game (``has``, ``number``,
``can_act``, ``occupancy``...) are inlined (``inline='always'``): a call hands over the World's
arrays, and numba counts a reference to each of them on every call and return; inlined, those
counts cancel.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from battlesim.systems.hex import kernel_cache
from battlesim.systems.hex.board import DIST, NEIGHBOURS
from battlesim.systems.hex.damage_stages import PHYSICAL
from battlesim.systems.hex.hexset import ALL, EMPTY, bit, grow, lowest, without_lowest
from battlesim.systems.hex.kernel_cache import kernel
from battlesim.systems.hex.pipeline import health_after
from battlesim.systems.hex.state import (
    A_CAST_RANGE,
    A_COST,
    A_EMPTY_HEX,
    A_MOVES_SELF,
    A_ONCE,
    A_PRESENT,
    A_TARGET,
    A_USED,
    ACTIONS,
    ALLIED_PATHING,
    BROKEN,
    CHANNEL_C,
    CHARGING,
    CONTROLLER,
    DEFENDER,
    DISARMED,
    FIRST_TAG,
    FLYING,
    INFINITE,
    M_AMOUNT,
    M_KEYWORD,
    M_ONLY,
    M_SET,
    M_SLOT,
    M_STAT,
    MANA,
    MODDED,
    MODS_TOP,
    MOVEMENT,
    NULL,
    ONCE_BATTLE,
    ONCE_ROUND,
    ONLY_RANGED,
    PATHING,
    POS,
    POWER,
    RANGE,
    ROOTED,
    ROUND,
    S_CAST_RANGE,
    S_MOVEMENT,
    S_POWER,
    S_RANGE,
    SILENCED,
    STEADFAST,
    T_ALLY,
    T_ENEMY,
    T_HEX,
    T_NONE,
    T_SELF,
    T_UNIT,
    TRAMPLE,
    UNDEAD,
    UNDYING,
)

SORTED_NEIGHBOURS = np.sort(np.where(NEIGHBOURS < 0, 127, NEIGHBOURS), axis=1).astype(np.int8)
FAR = 127  # an unreachable hex's step count


class HexFields(NamedTuple):
    """The per-game fields a hex kernel takes: ``g`` int64[B, GAME_FIELDS], ``mods``
    int16[B, MODS, MOD_FIELDS], ``abil`` int16[B, SLOTS, ABILITIES, NAF], ``board``
    int64[B, N_HEXES] (the slot on each hex, -1: empty; kept by ``stand``) (the World's own ``w.g.*``)."""

    g: np.ndarray
    mods: np.ndarray
    abil: np.ndarray
    board: np.ndarray


@njit(cache=True, inline='always')
def tag(w, cols, b, s, k):
    """A tag keyword as the rules read it: the unit's own, off while it is broken
    (hex.md "A broken unit has its passive abilities disabled."); granted ones are ``granted``'s."""
    w_i16 = w.i16
    w_flags = w.flags
    return w_flags[cols[k], b, s] and w_i16[cols[BROKEN], b, s] == 0


@njit(cache=True, inline='always')
def number(w, cols, b, s, k):
    """A Keyword X as the rules read it (0 while broken)."""
    w_i16 = w.i16
    if w_i16[cols[BROKEN], b, s] > 0:
        return 0
    return np.int64(w_i16[cols[k], b, s])


@njit(cache=True, inline='always')
def granted(f, b, s, k):
    """A keyword granted by a modifier instance (``{ keyword = ... }``): its amount (1 for a tag),
    0 if none (granted keywords stay while broken: I-37)."""
    f_mods = f.mods
    best = 0
    if not f.g[b, MODDED] >> s & 1:
        return best  # no instance on the unit (``state.MODDED``)
    for m in range(f.g[b, MODS_TOP]):
        if f_mods[b, m, M_SLOT] == s and f_mods[b, m, M_KEYWORD] == k:
            best = max(best, max(np.int64(f_mods[b, m, M_AMOUNT]), 1))
    return best


@njit(cache=True, inline='always')
def has(w, cols, f, b, s, k):
    """A keyword (tag or X > 0) the unit has: its own unless broken, or granted."""
    if k >= FIRST_TAG:
        return tag(w, cols, b, s, k) or granted(f, b, s, k) > 0
    return number(w, cols, b, s, k) > 0 or granted(f, b, s, k) > 0


@njit(cache=True, inline='always')  # the legal table asks three a unit: a call would pass the World
def prop(w, cols, f, b, s, stat):
    """A unit's power, range or movement as the rules read it (I-35): NULL stays NULL (hex.md
    "A null value cannot be increased or decreased."); "Property X" takes the highest (hex.md
    "the higher value always takes precedence"); "Movement X" overrides every other movement
    modifier; "+X" modifiers stack; never below 0."""
    w_i16 = w.i16
    col = POWER if stat == S_POWER else (RANGE if stat == S_RANGE else MOVEMENT)
    return modified(f, b, s, stat, np.int64(w_i16[cols[col], b, s]), w_i16[cols[RANGE], b, s] != NULL)


@njit(cache=True, inline='always')
def modified(f, b, s, stat, base, ranged):
    """``base`` with unit s's modifiers of ``stat`` applied (``prop``'s rules, I-35); hex.md "A
    modifier may state in parentheses whether it only affects melee or ranged units." (``ranged``:
    the unit's Range is not NULL). Inlined: most units hold no instance (``state.MODDED``), and
    for them this is two reads; the walk over the instances is a call, handed the one array it
    reads."""
    if base == NULL:
        return NULL
    if not f.g[b, MODDED] >> s & 1:
        return max(base, 0)  # no instance on the unit (``state.MODDED``)
    return modified_by_instances(f.mods, f.g[b, MODS_TOP], b, s, stat, base, ranged)


@kernel
def modified_by_instances(f_mods, top, b, s, stat, base, ranged):
    """``modified`` of a unit that has held a modifier instance: "Property X" takes the highest,
    "Movement X" overrides, "+X" stacks, never below 0. ``top``: the game's ``MODS_TOP``."""
    best = -1
    add = 0
    for m in range(top):
        if f_mods[b, m, M_SLOT] != s or f_mods[b, m, M_STAT] != stat or not qualifies(f_mods, b, m, ranged):
            continue
        if f_mods[b, m, M_SET] >= 0:
            best = max(best, np.int64(f_mods[b, m, M_SET]))
        else:
            add += np.int64(f_mods[b, m, M_AMOUNT])
    if best >= 0:
        if stat == S_MOVEMENT:
            return best
        base = best
    return max(base + add, 0)


@njit(cache=True, inline='always')
def qualifies(f_mods, b, m, ranged):
    """Modifier m (of the game's ``f.mods``) applies to a ranged (or melee) unit: no qualifier, or
    the matching one."""
    only = f_mods[b, m, M_ONLY]
    return only < 0 or (only == ONLY_RANGED) == ranged


@njit(cache=True, inline='always')
def occupancy(w, cols, b, out):
    """``out[h]``: the slot standing on hex h, -1 when empty, built afresh from the 32 slots: the
    game's kept board (``f.board[b]``) at a game's setup, and what the invariant check compares
    the kept board with."""
    w_i16 = w.i16
    w_alive = w.alive
    out[:] = -1
    for s in range(w_alive.shape[1]):
        if w_alive[b, s] and w_i16[cols[POS], b, s] >= 0:
            out[w_i16[cols[POS], b, s]] = s


@njit(cache=True, inline='always')
def stand(w, cols, f, b, s, h):
    """Unit s now stands on hex h (-1: off the board, dead): its position and the game's kept
    board (``f.board[b, h]``: the slot on hex h), the one writer of both after setup (moves,
    trample, combat's occupying, push and pull, relocation, switch, summons, deaths).
    Why kept: every decision's table, path and effect reads the board, and building it from the
    32 slots each time was a part of every decision; a unit moves once a turn."""
    w_i16 = w.i16
    board = f.board
    at = w_i16[cols[POS], b, s]
    if at >= 0 and board[b, at] == s:
        board[b, at] = -1
    w_i16[cols[POS], b, s] = h
    if h >= 0:
        board[b, h] = s


@njit(cache=True, inline='always')
def same_board(w, cols, f, b):
    """Whether game b's kept board (``stand``'s) is what ``occupancy`` would build from the slots
    now: each live unit on the board's hex of its slot, each named slot alive on that hex (the
    check runs' invariant)."""
    w_i16 = w.i16
    w_alive = w.alive
    board = f.board
    for h in range(board.shape[1]):
        o = board[b, h]
        if o >= 0 and (not w_alive[b, o] or w_i16[cols[POS], b, o] != h):
            return False
    for s in range(w_alive.shape[1]):
        h = w_i16[cols[POS], b, s]
        if w_alive[b, s] and h >= 0 and board[b, h] != s:
            return False
    return True


@kernel
def passable(w, cols, f, b, s, o):
    """Whether unit s may move through a hex holding unit o (hex.md "Pathing – This unit can move
    through other units."; "Allied Pathing"; hex-keywords.md "Flying – over other units";
    "Trample X – may move into and through hexes occupied by enemy units"; "Steadfast – cannot be
    ... trampled")."""
    w_i16 = w.i16
    if o < 0:
        return True
    if has(w, cols, f, b, s, FLYING) or has(w, cols, f, b, s, PATHING):
        return True
    ally = w_i16[cols[CONTROLLER], b, o] == w_i16[cols[CONTROLLER], b, s]
    if ally:
        return has(w, cols, f, b, s, ALLIED_PATHING)
    return has(w, cols, f, b, s, TRAMPLE) and not has(w, cols, f, b, o, STEADFAST)


@kernel
def reach(w, cols, f, b, s, occ, steps, prev, frontier):
    """Breadth-first steps from unit s's hex through passable hexes (``steps[h]``, FAR if never),
    ``prev[h]`` the hex before h on a shortest path (lowest id at forks: I-23); ``frontier``:
    the search's queue (scratch, ``N_HEXES`` long). Movement counts hexes (H5.3.7); the map's
    edge bounds it (hex.md "A unit may never move off the map")."""
    reach_within(w, cols, f, b, s, occ, steps, prev, frontier, FAR, -1)


@njit(cache=True, inline='always')  # on every decision's path: see docs/hex-speed.md step 13
def reach_within(w, cols, f, b, s, occ, steps, prev, frontier, limit, goal):
    """``reach`` searching no farther than ``limit`` steps (hexes beyond stay FAR: a move or a
    charge's approach never needs them). ``passable``, with what depends only on the mover read
    once (the search runs per decision). Returns how many hexes it reached: ``frontier[:n]``,
    the start first (the legal table's moves are read off that list, not off all 59 hexes).
    ``goal`` >= 0: the search stops once it reaches that hex (its ``prev`` chain is final then:
    a path needs no more; ``work.path_to``); -1: never."""
    w_i16 = w.i16
    steps[:] = FAR
    prev[:] = -1
    start = w_i16[cols[POS], b, s]
    steps[start] = 0
    anyone = has(w, cols, f, b, s, FLYING) or has(w, cols, f, b, s, PATHING)
    allies = has(w, cols, f, b, s, ALLIED_PATHING)
    tramples = has(w, cols, f, b, s, TRAMPLE)
    me = w_i16[cols[CONTROLLER], b, s]
    head, tail = 0, 1
    frontier[0] = start
    while head < tail:
        h = frontier[head]
        head += 1
        if steps[h] >= limit:
            continue
        o = occ[h]
        if h != start and o >= 0 and not anyone:
            if w_i16[cols[CONTROLLER], b, o] == me:
                if not allies:
                    continue
            elif not tramples or has(w, cols, f, b, o, STEADFAST):
                continue
        for k in range(6):
            n = SORTED_NEIGHBOURS[h, k]
            if n == 127:
                break
            if steps[n] == FAR:
                steps[n] = steps[h] + 1
                prev[n] = h
                frontier[tail] = n
                tail += 1
                if n == goal:
                    return tail
    return tail


@njit(cache=True, inline='always')  # once a unit by the legal table: a call would pass the World, fields and scratch
def reach_sets(w, cols, f, b, s, occ, empty, mine, foes, limit):
    """``reach_within`` as hex sets (``hexset``), for the legal table: (the hexes unit s reaches
    in at most ``limit`` steps, those it reaches in at most ``limit - 1``: a melee charger's
    approach keeps a step for its attack). ``empty``: the empty hexes; ``mine``: the hexes of the
    units its controller controls; ``foes``: of the others' (``occ`` names them). The same
    passing as the search's (``passable``): any hex with Flying or Pathing, else empty ones,
    allies' with Allied Pathing, enemies' without Steadfast with Trample; a hex entered but not
    passable ends a path there. Each step is ``grow`` of the passable part of what is reached:
    what the search's queue finds layer by layer (tests/rules/hex/test_hex_movement.py checks
    the two agree). The search (``reach_within``) stays for paths: which way, not only where."""
    start = bit(w.i16[cols[POS], b, s])
    if has(w, cols, f, b, s, FLYING) or has(w, cols, f, b, s, PATHING):
        through = ALL
    else:
        through = empty
        if has(w, cols, f, b, s, ALLIED_PATHING):
            through |= mine
        if has(w, cols, f, b, s, TRAMPLE):
            x = foes
            while x != EMPTY:
                h = lowest(x)
                x = without_lowest(x)
                if not has(w, cols, f, b, occ[h], STEADFAST):
                    through |= bit(h)
    through |= start
    reached = start
    before = start
    for _ in range(limit):
        before = reached
        reached |= grow(reached & through)
        if reached == before:
            break
    return reached, before


@njit(cache=True, inline='always')
def can_act(w, cols, b, s, seat):
    """A live unit of ``seat`` with an action left (hex.md "A unit that has no actions
    remaining is considered exhausted."; I-38: no actions while channelling)."""
    w_i16 = w.i16
    w_alive = w.alive
    return (w_alive[b, s] and w_i16[cols[CONTROLLER], b, s] == seat and w_i16[cols[ACTIONS], b, s] > 0
            and w_i16[cols[CHANNEL_C], b, s] == 0)


@njit(cache=True, inline='always')
def acting_slot(w, cols, b, seat, u):
    """The unit that entry block u of ``seat``'s battle table names (spec §6 "u = the acting
    side's unit slot"): the seat's own slot u if it can act, else slot u of the other half if the
    seat controls it and it can act (hex.md "Control – When you control a unit, it becomes an
    allied unit.": a unit taken over acts for its new controller); -1 if neither. A controlled
    unit whose block the seat's own unit u holds waits until that one has acted (each acts once a
    round), so it still acts in the round."""
    s = seat * U + u
    o = (1 - seat) * U + u
    can = (np.int64(can_act(w, cols, b, s, seat)) << s) | (np.int64(can_act(w, cols, b, o, seat)) << o)
    return block_slot(can, seat, u)


@njit(cache=True, inline='always')
def block_slot(can, seat, u):
    """``acting_slot`` off ``can`` (bit s: slot s can act for ``seat``, ``can_act``): the slot
    entry block u names, -1 if none. The legal table finds every slot's bit in one pass."""
    s = seat * U + u
    if can >> s & 1:
        return s
    o = (1 - seat) * U + u
    if can >> o & 1:
        return o
    return -1


@kernel
def legal_move(w, cols, f, b, s, h, occ, steps, prev, frontier, dcols):
    """hex.md "A unit may move a number of hexes up to its Movement value."; "A rooted unit
    cannot move."; NULL movement "cannot move on its own"; the move ends on an empty hex (hex.md
    "units cannot occupy the same hex as other units at the end of the turn") or on an enemy's
    hex its trample empties (``trample_kills``, I-23). ``dcols``: the damage stages' column table
    (``work.Work.dcols``)."""
    w_i16 = w.i16
    mv = prop(w, cols, f, b, s, S_MOVEMENT)
    if mv < 1 or w_i16[cols[ROOTED], b, s] > 0:
        return False
    if occ[h] >= 0 and not trample_kills(w, cols, f, b, s, occ[h], dcols):
        return False
    reach(w, cols, f, b, s, occ, steps, prev, frontier)
    return steps[h] <= mv


@njit(cache=True, inline='always')
def trample_x(w, cols, f, b, s):
    """The damage unit s deals entering an enemy's hex: hex-keywords.md "Trample X – ... those
    enemy units take X physical damage." (its own keyword, 0 while broken); "Flying units cannot
    trample." (I-24: 0)."""
    return 0 if has(w, cols, f, b, s, FLYING) else number(w, cols, b, s, TRAMPLE)


@njit(cache=True, inline='always')
def returns_on_death(w, cols, f, b, s):
    """hex-keywords.md "Undying – When this unit dies, if it is not #undead, return it to the
    battlefield exhausted in its last hex" (``turn.settle``)."""
    return has(w, cols, f, b, s, UNDYING) and not w.flags[cols[UNDEAD], b, s]


@kernel
def trample_kills(w, cols, f, b, s, o, dcols):
    """I-23: unit s's move may end on the hex of unit o when o is an enemy it may trample
    (hex.md "Steadfast – This unit cannot be charged or trampled.") and the trample's X physical
    through the damage pipeline leaves o below 1 health (hex.md "If a unit's health is reduced to
    less than 1, it dies"), o not coming back (Undying returns it to that hex: the hex stays
    taken). The forecast is ``pipeline.health_after``: the stages' own arithmetic, nothing
    written, for the one entry a shortest path makes into its last hex (``work.walk``)."""
    x = trample_x(w, cols, f, b, s)
    if x <= 0 or w.i16[cols[CONTROLLER], b, o] == w.i16[cols[CONTROLLER], b, s] or has(w, cols, f, b, o, STEADFAST):
        return False
    return health_after(w, b, s, o, x, PHYSICAL, dcols) < 1 and not returns_on_death(w, cols, f, b, o)


@njit(cache=True, inline='always')  # asked once a unit by the legal table
def may_attack(w, cols, f, b, s):
    """hex.md "A missing value (null) means that the unit cannot attack"; "A disarmed unit cannot
    attack"; hex-keywords.md "Defender – This unit cannot attack."."""
    w_i16 = w.i16
    return (prop(w, cols, f, b, s, S_POWER) != NULL and w_i16[cols[DISARMED], b, s] == 0
            and not has(w, cols, f, b, s, DEFENDER))


@kernel
def in_attack_range(w, cols, f, b, s, at, t):
    """From hex ``at``, whether unit s reaches the unit on hex t: melee (Range NULL) adjacent
    with a movement point and not rooted (H11.4.1, I-19); ranged within Range (I-18, also at
    distance 1)."""
    w_i16 = w.i16
    rng = prop(w, cols, f, b, s, S_RANGE)
    d = DIST[at, t]
    if rng == NULL:
        return d == 1 and prop(w, cols, f, b, s, S_MOVEMENT) >= 1 and w_i16[cols[ROOTED], b, s] == 0
    return d <= rng


@kernel
def legal_attack(w, cols, f, b, s, t, occ):
    """An attack on the enemy on hex t from where s stands (spec §2.7 Attack)."""
    w_i16 = w.i16
    o = occ[t]
    if o < 0 or w_i16[cols[CONTROLLER], b, o] == w_i16[cols[CONTROLLER], b, s] or not may_attack(w, cols, f, b, s):
        return False
    return in_attack_range(w, cols, f, b, s, w_i16[cols[POS], b, s], t)


@kernel
def legal_charge(w, cols, f, b, s, t, a, occ, steps, prev, frontier):
    """hex.md "Charging – This unit can move and attack in a single action."; "The attack must be
    declared before movement occurs."; "Steadfast – This unit cannot be charged"; I-22: >= 1 hex
    moved to an empty hex, and a melee charger keeps a movement point for the attack."""
    w_i16 = w.i16
    if w_i16[cols[ROOTED], b, s] > 0 or prop(w, cols, f, b, s, S_MOVEMENT) < 1:
        return False
    reach(w, cols, f, b, s, occ, steps, prev, frontier)
    return charge_from(w, cols, f, b, s, t, a, occ, steps)


@kernel
def charge_from(w, cols, f, b, s, t, a, occ, steps):
    """``legal_charge`` with ``steps`` already filled by ``reach`` for unit s (the mask asks it
    for every target and approach hex: one search per unit, not one per pair)."""
    w_i16 = w.i16
    o = occ[t]
    if not has(w, cols, f, b, s, CHARGING) or o < 0 or has(w, cols, f, b, o, STEADFAST):
        return False
    if w_i16[cols[CONTROLLER], b, o] == w_i16[cols[CONTROLLER], b, s] or not may_attack(w, cols, f, b, s):
        return False
    if occ[a] >= 0 or steps[a] < 1:
        return False
    mv = prop(w, cols, f, b, s, S_MOVEMENT)
    rng = prop(w, cols, f, b, s, S_RANGE)
    if rng == NULL:
        return steps[a] <= mv - 1 and DIST[a, t] == 1
    return steps[a] <= mv and DIST[a, t] <= rng


@kernel
def legal_ability(w, cols, f, b, s, k, t, occ):
    """hex.md "A silenced unit cannot use active abilities."; "Abilities with a mana cost will
    state the mana required"; a legal target in cast range (H10.3.3.3; I-44: no range =
    infinite); once per round per unit (I-43)."""
    w_i16 = w.i16
    f_abil = f.abil
    if k >= f_abil.shape[2] or not ability_ready(w, cols, f, b, s, k):
        return False
    if f_abil[b, s, k, A_EMPTY_HEX] and occ[t] >= 0:
        return False  # hex.md "Relocate – A relocated unit is moved directly to another hex" (an empty one)
    return target_ok(w, cols, b, s, f_abil[b, s, k, A_TARGET], ability_reach(w, cols, f, b, s, k),
                     w_i16[cols[POS], b, s], t, occ)


@njit(cache=True, inline='always')  # asked for each of a unit's 6 ability rows at every decision
def ability_ready(w, cols, f, b, s, k):
    """The ability is there, the unit is not silenced, has the mana, and did not use it this
    round if it is once per round (``legal_ability`` without the target)."""
    w_i16 = w.i16
    f_g = f.g
    f_abil = f.abil
    if f_abil[b, s, k, A_PRESENT] == 0 or w_i16[cols[SILENCED], b, s] > 0:
        return False
    cost = np.int64(f_abil[b, s, k, A_COST])
    mana = np.int64(w_i16[cols[MANA], b, s])
    if cost > 0 and (mana == NULL or mana < cost):
        return False
    if f_abil[b, s, k, A_MOVES_SELF] and w_i16[cols[ROOTED], b, s] > 0:
        return False  # hex.md "Since relocation involves movement, it is prevented by root effects."
    once = f_abil[b, s, k, A_ONCE]
    if once == ONCE_BATTLE:  # hex.md "If an ability says that it can only be used once per round or per battle"
        return f_abil[b, s, k, A_USED] == 0
    return not (once == ONCE_ROUND and f_abil[b, s, k, A_USED] == f_g[b, ROUND])


@njit(cache=True, inline='always')  # asked for each of a unit's 6 ability rows by the legal table
def ability_reach(w, cols, f, b, s, k):
    """The ability's cast range as the rules read it (hex.md "Modifying a unit's cast range
    modifies the cast range of all of that unit's abilities."; INFINITE stays)."""
    w_i16 = w.i16
    f_abil = f.abil
    reach_ = np.int64(f_abil[b, s, k, A_CAST_RANGE])
    if reach_ != INFINITE:
        reach_ = modified(f, b, s, S_CAST_RANGE, reach_, w_i16[cols[RANGE], b, s] != NULL)
    return reach_


@kernel
def target_ok(w, cols, b, s, target, reach_, here, t, occ):
    """Hex t is a legal target of kind ``target`` within ``reach_`` of ``here`` for unit s."""
    w_i16 = w.i16
    if target == T_SELF or target == T_NONE:
        return t == here  # no target: the one entry is the acting unit's own hex
    if DIST[here, t] > reach_:
        return False
    return target_entry(w, cols, b, w_i16[cols[CONTROLLER], b, s], target, False, occ[t])


@njit(cache=True, inline='always')
def target_entry(w, cols, b, seat, target, empty, o):
    """An ability's entry on a hex within its cast range whose occupant is ``o`` (-1: none), for a
    unit of ``seat`` (``target_ok``'s test of the hex; ``empty``: a relocation needs an
    empty hex)."""
    w_i16 = w.i16
    if target == T_HEX:
        return not empty or o < 0
    if o < 0:
        return False
    ally = w_i16[cols[CONTROLLER], b, o] == seat
    if target == T_ENEMY:
        return not ally
    if target == T_ALLY:
        return ally
    return target == T_UNIT


V = 10  # SKIP, MOVE, ATTACK, CHARGE, ABILITY_0..5 (spec §6)
SKIP, MOVE, ATTACK, CHARGE, ABILITY_0 = 0, 1, 2, 3, 4
U = 16  # a side's unit slots


kernel_cache.check("battle", [v for v in list(globals().values()) if hasattr(v, "py_func") and v.__module__ == __name__])

"""The round's own phases, compiled, one game at a time (issue 13; docs/compiled-core.md "The
round's phases"). Each function is the twin of one numpy system and cites the same lanes.md
sentence:

| compiled | numpy twin |
|---|---|
| ``creep_spawn`` | ``CreepSpawn`` (round_start.py, over ``board.spawn``) |
| ``hero_availability`` | ``HeroAvailability`` (round_start.py) |
| ``draw`` | ``DrawPhase`` (round_start.py, over ``hand.draw_cards``) |
| ``refresh_resources`` | ``RefreshResources`` (round_start.py) |
| ``victory_check`` | ``VictoryCheck`` (victory.py) |
| ``objective_snapshot`` | ``ObjectiveSnapshot`` (measures.py) |
| ``round_end`` | ``RoundEnd`` (victory.py) |
| ``fire_round_trigger`` | ``fire_all`` (round_start.py): pushes events, the interpreter runs them |

Every function is ``f(st, f, cols, b)``: ``st`` the ``WorldState`` (the World's own component
buffers, ``alive``, ``serial``, ``params``), ``f`` the per-game fields (``RoundFields``, the
World's own arrays by name, plus ``active`` and the next entity serial), ``cols``
(``round_columns``): the component rows, presence rows, catalog rows, parameter indices and the
ruleset's codes, as one argument, never module globals of another file (a plugin set may move a
column; numba checks only this file for staleness). A game that has ended (``active[b]`` False)
is left alone, as each numpy system filters by ``w.active``.

What stays on the Python side (the round triggers are events for the interpreter, below): ``victory_check`` and
``round_end`` return True when they end the game, and the caller dispatches ``lanes.game_over``
for the replay log (numpy's ``finish`` does it inside); ``creep_spawn`` returns ``NO_SLOT`` when a
game has no free entity slot and the caller raises ``SlotsExhausted`` naming the seed. The World's
Python bookkeeping (``World.version``, ``World.changes`` counters) is not touched: a creep gets no
tracked component (the only one tracked is ``aura``, which creeps never carry).

No reference counting (``_nrt=False``): the kernels allocate nothing (legal.py's note).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from battlesim.ecs.compiled.events import push_event_ctx
from battlesim.ecs.compiled.world_view import ViewError, WorldView
from battlesim.systems.lanes.compiled.board import allocate

# positions in ``cols``: component rows (group, as the view files them)
CARD_ID, OWNER, FACTION, ATTACK, HEALTH, MAX_HEALTH, LANE, POS, CREEP, ESSENCE, RUINED = range(11)
_COMPONENTS = (("card_id", "i16"), ("owner", "i8"), ("faction", "i8"), ("attack", "i16"), ("health", "i16"),
               ("max_health", "i16"), ("lane", "i8"), ("pos", "i8"), ("creep", "flags"), ("essence", "flags"),
               ("ruined", "flags"))
# presence rows (``st.flags``) of the components a spawn gives, -1 when the component has no mask
PR_CARD_ID, PR_OWNER, PR_FACTION, PR_ATTACK, PR_HEALTH, PR_MAX_HEALTH, PR_LANE, PR_POS = range(11, 19)
C_FACTION = 19  # catalog row
# parameter indices (``st.params``)
P_LANES, P_STARTING_HAND, P_DRAW_PER_ROUND, P_RESOURCES_START, P_RESOURCES_CAP, P_ROUND_LIMIT, P_ESSENCE_HP, \
    P_CREEP_ATTACK, P_CREEP_HEALTH = range(20, 29)
_PARAMS = ("lanes", "starting_hand", "draw_per_round", "resources_start", "resources_cap", "round_limit",
           "essence_hp", "creep_attack", "creep_health")
# codes: the empty cell, hero states, end reasons, the snapshot round
EMPTY, LOCKED, READY, DEAD, TWO_ANCHORS, LANE_DESTROYED, ROUND_LIMIT, SIMULTANEOUS, SNAPSHOT_ROUND = range(29, 38)
ANCHOR, IMPROVEMENT, N_COLS = range(38, 41)  # more component rows (flags), read by ``fire_round_trigger``
ROUND_TRIGGERS = ("start_of_round", "end_of_round")

NO_SLOT = 1  # creep_spawn's status when a game has no free entity slot (0: done)


class RoundFields(NamedTuple):
    """The per-game arrays the round's phases read and write (the World's own, no copy)."""

    active: np.ndarray  # bool[B]: the game is unfinished (``w.active``)
    next_serial: np.ndarray  # int32[B]: the serial the next entity gets (``w._next_serial``)
    round: np.ndarray  # int16[B]
    board: np.ndarray  # int16[B, 2, L, P]
    creep_card: np.ndarray  # int16[B, 2]
    hero_status: np.ndarray  # int8[B, 2, K]
    hero_ready_round: np.ndarray  # int16[B, 2, K]
    deck: np.ndarray  # int16[B, 2, D]
    deck_size: np.ndarray  # int16[B, 2]
    deck_top: np.ndarray  # int16[B, 2]
    hand: np.ndarray  # int16[B, 2, H]
    hand_src: np.ndarray  # int16[B, 2, H]
    burned: np.ndarray  # int16[B, 2]
    card_drawn: np.ndarray  # int16[B, 2, D]
    resources: np.ndarray  # int16[B, 2]
    max_resources: np.ndarray  # int16[B, 2]
    winner: np.ndarray  # int8[B]
    end_reason: np.ndarray  # int8[B]
    rounds: np.ndarray  # int16[B]
    objective_hp_snapshot: np.ndarray  # int32[B, 2]


def round_fields(w: Any, view: WorldView) -> RoundFields:
    """The ``RoundFields`` of World ``w`` (its own arrays, no copy)."""
    return RoundFields(w.active, w._next_serial, *(view.g[name] for name in RoundFields._fields[2:]))


def round_columns(view: WorldView) -> np.ndarray:
    """``int64[N_COLS]``: the ``cols`` argument of the round's phases for this World (``view``).
    A component filed in another group than the kernels read it from is an error, not a wrong read."""
    from battlesim.systems.lanes import board, state
    from battlesim.systems.lanes.measures import SNAPSHOT_ROUND as SNAP
    from battlesim.systems.lanes.victory import LANE_DESTROYED as LD
    from battlesim.systems.lanes.victory import ROUND_LIMIT as RL
    from battlesim.systems.lanes.victory import SIMULTANEOUS as SIM
    from battlesim.systems.lanes.victory import TWO_ANCHORS as TA

    out = np.zeros(N_COLS, dtype=np.int64)
    for k, (name, group) in enumerate(_COMPONENTS):
        got = view.columns.get(name)
        if got is None or got[0] != group:
            raise ViewError(f"component {name!r} is {got and got[0]}, the compiled round phases read it as {group}")
        out[k] = got[1]
    for k, (name, _) in enumerate(_COMPONENTS[:8]):
        out[PR_CARD_ID + k] = view.presence.get(name, -1)
    if "faction" not in view.cat_rows:
        raise ViewError("the catalog has no column 'faction'")
    out[C_FACTION] = view.cat_rows["faction"]
    for k, name in enumerate(_PARAMS):
        if name not in view.param_index:
            raise ViewError(f"the ruleset has no parameter {name!r}")
        out[P_LANES + k] = view.param_index[name]
    out[EMPTY:ANCHOR] = (board.EMPTY, state.LOCKED, state.READY, state.DEAD, TA, LD, RL, SIM, SNAP)
    for k, name in ((ANCHOR, "anchor"), (IMPROVEMENT, "improvement")):
        got = view.columns.get(name)
        if got is None or got[0] != "flags":
            raise ViewError(f"component {name!r} is {got and got[0]}, the compiled round phases read it as flags")
        out[k] = got[1]
    return out


def round_trigger_rows(w: Any) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """The per-card rows ``listens.<trigger>`` (1 for the cards ``w.cache[trigger]`` lists, as
    ``fire_all`` reads it; none when no card has the trigger) and the numbers ``trigger.<trigger>``
    (its id) of the round triggers: ``world_view(w, extra_cards=..., extra_params=...)``."""
    from battlesim.systems.lanes.vocabulary import EXECUTOR

    n = len(w.catalog)
    cards, params = {}, {}
    for trigger in ROUND_TRIGGERS:
        listen = w.cache.get(trigger)
        cards[f"listens.{trigger}"] = np.zeros(n, np.int64) if listen is None else np.asarray(listen, np.int64)
        params[f"trigger.{trigger}"] = EXECUTOR.id("trigger", trigger)
    return cards, params


@njit(cache=False, _nrt=False)
def _spawn_creep(st, f, cols, b, side, lane, pos) -> bool:
    """``board.spawn(..., creep=True)`` for one game: the first free slot (``board.allocate``),
    the creep's card, owner, faction, the ruleset's creep stats, lane and position (``World.add``,
    with their presence masks), the Creep tag, the board cell. False when no slot is free."""
    slot = allocate(st, f, b)
    if slot < 0:
        return False
    card = f.creep_card[b, side]
    hp = st.params[cols[P_CREEP_HEALTH]]
    st.i16[cols[CARD_ID], b, slot] = card
    st.i8[cols[OWNER], b, slot] = side
    st.i8[cols[FACTION], b, slot] = st.cat[cols[C_FACTION], card]
    st.i16[cols[ATTACK], b, slot] = st.params[cols[P_CREEP_ATTACK]]
    st.i16[cols[HEALTH], b, slot] = hp
    st.i16[cols[MAX_HEALTH], b, slot] = hp
    st.flags[cols[CREEP], b, slot] = True
    st.i8[cols[LANE], b, slot] = lane
    st.i8[cols[POS], b, slot] = pos
    for k in range(PR_CARD_ID, PR_POS + 1):
        if cols[k] >= 0:
            st.flags[cols[k], b, slot] = True
    f.board[b, side, lane, pos] = slot
    return True


@njit(cache=False, _nrt=False)
def creep_spawn(st, f, cols, b) -> int:
    """lanes.md "Creep Spawning": "Each player spawns 1 creep per lane (3 total per player)";
    "Creeps spawn at the leftmost empty position in each lane"; "If a lane is full, the creep for
    that lane is skipped". Side 0's lanes, then side 1's, as numpy allocates (the serials follow).
    Returns 0, or ``NO_SLOT`` when the game has no free entity slot (the caller names the seed)."""
    if not f.active[b]:
        return 0
    P = f.board.shape[3]
    for side in range(2):
        for lane in range(st.params[cols[P_LANES]]):
            for pos in range(P):
                if f.board[b, side, lane, pos] == cols[EMPTY]:
                    if not _spawn_creep(st, f, cols, b, side, lane, pos):
                        return NO_SLOT
                    break
    return 0


@njit(cache=True, _nrt=False)
def hero_availability(st, f, cols, b) -> None:
    """lanes.md "Hero Deployment Phase": deck slots 1-3 are available in round 1, slot 4 in round
    2, slot 5 in round 3; a dead hero: "At the start of the following round, the hero becomes
    available for redeployment" (its ready round reached)."""
    if not f.active[b]:
        return
    rnd = f.round[b]
    for side in range(2):
        for k in range(f.hero_status.shape[2]):
            status = f.hero_status[b, side, k]
            unlock = status == cols[LOCKED] and max(1, k - 1) <= rnd
            respawn = status == cols[DEAD] and f.hero_ready_round[b, side, k] <= rnd
            if unlock or respawn:
                f.hero_status[b, side, k] = cols[READY]


@njit(cache=True, _nrt=False)
def draw_cards(f, b, seat, count) -> None:
    """``hand.draw_cards`` for one game and seat: top of the deck to the first free hand slot,
    ``count`` times; an empty deck draws nothing; a full hand burns the card (ledger)."""
    H = f.hand.shape[2]
    for _ in range(count):
        top = f.deck_top[b, seat]
        if top >= f.deck_size[b, seat]:
            return
        card = f.deck[b, seat, top]
        f.deck_top[b, seat] = top + 1
        f.card_drawn[b, seat, top] = f.round[b]
        for h in range(H):
            if f.hand[b, seat, h] < 0:
                f.hand[b, seat, h] = card
                f.hand_src[b, seat, h] = top
                break
        else:
            f.burned[b, seat] += 1


@njit(cache=True, _nrt=False)
def draw(st, f, cols, b) -> None:
    """lanes.md: "Draw Phase - Draw 1 card"; in round 1, "After hero deployment, players draw
    their starting hand of 5 cards" (ledger: the starting hand replaces round 1's draw)."""
    if not f.active[b]:
        return
    if f.round[b] == 1:
        count = st.params[cols[P_STARTING_HAND]]
    else:
        count = st.params[cols[P_DRAW_PER_ROUND]]
    for seat in range(2):
        draw_cards(f, b, seat, count)


@njit(cache=True, _nrt=False)
def refresh_resources(st, f, cols, b) -> None:
    """lanes.md "Resource System": round 1 has 3, +1 per round, cap 10; "Resources fully refill
    at round start"; "Unspent resources are lost at round end"."""
    if not f.active[b]:
        return
    mx = min(st.params[cols[P_RESOURCES_START]] + np.int64(f.round[b]) - 1, st.params[cols[P_RESOURCES_CAP]])
    for seat in range(2):
        f.max_resources[b, seat] = mx
        f.resources[b, seat] = mx


@njit(cache=True, _nrt=False)
def _finish(f, b, winner, reason) -> None:
    """victory.py's ``finish`` for one game, without the ``lanes.game_over`` event (the caller's)."""
    f.winner[b] = winner
    f.end_reason[b] = reason
    f.rounds[b] = f.round[b]
    f.active[b] = False


@njit(cache=True, _nrt=False)
def victory_check(st, f, cols, b) -> bool:
    """lanes.md "Win Condition": "Win by either: Destroying 2 anchors across 2 different lanes, OR
    Destroying 1 anchor AND its essence in the same lane"; "After all lanes resolve, check win
    condition". Both sides at once is a draw (ledger). True when the game ended here."""
    if not f.active[b]:
        return False
    L = st.params[cols[P_LANES]]
    f0 = r0 = f1 = r1 = 0
    for lane in range(L):
        for side in range(2):
            slot = side * L + lane
            es = st.flags[cols[ESSENCE], b, slot]
            ru = st.flags[cols[RUINED], b, slot]
            if side == 0:
                f0 += es or ru
                r0 += ru
            else:
                f1 += es or ru
                r1 += ru
    wins0 = f1 >= 2 or r1 >= 1  # side 0 wins when side 1's objectives are down
    wins1 = f0 >= 2 or r0 >= 1
    if wins0 and wins1:
        _finish(f, b, -1, cols[SIMULTANEOUS])
        return True
    if wins0 or wins1:
        winner = 0 if wins0 else 1
        lane_down = (r1 if winner == 0 else r0) >= 1
        _finish(f, b, winner, cols[LANE_DESTROYED] if lane_down else cols[TWO_ANCHORS])
        return True
    return False


@njit(cache=True, _nrt=False)
def objective_snapshot(st, f, cols, b) -> None:
    """Measures (not rules; measures.py): at the end of round ``SNAPSHOT_ROUND``, each side's
    objective HP (anchor HP left plus the full essence behind a standing anchor, the essence's HP
    once the anchor has fallen, 0 for a destroyed lane; ledger "Interpretations")."""
    if not f.active[b] or f.round[b] != cols[SNAPSHOT_ROUND]:
        return
    L = st.params[cols[P_LANES]]
    for side in range(2):
        total = 0
        for lane in range(L):
            slot = side * L + lane
            hp = max(np.int64(st.i16[cols[HEALTH], b, slot]), 0)
            if st.flags[cols[RUINED], b, slot]:
                continue
            if st.flags[cols[ESSENCE], b, slot]:
                total += hp
            else:
                total += hp + st.params[cols[P_ESSENCE_HP]]
        f.objective_hp_snapshot[b, side] = total


@njit(cache=True, _nrt=False)
def round_end(st, f, cols, b) -> bool:
    """Closes the round: a game still running after ``round_limit`` rounds is a draw with reason
    ``round_limit`` (victory.py); then the round counter of a running game goes up. True when the
    game ended here."""
    if not f.active[b]:
        return False
    ended = False
    if f.round[b] >= st.params[cols[P_ROUND_LIMIT]]:
        _finish(f, b, -1, cols[ROUND_LIMIT])
        ended = True
    else:
        f.round[b] += 1
    return ended


@njit(cache=False, _nrt=False)
def fire_round_trigger(st, f, cols, b, trigger, listens) -> None:
    """``round_start.fire_all`` for one game, at the trigger boundary: lanes.md "Start of Round -
    Triggers at the beginning of each round" and "End of Round - Triggers at end of round". One
    event per live unit or improvement (not an anchor) whose card listens (``st.cat[listens]``),
    in slot order as numpy's rows are: ``TRIGGER`` (``trigger``, the id), ``CARD``, ``SOURCE``,
    ``SERIAL``, ``OTHER`` -1, ``OWNER``, ``LANE``, ``POS``, ``CASTER`` (the source), ``CHOSEN`` -1 and
    numpy's ``chosen_lane`` (the lane for an improvement, else -1; ``push_event_ctx``).
    ``cache=False``: it calls ``ecs/compiled/events.py``."""
    if not f.active[b]:
        return
    for s in range(st.alive.shape[1]):
        card = st.i16[cols[CARD_ID], b, s]
        if card < 0 or not st.alive[b, s] or st.flags[cols[ANCHOR], b, s] or st.cat[listens, card] == 0:
            continue
        lane = st.i8[cols[LANE], b, s]
        push_event_ctx(st.events, st.nevents, b, trigger, card, s, st.serial[b, s], -1, st.i8[cols[OWNER], b, s],
                       lane, st.i8[cols[POS], b, s], s, -1, lane if st.flags[cols[IMPROVEMENT], b, s] else -1)

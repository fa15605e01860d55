"""The scratch of the compiled hex battle and what every action is built from: the damage queue
resolved through the pipeline and deaths settled with the cards table's bookkeeping (``resolve``,
``deal``, ``bury``), paths and walking (trample on the way), heal, push and pull.

Every function takes ``(w, cols, f, k, b, ...)``: the World as kernels see it, the column table,
the per-game fields (``HexFields``), the scratch ``Work`` (damage queue, per-thread buffers) and
the game. ``apply.py`` builds the actions on these.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from battlesim.ecs.compiled.damage_queue import AMOUNT, DEALT, KIND, OK, SOURCE, TARGET, new_queue, push
from battlesim.systems.hex import kernel_cache
from battlesim.systems.hex.battle import FAR, U, V, reach_within, stand, trample_x
from battlesim.systems.hex.board import AWAY, DIST, LINE, N_HEXES, TOWARD
from battlesim.systems.hex.damage_stages import PHYSICAL
from battlesim.systems.hex.kernel_cache import kernel
from battlesim.systems.hex.pipeline import run_damage
from battlesim.systems.hex.state import (
    ACTIONS,
    CONTROLLER,
    HEALTH,
    MAX_HEALTH,
    OVERHEATED,
    POS,
    ROOTED,
    ROUND,
    SIDE,
    SUMMONED,
)
from battlesim.systems.hex.turn import (
    settle,
)

QUEUE = 64
TOP = 4  # the most entries an agent ranks at once (``agents.best_entries``: the lookahead agent's candidates)
DIED, KILLS = 0, 1  # stats fields
N_STATS = 2
LOG_FIELDS = ("source", "target", "kind", "pushed", "after", "dealt")
NLF = len(LOG_FIELDS)
# return codes of the actions (0 = done); the scenario runner turns them into its "not legal" line


class Work(NamedTuple):
    """Scratch of one thread: the damage queue of the batch (rows per game), the stage column
    table, and per-thread buffers (deaths' ``returned``, reachability, a path, and the
    damage log a replay prints: ``log[i]`` = LOG_FIELDS, ``nlog[0]`` rows; a 0-row log logs nothing;
    ``killer``/``was`` for deaths), and ``stats[b, slot]`` = (round it died, 0: alive; kills), the
    cards table's columns, per game. The agents' scratch (a decision allocates nothing):
    ``threat`` (a hex's threat), ``hit`` (an effect's units), ``scores`` and ``cand`` (the best
    entries found, best first: the lookahead's candidates) and ``pick`` (greedy's one entry, apart
    from ``cand`` because the lookahead asks greedy for replies while it walks its candidates);
    the legal table's: ``frontier`` (a search's queue), ``approach`` (a charger's approach hexes)
    ``counts`` (legal entries per unit) and ``rows`` (the table as a hex set per unit and verb:
    ``legal.legal_rows``)."""

    queue: np.ndarray
    qlen: np.ndarray
    stack: np.ndarray
    dcols: np.ndarray
    returned: np.ndarray
    steps: np.ndarray
    prev: np.ndarray
    path: np.ndarray
    pre: np.ndarray
    log: np.ndarray
    nlog: np.ndarray
    killer: np.ndarray
    was: np.ndarray
    stats: np.ndarray
    threat: np.ndarray
    hit: np.ndarray
    scores: np.ndarray
    cand: np.ndarray
    pick: np.ndarray
    frontier: np.ndarray
    approach: np.ndarray
    counts: np.ndarray
    rows: np.ndarray


def new_work(n_games: int, n_slots: int, dcols: np.ndarray, shared: Work | None = None, log: int = 0) -> Work:
    """A thread's scratch; threads of one batch share the queue and stats of ``shared`` (their
    games' rows are disjoint)."""
    if shared is None:
        q = new_queue(n_games, QUEUE)
        stats = np.zeros((n_games, n_slots, N_STATS), dtype=np.int64)
    else:
        q = (shared.queue, shared.qlen, shared.stack)
        stats = shared.stats
    e = lambda: np.zeros(N_HEXES, dtype=np.int64)
    return Work(q[0], q[1], q[2], dcols, np.zeros(n_slots, dtype=np.int64), e(), e(), e(),
                np.zeros(QUEUE + 1, dtype=np.int64), np.zeros((log, NLF), dtype=np.int64), np.zeros(1, dtype=np.int64),
                np.full(n_slots, -1, dtype=np.int64), np.zeros(n_slots, dtype=np.int64), stats,
                np.zeros(N_HEXES, dtype=np.float64), np.zeros(n_slots, dtype=np.int64), np.zeros(TOP, dtype=np.float64),
                np.zeros(TOP, dtype=np.int64), np.zeros(1, dtype=np.int64), e(), np.zeros(N_HEXES, dtype=np.bool_),
                np.zeros(U, dtype=np.int64), np.zeros((U, V), dtype=np.uint64))


@kernel
def bury(w, cols, f, k, b):
    """Deaths settled (``turn.settle``), and for the cards table each unit that died now: the
    round (``stats[.., DIED]``) and a kill for the enemy whose damage brought it below 1 (the
    last such instance; none for status damage, a push off the map or a sacrifice, nor for a
    summoned unit, which is no card of the table: I-45)."""
    w_i16 = w.i16
    w_flags = w.flags
    w_alive = w.alive
    f_g = f.g
    k_returned = k.returned
    k_killer = k.killer
    k_was = k.was
    k_stats = k.stats
    for s in range(w_alive.shape[1]):
        k_was[s] = w_alive[b, s]
    settle(w, cols, f, b, k_returned)
    for s in range(w_alive.shape[1]):
        if k_was[s] and not w_alive[b, s]:
            k_stats[b, s, DIED] = f_g[b, ROUND]
            o = k_killer[s]
            if o >= 0 and w_i16[cols[SIDE], b, o] != w_i16[cols[SIDE], b, s] and not w_flags[cols[SUMMONED], b, s]:
                k_stats[b, o, KILLS] += 1
        k_killer[s] = -1


@kernel
def resolve(w, cols, f, k, b, deaths):
    """Every queued damage instance through hex's pipeline, then deaths (hex.md "If a unit's
    health is reduced to below 1, the unit dies") unless ``deaths`` is False: a simultaneous
    instance still to come (Counterstrike) settles them."""
    w_i16 = w.i16
    k_queue = k.queue
    k_qlen = k.qlen
    k_stack = k.stack
    k_dcols = k.dcols
    k_pre = k.pre
    k_log = k.log
    k_nlog = k.nlog
    k_killer = k.killer
    n0 = min(k_qlen[b], k_pre.shape[0])
    for i in range(n0):
        k_pre[i] = k_queue[b, i, AMOUNT]
    status = run_damage(w, b, k_queue, k_qlen, 0, k_dcols, k_stack)
    if status != OK:
        raise RuntimeError("hex damage pipeline stopped (reactions too deep or queue full)")
    for i in range(k_qlen[b]):
        t = k_queue[b, i, TARGET]
        if k_queue[b, i, SOURCE] >= 0 and w_i16[cols[HEALTH], b, t] < 1 and k_queue[b, i, AMOUNT] > 0:
            k_killer[t] = k_queue[b, i, SOURCE]
        n = k_nlog[0]
        if n < k_log.shape[0]:
            k_log[n, 0] = k_queue[b, i, SOURCE]
            k_log[n, 1] = k_queue[b, i, TARGET]
            k_log[n, 2] = k_queue[b, i, KIND]
            k_log[n, 3] = k_pre[i] if i < n0 else -1
            k_log[n, 4] = k_queue[b, i, AMOUNT]
            k_log[n, 5] = k_queue[b, i, DEALT]
            k_nlog[0] = n + 1
    k_qlen[b] = 0
    if deaths:
        bury(w, cols, f, k, b)


@kernel
def deal(w, cols, f, k, b, source, target, amount, kind):
    k_queue = k.queue
    k_qlen = k.qlen
    push(k_queue, k_qlen, b, source, target, amount, kind)
    resolve(w, cols, f, k, b, True)


@njit(cache=True, inline='always')  # on every decision's path: see docs/hex-speed.md step 13
def path_to(w, cols, f, k, b, s, h):
    """Into ``k_path``: the hexes entered on a shortest path to h (lowest id at forks: I-23); its
    length. The search stops at h (``battle.reach_within``'s goal), not at the map's end: a path needs
    no more."""
    w_i16 = w.i16
    k_occ = f.board[b]
    k_steps = k.steps
    k_prev = k.prev
    k_path = k.path
    k_pre = k.pre
    reach_within(w, cols, f, b, s, k_occ, k_steps, k_prev, k.frontier, FAR, h)
    here = w_i16[cols[POS], b, s]
    n = 0
    x = h
    while x != here and x >= 0:
        k_pre[n] = x
        n += 1
        x = k_prev[x]
    for i in range(n):
        k_path[i] = k_pre[n - 1 - i]
    return n


@njit(cache=True, inline='always')  # on every decision's path: see docs/hex-speed.md step 13
def walk(w, cols, f, k, b, s, path, n):
    """Move s along ``path[:n]``; each entry into an enemy's hex deals the trampler's X physical
    (hex.md "Trample X – ... deals X damage to each enemy unit in the hexes it moves through";
    I-23: the same hex again too; I-24: a flying unit moves over them and never tramples)."""
    w_i16 = w.i16
    w_alive = w.alive
    k_occ = f.board[b]
    x = trample_x(w, cols, f, b, s)
    for i in range(n):
        if x > 0:
            o = k_occ[path[i]]
            if o >= 0 and o != s and w_i16[cols[CONTROLLER], b, o] != w_i16[cols[CONTROLLER], b, s]:
                deal(w, cols, f, k, b, s, o, x, PHYSICAL)
        if not w_alive[b, s]:
            return
    if n > 0:
        stand(w, cols, f, b, s, path[n - 1])


@njit(cache=True, inline='always')  # at every move: docs/hex-speed.md steps 16 and 20
def walk_to(w, cols, f, k, b, s, h):
    """Unit s moved to hex h along a shortest path (``path_to``), trampling on its way (``walk``).
    A unit that does not trample (``trample_x`` 0: no Trample, or Flying) meets nothing on its
    way: ``walk`` would only set its hex to the path's last, h. So it is put on h without the
    search (a move's path search was a fifth of a random decision: docs/hex-speed.md). Inlined,
    with the trampler's walk a call (``trample_to``): a call hands over the World, fields and
    scratch, more than this work."""
    if trample_x(w, cols, f, b, s) <= 0:
        if h != w.i16[cols[POS], b, s]:  # the path to its own hex is empty: it stays
            stand(w, cols, f, b, s, h)
        return
    trample_to(w, cols, f, k, b, s, h)


@kernel  # a call: inlined at each of its callers it multiplied the turn path's code (docs/hex-speed.md)
def trample_to(w, cols, f, k, b, s, h):
    """``walk_to`` of a unit that tramples: the shortest path searched, then walked."""
    k_path = k.path
    n = path_to(w, cols, f, k, b, s, h)
    walk(w, cols, f, k, b, s, k_path, n)


@njit(cache=True, inline='always')
def spend(w, cols, b, s):
    """hex.md "A unit that has no actions remaining is considered exhausted."."""
    w_i16 = w.i16
    w_i16[cols[ACTIONS], b, s] = max(w_i16[cols[ACTIONS], b, s] - 1, 0)


@kernel
def heal(w, cols, b, s, amount):
    """hex.md "Heal – Refers to the removal of damage from a unit." (up to max health); "An
    overheated unit cannot be healed"."""
    w_i16 = w.i16
    if w_i16[cols[OVERHEATED], b, s] == 0:
        w_i16[cols[HEALTH], b, s] = min(w_i16[cols[HEALTH], b, s] + amount, w_i16[cols[MAX_HEALTH], b, s])


@kernel
def displace(w, cols, f, k, b, s, source, amount, pull, path, npath):
    """hex.md "Pushed X – A unit that is pushed moves X hexes along the direction it is being
    pushed." (adjacent source: the line behind, I-4; else each step away, "Away From X");
    "Pulled X" along a shortest path; off the map = destroyed; a unit in the way stops it; a
    rooted unit does not move. ``npath`` >= 0: the hexes ``path[:npath]`` instead."""
    w_i16 = w.i16
    k_occ = f.board[b]
    if w_i16[cols[ROOTED], b, s] > 0:
        return
    at = np.int64(w_i16[cols[POS], b, s])
    prev_hex = np.int64(source)
    for n in range(amount):
        if npath >= 0:
            if n >= npath:
                break
            nxt = np.int64(path[n])
        elif pull:
            nxt = np.int64(TOWARD[source, at])
        elif DIST[prev_hex, at] == 1:
            nxt = np.int64(LINE[prev_hex, at])
        else:
            nxt = np.int64(AWAY[source, at])
        if nxt == source and pull:
            break
        if nxt == -1 and not pull:
            w_i16[cols[HEALTH], b, s] = 0  # pushed off the map: destroyed
            bury(w, cols, f, k, b)
            return
        if nxt < 0:
            break
        if k_occ[nxt] >= 0:
            break
        prev_hex, at = at, nxt
        stand(w, cols, f, b, s, at)


kernel_cache.check("work", [v for v in list(globals().values()) if hasattr(v, "py_func") and v.__module__ == __name__])

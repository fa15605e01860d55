"""The lookahead hex agent, compiled: greedy's best few entries of the battle table
(``agents.best_entries``, stream RNG_LOOKAHEAD), each played ahead on the game itself, the opponent's greedy reply played after it (and
the round's end events, with round 7's victory check, when the round ends on the way), the
position then scored, the game restored; the entry whose position scores best is taken.

Why this shape: greedy reads only the action in front of it, so it walks into the enemy's reach
and leaves kills to the reply; one ply of the opponent's greedy answer is the cheapest search that
sees those, and restoring one game's rows (a few kB) is cheaper than a second World. Why this
score: hex.md "the first player wins if they control the center hex" (else the second), so the
centre and who still has units to contest it decide - the same weights greedy puts on a kill,
on damage and on the centre (``position_score``).
"""

from __future__ import annotations

from numba import njit

from battlesim.systems.hex import kernel_cache
from battlesim.systems.hex.agents import best_entries, greedy_action, unit_value
from battlesim.systems.hex.apply import round_start
from battlesim.systems.hex.board import CENTRE_ID, DIST, N_HEXES
from battlesim.systems.hex.kernel_cache import kernel
from battlesim.systems.hex.legal import legal_rows
from battlesim.systems.hex.state import CONTROLLER, HEALTH, POS, ROUND, TO_ACT, WINNER
from battlesim.systems.hex.step import LOOKAHEAD, RNG_LOOKAHEAD, apply_action
from battlesim.systems.hex.turn import round_end
from battlesim.systems.hex.work import TOP  # greedy's best entries looked ahead at

WIN = 1000.0  # a decided game outweighs any position


@kernel
def position_score(w, cols, f, b, seat):
    """The position for ``seat``: a decided game is +-WIN; else, per unit (+ own, - the
    opponent's, by controller), 1.5 a point of health and 4x ``unit_value`` (greedy's damage and
    kill weights), greedy's centre value for a unit on (4, 3), and 0.8 a step for the side's unit
    nearest the centre (greedy's weight for closing in)."""
    w_i16 = w.i16
    w_alive = w.alive
    f_g = f.g
    win = f_g[b, WINNER]
    if win >= 0:
        return WIN if win == seat else -WIN
    centre = 6.0 + 2.0 * f_g[b, ROUND]
    score = 0.0
    near_mine, near_theirs = 99, 99
    for s in range(w_alive.shape[1]):
        if not w_alive[b, s]:
            continue
        mine = w_i16[cols[CONTROLLER], b, s] == seat
        sign = 1.0 if mine else -1.0
        h = w_i16[cols[POS], b, s]
        v = 1.5 * w_i16[cols[HEALTH], b, s] + 4.0 * unit_value(w, cols, b, s)
        if h == CENTRE_ID:
            v += centre
        score += sign * v
        if 0 <= h < N_HEXES:
            if mine:
                near_mine = min(near_mine, DIST[h, CENTRE_ID])
            else:
                near_theirs = min(near_theirs, DIST[h, CENTRE_ID])
    return score - 0.8 * near_mine + 0.8 * near_theirs


@kernel
def settle_round(w, cols, f, k, b):
    """No unit can act: the round's end events (round 7's victory check) and the next round's
    start, as the game loop runs them (``play.between_turns``)."""
    f_g = f.g
    if f_g[b, WINNER] < 0 and f_g[b, TO_ACT] < 0:
        round_end(w, cols, f, b)
        if f_g[b, WINNER] < 0:
            round_start(w, cols, f, k, b)


@njit(cache=True, _nrt=True)  # it saves game b's rows: allocates
def lookahead_action(w, cols, f, k, rng, b, seat, units):
    """Spec §6 decision by one ply of search: each of greedy's TOP entries applied to game b, the
    opponent's greedy reply if it is to act, ``position_score``; game b's rows (World, fields,
    board, cards-table stats, RNG counter, damage log length) restored after each. ``units``: the acting
    units' bits, ``k.rows`` the table (``legal.legal_rows``; built again for the reply)."""
    w_i16 = w.i16
    w_i8 = w.i8
    w_flags = w.flags
    w_alive = w.alive
    f_g = f.g
    f_mods = f.mods
    f_abil = f.abil
    f_board = f.board
    k_stats = k.stats
    k_nlog = k.nlog
    cand = k.cand
    best_entries(w, cols, f, k, rng, b, seat, units, RNG_LOOKAHEAD, cand)
    if cand[1] < 0:
        return cand[0]
    s_i16 = w_i16[:, b, :].copy()
    s_i8 = w_i8[:, b, :].copy()
    s_flags = w_flags[:, b, :].copy()
    s_alive = w_alive[b, :].copy()
    s_g = f_g[b, :].copy()
    s_mods = f_mods[b].copy()
    s_abil = f_abil[b].copy()
    s_board = f_board[b].copy()
    s_stats = k_stats[b].copy()
    s_rng = rng[b, :].copy()
    s_nlog = k_nlog[0]
    best = cand[0]
    best_score = -1e18
    for i in range(TOP):
        a = cand[i]
        if a < 0:
            break
        apply_action(w, cols, f, k, rng, b, seat, a, LOOKAHEAD)
        settle_round(w, cols, f, k, b)
        opp = f_g[b, TO_ACT]
        if f_g[b, WINNER] < 0 and opp == 1 - seat:
            opp_units = legal_rows(w, cols, f, k.rows, k.counts, k.dcols, b, opp)
            r = greedy_action(w, cols, f, k, rng, b, opp, opp_units, RNG_LOOKAHEAD)
            if r >= 0:
                apply_action(w, cols, f, k, rng, b, opp, r, LOOKAHEAD)
                settle_round(w, cols, f, k, b)
        score = position_score(w, cols, f, b, seat) - 0.001 * i  # ties: greedy's order
        if score > best_score:
            best_score = score
            best = a
        w_i16[:, b, :] = s_i16
        w_i8[:, b, :] = s_i8
        w_flags[:, b, :] = s_flags
        w_alive[b, :] = s_alive
        f_g[b, :] = s_g
        f_mods[b] = s_mods
        f_abil[b] = s_abil
        f_board[b] = s_board
        k_stats[b] = s_stats
        rng[b, :] = s_rng
        k_nlog[0] = s_nlog
    return best


kernel_cache.check("lookahead", [v for v in list(globals().values()) if hasattr(v, "py_func") and v.__module__ == __name__])

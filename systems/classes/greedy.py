"""The compiled greedy agent: each decision tried on a scratch copy of the game and scored.

Why a scratch copy and not hand-written scores per card: the engine's own action functions are
the only place the rules live; a choice that plays them out and reads the result can never
disagree with the rules (a card's text, a flank, Antimagic, a death's experience). The scratch
game ``S`` is a one-game ``Game`` (index 0); each thread has its own.

What greedy decides (the same decisions as the random agent, ``agent.py``): each Main Phase
action or passing (the best-scored action if it scores above passing, at most MAIN_ACTIONS per
turn), each unit's act (advance first or after, and Attack, Defend or its ability with a
target), each reaction window (cast the prepared spell on the best target if that scores above
passing), each Haste token (Attack when it has a valid target, else Advance), and each level-up's
Mana colour (``prime_answers``: the colour the hand asks most beyond what the side holds; Power
Token answers stay the engine's default, the first legal power).

Each score gets a seeded jitter below JITTER (less than half a point of HP, a tenth of a life
point), drawn from the game's own RNG stream: it breaks near-ties at random. Why: classes deals no
random cards (the hand is the deck), so without it two agents that draw nothing would play one
single game per deck pairing, whatever the seed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.ecs.compiled.rng import integers
from battlesim.systems.classes.acting import ACT_ABILITY, ACT_ATTACK, ACT_DEFEND, act_begin, act_end, action
from battlesim.systems.classes.acting import ability_error as unit_ability_error
from battlesim.systems.classes.actions import cast, cast_error
from battlesim.systems.classes.agent import apply_action, legal_actions, targets_of
from battlesim.systems.classes.board import LANES
from battlesim.systems.classes.rules import C_AB_TARGET, C_COST, C_HAS_ABILITY, C_TARGET
from battlesim.systems.classes.state import (
    BONUS_MANA,
    BONUS_TOKEN,
    BONUSES,
    E_OK,
    FIELDS_MAX,
    G_ACTIVE,
    G_ENDED,
    G_WINNER,
    HAND,
    L_BONUS,
    NCOL,
    NONE,
    P_ANSWER,
    P_CAST,
    P_EXP,
    P_LEVEL,
    P_LIFE,
    P_NANSWERS,
    P_NLEVELS,
    P_POOL,
    P_PREP,
    P_TRACK,
    SC_ACT_KINDS,
    SC_ACT_TARGETS,
    SC_PAYER,
    SUMMONING,
    U_ATTACK,
    U_CARD,
    U_HAS_ATTACK,
    U_HEALTH,
    U_PRESENT,
    U_RANGE,
    U_SHIELD,
)
from battlesim.systems.classes.units import advance, find_target, find_uid, team
from battlesim.systems.classes.vocabulary import COOLDOWN_SLOTS

WIN = 1_000_000
PASS = -999  # a window's "do not cast" (T_NONE = -1 is a target)
JITTER = 4  # score units: one HP is 10, one life point 30
JITTER_STREAM = 11  # the RNG stream of the scores' jitter (the random agent's is 7)


@njit(cache=True, _nrt=False)
def jitter(rng, b):
    """A seeded tie-breaker added to a score (see the module's docstring)."""
    return integers(rng, b, JITTER, JITTER_STREAM)


@njit(cache=True, _nrt=False, inline="always")
def copy_row(src, b, dst):
    """Row ``b`` of ``src`` into row 0 of ``dst``, entry by entry (an array assignment may first
    copy its source into an allocated buffer, which code without reference counting cannot)."""
    s = src[b].reshape(src[b].size)
    d = dst[0].reshape(dst[0].size)
    for i in range(s.shape[0]):
        d[i] = s[i]


@njit(cache=True, _nrt=False)
def copy_game(G, b, S):
    """Game ``b`` of ``G`` into the scratch game ``S`` (its index 0)."""
    copy_row(G.g, b, S.g)
    copy_row(G.u, b, S.u)
    copy_row(G.pl, b, S.pl)
    copy_row(G.hand, b, S.hand)
    copy_row(G.nether, b, S.nether)
    copy_row(G.upgrade, b, S.upgrade)
    copy_row(G.area, b, S.area)
    copy_row(G.pw, b, S.pw)
    copy_row(G.lv, b, S.lv)
    copy_row(G.ans, b, S.ans)
    copy_row(G.jobs, b, S.jobs)


@njit(cache=True, _nrt=False)
def evaluate(G, b, side):
    """How good game ``b`` is for ``side``: a won game beats everything, a lost one loses to
    everything; else life (classes.md "The goal of the game is to bring the enemy player life
    points to zero"), the units each side fields (Attack, HP, range, Shield, how far they stand
    towards the enemy edge), level and experience, spells cast and a prepared spell held."""
    o = 1 - side
    if G.g[b, G_ENDED]:
        w = G.g[b, G_WINNER]
        return WIN if w == side else (-WIN if w == o else 0)
    s = 30 * (np.int64(G.pl[b, side, P_LIFE]) - G.pl[b, o, P_LIFE])
    s += 25 * (np.int64(G.pl[b, side, P_LEVEL]) - G.pl[b, o, P_LEVEL])
    s += 8 * (np.int64(G.pl[b, side, P_EXP]) - G.pl[b, o, P_EXP])
    s += 3 * (np.int64(G.pl[b, side, P_CAST]) - G.pl[b, o, P_CAST])
    s += 5 * ((1 if G.pl[b, side, P_PREP] >= 0 else 0) - (1 if G.pl[b, o, P_PREP] >= 0 else 0))
    last = G.u.shape[1] // LANES - 1  # the board's last row
    for f in range(G.u.shape[1]):
        if not G.u[b, f, U_PRESENT]:
            continue
        k = team(G.u, b, f)
        row = f // LANES
        ahead = row if k == 0 else last - row
        v = 10 * max(np.int64(G.u[b, f, U_HEALTH]), 0) + 6 * G.u[b, f, U_SHIELD] + 2 * ahead
        if G.u[b, f, U_HAS_ATTACK]:
            v += 10 * np.int64(G.u[b, f, U_ATTACK]) + 3 * G.u[b, f, U_RANGE]
        s += v if k == side else -v
    return s


@njit(cache=True, _nrt=False)
def greedy_main(G, R, b, rng, rows, side, S):
    """The best Main Phase action (its row index), or -1 to pass: each legal action played on
    the scratch copy and scored; passing scores the game as it is."""
    n = legal_actions(G, R, b, side, rows)
    best, pick = evaluate(G, b, side) + jitter(rng, b), -1
    for i in range(n):
        copy_game(G, b, S)
        if apply_action(S, R, 0, side, rows[i]) != E_OK:
            continue
        v = evaluate(S, 0, side) + jitter(rng, b)
        if v > best:
            best, pick = v, i
    return pick


@njit(cache=True, _nrt=False)
def greedy_window(G, R, b, rng, side, S):
    """The target to cast ``side``'s prepared spell on, or PASS: the best-scored legal target if
    it scores above not casting."""
    c = G.pl[b, side, P_PREP]
    if c < 0 or G.g[b, G_ENDED]:
        return PASS
    pay = G.scr[b, SC_PAYER:SC_PAYER + NCOL]
    t, m = targets_of(R, R.cards[c, C_TARGET])
    best, pick = evaluate(G, b, side) + jitter(rng, b), PASS
    for i in range(m):
        if cast_error(G, R, b, side, c, True, t[i], NONE, pay) != E_OK:
            continue
        copy_game(G, b, S)
        if cast(S, R, 0, side, c, True, t[i], NONE, pay) != E_OK:
            continue
        v = evaluate(S, 0, side) + jitter(rng, b)
        if v > best:
            best, pick = v, t[i]
    return pick


@njit(cache=True, _nrt=False)
def play_act(G, R, b, f, first, kind, target):
    """One unit's act: Advance first or after, and one action (classes.md "The unit can choose to
    advance before or after taking an action"); the same steps as ``agent.random_act``."""
    pay = G.scr[b, SC_PAYER:SC_PAYER + NCOL]
    uid = act_begin(G.u, G.g, b, f)
    if first:
        f = advance(G.u, R, b, f)
    err = action(G, R, b, f, kind, target, pay)
    if not first:
        f = find_uid(G.u, b, uid)
        if f >= 0 and not G.g[b, G_ENDED]:
            advance(G.u, R, b, f)
    act_end(G.u, G.g, b, uid)
    return err


@njit(cache=True, _nrt=False)
def greedy_act(G, R, b, f, rng, S):
    """One unit's act, its order and action the best-scored of every legal one (classes.md
    "There are 3 types of actions a unit can perform": Attack with a valid target, Defend, the
    unit's ability on a legal target), each tried on the scratch copy; then played on ``G``."""
    side = G.g[b, G_ACTIVE]
    pay = G.scr[b, SC_PAYER:SC_PAYER + NCOL]
    best = -2 * WIN
    b_first, b_kind, b_target = 1, ACT_DEFEND, NONE
    for first in (1, 0):
        # the options at the moment of the action: after the Advance when it comes first
        copy_game(G, b, S)
        g = f
        if first:
            act_begin(S.u, S.g, 0, g)
            g = advance(S.u, R, 0, g)
        kinds = G.scr[b, SC_ACT_KINDS:SC_ACT_KINDS + FIELDS_MAX + 4]
        tgts = G.scr[b, SC_ACT_TARGETS:SC_ACT_TARGETS + FIELDS_MAX + 4]
        n = 0
        if S.u[0, g, U_HAS_ATTACK] and find_target(S.u, R, 0, g) != NONE:
            kinds[n], tgts[n] = ACT_ATTACK, NONE
            n += 1
        kinds[n], tgts[n] = ACT_DEFEND, NONE
        n += 1
        card = S.u[0, g, U_CARD]
        if card >= 0 and R.cards[card, C_HAS_ABILITY] == 1:
            t, m = targets_of(R, R.cards[card, C_AB_TARGET])
            for i in range(m):
                if unit_ability_error(S, R, 0, g, t[i], pay) == E_OK:
                    kinds[n], tgts[n] = ACT_ABILITY, t[i]
                    n += 1
        for i in range(n):
            copy_game(G, b, S)
            if play_act(S, R, 0, f, first, kinds[i], tgts[i]) != E_OK:
                continue
            v = evaluate(S, 0, side) + jitter(rng, b)
            if v > best:
                best, b_first, b_kind, b_target = v, first, kinds[i], tgts[i]
    return play_act(G, R, b, f, b_first, b_kind, b_target)



@njit(cache=True, _nrt=False)
def level_colour(G, R, b, side):
    """The colour a level-up's Mana bonus brings (classes.md "Experience": "Gain one colored Mana
    (any except Summoning)"): the one the cards in hand ask most beyond what the side holds (its
    pool and cooldown track); ties: the first in ``COLOURS`` order."""
    best, pick = np.int64(-(1 << 30)), 0
    for c in range(SUMMONING):
        v = np.int64(0)
        for k in range(HAND):
            card = G.hand[b, side, k]
            if card >= 0:
                v += R.cards[card, C_COST + c]
        v -= G.pl[b, side, P_POOL + c]
        for slot in range(COOLDOWN_SLOTS):
            v -= G.pl[b, side, P_TRACK + slot * NCOL + c]
        if v > best:
            best, pick = v, c
    return pick


@njit(cache=True, _nrt=False)
def prime_answers(G, R, b, side):
    """Queue ``side``'s answers for its next level-up (read by ``progress.take_bonus`` in bonus
    order): each Mana bonus ``level_colour``, each Power Token bonus NONE (the engine's default:
    the first legal power). Called before each step of a greedy or lookahead side."""
    level = G.pl[b, side, P_LEVEL]
    G.pl[b, side, P_ANSWER] = 0
    G.pl[b, side, P_NANSWERS] = 0
    if level >= G.pl[b, side, P_NLEVELS]:
        return
    colour = level_colour(G, R, b, side)
    n = 0
    for k in range(BONUSES):
        kind = G.lv[b, side, level, L_BONUS + k]  # the next level's row (take_bonus reads level - 1)
        if kind == BONUS_MANA:
            G.ans[b, side, n] = colour
            n += 1
        elif kind == BONUS_TOKEN:
            G.ans[b, side, n] = NONE
            n += 1
    G.pl[b, side, P_NANSWERS] = n

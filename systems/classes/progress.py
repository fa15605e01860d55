"""Experience, levels, bonuses and power tokens (classes.md "Experience and Power Boards"; spec
§5). Compiled; the level-up answers are read from ``G.ans`` (a scenario's ``choices``, an agent's
decisions), defaulted when none is left (spec §14: "gain white, token on the first legal power").
"""

from __future__ import annotations

from numba import njit

from battlesim.systems.classes.jobs import fail, push_simple
from battlesim.systems.classes.mana import gain_mana
from battlesim.systems.classes.rules import PW_INNATE, PW_LEVEL, PW_REQUIRES, PW_SLOTS, PW_TOK, TR_CAST
from battlesim.systems.classes.state import (
    ANSWER_POWER,
    ANSWER_REPLACE,
    BONUS_MANA,
    BONUS_TOKEN,
    BONUSES,
    E_ANSWER,
    L_BONUS,
    L_MAX,
    NONE,
    P_ANSWER,
    P_EXP,
    P_LEVEL,
    P_NANSWERS,
    P_NLEVELS,
    P_POOL,
    POWERS,
    SUMMONING,
    W_ID,
    W_TOKENS,
)


@njit(cache=True, _nrt=False)
def gain_experience(G, R, b, side, n):
    """+``n`` experience, one point at a time. classes.md: "After reaching maximum experience, you
    level up. Reset your experience tracker, advance your level on your class power board and gain
    the bonus noted on that level. You must instantly take the bonus." Spec choice 17: at the top
    level experience stops at the maximum; a side with no level table (class "none") just counts."""
    pl = G.pl
    for _ in range(n):
        levels = pl[b, side, P_NLEVELS]
        if levels == 0:
            pl[b, side, P_EXP] += 1
            continue
        level = pl[b, side, P_LEVEL]
        top = G.lv[b, side, level - 1, L_MAX]
        if level >= levels:
            pl[b, side, P_EXP] = min(pl[b, side, P_EXP] + 1, top)
            continue
        pl[b, side, P_EXP] += 1
        if pl[b, side, P_EXP] >= top:
            pl[b, side, P_EXP] = 0
            pl[b, side, P_LEVEL] = level + 1
            take_bonus(G, R, b, side, level + 1)


@njit(cache=True, _nrt=False)
def next_answer(G, b, side):
    """The side's next level-up answer, NONE when none is left."""
    k = G.pl[b, side, P_ANSWER]
    if k >= G.pl[b, side, P_NANSWERS]:
        return NONE
    G.pl[b, side, P_ANSWER] = k + 1
    return G.ans[b, side, k]


@njit(cache=True, _nrt=False)
def take_bonus(G, R, b, side, level):
    """classes.md "There are two types of bonuses": Mana ("Gain one colored Mana (any except
    Summoning) or replace a colored mana from your Mana pool with a Summoning orb"; "If you are
    gaining 2 orbs in a single level up event, you may replace the colored mana you just gained"),
    Power Token ("Immediately take a new power token from the supply pile and use it")."""
    for k in range(BONUSES):
        kind = G.lv[b, side, level - 1, L_BONUS + k]
        if kind == BONUS_MANA:
            a = next_answer(G, b, side)
            if a == NONE:
                a = 0  # spec §14: gain white
            if 0 <= a < ANSWER_REPLACE:
                gain_mana(G, b, side, a, 1)
            elif ANSWER_REPLACE <= a < ANSWER_POWER and G.pl[b, side, P_POOL + a - ANSWER_REPLACE] > 0:
                G.pl[b, side, P_POOL + a - ANSWER_REPLACE] -= 1
                G.pl[b, side, P_POOL + SUMMONING] += 1
            else:
                fail(G, b, E_ANSWER)
        elif kind == BONUS_TOKEN:
            a = next_answer(G, b, side)
            if a == NONE:
                first = NONE  # spec §14: the first legal power in board order; none: the token is lost
                for p in range(POWERS):
                    if can_take_token(G, R, b, side, p):
                        first = p
                        break
                if first >= 0:
                    place_token(G, R, b, side, first)
            elif a >= ANSWER_POWER and can_take_token(G, R, b, side, a - ANSWER_POWER):
                place_token(G, R, b, side, a - ANSWER_POWER)
            else:
                fail(G, b, E_ANSWER)


@njit(cache=True, _nrt=False, inline="always")
def unlocked(pw, powers, b, side, p):
    """classes.md "Innate powers are unlocked from the start. To unlock a non-innate power, you
    need to spend a power token." On the side's power slots ``pw`` (``G.pw``) and the power table
    ``powers`` (``R.powers``), inlined, as ``units.team`` is."""
    pid = pw[b, side, p, W_ID]
    return pid >= 0 and (powers[pid, PW_INNATE] == 1 or pw[b, side, p, W_TOKENS] > 0)


@njit(cache=True, _nrt=False)
def can_take_token(G, R, b, side, p):
    """A power token may go on power ``p``: it has a free slot ("Each square slot can accept 1
    such power token"); it is "in line with your current level, or the levels below" or "defined
    outside the level tree" (level 0); its dependency holds a token ("You cannot unlock a power
    with a dependency before placing a power token in the talent")."""
    pid = G.pw[b, side, p, W_ID]
    if pid < 0 or G.pw[b, side, p, W_TOKENS] >= R.powers[pid, PW_SLOTS]:
        return False
    level = R.powers[pid, PW_LEVEL]
    if level > G.pl[b, side, P_LEVEL]:
        return False
    req = R.powers[pid, PW_REQUIRES]
    if req >= 0:
        for q in range(POWERS):
            if G.pw[b, side, q, W_ID] == req:
                return G.pw[b, side, q, W_TOKENS] > 0
        return False
    return True


@njit(cache=True, _nrt=False)
def place_token(G, R, b, side, p):
    """Put a power token on power ``p`` and queue that token's effects (its ``on_token`` entry:
    classes.md "The first token lets the player take Rejuvenate spell ... The second power token
    only gives him a Footman card")."""
    t = G.pw[b, side, p, W_TOKENS]
    G.pw[b, side, p, W_TOKENS] = t + 1
    pid = G.pw[b, side, p, W_ID]
    n = R.powers[pid, PW_TOK + 2 * t + 1]
    if n > 0:
        push_simple(G, b, R.powers[pid, PW_TOK + 2 * t], n, TR_CAST, side, NONE, NONE)

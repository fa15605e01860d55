"""The compiled lookahead agent: greedy, but a Main Phase action is scored after the turn's
Battle Phase that follows it, not right after the action.

Why: in classes a Main Phase action pays off in the Battle Phase of the same turn (classes.md
"Battle phase": "units on the battlefield act, and heroes gain experience from the battle"): a
unit summoned now advances and may attack, a buff or an enchantment changes the fight. Scoring the
position after the action alone (greedy) misses that. Each candidate (and passing) is played on
the scratch copy, then the whole Battle Phase is played there by the default act policy of spec
choice 7 ("with a valid target attack then advance; else advance, then attack if that gave a
target, else defend": cheap, no search) and the result scored with greedy's ``evaluate``. Unit
acts, Haste and the reaction windows are greedy's. Like greedy it reads nothing hidden, and its
scores get greedy's seeded jitter.
"""

from __future__ import annotations

from numba import njit

from battlesim.systems.classes.acting import battle_phase
from battlesim.systems.classes.agent import apply_action, legal_actions
from battlesim.systems.classes.greedy import copy_game, evaluate, jitter
from battlesim.systems.classes.state import E_OK, G_ENDED


@njit(cache=True, _nrt=False)
def after_battle(S, R, side, orders):
    """The scratch game's score for ``side`` once its Battle Phase has been played by the default
    policy (spec choice 7)."""
    if not S.g[0, G_ENDED]:
        battle_phase(S, R, 0, orders, 0)
    return evaluate(S, 0, side)


@njit(cache=True, _nrt=False)
def lookahead_main(G, R, b, rng, rows, side, S):
    """The Main Phase action (its row index) whose turn ends best, or -1 to pass (passing is
    scored the same way: the Battle Phase played from the position as it is)."""
    n = legal_actions(G, R, b, side, rows)
    orders = rows  # no act orders (``n_orders`` 0: ``act_step`` reads none)
    copy_game(G, b, S)
    best, pick = after_battle(S, R, side, orders) + jitter(rng, b), -1
    for i in range(n):
        copy_game(G, b, S)
        if apply_action(S, R, 0, side, rows[i]) != E_OK:
            continue
        v = after_battle(S, R, side, orders) + jitter(rng, b)
        if v > best:
            best, pick = v, i
    return pick

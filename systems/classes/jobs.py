"""The worklist of effect lists waiting to resolve, one per game (compiled).

classes.md "Gameplay": "You may also choose the order of resolution as you wish, as long as you
resolve one effect at a time." Spec choice 24: triggers resolve at fixed points, one at a time.
A card's text is one job; what it sets off (a death's text, an unleash "now", a power token's
gift) is a new job run after it, first in first out: no recursion in compiled code, and "it
cannot be cast in the middle of resolving another effect" (choice 23) holds by construction.
"""

from __future__ import annotations

from numba import njit

from battlesim.systems.classes.state import (
    AFTER_NOTHING,
    E_JOBS,
    G_ERROR,
    G_NJOBS,
    J_AFTER,
    J_BY_CARD,
    J_CARD,
    J_CHOICE,
    J_N,
    J_OWNER,
    J_POWER,
    J_SHAPE,
    J_SPELL,
    J_SRC,
    J_START,
    J_TARGET,
    J_TRIGGER,
    JOBS,
    NONE,
    T_NONE,
)


@njit(cache=True, _nrt=False)
def fail(G, b, code):
    """Record the first error of an action (the caller reports it)."""
    if G.g[b, G_ERROR] == 0:
        G.g[b, G_ERROR] = code


@njit(cache=True, _nrt=False)
def push(G, b, start, n, trigger, owner, card, src, shape, target, choice, spell, by_card, power, after):
    """Queue effects ``start .. start + n`` of the effect table with ``trigger`` for ``owner``."""
    k = G.g[b, G_NJOBS]
    if k >= JOBS:
        fail(G, b, E_JOBS)
        return
    row = G.jobs[b, k]
    row[J_START], row[J_N], row[J_TRIGGER], row[J_OWNER], row[J_CARD] = start, n, trigger, owner, card
    row[J_SRC], row[J_SHAPE], row[J_TARGET], row[J_CHOICE], row[J_SPELL] = src, shape, target, choice, spell
    row[J_BY_CARD], row[J_POWER], row[J_AFTER] = by_card, power, after
    G.g[b, G_NJOBS] = k + 1


@njit(cache=True, _nrt=False)
def push_simple(G, b, start, n, trigger, owner, card, src):
    """A job with no target, no shape, no power (a death's or a token's text)."""
    push(G, b, start, n, trigger, owner, card, src, NONE, T_NONE, NONE, 0, 1, NONE, AFTER_NOTHING)

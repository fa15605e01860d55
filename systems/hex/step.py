"""One entry of the battle table applied to one game, compiled (spec §6): the agents' codes and
RNG streams every decider shares, a charge's approach follow-up, and ``apply_action``. Split out
of ``play.py`` so the lookahead agent (``lookahead.py``) can play entries ahead on the game
itself (then restore it) without importing the game loop that calls it."""

from __future__ import annotations

from battlesim.ecs.compiled.rng import choice
from battlesim.systems.hex import kernel_cache
from battlesim.systems.hex.apply import do_ability, do_attack, do_move, do_skip
from battlesim.systems.hex.battle import (
    ABILITY_0,
    ATTACK,
    CHARGE,
    MOVE,
    SKIP,
    V,
    acting_slot,
    charge_from,
    reach,
)
from battlesim.systems.hex.board import N_HEXES
from battlesim.systems.hex.kernel_cache import kernel
from battlesim.systems.hex.legal import WIDTH  # noqa: F401 - the battle action table's width, play's public name

RNG_FIRST = 1  # stream: who plays first (spec §2.3 "drawn per game from the game's RNG")
RNG_AGENT = 2  # stream: the random agent's choices
RNG_FOLLOW = 3  # stream: follow-up choices (a charge's approach hex)
RNG_GREEDY = 4  # stream: the greedy agent's tie-breaking noise
RNG_LOOKAHEAD = 5  # stream: the lookahead agent's tie-breaking noise (and its greedy replies')

# the compiled agents, by code (``--agents``): each seat's code is an argument of the game loop
AGENTS = ("random", "pass", "greedy", "lookahead")
RANDOM, PASS_AGENT, GREEDY, LOOKAHEAD = range(len(AGENTS))


@kernel
def approach_of(w, cols, f, k, rng, b, s, t, agent):
    """A charge's follow-up (spec §6): the hex to move to before attacking t; random: uniform
    over the legal ones; greedy and pass: the nearest to the charger's own hex (lowest id)."""
    k_occ = f.board[b]
    k_steps = k.steps
    k_prev = k.prev
    ok = k.approach
    reach(w, cols, f, b, s, k_occ, k_steps, k_prev, k.frontier)
    best = -1
    for a in range(N_HEXES):
        ok[a] = charge_from(w, cols, f, b, s, t, a, k_occ, k_steps)
        if ok[a] and (best < 0 or k_steps[a] < k_steps[best]):
            best = a
    if agent == RANDOM:
        return choice(rng, b, ok, RNG_FOLLOW)
    return best


@kernel  # a call: inlined into its four callers it multiplied the turn path's code (docs/hex-speed.md)
def apply_action(w, cols, f, k, rng, b, seat, a, agent):
    """Entry ``a`` of the battle table for ``seat``: ``a = (u * V + v) * 59 + h`` (spec §6), unit
    u the one ``battle.acting_slot`` names."""
    k_path = k.path
    h = a % N_HEXES
    uv = a // N_HEXES
    v = uv % V
    s = acting_slot(w, cols, b, seat, uv // V)
    if v == SKIP:
        do_skip(w, cols, f, k, b, s)
    elif v == MOVE:
        do_move(w, cols, f, k, b, s, h, k_path, -1)
    elif v == ATTACK:
        do_attack(w, cols, f, k, b, s, h, -1, k_path, -1, -1)
    elif v == CHARGE:
        do_attack(w, cols, f, k, b, s, h, approach_of(w, cols, f, k, rng, b, s, h, agent), k_path, -1, -1)
    else:
        do_ability(w, cols, f, k, b, s, v - ABILITY_0, h, -1, True)


kernel_cache.check("step", [v for v in list(globals().values()) if hasattr(v, "py_func") and v.__module__ == __name__])

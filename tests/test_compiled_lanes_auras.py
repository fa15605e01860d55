"""lanes.md "Aura System" in compiled code: the board's aura sources found as bits
(``damage_stages.aura_sources``) give every unit the attack and armor
the walk over every slot gives (``EVERY_SLOT``), on real boards of real games, round after round."""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.ecs.decisions import make_agent
from battlesim.systems.lanes.compiled import loop as ll
from battlesim.systems.lanes.compiled.damage_stages import EVERY_SLOT, aura_bonus, aura_sources
from battlesim.systems.lanes.compiled.unit_stats import attack_with
from battlesim.systems.lanes.ruleset import RULESET


@njit(cache=False)
def _both_ways(st, cols, out):
    """out[b, s]: (attack walking every slot, attack over the found sources, the aura part of
    each, whether the board had a source) for every live slot."""
    for b in range(st.alive.shape[0]):
        found = aura_sources(st, b, cols)
        for s in range(st.alive.shape[1]):
            if st.alive[b, s]:
                out[b, s, 0] = attack_with(st, cols, b, s, EVERY_SLOT)
                out[b, s, 1] = attack_with(st, cols, b, s, found)
                out[b, s, 2] = aura_bonus(st, b, s, cols, EVERY_SLOT)
                out[b, s, 3] = aura_bonus(st, b, s, cols, found)
                out[b, s, 4] = found != 0


def test_the_sources_found_as_bits_give_what_the_walk_over_every_slot_gives():
    # lanes.md "Aura System": each aura effect of each live source once, by its reach
    game = RULESET.load()
    agents = [make_agent("greedy"), make_agent("random")]
    seen = reached = 0
    for decks in (("green_grove", "black_covenant"), ("blue_tide", "red_vanguard")):
        w = game.new_world(np.arange(200, 240, dtype=np.int64), decks, agents)
        L = ll.loop_args(w)
        n = sum(len(s) for _, s in w.schedule._order)
        for _ in range(5):  # round by round, checked after each
            for k in range(n):
                ll.run_system(w, k)
            out = np.zeros((w.n_games, w.n_slots, 5), dtype=np.int64)
            _both_ways(L.st, L.acols, out)
            assert np.array_equal(out[..., 0], out[..., 1]) and np.array_equal(out[..., 2], out[..., 3])
            seen += int(out[..., 4].sum())
            reached += int((out[..., 2] != 0).sum())
    assert seen > 0 and reached > 0  # boards with sources, and units they reach: the comparison saw auras

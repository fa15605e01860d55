"""The random agent's draw (systems/grid/draw.py) is the shared ``choice``, bit for bit: the same
action and the same RNG counter after it, for masks of every length and density."""

from __future__ import annotations

import numpy as np

from battlesim.ecs.compiled.rng import choice, rng_state
from battlesim.systems.grid.draw import draw_legal


def test_the_draw_is_the_shared_choice_for_every_mask():
    # spec §4: the random agent draws one legal action of the table, uniformly
    gen = np.random.default_rng(7)
    checked = 0
    for size in (0, 1, 7, 8, 9, 64, 835, 1303):
        for density in (0.0, 0.02, 0.1, 0.5, 1.0):
            for seed in range(40):
                mask = gen.random(size) < density
                ours, theirs = rng_state(np.array([seed, seed + 1])), rng_state(np.array([seed, seed + 1]))
                for _ in range(3):  # a few draws in a row: the counters must advance alike
                    a, expected = draw_legal(ours, 1, mask, 13), choice(theirs, 1, mask, 13)
                    assert a == expected, (size, density, seed)
                    assert (ours == theirs).all()
                    checked += int(a >= 0)
    assert checked > 2000  # most masks hold a legal entry

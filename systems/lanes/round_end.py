"""End of round (lanes.md "End of Round - Triggers at end of round (after shop phase)").

End-of-round effects fire first; then the round's temporary things run down: "Stun stacks
decay by 1 at end of round" (and disarm, silence, root; ledger: enfeebled, damage immunity and
untargetable too: the rules call them temporary), buffs "until end of round" expire, timed
improvements count down ("Counter decreases by 1 at the end of each round"; "Effect expires and
is removed when counter reaches 0"), and cooldowns tick ("After using, cannot be used again for X
rounds": not counting the round of use, ledger).
"""

from __future__ import annotations

import esper
import numpy as np

from battlesim.components.keywords import lanes as _lanes
from battlesim.ecs.npx import any_axis, nonzero, sum_last
from battlesim.systems.lanes import board
from battlesim.systems.lanes.deaths import settle
from battlesim.systems.lanes.round_start import fire_all


class EndOfRound(esper.Processor):
    """The numpy twin of ``compiled.processors.EndOfRound`` (whose docstring cites the rule): the
    reference it was proved against, played only by the opt-in differential tests."""

    priority = 10  # before RoundEnd (the round counter and the round limit)

    def process(self, w) -> None:
        fire_all(w, "end_of_round")
        settle(w)
        act = w.active[:, None] & w.alive
        for name in _lanes.decaying():
            arr = getattr(w.c, name)
            np.subtract(arr, 1, out=arr, where=act & (arr > 0))
        # buffs until end of round
        tb, ts = nonzero(act & any_axis((w.c.temp_attack != 0) | (w.c.temp_health != 0), 2))
        if tb.size:
            w.c.temp_attack[tb, ts] = 0
            th = sum_last(w.c.temp_health[tb, ts])
            w.c.max_health[tb, ts] -= th
            w.c.health[tb, ts] = np.maximum(np.minimum(w.c.health[tb, ts], w.c.max_health[tb, ts]), 1)
            w.c.temp_health[tb, ts] = 0
        # cooldowns, not counting the round of use
        cd = act & (w.c.cooldown > 0) & (w.c.used_round != w.g.round[:, None])
        np.subtract(w.c.cooldown, 1, out=w.c.cooldown, where=cd)
        # timed improvements
        timed = act & w.c.improvement & (w.c.timer > 0)
        np.subtract(w.c.timer, 1, out=w.c.timer, where=timed)
        b, s = nonzero(timed & (w.c.timer == 0))
        if b.size:
            esper.dispatch_event("lanes.expired", w, b, s)
            from battlesim.systems.lanes.opcodes import by_rank

            for idx in by_rank(b):
                board.remove_improvement(w, b[idx], s[idx])

"""Components of temporary buffs, equipment, improvements, abilities and bounty."""

import numpy as np

from battlesim.ecs.plugin import component

component("temp_attack", np.int16, shape=(2,),
                   doc="Attack added until end of round, per seat that applied it (purge removes the opponent's).")
component("temp_health", np.int16, shape=(2,),
                   doc="Max health added until end of round, per seat that applied it (removed at round end).")
component("equipment", np.int16, default=-1, presence="nonzero",
                   doc="Card id of the equipment the unit holds (lanes.md: 'Each unit/hero can hold 1 equipment item').")
component("improvement", np.bool_, presence="tag", doc="A lane improvement (lanes.md 'Improvements').")
component("timer", np.int16, doc="Rounds left of a timed improvement (0: permanent).")
component("charges", np.int16, default=-1, presence="nonzero", doc="Uses left of an activated ability (-1: unlimited).")
component("cooldown", np.int16, doc="Rounds before an activated ability can be used again (0: ready).")
component("used_round", np.int16, doc="Round an activated ability was last used (once per round).")
component("bounty", np.int16, doc="Bounty modifier: gold paid for killing this unit is base + bounty, at least 0.")
component("aura", np.bool_, presence="tag", doc="The entity's card has while-in-lane (aura) effects.")

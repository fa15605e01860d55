"""Where an entity stands. Only a ruleset's board module writes these (one place moves entities)."""

import numpy as np

from battlesim.ecs.plugin import component

lane = component("lane", np.int8, default=-1, presence="mask", doc="Lane index of the entity.")
pos = component("pos", np.int8, default=-1, presence="mask", doc="Position inside the lane.")

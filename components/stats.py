"""Combat statistics."""

import numpy as np

from battlesim.ecs.plugin import component

attack = component(
    "attack", np.int16, default=0, presence="mask", doc="Damage dealt when attacking or battling."
)
health = component(
    "health", np.int16, default=0, presence="mask", doc="Current health; at 0 or less the entity is destroyed."
)
max_health = component(
    "max_health", np.int16, default=0, presence="mask", doc="Health cap; heals never exceed it."
)

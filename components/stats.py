"""Combat statistics."""

import numpy as np

from ecs.registry import register_component

attack = register_component(
    "attack", np.int16, default=0, presence="mask", doc="Damage dealt when attacking or battling."
)
health = register_component(
    "health", np.int16, default=0, presence="mask", doc="Current health; at 0 or less the entity is destroyed."
)
max_health = register_component(
    "max_health", np.int16, default=0, presence="mask", doc="Health cap; heals never exceed it."
)

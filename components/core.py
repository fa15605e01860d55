"""Identity components every entity carries: what card it is and who owns it."""

import numpy as np

from ecs.registry import register_component

card_id = register_component(
    "card_id", np.int16, default=-1, presence="mask",
    doc="Catalog id of the card this entity was made from; static data is looked up through it.",
)
owner = register_component(
    "owner", np.int8, default=0, presence="mask", doc="Seat (0 or 1) that controls the entity.",
)
faction = register_component(
    "faction", np.int8, default=-1, presence="mask",
    doc="Faction index (Red 0, Blue 1, Green 2, Black 3); gates card play in lanes.",
)
hero = register_component("hero", np.bool_, presence="tag", doc="The entity is a hero.")
creep = register_component("creep", np.bool_, presence="tag", doc="The entity is a creep.")

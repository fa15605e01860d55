"""Identity components every entity carries: what card it is and who owns it."""

import numpy as np

from battlesim.ecs.plugin import component

card_id = component(
    "card_id", np.int16, default=-1, presence="mask",
    doc="Catalog id of the card this entity was made from; static data is looked up through it.",
)
owner = component(
    "owner", np.int8, default=0, presence="mask", doc="Seat (0 or 1) that controls the entity.",
)
faction = component(
    "faction", np.int8, default=-1, presence="mask",
    doc="Faction index (Red 0, Blue 1, Green 2, Black 3); gates card play in lanes.",
)
hero = component("hero", np.bool_, presence="tag", doc="The entity is a hero.")
creep = component("creep", np.bool_, presence="tag", doc="The entity is a creep.")

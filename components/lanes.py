"""Components of the lanes ruleset's own objects (anchors, hero roster link, death marks)."""

import numpy as np

from battlesim.ecs.plugin import component

anchor = component(
    "anchor", np.bool_, presence="tag",
    doc="A lane objective: 30 HP anchor, then a 40 HP essence (lanes.md 'Anchor & Essence System').",
)
essence = component(
    "essence", np.bool_, presence="tag", doc="The anchor has fallen and this objective is now its essence.",
)
ruined = component(
    "ruined", np.bool_, presence="tag", doc="The essence fell too: the lane's objective is destroyed.",
)
hero_index = component(
    "hero_index", np.int8, default=-1, presence="mask", doc="Deck slot (0-4) of a hero entity in its roster.",
)
deck_pos = component(
    "deck_pos", np.int16, default=-1, presence="mask",
    doc="Position of the card instance in its owner's shuffled deck (-1: heroes, creeps, tokens).",
)
dying = component(
    "dying", np.bool_, presence="tag",
    doc="Marked destroyed; removed once the lane resolves (lanes.md 'Unit Removal').",
)
anchor_aura = component(
    "anchor_aura", np.int16, presence="nonzero",
    doc="Anchor enchantment: allied units in the anchor's lane get +X attack (a lane-wide aura).",
)
hit_by = component(
    "hit_by", np.int8, default=-1, presence="nonzero",
    doc="Seat whose damage or effect last hit the unit: a death is a kill (bounty) unless it is the owner's.",
)

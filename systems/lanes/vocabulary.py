"""The words card files may use in lanes: triggers, selectors, opcodes, target kinds.

The registries live on lanes' ``Executor`` (ecs/effects.py), reached through the public
extension API (``battlesim.ecs.plugin.extend("lanes")``) like a plugin's; the kernels declare themselves in
``systems/lanes/selectors.py`` and ``systems/lanes/opcodes.py``. Trigger names and docs are
lanes.md's "Effect Timings" list, in its order.
"""

from __future__ import annotations

from battlesim.ecs.plugin import extend

lanes = extend("lanes")
EXECUTOR = lanes.executor

TRIGGERS = {
    "start_of_round": "Triggers at the beginning of each round (after creep spawn, before play phase).",
    "end_of_round": "Triggers at end of round (after shop phase).",
    "on_play": "Triggers when this card is played/deployed.",
    "on_equip": "Triggers when equipment is attached to a unit.",
    "on_activation": "Triggers when an activated ability is used (hero/improvement abilities).",
    "on_ally_deploy": "Triggers when an allied unit is deployed.",
    "on_enemy_deploy": "Triggers when an enemy unit is deployed.",
    "on_enemy_play": "Triggers when enemy plays any card.",
    "on_play_ally": "Triggers when you play an allied card.",
    "before_combat": "Triggers before combat resolution begins.",
    "on_attack": "Triggers when this unit attacks.",
    "on_ally_attack": "Triggers when an allied unit attacks.",
    "on_equipped_attack": "Triggers when the equipped unit attacks.",
    "on_damage_taken": "Triggers when this unit takes damage.",
    "after_combat": "Triggers after combat in each lane.",
    "on_death": "Triggers when this unit is destroyed.",
    "on_enemy_death": "Triggers when an enemy unit dies.",
    "while_in_lane": "Aura effect active while this card is in the lane.",
}
for _name, _doc in TRIGGERS.items():
    lanes.trigger(_name, _doc)

# What a card (or an ability) asks its player to choose when it is played.
TARGET_KINDS = ("none", "enemy_unit", "ally_unit", "unit", "lane")
RANGES = ("lane", "any")
STATS = ("attack", "health", "both")
DURATIONS = ("permanent", "round")
DIRECTIONS = ("left", "right", "toward")
# Opcodes allowed as auras (while_in_lane): they add to a value while the source stands.
AURA_OPCODES = ("buff", "grant_keyword")
AURA_KEYWORDS = ("armor",)

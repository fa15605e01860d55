"""The lanes events compiled code emits (``ecs/compiled/emit.py``), one code per esper event the
rules post, with its integers in the order the event carries them (after ``w, games``).

``systems/lanes/compiled/event_stream.py`` turns them back into those esper events, so the
replay log and a test listen to the compiled game as they would to any system's events. An
event about several entities at once (a wave of deaths, improvements expiring together) comes
as one ``*_ROW`` per entity, then its ``*_END``: the listener sees one event, as numpy posted it.
"""

from __future__ import annotations

from battlesim.ecs.compiled.emit import RULESET_CODES

DEPLOY = RULESET_CODES  # "lanes.deploy": seat, hero index, lane, pos
BOUNCE = RULESET_CODES + 1  # "lanes.bounce": slot (the own unit a play replaces)
PLAY = RULESET_CODES + 2  # "lanes.play": seat, card, lane, pos, slot
CAST = RULESET_CODES + 3  # "lanes.cast": seat, card, lane, caster (-1 none)
IMPROVEMENT = RULESET_CODES + 4  # "lanes.improvement": seat, card, lane, slot
EQUIP = RULESET_CODES + 5  # "lanes.equip": seat, card, holder
ABILITY = RULESET_CODES + 6  # "lanes.ability": seat, card, source (hero or improvement)
TARGET = RULESET_CODES + 7  # "lanes.target": seat, card, chosen
EXPIRED_ROW, EXPIRED_END = RULESET_CODES + 8, RULESET_CODES + 9  # "lanes.expired": slot
DEATH_ROW, DEATHS_END = RULESET_CODES + 10, RULESET_CODES + 11  # "lanes.deaths": slot, card
COMBAT = RULESET_CODES + 12  # "lanes.combat": lane, rows of the step's damage
# ("lanes.gold" has no code: the machine tells each opcode call, and event_stream posts a
# ``gain_gold`` call as it)

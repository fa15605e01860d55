"""An example classes plugin: two keywords the classes rules do not have, written in the words the
compiled loop already plays (``battlesim.systems.classes.plugin``).

- **Bulwark X**: +X Shield and +X HP.
- **Rally**: when this unit is summoned, every other allied unit gains 1 Attack.

    battlesim keywords --ruleset classes --plugin examples/classes-plugin/classes_rally.py
    battlesim scenario examples/classes-plugin/rally_lifts_the_other_allies.toml \
        --plugin examples/classes-plugin/classes_rally.py --check
"""

from battlesim.systems.classes.plugin import classes_keyword

classes_keyword("bulwark", "number", "Bulwark X: +X Shield and +X HP.", shield=1, health=1)
classes_keyword("rally", "tag", "Rally: when this unit is summoned, every other allied unit gains 1 Attack.",
                effects=[{"trigger": "on_summon", "op": "gain", "select": "other_allied_units", "stat": "attack",
                          "amount": 1}])

"""An example classes plugin: two keywords and a condition the classes rules do not have, written in
the words the compiled loop already plays (``battlesim.systems.classes.plugin``).

- **Bulwark X**: +X Shield and +X HP.
- **Rally**: when this unit is summoned, every other allied unit gains 1 Attack.
- **Poison** (a condition): at its owner's Enchantments Step the unit takes 1 damage per Poison
  token, then discards one token.
- **Venom**: when this unit is summoned, every enemy unit gets 1 Poison.

    battlesim keywords --ruleset classes --plugin examples/classes-plugin/classes_rally.py
    battlesim scenario examples/classes-plugin/rally_lifts_the_other_allies.toml \
        --plugin examples/classes-plugin/classes_rally.py --check
    battlesim scenario examples/classes-plugin/poison_ticks_at_the_owners_enchantments_step.toml \
        --plugin examples/classes-plugin/classes_rally.py --check
"""

from battlesim.systems.classes.plugin import classes_condition, classes_keyword

classes_keyword("bulwark", "number", "Bulwark X: +X Shield and +X HP.", shield=1, health=1)
classes_keyword("rally", "tag", "Rally: when this unit is summoned, every other allied unit gains 1 Attack.",
                effects=[{"trigger": "on_summon", "op": "gain", "select": "other_allied_units", "stat": "attack",
                          "amount": 1}])
classes_condition("poison", "Poison: at its owner's Enchantments Step the unit takes 1 damage per Poison token, "
                  "then discards one token.", effects=[{"op": "damage", "select": "chosen", "amount": 1}],
                  discard="one")
classes_keyword("venom", "tag", "Venom: when this unit is summoned, every enemy unit gets 1 Poison.",
                effects=[{"trigger": "on_summon", "op": "condition", "select": "enemy_units", "condition": "poison",
                          "amount": 1}])

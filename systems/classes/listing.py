"""classes' words as ``battlesim keywords`` lists them: unit keywords, conditions, triggers,
effect ops, selectors and the systems (steps) a turn runs, each with its rule sentence.

Why a listing of its own: classes' words are tables (``vocabulary.py``) compiled to ids, not
declarations on the extension API, and its components are ``classes_``-prefixed (lanes already
declares ``shield`` with another meaning), so ``extend("classes")`` holds none of them.
"""

from __future__ import annotations

from battlesim.systems.classes.plugin import vocabulary as plugin_vocabulary
from battlesim.systems.classes.vocabulary import CONDITIONS, KEYWORDS, OPS, SELECTORS, TRIGGERS, UNUSED_CONDITIONS

SOURCE = "built-in"

# The steps of a turn, in order (spec §2; ``loop.play_game``), each with the sentence it rests on.
SYSTEMS = (
    ("mana_step", "begin", 'classes.md "Begin Phase": "you regain your resources (mana)" (the Mana Cooldown '
                           'Tracker moves one slot and its mana returns to the pool)'),
    ("enchantments_step", "begin", 'classes.md "Enchantments Step": "you unleash all Enchantments on cards you '
                                   'own in your play area and on the battleground"'),
    ("main_phase", "main", 'classes.md "Main Phase": cast, prepare, cast the prepared spell, class abilities, '
                           '"until the player passes"'),
    ("reaction_window", "any", 'classes.md: "A prepared spell may be cast at any time, even during opponent\'s '
                               'turn" (choice 14: the windows)'),
    ("act_step", "battle", 'classes.md: "all units belonging to the current player will take their turn": '
                           'Advance and one action (Attack, Defend, Unit Ability)'),
    ("haste", "battle", 'classes.md "Haste": "an additional Advance or Attack at the end of its next Battle phase"'),
    ("gain_experience_step", "battle", 'classes.md "Gain Experience Step: At the end of Battle, the player gains '
                                       '+1 experience"; choice 11: the active player\'s Turnover tokens discarded'),
    ("end_phase", "end", 'classes.md "End Phase": "you regain all cards from the Nether"; the turn passes'),
)


def vocabulary() -> list[dict[str, str]]:
    """One row per word: ``kind, name, value_type, source, doc`` (the CLI's columns)."""
    rows = []
    for name, (value, rule) in KEYWORDS.items():
        rows.append(dict(kind="keyword", name=name, value_type=value, source=SOURCE, doc=rule))
    rows += [r for r in plugin_vocabulary() if r["kind"] == "keyword"]  # keywords plugins declared (plugin.py), each with its plugin as source
    for name, rule in CONDITIONS.items():
        note = " (no shipped card applies it)" if name in UNUSED_CONDITIONS else ""
        rows.append(dict(kind="condition", name=name, value_type="int (tokens)", source=SOURCE, doc=rule + note))
    rows += [r for r in plugin_vocabulary() if r["kind"] == "condition"]
    for name, rule in TRIGGERS.items():
        rows.append(dict(kind="trigger", name=name, value_type="-", source=SOURCE, doc=rule))
    for name, (rule, required, optional) in OPS.items():
        fields = ", ".join([*required, *(f"{f}?" for f in optional)]) or "-"
        rows.append(dict(kind="opcode", name=name, value_type=fields, source=SOURCE, doc=rule))
    for name, doc in SELECTORS.items():
        rows.append(dict(kind="selector", name=name, value_type="targets", source=SOURCE, doc=doc))
    for name, phase, rule in SYSTEMS:
        rows.append(dict(kind="system", name=name, value_type=f"phase {phase}", source=SOURCE, doc=rule))
    return rows

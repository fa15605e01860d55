"""Hex battle state: the hex components on the World, the column table kernels index, the
per-game fields, and ``new_world``.

Components live in the hex namespace (``hex_armor``...: spec §7, DESIGN "two names"): lanes
already declares ``armor``, ``shield``, ``piercing``... with other meanings. ``health`` and
``max_health`` are the engine's own (its ``apply_health`` stage writes ``health`` in every
ruleset), ``hero`` the core tag.

Kernels read a component as ``w.i16[cols[POWER], b, s]``: ``cols`` is this module's column
table (``columns(view)``), built at run time from the World's layout, so a component's row in
its buffer never becomes a frozen numba global (docs/compiled-core.md "Why column ids are an
argument"). The *positions* in the table (``POWER`` = 5...) are this module's constants.
"""

from __future__ import annotations

import numpy as np

from battlesim.components import core as _core  # noqa: F401  (hero: the core's tag, declared first)
from battlesim.components import stats as _stats  # noqa: F401  (health, max_health: the engine's)
from battlesim.ecs.compiled.world_view import WorldView, world_view
from battlesim.ecs.plugin import component
from battlesim.ecs.registry import registered_components
from battlesim.ecs.world import StateField, World
from battlesim.systems.hex.board import N_HEXES
from battlesim.systems.hex.vocabulary import KEYWORDS, PREFIX, SELECTORS, STATUSES

SLOTS = 32  # units a game can hold: 2 x (hero + units + summons), spec §6 U = 16 a side
NULL = -1  # a NULL property (hex.md "A missing value (null)"): never modified
ALL = 999  # "Keyword" without X = all (I-32): larger than any damage

# -- the int16 columns, in table order ------------------------------------------------------
BASE = ("health", "max_health", "hex_pos", "hex_side", "hex_controller", "hex_power", "hex_range",
        "hex_movement", "hex_mana", "hex_max_mana", "hex_actions", "hex_control_until")
(HEALTH, MAX_HEALTH, POS, SIDE, CONTROLLER, POWER, RANGE, MOVEMENT, MANA, MAX_MANA, ACTIONS,
 CONTROL_UNTIL) = range(len(BASE))  # CONTROL_UNTIL: Control ends after that round (0: owner controls)
NUMBER_KEYWORDS = tuple(n for n, k in KEYWORDS.items() if k.arg != "tag")
TAG_KEYWORDS = tuple(n for n, k in KEYWORDS.items() if k.arg == "tag")
STATUS_NAMES = tuple(STATUSES)
# Armor and Magic Resist modifiers as the damage stages read them (a stage sees components only):
# the sum of "+X" and the highest "Prop X" (-1: none), kept by ``turn.sync_modifiers``
MODIFIED_KEYWORDS = ("armor", "magic_resist")
MOD_COLUMNS = tuple(f"{PREFIX}{n}_{part}" for n in MODIFIED_KEYWORDS for part in ("add", "set"))
INT_COLUMNS = (*BASE, *(PREFIX + n for n in NUMBER_KEYWORDS), *(STATUSES[n].component(n) for n in STATUS_NAMES),
               *MOD_COLUMNS)
TAG_COLUMNS = (*(PREFIX + n for n in TAG_KEYWORDS), "hex_undead", "hex_summoned", "hero")  # summoned: I-45
COLUMNS = (*INT_COLUMNS, *TAG_COLUMNS)
_AT = {name: i for i, name in enumerate(COLUMNS)}


def kw(name: str) -> int:
    """Column position of keyword ``name`` (its X, or its tag)."""
    return _AT[PREFIX + name]


def st(name: str) -> int:
    """Column position of status ``name`` (a counter pile or rounds left)."""
    return _AT[STATUSES[name].component(name)]


# keyword and status positions kernels use (module constants: positions in the table, not rows)
ARMOR, PIERCING, MAGIC_RESIST, EVASION = kw("armor"), kw("piercing"), kw("magic_resist"), kw("evasion")
LIFESTEAL, PDR, MDR, DR = kw("lifesteal"), kw("physical_damage_return"), kw("magic_damage_return"), kw("damage_return")
BURN, POISON, BLEED, MANABURN = kw("burn"), kw("poison"), kw("bleed"), kw("manaburn")
HEALTH_REGEN, MANA_REGEN, FADING = kw("health_regen"), kw("mana_regen"), kw("fading")
TRAMPLE, RETREATING, INTIMIDATE, VENGEANCE = kw("trample"), kw("retreating"), kw("intimidate"), kw("vengeance")
ETHEREAL, UNDYING, IMBUED = kw("ethereal"), kw("undying"), kw("imbued")
ALLIED_PATHING, PATHING, FLYING, CHARGING = kw("allied_pathing"), kw("pathing"), kw("flying"), kw("charging")
BACKSTAB, COUNTERSTRIKE, OVERWATCH = kw("backstab"), kw("counterstrike"), kw("overwatch")
STEADFAST, DEFENDER, SPELLPROOF = kw("steadfast"), kw("defender"), kw("spellproof")
UNDEAD, SUMMONED, HERO = _AT["hex_undead"], _AT["hex_summoned"], _AT["hero"]
BURN_C, POISON_C, BLEED_C, SHIELD_C = st("burn"), st("poison"), st("bleed"), st("shield")
REFRACTION_C, FADE_C, CHANNEL_C = st("refraction"), st("fade"), st("channel")
ROOTED, DISARMED, SILENCED, BROKEN, OVERHEATED = st("rooted"), st("disarmed"), st("silenced"), st("broken"), st("overheated")
FIRST_STATUS, LAST_STATUS = st(STATUS_NAMES[0]), st(STATUS_NAMES[-1])
ARMOR_ADD, ARMOR_SET, MAGIC_RESIST_ADD, MAGIC_RESIST_SET = (_AT[n] for n in MOD_COLUMNS)
FIRST_TAG = len(INT_COLUMNS)  # columns at or after it are tags (``w.flags``)

# -- per-game fields: w.g.hex[b, field] ------------------------------------------------------
GAME_FIELDS = ("round", "first_player", "to_act", "last_actor", "centre_shield", "winner", "end_reason",
               "opener", "rounds", "turned", "modded", "mods_top")
(ROUND, FIRST_PLAYER, TO_ACT, LAST_ACTOR, CENTRE_SHIELD, WINNER, END_REASON, OPENER, ROUNDS,
 TURNED, MODDED, MODS_TOP) = range(len(GAME_FIELDS))  # TURNED: bit seat = the seat had a turn this round (Channel, I-38)
# MODDED: bit s = slot s has held a modifier instance this game (set by every writer of one, never
# cleared: a superset). Why: ``battle.granted`` and ``modified`` walk the game's MODS instances
# for every keyword and property a unit is asked, most units have none, and a bit says so.
# MODS_TOP: 1 + the highest instance index written this game (never lowered): the walks over the
# instances stop there. Why: a game holds a few instances (items' passives, some abilities') of
# the 32 rows, and a unit that has some was walked over all 32 for every keyword and property.
END_REASONS = ("", "centre", "no_units", "concede")  # games table ``end_reason`` (spec §2.11; H8.2)
NO_END, END_CENTRE, END_NO_UNITS, END_CONCEDE = 0, 1, 2, 3

# -- modifier instances (I-35): w.g.hex_mods[b, m, field] --------------------------------------
def modifier_on(g: np.ndarray, b: int, s: int, m: int) -> None:
    """Record in game b's fields ``g`` (``w.g.hex``) that slot s holds modifier instance m
    (``MODDED``, ``MODS_TOP``): what every writer of an instance from Python calls
    (``cast.add_modifier`` sets the same in compiled code)."""
    g[b, MODDED] |= 1 << s
    g[b, MODS_TOP] = max(int(g[b, MODS_TOP]), m + 1)


MODS = 32
MOD_FIELDS = ("slot", "stat", "amount", "set", "keyword", "by", "until", "only", "source")
(M_SLOT, M_STAT, M_AMOUNT, M_SET, M_KEYWORD, M_BY, M_UNTIL, M_ONLY, M_SOURCE) = range(len(MOD_FIELDS))
ONLY_MELEE, ONLY_RANGED = 0, 1  # hex.md "(melee)" / "(ranged)" qualifiers; -1 = every unit
MOD_STATS = ("power", "range", "movement", "health", "mana", "cast_range", "spell_power", "armor", "magic_resist")
S_POWER, S_RANGE, S_MOVEMENT, S_HEALTH, S_CAST_RANGE, S_SPELL_POWER, S_ARMOR, S_MAGIC_RESIST = 0, 1, 2, 3, 5, 6, 7, 8
PERMANENT = 99  # ``until`` of a modifier without ``rounds``

# -- inline abilities: w.g.hex_abil[b, slot, k, field] ---------------------------------------
ABILITIES = 6  # spec §6: ABILITY_0..5
EFFECTS = 4
AB_FIELDS = ("present", "cost", "cast_range", "target", "once", "used_round", "n_effects", "combinable",
             "spell_power", "empty_hex", "moves_self", "channel", "pending_hex", "pending_unit")
(A_PRESENT, A_COST, A_CAST_RANGE, A_TARGET, A_ONCE, A_USED, A_NEFFECTS, A_COMBINABLE, A_SPELL_POWER, A_EMPTY_HEX,
 A_MOVES_SELF, A_CHANNEL, A_PENDING_HEX, A_PENDING_UNIT) = range(len(AB_FIELDS))
# A_CHANNEL: the ability's Channel X; A_PENDING_HEX / A_PENDING_UNIT: a channelled cast's target hex and
# unit, + 1 (0: not channelling)
ONCE_ROUND, ONCE_BATTLE = 1, 2  # ``once``: hex.md "once per round or per battle" (0 = no limit)
A_EFFECTS = len(AB_FIELDS)  # effect e's fields start at A_EFFECTS + e * NEF
EFFECT_FIELDS = ("op", "amount", "type", "nonlethal", "status", "rounds", "stat", "set", "keyword", "only", "select")
NEF = len(EFFECT_FIELDS)
(E_OP, E_AMOUNT, E_TYPE, E_NONLETHAL, E_STATUS, E_ROUNDS, E_STAT, E_SET, E_KEYWORD, E_ONLY, E_SELECT) = range(NEF)
# the units an effect hits (vocabulary.SELECTORS, in its order)
SELECTS = ("target", "self", "adjacent_enemies", "adjacent_allies", "chained", "triad", "enemies_in_range",
           "allies_in_range")
(SEL_TARGET, SEL_SELF, SEL_ADJ_ENEMIES, SEL_ADJ_ALLIES, SEL_CHAINED, SEL_TRIAD, SEL_ENEMIES_IN_RANGE,
 SEL_ALLIES_IN_RANGE) = range(len(SELECTS))
assert SELECTS == tuple(SELECTORS)
NAF = len(AB_FIELDS) + EFFECTS * NEF
TARGETS = ("enemy", "ally", "unit", "hex", "self", "none")
T_ENEMY, T_ALLY, T_UNIT, T_HEX, T_SELF, T_NONE = range(len(TARGETS))
INFINITE = 99  # cast range omitted (I-44: no range = infinite)
EFFECT_OPS = ("damage", "heal", "shield", "status", "mana", "push", "pull", "modifier", "sacrifice", "destroy",
              "relocate", "switch", "control", "summon")
(OP_DAMAGE, OP_HEAL, OP_SHIELD, OP_STATUS, OP_MANA, OP_PUSH, OP_PULL, OP_MODIFIER, OP_SACRIFICE, OP_DESTROY,
 OP_RELOCATE, OP_SWITCH, OP_CONTROL, OP_SUMMON) = range(len(EFFECT_OPS))


def _declare() -> None:
    """Register the hex components once (the registry refuses a different second declaration)."""
    have = registered_components()
    for name in INT_COLUMNS:
        if name.startswith(PREFIX) and name not in have:
            presence = "mask" if name in ("hex_pos", "hex_side", "hex_controller") else "nonzero"
            component(name, np.int16, default=-1 if name == "hex_pos" or name.endswith("_set") else 0, presence=presence,
                      doc=f"hex: {name.removeprefix(PREFIX)}")
    for name in TAG_COLUMNS:
        if name.startswith(PREFIX) and name not in have:
            component(name, np.bool_, presence="tag", doc=f"hex: {name[len(PREFIX):]}")


_declare()

STATE = (StateField("hex", np.int64, (len(GAME_FIELDS),), 0, "round, first player, to act, last actor, centre..."),
         StateField("hex_mods", np.int16, (MODS, len(MOD_FIELDS)), -1, "modifier instances (I-35)"),
         StateField("hex_abil", np.int16, (SLOTS, ABILITIES, NAF), 0, "inline active abilities"),
         StateField("hex_board", np.int64, (N_HEXES,), -1, "the slot on each hex, -1: empty (battle.stand keeps it)"))


def plugin_components() -> list[str]:
    """Components a plugin's hex damage stage reads that hex itself does not hold (a plugin
    extends hex as it extends lanes: its keyword is a component plus a compiled stage)."""
    from battlesim.ecs.compiled.stages import stages_of

    have = registered_components()
    out: list[str] = []
    for stage in stages_of("hex"):
        for name in stage.reads:
            if name in have and name not in COLUMNS and name not in out:
                out.append(name)
    return out


def new_world(n_games: int, seeds: np.ndarray | None = None) -> World:
    """An empty hex World of ``n_games`` games: every hex component (and those the loaded
    plugins' hex stages read), the per-game fields."""
    w = World(n_games, SLOTS, (*COLUMNS, *plugin_components()), STATE, seeds=seeds)
    w.g.hex[:, TO_ACT] = -1
    w.g.hex[:, LAST_ACTOR] = -1
    w.g.hex[:, WINNER] = -1
    w.g.hex[:, CENTRE_SHIELD] = 1
    w.g.hex[:, ROUND] = 1
    w.g.hex[:, ROUNDS] = 7  # I-17: exactly 7 rounds
    return w


def columns(view: WorldView) -> np.ndarray:
    """``int64[len(COLUMNS)]``: each column's row in its buffer (int16 ones in ``w.i16``, tags
    in ``w.flags``), the ``cols`` argument of every hex kernel."""
    return view.cols(COLUMNS)


def view_of(w: World) -> WorldView:
    return world_view(w)

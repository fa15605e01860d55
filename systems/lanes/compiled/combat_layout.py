"""What the compiled combat phase and settle read, named once: the ``cols`` table of component,
catalog and parameter ids (positions fixed here, ids given at run time by the World's layout,
DESIGN.md "Rules of the road": never a module global), the per-card rows and numbers derived from
the card set (attack auras, the listeners of each trigger combat and deaths fire), and the
per-game fields they write (``CombatFields``: the World's own arrays, by name, no copy).

Why a layout module of its own: ``combat.py`` and ``deaths.py`` both index the same table, and
the tests build it; one place keeps the positions and the names from drifting apart.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from battlesim.ecs.compiled.world_view import WorldView, world_view
from battlesim.systems.lanes.auras import _aura_tables
from battlesim.systems.lanes.compiled.tables import AURA_FIELDS, lanes_tables
from battlesim.systems.lanes.vocabulary import EXECUTOR

# the triggers combat and settle fire (lanes.md "Card Triggers"), in the order of TRIGGER_ROWS
TRIGGERS = ("before_combat", "on_attack", "on_equipped_attack", "on_ally_attack", "after_combat", "on_death",
            "on_enemy_death")

# positions 5..14 are what ``damage_stages.armor_aura`` reads (the aura reach walk), here over the
# attack-aura rows, so the one walk serves both stats; 0..4 are unused by it
READS = (
    "attack", "temp_attack", "card.attack", "anchor_aura", "param.auras_possible",  # 0..4
    "aura", "card_id", "owner", "lane", "pos", "anchor", "improvement", "creep",  # 5..12
    "card.aura_attack.0.side", "param.aura_attack_slots",  # 13, 14
    "enfeebled", "stunned", "disarmed", "health", "ruined", "equipment",  # 15..20
    "taunt", "card.kw_taunt", "stealth", "card.kw_stealth", "siege", "card.kw_siege",  # 21..26
    "cleave", "card.kw_cleave", "first_strike", "card.kw_first_strike",  # 27..30
    "dying", "hit_by", "bounty", "deck_pos", "hero", "hero_index",  # 31..36
    "rapid_deployment", "card.kw_rapid_deployment",  # 37, 38
    "param.bounty_hero", "param.bounty_unit", "param.hero_death_timer", "param.lanes",  # 39..42
    "faction", "max_health", "charges", "card.faction", "card.health", "card.ability_charges",  # 43..48
    "card.aura_card",  # 49
    *(f"card.listens.{t}" for t in TRIGGERS),  # 50..56
    *(f"param.trigger.{t}" for t in TRIGGERS),  # 57..63
    *(f"param.uses.{t}" for t in TRIGGERS),  # 64..70
)
(C_ATTACK, C_TEMP_ATTACK, C_CARD_ATTACK, C_ANCHOR_AURA, C_AURAS_POSSIBLE, C_AURA, C_CARD_ID, C_OWNER, C_LANE, C_POS,
 C_ANCHOR, C_IMPROVEMENT, C_CREEP, C_AURA_ROWS, C_AURA_SLOTS, C_ENFEEBLED, C_STUNNED, C_DISARMED, C_HEALTH,
 C_RUINED, C_EQUIPMENT, C_TAUNT, C_KW_TAUNT, C_STEALTH, C_KW_STEALTH, C_SIEGE, C_KW_SIEGE, C_CLEAVE, C_KW_CLEAVE,
 C_FIRST_STRIKE, C_KW_FIRST_STRIKE, C_DYING, C_HIT_BY, C_BOUNTY, C_DECK_POS, C_HERO, C_HERO_INDEX, C_RAPID,
 C_KW_RAPID, C_BOUNTY_HERO, C_BOUNTY_UNIT, C_HERO_DEATH_TIMER, C_LANES, C_FACTION, C_MAX_HEALTH, C_CHARGES,
 C_CARD_FACTION, C_CARD_HEALTH, C_CARD_CHARGES, C_AURA_CARD) = range(50)
C_LISTENS = 50  # + index in TRIGGERS
C_TRIGGER = C_LISTENS + len(TRIGGERS)
C_USES = C_TRIGGER + len(TRIGGERS)
(T_BEFORE_COMBAT, T_ON_ATTACK, T_ON_EQUIPPED_ATTACK, T_ON_ALLY_ATTACK, T_AFTER_COMBAT, T_ON_DEATH,
 T_ON_ENEMY_DEATH) = range(len(TRIGGERS))

# the "mask" components ``board.spawn`` gives a value through ``World.add`` (their presence set)
PRESENT_ON_SPAWN = ("card_id", "owner", "faction", "attack", "health", "max_health", "hero_index", "lane", "pos")
GROUP_CODE = {"i16": 0, "i8": 1, "flags": 2}


class CombatFields(NamedTuple):
    """The per-game fields and World arrays combat and settle use besides ``WorldState``."""

    board: np.ndarray  # int16[B, 2, L, P]
    round: np.ndarray  # int16[B]
    gold: np.ndarray  # int32[B, 2]
    card_died: np.ndarray  # int16[B, 2, D]
    hero_status: np.ndarray  # int8[B, 2, H]
    hero_ready_round: np.ndarray  # int16[B, 2, H]
    hero_card: np.ndarray  # int16[B, 2, H]
    active: np.ndarray  # bool[B]
    next_serial: np.ndarray  # the World's serial counters (a spawn takes the next)
    release_i16: np.ndarray  # int64[K]: each int16 row's default (``World.release``)
    release_i8: np.ndarray
    release_flags: np.ndarray  # tags' defaults, then presence masks (False)
    release_i16x2: np.ndarray
    spawn_rows: np.ndarray  # int64[R, 3]: (group code, row, catalog row) a spawn copies from the card
    present_rows: np.ndarray  # int64[R]: flags rows of the presence masks a spawn sets


def combat_tables(w: Any) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """``lanes_tables`` plus what combat reads: attack-aura rows (as the armor ones), which cards
    carry an aura (``aura_card``), the listeners, trigger ids and "some card uses it" of TRIGGERS."""
    cards, params = lanes_tables(w)
    n = len(w.catalog)
    slots = _aura_tables(w)["slots"]["attack"] if w.cache.get("auras_possible") else []
    for j in range(max(len(slots), 1)):
        values = slots[j] if j < len(slots) else [np.zeros(n, dtype=np.int64)] * len(AURA_FIELDS)
        for name, col in zip(AURA_FIELDS, values):
            cards[f"aura_attack.{j}.{name}"] = np.asarray(col).astype(np.int64)
    params["aura_attack_slots"] = len(slots)
    params["auras_possible"] = int(bool(w.cache.get("auras_possible")))
    cards["aura_card"] = np.asarray(w.cache["aura_cards"]).astype(np.int64)
    for t in TRIGGERS:
        tid = EXECUTOR.id("trigger", t)
        listens = w.effects.cards_with(tid).astype(np.int64)
        cards.setdefault(f"listens.{t}", listens)
        params.setdefault(f"trigger.{t}", tid)
        params[f"uses.{t}"] = int(EXECUTOR.listens(w, t))
    return cards, params


def combat_view(w: Any) -> WorldView:
    """The World as compiled combat sees it (``world_view`` with ``combat_tables``)."""
    cards, params = combat_tables(w)
    return world_view(w, extra_cards=cards, extra_params=params)


def combat_fields(w: Any, view: WorldView) -> CombatFields:
    """The World's own per-game arrays combat writes, and the release and spawn tables."""
    defaults: dict[str, np.ndarray] = {}
    for group, shape in (("i16", ()), ("i8", ()), ("flags", ()), ("i16x2", (2,))):
        buf = getattr(view.state, group)
        d = np.zeros(buf.shape[0], dtype=np.int64)
        for name, (g, k) in view.columns.items():
            if g == group:
                d[k] = int(np.asarray(w.components[name].default).reshape(-1)[0])
        defaults[group] = d  # presence rows stay 0: released, an entity holds no component
    spawn = []
    for kw in w.catalog.keywords:
        group, k = view.columns[kw]
        spawn.append((GROUP_CODE[group], k, view.cat_rows[f"kw_{kw}"]))
    present = [view.presence[name] for name in PRESENT_ON_SPAWN if name in view.presence]
    return CombatFields(w.g.board, w.g.round, w.g.gold, w.g.card_died, w.g.hero_status, w.g.hero_ready_round,
                        w.g.hero_card, w.active, w._next_serial, defaults["i16"], defaults["i8"], defaults["flags"],
                        defaults["i16x2"], np.array(spawn, dtype=np.int64).reshape(-1, 3),
                        np.array(present, dtype=np.int64))

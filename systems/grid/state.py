"""Grid game state: the grid components on the World, the column table kernels index, the
per-game fields, the card and board tables, and ``new_world``.

Units are entities with the ``grid_`` components (systems/grid/components.py). A kernel reads
one as ``w.i16[cols[HP], b, s]`` (``w`` the World as grid's kernels see it, ``GridWorld``;
``cols`` this module's column table built from the World's layout at run time, so a row of a
buffer never becomes a frozen numba global; docs/compiled-core.md "Why column ids are an
argument"). The *positions* in the table (``HP`` = 2...) are this module's constants, watched
by ``kernel_cache``.

Per-game state that is not an entity lives in ``GridFields`` (the World's own ``w.g.*``
arrays): the game fields (round, whose turn, active unit, winner, each player's gold, SE, kill
points and pile sizes), the hands, draw piles and cemeteries as card ids, each unit's ability
rows (a scenario may give a unit abilities its card does not have), the traps on the board and
the counter RNG. Static data are ``CardTables`` (by card id) and ``BoardTables`` (by cell).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from battlesim.ecs.compiled.rng import rng_state
from battlesim.ecs.compiled.world_view import WorldView, world_view
from battlesim.ecs.world import StateField, World
from battlesim.systems.grid import components as _components  # noqa: F401  (declares the grid components)
from battlesim.systems.grid.board import Board, home_cells
from battlesim.systems.grid.cards import MAX_ABILITIES, AbilitySpec, CardSpec
from battlesim.systems.grid.params import GridParams
from battlesim.systems.grid.vocabulary import CARD_TYPES, CLASS_NAMES, CONCEAL_STATUSES, DAMAGE_TYPES, OP_NAMES

SLOTS = 32  # units a game can hold at once (both sides)
K = MAX_ABILITIES
DECK_MAX = 64  # draw pile and cemetery capacity per player
NONE = -1

# -- the unit columns, in table order (int16, int8, then tags) -------------------------------------
I16 = ("grid_cell", "grid_card", "grid_hp", "grid_max_hp", "grid_damage", "grid_resist_physical",
       "grid_resist_magic", "grid_resist_poison", "grid_item")
I8 = ("grid_side", "grid_class", "grid_mv", "grid_mv_left", "grid_damage_type", "grid_range", "grid_kill_points",
      "grid_parry", "grid_parried", "grid_turn_state")
TAGS = ("grid_flying", "grid_hiding", "grid_hidden", "grid_invisible", "grid_stunned", "grid_hero",
        "grid_action_used", "grid_bonus_used", "grid_attacked")
COLUMNS = (*I16, *I8, *TAGS)
(CELL, CARD, HP, MAX_HP, DAMAGE, RES0, RES1, RES2, ITEM,
 SIDE, CLS, MV, MV_LEFT, DTYPE, RANGE, KP, PARRY, PARRIED, TURN_STATE,
 FLYING, HIDING, HIDDEN, INVISIBLE, STUNNED, HERO, ACTION_USED, BONUS_USED, ATTACKED) = range(len(COLUMNS))
READY, ACTIVE_TURN, OVER = 0, 1, 2  # grid_turn_state: one unit turn per player turn (4.1.2-4.1.3)
ROGUE = CLASS_NAMES.index("rogue")
MAGIC = DAMAGE_TYPES.index("magic")

# -- per-game fields: f.g[b, field] ------------------------------------------------------------------
GAME_FIELDS = ("round", "turn", "first", "active", "winner", "draw", "over", "end_reason",
               "gold0", "gold1", "se0", "se1", "kp0", "kp1", "hand0", "hand1", "deck0", "deck1", "cem0", "cem1",
               "log_n")
(ROUND, TURN, FIRST, ACTIVE, WINNER, DRAW, GAME_OVER, END_REASON,
 GOLD, _G1, SE, _S1, KPTS, _K1, HAND_N, _H1, DECK_N, _D1, CEM_N, _C1, LOG_N) = range(len(GAME_FIELDS))

# -- the card log: f.log[b, row, field], one row per card instance that left a draw pile or started
# on the board (the cards table of a run; what happens to it is bookkeeping, never a rule) --------
LOG_FIELDS = ("side", "card", "drawn", "played", "died", "kills")
(L_SIDE, L_CARD, L_DRAWN, L_PLAYED, L_DIED, L_KILLS) = range(len(LOG_FIELDS))
LOG_MAX = 2 * (DECK_MAX + 1)  # both draw piles and both starting heroes
END_REASONS = ("", "kill_points", "round_limit", "elimination")
NO_END, END_KILL_POINTS, END_ROUND_LIMIT, END_ELIMINATION = range(len(END_REASONS))

# -- ability rows: f.abil[b, s, k, field] and ct.abil[card, k, field] ---------------------------------
AB_FIELDS = ("op", "bonus", "se", "damage", "bonus_damage", "mult2", "dtype", "range", "area", "stun",
             "requires_hidden", "amount", "card", "status", "only_class")
(A_OP, A_BONUS, A_SE, A_DAMAGE, A_BONUS_DAMAGE, A_MULT2, A_DTYPE, A_RANGE, A_AREA, A_STUN,
 A_REQUIRES_HIDDEN, A_AMOUNT, A_CARD, A_STATUS, A_ONLY_CLASS) = range(len(AB_FIELDS))
(OP_ATTACK, OP_EXTRA_MV, OP_JUMP, OP_TELEPORT, OP_PUSH, OP_RUSH, OP_HEAL, OP_GATHER, OP_SEARCH,
 OP_CONCEAL) = (OP_NAMES.index(n) for n in ("attack", "extra_mv", "jump", "teleport", "push", "rush", "heal",
                                             "gather", "search", "conceal"))
STATUS_HIDDEN, STATUS_INVISIBLE = CONCEAL_STATUSES.index("hidden"), CONCEAL_STATUSES.index("invisible")

# -- card table: ct.card[card, field] ----------------------------------------------------------------
CARD_FIELDS = ("type", "cls", "cost", "hp", "mv", "damage", "dtype", "range", "res0", "res1", "res2", "kp",
               "flying", "hiding", "parry", "hero", "g_mv", "g_damage", "g_range", "g_res0", "g_res1", "g_res2",
               "g_dtype", "g_flying", "g_hiding", "g_parry")
(C_TYPE, C_CLS, C_COST, C_HP, C_MV, C_DAMAGE, C_DTYPE, C_RANGE, C_RES, _CR1, _CR2, C_KP,
 C_FLYING, C_HIDING, C_PARRY, C_HERO, G_MV, G_DAMAGE, G_RANGE, G_RES, _GR1, _GR2,
 G_DTYPE, G_FLYING, G_HIDING, G_PARRY) = range(len(CARD_FIELDS))
T_UNIT, T_HERO, T_SPELL, T_ITEM, T_TRAP = (CARD_TYPES.index(t) for t in ("unit", "hero", "spell", "item", "trap"))

# -- parameters: pr[index] ---------------------------------------------------------------------------
PARAMS = ("width", "height", "deploy_rows", "hand_limit", "gold_per_turn", "se_per_turn", "se_cap",
          "hired_units_act", "kill_points_to_win", "round_limit", "elimination", "aoe_friendly_fire")
(P_WIDTH, P_HEIGHT, P_DEPLOY_ROWS, P_HAND_LIMIT, P_GOLD_PER_TURN, P_SE_PER_TURN, P_SE_CAP,
 P_HIRED_UNITS_ACT, P_KP_TO_WIN, P_ROUND_LIMIT, P_ELIMINATION, P_FRIENDLY_FIRE) = range(len(PARAMS))


class GridWorld(NamedTuple):
    """The World as grid's kernels see it: the four planes they read (``kernel_world``). Not the
    whole ``WorldState``: a compiled call passes every array of a tuple argument, each as ~7
    scalars, read or not, and the mask and the actions are called on every decision
    (docs/grid-speed.md, session 11)."""

    i16: np.ndarray  # int16[columns, B, S]
    i8: np.ndarray  # int8[columns, B, S]
    flags: np.ndarray  # bool[tag columns, B, S]
    alive: np.ndarray  # bool[B, S]


class GridFields(NamedTuple):
    """The per-game arrays a grid kernel takes (the World's own ``w.g.*``)."""

    g: np.ndarray  # int32[B, GAME_FIELDS]
    hand: np.ndarray  # int16[B, 2, hand_limit]: card ids, oldest first
    deck: np.ndarray  # int16[B, 2, DECK_MAX]: draw piles, top card first
    cem: np.ndarray  # int16[B, 2, DECK_MAX]: cemeteries, in order of arrival
    abil: np.ndarray  # int16[B, SLOTS, K, AB_FIELDS]
    trap: np.ndarray  # int16[B, C, 2]: (trap card id or -1, its owner)
    rng: np.ndarray  # uint64[B, 2]: the counter RNG (ecs/compiled/rng.py)
    log: np.ndarray  # int16[B, LOG_MAX, LOG_FIELDS]: the card log (rounds; 0 = did not happen)
    slot_row: np.ndarray  # int16[B, SLOTS]: the card-log row of the unit in each slot, -1 none
    occ: np.ndarray  # int8[B, C]: the side standing on each cell, -1 empty (occupancy.py)
    who: np.ndarray  # int16[B, C]: the slot standing on each cell, -1 empty


class BoardTables(NamedTuple):
    """A board's static tables (systems/grid/board.py) plus each cell's home side and half."""

    neighbours: np.ndarray  # int16[C, 4]
    manhattan: np.ndarray  # int16[C, C]
    wall: np.ndarray  # bool[C]
    web: np.ndarray  # bool[C]
    mana: np.ndarray  # bool[C]
    home: np.ndarray  # int8[C]: the side whose deploy rows hold the cell, -1 none
    half: np.ndarray  # int8[C]: the side whose half of the board holds the cell (traps), -1 none


class CardTables(NamedTuple):
    card: np.ndarray  # int16[N, CARD_FIELDS]
    abil: np.ndarray  # int16[N, K, AB_FIELDS]: a unit's abilities; a spell's or trap's effect in slot 0


def ability_row(a: AbilitySpec | None, spell: bool = False) -> list[int]:
    """One ability as its table row; -1 where the ability says nothing (an attack's damage type
    is then the unit's at the time of the attack, a spell's magic: grid.md 4.4.3 "Magic damage
    occurs from spells"; its range the unit's; a heal's 1, a conceal's 0: spec §3)."""
    if a is None:
        row = [NONE] * len(AB_FIELDS)
        return row
    dtype = DAMAGE_TYPES.index(a.damage_type) if a.damage_type else (MAGIC if spell and a.op == "attack" else NONE)
    rng = a.range if a.range is not None else {"heal": 1, "conceal": 0}.get(a.op, NONE)
    amount = a.amount if a.amount is not None else (1 if a.op == "push" else 0)
    return [OP_NAMES.index(a.op), int(a.bonus), a.se, NONE if a.damage is None else a.damage, a.bonus_damage or 0,
            a.mult2, dtype, rng, NONE if a.area is None else a.area, int(bool(a.stun)), int(bool(a.requires_hidden)),
            amount, NONE, NONE if a.status is None else CONCEAL_STATUSES.index(a.status),
            NONE if a.only_class is None else CLASS_NAMES.index(a.only_class)]


def card_tables(names: list[str], specs: dict[str, CardSpec]) -> CardTables:
    """The card set as tables by card id (``names`` in catalog order)."""
    from battlesim.systems.grid.catalog import unit_range

    n = len(names)
    index = {nm: i for i, nm in enumerate(names)}
    card = np.full((n, len(CARD_FIELDS)), NONE, dtype=np.int16)
    abil = np.full((n, K, len(AB_FIELDS)), NONE, dtype=np.int16)
    for i, nm in enumerate(names):
        s = specs[nm]
        g = s.grants
        kw = s.keywords
        gk = g.keywords if g else {}
        card[i] = [CARD_TYPES.index(s.type), CLASS_NAMES.index(s.class_) if s.class_ else NONE, s.cost, s.hp, s.mv,
                   s.damage, DAMAGE_TYPES.index(s.damage_type), unit_range(s), *s.resist.as_tuple(),
                   s.points if s.is_unit else 0, int(bool(kw.get("flying"))), int(bool(kw.get("hiding"))),
                   int(kw.get("parry", 0)), int(s.type == "hero"),
                   g.mv if g else 0, g.damage if g else 0, g.range if g else 0,
                   *(g.resist.as_tuple() if g else (0, 0, 0)),
                   DAMAGE_TYPES.index(g.damage_type) if g and g.damage_type else NONE,
                   int(bool(gk.get("flying"))), int(bool(gk.get("hiding"))), int(gk.get("parry", 0))]
        own = list(s.abilities) + ([s.effect] if s.effect is not None else [])
        for k, a in enumerate(own[:K]):
            row = ability_row(a, spell=s.type in ("spell", "trap"))
            if a.card is not None:
                row[A_CARD] = index[a.card]
            abil[i, k] = row
    return CardTables(card, abil)


def board_tables(board: Board, params: GridParams) -> BoardTables:
    w, h = board.width, board.height
    home = np.full(board.cells, NONE, dtype=np.int8)
    half = np.full(board.cells, NONE, dtype=np.int8)
    for side in (0, 1):
        home[home_cells(side, w, h, params.deploy_rows)] = side
        half[home_cells(side, w, h, h // 2)] = side
    return BoardTables(board.neighbours, board.manhattan, board.wall, board.web, board.mana, home, half)


def param_table(params: GridParams, width: int, height: int) -> np.ndarray:
    values = params.model_dump()
    values.update(width=width, height=height)
    return np.array([int(values[p]) for p in PARAMS], dtype=np.int64)


def new_world(n_games: int, cells: int, hand_limit: int, seeds: np.ndarray) -> World:
    """An empty grid World of ``n_games`` games on a board of ``cells`` cells."""
    state = (StateField("grid", np.int32, (len(GAME_FIELDS),), 0, "round, turn, active unit, gold, SE..."),
             StateField("grid_hand", np.int16, (2, hand_limit), NONE, "hands (card ids)"),
             StateField("grid_deck", np.int16, (2, DECK_MAX), NONE, "draw piles, top first"),
             StateField("grid_cem", np.int16, (2, DECK_MAX), NONE, "cemeteries"),
             StateField("grid_abil", np.int16, (SLOTS, K, len(AB_FIELDS)), NONE, "each unit's ability rows"),
             StateField("grid_trap", np.int16, (cells, 2), NONE, "traps: card, owner"),
             StateField("grid_rng", np.uint64, (2,), 0, "counter RNG"),
             StateField("grid_log", np.int16, (LOG_MAX, len(LOG_FIELDS)), 0, "card log: drawn, played, died, kills"),
             StateField("grid_slot_row", np.int16, (SLOTS,), NONE, "each slot's card-log row"),
             StateField("grid_occ", np.int8, (cells,), NONE, "the side on each cell, -1 empty"),
             StateField("grid_who", np.int16, (cells,), NONE, "the slot on each cell, -1 empty"))
    seeds = np.asarray(seeds, dtype=np.int64)
    w = World(n_games, SLOTS, COLUMNS, state, seeds=seeds)
    w.g.grid[:, ACTIVE] = NONE
    w.g.grid[:, WINNER] = NONE
    w.g.grid[:, ROUND] = 1
    w.g.grid_rng[:] = rng_state(seeds)
    return w


def fields(w: World) -> GridFields:
    return GridFields(w.g.grid, w.g.grid_hand, w.g.grid_deck, w.g.grid_cem, w.g.grid_abil, w.g.grid_trap,
                      w.g.grid_rng, w.g.grid_log, w.g.grid_slot_row, w.g.grid_occ, w.g.grid_who)


def columns(view: WorldView) -> np.ndarray:
    """``int64[len(COLUMNS)]``: each column's row in its buffer, the ``cols`` argument of every kernel."""
    return view.cols(COLUMNS)


def view_of(w: World) -> WorldView:
    return world_view(w)


def kernel_world(view: WorldView) -> GridWorld:
    """The ``w`` argument of every grid kernel: the planes of ``view.state`` grid reads."""
    s = view.state
    return GridWorld(s.i16, s.i8, s.flags, s.alive)

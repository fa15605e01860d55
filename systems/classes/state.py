"""The classes game state as compiled code sees it: a few grouped per-game arrays (``Game``), and
the card set, powers and effects as numbers (``Rules``, built by ``rules.py``).

Why grouped arrays and not one World column per component: DESIGN.md "Rules of the road": "numba
increfs/decrefs every array of a tuple argument on every call: pass few, grouped arrays". A
unit's components are the columns of one int16 row, ``u[b, field, k]``, and each column *is* the
``classes_<word>`` component of ``components.py`` (``UNIT_COLUMNS`` names them; a test checks
every declared component has its column). Units are indexed by their field (classes.md "Field:
it can contain only one unit"), so the board needs no slot allocator and the acting order is a
walk over field ids; a unit's identity across moves is ``classes_uid``.

The positions below (``U_HEALTH`` = 4 ...) are this module's constants, frozen into the cached
machine code: ``kernel_cache.check`` flushes the cache when this layout changes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.systems.classes.board import LANES, ROWS, ROWS_MAX
from battlesim.systems.classes.components import PREFIX
from battlesim.systems.classes.handle import Handle, HandleType, register
from battlesim.systems.classes.vocabulary import (
    COLOURS,
    CONDITION_SLOTS,
    CONDITIONS,
    COOLDOWN_SLOTS,
    KEYWORDS,
    SHAPES,
)

NONE = -1
NCOL = len(COLOURS)  # white red blue purple summoning
WILD = NCOL  # a cost's sixth entry (vocabulary.COST_COLOURS)
SUMMONING = 4
HAND = 40  # spec §13: H = 40
AREA = 8  # play-area cards a side can hold (5 enchantment shapes + auras)
POWERS = 12  # spec §13: P = 12
ABILITIES = 3  # spec §13: A = 3
TOKENS = 5  # powers.SLOTS_MAX
LEVELS = 20  # powers.LEVEL_MAX
BONUSES = 4  # a level's bonus list (LevelSpec.bonus max_length)
ANSWERS = 32  # level-up answers a scenario may give a side
JOBS = 64  # effect lists waiting to resolve in one game (the worklist)
NSHAPES = len(SHAPES)
FIELDS_MAX = LANES * ROWS_MAX  # the scratch regions of a field list fit any board (``params.rows``)

# -- a unit: u[b, field, column] (each column a classes_ component) -------------------------
_UNIT = ("present", "side", "card", "uid", "health", "attack", "has_attack", "base_health", "base_attack", "range",
         "defending", "acted", "moves", "ability_used", "aura_health", *KEYWORDS, *CONDITIONS,
         *(f"plugin_condition_{k}" for k in range(CONDITION_SLOTS)))  # kept for plugins (conditions.py)
UNIT_COLUMNS = (*(PREFIX + w for w in _UNIT), *(f"{PREFIX}enchanted_{p}_{s}" for p in (0, 1) for s in SHAPES))
(U_PRESENT, U_SIDE, U_CARD, U_UID, U_HEALTH, U_ATTACK, U_HAS_ATTACK, U_BASE_HEALTH, U_BASE_ATTACK, U_RANGE,
 U_DEFENDING, U_ACTED, U_MOVES, U_ABILITY_USED, U_AURA_HEALTH) = range(15)
U_KEYWORD = 15
U_SHIELD, U_FEROCIOUS, U_GROUNDED, U_MOMENTUM, U_ETHEREAL = (U_KEYWORD + list(KEYWORDS).index(k) for k in
                                                            ("shield", "ferocious", "grounded", "momentum", "ethereal"))
U_CONDITION = U_KEYWORD + len(KEYWORDS)
U_HASTE, U_STUN, U_TURNOVER, U_CHILL, U_ANTIMAGIC, U_SNARE = (U_CONDITION + list(CONDITIONS).index(c) for c in
                                                              ("haste", "stun", "turnover", "chill", "antimagic", "snare"))
U_PLUGIN_CONDITION = U_CONDITION + len(CONDITIONS)  # + k: plugin condition k (Rules.conditions row k)
U_ENCH = U_PLUGIN_CONDITION + CONDITION_SLOTS  # + side * NSHAPES + shape
NU = U_ENCH + 2 * NSHAPES

# -- a player: pl[b, side, column] ---------------------------------------------------------
PLAYER_FIELDS = ("life", "level", "experience", "levels", "pool", "track", "current", "prepared", "prepared_mana",
                 "prepared_turn", "answer", "answers", "cast", "summoned", "kills", "gained")
P_LIFE, P_LEVEL, P_EXP, P_NLEVELS = 0, 1, 2, 3
P_POOL = 4  # + colour
P_TRACK = P_POOL + NCOL  # + slot * NCOL + colour
P_CURRENT = P_TRACK + COOLDOWN_SLOTS * NCOL
P_PREP = P_CURRENT + 1  # the prepared card, NONE if none
P_PREP_MANA = P_PREP + 1  # + colour
P_PREP_TURN = P_PREP_MANA + NCOL
P_ANSWER = P_PREP_TURN + 1  # next level-up answer to read
P_NANSWERS = P_ANSWER + 1
P_CAST = P_NANSWERS + 1
P_SUMMONED = P_CAST + 1
P_KILLS = P_SUMMONED + 1
P_GAINED = P_KILLS + 1  # mana gained for good ("Gain (mana)", level-up Mana): the conservation invariant's tally
NP = P_GAINED + 1

# -- a play-area card: area[b, side, k, field], oldest first -------------------------------
A_CARD, A_SHAPE, A_TOKENS = 0, 1, 2
NA = 3
# -- a power on a side's board: pw[b, side, k, field] --------------------------------------
W_ID, W_TOKENS, W_CLOCK = 0, 1, 2  # W_CLOCK + ability: used this player turn
NW = W_CLOCK + ABILITIES
# -- a level row: lv[b, side, level - 1, field] --------------------------------------------
L_MAX, L_BONUS = 0, 1  # L_BONUS + k: 0 none, 1 mana, 2 power token
NL = L_BONUS + BONUSES
BONUS_MANA, BONUS_TOKEN = 1, 2
# level-up answers: 0-3 gain that colour; 4-7 replace colour (k - 4) by summoning; 100 + k power k
ANSWER_REPLACE, ANSWER_POWER = 4, 100

# -- per-game fields: g[b, field] ----------------------------------------------------------
GAME_FIELDS = ("turn", "active", "winner", "draw", "ended", "next_uid", "attacker", "error", "njobs", "turn_limit",
               "end_reason", "base_defense", "attacks")
(G_TURN, G_ACTIVE, G_WINNER, G_DRAW, G_ENDED, G_NEXT_UID, G_ATTACKER, G_ERROR, G_NJOBS, G_TURN_LIMIT, G_END_REASON,
 G_BASE_DEFENSE, G_ATTACKS) = range(len(GAME_FIELDS))
# The last LOG_N attacks (a ring, entry G_ATTACKS % LOG_N): what the replay shows of each (issue 15:
# "target chosen by the search rule, damage, flanking, defence"); -1 defence: the target was not defending.
LOG_FIELDS = ("attacker", "target", "attack", "defense", "flankers", "damage")
LG_ATTACKER, LG_TARGET, LG_ATTACK, LG_DEFENSE, LG_FLANKERS, LG_DAMAGE = range(len(LOG_FIELDS))
LOG_N = 8
G_LOG = len(GAME_FIELDS)  # + (attacks % LOG_N) * len(LOG_FIELDS) + LG_*
NG = G_LOG + LOG_N * len(LOG_FIELDS)
END_REASONS = ("", "life", "turn_limit")

# -- a job (an effect list waiting to resolve): jobs[b, k, field] -------------------------
JOB_FIELDS = ("start", "n", "trigger", "owner", "card", "src", "shape", "target", "choice", "spell", "by_card",
              "power", "after")
J_START, J_N, J_TRIGGER, J_OWNER, J_CARD, J_SRC, J_SHAPE, J_TARGET, J_CHOICE, J_SPELL, J_BY_CARD, J_POWER, J_AFTER = \
    range(len(JOB_FIELDS))
NJ = len(JOB_FIELDS)
AFTER_NOTHING, AFTER_UNLEASH = 0, 1  # after an unleash: remove a duration token (classes.md "Unleashing")

# -- targets (one integer): a field id, a player, an intersection, a first-row lane --------
T_NONE = NONE
T_PLAYER = 100  # + side
T_INTERSECTION = 200  # + intersection id
T_LANE = 300  # + lane (a summon's first-row field)

# -- error codes of an illegal action (scenario.py words them; G13 fixes the key words) ------
ERRORS = ("", "cannot pay its cost", "not in hand", "the prepared spell cannot be cast on the turn it was prepared",
          "the first-row field is occupied", "used once per turn already (the clock)", "the power is locked",
          "Antimagic: the unit cannot be targeted by cards", "no such target", "no Attack value",
          "no valid attack target", "no free enchantment shape", "nothing prepared with that name",
          "not a spell", "no card of that type in hand", "the power needs more tokens", "the power has no free slot",
          "illegal level-up answer", "no unit there", "not the active player's unit", "the unit has no ability",
          "the game is over", "too many effects at once",
          "the play area is full", "the hand is full", "not the active player")
(E_OK, E_PAY, E_HAND, E_SAME_TURN, E_OCCUPIED, E_CLOCK, E_LOCKED, E_ANTIMAGIC, E_TARGET, E_NO_ATTACK, E_NO_VALID,
 E_SHAPE, E_NOT_PREPARED, E_NOT_SPELL, E_NO_TYPE, E_TOKENS, E_FULL_POWER, E_ANSWER, E_NO_UNIT, E_NOT_OWN,
 E_NO_ABILITY, E_OVER, E_JOBS, E_AREA, E_HAND_FULL, E_NOT_ACTIVE) = range(len(ERRORS))


# -- scratch: scr[b, k], the buffers a kernel would otherwise allocate on every call -----------
# The kernels run without numba's reference counting (``_nrt=False``: every array read out of
# ``Game`` would be an atomic incref and decref, most of a random game's time), and code compiled
# so cannot allocate. Each buffer is a region of the game's row, named by what it holds; regions
# are shared only by functions that never hold one across a call to another of its users.
SCRATCH = (("payer", NCOL),  # the default payer (every entry -1: mana.payment); never written
           ("paid", NCOL),  # mana.spend: the colours a payment takes
           ("selected", FIELDS_MAX),  # effects.apply: the fields an effect's selector names
           ("in_order", FIELDS_MAX),  # acting.snapshot and acting.haste: a side's units in acting order
           ("act_uids", FIELDS_MAX), ("act_fields", FIELDS_MAX),  # the Act Step's snapshot (choice 5), and Haste's
           ("unleashed", AREA),  # actions.begin_phase: the enchantments unleashed, in order
           ("act_kinds", FIELDS_MAX + 4), ("act_targets", FIELDS_MAX + 4),  # greedy: a unit's candidate actions
           ("chosen", 4))  # loop.main_one: the Main Phase action taken
SC = {}
_at = 0
for _name, _n in SCRATCH:
    SC[_name] = _at
    _at += _n
NSCR = _at
SC_PAYER, SC_PAID, SC_SELECTED, SC_IN_ORDER = SC["payer"], SC["paid"], SC["selected"], SC["in_order"]
SC_ACT_UIDS, SC_ACT_FIELDS, SC_UNLEASHED = SC["act_uids"], SC["act_fields"], SC["unleashed"]
SC_ACT_KINDS, SC_ACT_TARGETS, SC_CHOSEN = SC["act_kinds"], SC["act_targets"], SC["chosen"]

# -- the cards table's tally: tally[b, side, card, column], counted where each thing happens --
# casts (from hand or prepared), units summoned (``effects.summon``), the turn the card's unit
# last died (``units.kill``), enemy units its unit or spell killed, the turn it was first cast
TALLY_COLUMNS = ("cast", "summoned", "died", "kills", "played")
LC_CAST, LC_SUMMONED, LC_DIED, LC_KILLS, LC_PLAYED = range(len(TALLY_COLUMNS))
NLC = len(TALLY_COLUMNS)


GAME_ARRAYS = ("g", "u", "pl", "hand", "nether", "upgrade", "area", "pw", "lv", "ans", "jobs", "scr", "tally")


class GameType(HandleType):
    """The numba type of ``Game``."""


class Game(Handle):
    """B games of classes, every array ``[B, ...]``; a kernel takes it whole, as one pointer
    (``handle.py``: a NamedTuple of these 13 arrays was ~90 scalars per call).

    g: int64[B, NG]; u: int16[B, LANES * rows, NU]; pl: int16[B, 2, NP]; hand, nether, upgrade (the
    Class Upgrade deck): int16[B, 2, HAND] card ids, NONE = empty; area: int16[B, 2, AREA, NA];
    pw: int16[B, 2, POWERS, NW]; lv: int16[B, 2, LEVELS, NL]; ans: int16[B, 2, ANSWERS]; jobs:
    int64[B, JOBS, NJ]; scr: int64[B, NSCR] (``SCRATCH``); tally: int32[B, 2, cards, NLC]
    (``TALLY_COLUMNS``; a greedy trial's scratch game counts too, unread).
    """

    ARRAYS = GAME_ARRAYS


register(GameType, Game, GAME_ARRAYS)


@njit(cache=True)
def make_game(g, u, pl, hand, nether, upgrade, area, pw, lv, ans, jobs, scr, tally):  # type: ignore[no-untyped-def]
    """The compiled handle of these arrays (cached: numba's own constructor compiles per process)."""
    return Game(g, u, pl, hand, nether, upgrade, area, pw, lv, ans, jobs, scr, tally)


Game.MAKE = make_game


def new_game(n_games: int, cards: int, life: int = 20, turn_limit: int = 60, base_defense: int = 1,
             rows: int = ROWS) -> Game:
    """``n_games`` empty games of a card set of ``cards`` cards (the tally has a row for each): no
    units, empty hands, life ``life``, turn 1, seat 0 active (the ruleset parameters ``life``,
    ``turn_limit``, ``base_defense``), on a board of ``rows`` rows (the unit array has its
    ``LANES * rows`` fields: the kernels read the board's size from it)."""
    B = int(n_games)
    g = np.zeros((B, NG), np.int64)
    g[:, G_TURN] = 1
    g[:, G_WINNER] = NONE
    g[:, G_ATTACKER] = NONE
    g[:, G_TURN_LIMIT] = turn_limit
    g[:, G_BASE_DEFENSE] = base_defense
    pl = np.zeros((B, 2, NP), np.int16)
    pl[:, :, P_LIFE] = life
    pl[:, :, P_LEVEL] = 1
    pl[:, :, P_PREP] = NONE
    u = np.zeros((B, LANES * int(rows), NU), np.int16)
    u[:, :, U_CARD] = NONE
    area = np.full((B, 2, AREA, NA), NONE, np.int16)
    pw = np.zeros((B, 2, POWERS, NW), np.int16)
    pw[:, :, :, W_ID] = NONE
    scr = np.zeros((B, NSCR), np.int64)
    scr[:, SC_PAYER:SC_PAYER + NCOL] = NONE
    return Game(g, u, pl, np.full((B, 2, HAND), NONE, np.int16), np.full((B, 2, HAND), NONE, np.int16),
                np.full((B, 2, HAND), NONE, np.int16), area, pw, np.zeros((B, 2, LEVELS, NL), np.int16),
                np.full((B, 2, ANSWERS), NONE, np.int16), np.zeros((B, JOBS, NJ), np.int64), scr,
                np.zeros((B, 2, int(cards), NLC), np.int32))


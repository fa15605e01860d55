"""Lanes' agents compiled, one game per call (issue 13; the numpy twins are ``RandomAgent`` and
``PassAgent`` in ``ecs/decisions.py``, ``GreedyAgent`` and ``position_value`` in
``systems/lanes/agents.py``), one game per call.

- ``random_act(rng, b, legal_row)``: uniform over the legal row, ``choice(..., Stream.AGENT)``;
- ``pass_act(legal_row)``: pass when legal, else the first legal action;
- ``greedy_scores(st, f, cols, rng, b, seat, legal_row, out) -> best``: greedy's score of every legal
  entry plus its tie-breaking noise (``-inf`` off the row), what lookahead ranks;
- ``greedy_act(st, f, cols, rng, b, seat, legal_row, scratch)``: the first entry of highest noisy
  score (``np.argmax`` of the dense row), 0 when nothing is legal;

Lookahead's own parts (``position_value``, the candidates it plays out) are in ``lookahead.py``,
the scratch games its rollouts play in ``scratch.py``.

Same choices as numpy, action for action: each score is the numpy expression with its operations
in numpy's order (the float sums must be bit-identical, since the noise is 1e-3 wide and a tie
is decided by it); the noise of entry ``a`` is entry ``a`` of numpy's ``uniform([b], A, AGENT)``,
computed with ``bits_at`` for the legal entries only, then ONE ``advance(A)``, whatever the row
holds (numpy advances every listed game by the table's width: docs/compiled-core.md, the RNG
table). A unit's attack is ``unit_stats.attack_with`` (``stats.attack``: auras included; the
board's aura sources found once per decision, ``damage_stages.aura_sources``), so ``cols``
starts with combat's table (``combat_layout.READS``) and adds what greedy reads; greedy's
per-card summaries (``agents._card_tables``: a pending card's damage and whether it is hostile)
reach compiled code as catalog rows (``agent_view``).

The kernels allocate nothing: ``_nrt=False`` (legal.py's note). Those that draw are
``cache=False``: they call ``ecs/compiled/rng.py`` and ``unit_stats.attack_with`` (itself uncached),
and numba's cache checks only the defining file (docs/compiled-core.md "Why stale machine code
is impossible"); the generated engine will cache them with every file hashed.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from battlesim.ecs.compiled.rng import advance, bits_at, choice, to_unit
from battlesim.ecs.compiled.world_view import ViewError, WorldView, world_view
from battlesim.ecs.rng import Stream
from battlesim.systems.lanes.compiled.combat_layout import (
    C_CARD_ATTACK,
    C_CARD_HEALTH,
    C_HEALTH,
    C_RUINED,
    READS,
    combat_tables,
)
from battlesim.systems.lanes.compiled.damage_stages import aura_sources
from battlesim.systems.lanes.compiled.unit_stats import attack_with

AGENT_STREAM = int(Stream.AGENT)
NOISE = 1e-3  # systems/lanes/agents.py's constants, repeated as literals numba can fold (checked by the test)
LETHAL = 60.0
KILLABLE = 20.0

# positions in ``cols``: combat's table (attack_with reads it), then greedy's catalog rows, then codes
_CATALOG = ("cost", "kind", "gold", "tier", "greedy_damage", "greedy_hostile")
C_COST, C_KIND, C_GOLD, C_TIER, C_DAMAGE, C_HOSTILE = range(len(READS), len(READS) + len(_CATALOG))
_CODES = ("unit", "spell", "improvement", "equipment", "pending_caster", "stream", "play_base", "deploy_base",
          "target_base", "ability_base", "activate_base", "buy_base", "upgrade", "size")
(K_UNIT, K_SPELL, K_IMPROVEMENT, K_EQUIPMENT, P_CASTER, STREAM, PLAY_BASE, DEPLOY_BASE, TARGET_BASE, ABILITY_BASE,
 ACTIVATE_BASE, BUY_BASE, UPGRADE, SIZE) = range(C_HOSTILE + 1, C_HOSTILE + 1 + len(_CODES))
N_COLS = SIZE + 1


class AgentFields(NamedTuple):
    """The per-game fields the agents read (the World's own arrays, by name, no copy)."""

    hand: np.ndarray  # int16[B, 2, H]: card ids, -1 empty
    board: np.ndarray  # int16[B, 2, L, P]: slots, -1 empty
    hero_card: np.ndarray  # int16[B, 2, K]
    pending_kind: np.ndarray  # int8[B]
    pending_card: np.ndarray  # int16[B]
    offers: np.ndarray  # int16[B, 2, O]: equipment-pool indexes, -1 none
    equip_pool: np.ndarray  # int16[B, 2, M]: card ids, -1 bought
    winner: np.ndarray  # int8[B]: 0/1, -1 draw, -2 running
    in_play: np.ndarray  # bool[B]: the play phase is still running


def agent_fields(view: WorldView) -> AgentFields:
    """The ``AgentFields`` of a World's view: its own arrays."""
    return AgentFields(*(view.g[name] for name in AgentFields._fields))


def agent_view(w: Any) -> WorldView:
    """The World as the compiled agents see it: combat's view (``attack_of`` reads its aura rows)
    plus greedy's per-card summaries ``greedy_damage`` and ``greedy_hostile``."""
    from battlesim.systems.lanes.agents import _card_tables

    cards, params = combat_tables(w)
    t = _card_tables(w)
    cards["greedy_damage"] = np.asarray(t["damage"]).astype(np.int64)
    cards["greedy_hostile"] = np.asarray(t["hostile"]).astype(np.int64)
    return world_view(w, extra_cards=cards, extra_params=params)


def agent_columns(view: WorldView, actions: Any) -> np.ndarray:
    """``int64[N_COLS]``: the ``cols`` argument of the agents for this World (``agent_view``) and
    its action table. A component filed in another group than combat reads it from is an error."""
    from battlesim.systems.lanes.cards import EQUIPMENT, IMPROVEMENT, SPELL, UNIT
    from battlesim.systems.lanes.play import PENDING_CASTER

    for name, group in (("health", "i16"), ("ruined", "flags")):
        got = view.columns.get(name)
        if got is None or got[0] != group:
            raise ViewError(f"component {name!r} is {got and got[0]}, the compiled agents read it as {group}")
    out = np.zeros(N_COLS, dtype=np.int64)
    out[:K_UNIT] = view.cols(READS + tuple(f"card.{c}" for c in _CATALOG))
    out[K_UNIT:N_COLS] = (UNIT, SPELL, IMPROVEMENT, EQUIPMENT, PENDING_CASTER, AGENT_STREAM, actions.play_base,
                          actions.deploy_base, actions.target_base, actions.ability_base, actions.activate_base,
                          actions.buy_base, actions.upgrade, actions.size)
    return out


def scratch_size(actions: Any, lanes: int, positions: int) -> int:
    """The length of greedy's ``scratch``: the action table's width, then the attack and health
    of each of the ``2 * lanes * positions`` board cells (read once per decision, not once per
    action looking at them: 50 unit plays look at the same 30 cells)."""
    return actions.size + 4 * lanes * positions


@njit(cache=False, _nrt=False)
def random_act(rng: np.ndarray, b: int, legal_row: np.ndarray) -> int:
    """``RandomAgent``: uniform over the legal row, from the game's own RNG (``Stream.AGENT``);
    it draws even when nothing is legal (then -1), as ``CounterRng.choice`` does."""
    return choice(rng, b, legal_row, AGENT_STREAM)


@njit(cache=True, _nrt=False)
def pass_act(legal_row: np.ndarray) -> int:
    """``PassAgent``: pass (0) whenever it is legal, otherwise the first legal action (hero
    deployment has no pass); 0 when nothing is legal (``np.argmax`` of an all-False row)."""
    if legal_row[0]:
        return 0
    for a in range(legal_row.shape[0]):
        if legal_row[a]:
            return a
    return 0


@njit(cache=False, _nrt=False, inline="always")
def board_cell(st, f, cols, b, side, lane, pos, sources) -> tuple[bool, int, int]:
    """(occupied, attack, health) of board cell (side, lane, pos); 0, 0 when empty (numpy reads
    the cells a legal entry looks at into zero arrays). ``sources``: the board's aura sources
    (``aura_sources``, read once per decision)."""
    s = np.int64(f.board[b, side, lane, pos])
    if s < 0:
        return False, 0, 0
    return True, attack_with(st, cols, b, s, sources), np.int64(st.i16[cols[C_HEALTH], b, s])


@njit(cache=True, _nrt=False, inline="always")
def _unit_value(ua, uh, eo, ea, eh, ahp, ruined) -> float:
    """``agents._unit_value`` for one entry: the trade a unit (ua, uh) takes facing an enemy
    (``eo``: occupied, ``ea``, ``eh``) or the enemy anchor (health ``ahp`` >= 1, ``ruined``)."""
    if eo:
        kills = ua >= eh
        survives = ea < uh
        fight = (((2.0 + ea) + eh) if kills else 0.0) + ((2.0 + ea) if survives else 0.0)
        return fight - ((0.5 * (ua + uh)) if (not kills and not survives) else 0.0)
    if ruined:
        return -1.0
    return ua * (1.0 + 10.0 / ahp) + (LETHAL if ua >= ahp else 0.0)


@njit(cache=False, _nrt=False, inline="always")
def _anchor(st, cols, b, opp, lane) -> tuple[int, bool]:
    """The enemy anchor of a lane: its health (at least 1) and whether it is ruined
    (``board.anchor_slot``: side * 3 + lane, as greedy reads it)."""
    slot = opp * 3 + lane
    return max(np.int64(st.i16[cols[C_HEALTH], b, slot]), 1), st.flags[cols[C_RUINED], b, slot]


@njit(cache=False, _nrt=False, inline="always")
def _known_cell(st, f, cols, b, side, lane, pos, memo, sources) -> tuple[bool, int, int]:
    """``board_cell``, each cell read once per decision: ``memo`` (the tail of greedy's scratch,
    ``scratch_size``) holds each cell's attack (-1 not read yet), then each cell's health."""
    L, P = f.board.shape[2], f.board.shape[3]
    c = (side * L + lane) * P + pos
    n = memo.shape[0] // 2
    if n < 2 * L * P:  # a scratch of the table's width only: no memo, read the cell (no bounds check in numba)
        return board_cell(st, f, cols, b, side, lane, pos, sources)
    if memo[c] < 0:
        _, atk, hp = board_cell(st, f, cols, b, side, lane, pos, sources)
        memo[c] = atk
        memo[n + c] = hp
    return f.board[b, side, lane, pos] >= 0, np.int64(memo[c]), np.int64(memo[n + c])


@njit(cache=False, _nrt=False, inline="always")
def _score(st, f, cols, b, seat, legal_row, a, memo, sources) -> float:
    """``GreedyAgent.legal_scores`` of legal entry ``a`` of game b (seat ``seat`` to act)."""
    L, P = f.board.shape[2], f.board.shape[3]
    cat = st.cat
    if cols[PLAY_BASE] <= a < cols[DEPLOY_BASE]:  # hand card h at lane l, position p
        i = a - cols[PLAY_BASE]
        h, lane, pos = i // (L * P), (i // P) % L, i % P
        hand = f.hand[b, seat, h]
        if hand < 0:
            return 0.0
        card = np.int64(hand)
        kind = cat[cols[C_KIND], card]
        cost = float(cat[cols[C_COST], card])
        ua, uh = cat[cols[C_CARD_ATTACK], card], cat[cols[C_CARD_HEALTH], card]
        if kind == cols[K_UNIT]:
            eo, ea, eh = _known_cell(st, f, cols, b, 1 - seat, lane, pos, memo, sources)
            ahp, ruined = _anchor(st, cols, b, 1 - seat, lane)
            oo, oa, oh = _known_cell(st, f, cols, b, seat, lane, pos, memo, sources)
            bounce = (5.0 + 2.0 * float(oa + oh)) if oo else 0.0
            return ((((1.0 + ua) + uh) + 0.5 * cost) + _unit_value(ua, uh, eo, ea, eh, ahp, ruined)) - bounce
        if kind == cols[K_SPELL] or kind == cols[K_IMPROVEMENT]:
            return 2.0 + cost
        if kind == cols[K_EQUIPMENT]:
            oo, oa, oh = _known_cell(st, f, cols, b, seat, lane, pos, memo, sources)
            return ((2.0 + ua) + uh) + 0.5 * float(oa + oh)
        return 0.0
    if cols[DEPLOY_BASE] <= a < cols[TARGET_BASE]:  # roster hero k at lane l, position p
        i = a - cols[DEPLOY_BASE]
        k, lane, pos = i // (L * P), (i // P) % L, i % P
        hc = max(np.int64(f.hero_card[b, seat, k]), 0)
        ha, hh = cat[cols[C_CARD_ATTACK], hc], cat[cols[C_CARD_HEALTH], hc]
        eo, ea, eh = _known_cell(st, f, cols, b, 1 - seat, lane, pos, memo, sources)
        ahp, ruined = _anchor(st, cols, b, 1 - seat, lane)
        return ((1.0 + ha) + hh) + _unit_value(ha, hh, eo, ea, eh, ahp, ruined)
    if cols[TARGET_BASE] <= a < cols[ABILITY_BASE]:  # the cell a pending card or ability aims at
        i = a - cols[TARGET_BASE]
        side, lane, pos = i // (L * P), (i // P) % L, i % P
        _, atk, hp = _known_cell(st, f, cols, b, side, lane, pos, memo, sources)
        if f.pending_kind[b] == cols[P_CASTER]:  # the hero that hits hardest casts
            return (1.0 + atk) + 0.1 * hp
        pc = max(np.int64(f.pending_card[b]), 0)
        val = float(atk + hp)
        enemy = side == 1 - seat
        good = enemy if cat[cols[C_HOSTILE], pc] != 0 else not enemy
        if not good:
            return 0.05
        if enemy:
            return (1.0 + val) + (KILLABLE if hp <= cat[cols[C_DAMAGE], pc] else 0.0)
        return 1.0 + val
    if cols[ABILITY_BASE] <= a < cols[BUY_BASE]:  # ability, activation
        return 4.0
    if cols[BUY_BASE] <= a < cols[UPGRADE]:  # the best affordable offer (tier, price)
        offer = np.int64(f.offers[b, seat, a - cols[BUY_BASE]])
        oc = np.int64(f.equip_pool[b, seat, offer]) if offer >= 0 else 0
        return (10.0 + 3.0 * cat[cols[C_TIER], oc]) + float(cat[cols[C_GOLD], oc])
    if a == cols[UPGRADE]:  # upgrade only when nothing is affordable
        for j in range(cols[BUY_BASE], cols[UPGRADE]):
            if legal_row[j]:
                return -1.0
        return 3.0
    return 0.0  # pass


@njit(cache=False, _nrt=False)
def greedy_scores(st, f, cols, rng, b: int, seat: int, legal_row: np.ndarray, out: np.ndarray) -> int:
    """``GreedyAgent.noisy_scores`` for game b: ``out[a]`` the score of legal entry ``a`` plus
    ``NOISE`` times entry ``a`` of numpy's ``uniform([b], A, AGENT)``, ``-inf`` where not legal;
    the game's counter advances by the table's width ``A`` (numpy's one draw), legal or not.
    ``out``: float64[``scratch_size``]; past ``A`` it memoises the board's cells for this call.
    Returns their argmax as ``greedy_act`` takes it (found in the same pass: a second pass over
    the row cost greedy a tenth of its time)."""
    A = legal_row.shape[0]
    memo = out[A:]
    memo[: memo.shape[0] // 2] = -1.0  # (``_known_cell`` ignores a memo too short for the board)
    sources = aura_sources(st, b, cols)  # the board does not change while it is scored
    best = 0
    top = -np.inf
    for a in range(A):
        if legal_row[a]:
            val = (_score(st, f, cols, b, seat, legal_row, a, memo, sources)
                   + NOISE * to_unit(bits_at(rng, b, a, cols[STREAM])))
            out[a] = val
            if val > top:  # strictly: the first (lowest column) of the highest, as ``_row_argmax``
                best, top = a, val
        else:
            out[a] = -np.inf
    advance(rng, b, legal_row.shape[0])
    return best


@njit(cache=False, _nrt=False)
def greedy_act(st, f, cols, rng, b: int, seat: int, legal_row: np.ndarray, scratch: np.ndarray) -> int:
    """``GreedyAgent.act`` for game b: the first action (lowest column) of highest noisy score
    (``_row_argmax``), 0 when nothing is legal. ``scratch``: float64[``scratch_size``], left
    holding the noisy scores in its first ``A`` entries."""
    return greedy_scores(st, f, cols, rng, b, seat, legal_row, scratch)

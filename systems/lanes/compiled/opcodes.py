"""Effect opcodes of lanes, compiled: the numba twins of ``systems/lanes/opcodes.py``.

Each opcode gets the hits of one (effect slot, opcode, selector) group of ONE game, in the
numpy ``Hit``'s order for that game, and must leave the game exactly as the numpy kernel does
(the differential test replays real firings: tests/test_compiled_lanes_effects.py). Where the
numpy kernel is vectorized ("add every amount, then clamp once"; "read every position, then
move"), the twin makes the same passes over the hits, so repeated targets come out the same.
Movement goes through ``board_move`` (and ``board_swap``), the one place compiled code moves a
unit, as ``systems/lanes/board.py`` is for numpy code.

Here: heal, buff, grant_keyword, apply_status, summon, draw, gain_gold, gain_resources, destroy,
bounce, push, pull, swap, move_lane (their passing damage pushed onto the damage queue, the move
resuming at the next hit once it resolved: ``interpreter.py``'s opcode signature), purge, dispel,
enchant_anchor, destroy_improvement, bounty. The opcodes that deal damage otherwise (damage,
battle, strike, battle_blocker, battle_adjacent, caster_strike) are in ``damage_opcodes.py``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.components.keywords import KEYWORDS, STATUSES
from battlesim.components.keywords import lanes as _kw
from battlesim.ecs.compiled.damage_queue import push as push_damage
from battlesim.ecs.compiled.interpreter import (
    H_AMOUNT,
    H_CARD,
    H_CASTER,
    H_CHOSEN_LANE,
    H_EFFECT,
    H_LANE,
    H_OWNER,
    H_SOURCE,
    H_TARGET,
    NO_SLOT,
    OK,
)
from battlesim.ecs.damage import SPELL
from battlesim.systems.lanes.compiled.board import (
    EMPTY,
    SPAWN_READS,
    board_move,
    board_swap,
    remove,
    remove_improvement,
    spawn,
)
from battlesim.ecs.plugin import extend

lanes = extend("lanes")  # its compiled parts are declared as a plugin declares them

H_NEXT = 11  # a spare field of a hit row: a move's destination, computed for every hit first
_KEYWORD_READS = tuple(f"any.{k}" for k in KEYWORDS)
_STATUS_READS = tuple(f"any.{s}" for s in STATUSES)
_PURGEABLE_READS = tuple(f"any.{s}" for s in _kw.purgeable())
_ANCHOR_ENCHANTMENTS = ("armor", "retaliate", "regeneration", "anchor_aura")  # opcodes.ANCHOR_ENCHANTMENTS


# -- reading and writing a component picked at run time (``any.<name>`` ids) -------------------

@njit
def any_get(w, code, b, t):
    k, group = code >> 2, code & 3
    if group == 0:
        return np.int64(w.i16[k, b, t])
    if group == 1:
        return np.int64(w.i8[k, b, t])
    return np.int64(w.flags[k, b, t])


@njit
def any_add(w, code, b, t, amount):
    """``np.add.at`` of one amount: wraps in the component's dtype; a tag (bool) becomes True
    when the amount is not 0 (numpy's add on bools is "or")."""
    k, group = code >> 2, code & 3
    if group == 0:
        w.i16[k, b, t] = w.i16[k, b, t] + amount
    elif group == 1:
        w.i8[k, b, t] = w.i8[k, b, t] + amount
    elif amount != 0:
        w.flags[k, b, t] = True


@njit
def any_set(w, code, b, t, value):
    k, group = code >> 2, code & 3
    if group == 0:
        w.i16[k, b, t] = value
    elif group == 1:
        w.i8[k, b, t] = value
    else:
        w.flags[k, b, t] = value != 0


@njit
def is_unit(w, b, t, anchor, improvement):
    """opcodes._units: a living unit on the board (not an anchor, not an improvement)."""
    return t >= 0 and w.alive[b, t] and not w.flags[anchor, b, t] and not w.flags[improvement, b, t]


@njit
def passing_damage(w, g, b, t, amount, queue, qlen, c_owner, c_lane, c_pos):
    """opcodes._passing_damage: lanes.md "Movement & Positioning": "Some effects deal damage while
    moving (e.g., 'deal 1 damage to each enemy passed')": a move with an amount deals it, from
    the moving unit, to the enemy now opposite it. Returns whether a row was pushed."""
    if amount <= 0:
        return False
    foe = g.board[b, 1 - w.i8[c_owner, b, t], w.i8[c_lane, b, t], w.i8[c_pos, b, t]]
    if foe < 0:
        return False
    push_damage(queue, qlen, b, t, foe, amount, SPELL)
    return True


# -- the opcodes -----------------------------------------------------------------------------

@lanes.compiled_opcode("heal", ("health", "max_health", "improvement", "anchor", "ruined"))
def heal(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """Heal up to the maximum (anchors and essences too; a ruined one stays destroyed): every
    amount added, then each target clamped once, as the numpy kernel's add.at then minimum."""
    for clamp in range(2):
        for i in range(nh):
            t, amt = hits[i, H_TARGET], hits[i, H_AMOUNT]
            if t < 0 or amt <= 0 or w.flags[cols[2], b, t]:
                continue
            if w.flags[cols[3], b, t]:
                if w.flags[cols[4], b, t]:
                    continue
            elif not w.alive[b, t]:
                continue
            if clamp == 0:
                w.i16[cols[0], b, t] = w.i16[cols[0], b, t] + amt
            else:
                w.i16[cols[0], b, t] = min(w.i16[cols[0], b, t], w.i16[cols[1], b, t])
    return OK


@lanes.compiled_opcode("buff", ("attack", "temp_attack", "max_health", "health", "temp_health", "dying",
                                   "hit_by", "anchor", "improvement", "effect.stat", "effect.duration"))
def buff(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """+X/-X attack and/or health, permanent or this round (recorded by who applied it, for
    purge); after every hit, a unit whose health is 0 or less is dying."""
    any_hp = False
    for i in range(nh):
        t = hits[i, H_TARGET]
        if not is_unit(w, b, t, cols[7], cols[8]):
            hits[i, H_TARGET] = -2  # not a unit: skipped below too (the units are read once, first)
            continue
        amt = np.int16(hits[i, H_AMOUNT])
        card, e, by = hits[i, H_CARD], hits[i, H_EFFECT], hits[i, H_OWNER]
        stat = tbl[cols[9], card, e]
        temp = tbl[cols[10], card, e] == 1
        if stat == 0 or stat == 2:
            if temp:
                w.i16x2[cols[1], b, t, by] = w.i16x2[cols[1], b, t, by] + amt
            else:
                w.i16[cols[0], b, t] = w.i16[cols[0], b, t] + amt
        if stat == 1 or stat == 2:
            any_hp = True
            w.i16[cols[2], b, t] = w.i16[cols[2], b, t] + amt
            w.i16[cols[3], b, t] = w.i16[cols[3], b, t] + amt
            if temp:
                w.i16x2[cols[4], b, t, by] = w.i16x2[cols[4], b, t, by] + amt
    if not any_hp:
        return OK
    for i in range(nh):
        t = hits[i, H_TARGET]
        if t < 0:
            continue
        stat = tbl[cols[9], hits[i, H_CARD], hits[i, H_EFFECT]]
        if (stat == 1 or stat == 2) and w.i16[cols[3], b, t] <= 0:
            w.flags[cols[5], b, t] = True
            w.i8[cols[6], b, t] = hits[i, H_OWNER]
    return OK


@lanes.compiled_opcode("grant_keyword", ("anchor", "improvement", "effect.keyword") + _KEYWORD_READS)
def grant_keyword(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """Give a unit a keyword (tags) or add X to it (numbers). Keyword -1 is the last keyword, as
    numpy's ``list(KEYWORDS)[-1]`` reads."""
    n_kw = len(_KEYWORD_READS)
    for i in range(nh):
        t = hits[i, H_TARGET]
        if not is_unit(w, b, t, cols[0], cols[1]):
            continue
        k = tbl[cols[2], hits[i, H_CARD], hits[i, H_EFFECT]]
        code = cols[3 + (k + n_kw if k < 0 else k)]
        if code & 3 == 2:
            w.flags[code >> 2, b, t] = True
        else:
            any_add(w, code, b, t, hits[i, H_AMOUNT])
    return OK


@lanes.compiled_opcode("apply_status", ("anchor", "improvement", "effect.status") + _STATUS_READS)
def apply_status(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """Add X stacks (at least 1) of a status (lanes.md "Status Effects")."""
    n_st = len(_STATUS_READS)
    for i in range(nh):
        t = hits[i, H_TARGET]
        if not is_unit(w, b, t, cols[0], cols[1]):
            continue
        k = tbl[cols[2], hits[i, H_CARD], hits[i, H_EFFECT]]
        any_add(w, cols[3 + (k + n_st if k < 0 else k)], b, t, max(hits[i, H_AMOUNT], 1))
    return OK


@njit
def draw_cards(g, b, seat, count):
    """hand.draw_cards for one (game, seat): top of deck to the first free hand slot; an empty
    deck draws nothing; a full hand burns the card."""
    for _ in range(count):
        top = g.deck_top[b, seat]
        if top >= g.deck_size[b, seat]:
            continue
        card = g.deck[b, seat, top]
        g.deck_top[b, seat] = top + 1
        g.card_drawn[b, seat, top] = g.round[b]
        h = -1
        for j in range(g.hand.shape[2]):
            if g.hand[b, seat, j] < 0:
                h = j
                break
        if h >= 0:
            g.hand[b, seat, h] = card
            g.hand_src[b, seat, h] = top
        else:
            g.burned[b, seat] = g.burned[b, seat] + 1


@lanes.compiled_opcode("draw")
def draw(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """The owner draws ``amount`` cards (at least 1), hit after hit."""
    for i in range(nh):
        draw_cards(g, b, hits[i, H_OWNER], max(hits[i, H_AMOUNT], 1))
    return OK


@lanes.compiled_opcode("gain_gold")
def gain_gold(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """The owner gains ``amount`` gold (the numpy kernel's esper event only feeds replay text)."""
    for i in range(nh):
        o = hits[i, H_OWNER]
        g.gold[b, o] = g.gold[b, o] + hits[i, H_AMOUNT]
    return OK


@lanes.compiled_opcode("gain_resources", ("param.resources_cap",))
def gain_resources(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """Resources this round, never above the cap (lanes.md "Resource System"): every amount
    added, then clipped to [0, cap]."""
    for i in range(nh):
        o = hits[i, H_OWNER]
        g.resources[b, o] = g.resources[b, o] + hits[i, H_AMOUNT]
    cap = w.params[cols[0]]
    for i in range(nh):
        o = hits[i, H_OWNER]
        g.resources[b, o] = min(max(g.resources[b, o], 0), cap)
    return OK


@lanes.compiled_opcode("destroy", ("dying", "hit_by", "anchor", "improvement"))
def destroy(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """Destroy each target unit: marked dying (settle removes it when the rules say)."""
    for i in range(nh):
        t = hits[i, H_TARGET]
        if is_unit(w, b, t, cols[2], cols[3]):
            w.flags[cols[0], b, t] = True
            w.i8[cols[1], b, t] = hits[i, H_OWNER]
    return OK


@lanes.compiled_opcode("bounty", ("bounty", "anchor", "improvement"))
def bounty(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """"Some effects increase bounty ("+1 Bounty")"; "Some effects reduce bounty"."""
    for i in range(nh):
        t = hits[i, H_TARGET]
        if is_unit(w, b, t, cols[1], cols[2]):
            w.i16[cols[0], b, t] = w.i16[cols[0], b, t] + hits[i, H_AMOUNT]
    return OK


_MOVE_READS = ("owner", "lane", "pos", "present.lane", "present.pos", "anchor", "improvement", "param.positions",
               "param.lanes", "effect.direction", "rooted")


@njit
def step_to(w, g, b, hits, nh, cols, queue, qlen, at):
    """opcodes._step_to: each unit hit (``H_TARGET >= 0``) moves to position ``hits[i, H_NEXT]``
    of its lane if that cell is in the lane and empty, hit after hit; a move that deals passing
    damage returns the token of the next hit (``i + 2``): the damage resolves first, as numpy's
    pipeline runs inside the hit's round."""
    for i in range(max(at - 1, 0), nh):
        t, p = hits[i, H_TARGET], hits[i, H_NEXT]
        if t < 0 or not w.alive[b, t] or p < 0 or p >= w.params[cols[7]]:
            continue
        side, lane = w.i8[cols[0], b, t], w.i8[cols[1], b, t]
        if g.board[b, side, lane, p] != EMPTY:
            continue
        board_move(w, g, b, t, lane, p, cols[0], cols[1], cols[2], cols[3], cols[4])
        if passing_damage(w, g, b, t, hits[i, H_AMOUNT], queue, qlen, cols[0], cols[1], cols[2]):
            return i + 2
    return OK


@lanes.compiled_opcode("push", _MOVE_READS)
def push(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """"Push - Move a unit to an adjacent slot (left or right)"; an occupied slot blocks it.
    Every destination is read before the first move, as the numpy kernel reads them."""
    for i in range(nh if at == 0 else 0):
        t = hits[i, H_TARGET]
        if not is_unit(w, b, t, cols[5], cols[6]):
            hits[i, H_TARGET] = -1
            continue
        d = -1 if tbl[cols[9], hits[i, H_CARD], hits[i, H_EFFECT]] == 0 else 1
        hits[i, H_NEXT] = w.i8[cols[2], b, t] + d
    return step_to(w, g, b, hits, nh, cols, queue, qlen, at)


@lanes.compiled_opcode("pull", _MOVE_READS)
def pull(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """"Pull - Move a unit toward the caster/source": one position toward the source's position."""
    for i in range(nh if at == 0 else 0):
        t = hits[i, H_TARGET]
        dealer = hits[i, H_SOURCE] if hits[i, H_SOURCE] >= 0 else hits[i, H_CASTER]
        if dealer < 0 or not is_unit(w, b, t, cols[5], cols[6]):
            hits[i, H_TARGET] = -1
            continue
        here, there = np.int64(w.i8[cols[2], b, t]), np.int64(w.i8[cols[2], b, dealer])
        hits[i, H_NEXT] = here + (1 if there > here else (-1 if there < here else 0))
    return step_to(w, g, b, hits, nh, cols, queue, qlen, at)


@lanes.compiled_opcode("swap", _MOVE_READS)
def swap(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """"Swap - Exchange positions of two units": the target and its neighbour on its own side in
    ``direction``; with no neighbour there it simply moves. Passing damage: as ``step_to``."""
    for i in range(nh if at == 0 else 0):
        if not is_unit(w, b, hits[i, H_TARGET], cols[5], cols[6]):
            hits[i, H_TARGET] = -1
    for i in range(max(at - 1, 0), nh):
        t = hits[i, H_TARGET]
        if t < 0 or not w.alive[b, t]:
            continue
        d = -1 if tbl[cols[9], hits[i, H_CARD], hits[i, H_EFFECT]] == 0 else 1
        side, lane = w.i8[cols[0], b, t], w.i8[cols[1], b, t]
        p = w.i8[cols[2], b, t] + d
        if p < 0 or p >= w.params[cols[7]]:
            continue
        other = g.board[b, side, lane, p]
        if other == EMPTY:
            board_move(w, g, b, t, lane, p, cols[0], cols[1], cols[2], cols[3], cols[4])
        else:
            board_swap(w, g, b, t, other, cols[0], cols[1], cols[2], cols[3], cols[4])
        if passing_damage(w, g, b, t, hits[i, H_AMOUNT], queue, qlen, cols[0], cols[1], cols[2]):
            return i + 2
    return OK


@lanes.compiled_opcode("move_lane", _MOVE_READS)
def move_lane(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """"Cross Lane Move": to the first empty slot of the lane on the ``direction`` side;
    "Rooted units cannot move lanes" (read for every hit before the first move); "Full lanes
    block incoming cross-lane movement". Passing damage: as ``step_to``."""
    for i in range(nh if at == 0 else 0):
        t = hits[i, H_TARGET]
        if not is_unit(w, b, t, cols[5], cols[6]) or w.i16[cols[10], b, t] > 0:
            hits[i, H_TARGET] = -1
    for i in range(max(at - 1, 0), nh):
        t = hits[i, H_TARGET]
        if t < 0 or not w.alive[b, t]:
            continue
        d = -1 if tbl[cols[9], hits[i, H_CARD], hits[i, H_EFFECT]] == 0 else 1
        lane = w.i8[cols[1], b, t] + d
        if lane < 0 or lane >= w.params[cols[8]]:
            continue
        side = w.i8[cols[0], b, t]
        for p in range(g.board.shape[3]):
            if g.board[b, side, lane, p] == EMPTY:
                board_move(w, g, b, t, lane, p, cols[0], cols[1], cols[2], cols[3], cols[4])
                if passing_damage(w, g, b, t, hits[i, H_AMOUNT], queue, qlen, cols[0], cols[1], cols[2]):
                    return i + 2
                break
    return OK


@lanes.compiled_opcode("purge", ("owner", "temp_attack", "temp_health", "max_health", "health", "anchor",
                                    "improvement") + _PURGEABLE_READS)
def purge(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """lanes.md "Purge & Dispel": statuses and the opponent's temporary buffs go; permanent
    changes, keywords and equipment bonuses stay; health ends between 1 and the new maximum."""
    for i in range(nh):
        t = hits[i, H_TARGET]
        if not is_unit(w, b, t, cols[5], cols[6]):
            continue
        for j in range(len(_PURGEABLE_READS)):
            any_set(w, cols[7 + j], b, t, 0)
        opp = 1 - w.i8[cols[0], b, t]
        w.i16x2[cols[1], b, t, opp] = 0
        th = w.i16x2[cols[2], b, t, opp]
        w.i16[cols[3], b, t] = w.i16[cols[3], b, t] - th
        w.i16[cols[4], b, t] = max(min(w.i16[cols[4], b, t], w.i16[cols[3], b, t]), 1)
        w.i16x2[cols[2], b, t, opp] = 0
    return OK


@lanes.compiled_opcode("dispel", ("anchor",) + tuple(f"any.{n}" for n in _ANCHOR_ENCHANTMENTS))
def dispel(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """"Dispel removes anchor enchantments": every enchantment of the target anchor."""
    for i in range(nh):
        t = hits[i, H_TARGET]
        if t >= 0 and w.flags[cols[0], b, t]:
            for j in range(len(_ANCHOR_ENCHANTMENTS)):
                any_set(w, cols[1 + j], b, t, 0)
    return OK


@lanes.compiled_opcode("enchant_anchor", ("anchor", "ruined", "effect.keyword", "any.anchor_aura") + _KEYWORD_READS)
def enchant_anchor(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """"Enchant Anchor - Attaches an effect to the anchor itself": ``keyword`` + amount, or
    (keyword -1) the lane-wide attack aura; only on an anchor not yet destroyed."""
    for i in range(nh):
        t = hits[i, H_TARGET]
        if t < 0 or not w.flags[cols[0], b, t] or w.flags[cols[1], b, t]:
            continue
        k = tbl[cols[2], hits[i, H_CARD], hits[i, H_EFFECT]]
        any_add(w, cols[3] if k < 0 else cols[4 + k], b, t, hits[i, H_AMOUNT])
    return OK


@lanes.compiled_opcode("summon", SPAWN_READS + ("effect.card",))
def summon(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """Put ``amount`` (at least 1) copies of ``card`` into the owner's side of the lane (the
    chosen lane, else the origin lane), each at the leftmost empty position; a full lane takes
    no more ("Maximum 5 units per lane"). Copy after copy, each over the hits in order."""
    most = 0
    for i in range(nh):
        most = max(most, max(hits[i, H_AMOUNT], 1))
    for c in range(most):
        for i in range(nh):
            lane = hits[i, H_CHOSEN_LANE] if hits[i, H_CHOSEN_LANE] >= 0 else hits[i, H_LANE]
            if max(hits[i, H_AMOUNT], 1) <= c or lane < 0:
                continue
            side = hits[i, H_OWNER]
            for p in range(g.board.shape[3]):
                if g.board[b, side, lane, p] == EMPTY:
                    card = tbl[cols[len(SPAWN_READS)], hits[i, H_CARD], hits[i, H_EFFECT]]
                    if spawn(w, g, b, side, lane, p, card, cols) < 0:
                        return NO_SLOT
                    break
    return OK


@lanes.compiled_opcode("bounce", ("owner", "lane", "pos", "card_id", "deck_pos", "anchor", "improvement", "hero",
                                     "card.kind"))
def bounce(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """Return a unit to its owner's hand (equipment is lost; no death, no bounty). Heroes
    cannot be bounced; only unit cards return to a hand (creeps and tokens simply leave); a
    full hand loses the card (ledger). Who is a unit is read for every hit first."""
    for i in range(nh):
        t = hits[i, H_TARGET]
        if not is_unit(w, b, t, cols[5], cols[6]) or w.flags[cols[7], b, t]:
            hits[i, H_TARGET] = -1
    for i in range(nh):
        t = hits[i, H_TARGET]
        if t < 0 or not w.alive[b, t]:
            continue
        owner = w.i8[cols[0], b, t]
        card = w.i16[cols[3], b, t]
        kind_of = card if card >= 0 else card + w.cat.shape[1] - 1  # -1: numpy's kind[-1], the last card
        if w.cat[cols[8], kind_of] == 0:
            for h in range(g.hand.shape[2]):
                if g.hand[b, owner, h] < 0:
                    g.hand[b, owner, h] = card
                    g.hand_src[b, owner, h] = w.i16[cols[4], b, t]
                    break
        remove(w, g, b, t, cols[0], cols[1], cols[2])
    return OK


@lanes.compiled_opcode("destroy_improvement", ("owner", "lane", "improvement"))
def destroy_improvement(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """"Some spells and abilities can destroy Improvements": the selected ones, at most
    ``amount`` per effect when amount > 0 (oldest first); which are improvements is read first."""
    for i in range(nh):
        t = hits[i, H_TARGET]
        if t < 0 or not w.flags[cols[2], b, t] or not w.alive[b, t]:
            hits[i, H_TARGET] = -1
    done = 0
    for i in range(nh):
        t, limit = hits[i, H_TARGET], hits[i, H_AMOUNT]
        if t < 0 or (limit > 0 and done >= limit) or not w.alive[b, t]:
            continue
        remove_improvement(w, g, b, t, cols[0], cols[1])
        done += 1
    return OK


@lanes.compiled_quiet(("silenced",))
def silenced(w, g, b, slot, cols):
    """state.silenced: "Silenced - Unit cannot use abilities" (its triggers do not fire)."""
    return w.i16[cols[0], b, slot] > 0

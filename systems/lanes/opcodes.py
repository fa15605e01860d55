"""Effect opcodes of lanes: one vectorized kernel per verb a card can say.

A kernel gets ``Hit`` rows (one per effect row and target, across games) and changes the
world through the same paths as the rules: damage through the pipeline, movement through
``board``, deaths by marking ``dying`` (``settle`` removes them at the time the rules say).
Kernels that move entities handle one hit per game at a time (``by_rank``), because two moves in
one game must see each other.
"""

from __future__ import annotations

import esper
import numpy as np

from battlesim.components.keywords import KEYWORDS, STATUSES
from battlesim.components.keywords import lanes as _lanes
from battlesim.ecs.damage import BATTLE, SPELL, DamageBatch
from battlesim.ecs.effects import Hit
from battlesim.ecs.npx import any_axis
from battlesim.systems.lanes import board
from battlesim.systems.lanes.battle import exchange
from battlesim.systems.lanes.damage_stages import heal_anchor
from battlesim.systems.lanes.hand import draw_cards


def by_rank(game: np.ndarray):
    """Yield index arrays that split rows into rounds with each game at most once, in row order."""
    if game.size == 0:
        return
    if game.size == 1 or np.count_nonzero(game[1:] > game[:-1]) == game.size - 1:  # in game order, each game once
        yield np.arange(game.size)
        return
    order = np.argsort(game, kind="stable")
    sg = game[order]
    first = np.r_[True, sg[1:] != sg[:-1]]
    start = np.flatnonzero(first)
    rank = np.empty(sg.size, dtype=np.intp)
    rank[order] = np.arange(sg.size) - np.repeat(start, np.diff(np.r_[start, sg.size]))
    for r in range(int(rank.max()) + 1):
        yield np.flatnonzero(rank == r)


def _kinds(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` (sorted distinct values), without its sort in the usual case where
    every row names the same keyword or status (one card's effect): ~1 us instead of ~20."""
    if values.size and np.count_nonzero(values == values[0]) == values.size:
        return values[:1]
    return np.unique(values)


def _units(w, hit: Hit) -> np.ndarray:
    """Rows whose target is a living unit on the board (not an anchor or an improvement). One
    flat read per component for every row: a -1 target reads some other entity, masked out."""
    t = hit.target
    f = w.flat(hit.game, t)
    c = w.c
    return (t >= 0) & w.alive.reshape(-1)[f] & ~c.anchor.reshape(-1)[f] & ~c.improvement.reshape(-1)[f]


def _dealer(hit: Hit) -> np.ndarray:
    """The entity an effect's damage comes from: the source, or a spell's caster."""
    return np.where(hit.source >= 0, hit.source, hit.caster)


def damage(w, hit: Hit) -> None:
    """Units and anchors take damage; improvements do not (they are destroyed, not damaged)."""
    t = hit.target
    f = w.flat(hit.game, t)  # a -1 target reads some other entity, masked out by t >= 0
    ok = (t >= 0) & (hit.amount > 0) & w.alive.reshape(-1)[f] & ~w.c.improvement.reshape(-1)[f]
    if np.count_nonzero(ok):
        w.pipeline.run(w, DamageBatch(hit.game[ok], _dealer(hit)[ok], t[ok], hit.amount[ok], SPELL))


def heal(w, hit: Hit) -> None:
    """Heal up to the maximum (anchors and essences too)."""
    ok = (hit.target >= 0) & (hit.amount > 0)
    ok[ok] = ~w.c.improvement[hit.game[ok], hit.target[ok]]
    b, t, amt = hit.game[ok], hit.target[ok], hit.amount[ok]
    anchor = w.c.anchor[b, t]
    if anchor.any():
        heal_anchor(w, b[anchor], t[anchor], amt[anchor])
    b, t, amt = b[~anchor], t[~anchor], amt[~anchor]
    live = w.alive[b, t]
    b, t, amt = b[live], t[live], amt[live]
    np.add.at(w.c.health, (b, t), amt.astype(w.c.health.dtype))
    w.c.health[b, t] = np.minimum(w.c.health[b, t], w.c.max_health[b, t])


def buff(w, hit: Hit) -> None:
    """+X/-X attack and/or health, permanent or until end of round ("duration = round").
    Through flat entity indices; a kind of change no row makes is skipped."""
    r = _units(w, hit).nonzero()[0]
    if r.size == 0:
        return
    c = w.c
    f = w.flat(hit.game[r], hit.target[r])
    amt = hit.amount[r].astype(np.int16)
    stat = hit.param("stat")[r]
    temp = hit.param("duration")[r] == 1
    atk = (stat == 0) | (stat == 2)
    hp = (stat == 1) | (stat == 2)
    by = hit.owner[r]  # who applied it: purge removes only the opponent's
    m = atk & ~temp
    if np.count_nonzero(m):
        np.add.at(c.attack.reshape(-1), f[m], amt[m])
    m = atk & temp
    if np.count_nonzero(m):
        np.add.at(c.temp_attack.reshape(-1, 2), (f[m], by[m]), amt[m])
    if np.count_nonzero(hp) == 0:
        return
    np.add.at(c.max_health.reshape(-1), f[hp], amt[hp])
    np.add.at(c.health.reshape(-1), f[hp], amt[hp])
    m = hp & temp
    if np.count_nonzero(m):
        np.add.at(c.temp_health.reshape(-1, 2), (f[m], by[m]), amt[m])
    dead = hp & (c.health.reshape(-1)[f] <= 0)
    if np.count_nonzero(dead):
        c.dying.reshape(-1)[f[dead]] = True
        c.hit_by.reshape(-1)[f[dead]] = by[dead]


def grant_keyword(w, hit: Hit) -> None:
    """Give a unit a keyword (tags) or add X to it (numbers; armor may go negative). Permanent.
    Anchors are enchanted with ``enchant_anchor`` instead."""
    ok = _units(w, hit)
    kw = hit.param("keyword")
    for k in _kinds(kw[ok]):
        sel = ok & (kw == k)
        name = list(KEYWORDS)[int(k)]
        arr = getattr(w.c, name)
        if arr.dtype == np.bool_:
            arr[hit.game[sel], hit.target[sel]] = True
        else:
            np.add.at(arr, (hit.game[sel], hit.target[sel]), hit.amount[sel].astype(arr.dtype))


def apply_status(w, hit: Hit) -> None:
    """Add X stacks of a status (lanes.md "Status Effects")."""
    ok = _units(w, hit)
    st = hit.param("status")
    for k in _kinds(st[ok]):
        sel = ok & (st == k)
        arr = getattr(w.c, list(STATUSES)[int(k)])
        np.add.at(arr, (hit.game[sel], hit.target[sel]), np.maximum(hit.amount[sel], 1).astype(arr.dtype))


def summon(w, hit: Hit) -> None:
    """Put ``amount`` (at least 1) copies of ``card`` into the owner's side of the lane (the
    chosen lane, else the origin lane), each at the leftmost empty position; a full lane
    takes no more ("Maximum 5 units per lane")."""
    lane = np.where(hit.chosen_lane >= 0, hit.chosen_lane, hit.lane)
    card = hit.param("card")
    copies = np.maximum(hit.amount, 1)
    for c in range(int(copies.max(initial=0))):
        rows = np.flatnonzero((copies > c) & (lane >= 0))
        for idx in by_rank(hit.game[rows]):
            r = rows[idx]
            b, side, ln = hit.game[r], hit.owner[r], lane[r]
            empty = w.g.board[b, side, ln] == board.EMPTY
            room = any_axis(empty, 1)
            if room.any():
                r = r[room]
                board.spawn(w, hit.game[r], hit.owner[r], lane[r], np.argmax(empty[room], axis=1), card[r])


def draw(w, hit: Hit) -> None:

    for idx in by_rank(hit.game):
        draw_cards(w, hit.game[idx], hit.owner[idx], np.maximum(hit.amount[idx], 1))


def gain_gold(w, hit: Hit) -> None:
    np.add.at(w.g.gold, (hit.game, hit.owner), hit.amount.astype(w.g.gold.dtype))
    esper.dispatch_event("lanes.gold", w, hit.game, hit.owner, hit.amount)


def gain_resources(w, hit: Hit) -> None:
    """Resources this round, never above the cap (lanes.md "Resource System": cap 10)."""
    np.add.at(w.g.resources, (hit.game, hit.owner), hit.amount.astype(w.g.resources.dtype))
    g = w.g.resources[hit.game, hit.owner]
    w.g.resources[hit.game, hit.owner] = np.clip(g, 0, w.params.resources_cap)


def destroy(w, hit: Hit) -> None:
    ok = _units(w, hit)
    w.c.dying[hit.game[ok], hit.target[ok]] = True
    w.c.hit_by[hit.game[ok], hit.target[ok]] = hit.owner[ok]


def bounce(w, hit: Hit) -> None:
    """Return a unit to its owner's hand (equipment is lost; no death, no bounty). Heroes are not
    hand cards and cannot be bounced; creeps and tokens simply leave the board; a full hand
    loses the card (ledger)."""
    ok = _units(w, hit)
    ok[ok] = ~w.c.hero[hit.game[ok], hit.target[ok]]
    rows = np.flatnonzero(ok)
    for idx in by_rank(hit.game[rows]):
        r = rows[idx]
        b, t = hit.game[r], hit.target[r]
        live = w.alive[b, t]
        b, t = b[live], t[live]
        owner = w.c.owner[b, t].astype(np.intp)
        card = w.c.card_id[b, t]
        back = w.catalog.arrays.kind[card] == 0  # only unit cards return to a hand
        free = w.g.hand[b, owner] < 0
        room = back & any_axis(free, 1)
        h = np.argmax(free, axis=1)
        w.g.hand[b[room], owner[room], h[room]] = card[room]
        w.g.hand_src[b[room], owner[room], h[room]] = w.c.deck_pos[b[room], t[room]]
        board.remove(w, b, t)


def _one_per_game(w, hit: Hit, rows: np.ndarray):
    """Yield (rows, games, targets) in rounds where each game appears once, dropping targets
    that an earlier round of the same effect destroyed or moved out of play."""
    for idx in by_rank(hit.game[rows]):
        r = rows[idx]
        b, t = hit.game[r], hit.target[r]
        live = w.alive[b, t]
        yield r[live], b[live], t[live]


def _passing_damage(w, hit: Hit, r: np.ndarray, b: np.ndarray, t: np.ndarray) -> None:
    """lanes.md "Movement & Positioning": "Some effects deal damage while moving (e.g., 'deal 1
    damage to each enemy passed')": a move effect with an ``amount`` deals it, from the moving
    unit, to the enemy standing opposite the cell it moved into (ledger: moves are one step, so
    the enemy passed is the one it now faces)."""
    amt = hit.amount[r]
    hurt = amt > 0
    if not hurt.any():
        return
    b, t, amt = b[hurt], t[hurt], amt[hurt]
    foe = _blocker_of(w, b, t)
    there = foe >= 0
    if there.any():
        w.pipeline.run(w, DamageBatch(b[there], t[there], foe[there], amt[there], SPELL))


def _step_to(w, hit: Hit, rows: np.ndarray, new_pos: np.ndarray) -> None:
    """Within-lane moves (push/pull) to ``new_pos`` if that cell of the unit's side is empty."""
    for idx in by_rank(hit.game[rows]):
        r = rows[idx]
        b, t, p = hit.game[r], hit.target[r], new_pos[idx]
        live = w.alive[b, t]
        P = w.params.positions
        ok = live & (p >= 0) & (p < P)
        side, lane = w.c.owner[b, t], w.c.lane[b, t]
        ok[ok] = w.g.board[b[ok], side[ok], lane[ok], p[ok]] == board.EMPTY
        if ok.any():
            board.move(w, b[ok], t[ok], lane[ok].astype(np.intp), p[ok])
            _passing_damage(w, hit, r[ok], b[ok], t[ok])


def push(w, hit: Hit) -> None:
    """"Push - Move a unit to an adjacent slot (left or right)"; an occupied slot blocks it."""
    ok = _units(w, hit)
    rows = np.flatnonzero(ok)
    d = np.where(hit.param("direction")[rows] == 0, -1, 1)
    _step_to(w, hit, rows, w.c.pos[hit.game[rows], hit.target[rows]].astype(np.intp) + d)


def pull(w, hit: Hit) -> None:
    """"Pull - Move a unit toward the caster/source": one position toward the source's
    position index (its own lane's cells; ledger)."""
    dealer = _dealer(hit)
    ok = _units(w, hit) & (dealer >= 0)
    rows = np.flatnonzero(ok)
    here = w.c.pos[hit.game[rows], hit.target[rows]].astype(np.intp)
    there = w.c.pos[hit.game[rows], dealer[rows]].astype(np.intp)
    _step_to(w, hit, rows, here + np.sign(there - here))


def swap(w, hit: Hit) -> None:
    """"Swap - Exchange positions of two units": the target and its neighbour on its own side in
    ``direction``; with no neighbour there it simply moves."""
    ok = _units(w, hit)
    rows = np.flatnonzero(ok)
    P = w.params.positions
    for r, b, t in _one_per_game(w, hit, rows):
        d = np.where(hit.param("direction")[r] == 0, -1, 1)
        side, lane = w.c.owner[b, t], w.c.lane[b, t].astype(np.intp)
        p = w.c.pos[b, t].astype(np.intp) + d
        inside = (p >= 0) & (p < P)
        b, t, side, lane, p = b[inside], t[inside], side[inside], lane[inside], p[inside]
        other = w.g.board[b, side, lane, p]
        empty = other == board.EMPTY
        if empty.any():
            board.move(w, b[empty], t[empty], lane[empty], p[empty])
        if (~empty).any():
            board.swap(w, b[~empty], t[~empty], other[~empty].astype(np.intp))
        _passing_damage(w, hit, r[inside], b, t)


def move_lane(w, hit: Hit) -> None:
    """"Cross Lane Move - Move a unit to a different lane" (``direction`` left: lane - 1, right:
    lane + 1); "Units moved cross-lane go to the first empty slot in the target lane"; "Rooted
    units cannot move lanes"; "Full lanes block incoming cross-lane movement"."""
    ok = _units(w, hit)
    ok[ok] = w.c.rooted[hit.game[ok], hit.target[ok]] <= 0
    rows = np.flatnonzero(ok)
    L = w.params.lanes
    for r, b, t in _one_per_game(w, hit, rows):
        d = np.where(hit.param("direction")[r] == 0, -1, 1)
        lane = w.c.lane[b, t].astype(np.intp) + d
        inside = (lane >= 0) & (lane < L)
        r, b, t, lane = r[inside], b[inside], t[inside], lane[inside]
        empty = w.g.board[b, w.c.owner[b, t], lane] == board.EMPTY
        room = any_axis(empty, 1)
        if room.any():
            board.move(w, b[room], t[room], lane[room], np.argmax(empty[room], axis=1))
            _passing_damage(w, hit, r[room], b[room], t[room])


def _blocker_of(w, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    return w.g.board[b, 1 - w.c.owner[b, t], w.c.lane[b, t], w.c.pos[b, t]].astype(np.intp)


def battle(w, hit: Hit) -> None:
    """"battle - Battle a targeted enemy": the source (a spell's caster) and the target deal
    their attack to each other, first strike respected; no "On Attack"."""
    dealer = _dealer(hit)
    ok = _units(w, hit) & (dealer >= 0)
    ok[ok] = w.alive[hit.game[ok], dealer[ok]]
    b, a, t = hit.game[ok], dealer[ok], hit.target[ok]
    exchange(w, np.r_[b, b], np.r_[a, t], np.r_[t, a], BATTLE)


def strike(w, hit: Hit) -> None:
    """"Strike - One unit deals its attack damage to another (one-way damage)": the selected unit
    strikes the enemy opposite it (ledger)."""
    ok = _units(w, hit)
    b, t = hit.game[ok], hit.target[ok]
    blk = _blocker_of(w, b, t)
    has = blk >= 0
    exchange(w, b[has], t[has], blk[has], BATTLE)


def battle_blocker(w, hit: Hit) -> None:
    """"battle_blocker - Battle the unit directly opposite this unit"."""
    ok = _units(w, hit)
    b, t = hit.game[ok], hit.target[ok]
    blk = _blocker_of(w, b, t)
    has = blk >= 0
    b, t, blk = b[has], t[has], blk[has]
    exchange(w, np.r_[b, b], np.r_[t, blk], np.r_[blk, t], BATTLE)


def battle_adjacent(w, hit: Hit) -> None:
    """"battle_adjacent - Battle all adjacent enemies": the enemies at the positions next to the
    unit's position, all in one simultaneous exchange."""
    ok = _units(w, hit)
    b, t = hit.game[ok], hit.target[ok]
    side, lane, pos = w.c.owner[b, t], w.c.lane[b, t], w.c.pos[b, t].astype(np.intp)
    P = w.params.positions
    gb, ga, ge = [], [], []
    for d in (-1, 1):
        p = pos + d
        inside = (p >= 0) & (p < P)
        e = np.full(b.size, board.EMPTY, dtype=np.intp)
        e[inside] = w.g.board[b[inside], 1 - side[inside], lane[inside], p[inside]]
        has = e >= 0
        gb.append(b[has]), ga.append(t[has]), ge.append(e[has])
    b, t, e = np.concatenate(gb), np.concatenate(ga), np.concatenate(ge)
    exchange(w, np.r_[b, b], np.r_[t, e], np.r_[e, t], BATTLE)


def caster_strike(w, hit: Hit) -> None:
    """"caster_strike - The caster deals damage to the target (one-way)": its current attack."""
    ok = _units(w, hit) & (hit.caster >= 0)
    ok[ok] = w.alive[hit.game[ok], hit.caster[ok]]
    exchange(w, hit.game[ok], hit.caster[ok], hit.target[ok], BATTLE)


def purge(w, hit: Hit) -> None:
    """lanes.md "Purge & Dispel": "Removes all temporary buffs/debuffs applied by the opponent";
    "Removes status effects (stun, silence, disarm, root)"; "Does NOT remove permanent stat changes
    or keywords"; "Does NOT remove equipment bonuses"."""
    ok = _units(w, hit)
    b, t = hit.game[ok], hit.target[ok]
    for name in _lanes.purgeable():
        getattr(w.c, name)[b, t] = 0
    opp = 1 - w.c.owner[b, t].astype(np.intp)
    w.c.temp_attack[b, t, opp] = 0
    th = w.c.temp_health[b, t, opp]
    w.c.max_health[b, t] -= th
    w.c.health[b, t] = np.maximum(np.minimum(w.c.health[b, t], w.c.max_health[b, t]), 1)
    w.c.temp_health[b, t, opp] = 0


ANCHOR_ENCHANTMENTS = ("armor", "retaliate", "regeneration", "anchor_aura")


def dispel(w, hit: Hit) -> None:
    """"Dispel removes anchor enchantments": every enchantment of the target anchor."""
    ok = hit.target >= 0
    ok[ok] = w.c.anchor[hit.game[ok], hit.target[ok]]
    for name in ANCHOR_ENCHANTMENTS:
        getattr(w.c, name)[hit.game[ok], hit.target[ok]] = 0


def enchant_anchor(w, hit: Hit) -> None:
    """"Enchant Anchor - Attaches an effect to the anchor itself": Armor, Retaliate, Regeneration
    (``keyword``) or a lane-wide attack aura (``stat = "attack"``). They "persist even if the source
    unit dies" and "When anchor becomes essence, enchantments remain active"."""
    ok = hit.target >= 0
    ok[ok] = w.c.anchor[hit.game[ok], hit.target[ok]] & ~w.c.ruined[hit.game[ok], hit.target[ok]]
    kw = hit.param("keyword")
    for k in _kinds(kw[ok]):
        sel = ok & (kw == k)
        name = "anchor_aura" if k < 0 else list(KEYWORDS)[int(k)]
        arr = getattr(w.c, name)
        np.add.at(arr, (hit.game[sel], hit.target[sel]), hit.amount[sel].astype(arr.dtype))


def destroy_improvement(w, hit: Hit) -> None:
    """"Some spells and abilities can destroy Improvements": the selected improvements, at most
    ``amount`` per effect when amount > 0 (oldest first)."""
    ok = hit.target >= 0
    ok[ok] = w.c.improvement[hit.game[ok], hit.target[ok]] & w.alive[hit.game[ok], hit.target[ok]]
    rows = np.flatnonzero(ok)
    done = np.zeros(w.n_games, dtype=np.int64)
    for idx in by_rank(hit.game[rows]):
        r = rows[idx]
        limit = hit.amount[r]
        r = r[(limit <= 0) | (done[hit.game[r]] < limit)]
        b, t = hit.game[r], hit.target[r]
        live = w.alive[b, t]
        if live.any():
            board.remove_improvement(w, b[live], t[live])
            done[b[live]] += 1


def bounty(w, hit: Hit) -> None:
    """"Some effects increase bounty ("+1 Bounty")"; "Some effects reduce bounty"."""
    ok = _units(w, hit)
    np.add.at(w.c.bounty, (hit.game[ok], hit.target[ok]), hit.amount[ok].astype(np.int16))


_OPCODES = [
    (damage, "damage", "Deal `amount` damage to each target (through armor, shields...).", ()),
    (heal, "heal", "Heal each target by `amount`, up to its maximum.", ()),
    (buff, "buff", "Add `amount` to `stat` (attack, health or both), for good or `duration = \"round\"`.", ("stat", "duration")),
    (grant_keyword, "grant_keyword", "Give `keyword` (tags) or add `amount` to it (X keywords).", ("keyword",)),
    (apply_status, "apply_status", "Add `amount` stacks (at least 1) of `status`.", ("status",)),
    (summon, "summon", "Put `amount` copies of `card` in the lane at the leftmost empty positions.", ("card",)),
    (draw, "draw", "The owner draws `amount` cards.", ()),
    (gain_gold, "gain_gold", "The owner gains `amount` gold.", ()),
    (gain_resources, "gain_resources", "The owner gains `amount` resources this round (cap 10).", ()),
    (destroy, "destroy", "Destroy each target unit.", ()),
    (bounce, "bounce", "Return each target unit to its owner's hand.", ()),
    (push, "push", "Move each target one position `direction` (left or right) if that slot is empty.", ("direction",)),
    (pull, "pull", "Move each target one position toward the source.", ()),
    (swap, "swap", "Swap each target with its neighbour in `direction`.", ("direction",)),
    (move_lane, "move_lane", "Move each target to the lane on its `direction` side, first empty slot.", ("direction",)),
    (battle, "battle", "The source battles each target (both deal their attack).", ()),
    (strike, "strike", "Each target deals its attack to the enemy opposite it (one-way).", ()),
    (battle_blocker, "battle_blocker", "Each target battles the unit directly opposite it.", ()),
    (battle_adjacent, "battle_adjacent", "Each target battles all adjacent enemies.", ()),
    (caster_strike, "caster_strike", "The caster deals its attack to each target (one-way).", ()),
    (purge, "purge", "Remove statuses and the opponent's temporary buffs from each target.", ()),
    (dispel, "dispel", "Remove every enchantment from each target anchor.", ()),
    (enchant_anchor, "enchant_anchor", "Give each target anchor `keyword` + `amount`, or a lane aura of +`amount` attack (`stat`).", ("keyword", "stat")),
    (destroy_improvement, "destroy_improvement", "Destroy the targeted improvements (at most `amount` if > 0).", ()),
    (bounty, "bounty", "Add `amount` (may be negative) to each target's bounty.", ()),
]
for _fn, _name, _doc, _params in _OPCODES:
    _lanes.opcode(_name, _doc, _params)(_fn)  # the public API (ecs/plugin.py), as a plugin would

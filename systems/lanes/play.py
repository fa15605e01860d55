"""The play phase (lanes.md "Phase 2: Play Phase", "Initiative System", "Faction Restrictions",
"Lane Rules", "Card Types", "Hero Abilities", "Improvements", "Equipment").

Turn order (ledger): players strictly alternate, starting with the initiative holder.
"Playing a card passes initiative to the opponent" (unless "Keep Initiative"), "Passing does NOT
pass initiative", and the phase ends "when both players pass consecutively". "Playing a card
automatically ends your turn" unless it has "Quickcast". Using an ability or an improvement
"uses your turn (unless Quickcast)" / "(ends your turn like playing a card)" unless Quick, and
(ledger) leaves initiative where it is: it is not playing a card.

A card or ability that needs a target asks its player for it in a second decision (TARGET).
"""

from __future__ import annotations

import esper
import numpy as np

from ecs.decisions import DecisionSystem
from ecs.effects import Ctx
from ecs.npx import any_axis
from systems.lanes import board, listeners
from systems.lanes.cards import EQUIPMENT, IMPROVEMENT, SPELL, UNIT
from systems.lanes.deaths import destroy, settle
from systems.lanes.opcodes import by_rank
from systems.lanes.targets import ALLY_UNIT, ANY_UNIT, ENEMY_UNIT, LANE, target_cells, unit_targets
from systems.lanes.vocabulary import EXECUTOR

PENDING_NONE, PENDING_UNIT, PENDING_SPELL, PENDING_ABILITY, PENDING_ACTIVATE = range(5)
FACTION_BITS = np.left_shift(1, np.arange(4), dtype=np.int16)


def lane_factions(w, games: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """``int16[n, L]`` bit set of the factions of the seat's heroes standing in each lane (bit f:
    a hero of faction f is there). Dead heroes are off the board, so they give no access
    (lanes.md "Hero Death & Respawn": "cannot act or provide lane faction access")."""
    cells = w.g.board[games, seat]  # [n, L, P]
    gi = games[:, None, None]
    sl = np.where(cells >= 0, cells, 0)
    fl = w.flat(gi, sl)  # flat entity index, computed once for the reads below
    is_hero = (cells >= 0) & w.take("hero", fl)
    bits = np.left_shift(1, w.take("faction", fl).astype(np.int16), dtype=np.int16) * is_hero
    return any_axis(bits, 2)


def caster_of(w, games: np.ndarray, seat: np.ndarray, lane: np.ndarray, faction: np.ndarray) -> np.ndarray:
    """The hero casting a card from ``lane``: the leftmost hero of the card's faction there
    (lanes.md: "caster selection required if multiple valid heroes exist"; ledger: leftmost)."""
    cells = w.g.board[games, seat, lane]  # [n, P]
    occ = cells >= 0
    sl = np.where(occ, cells, 0)
    gi = games[:, None]
    fl = w.flat(gi, sl)  # flat entity index, computed once for the reads below
    ok = occ & w.take("hero", fl) & (w.take("faction", fl) == faction[:, None])
    return np.where(any_axis(ok, 1), sl[np.arange(games.size), np.argmax(ok, axis=1)], -1)


def has_targets(w, games: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """``bool[n, 3 kinds, L]``: whether an enemy / ally / any unit target exists in each lane."""
    enemy, ally = target_cells(w, games, seat)
    e, a = any_axis(enemy, (1, 3)), any_axis(ally, (1, 3))  # [n, L]
    return np.stack([e, a, e | a], axis=1)


class TargetLanes:
    """``has_targets`` for the games of one legal-mask request, computed at most once (spells,
    abilities and improvements all ask) and only if some of them needs it."""

    def __init__(self, w, games: np.ndarray, seat: np.ndarray) -> None:
        self.w, self.games, self.seat = w, games, seat
        self.full: np.ndarray | None = None

    def get(self, rows: np.ndarray | None = None) -> np.ndarray:
        if self.full is None:
            self.full = has_targets(self.w, self.games, self.seat)
        return self.full if rows is None else self.full[rows]


_KIND_ROW = np.full(256, -1, dtype=np.int64)  # int8 target kind + 128 -> row of ``has_targets``
_KIND_ROW[[ENEMY_UNIT + 128, ALLY_UNIT + 128, ANY_UNIT + 128]] = [0, 1, 2]


def _kind_index(kind: np.ndarray) -> np.ndarray:
    """Row of ``has_targets`` for a target kind: 0 enemy, 1 ally, 2 any unit; -1 no unit target."""
    if kind.dtype == np.int8:  # the catalog's columns: one table lookup
        return _KIND_ROW[kind.astype(np.intp) + 128]
    return np.select([kind == ENEMY_UNIT, kind == ALLY_UNIT, kind == ANY_UNIT], [0, 1, 2], -1)


def legal_plays(w, games: np.ndarray, seat: np.ndarray, out: np.ndarray, targets: TargetLanes | None = None) -> None:
    """Write into ``out: bool[n, H, L, P]`` (a view, reshaped without copy) which hand card may be
    played where.

    - a card whose cost is within the seat's resources ("Playing a card costs resources");
    - units, spells and improvements in a lane with a hero of their faction ("All cards (units,
      spells, improvements) require a matching-faction hero in the origin lane"); equipment "is
      not gated by faction/lanes";
    - a unit on an empty position of the seat's side, or one held by its own non-hero unit, which
      is bounced ("Playing a unit on a position occupied by your own unit destroys the existing
      unit"; ledger: heroes cannot be bounced);
    - a spell or an improvement from its origin lane (position 0 stands for the lane); a spell
      that needs a target only if one exists; at most 3 improvements per lane and player;
    - equipment onto an own unit or hero (not a creep) at that cell, unless it is "Locked" and
      already holds equipment ("Equipment cannot be removed or replaced").
    """
    cat = w.catalog.arrays
    n, H, L, P = out.shape
    hand = w.g.hand[games, seat]  # [n, H]
    card = np.where(hand >= 0, hand, 0)
    kind = np.where(hand >= 0, cat.kind[card], -1)
    affordable = (hand >= 0) & (cat.cost[card] <= w.g.resources[games, seat][:, None])
    present = lane_factions(w, games, seat)  # [n, L]
    fbits = np.where(cat.faction[card] >= 0, FACTION_BITS[np.maximum(cat.faction[card], 0)], 0)
    gate = (present[:, None, :] & fbits[:, :, None]) != 0  # [n, H, L]
    cells = w.g.board[games, seat]  # [n, L, P]
    occ = cells >= 0
    gi = games[:, None, None]
    sl = np.where(occ, cells, 0)
    fl = w.flat(gi, sl)  # flat entity index, computed once for the reads below
    own_hero = occ & w.take("hero", fl)
    unit_gate = gate & (affordable & (kind == UNIT))[:, :, None]
    np.logical_and(np.repeat(unit_gate, P, axis=2), (~own_hero).reshape(n, 1, L * P), out=out.reshape(n, H, L * P))
    special = affordable & (kind > UNIT)
    if not special.any():
        return
    rows = np.flatnonzero(any_axis(special, 1))
    if targets is None:
        targets = TargetLanes(w, games, seat)
    _legal_special(w, games[rows], seat[rows], rows, hand[rows], kind[rows], special[rows], gate[rows],
                   occ[rows], own_hero[rows], sl[rows], out, targets)


def _legal_special(w, games, seat, rows, hand, kind, special, gate, occ, own_hero, sl, out, targets) -> None:
    """Spells, improvements and equipment (only for the few games holding one)."""
    cat = w.catalog.arrays
    card = np.where(hand >= 0, hand, 0)
    gi = games[:, None, None]
    # spells: origin lane l, position 0
    spell = special & (kind == SPELL)
    if spell.any():
        lane_ok = targets.get(rows)  # [m, 3, L]
        ok = _lanes_with_target(lane_ok, cat.target[card], cat.range[card] == 1, np.arange(lane_ok.shape[2]))
        out[rows, :, :, 0] |= spell[:, :, None] & gate & ok  # [m, H, L]
    # improvements: origin lane l, position 0, room in the lane
    imp = special & (kind == IMPROVEMENT)
    if imp.any():
        room = any_axis(w.g.improvements[games, seat] == board.EMPTY, 2)  # [m, L]
        out[rows, :, :, 0] |= imp[:, :, None] & gate & room[:, None, :]
    # equipment: onto an own non-creep unit or hero
    eq = special & (kind == EQUIPMENT)
    if eq.any():
        fl = w.flat(gi, sl)
        holder = occ & ~w.take("creep", fl)
        stuck = (w.take("locked", fl) > 0) & (w.take("equipment", fl) >= 0)
        ok = holder & ~stuck  # [m, L, P]
        out[rows] |= eq[:, :, None, None] & ok[:, None, :, :]


def _lanes_with_target(lane_ok: np.ndarray, kind: np.ndarray, rng_any: np.ndarray, lanes: np.ndarray) -> np.ndarray:
    """Whether a target of ``kind`` exists for a card or ability from origin ``lanes`` (anywhere
    for range "any", ``rng_any``); True for those needing no unit target. ``kind``/``rng_any``
    are ``[n, ...]``, ``lanes`` broadcasts against them (``lane_ok``: [n, 3, L])."""
    k = _kind_index(kind)
    m, K, L = lane_ok.shape
    # flat indices into lane_ok's (row, kind) pairs: 1-D gathers instead of 3-array fancy indexing
    base = np.arange(m).reshape((-1,) + (1,) * (kind.ndim - 1)) * K + np.maximum(k, 0)
    anywhere = any_axis(lane_ok, 2).reshape(-1)[base]
    flat = lane_ok.reshape(-1)
    if lanes.ndim == 1 and kind.ndim == 2:  # one lane per column of the result: [n, X, L]
        here = flat[base[..., None] * L + lanes[None, None, :]]
        # (k < 0) | where(rng_any, anywhere, here), without broadcasting a select over the short lane axis
        return ((k < 0) | (rng_any & anywhere))[..., None] | ((~rng_any)[..., None] & here)
    here = flat[base * L + lanes]
    return (k < 0) | np.where(rng_any, anywhere, here)


def _aim_available(w, games, seat, ok: np.ndarray, card: np.ndarray, targets: TargetLanes | None = None) -> np.ndarray:
    """``ok`` ([n, L, k] abilities of ``card`` by lane) minus those that aim at a unit when no
    unit they may aim at exists (range "lane": in that lane; "any": anywhere)."""
    cat = w.catalog.arrays
    tk = cat.ability_target[card]
    needs = (tk == ENEMY_UNIT) | (tk == ALLY_UNIT) | (tk == ANY_UNIT)
    if not (ok & needs).any():
        return ok
    lane_ok = has_targets(w, games, seat) if targets is None else targets.get()
    lanes = np.arange(ok.shape[1])[None, :, None]
    return ok & _lanes_with_target(lane_ok, tk, cat.ability_range[card] == 1, lanes)


def legal_abilities(w, games: np.ndarray, seat: np.ndarray, out: np.ndarray, targets: TargetLanes | None = None) -> None:
    """``out: bool[n, L, P]``: own heroes whose active ability can be used now. lanes.md "Hero
    Abilities": "Cooldown X", "Mana Cost - Requires spending mana from the lane's mana pool",
    "Silenced - Unit cannot use abilities"; ledger: once per round, and only with a target to aim
    at if it needs one."""
    cells = w.g.board[games, seat]
    occ = cells >= 0
    gi = games[:, None, None]
    sl = np.where(occ, cells, 0)
    fl = w.flat(gi, sl)  # flat entity index, computed once for the reads below
    card = np.where(occ, w.take("card_id", fl), 0)
    cat = w.catalog.arrays
    ok = occ & w.take("hero", fl) & cat.has_ability[card]
    if not ok.any():
        return
    ok &= (w.take("silenced", fl) <= 0) & (w.take("cooldown", fl) <= 0)
    ok &= w.take("used_round", fl) != w.g.round[games][:, None, None]
    ok &= w.take("charges", fl) != 0
    mana = w.g.lane_mana[games, seat]  # [n, L]
    ok &= cat.ability_mana[card] <= mana[:, :, None]
    out |= _aim_available(w, games, seat, ok, card, targets)


def legal_activations(w, games: np.ndarray, seat: np.ndarray, out: np.ndarray, targets: TargetLanes | None = None) -> None:
    """``out: bool[n, L, I]``: own improvements whose activated ability can be used now
    (lanes.md "Activated Improvements": cooldowns, charges; ledger: once per round)."""
    imp = w.g.improvements[games, seat]  # [n, L, I]
    occ = imp >= 0
    if not occ.any():
        return
    gi = games[:, None, None]
    sl = np.where(occ, imp, 0)
    fl = w.flat(gi, sl)  # flat entity index, computed once for the reads below
    card = np.where(occ, w.take("card_id", fl), 0)
    cat = w.catalog.arrays
    ok = occ & cat.has_ability[card]
    ok &= (w.take("cooldown", fl) <= 0) & (w.take("charges", fl) != 0)
    ok &= w.take("used_round", fl) != w.g.round[games][:, None, None]
    out |= _aim_available(w, games, seat, ok, card, targets)


class PlayPhase(DecisionSystem):
    """lanes.md "Play Phase": players alternate actions (play a card, use an ability, pass), the initiative holder first, until both pass."""

    def __init__(self, actions) -> None:
        self.actions = actions

    def begin(self, w) -> None:
        w.g.in_play[:] = w.active
        w.g.passes[:] = 0
        w.g.to_act[:] = w.g.initiative
        w.g.pending_kind[:] = PENDING_NONE

    def pending(self, w) -> np.ndarray:
        return w.g.in_play

    def request(self, w, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        A = self.actions
        n = games.size
        actor = w.g.to_act[games].astype(np.intp)
        legal = np.zeros((n, A.size), dtype=bool)
        waiting = w.g.pending_kind[games] != PENDING_NONE
        free = np.flatnonzero(~waiting)
        if free.size == n:
            self._fill(w, games, actor, legal)
        else:
            if free.size:
                sub = np.zeros((free.size, A.size), dtype=bool)
                self._fill(w, games[free], actor[free], sub)
                legal[free] = sub
            wait = np.flatnonzero(waiting)
            legal[wait, A.target_slice] = self._targets(w, games[wait], actor[wait]).reshape(wait.size, -1)
        return actor, legal

    def _fill(self, w, games, actor, legal) -> None:
        A = self.actions
        n = games.size
        legal[:, 0] = True  # "Pass - Skip your turn without playing a card"
        targets = TargetLanes(w, games, actor)  # shared by spells, abilities and improvements
        legal_plays(w, games, actor, legal[:, A.play_slice].reshape(n, A.H, A.L, A.P), targets)
        legal_abilities(w, games, actor, legal[:, A.ability_slice].reshape(n, A.L, A.P), targets)
        legal_activations(w, games, actor, legal[:, A.activate_slice].reshape(n, A.L, A.I), targets)

    def _targets(self, w, games, actor) -> np.ndarray:
        cat = w.catalog.arrays
        card = w.g.pending_card[games]
        kind_p = w.g.pending_kind[games]
        ability = (kind_p == PENDING_ABILITY) | (kind_p == PENDING_ACTIVATE)
        tk = np.where(ability, cat.ability_target[card], cat.target[card])
        rng_any = np.where(ability, cat.ability_range[card], cat.range[card]) == 1
        return unit_targets(w, games, actor, tk, w.g.pending_lane[games].astype(np.intp), rng_any)

    # -- apply ---------------------------------------------------------------------------
    def apply(self, w, games: np.ndarray, actor: np.ndarray, actions: np.ndarray) -> None:
        A, g = self.actions, w.g
        block = A.block(actions)
        passed = actions == 0
        pg = games[passed]
        g.passes[pg] += 1
        g.in_play[pg] = g.passes[pg] < 2
        g.to_act[pg] = 1 - actor[passed]
        for name, fn in (("play", self.play_cards), ("target", self.choose_targets),
                         ("ability", self.use_abilities), ("activate", self.activate_improvements)):
            sel = block == list(A.slices).index(name) + 1
            if sel.any():
                fn(w, games[sel], actor[sel], actions[sel])
        acted = games[~passed]
        if acted.size and w.c.dying[acted].any():
            settle(w)

    def end_action(self, w, games, seat, quick, passes_initiative) -> None:
        """Bookkeeping of a completed action (no target pending)."""
        g = w.g
        g.passes[games] = 0
        g.initiative[games] = np.where(passes_initiative, 1 - seat, g.initiative[games])
        g.to_act[games] = np.where(quick, seat, 1 - seat)

    def wait_for_target(self, w, games, seat, kind, card, src, caster, lane, quick, passes_initiative) -> None:
        g = w.g
        g.passes[games] = 0
        g.initiative[games] = np.where(passes_initiative, 1 - seat, g.initiative[games])
        g.pending_kind[games] = kind
        g.pending_card[games] = card
        g.pending_src[games] = src
        g.pending_caster[games] = caster
        g.pending_lane[games] = lane
        g.pending_free[games] = quick
        g.to_act[games] = seat

    def play_cards(self, w, games, seat, act) -> None:
        cat = w.catalog.arrays
        h, lane, pos = self.actions.decode_play(act)
        card = w.g.hand[games, seat, h]
        src = w.g.hand_src[games, seat, h]
        w.g.hand[games, seat, h] = -1
        w.g.hand_src[games, seat, h] = -1
        w.g.resources[games, seat] -= cat.cost[card]
        kind = cat.kind[card]
        ki = cat.keep_initiative[card]
        quick = cat.quickcast[card]
        from_deck = src >= 0
        w.g.card_played[games[from_deck], seat[from_deck], src[from_deck]] = w.g.round[games[from_deck]]
        for k, fn in ((UNIT, self.play_units), (SPELL, self.cast_spells),
                      (IMPROVEMENT, self.play_improvements), (EQUIPMENT, self.play_equipment)):
            sel = kind == k
            if sel.any():
                fn(w, games[sel], seat[sel], card[sel], lane[sel], pos[sel], src[sel], quick[sel], ~ki[sel])

    def play_units(self, w, games, seat, card, lane, pos, src, quick, passes) -> None:
        occupant = w.g.board[games, seat, lane, pos]
        bounce = occupant >= 0
        if bounce.any():
            esper.dispatch_event("lanes.bounce", w, games[bounce], occupant[bounce])
            destroy(w, games[bounce], occupant[bounce], bounty=False)
        slots = board.spawn(w, games, seat, lane, pos, card)
        w.add(games, slots, deck_pos=src)
        esper.dispatch_event("lanes.play", w, games, seat, card, lane, pos, slots)
        needs = self._needs_target(w, games, seat, card, lane, ability=False)
        if needs.any():
            self.wait_for_target(w, games[needs], seat[needs], PENDING_UNIT, card[needs], slots[needs], slots[needs],
                                 lane[needs], quick[needs], passes[needs])
        done = ~needs
        if done.any():
            self.resolve_unit(w, games[done], seat[done], card[done], slots[done], np.full(done.sum(), -1))
            self.end_action(w, games[done], seat[done], quick[done], passes[done])

    def _needs_target(self, w, games, seat, card, lane, ability: bool) -> np.ndarray:
        """A card (or ability) aiming at a unit waits for a TARGET decision when a target exists."""
        cat = w.catalog.arrays
        tk = cat.ability_target[card] if ability else cat.target[card]
        rng = (cat.ability_range[card] if ability else cat.range[card]) == 1
        aims = (tk == ENEMY_UNIT) | (tk == ALLY_UNIT) | (tk == ANY_UNIT)
        if not aims.any():
            return aims
        out = np.zeros(games.size, dtype=bool)
        i = np.flatnonzero(aims)
        out[i] = unit_targets(w, games[i], seat[i], tk[i], lane[i].astype(np.intp), rng[i]).reshape(i.size, -1).any(axis=1)
        return out

    def resolve_unit(self, w, games, seat, card, slots, chosen) -> None:
        lane, pos = w.c.lane[games, slots], w.c.pos[games, slots]
        EXECUTOR.fire(w, "on_play", Ctx.make(games, card, seat, lane, pos, source=slots, chosen=chosen))
        listeners.deployed_and_played(w, games, seat, slots)

    def cast_spells(self, w, games, seat, card, lane, pos, src, quick, passes) -> None:
        cat = w.catalog.arrays
        caster = caster_of(w, games, seat, lane, cat.faction[card])
        esper.dispatch_event("lanes.cast", w, games, seat, card, lane, caster)
        needs = self._needs_target(w, games, seat, card, lane, ability=False)
        if needs.any():
            self.wait_for_target(w, games[needs], seat[needs], PENDING_SPELL, card[needs], np.full(needs.sum(), -1),
                                 caster[needs], lane[needs], quick[needs], passes[needs])
        d = np.flatnonzero(~needs)
        if d.size:
            self.resolve_spell(w, games[d], seat[d], card[d], caster[d], lane[d], np.full(d.size, -1))
            self.end_action(w, games[d], seat[d], quick[d], passes[d])

    def resolve_spell(self, w, games, seat, card, caster, lane, chosen) -> None:
        lane_target = w.catalog.arrays.target[card] == LANE
        EXECUTOR.fire(w, "on_play", Ctx.make(games, card, seat, lane, -1, source=-1, caster=caster, chosen=chosen,
                                             chosen_lane=np.where(lane_target, lane, -1)))
        listeners.played(w, games, seat, np.full(games.size, -1))

    def play_improvements(self, w, games, seat, card, lane, pos, src, quick, passes) -> None:
        slots = board.add_improvement(w, games, seat, lane, card)
        aura = w.cache["aura_cards"][card]
        w.c.aura[games[aura], slots[aura]] = True
        esper.dispatch_event("lanes.improvement", w, games, seat, card, lane, slots)
        EXECUTOR.fire(w, "on_play", Ctx.make(games, card, seat, lane, -1, source=slots, chosen_lane=lane))
        listeners.played(w, games, seat, slots)
        self.end_action(w, games, seat, quick, passes)

    def play_equipment(self, w, games, seat, card, lane, pos, src, quick, passes) -> None:
        """lanes.md "Equipment": "Attached to a unit or hero to grant stat bonuses or abilities";
        "Each unit/hero can hold 1 equipment item" (a new one replaces the old, which is destroyed;
        ledger). Its health bonus is added on equip and taken back if it is replaced."""
        holder = w.g.board[games, seat, lane, pos]
        cat = w.catalog.arrays
        old = w.c.equipment[games, holder]
        had = old >= 0
        if had.any():
            b, s, bonus = games[had], holder[had], cat.health[old[had]]
            w.c.max_health[b, s] -= bonus
            w.c.health[b, s] = np.maximum(np.minimum(w.c.health[b, s], w.c.max_health[b, s]), 1)
        w.c.equipment[games, holder] = card
        w.c.max_health[games, holder] += cat.health[card]
        w.c.health[games, holder] += cat.health[card]
        esper.dispatch_event("lanes.equip", w, games, seat, card, holder)
        EXECUTOR.fire(w, "on_equip", Ctx.make(games, card, seat, lane, pos, source=holder))
        listeners.played(w, games, seat, np.full(games.size, -1))
        self.end_action(w, games, seat, quick, passes)

    def use_abilities(self, w, games, seat, act) -> None:
        """"Select the hero with the ability; Pay any mana cost; Select targets (if required);
        Ability resolves immediately; Cooldown begins; Your turn ends (unless ability has
        Quickcast)"."""
        lane, pos = self.actions.decode_ability(act)
        hero = w.g.board[games, seat, lane, pos]
        card = w.c.card_id[games, hero]
        cat = w.catalog.arrays
        w.g.lane_mana[games, seat, lane] -= cat.ability_mana[card]
        self._start_ability(w, games, seat, hero, card, lane, PENDING_ABILITY)

    def activate_improvements(self, w, games, seat, act) -> None:
        """lanes.md "Activated Improvements": "Activating an Improvement costs your action (ends
        your turn like playing a card)"; "May have charges (limited number of uses before
        expiring)"; "Some activated effects are free actions ... marked with the Quick keyword"."""
        lane, i = self.actions.decode_activate(act)
        imp = w.g.improvements[games, seat, lane, i]
        card = w.c.card_id[games, imp]
        self._start_ability(w, games, seat, imp, card, lane, PENDING_ACTIVATE)

    def _start_ability(self, w, games, seat, src, card, lane, kind) -> None:
        cat = w.catalog.arrays
        w.c.used_round[games, src] = w.g.round[games]
        w.c.cooldown[games, src] = cat.ability_cooldown[card]
        charged = w.c.charges[games, src] > 0
        w.c.charges[games[charged], src[charged]] -= 1
        quick = cat.ability_quickcast[card]
        no_pass = np.zeros(games.size, dtype=bool)
        esper.dispatch_event("lanes.ability", w, games, seat, card, src)
        needs = self._needs_target(w, games, seat, card, lane, ability=True)
        if needs.any():
            self.wait_for_target(w, games[needs], seat[needs], kind, card[needs], src[needs], src[needs],
                                 lane[needs], quick[needs], no_pass[needs])
        d = np.flatnonzero(~needs)
        if d.size:
            self.resolve_ability(w, games[d], seat[d], card[d], src[d], lane[d], np.full(d.size, -1))
            self.end_action(w, games[d], seat[d], quick[d], no_pass[d])

    def resolve_ability(self, w, games, seat, card, src, lane, chosen) -> None:
        lane_target = w.catalog.arrays.ability_target[card] == LANE
        EXECUTOR.fire(w, "on_activation", Ctx.make(games, card, seat, lane, w.c.pos[games, src], source=src,
                                                   chosen=chosen, chosen_lane=np.where(lane_target, lane, -1)))
        # an improvement whose last charge is spent expires
        spent = w.c.improvement[games, src] & (w.c.charges[games, src] == 0) & w.alive[games, src]
        if spent.any():
            for idx in by_rank(games[spent]):
                board.remove_improvement(w, games[spent][idx], src[spent][idx])

    def choose_targets(self, w, games, seat, act) -> None:
        side, lane, pos = self.actions.decode_target(act)
        chosen = w.g.board[games, side, lane, pos].astype(np.intp)
        kind = w.g.pending_kind[games]
        card = w.g.pending_card[games].astype(np.intp)
        src = w.g.pending_src[games].astype(np.intp)
        caster = w.g.pending_caster[games].astype(np.intp)
        origin = w.g.pending_lane[games].astype(np.intp)
        quick = w.g.pending_free[games].copy()
        w.g.pending_kind[games] = PENDING_NONE
        esper.dispatch_event("lanes.target", w, games, seat, card, chosen)
        u = kind == PENDING_UNIT
        if u.any():
            self.resolve_unit(w, games[u], seat[u], card[u], src[u], chosen[u])
        s = kind == PENDING_SPELL
        if s.any():
            self.resolve_spell(w, games[s], seat[s], card[s], caster[s], origin[s], chosen[s])
        a = (kind == PENDING_ABILITY) | (kind == PENDING_ACTIVATE)
        if a.any():
            self.resolve_ability(w, games[a], seat[a], card[a], src[a], origin[a], chosen[a])
        w.g.passes[games] = 0
        w.g.to_act[games] = np.where(quick, seat, 1 - seat)


"""The play phase (lanes.md "Phase 2: Play Phase", "Initiative System", "Faction Restrictions",
"Lane Rules", "Card Types", "Hero Abilities", "Improvements", "Equipment").

Turn order (ledger): players strictly alternate, starting with the initiative holder.
"Playing a card passes initiative to the opponent" (unless "Keep Initiative"), "Passing does NOT
pass initiative", and the phase ends "when both players pass consecutively". "Playing a card
automatically ends your turn" unless it has "Quickcast". Using an ability or an improvement
"uses your turn (unless Quickcast)" / "(ends your turn like playing a card)" unless Quick, and
(ledger) leaves initiative where it is: it is not playing a card.

A card or ability that needs a target asks its player for it in a second decision (TARGET).
A spell with several valid casters in its origin lane first asks who casts it (CASTER, answered
with a TARGET-block entry: the hero's cell; ``casters``).
"""

from __future__ import annotations

import esper
import numpy as np

from battlesim.ecs.decisions import DecisionSystem
from battlesim.ecs.effects import Ctx
from battlesim.systems.lanes import board, cellsets, listeners
from battlesim.systems.lanes.cards import EQUIPMENT, IMPROVEMENT, SPELL, UNIT
from battlesim.systems.lanes.casters import caster_cells, caster_of, several
from battlesim.systems.lanes.deaths import die, settle
from battlesim.systems.lanes.legal import SeatBoard, legal_abilities, legal_activations, legal_plays
from battlesim.systems.lanes.opcodes import by_rank
from battlesim.systems.lanes.targets import ALLY_UNIT, ANY_UNIT, ENEMY_UNIT, LANE, unit_target_bits
from battlesim.systems.lanes.vocabulary import EXECUTOR

PENDING_NONE, PENDING_UNIT, PENDING_SPELL, PENDING_ABILITY, PENDING_ACTIVATE, PENDING_CASTER = range(6)


class _Layout:
    """Where fields of bits go in a row of the action table held as a bit string (``uint64``
    words, bit a: action a): field j, ``widths[j]`` bits, at bit ``offsets[j]``. ``words``
    places them all with one product (each field times a power of two, modulo 2**64 within the
    word it starts in; fields do not overlap, so the sum is their union), then adds the high
    part of a field straddling two words."""

    def __init__(self, size: int, offsets: list[int], widths: list[int]) -> None:
        self.n_words = -(-size // 64)
        self.shift = np.zeros((len(offsets), self.n_words), dtype=np.uint64)
        self.straddle = []  # (field, next word, right shift)
        for j, (offset, width) in enumerate(zip(offsets, widths)):
            w, s = divmod(offset, 64)
            self.shift[j, w] = np.uint64(1) << np.uint64(s)
            if s + width > 64:
                self.straddle.append((j, w + 1, np.uint64(64 - s)))

    def words(self, fields: np.ndarray) -> np.ndarray:
        """``uint64[n, W]`` from ``fields: uint64[n, k]``."""
        words = fields @ self.shift
        for j, w, s in self.straddle:
            words[:, w] |= fields[:, j] >> s
        return words




class PlayPhase(DecisionSystem):
    """The numpy twin of ``compiled.processors.PlayPhase`` (whose docstring cites the rule): the
    reference it was proved against, played only by the opt-in differential tests."""

    def __init__(self, actions) -> None:
        self.actions = A = actions
        LP = A.L * A.P
        # a free row's fields: each hand card's cells (PLAY), the heroes' cells (ABILITY), the
        # improvements (ACTIVATE); a row waiting for a target: the cells (TARGET)
        self._free = _Layout(A.size, [A.play_base + h * LP for h in range(A.H)] + [A.ability_base, A.activate_base],
                             [LP] * (A.H + 1) + [A.L * A.I])
        self._waiting = _Layout(A.size, [A.target_base], [2 * LP])

    def begin(self, w) -> None:
        w.g.in_play[:] = w.active
        w.g.passes[:] = 0
        w.g.to_act[:] = w.g.initiative
        w.g.pending_kind[:] = PENDING_NONE

    def pending(self, w) -> np.ndarray:
        return w.g.in_play

    def request(self, w, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each game's legal row built as a bit string (``_Layout``), unpacked once."""
        A = self.actions
        actor = w.g.to_act[games].astype(np.intp)
        waiting = w.g.pending_kind[games] != PENDING_NONE
        if not waiting.any():
            words = self._fill(w, games, actor)
        else:
            words = np.zeros((games.size, self._free.n_words), dtype=np.uint64)
            free = np.flatnonzero(~waiting)
            if free.size:
                words[free] = self._fill(w, games[free], actor[free])
            wait = np.flatnonzero(waiting)
            words[wait] = self._waiting.words(self._targets(w, games[wait], actor[wait])[:, None])
        legal = np.unpackbits(words.astype("<u8", copy=False).view(np.uint8), axis=1, count=A.size, bitorder="little")
        return actor, legal.view(np.bool_)

    def _fill(self, w, games, actor) -> np.ndarray:
        """``uint64[n, W]``: the legal rows of games with no pending target, as bit strings."""
        A = self.actions
        n = games.size
        view = SeatBoard(w, games, actor)  # shared by plays, abilities and improvements
        ability = np.zeros((n, A.L, A.P), dtype=bool)
        legal_abilities(w, games, actor, ability, view)
        activate = np.zeros((n, A.L, A.I), dtype=bool)
        legal_activations(w, games, actor, activate, view)
        fields = np.concatenate([legal_plays(w, games, actor, view), cellsets.to_bits(ability.reshape(n, 1, A.L * A.P)),
                                 cellsets.to_bits(activate.reshape(n, 1, A.L * A.I))], axis=1)
        words = self._free.words(fields)
        words[:, 0] |= np.uint64(1)  # "Pass - Skip your turn without playing a card"
        return words

    def _targets(self, w, games, actor) -> np.ndarray:
        """``uint64[n]``: the cells the pending card or ability may be aimed at (TARGET block);
        for a pending caster choice, the valid casters' cells."""
        cat = w.catalog.arrays
        card = w.g.pending_card[games]
        kind_p = w.g.pending_kind[games]
        casting = kind_p == PENDING_CASTER
        if casting.any():
            out = np.zeros(games.size, dtype=np.uint64)
            c = casting.nonzero()[0]
            out[c] = caster_cells(w, games[c], actor[c], w.g.pending_lane[games[c]].astype(np.intp),
                                  cat.faction[card[c]])
            o = (~casting).nonzero()[0]
            if o.size:
                out[o] = self._targets(w, games[o], actor[o])
            return out
        ability = (kind_p == PENDING_ABILITY) | (kind_p == PENDING_ACTIVATE)
        tk = np.where(ability, cat.ability_target[card], cat.target[card])
        rng_any = np.where(ability, cat.ability_range[card], cat.range[card]) == 1
        return unit_target_bits(w, games, actor, tk, w.g.pending_lane[games].astype(np.intp), rng_any)

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
        if acted.size and w.c.dying.take(acted, axis=0).any():  # (a row gather: ``take`` is ~3x faster)
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
        hand, hand_src = w.g.hand, w.g.hand_src
        fh = (np.asarray(games, dtype=np.intp) * hand.shape[1] + seat) * hand.shape[2] + h  # flat [B, 2, H] index
        card = hand.reshape(-1)[fh]
        src = hand_src.reshape(-1)[fh]
        hand.reshape(-1)[fh] = -1
        hand_src.reshape(-1)[fh] = -1
        ci = card.astype(np.intp)  # the catalog gathers below: ~2x faster by intp than by int16
        w.g.resources[games, seat] -= cat.cost[ci]
        kind = cat.kind[ci]
        ki = cat.keep_initiative[ci]
        quick = cat.quickcast[ci]
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
            gb, ob = games[bounce], occupant[bounce]
            esper.dispatch_event("lanes.bounce", w, gb, ob)
            die(w, gb, ob, seat[bounce].astype(np.intp), bounty=False)
        slots = board.spawn(w, games, seat, lane, pos, card)
        w.add(games, slots, deck_pos=src)
        esper.dispatch_event("lanes.play", w, games, seat, card, lane, pos, slots)
        if bounce.any() and w.c.dying.take(games[bounce], axis=0).any():
            # the bounced unit's On Death killed something: "Deaths are processed immediately",
            # before the new unit's target is asked for (the new unit already holds the cell)
            settle(w)
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
        i = aims.nonzero()[0]
        out[i] = unit_target_bits(w, games[i], seat[i], tk[i], lane[i].astype(np.intp), rng[i]) != 0
        return out

    def resolve_unit(self, w, games, seat, card, slots, chosen) -> None:
        lane, pos = w.c.lane[games, slots], w.c.pos[games, slots]
        EXECUTOR.fire(w, "on_play", Ctx.make(games, card, seat, lane, pos, source=slots, chosen=chosen))
        listeners.deployed_and_played(w, games, seat, slots)

    def cast_spells(self, w, games, seat, card, lane, pos, src, quick, passes) -> None:
        """"Cross-lane and global/no-lane spells use the caster's lane as the origin (caster
        selection required if multiple valid heroes exist)": with several, the player chooses
        (a CASTER decision, then the target if any); with one, it casts."""
        faction = w.catalog.arrays.faction[card]
        choose = several(w, games, seat, lane, faction)
        if choose.any():
            c = choose.nonzero()[0]
            self.wait_for_target(w, games[c], seat[c], PENDING_CASTER, card[c], np.full(c.size, -1),
                                 np.full(c.size, -1), lane[c], quick[c], passes[c])
            k = (~choose).nonzero()[0]
            games, seat, card, lane, quick, passes, faction = (x[k] for x in (games, seat, card, lane, quick, passes,
                                                                              faction))
        if games.size:
            self._cast(w, games, seat, card, lane, caster_of(w, games, seat, lane, faction), quick, passes)

    def choose_casters(self, w, games, seat, act) -> None:
        """The player's caster choice for the pending spell; initiative moved when it was played."""
        _, lane, pos = self.actions.decode_target(act)
        caster = w.g.board[games, seat, lane, pos].astype(np.intp)
        card = w.g.pending_card[games].astype(np.intp)
        quick = w.g.pending_free[games].copy()
        w.g.pending_kind[games] = PENDING_NONE
        self._cast(w, games, seat, card, lane, caster, quick, np.zeros(games.size, dtype=bool))

    def _cast(self, w, games, seat, card, lane, caster, quick, passes) -> None:
        esper.dispatch_event("lanes.cast", w, games, seat, card, lane, caster)
        needs = self._needs_target(w, games, seat, card, lane, ability=False)
        if needs.any():
            self.wait_for_target(w, games[needs], seat[needs], PENDING_SPELL, card[needs], np.full(needs.sum(), -1),
                                 caster[needs], lane[needs], quick[needs], passes[needs])
        d = (~needs).nonzero()[0]
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
        if aura.any():
            w.add(games[aura], slots[aura], aura=True)  # through ``add``: aura_sources tracks it
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
        d = (~needs).nonzero()[0]
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
        casting = w.g.pending_kind[games] == PENDING_CASTER
        if casting.any():
            self.choose_casters(w, games[casting], seat[casting], act[casting])
            k = ~casting
            games, seat, act = games[k], seat[k], act[k]
            if games.size == 0:
                return
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


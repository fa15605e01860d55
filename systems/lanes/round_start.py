"""Round start: creep spawn, hero availability, draw, resources (lanes.md "Round Structure").

Order inside a round (lanes.md "Game Phases"): creep spawn, hero deployment, draw, resources,
play, combat. Systems here are small and each does one rule.
"""

from __future__ import annotations

import esper
import numpy as np

from battlesim.ecs.damage import STATUS, DamageBatch
from battlesim.ecs.effects import Ctx
from battlesim.ecs.npx import any_axis, nonzero
from battlesim.systems.lanes import board, stats
from battlesim.systems.lanes.damage_stages import heal_anchor
from battlesim.systems.lanes.deaths import settle
from battlesim.systems.lanes.hand import draw_cards
from battlesim.systems.lanes.state import DEAD, LOCKED, READY
from battlesim.systems.lanes.vocabulary import EXECUTOR


class CreepSpawn(esper.Processor):
    """The numpy twin of ``compiled.processors.CreepSpawn`` (whose docstring cites the rule): the
    reference it was proved against, played only by the opt-in differential tests."""

    def process(self, w) -> None:
        games = np.flatnonzero(w.active)
        for side in range(2):
            for lane in range(w.params.lanes):  # loops over the 2 sides and 3 lanes, not games
                empty = w.g.board[games, side, lane] == board.EMPTY
                has = any_axis(empty, 1)
                g = games[has]
                if g.size:
                    pos = np.argmax(empty[has], axis=1)
                    board.spawn(w, g, np.full(g.size, side), np.full(g.size, lane), pos,
                                w.g.creep_card[g, side], creep=True)


def unlock_round(k: np.ndarray) -> np.ndarray:
    """Round in which deck slot k (0-based) first becomes available: slots 1-3 in round 1,
    slot 4 in round 2, slot 5 in round 3 (lanes.md "Hero Deployment Phase")."""
    return np.maximum(1, k - 1)


class HeroAvailability(esper.Processor):
    """The numpy twin of ``compiled.processors.HeroAvailability`` (whose docstring cites the rule): the
    reference it was proved against, played only by the opt-in differential tests."""

    def process(self, w) -> None:
        g = w.g
        rnd = g.round[:, None, None]
        k = np.arange(w.params.heroes)[None, None, :]
        unlock = (g.hero_status == LOCKED) & (unlock_round(k) <= rnd)
        respawn = (g.hero_status == DEAD) & (g.hero_ready_round <= rnd)
        ready = (unlock | respawn) & w.active[:, None, None]
        g.hero_status[ready] = READY


class DrawPhase(esper.Processor):
    """The numpy twin of ``compiled.processors.DrawPhase`` (whose docstring cites the rule): the
    reference it was proved against, played only by the opt-in differential tests."""

    def process(self, w) -> None:
        games = np.flatnonzero(w.active)
        first = w.g.round[games] == 1
        count = np.where(first, w.params.starting_hand, w.params.draw_per_round)
        for seat in range(2):
            draw_cards(w, games, np.full(games.size, seat), count)


class RefreshResources(esper.Processor):
    """The numpy twin of ``compiled.processors.RefreshResources`` (whose docstring cites the rule): the
    reference it was proved against, played only by the opt-in differential tests."""

    def process(self, w) -> None:
        p = w.params
        mx = np.minimum(p.resources_start + w.g.round.astype(np.int32) - 1, p.resources_cap)
        act = w.active
        w.g.max_resources[act] = mx[act, None]
        w.g.resources[act] = mx[act, None]


class StartOfRound(esper.Processor):
    """The numpy twin of ``compiled.processors.StartOfRound`` (whose docstring cites the rule): the
    reference it was proved against, played only by the opt-in differential tests."""

    def process(self, w) -> None:
        status_tick(w)
        p = w.params
        act = w.active
        w.g.lane_mana[act] = np.minimum(w.g.lane_mana[act] + p.lane_mana_per_round, p.lane_mana_cap)
        fire_all(w, "start_of_round")
        settle(w)


def status_tick(w) -> None:
    act = w.active[:, None]
    units = w.alive & act & ~w.c.anchor & ~w.c.improvement
    decay = np.where(units, w.c.decay, 0)
    regen = w.c.regeneration.astype(np.int32)
    if w.equip_keywords and "regeneration" in w.equip_keywords:
        b, s = nonzero(units)
        regen = regen.copy()
        regen[b, s] = stats.keyword(w, "regeneration", b, s)
    regen = np.where(w.alive & act & ~w.c.improvement, regen, 0)
    if not (decay.any() or regen.any()):
        return
    b, s = nonzero(decay > 0)
    if b.size:
        w.pipeline.run(w, DamageBatch(b, np.full(b.size, -1), s, decay[b, s], STATUS))
    b, s = nonzero(regen > 0)
    if b.size:
        anchor = w.c.anchor[b, s]
        heal_anchor(w, b[anchor], s[anchor], regen[b[anchor], s[anchor]])
        bu, su = b[~anchor], s[~anchor]
        w.c.health[bu, su] = np.minimum(w.c.health[bu, su] + regen[bu, su], w.c.max_health[bu, su])
        back = w.c.dying[bu, su] & (w.c.health[bu, su] > 0)
        w.c.dying[bu[back], su[back]] = False


def fire_all(w, trigger: str) -> None:
    """Fire a round trigger for every unit and improvement (of active games) whose card has it."""
    listen = w.cache.get(trigger)
    if listen is None:
        return
    card = w.c.card_id
    has = listen[np.where(card >= 0, card, 0)] & (card >= 0) & w.alive & w.active[:, None] & ~w.c.anchor
    b, s = nonzero(has)
    if b.size:
        EXECUTOR.fire(w, trigger, Ctx.make(b, card[b, s], w.c.owner[b, s], w.c.lane[b, s], w.c.pos[b, s], source=s,
                                           chosen_lane=np.where(w.c.improvement[b, s], w.c.lane[b, s], -1)))

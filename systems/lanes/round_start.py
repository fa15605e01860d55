"""Round start: creep spawn, hero availability, draw, resources (lanes.md "Round Structure").

Order inside a round (lanes.md "Game Phases"): creep spawn, hero deployment, draw, resources,
play, combat. Systems here are small and each does one rule.
"""

from __future__ import annotations

import esper
import numpy as np

from systems.lanes import board
from systems.lanes.state import DEAD, LOCKED, READY


class CreepSpawn(esper.Processor):
    """lanes.md "Creep Spawning": "Each player spawns 1 creep per lane (3 total per player)";
    "Creeps spawn at the leftmost empty position in each lane"; "If a lane is full, the
    creep for that lane is skipped". Both players' creeps spawn simultaneously (they stand
    on different sides, so the order of the two sides cannot matter)."""

    def process(self, w) -> None:
        games = np.flatnonzero(w.active)
        for side in range(2):
            for lane in range(w.params.lanes):  # loops over the 2 sides and 3 lanes, not games
                empty = w.g.board[games, side, lane] == board.EMPTY
                has = empty.any(axis=1)
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
    """Heroes become READY: new deck slots by round, and dead heroes whose timer ran out
    (lanes.md: "At the start of the following round, the hero becomes available for
    redeployment")."""

    def process(self, w) -> None:
        g = w.g
        rnd = g.round[:, None, None]
        k = np.arange(w.params.heroes)[None, None, :]
        unlock = (g.hero_status == LOCKED) & (unlock_round(k) <= rnd)
        respawn = (g.hero_status == DEAD) & (g.hero_ready_round <= rnd)
        ready = (unlock | respawn) & w.active[:, None, None]
        g.hero_status[ready] = READY


def draw_cards(w, games: np.ndarray, seat: np.ndarray, count: np.ndarray | int) -> None:
    """Draw ``count`` cards for each listed (game, seat): top of deck to the first free hand
    slot. An empty deck draws nothing; a full hand burns the card (ledger: not in the rules)."""
    count = np.broadcast_to(np.asarray(count), games.shape)
    g = w.g
    for i in range(int(count.max(initial=0))):  # loops over cards drawn (<= a handful)
        sel = count > i
        gi, si = games[sel], seat[sel]
        top = g.deck_top[gi, si]
        has = top < g.deck_size[gi, si]
        gi, si, top = gi[has], si[has], top[has]
        card = g.deck[gi, si, top]
        g.deck_top[gi, si] = top + 1
        g.card_drawn[gi, si, top] = g.round[gi]
        free = g.hand[gi, si] < 0
        room = free.any(axis=1)
        h = np.argmax(free, axis=1)
        g.hand[gi[room], si[room], h[room]] = card[room]
        g.hand_src[gi[room], si[room], h[room]] = top[room]
        np.add.at(g.burned, (gi[~room], si[~room]), 1)


class DrawPhase(esper.Processor):
    """lanes.md: "Draw Phase - Draw 1 card"; in round 1, "After hero deployment, players draw
    their starting hand of 5 cards" (ledger: the starting hand replaces round 1's draw)."""

    def process(self, w) -> None:
        games = np.flatnonzero(w.active)
        first = w.g.round[games] == 1
        count = np.where(first, w.params.starting_hand, w.params.draw_per_round)
        for seat in range(2):
            draw_cards(w, games, np.full(games.size, seat), count)


class RefreshResources(esper.Processor):
    """lanes.md "Resource System": round 1 has 3, +1 per round, cap 10; "Resources fully refill
    at round start"; "Unspent resources are lost at round end"."""

    def process(self, w) -> None:
        p = w.params
        mx = np.minimum(p.resources_start + w.g.round.astype(np.int32) - 1, p.resources_cap)
        act = w.active
        w.g.max_resources[act] = mx[act, None]
        w.g.resources[act] = mx[act, None]

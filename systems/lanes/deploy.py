"""Hero deployment (lanes.md "Hero Deployment Phase" and "Phase 1").

Round 1 runs three steps: Mid (lane 1) for both players, then a random side assignment
(one player deploys Left (0), the other Right (2)), then each player's remaining lane, so
that "Exactly 1 hero per lane" holds. From round 2 on, every READY hero (slot 4 in round
2, slot 5 in round 3, and respawning heroes) goes to "any lane/position".

"revealed simultaneously": in every step each player chooses against the board as it was
before the step; both choices are then applied together. Players only ever deploy on
their own side, so two choices can never collide.
"""

from __future__ import annotations

import esper
import numpy as np

from battlesim.ecs.effects import Ctx
from battlesim.ecs.npx import any_axis
from battlesim.ecs.rng import Stream
from battlesim.systems.lanes import board, listeners
from battlesim.systems.lanes.deaths import settle
from battlesim.systems.lanes.state import ON_BOARD, READY
from battlesim.systems.lanes.vocabulary import EXECUTOR


class HeroDeployment(esper.Processor):
    """The numpy twin of ``compiled.processors.HeroDeployment`` (whose docstring cites the rule): the
    reference it was proved against, played only by the opt-in differential tests."""

    def __init__(self, actions) -> None:
        self.actions = actions

    def process(self, w) -> None:
        L = w.params.lanes
        games = np.flatnonzero(w.active)
        first = games[w.g.round[games] == 1]
        later = games[w.g.round[games] != 1]
        if first.size:
            # Step 2's draw happens before anyone chooses, so step 1 cannot depend on it.
            w.g.left_side[first] = w.rng.integers(first, 2, Stream.SIDES)
            lanes = np.zeros((first.size, 2, L), dtype=bool)
            lanes[:, :, 1] = True
            self.step(w, first, lanes)  # Step 1 (Mid)
            left = w.g.left_side[first]
            lanes[:] = False
            seat = np.arange(2)[None, :]
            lanes[:, :, 0] = seat == left[:, None]
            lanes[:, :, 2] = seat != left[:, None]
            self.step(w, first, lanes)  # Step 2 (Random sides)
            lanes = ~lanes
            lanes[:, :, 1] = False
            self.step(w, first, lanes)  # Step 3 (Remaining)
        if later.size:
            self.reveal_together(w, later)
        settle(w)  # deployed heroes' on-play effects may have destroyed something

    def reveal_together(self, w, games: np.ndarray) -> None:
        """Rounds 2+: "Both submit → all revealed at once". Every choice of both players is made
        against the board as the phase found it (a player's own earlier picks reserve their cells
        and heroes); then all chosen heroes are placed together."""
        L, P, K = w.params.lanes, w.params.positions, w.params.heroes
        n = games.size
        reserved = np.zeros((n, 2, L, P), dtype=bool)
        taken = np.zeros((n, 2, K), dtype=bool)
        chosen = []
        for seat in range(2):
            for _ in range(K):  # one hero per decision, at most K
                got = self.choose(w, games, seat, np.ones((n, L), dtype=bool), reserved[:, seat], taken[:, seat])
                if got is None:
                    break
                rows, k, lane, pos = got
                reserved[rows, seat, lane, pos] = True
                taken[rows, seat, k] = True
                chosen.append((games[rows], seat, k, lane, pos))
        for g, seat, k, lane, pos in chosen:
            self.place(w, g, seat, k, lane, pos)

    def step(self, w, games: np.ndarray, lanes: np.ndarray) -> bool:
        """One simultaneous step of round 1: each seat with a READY hero and a free allowed cell
        chooses one hero, against the board before the step; then both are placed.
        ``lanes[n, seat, L]`` says which lanes each seat may use. Returns whether anyone deployed."""
        n = games.size
        chosen = []
        for seat in range(2):
            got = self.choose(w, games, seat, lanes[:, seat], np.zeros((n,) + w.g.board.shape[2:], dtype=bool),
                              np.zeros((n, w.params.heroes), dtype=bool))
            if got is not None:
                rows, k, lane, pos = got
                chosen.append((games[rows], seat, k, lane, pos))
        for g, seat, k, lane, pos in chosen:
            self.place(w, g, seat, k, lane, pos)
        return bool(chosen)

    def choose(self, w, games, seat: int, lanes, reserved, taken):
        """Ask ``seat`` for one deployment in each game that has a READY hero (not ``taken``) and a
        free cell (not ``reserved``) in an allowed lane; returns (rows, hero, lane, pos) or None."""
        A = self.actions
        ready = (w.g.hero_status[games, seat] == READY) & ~taken  # [n, K]
        some = any_axis(ready, 1)  # most games have no hero waiting after round 3
        rows = np.flatnonzero(some)
        free = (w.g.board[games[rows], seat] == board.EMPTY) & ~reserved[rows] & lanes[rows, :, None]  # [m, L, P]
        has_cell = any_axis(free, (1, 2))
        rows, free = rows[has_cell], free[has_cell]  # a hero with no free cell waits
        if rows.size == 0:
            return None
        g = games[rows]
        legal = np.zeros((g.size, A.size), dtype=bool)
        legal[:, A.deploy_slice].reshape(g.size, A.K, A.L * A.P)[:] = ready[rows][:, :, None] & free.reshape(g.size, 1, -1)
        act = w.decide(g, np.full(g.size, seat), legal)
        k, lane, pos = A.decode_deploy(act)
        return rows, k, lane, pos

    def place(self, w, g, seat: int, k, lane, pos) -> None:
        side = np.full(g.size, seat)
        slots = board.spawn(w, g, side, lane, pos, w.g.hero_card[g, seat, k], hero_index=k)
        w.g.hero_status[g, seat, k] = ON_BOARD
        esper.dispatch_event("lanes.deploy", w, g, side, k, lane, pos)
        # "On Play - Triggers when this card is played/deployed"
        EXECUTOR.fire(w, "on_play", lambda: Ctx.make(g, w.c.card_id[g, slots], side, lane, pos, source=slots))
        listeners.deployed(w, g, side, slots)

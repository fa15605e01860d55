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

from ecs.rng import Stream
from systems.lanes import board
from systems.lanes.state import ON_BOARD, READY


class HeroDeployment(esper.Processor):
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
            any_lane = np.ones((later.size, 2, L), dtype=bool)
            for _ in range(w.params.heroes):  # at most one hero per seat per sub-step
                if not self.step(w, later, any_lane):
                    break

    def step(self, w, games: np.ndarray, lanes: np.ndarray) -> bool:
        """One simultaneous step: each seat with a READY hero and a free allowed cell deploys
        one hero. ``lanes[n, seat, L]`` says which lanes each seat may use. Returns whether
        anyone deployed."""
        A = self.actions
        chosen = []
        for seat in range(2):
            ready = w.g.hero_status[games, seat] == READY  # [n, K]
            some = ready.any(axis=1)  # most games have no hero waiting after round 3
            g, ready = games[some], ready[some]
            free = (w.g.board[g, seat] == board.EMPTY) & lanes[some, seat, :, None]  # [m, L, P]
            has_cell = free.any(axis=(1, 2))
            g, ready, free = g[has_cell], ready[has_cell], free[has_cell]  # a hero with no free cell waits
            if g.size == 0:
                continue
            legal = np.zeros((g.size, A.size), dtype=bool)
            legal[:, A.deploy_slice].reshape(g.size, A.K, A.L * A.P)[:] = (
                ready[:, :, None] & free.reshape(g.size, 1, -1)
            )
            act = w.decide(g, np.full(g.size, seat), legal)
            chosen.append((g, seat, act))
        for g, seat, act in chosen:
            k, lane, pos = A.decode_deploy(act)
            side = np.full(g.size, seat)
            board.spawn(w, g, side, lane, pos, w.g.hero_card[g, seat, k], hero_index=k)
            w.g.hero_status[g, seat, k] = ON_BOARD
            esper.dispatch_event("lanes.deploy", w, g, side, k, lane, pos)
        return bool(chosen)

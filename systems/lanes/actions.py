"""The flat action table of lanes (DESIGN.md "Decisions and agents").

    0                       pass
    1 + (h*L + l)*P + p     play hand card h at lane l, position p
    D + (k*L + l)*P + p     deploy roster hero k at lane l, position p

Every decision of the game is an index into this one table, so agents need no knowledge
of which phase asks them.
"""

from __future__ import annotations

import numpy as np

PASS = 0


class ActionTable:
    def __init__(self, hand_limit: int, lanes: int, positions: int, heroes: int) -> None:
        self.H, self.L, self.P, self.K = hand_limit, lanes, positions, heroes
        self.play_base = 1
        self.n_play = hand_limit * lanes * positions
        self.deploy_base = self.play_base + self.n_play
        self.n_deploy = heroes * lanes * positions
        self.size = self.deploy_base + self.n_deploy

    @property
    def play_slice(self) -> slice:
        return slice(self.play_base, self.play_base + self.n_play)

    @property
    def deploy_slice(self) -> slice:
        return slice(self.deploy_base, self.deploy_base + self.n_deploy)

    def decode_play(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        i = a - self.play_base
        return i // (self.L * self.P), (i // self.P) % self.L, i % self.P

    def decode_deploy(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        i = a - self.deploy_base
        return i // (self.L * self.P), (i // self.P) % self.L, i % self.P

    def play(self, h: int, lane: int, pos: int) -> int:
        return self.play_base + (h * self.L + lane) * self.P + pos

    def deploy(self, k: int, lane: int, pos: int) -> int:
        return self.deploy_base + (k * self.L + lane) * self.P + pos

    def describe(self, a: int) -> str:
        if a == PASS:
            return "pass"
        if a < self.deploy_base:
            h, lane, pos = (int(x) for x in self.decode_play(np.array(a)))
            return f"play hand[{h}] at lane {lane} pos {pos}"
        k, lane, pos = (int(x) for x in self.decode_deploy(np.array(a)))
        return f"deploy hero {k + 1} at lane {lane} pos {pos}"

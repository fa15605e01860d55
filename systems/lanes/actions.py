"""The flat action table of lanes (DESIGN.md "Decisions and agents").

    0          pass (in the shop: done shopping)
    PLAY       hand card h at lane l, position p: a unit onto the cell, equipment onto the own
               unit standing there, an improvement or a spell from origin lane l (p = 0)
    DEPLOY     roster hero k at lane l, position p
    TARGET     the cell (side, lane, position) a pending card or ability aims at; for a spell
               with several valid casters (CASTER decision), the cell of the hero who casts it
    ABILITY    activate the active ability of the own hero at lane l, position p
    ACTIVATE   activate the own improvement in lane l, slot i
    BUY        buy shop offer k
    UPGRADE    upgrade the shop

Every decision of the game is an index into this one table, so agents need no knowledge of
which phase asks them. A spell's or ability's target is a second decision (TARGET) made by the
same player right after the first, which keeps the table small (lanes.md: "Select targets (if
required)").
"""

from __future__ import annotations

import numpy as np

PASS = 0


class ActionTable:
    def __init__(self, hand_limit: int, lanes: int, positions: int, heroes: int,
                 improvements: int = 3, offers: int = 3) -> None:
        self.H, self.L, self.P, self.K = hand_limit, lanes, positions, heroes
        self.I, self.O = improvements, offers
        blocks = [
            ("play", hand_limit * lanes * positions),
            ("deploy", heroes * lanes * positions),
            ("target", 2 * lanes * positions),
            ("ability", lanes * positions),
            ("activate", lanes * improvements),
            ("buy", offers),
            ("upgrade", 1),
        ]
        start = 1
        self.slices: dict[str, slice] = {}
        for name, n in blocks:
            self.slices[name] = slice(start, start + n)
            setattr(self, f"{name}_slice", self.slices[name])  # play_slice, deploy_slice, ...
            setattr(self, f"{name}_base", start)  # play_base, deploy_base, ...
            start += n
        self.size = start

    @property
    def n_play(self) -> int:
        return self.H * self.L * self.P

    @property
    def n_deploy(self) -> int:
        return self.K * self.L * self.P

    def block(self, a: np.ndarray) -> np.ndarray:
        """Index of the block each action belongs to (0 pass, then the blocks in order)."""
        edges = np.array([s.start for s in self.slices.values()])
        return np.searchsorted(edges, a, side="right")

    def decode_play(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        i = a - self.play_base
        return i // (self.L * self.P), (i // self.P) % self.L, i % self.P

    def decode_deploy(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        i = a - self.deploy_base
        return i // (self.L * self.P), (i // self.P) % self.L, i % self.P

    def decode_target(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        i = a - self.target_base
        return i // (self.L * self.P), (i // self.P) % self.L, i % self.P

    def decode_ability(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        i = a - self.ability_base
        return i // self.P, i % self.P

    def decode_activate(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        i = a - self.activate_base
        return i // self.I, i % self.I

    def play(self, h: int, lane: int, pos: int) -> int:
        return self.play_base + (h * self.L + lane) * self.P + pos

    def deploy(self, k: int, lane: int, pos: int) -> int:
        return self.deploy_base + (k * self.L + lane) * self.P + pos

    def target(self, side: int, lane: int, pos: int) -> int:
        return self.target_base + (side * self.L + lane) * self.P + pos

    def ability(self, lane: int, pos: int) -> int:
        return self.ability_base + lane * self.P + pos

    def activate(self, lane: int, i: int) -> int:
        return self.activate_base + lane * self.I + i

    def buy(self, k: int) -> int:
        return self.buy_base + k

    @property
    def upgrade(self) -> int:
        return self.upgrade_base

    def describe(self, a: int) -> str:
        a = int(a)
        if a == PASS:
            return "pass"
        name = list(self.slices)[int(self.block(np.array(a))) - 1]
        if name == "play":
            h, lane, pos = (int(x) for x in self.decode_play(np.array(a)))
            return f"play hand[{h}] at lane {lane} pos {pos}"
        if name == "deploy":
            k, lane, pos = (int(x) for x in self.decode_deploy(np.array(a)))
            return f"deploy hero {k + 1} at lane {lane} pos {pos}"
        if name == "target":
            side, lane, pos = (int(x) for x in self.decode_target(np.array(a)))
            return f"target side {side} lane {lane} pos {pos}"
        if name == "ability":
            lane, pos = (int(x) for x in self.decode_ability(np.array(a)))
            return f"activate hero at lane {lane} pos {pos}"
        if name == "activate":
            lane, i = (int(x) for x in self.decode_activate(np.array(a)))
            return f"activate improvement {i} of lane {lane}"
        if name == "buy":
            return f"buy offer {a - self.buy_base}"
        return "upgrade shop"

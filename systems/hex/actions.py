"""The scenario runner's battle: one hex World whose steps (move, attack, charge, retreat, skip,
ability, push, pull, damage, heal, round start and end) are checked for legality in Python (an
illegal step names why, spec §8) and then applied by the compiled kernels of ``apply.py``, the
same ones the batch game loop (``play.py``) runs: the scenario files test the game's code.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from battlesim.ecs.compiled.damage_queue import OK, push
from battlesim.ecs.datafiles import DataError
from battlesim.systems.hex import apply as ap
from battlesim.systems.hex import damage_stages  # noqa: F401  (declares hex's stages)
from battlesim.systems.hex import work as wk
from battlesim.systems.hex.battle import (
    HexFields,
    legal_ability,
    legal_attack,
    legal_charge,
    legal_move,
    passable,
    prop,
    stand,
)
from battlesim.systems.hex.board import DIST, N_HEXES, coords
from battlesim.systems.hex.pipeline import plugin_stages, stage_columns
from battlesim.systems.hex.state import A_COMBINABLE, POS, columns, view_of
from battlesim.systems.hex.turn import round_end
from battlesim.systems.hex.work import new_work


def at_(h: int) -> str:
    """A hex as scenarios write it, ``[col, row]``."""
    c, r = coords(h)
    return f"[{c}, {r}]"


class Illegal(ValueError):
    """A step the agent's mask would not allow (the scenario stops: exit 2)."""


class Battle:
    """One hex World with its compiled view, column table and scratch (``apply.Work``): a
    scenario's steps checked here in Python (an illegal one raises ``Illegal`` naming why), then
    applied by the compiled kernels of ``apply.py``, the ones batch games run."""

    def __init__(self, world: Any, log: int = 0) -> None:
        self.w = world
        self.view = view_of(world)
        self.st = self.view.state
        self.cols = columns(self.view)
        self.f = HexFields(world.g.hex, world.g.hex_mods, world.g.hex_abil, world.g.hex_board)
        self.plugins = plugin_stages()
        self.k = new_work(world.n_games, world.n_slots, stage_columns(self.view.layout()), log=log)
        self.returned = self.k.returned
        self.steps = np.empty(N_HEXES, dtype=np.int64)
        self.prev = np.empty(N_HEXES, dtype=np.int64)
        self.frontier = np.empty(N_HEXES, dtype=np.int64)  # the search's queue (``battle.reach``)

    def _args(self, b: int) -> tuple:
        if self.plugins:  # never silently without a plugin's stage
            raise DataError(f"hex: plugin damage stages ({', '.join(self.plugins)}) are applied by 'damage' steps "
                            "only; actions and round steps play the built-in stages (the compiled game's)")
        return (self.st, self.cols, self.f, self.k, b)

    @property
    def engine(self) -> Any:
        """The generated engine with every registered hex stage (plugins' too): ``deal`` uses it
        when a plugin added a stage."""
        from battlesim.ecs.compiled.engine import build

        return build("hex")

    # -- plumbing ---------------------------------------------------------------------------
    def i(self, k: int, b: int, s: int) -> int:
        return int(self.st.i16[self.cols[k], b, s])

    def put(self, k: int, b: int, s: int, v: int) -> None:
        self.st.i16[self.cols[k], b, s] = v

    def stand(self, b: int, s: int, h: int) -> None:
        """Unit s of game b put on hex h (-1: none) by Python (setup, a scenario's units): its
        position and the game's kept board, as the compiled game moves units (``battle.stand``)."""
        stand(self.st, self.cols, self.f, b, s, h)

    def occupied(self, b: int) -> np.ndarray:
        """The slot on each hex of game b (-1: empty): the game's kept board."""
        return self.f.board[b]

    def deal(self, b: int, source: int, target: int, amount: int, kind: int) -> None:
        """One damage instance through the pipeline, then deaths."""
        if not self.plugins:
            wk.deal(*self._args(b), source, target, amount, kind)
            return
        k, engine = self.k, self.engine
        push(k.queue, k.qlen, b, source, target, amount, kind)
        status = engine.module.run_damage(self.st, b, k.queue, k.qlen, 0, engine.columns(self.view.layout()), k.stack)
        k.qlen[b] = 0
        if status != OK:
            raise RuntimeError(f"hex damage pipeline stopped ({status}) in game seed {self.w.seeds[b]}")
        wk.bury(self.st, self.cols, self.f, k, b)

    def alive(self, b: int, s: int) -> bool:
        return bool(self.st.alive[b, s])

    @staticmethod
    def _path(path: list[int] | None) -> tuple[np.ndarray, int]:
        if path is None:
            return np.zeros(1, dtype=np.int64), -1
        return np.array(path + [0], dtype=np.int64), len(path)

    def check_path(self, b: int, s: int, path: list[int], limit: int) -> None:
        """A given ``path``: adjacent steps through passable hexes, at most ``limit`` long."""
        occ = self.occupied(b)
        at = self.i(POS, b, s)
        if len(path) > limit:
            raise Illegal(f"path of {len(path)} hexes is longer than the movement {limit}")
        for h in path:
            if DIST[at, h] != 1:
                raise Illegal(f"path hex {at_(h)} is not adjacent to the one before")
            if occ[h] >= 0 and occ[h] != s and not passable(self.st, self.cols, self.f, b, s, occ[h]):
                raise Illegal("the path crosses a unit this unit cannot pass")
            at = h

    def check_move(self, b: int, s: int, h: int) -> None:
        if not legal_move(self.st, self.cols, self.f, b, s, h, self.occupied(b), self.steps, self.prev, self.frontier,
                          self.k.dcols):
            raise Illegal(f"unit cannot move to {at_(h)} (movement, root, the path, or an occupied hex its trample does not empty)")

    # -- actions -----------------------------------------------------------------------------
    def move(self, b: int, s: int, h: int, path: list[int] | None) -> None:
        """H10.3.1: a move action."""
        self.check_move(b, s, h)
        if path is not None:
            self.check_path(b, s, path, int(prop(self.st, self.cols, self.f, b, s, 2)))
        ap.do_move(*self._args(b), s, h, *self._path(path))

    def skip(self, b: int, s: int) -> None:
        """hex.md "Skipping consumes the unit's action, but does not count as taking an action"."""
        ap.do_skip(*self._args(b), s)

    def attack(self, b: int, s: int, t: int, approach: int | None, path: list[int] | None,
               retreat: int | None) -> None:
        """H10.3.2 / H11: an attack, a charge with ``approach`` (I-22), Retreating after it."""
        occ = self.occupied(b)
        if approach is not None:
            if not legal_charge(self.st, self.cols, self.f, b, s, t, approach, occ, self.steps, self.prev, self.frontier):
                raise Illegal(f"unit cannot charge {at_(t)} from {at_(approach)}")
        elif not legal_attack(self.st, self.cols, self.f, b, s, t, occ):
            raise Illegal(f"unit cannot attack {at_(t)} (no enemy there, out of range, disarmed, no power or rooted melee)")
        code = ap.do_attack(*self._args(b), s, t, -1 if approach is None else approach, *self._path(path),
                            -1 if retreat is None else retreat)
        if code == ap.NO_RETREATING:
            raise Illegal("unit has no Retreating")
        if code == ap.BAD_RETREAT:
            raise Illegal(f"unit cannot retreat to {at_(retreat or 0)}")

    def ability(self, b: int, s: int, k: int, t: int, move_to: int | None = None, move_first: bool = True) -> None:
        """H10.3.3: an ability action, with a Combinable move before or after (spec §2.7)."""
        st, cols, f = self.st, self.cols, self.f
        if move_to is not None:
            if not f.abil[b, s, k, A_COMBINABLE]:
                raise Illegal(f"ability {k} is not combinable")
            if move_first:
                self.check_move(b, s, move_to)
                wk.walk_to(*self._args(b), s, move_to)
                if not self.alive(b, s):
                    raise Illegal("the unit died on its way")
        if not legal_ability(st, cols, f, b, s, k, t, self.occupied(b)):
            raise Illegal(f"unit cannot use ability {k} on {at_(t)} (silenced, mana, range, target, a relocation onto a unit or while rooted, once per round or battle)")
        code = ap.do_ability(*self._args(b), s, k, t, -1 if move_to is None else move_to, move_first)
        if code == ap.BAD_MOVE:
            raise Illegal(f"unit cannot move to {at_(move_to or 0)} (movement, root, the path, or an occupied hex its trample does not empty)")

    # -- effects (not turns) -------------------------------------------------------------------
    def heal(self, b: int, s: int, amount: int) -> None:
        wk.heal(self.st, self.cols, b, s, amount)

    def displace(self, b: int, s: int, source: int, amount: int, pull: bool, path: list[int] | None) -> None:
        wk.displace(*self._args(b), s, source, amount, pull, *self._path(path))

    def round_start(self, b: int) -> None:
        ap.round_start(*self._args(b))

    def concede(self, b: int, seat: int) -> None:
        """hex.md "A player wins immediately if their opponent concedes." (I-14: an API call for a
        person playing, never an agent action): game b ends now, the other seat wins."""
        from battlesim.systems.hex.state import END_CONCEDE, END_REASON, TO_ACT, WINNER

        g = self.f.g
        if g[b, WINNER] >= 0:
            raise Illegal("the game is over")
        g[b, WINNER], g[b, END_REASON], g[b, TO_ACT] = 1 - seat, END_CONCEDE, -1

    def round_end(self, b: int) -> None:
        self._args(b)
        round_end(self.st, self.cols, self.f, b)

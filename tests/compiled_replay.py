"""What the differential tests of the compiled lanes rules share: a second World on which captured
numpy calls are replayed by the compiled engine (its resolution machine and the phase entries of
``systems/lanes/compiled/phase_entries.py``: ``round_step`` for start of round, end of round and
hero deployment, ``play_step`` for the play phase's apply or a whole random play phase), and the
snapshots compared.

A capture takes a snapshot of the numpy World before and after the call (every component,
presence mask, ``alive``, ``serial``, the next serials, every per-game field, ``active`` and the
RNG counters); the replay writes "before" into the replay World's own arrays, runs the compiled
code game by game, and compares a snapshot with "after".
"""

from __future__ import annotations

import numpy as np

from battlesim.ecs.compiled.engine import build
from battlesim.ecs.compiled.machine import new_resolution
from battlesim.ecs.compiled.world_view import regroup
from battlesim.systems.lanes.compiled.board import game_fields
from battlesim.systems.lanes.compiled.combat_layout import READS, combat_fields, combat_view
from battlesim.systems.lanes.compiled.phase_entries import APPLY, DEPLOY, END, PHASE, START  # noqa: F401
from battlesim.systems.lanes.vocabulary import EXECUTOR


def snapshot(w) -> dict[str, np.ndarray]:
    """Every array of a World compiled rules code may change, copied."""
    out = {f"c.{n}": getattr(w.c, n).copy() for n in w.components}
    out.update({f"present.{n}": m.copy() for n, m in w.present.items()})
    out.update({f"g.{n}": getattr(w.g, n).copy() for n in w.state_fields})
    out["alive"], out["serial"], out["rng"] = w.alive.copy(), w.serial.copy(), w.rng.counter.copy()
    out["next_serial"], out["active"] = w._next_serial.copy(), w.active.copy()
    return out


def restore(w, snap: dict[str, np.ndarray]) -> None:
    """Write a snapshot into World ``w``'s own arrays (in place: the compiled view stays valid)."""
    for n in w.components:
        getattr(w.c, n)[...] = snap[f"c.{n}"]
    for n, m in w.present.items():
        m[...] = snap[f"present.{n}"]
    for n in w.state_fields:
        getattr(w.g, n)[...] = snap[f"g.{n}"]
    w.alive[...], w.serial[...], w._next_serial[...] = snap["alive"], snap["serial"], snap["next_serial"]
    w.active[...] = snap["active"]


def changed(before: dict[str, np.ndarray], after: dict[str, np.ndarray]) -> bool:
    return any(not np.array_equal(before[k], after[k]) for k in after)


def lanes_engine(tmp_path_factory):
    """(A test module's ``engine`` fixture yields from this.) The lanes engine, built or loaded
    from the cache every run uses (its name is the hash of every source it comes from, so a
    cached engine is never stale): compiled once for the whole test session, and for the next
    sessions too, rather than once per session in a directory of its own."""
    yield build("lanes")


class Replayer:
    """The compiled lanes engine bound to ``world`` (a copy of the numpy World, regrouped: one
    buffer per group): its view (``view_of``: combat's, or a phase family's, whose card rows the
    ``Resolution`` must be built with), per-game fields, combat's columns and a ``Resolution``."""

    def __init__(self, engine, world, table=None, view_of=combat_view) -> None:
        regroup(world)
        self.world = world
        self.view = view_of(world)
        self.st = self.view.state
        self.g = game_fields(world, self.view)
        self.f = combat_fields(world, self.view)
        self.cols = self.view.cols(READS)
        table = world.effects if table is None else table
        self.m = new_resolution(engine, self.view, table, list(EXECUTOR.opcodes), list(EXECUTOR.selectors),
                                world.n_games)
        self.module = engine.module  # the machine (resolve)
        self.engine = engine
        self.rng = np.zeros((world.n_games, 2), dtype=np.uint64)

    @property
    def game(self):
        """The engine's game module (the phases), its machine addresses refreshed at each use."""
        return self.engine.game

    def set(self, before: dict[str, np.ndarray]) -> None:
        """The replay World as it was before the captured call (no pending events)."""
        restore(self.world, before)
        self.rng = np.stack([self.world.rng._keys, before["rng"]], axis=1).astype(np.uint64)
        self.st.nevents[...] = 0

    def fire(self, b: int, trigger: int, rows: np.ndarray) -> int:
        """The engine's ``fire`` for game b, called as ``resolve`` (kind 2): from Python, calling
        the machine itself spares compiling each inlined entry point as a function of its own
        (each would link and optimise the whole machine again)."""
        return self.module.resolve(self.st, self.g, self.rng, b, self.m, 2, 0, trigger, rows, rows.shape[0])

    def resolve_damage(self, b: int, start: int = 0) -> int:
        """The engine's ``resolve_damage`` for game b (``resolve`` kind 0)."""
        return self.module.resolve(self.st, self.g, self.rng, b, self.m, 0, start, -1, self.m.arena, 0)

    def differences(self, after: dict[str, np.ndarray]) -> list[str]:
        now = snapshot(self.world)
        now["rng"] = self.rng[:, 1]
        out = []
        for k, want in after.items():
            if not np.array_equal(now[k], want):
                at = np.argwhere(now[k] != want)[:3]
                out.append(f"{k} at {at.tolist()}: compiled {now[k][tuple(at.T)].tolist()} "
                           f"numpy {want[tuple(at.T)].tolist()}")
        return out

    def card_name(self) -> str:
        card = int(self.m.info[0])
        return self.world.catalog.names[card] if 0 <= card < len(self.world.catalog) else f"#{card}"

"""What the differential tests of the compiled round phases share (tests/test_compiled_lanes_round_start.py,
tests/test_compiled_lanes_deploy.py): the lanes engine, a copy of every World array taken before a
numpy call, the compiled ``WorldState``/``PhaseFields`` over that copy, and numpy's recorded trigger
firings as per-game event rows (the trigger boundary, as tests/test_compiled_lanes_combat.py defers them)."""

from __future__ import annotations

from collections.abc import Iterator

import numba
import numpy as np
import pytest

import battlesim.systems.lanes.compiled  # noqa: F401  (declares lanes' compiled damage stages)
from battlesim.ecs.compiled.engine import build
from battlesim.ecs.compiled.events import CARD, LANE, OTHER, OWNER, POS, SERIAL, SOURCE, TRIGGER, new_events
from battlesim.ecs.compiled.world_view import WorldState
from battlesim.systems.lanes.compiled.combat_layout import CombatFields
from battlesim.systems.lanes.compiled.round_layout import PhaseFields, phase_fields
from battlesim.systems.lanes.vocabulary import EXECUTOR

GROUPS = ("i16", "i8", "flags", "i16x2", "alive", "serial")
ROWS = (TRIGGER, CARD, SOURCE, SERIAL, OTHER, OWNER, LANE, POS)


def lanes_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """The lanes engine (its damage dispatcher), built into a cache of the module's own: the body
    of a test module's ``engine`` fixture."""
    old = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = str(tmp_path_factory.mktemp("numba"))
    try:
        yield build("lanes")
    finally:
        numba.config.CACHE_DIR = old


def snapshot(w, view) -> dict[str, np.ndarray]:
    """A copy of every component buffer, ``alive``, ``serial``, per-game field, ``active`` and the
    serial counters, and of the RNG state (``uint64[B, 2]``, as ``ecs/compiled/rng.py`` holds it)."""
    s = view.state
    out = {name: getattr(s, name).copy() for name in GROUPS}
    out.update({f"g.{name}": arr.copy() for name, arr in view.g.items()})
    out["active"] = w.active.copy()
    out["next_serial"] = w._next_serial.copy()
    out["rng"] = np.stack([w.rng._keys, w.rng.counter], axis=1).astype(np.uint64)
    return out


def phase_copy(w, view, before: dict) -> tuple[WorldState, PhaseFields]:
    """The ``WorldState`` and ``PhaseFields`` over the arrays of snapshot ``before`` (fresh events
    and deployment scratch): what the compiled twin runs on."""
    s = view.state
    events, nevents = new_events(w.n_games, 256)
    state = WorldState(*(before[name] for name in GROUPS), s.cat, s.params, events, nevents)
    f0 = phase_fields(w, view)
    combat = CombatFields(before["g.board"], before["g.round"], before["g.gold"], before["g.card_died"],
                          before["g.hero_status"], before["g.hero_ready_round"], before["g.hero_card"],
                          before["active"], before["next_serial"], *f0.combat[9:])
    return state, f0._replace(combat=combat, lane_mana=before["g.lane_mana"], improvements=before["g.improvements"],
                              left_side=before["g.left_side"])


def differences(got: dict, want: dict) -> list[str]:
    """Every array of ``want`` that ``got`` does not equal, with its first differing places."""
    out = []
    for name, arr in want.items():
        if not np.array_equal(got[name], arr):
            diff = np.argwhere(got[name] != arr)[:3]
            out.append(f"{name} differs at {diff.tolist()}: compiled {got[name][tuple(diff.T)]} "
                       f"numpy {arr[tuple(diff.T)]}")
    return out


def fired_rows(fired: list, listens: dict[int, np.ndarray] | None = None) -> dict[int, list]:
    """Numpy's recorded firings ``(trigger, ctx, serials)`` as per-game event rows in firing order;
    for a trigger id in ``listens``, only the rows whose card listens (``Executor.fire`` drops the
    others; the compiled phase does not push them)."""
    out: dict[int, list] = {}
    for trigger, ctx, serial in fired:
        tid = EXECUTOR.id("trigger", trigger)
        for r in range(len(ctx)):
            if listens is not None and tid in listens and not listens[tid][int(ctx.card[r])]:
                continue
            out.setdefault(int(ctx.game[r]), []).append(
                (tid, int(ctx.card[r]), int(ctx.source[r]), int(serial[r]), int(ctx.other[r]), int(ctx.owner[r]),
                 int(ctx.lane[r]), int(ctx.pos[r])))
    return out


def compiled_rows(st: WorldState, b: int) -> list:
    """The events the compiled phase pushed for game b, as ``fired_rows`` gives numpy's."""
    return [tuple(int(e[k]) for k in ROWS) for e in st.events[b, :st.nevents[b]]]

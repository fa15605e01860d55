"""The compiled lanes game's events, posted as the esper events the rules name.

``with events_of(w): ...`` switches the World's game loop to emit (``ecs/compiled/emit.py``) and
turns each emitted event back into the esper event of ``event_codes.py`` (``lanes.play``,
``lanes.deaths``...), with the arguments the rules give it (``w``, then arrays over the games),
at the moment it happens: a listener reads the World as it stands then. The damage pipeline
posts two more, which no rule names but a reader of damage needs:

- ``damage.open`` (``w``): a damage level starts (a run of the pipeline; nested runs open
  inside it: a retaliation, the damage an "On Damage Taken" effect deals);
- ``damage.resolved`` (``w``, ``DamageBatch``): that level's rows after every stage (their
  ``amount`` and ``dealt``; ``excess`` is not carried), once the runs it started have resolved.

This is how the replay log and the rules tests read a game: the same compiled code every run
plays, heard rather than re-played by a second engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import esper
import numpy as np

from battlesim.ecs.compiled import emit as em
from battlesim.ecs.damage import DamageBatch
from battlesim.systems.lanes.compiled import event_codes as ev
from battlesim.systems.lanes.compiled.loop import bookkeeping, loop_args

# opcode -> the esper event its numpy kernel posts (with ``w, games, owner, amount`` of its hits)
OPCODE_EVENTS = {"gain_gold": "lanes.gold"}


class EventStream:
    """The listener ``emit`` calls for World ``w`` (module docstring)."""

    def __init__(self, w: Any, opcode_names: dict[int, str]) -> None:
        self.w = w
        self.opcodes = opcode_names  # the engine's opcode switch index -> opcode name
        self.rows: list[tuple[int, ...]] = []  # rows of the event being gathered (deaths, expired, hits)
        self.damage: list[tuple[int, ...]] = []  # rows of the damage level closing
        self.depth = 0  # damage levels open
        self.last_root: DamageBatch | None = None  # the outermost level that closed last

    def _post(self, name: str, *args: Any) -> None:
        # the compiled code made and removed entities since the last event: a listener reading the
        # World through numpy code (an attack with its auras) must not find its caches stale
        bookkeeping(self.w)
        esper.dispatch_event(name, self.w, *args)

    def _gathered(self) -> np.ndarray:
        rows, self.rows = np.array(self.rows, dtype=np.int64).reshape(-1, 3), []
        return rows

    def __call__(self, code: int, b: int, a0: int, a1: int, a2: int, a3: int, a4: int) -> None:
        if code == em.DAMAGE_OPEN:
            self.depth += 1
            self._post("damage.open")
        elif code == em.DAMAGE_ROW:
            self.damage.append((b, a0, a1, a2, a3, a4))
        elif code == em.DAMAGE_CLOSE:
            batch = _batch(self.damage)
            self.damage = []
            self.depth -= 1
            if self.depth == 0:
                self.last_root = batch
            self._post("damage.resolved", batch)
        elif code in (em.OPCODE_HIT, ev.DEATH_ROW, ev.EXPIRED_ROW):
            self.rows.append((b, a0, a1))
        elif code == em.OPCODE_DONE:
            hits = self._gathered()
            event = OPCODE_EVENTS.get(self.opcodes.get(a0, ""))
            if event is not None:
                self._post(event, hits[:, 0].astype(np.intp), hits[:, 1], hits[:, 2])
        elif code == ev.DEATHS_END:
            rows = self._gathered()
            self._post("lanes.deaths", rows[:, 0].astype(np.intp), rows[:, 1].astype(np.intp), rows[:, 2])
        elif code == ev.EXPIRED_END:
            rows = self._gathered()
            self._post("lanes.expired", rows[:, 0].astype(np.intp), rows[:, 1].astype(np.intp))
        elif code == ev.COMBAT:
            self._post("lanes.combat", a0, self.last_root if self.last_root is not None else _batch([]))
        else:
            name, n = _SIMPLE[code]
            self._post(name, np.array([b], dtype=np.intp), *(np.array([x]) for x in (a0, a1, a2, a3, a4)[:n]))


_SIMPLE = {
    ev.DEPLOY: ("lanes.deploy", 4),
    ev.BOUNCE: ("lanes.bounce", 1),
    ev.PLAY: ("lanes.play", 5),
    ev.CAST: ("lanes.cast", 4),
    ev.IMPROVEMENT: ("lanes.improvement", 4),
    ev.EQUIP: ("lanes.equip", 3),
    ev.ABILITY: ("lanes.ability", 3),
    ev.TARGET: ("lanes.target", 3),
}


def _batch(rows: list[tuple[int, ...]]) -> DamageBatch:
    r = np.array(rows, dtype=np.int64).reshape(-1, 6)
    return DamageBatch(r[:, 0], r[:, 1], r[:, 2], r[:, 3], r[:, 4], dealt=r[:, 5].copy(), excess=np.zeros(len(r), dtype=np.int64))


@contextmanager
def events_of(w: Any) -> Iterator[EventStream]:
    """Inside, World ``w``'s compiled game posts its events (module docstring). ``w`` must be set
    up (``LanesGame.new_world``); other Worlds, a lookahead's rollouts and other threads stay
    silent (each has its own resolution machine)."""
    from battlesim.systems.lanes.vocabulary import EXECUTOR

    m = loop_args(w).m
    switch = m.maps[0]
    names = {int(switch[op]): name for op, name in enumerate(EXECUTOR.opcodes) if op < switch.size and switch[op] >= 0}
    stream = EventStream(w, names)
    with em.listening(m.info, stream):
        yield stream

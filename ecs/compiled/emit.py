"""Events out of compiled code: what a game does, told to Python as it happens, when asked.

The replay log and a rules test read a game as it is played: which card was played, each
damage instance as it resolves, each wave of deaths. The compiled game loop does not stop for
them; it calls ``emit(code, b, a0, a1, a2, a3, a4)`` at the place the event happens, and only
while the game's resolution machine says so (``m.info[I_EMIT] == EMITTING``, set by
``listening``). ``emit`` enters Python (numba's ``objmode``) and hands the integers to the
listeners, which read the World as it stands at that moment (the compiled code writes the
World's own arrays). A run never switches it on, so it costs a run one comparison per site.

Codes below ``RULESET_CODES`` are the machine's own (a damage level opened, its rows, closed;
an opcode's hits and its call);
a ruleset numbers its events from ``RULESET_CODES`` up (lanes: ``systems/lanes/compiled/
event_codes.py``).

Why ``objmode`` and not a buffer read afterwards: the reader wants the World at the event (a
unit's name and health before it is removed, the gold after a bounty), which only the moment
itself has; and a buffer would need every site to copy what any reader might read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from numba import njit, objmode

I_EMIT = 1  # the ``Resolution.info`` entry that switches events on (machine.I_CARD is 0)
EMITTING = 1
# the machine's codes: a damage level opened; one row of it, after every stage (a0..a4: source,
# target, amount, kind, dealt); the level closed (its nested levels closed before it)
DAMAGE_OPEN, DAMAGE_ROW, DAMAGE_CLOSE = 1, 2, 3
# an opcode ran: one row per hit it was called with (owner, amount, target, card, source), then
# the call (its index in the engine's opcode switch, the number of hits), before what it pushed
OPCODE_HIT, OPCODE_DONE = 4, 5
RULESET_CODES = 16

Listener = Callable[[int, int, int, int, int, int, int], Any]
_LISTENERS: list[Listener] = []


def _deliver(code: int, b: int, a0: int, a1: int, a2: int, a3: int, a4: int) -> None:
    for fn in _LISTENERS:
        fn(int(code), int(b), int(a0), int(a1), int(a2), int(a3), int(a4))


@njit("void(int64, int64, int64, int64, int64, int64, int64)", cache=True)
def emit(code, b, a0, a1, a2, a3, a4):
    """Hand an event to the Python listeners (module docstring). Call it only under
    ``emitting(m)``: entering Python costs microseconds."""
    with objmode():
        _deliver(code, b, a0, a1, a2, a3, a4)


@njit(cache=True, inline="always")
def emitting(m) -> bool:
    """Events are on for this resolution machine (its World is being listened to)."""
    return m.info[I_EMIT] == EMITTING


@contextmanager
def listening(info: np.ndarray, listener: Listener) -> Iterator[None]:
    """Inside, compiled code running with the resolution machine whose ``info`` this is calls
    ``listener(code, b, a0, a1, a2, a3, a4)`` at every event (the World's own machine: a
    lookahead's rollouts and other threads have machines of their own and stay silent)."""
    before = int(info[I_EMIT])
    info[I_EMIT] = EMITTING
    _LISTENERS.append(listener)
    try:
        yield
    finally:
        _LISTENERS.remove(listener)
        info[I_EMIT] = before

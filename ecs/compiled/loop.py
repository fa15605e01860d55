"""The compiled game loop: a per-game state machine generated from a ruleset's schedule.

DESIGN.md "Execution model": the schedule (phases in order, systems by priority) is generated into
ONE compiled function of the engine module, ``advance(L, games, stop, actions)``. Each game keeps
its place in ``L.pc[b]`` (the system it is at, that system's own sub-step, the seat asked, the
game's status), so a game runs until its next decision that needs a Python agent, until the
system ``stop`` (the Processors: "run phase k over the batch"), or to its end; every other
decision is taken inside the loop by the ruleset's compiled ``decide`` (per-seat agent codes).

Why one function: every separately compiled function that reaches the resolution machine costs
a full compile of it (~100 s, minutes under load; docs/compiled-core.md "How phases call the
resolution machine"). So the step API (``advance`` then ``advance`` with ``actions``), the
Processors and ``play_batch`` all call this one entry point.

A ruleset registers, per system name of its schedule (``extend(r).schedule_specs()``), a step
``step(L, b) -> status`` (``DONE``: the system is over for game b; ``DECIDE``: ``L.legal[b]`` and
``L.pc[b, PC_ACTOR]`` say who must choose among what; negative: an error for the caller to stop
the game naming its seed) and, for a decision system, ``apply(L, b, seat, action) -> status``.
The loop holds the systems with a compiled twin only (``looped_systems``); a system without
one (a plugin's Python Processor) is run over the batch by the ruleset's Python side between them
(lanes' ``play_by_system``), so such a plugin shares the compiled game module of the built-ins.
(``UNCOMPILED``, the status of a step the loop has not, is then never met in a game.)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from battlesim.ecs.plugin import BUILT_IN, PluginError, current_source, extend, loaded_plugins

# L.pc[b, :]: the system the game is at, its sub-step (the system's own), the seat asked, the status
PC_SYSTEM, PC_SUB, PC_ACTOR, PC_STATUS = range(4)
PC_WIDTH = 4
# a step's return
DONE, DECIDE = 0, 1
# a game's status after ``advance``
RUNNING, PENDING, STOPPED, FINISHED = 0, 1, 2, 3
UNCOMPILED = -50  # the game stands before a system with no compiled twin
NO_STOP = -1  # ``stop``: run to the game's end
NO_ACTION = -1  # ``actions[i]``: nothing to apply for this game
ASK_PYTHON = -1  # ``decide``: a Python agent decides (below -1: the compiled agent's error)
MAX_DECISIONS = 100_000  # per game and call: a phase that never ends is an error, not a hang
LOOPING = -51
LOOP_MARKER = "loop.compiled"  # beside a game module: its game loop was compiled once (its first run said so)

F = TypeVar("F", bound=Callable)


@dataclass(frozen=True)
class CompiledSystem:
    """The compiled twin of one system of a ruleset's schedule (by the system's name)."""

    name: str
    step: Callable
    apply: Callable | None
    ruleset: str
    source: str


_SYSTEMS: dict[tuple[str, str], CompiledSystem] = {}
_DECIDE: dict[str, Callable] = {}


def _check(fn: Callable, what: str) -> None:
    py = getattr(fn, "py_func", fn)
    file = inspect.getsourcefile(py)
    code = py.__code__
    if not file or file.startswith("<") or py.__qualname__ != py.__name__:
        raise PluginError(f"{code.co_filename}:{code.co_firstlineno}: {what} {py.__qualname__} must be a "
                          f"module-level function in a file")


def compiled_system(ruleset: str, name: str, apply: Callable | None = None) -> Callable[[F], F]:
    """Decorator on ``step(L, b) -> status``: the compiled twin of the system ``name`` of
    ``ruleset``'s schedule; ``apply(L, b, seat, action) -> status`` for a decision system."""
    def deco(step: F) -> F:
        _check(step, "system step")
        if apply is not None:
            _check(apply, "system apply")
        old = _SYSTEMS.get((ruleset, name))
        source = current_source()
        if old is not None and old.source != source:
            raise PluginError(f"{ruleset}: compiled system {name!r} is already declared by {old.source}")
        _SYSTEMS[(ruleset, name)] = CompiledSystem(name, getattr(step, "py_func", step),
                                                   getattr(apply, "py_func", apply), ruleset, source)
        return step

    return deco


def compiled_decide(ruleset: str) -> Callable[[F], F]:
    """Decorator on ``decide(L, b, seat) -> action`` (``ASK_PYTHON``: a Python agent decides; below
    it: an error status that stops the game): the ruleset's
    compiled agents, chosen by the per-seat codes the ruleset keeps in ``L``."""
    def deco(fn: F) -> F:
        _check(fn, "decide")
        _DECIDE[ruleset] = getattr(fn, "py_func", fn)
        return fn

    return deco


def systems_of(ruleset: str, names: list[str]) -> list[CompiledSystem | None]:
    """The compiled twin of each system name (schedule order), None where there is none (or its
    plugin is not loaded)."""
    loaded = loaded_plugins()
    out: list[CompiledSystem | None] = []
    for n in names:
        s = _SYSTEMS.get((ruleset, n))
        out.append(s if s is not None and (s.source == BUILT_IN or s.source in loaded) else None)
    return out


def looped_systems(ruleset: str) -> list[CompiledSystem]:
    """The systems the generated loop runs, in schedule order: those of the ruleset's schedule
    with a compiled twin (position k is the loop's system k, ``L.pc[b, PC_SYSTEM]``). A system
    without one (a plugin's Python Processor) is run by the ruleset's Python side between them,
    so it does not change the compiled game module. The one list both the generated module and
    the Python side number the systems by."""
    names = [spec.name for _, specs in extend(ruleset).schedule_specs() for spec in specs]
    return [s for s in systems_of(ruleset, names) if s is not None]


def decide_of(ruleset: str) -> Callable | None:
    return _DECIDE.get(ruleset)


def loop_source(systems: list[CompiledSystem], decide: Callable) -> str:
    """The loop's part of the engine module (after the machine and its phases: ``_rebind`` and
    ``_MACHINE`` are defined there): each system's step and apply rebound to the machine and
    inlined, the two switches, and ``advance``. ``systems``: ``looped_systems``."""
    lines = ["", "# -- the game loop, generated from the schedule (battlesim.ecs.compiled.loop)",
             "from battlesim.ecs.compiled import loop as _loop",
             f"SYSTEMS = {tuple(s.name for s in systems)!r}",
             f"N_SYSTEMS = {len(systems)}",
             f"_decide = _rebind(getattr(importlib.import_module({decide.__module__!r}), {decide.__name__!r}), _MACHINE, inline=True)"]
    for k, s in enumerate(systems):
        lines.append(f"_step_{k} = _rebind(getattr(importlib.import_module({s.step.__module__!r}), "
                     f"{s.step.__name__!r}), _MACHINE, inline=True)  # {s.name}")
        if s.apply is not None:
            lines.append(f"_apply_{k} = _rebind(getattr(importlib.import_module({s.apply.__module__!r}), "
                         f"{s.apply.__name__!r}), _MACHINE, inline=True)")
    lines += ["", "", "@njit(inline='always')", "def _run_step(k, L, b):"]
    for k, s in enumerate(systems):
        lines += [f"    if k == {k}:  # {s.name}", f"        return _step_{k}(L, b)"]
    lines += ["    return _loop.UNCOMPILED", "", "", "@njit(inline='always')", "def _run_apply(k, L, b, seat, action):"]
    for k, s in enumerate(systems):
        if s.apply is not None:
            lines += [f"    if k == {k}:  # {s.name}", f"        return _apply_{k}(L, b, seat, action)"]
    lines += ["    return _loop.UNCOMPILED", "", "", "import numpy as np", LOOP]
    return "\n".join(lines)


LOOP = '''
@njit(inline="always")
def _advance_games(L, games, stop, actions):
    """Each listed game b runs from where ``L.pc[b]`` says: first its pending decision answered
    with ``actions[i]`` (if not NO_ACTION), then system after system, deciding with the compiled
    agents, until a decision for a Python agent (PENDING: ``L.legal[b]``, ``L.pc[b, PC_ACTOR]``),
    the system ``stop`` (STOPPED), its end (FINISHED), a system with no compiled twin
    (UNCOMPILED) or an error (negative, in ``L.pc[b, PC_STATUS]``). Returns how many are PENDING."""
    pending = 0
    for i in range(games.shape[0]):
        b = games[i]
        pc = L.pc
        status = _loop.RUNNING
        action = actions[i] if i < actions.shape[0] else _loop.NO_ACTION
        if pc[b, _loop.PC_STATUS] == _loop.FINISHED:
            continue
        if pc[b, _loop.PC_STATUS] == _loop.PENDING and action != _loop.NO_ACTION:
            r = _run_apply(pc[b, _loop.PC_SYSTEM], L, b, pc[b, _loop.PC_ACTOR], action)
            if r < 0:
                status = r
        elif pc[b, _loop.PC_STATUS] == _loop.PENDING:
            pending += 1
            continue
        n = 0
        while status == _loop.RUNNING:
            k = pc[b, _loop.PC_SYSTEM]
            if k >= N_SYSTEMS:  # a round is over
                if not L.active[b]:
                    status = _loop.FINISHED
                    break
                k = 0
                pc[b, _loop.PC_SYSTEM] = 0
                pc[b, _loop.PC_SUB] = 0
            if k == stop:
                status = _loop.STOPPED
                break
            r = _run_step(k, L, b)
            if r == _loop.DECIDE:
                n += 1
                if n > _loop.MAX_DECISIONS:
                    status = _loop.LOOPING
                    break
                seat = pc[b, _loop.PC_ACTOR]
                a = _decide(L, b, seat)
                if a == _loop.ASK_PYTHON:
                    status = _loop.PENDING
                    pending += 1
                    break
                if a < 0:  # the compiled agent failed (a lookahead rollout's error)
                    status = a
                    break
                r = _run_apply(k, L, b, seat, a)
                if r < 0:
                    status = r
                continue
            if r < 0:
                status = r
                break
            pc[b, _loop.PC_SUB] = 0
            pc[b, _loop.PC_SYSTEM] = k + 1
            if k + 1 == stop:
                status = _loop.STOPPED
        pc[b, _loop.PC_STATUS] = status
    return pending


@njit(cache=True, nogil=True, _nrt=False)
def advance(L, games, stop, actions):
    """Each listed game b runs from where ``L.pc[b]`` says (``_advance_games``); returns how
    many wait for a Python agent. Without the GIL: ``--threads`` runs it on several threads at
    once, each over its own games with its own resolution machine (``run_threads``). Without
    numba's reference counting (``_nrt=False``): it allocates nothing, and the inlined steps read
    dozens of arrays out of ``L`` per game and step, each an atomic incref and decref otherwise
    (measured: over a third of a game's time in ``NRT_incref``/``NRT_decref``)."""
    return _advance_games(L, games, stop, actions)
'''

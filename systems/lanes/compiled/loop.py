"""Playing lanes games through the compiled game loop (``ecs/compiled/loop.py``): ``play_batch``
over a chunk, and the step API (``advance`` / ``apply``) for Python agents.

One entry point reaches the resolution machine: the engine module's ``advance`` (generated from
the schedule). Python works per chunk: ``loop_args(w, agents)`` builds the ``LoopArgs`` once (the
World's own buffers: compiled code writes them, the games and cards tables read them after), and
``play_batch`` calls ``advance`` over the chunk.

While some systems have no compiled twin yet (start and end of round, hero deployment, the play
phase's apply: issue 13, their draining twins), ``play_batch`` plays the schedule system by
system: a compiled system over the batch through ``advance(..., stop=k + 1)`` (the Processors'
"run phase k over the batch"), the others through their Processors; decisions of Python agents
inside compiled systems go through the step API. Once every system is compiled, one ``advance``
plays each game to its end.
"""

from __future__ import annotations

import fcntl
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from battlesim.ecs.compiled import loop as cl
from battlesim.ecs.compiled.interpreter import EffectError, check
from battlesim.ecs.compiled.emit import EMITTING, I_EMIT
from battlesim.ecs.compiled.machine import new_resolution
from battlesim.ecs.effects import EffectDepthError
from battlesim.ecs.plugin import extend
from battlesim.ecs.threads import run_threads, threads
from battlesim.systems.lanes.compiled import game as lg
from battlesim.systems.lanes.compiled.agents import agent_columns, agent_fields, scratch_size
from battlesim.systems.lanes.compiled.board import game_fields
from battlesim.systems.lanes.compiled.bundle import bundle
from battlesim.systems.lanes.compiled.combat_layout import READS, combat_fields
from battlesim.systems.lanes.compiled.lookahead_agent import new_memo
from battlesim.systems.lanes.compiled.play_layout import play_apply_fields, play_columns
from battlesim.systems.lanes.compiled.rollout import rollout_game
from battlesim.systems.lanes.compiled.round_layout import phase_columns, phase_fields

KEY = "compiled_loop"


def agent_codes(agents: Sequence[Any]) -> np.ndarray:
    """Each seat's compiled agent code (``game.AGENT_CODES``), PYTHON for an agent that has none."""
    return np.array([lg.AGENT_CODES.get(getattr(a, "name", ""), lg.PYTHON) if type(a).__module__.startswith(
        ("battlesim.ecs.decisions", "battlesim.systems.lanes.agents")) else lg.PYTHON for a in agents],
        dtype=np.int64)


def compiled_agents(agents: Sequence[Any]) -> bool:
    """Both seats have compiled twins: the loop decides inside."""
    return bool((agent_codes(agents) != lg.PYTHON).all())


_ENGINE: dict[tuple, Any] = {}


def engine() -> Any:
    """The lanes engine, built (or loaded) once per process: ``build`` hashes every source file
    it depends on, too slow for each call, and a file edited during a run must not switch engines
    in the middle of it. One per plugin set (a plugin loaded later makes another engine)."""
    from battlesim.ecs.plugin import loaded_plugins

    key = tuple(sorted(loaded_plugins()))
    if key not in _ENGINE:
        from battlesim.ecs.compiled.engine import build

        _ENGINE[key] = build("lanes")
    return _ENGINE[key]


def loop_args(w: Any, agents: Sequence[Any] | None = None) -> lg.LoopArgs:
    """The ``LoopArgs`` of World ``w`` (after setup: it needs ``w.actions``), kept in ``w.cache``;
    ``agents`` set the per-seat codes (default: ``w.agents``)."""
    from battlesim.systems.lanes.vocabulary import EXECUTOR

    got = w.cache.get(KEY)
    k = bundle(w)
    if got is None or got[0] is not k:
        view = k.view
        actions = w.actions
        scols, lcols = k.columns_for(actions)
        rf, rcols = k.round
        lanes, positions = w.g.board.shape[2], w.g.board.shape[3]
        m = new_resolution(engine(), view, w.effects, list(EXECUTOR.opcodes), list(EXECUTOR.selectors), w.n_games)
        args = lg.LoopArgs(
            k.st, k.rng, game_fields(w, view), m, w.active, rf, rcols, combat_fields(w, view), view.cols(READS),
            k.shop_fields, scols, agent_fields(view), agent_columns(view, actions),
            np.zeros(2, dtype=np.int64), np.zeros((w.n_games, cl.PC_WIDTH), dtype=np.int64),
            np.zeros((w.n_games, actions.size), dtype=np.bool_),
            np.zeros((w.n_games, scratch_size(actions, lanes, positions)), dtype=np.float64),
            np.zeros(w.n_games, dtype=np.int64),
            phase_fields(w, view), phase_columns(view, actions, extend("lanes").decaying()),
            play_apply_fields(w, view), play_columns(view, w), lcols,
            np.zeros((w.n_games, w.n_slots), dtype=np.int64), np.ones(2, dtype=np.int64),
            np.zeros(2, dtype=np.bool_), new_memo(w.n_games),
            _idle_rollout(w, k))
        got = w.cache[KEY] = (k, args)
    args = got[1]
    agents = w.agents if agents is None else agents
    args.agents[:] = agent_codes(agents)
    return _lookahead(w, args, agents)


def restart(w: Any) -> None:
    """After ``World.restart``: the arrays ``loop_args`` and ``thread_args`` made of their own
    (everything else they hold is a view of the World, restarted with it, or a per-card table)
    back to how they made them: the games' positions, legal rows, greedy's scratch, the end
    rounds, end of round's scratch, lookahead's memo and seats, each machine's damage queues.
    Left as they are: each machine's frame stack, arena and work tables (a worker's scratch, which
    the games of a chunk already use in turn: a call resolves completely before it returns; the
    arena alone is 12 MB, zeroing it cost half a millisecond), and the rollout game (each rollout
    copies its game in first)."""
    got = w.cache.get(KEY)
    if got is None:
        return
    L = got[1]
    for a in (L.pc, L.legal, L.scratch, L.ended, L.expired, L.memo_on, *L.memo):
        a[...] = 0
    L.la_k[...] = 1
    threaded = w.cache.get(KEY + "_threads")
    for m in [L.m] + ([T.m for T in threaded[2][1:]] if threaded is not None and threaded[0] is L else []):
        m.queue[...] = 0
        m.qlen[...] = 0
        m.info[...] = -1


def _rollout(w: Any, k: Any, candidates: int) -> Any:
    """A rollout game for lookahead's ``candidates`` over World ``w``, its view and tables those of
    the bundle ``k`` (the loop's), drawing beside the real RNG."""
    return rollout_game(w, k.view, engine(), candidates, k.rng, tables=k.tables)


# layout -> a rollout game no kernel reads (``_idle_rollout``)
_IDLE: dict[tuple, Any] = {}


def _idle_rollout(w: Any, k: Any) -> Any:
    """A rollout game for a run with no lookahead seat (``lookahead_act`` is its only reader): of
    the types World ``w``'s own would have, built once per layout over a one-game scratch of ``w``
    rather than over each World (3 of the ~5 ms of a one-game ``play``). ``_lookahead`` replaces
    it with the World's own as soon as a seat is lookahead."""
    from battlesim.ecs.compiled.world_view import world_view
    from battlesim.systems.lanes.compiled.scratch import scratch_world

    eng = engine()
    key = (id(eng), w.n_slots, w.actions.size,
           tuple((n, np.dtype(f.dtype).str, tuple(f.shape)) for n, f in w.state_fields.items()))
    got = _IDLE.get(key)
    if got is None:
        cards, params = k.tables
        s = scratch_world(w, 1)
        got = _IDLE[key] = rollout_game(s, world_view(s, extra_cards=cards, extra_params=params), eng, 1,
                                        s.rng.packed, tables=k.tables)
    return got


def _is_idle(ro: Any) -> bool:
    return any(ro is r for r in _IDLE.values())


def _lookahead(w: Any, L: lg.LoopArgs, agents: Sequence[Any]) -> lg.LoopArgs:
    """Each lookahead seat's ``k`` and whether numpy keeps its memo (a plain greedy opponent:
    ``LookaheadAgent._memo``); a rollout game with room for the largest ``k``."""
    from battlesim.systems.lanes.agents import GreedyAgent

    for seat, a in enumerate(agents):
        L.la_k[seat] = getattr(a, "k", 1) if L.agents[seat] == lg.LOOKAHEAD else 1
        L.memo_on[seat] = L.agents[seat] == lg.LOOKAHEAD and type(agents[1 - seat]) is GreedyAgent
    looks = bool((L.agents == lg.LOOKAHEAD).any())
    if looks and (_is_idle(L.ro) or L.la_k.max() > L.ro.cand.shape[0]):
        k = bundle(w)
        L = L._replace(ro=_rollout(w, k, int(L.la_k.max())))
        w.cache[KEY] = (k, L)
    return L


_NOTICED: set[str] = set()
LOOP_MARKER = cl.LOOP_MARKER


@contextmanager
def first_compile_notice(module: Any) -> Iterator[None]:
    """The first ``advance`` of a process: when the engine's loop was never compiled (no marker
    beside the game module), say on stderr that it compiles now and how long it took (DESIGN.md
    "Rules of the road": minutes of silence look like a hang), then leave the marker. One process
    compiles a game loop at a time (a lock beside it): another that needs the same loop meanwhile
    waits, says so, and loads it from the cache, instead of spending minutes compiling it again."""
    if module.__name__ in _NOTICED:
        yield
        return
    _NOTICED.add(module.__name__)
    marker = Path(module.__file__).with_name(LOOP_MARKER)
    with _compile_lock(marker):
        first = not marker.exists()
        if first:
            print("compiling the lanes game loop (first run: a few minutes; cached for later runs)...",
                  end="", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        try:
            yield
        except BaseException:
            if first:
                print(" stopped", file=sys.stderr, flush=True)
            raise
        if first:
            seconds = time.perf_counter() - t0
            print(f" {seconds:.1f} s", file=sys.stderr, flush=True)
            try:
                marker.write_text(f"{seconds:.3f}\n")
            except OSError:  # a read-only shared cache: nothing to record
                pass


@contextmanager
def _compile_lock(marker: Path) -> Iterator[None]:
    """Held while this process may compile the game loop beside ``marker`` (none once it is
    compiled, or where the cache is read-only)."""
    if marker.exists():
        yield
        return
    try:
        handle = open(marker.with_name("loop.lock"), "a")
    except OSError:
        yield
        return
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print("waiting for another battlesim process compiling the lanes game loop...", end="",
                  file=sys.stderr, flush=True)
            t0 = time.perf_counter()
            fcntl.flock(handle, fcntl.LOCK_EX)
            print(f" {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def bookkeeping(w: Any) -> None:
    """Compiled code made and removed entities: the caches the numpy systems key on
    (``World.version``, ``World.changes``) must see it (conservatively: every tracked count)."""
    w.version += 1
    for name in w.changes:
        w.changes[name] += 1


def _raise(w: Any, L: lg.LoopArgs, games: np.ndarray) -> None:
    st = L.pc[games, cl.PC_STATUS]
    bad = games[(st < 0) & (st != cl.UNCOMPILED)]
    if bad.size:
        b = int(bad[0])
        card = int(L.m.info[0])
        name = w.catalog.names[card] if 0 <= card < len(w.catalog.names) else "?"
        try:
            check(int(L.pc[b, cl.PC_STATUS]), int(w.seeds[b]), name)
        except EffectError as e:  # the card files are at fault (a chain that never quiets): one line, no retry
            raise EffectDepthError(str(e)) from None
        raise RuntimeError(f"game with seed {int(w.seeds[b])} stopped with status {int(L.pc[b, cl.PC_STATUS])}")


def thread_args(w: Any, n: int) -> list:
    """``n`` ``LoopArgs`` for ``run_threads``: the World's, then n - 1 with a resolution
    machine (frame stack, arena, info) and a rollout game of their own (the damage queue, the
    memo and everything else are per game already)."""
    L = loop_args(w) if KEY not in w.cache else w.cache[KEY][1]
    got = w.cache.get(KEY + "_threads")
    if got is None or got[0] is not L or got[1] != n:
        m = L.m
        k = bundle(w)
        own = [L] + [L._replace(m=m._replace(frames=np.zeros_like(m.frames), arena=np.zeros_like(m.arena),
                                                info=np.full_like(m.info, -1), work=np.zeros_like(m.work)),
                                ro=L.ro if _is_idle(L.ro) else _rollout(w, k, L.ro.cand.shape[0]))
                     for _ in range(n - 1)]
        got = w.cache[KEY + "_threads"] = (L, n, own)
    return got[2]


def advance(w: Any, games: np.ndarray, stop: int = cl.NO_STOP, actions: np.ndarray | None = None) -> np.ndarray:
    """The step API's ``advance``/``apply``: run ``games`` (answering their pending decisions with
    ``actions`` first, if given) until each needs a Python agent, reaches system ``stop`` or ends.
    Returns the games now PENDING; their legal rows are ``loop_args(w).legal[games]`` and the
    seat to act ``loop_args(w).pc[games, PC_ACTOR]`` (``pending(w)``)."""
    L = loop_args(w) if KEY not in w.cache else w.cache[KEY][1]
    games = np.asarray(games, dtype=np.int64)
    acts = np.full(0, cl.NO_ACTION, dtype=np.int64) if actions is None else np.asarray(actions, dtype=np.int64)
    # a World listened to (``event_stream.events_of``) plays on its own thread: the other threads'
    # resolution machines are silent, and its listeners hear its games in order
    n = 1 if L.m.info[I_EMIT] == EMITTING else min(threads(), games.size)
    module = engine().game
    first = module.__name__ not in _NOTICED
    with first_compile_notice(module):
        if first:
            # again, inside: after waiting for another process's compile, the tables get the slots
            # of the signatures it recorded (its advance is loaded from the cache, not typed here)
            module = engine().game
        if n > 1:
            Ls = thread_args(w, n)
            run_threads(module.advance, Ls, games, stop, acts)
            for t in range(n):  # the card of a failed firing, from the thread that met it
                if Ls[t].m.info[0] >= 0:
                    L.m.info[:] = Ls[t].m.info
        else:
            module.advance(L, games, stop, acts)
    _raise(w, L, games)
    return games[L.pc[games, cl.PC_STATUS] == cl.PENDING]


def pending(w: Any, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(actor[n], legal[n, A])`` of pending games."""
    L = w.cache[KEY][1]
    return L.pc[games, cl.PC_ACTOR].copy(), L.legal[games].copy()


def run_system(w: Any, k: int) -> None:
    """Compiled system k of the schedule over the batch (a Processor's ``process``): every game
    from the start of system k to the start of system k + 1, Python agents asked through the
    step API with ``w.decide``."""
    L = loop_args(w)
    games = np.arange(w.n_games, dtype=np.int64)
    L.pc[:, cl.PC_SYSTEM] = k
    L.pc[:, cl.PC_SUB] = 0
    L.pc[:, cl.PC_STATUS] = cl.RUNNING
    waiting = advance(w, games, k + 1)
    while waiting.size:
        actor, legal = pending(w, waiting)
        bookkeeping(w)
        actions = w.decide(waiting, actor, legal)
        waiting = advance(w, waiting, k + 1, actions)
    bookkeeping(w)


def schedule_names() -> list[str]:
    """The lanes schedule's systems in order, plugins' systems included."""
    from battlesim.ecs.plugin import extend

    return [s.name for _, specs in extend("lanes").schedule_specs() for s in specs]


def system_names() -> list[str]:
    """The systems the game loop runs, in schedule order: those with a compiled twin (position k
    is the ``k`` of ``run_system`` and of ``L.pc[b, PC_SYSTEM]``). A plugin's Python Processor is
    not among them: ``play_by_system`` runs it between them (``ecs.compiled.loop.looped_systems``)."""
    from battlesim.ecs.compiled.loop import looped_systems

    return [s.name for s in looped_systems("lanes")]


def system_index(name: str) -> int:
    """The position of the system called ``name`` in the game loop (``system_names``)."""
    return system_names().index(name)


def apply_answers(w: Any, k: int, games: np.ndarray, actor: np.ndarray, actions: np.ndarray) -> None:
    """A decision system's ``apply``, compiled: game ``games[i]``'s seat ``actor[i]`` answers
    ``actions[i]`` to system k's decision, exactly as the loop applies an agent's answer (the same
    ``apply`` step, deaths settled). Why through the loop: the apply fires card effects, and only
    the engine module's ``advance`` reaches the resolution machine. Every seat is asked in
    Python meanwhile, so the loop stops at the next decision (or at the end of system k) instead
    of playing on with the World's compiled agents; system k is taken as begun (its sub-step
    past its start), as an ``apply`` after a ``request`` finds it."""
    L = loop_args(w)
    games = np.asarray(games, dtype=np.int64)
    codes = L.agents.copy()
    L.agents[:] = lg.PYTHON
    try:
        L.pc[games, cl.PC_SYSTEM] = k
        L.pc[games, cl.PC_SUB] = 1
        L.pc[games, cl.PC_ACTOR] = np.asarray(actor, dtype=np.int64)
        L.pc[games, cl.PC_STATUS] = cl.PENDING
        advance(w, games, k + 1, np.asarray(actions, dtype=np.int64))
    finally:
        L.agents[:] = codes
    bookkeeping(w)


def play_batch(game: Any, w: Any) -> None:
    """Play every game of World ``w`` to its end through the compiled loop (module docstring)."""
    every = w.cache.get("all_compiled")  # per World: its plugins (and so its schedule) are fixed
    if every is None:
        every = w.cache["all_compiled"] = len(system_names()) == len(schedule_names())
    if every:
        L = loop_args(w)
        games = np.arange(w.n_games, dtype=np.int64)
        L.pc[:] = 0
        waiting = advance(w, games)
        while waiting.size:
            actor, legal = pending(w, waiting)
            bookkeeping(w)  # a Python agent may read the World through numpy code (its caches)
            waiting = advance(w, waiting, cl.NO_STOP, w.decide(waiting, actor, legal))
        return
    play_by_system(game, w)


def play_by_system(game: Any, w: Any, timings: dict[str, float] | None = None) -> None:
    """Play every game of World ``w`` to its end system by system: a compiled system over the
    batch through the loop (``run_system``), one without a compiled twin through its Processor.
    With ``timings``: the seconds each ``phase/System`` took are added there (the schedule's
    profile keys: ``bench``'s phase split)."""
    order = [(phase, s) for phase, systems in w.schedule._order for s in systems]
    names = schedule_names()
    assert len(names) == len(order)
    in_loop = {name: k for k, name in enumerate(system_names())}
    for _ in range(game.params.round_limit + 1):
        if not w.active.any():
            return
        for name, (phase, system) in zip(names, order):
            t0 = time.perf_counter()
            if name in in_loop:
                run_system(w, in_loop[name])
            else:
                system.process(w)
            if timings is not None:
                key = f"{phase}/{type(system).__name__}"
                timings[key] = timings.get(key, 0.0) + time.perf_counter() - t0
    raise RuntimeError("games still running past the round limit")  # pragma: no cover

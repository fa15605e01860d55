"""Lookahead compiled (systems/lanes/compiled/lookahead_agent.py, rollout.py) against the numpy
``LookaheadAgent`` in real games.

Real numpy games, lookahead vs greedy (the golden set's seeds) and greedy vs lookahead: every
``LookaheadAgent.act`` call is intercepted. Before numpy answers, the compiled agent answers each
listed game from the same World (the agent only reads it; its rollouts play in a scratch World)
with a copy of the RNG state; then numpy answers, and the actions, each game's RNG counter after
the call, and the memo (what was remembered of the taken candidate's rollout) must be equal.
Two more compiled answers run beside it on the same calls: without the memo (every candidate
played out: must choose the same, which is numpy's claim "same values"), and a planted bug that
must disagree somewhere: three candidates instead of four.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from compiled_replay import lanes_engine

import battlesim.systems.lanes.compiled  # noqa: F401  (declares lanes' compiled stages)
import battlesim.systems.lanes.compiled.lookahead_agent  # noqa: F401  (declares lookahead_act)
from battlesim.ecs.runs.runner import run_games
from battlesim.systems.lanes import agents as numpy_agents
from battlesim.systems.lanes.compiled.agents import agent_columns, agent_fields
from battlesim.systems.lanes.compiled.lookahead import lookahead_view
from battlesim.systems.lanes.compiled.lookahead_agent import new_memo
from battlesim.systems.lanes.compiled.play_layout import play_apply_fields, play_columns
from battlesim.systems.lanes.compiled.rollout import rollout_game

CASES = ((("lookahead", "greedy"), 50_000, 64), (("greedy", "lookahead"), 51_000, 32))


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    yield from lanes_engine(tmp_path_factory)


class Answer:
    """One compiled lookahead over one numpy World: its own RNG copy, memo and scratch game."""

    def __init__(self, engine, w, view, k: int, memo: bool) -> None:
        self.rng = w.rng.packed.copy()
        self.memo = new_memo(w.n_games)
        self.r = rollout_game(w, view, engine, k, self.rng)
        self.k, self.use_memo = k, memo


class Seen:
    """Every call compared; disagreements, decisions, refined ones and memo reuses counted."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self.module = engine.module
        self.bad: list[str] = []
        self.calls = self.decisions = self.refined = self.reused = 0
        self.plain_differs = 0  # the memo-less answer differs (numpy's "same values" claim broken)
        self.caught = {"k=3": 0}
        self.seconds = {"compiled": 0.0, "numpy": 0.0}
        self._worlds: dict[int, tuple] = {}

    def world(self, w):
        got = self._worlds.get(id(w))
        if got is None or got[0] is not w:
            view = lookahead_view(w)
            args = (view.state, agent_fields(view), agent_columns(view, w.actions), play_apply_fields(w, view),
                    play_columns(view, w))
            answers = {"real": Answer(self.engine, w, view, 4, True), "plain": Answer(self.engine, w, view, 4, False),
                       "k=3": Answer(self.engine, w, view, 3, True)}
            got = self._worlds[id(w)] = (w, args, answers)
        return got[1], got[2]

    def ask(self, args, a: Answer, games, seat, legal, memo_on) -> np.ndarray:
        st, fa, acols, fp, pcols = args
        a.rng[...] = self._packed
        out = np.zeros(games.size, dtype=np.int64)
        for i, b in enumerate(games):
            out[i] = self.module.lookahead_act(st, fa, acols, fp, pcols, a.rng, int(b), int(seat), legal[i], a.k,
                                               bool(memo_on and a.use_memo), a.memo, a.r)
        return out

    def act(self, agent, original, w, games, seat, legal):
        args, answers = self.world(w)
        memo = agent._memo(w, seat)
        self._packed = w.rng.packed.copy()
        if memo is not None:  # numpy's reuse test, for the count
            gr = games
            p = memo.ptr[gr]
            self.reused += int(np.sum(memo.valid[gr] & (memo.round[gr] == w.g.round[gr]) & (p < memo.ncap[gr])
                                      & (memo.caps[gr, np.minimum(p, memo.C - 1)] == w.rng.counter[gr])
                                      & w.g.in_play[gr] & (w.g.pending_kind[gr] == 0) & legal[:, 0]
                                      & (legal.sum(axis=1) > 1)))
        self.refined += int(np.sum(w.g.in_play[games] & (w.g.pending_kind[games] == 0) & legal[:, 0]
                                   & (legal.sum(axis=1) > 1)))
        t0 = time.perf_counter()
        got = self.ask(args, answers["real"], games, seat, legal, memo is not None)
        t1 = time.perf_counter()
        plain = self.ask(args, answers["plain"], games, seat, legal, False)
        k3 = self.ask(args, answers["k=3"], games, seat, legal, memo is not None)
        t2 = time.perf_counter()
        want = np.asarray(original(w, games, seat, legal))
        t3 = time.perf_counter()
        self.seconds["compiled"] += t1 - t0
        self.seconds["numpy"] += t3 - t2
        self.calls += 1
        self.decisions += games.size
        a = answers["real"]
        if not np.array_equal(got, want):
            i = int(np.argmax(got != want))
            self.bad.append(f"game {int(games[i])} (seed {int(w.seeds[games[i]])}): compiled {got[i]} numpy {want[i]}")
        if not np.array_equal(a.rng[games, 1], w.rng.counter[games]):
            self.bad.append(f"RNG counters differ after a call: {a.rng[games, 1]} vs {w.rng.counter[games]}")
        if memo is not None:
            m = a.memo
            for name in ("valid", "round", "ncap", "ptr"):
                if not np.array_equal(getattr(m, name)[seat, games], getattr(memo, name)[games]):
                    self.bad.append(f"memo {name} differs after a call")
            ok = memo.valid[games]
            if not np.array_equal(m.value[seat, games][ok], memo.value[games][ok]):
                self.bad.append("memo value differs after a call")
        self.plain_differs += int(np.sum(plain != want))
        self.caught["k=3"] += int(np.sum(k3 != want))
        return want


def play(seen: Seen, monkeypatch, agents, seed: int, n: int, tmp_path) -> None:
    original = numpy_agents.LookaheadAgent.act

    def act(self, w, games, seat, legal):
        return seen.act(self, lambda *a: original(self, *a), w, games, seat, legal)

    with monkeypatch.context() as m:
        m.setattr(numpy_agents.LookaheadAgent, "act", act)
        run_games(n, seed=seed, agents=agents, out=tmp_path / f"{agents[0]}_{seed}")


def test_compiled_lookahead_chooses_as_numpy(engine, monkeypatch, tmp_path) -> None:
    seen = Seen(engine)
    for agents, seed, n in CASES:
        play(seen, monkeypatch, agents, seed, n, tmp_path)
    assert not seen.bad, seen.bad[:5]
    assert seen.plain_differs == 0  # recomputing the reused rollout chooses the same
    assert seen.refined > 1000 and seen.reused > 100
    assert seen.caught["k=3"] > 0
    print(f"\nlookahead: {seen.calls} calls, {seen.decisions} decisions, {seen.refined} refined, "
          f"{seen.reused} memo reuses; planted bugs caught {seen.caught}; seconds {seen.seconds}")

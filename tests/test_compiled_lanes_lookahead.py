"""Lookahead compiled (systems/lanes/compiled/lookahead_agent.py, rollout.py) against the numpy
``LookaheadAgent`` in real games.

Real numpy games, lookahead vs greedy (the golden set's seeds) and greedy vs lookahead: every
``LookaheadAgent.act`` call is intercepted. Before numpy answers, the compiled agent answers each
listed game from the same World (the agent only reads it; its rollouts play in a scratch World)
with a copy of the RNG state; then numpy answers, and the actions, each game's RNG counter after
the call, and the memo (what was remembered of the taken candidate's rollout) must be equal.
Two more compiled answers run beside it on the same calls: without the memo (every candidate
played out: must choose the same, which is numpy's claim "same values"), and with three
candidates instead of four (a planted bug: must disagree somewhere). Planted bugs that live inside
the compiled decision (ties, seats) would each cost a full engine compile (minutes), so they are
planted in the numpy twin instead, answering the same calls beside it (its draws undone): ties to
the last candidate, the rollout's greedy scoring for the other seat, the end value read for the
other seat; each must disagree with the compiled answer somewhere, so the comparison sees them.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import numpy as np
import pytest
from compiled_replay import lanes_engine

import battlesim.systems.lanes.compiled
import battlesim.systems.lanes.compiled.lookahead_agent  # noqa: F401  (declares lookahead_act)
from battlesim.ecs.decisions import make_agent as numpy_agents_make
from battlesim.systems.lanes import agents as numpy_agents
from battlesim.systems.lanes.compiled.agents import agent_columns, agent_fields
from battlesim.systems.lanes.compiled.lookahead import lookahead_view
from battlesim.systems.lanes.compiled.lookahead_agent import new_memo
from battlesim.systems.lanes.compiled.play_layout import play_apply_fields, play_columns
from battlesim.systems.lanes.compiled.rollout import rollout_game
from battlesim.systems.lanes.ruleset import RULESET


# numpy twin against compiled kernel, call by call: opt-in (`pytest -m differential`, pyproject.toml)
pytestmark = pytest.mark.differential

CASES = ((("lookahead", "greedy"), 50_000, 64), (("greedy", "lookahead"), 51_000, 32))
# planted in numpy's LookaheadAgent (systems/lanes/agents.py): (text replaced, by what)
MUTANTS = {
    "ties to the last candidate": ("pick = np.argmax(value, axis=1)",
                                   "pick = value.shape[1] - 1 - np.argmax(value[:, ::-1], axis=1)"),
    "rollout greedy scores the other seat": ("self.greedy.act(sub, pend, actor, leg)",
                                             "self.greedy.act(sub, pend, 1 - actor, leg)"),
    "end value of the other seat": ("end_value = position_value(sub, idx, seat)",
                                    "end_value = position_value(sub, idx, 1 - seat)"),
}


def _mutant(tmp: Path, name: str, old: str, new: str):
    """A LookaheadAgent of a copy of numpy's agents module with one planted bug (not registered)."""
    text = Path(numpy_agents.__file__).read_text()
    assert text.count(old) == 1, (name, old)
    for registration in ('agent("greedy")(GreedyAgent)', 'agent("lookahead")(LookaheadAgent)'):
        text = text.replace(registration, "")
    text = text.replace(old, new)
    path = tmp / f"mutant_{abs(hash(name))}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.LookaheadAgent()


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

    def __init__(self, engine, mutants: dict | None = None) -> None:
        self.engine = engine
        self.mutants = mutants or {}
        self.bad: list[str] = []
        self.calls = self.decisions = self.refined = self.reused = 0
        self.plain_differs = 0  # the memo-less answer differs (numpy's "same values" claim broken)
        self.caught = dict.fromkeys(["k=3", *self.mutants], 0)
        self.seconds = {"compiled": 0.0, "numpy": 0.0}  # answering the calls after the first
        self.timed = 0  # decisions of those calls
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
            out[i] = self.engine.game.lookahead_act(st, fa, acols, fp, pcols, a.rng, int(b), int(seat), legal[i], a.k,
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
        if self.mutants:  # after numpy's own answer: the game goes on from numpy's draws
            self.planted(w, games, seat, legal, got)
        if self.calls:  # the first call compiles (or loads) the engine's lookahead_act
            self.seconds["compiled"] += t1 - t0
            self.seconds["numpy"] += t3 - t2
            self.timed += games.size
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

    def planted(self, w, games, seat, legal, got) -> None:
        """Each numpy mutant answers the same call from the counters before it (numpy's own
        draws put back after); disagreements with the compiled answer counted."""
        after = w.rng.counter[games].copy()
        for name, agent in self.mutants.items():
            w.rng.counter[games] = self._packed[games, 1]
            out = np.asarray(agent.act(w, games, seat, legal))
            w.rng.counter[games] = after
            self.caught[name] += int(np.sum(out != got))


def play(seen: Seen, monkeypatch, agents, seed: int, n: int, tmp_path) -> None:
    original = numpy_agents.LookaheadAgent.act

    def act(self, w, games, seat, legal):
        return seen.act(self, lambda *a: original(self, *a), w, games, seat, legal)

    with monkeypatch.context() as m:
        m.setattr(numpy_agents.LookaheadAgent, "act", act)
        game = RULESET.load()  # the numpy schedule: the compiled loop would decide without numpy's agent
        game.play_reference(np.arange(seed, seed + n, dtype=np.int64), game.default_decks(),
                            [numpy_agents_make(a) for a in agents])


def test_compiled_lookahead_chooses_as_numpy(engine, monkeypatch, tmp_path) -> None:
    seen = Seen(engine, {name: _mutant(tmp_path, name, *change) for name, change in MUTANTS.items()})
    for agents, seed, n in CASES:
        play(seen, monkeypatch, agents, seed, n, tmp_path)
        seen.mutants = {}  # planted in the first case only: numpy's lookahead is the slow part
    assert not seen.bad, seen.bad[:5]
    assert seen.plain_differs == 0  # recomputing the reused rollout chooses the same
    assert seen.refined > 1000 and seen.reused > 100
    assert all(seen.caught.values()), seen.caught
    print(f"\nlookahead: {seen.calls} calls, {seen.decisions} decisions, {seen.refined} refined, "
          f"{seen.reused} memo reuses; planted bugs caught {seen.caught}; per decision (a Python call each): "
          + ", ".join(f"{k} {v / max(seen.timed, 1) * 1e6:.0f} us" for k, v in seen.seconds.items()))

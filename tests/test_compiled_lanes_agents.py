"""Lanes' agents compiled (systems/lanes/compiled/agents.py) against the numpy agents, and one
game copied into a scratch World (systems/lanes/compiled/scratch.py).

Real numpy games (random, pass and greedy agents, several deck pairs): every ``act`` call of
every agent is intercepted as it is made. Before numpy answers, the compiled agent answers each
listed game from the same World (what a copy captured then would hold; the agents only read it)
with a copy of the RNG counters; then numpy answers, and the actions and each game's counter
after the call must be equal. Greedy's noisy scores (what lookahead ranks) must equal numpy's
``noisy_scores`` bit for bit. Planted bugs run beside the real kernels on the same calls and must
each disagree somewhere, so the comparison is known to see them. ``position_value`` is compared
for both seats on every game of the batch at each call and at the end of each batch (won, lost
and drawn games).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from battlesim.ecs.decisions import PassAgent, RandomAgent, make_agent
from battlesim.systems.lanes import agents as numpy_agents
from battlesim.systems.lanes.compiled import agents as compiled
from battlesim.systems.lanes.compiled import lookahead, scratch
from battlesim.systems.lanes.play import PENDING_CASTER, PENDING_NONE


# numpy twin against compiled kernel, call by call: opt-in (`pytest -m differential`, pyproject.toml)
pytestmark = pytest.mark.differential

PAIRS = [("red_vanguard", "blue_tide"), ("green_grove", "black_covenant"), ("red_blue_tempest", "green_black_rot"),
         ("blue_green_wardens", "red_black_raiders")]
KINDS = ("play", "target", "caster", "deploy", "shop")
# planted bugs: (what, the text of compiled/agents.py replaced, by what); each must be caught
MUTANTS = {
    "noise not advanced": ("    advance(rng, b, legal_row.shape[0])", "    pass"),
    "noise of the next entry": ("bits_at(rng, b, a, cols[STREAM])", "bits_at(rng, b, a + 1, cols[STREAM])"),
    "ties to the lowest column (no noise)": ("+ NOISE * to_unit(", "+ 0.0 * to_unit("),
    "bounce penalty dropped": (") - bounce", ") - 0.0"),
    "kill bonus dropped": ("(KILLABLE if hp <=", "(0.0 if hp <="),
    "lethal hit dropped": ("(LETHAL if ua >= ahp", "(0.0 if ua >= ahp"),
    "caster by health": ("return (1.0 + atk) + 0.1 * hp", "return (1.0 + hp) + 0.1 * atk"),
    "upgrade though affordable": ("                return -1.0", "                return 3.0"),
    "tier not scored": ("(10.0 + 3.0 * cat[", "(10.0 + 0.0 * cat["),
    "cells remembered from the last call": ("    memo[: memo.shape[0] // 2] = -1.0", "    pass"),
}
VALUE_MUTANTS = {
    "ruined anchor as 0": ("anchor += -30.0", "anchor += 0.0"),
    "hand not counted": ("+ 1.0 * hand", "+ 0.0 * hand"),
}


@njit
def _greedy_rows(act, st, f, cols, rng, games, seat, legal, scores, out):
    for k in range(games.size):
        out[k] = act(st, f, cols, rng, games[k], seat, legal[k], scores[k])


@njit
def _random_rows(rng, games, legal, out):
    for k in range(games.size):
        out[k] = compiled.random_act(rng, games[k], legal[k])


@njit
def _pass_rows(legal, out):
    for k in range(legal.shape[0]):
        out[k] = compiled.pass_act(legal[k])


@njit
def _values(value, st, f, cols, seat, out):
    for b in range(out.size):
        out[b] = value(st, f, cols, b, seat)


def _mutant(tmp: Path, of, name: str, old: str, new: str):
    """Module ``of`` with one planted bug, imported from a file of its own."""
    text = Path(of.__file__).read_text()
    assert text.count(old) == 1, (name, old)
    path = tmp / f"mutant_{abs(hash(name))}.py"
    path.write_text(text.replace(old, new))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Seen:
    """Every agent call compared; disagreements of the real kernels and of each planted bug
    counted; what the decisions were counted, per agent."""

    def __init__(self, mutants: dict, value_mutants: dict) -> None:
        self.mutants, self.value_mutants = mutants, value_mutants
        self.bad: list[str] = []
        self.caught = dict.fromkeys([*mutants, *value_mutants], 0)
        self.caught_acting = dict.fromkeys(mutants, 0)  # caught by a different action or counter
        self.kinds: dict[tuple[str, str], int] = {}
        self.calls = self.decisions = self.values = 0
        self.ties = 0  # greedy decisions whose best noiseless score was shared: decided by the noise
        self.value_cases: dict[str, int] = {}
        self.copies = 0
        self.narrow = 0  # greedy decisions also answered with a scratch of the table's width
        self.refined = self.short = 0  # lookahead's decisions; rows with fewer than 9 legal actions
        self.copy_bad: list[str] = []
        self._views: dict[int, tuple] = {}

    def view(self, w):
        got = self._views.get(id(w))
        if got is None or got[0] is not w:
            view = compiled.agent_view(w)
            got = self._views[id(w)] = (w, view, compiled.agent_fields(view),
                                        compiled.agent_columns(view, w.actions))
        return got[1:]

    def wrap(self, agent) -> None:
        def act(w, games, seat, legal):
            return self.act(agent, w, games, seat, legal)
        agent.act = act

    def act(self, agent, w, games, seat, legal):
        view, f, cols = self.view(w)
        st = view.state
        rng0 = np.stack([w.rng._keys, w.rng.counter], axis=1).astype(np.uint64)
        games64 = games.astype(np.int64)
        legal = np.ascontiguousarray(legal)
        n, A = legal.shape
        W = compiled.scratch_size(w.actions, w.params.lanes, w.params.positions)
        got = np.zeros(n, dtype=np.int64)
        rng = rng0.copy()
        where = f"{agent.name} seat {seat} seeds {int(w.seeds[games[0]])}.. round {int(w.g.round[games[0]])}"
        greedy = isinstance(agent, numpy_agents.GreedyAgent)
        dense = None
        if greedy:
            scores = np.zeros((n, W))
            _greedy_rows(compiled.greedy_act, st, f, cols, rng, games64, seat, legal, scores, got)
            scores = scores[:, :A]
            if self.calls % 10 == 0:  # a scratch of the table's width only: no cell memo, same answer
                narrow, nrng = np.zeros(n, dtype=np.int64), rng0.copy()
                _greedy_rows(compiled.greedy_act, st, f, cols, nrng, games64, seat, legal, np.zeros((n, A)), narrow)
                self.narrow += n
                if not np.array_equal(narrow, got) or not np.array_equal(nrng, rng):
                    self.bad.append(f"{where}: a narrow scratch answers otherwise")
            r, a, s = agent.noisy_scores(w, games, seat, legal)  # what lookahead ranks
            dense = np.full((n, A), -np.inf)
            dense[r, a] = s
            if not np.array_equal(dense, scores):
                self.bad.append(f"{where}: noisy scores differ")
            w.rng.counter[:] = rng0[:, 1]
            self.count_ties(agent, w, games, seat, legal)
            self.compare_candidates(w, games, legal, f, games64, scores)
        elif isinstance(agent, RandomAgent):
            _random_rows(rng, games64, legal, got)
        else:
            assert isinstance(agent, PassAgent)
            _pass_rows(legal, got)
        self.compare_values(w, view, f, cols)
        if self.calls % 40 == 0:
            self.check_copy(w, view, f, cols, rng0, games64, seat, legal)
        out = type(agent).act(agent, w, games, seat, legal)  # numpy answers
        self.calls += 1
        self.decisions += n
        if not np.array_equal(got, out):
            k = int(np.argmax(got != out))
            self.bad.append(f"{where}: game seed {int(w.seeds[games[k]])} compiled {w.actions.describe(got[k])}, "
                            f"numpy {w.actions.describe(out[k])}")
        if not np.array_equal(rng[:, 1], w.rng.counter):
            self.bad.append(f"{where}: RNG counters differ")
        if greedy:  # the planted bugs on the same call, against numpy's answer and noisy scores
            for name, module in self.mutants.items():
                mrng, mgot, mscores = rng0.copy(), np.zeros(n, dtype=np.int64), np.zeros((n, W))
                _greedy_rows(module.greedy_act, st, f, cols, mrng, games64, seat, legal, mscores, mgot)
                mscores = mscores[:, :A]
                acts = not np.array_equal(mgot, out) or not np.array_equal(mrng[:, 1], w.rng.counter)
                self.caught_acting[name] += int(acts)
                self.caught[name] += int(acts or not np.array_equal(mscores, dense))
        self.count_kinds(agent, w, games, legal)
        return out

    def compare_candidates(self, w, games, legal, f, games64, scores) -> None:
        """What ``LookaheadAgent.act`` refines (``choice``) and plays out (``top``, the legal ones)."""
        want = w.g.in_play[games] & (w.g.pending_kind[games] == 0) & legal[:, 0] & (legal.sum(axis=1) > 1)
        out = np.zeros(legal.shape[1], dtype=np.int64)
        for j in range(games.size):
            if bool(lookahead.refines(f, games64[j], legal[j])) != bool(want[j]):
                self.bad.append(f"refines differs, game seed {int(w.seeds[games[j]])}")
            self.refined += int(want[j])
            for k in (1, 2, 4, 9):
                top = np.argsort(-scores[j], kind="stable")[:k]
                top = top[np.isfinite(scores[j, top])]
                n = lookahead.candidates(scores[j], k, out)
                if not np.array_equal(out[:n], top):
                    self.bad.append(f"candidates differ (k={k}), game seed {int(w.seeds[games[j]])}")
                self.short += int(k == 9 and top.size < k)

    def count_ties(self, agent, w, games, seat, legal) -> None:
        r, _, s = agent.legal_scores(w, games, seat, legal)
        for k in range(games.size):
            row = s[r == k]
            if row.size > 1 and (row == row.max()).sum() > 1:
                self.ties += 1

    def count_kinds(self, agent, w, games, legal) -> None:
        A = w.actions
        pending = w.g.pending_kind[games]
        deploy = legal[:, A.deploy_slice].any(axis=1)
        kind = np.where(deploy, "deploy", np.where(pending == PENDING_CASTER, "caster", np.where(
            pending != PENDING_NONE, "target", np.where(w.g.in_play[games], "play", "shop"))))
        for k, c in zip(*np.unique(kind, return_counts=True)):
            key = (agent.name, str(k))
            self.kinds[key] = self.kinds.get(key, 0) + int(c)

    def compare_values(self, w, view, f, cols) -> None:
        """``position_value`` of every game of the batch, both seats (and the planted bugs)."""
        for seat in range(2):
            want = numpy_agents.position_value(w, w.games, seat)
            got = np.zeros(w.n_games)
            _values(lookahead.position_value, view.state, f, cols, seat, got)
            self.values += w.n_games
            if not np.array_equal(got, want):
                b = int(np.argmax(got != want))
                self.bad.append(f"position_value seat {seat} seed {int(w.seeds[b])}: {got[b]} != {want[b]}")
            for name, module in self.value_mutants.items():
                _values(module.position_value, view.state, f, cols, seat, got)
                self.caught[name] += int(not np.array_equal(got, want))
        ruined = w.c.ruined[:, :6].any(axis=1)
        for what, n in (("won or lost", (w.g.winner >= 0).sum()), ("drawn", (w.g.winner == -1).sum()),
                        ("a ruined anchor", (ruined & (w.g.winner < -1)).sum())):
            self.value_cases[what] = self.value_cases.get(what, 0) + int(n)

    def check_copy(self, w, view, f, cols, rng0, games, seat, legal) -> None:
        """Copy the call's games into a scratch World, in reverse order, then the first game over
        a copy of the last one; one scratch game is never written. Every array slice must equal
        the source's, the unwritten game must be untouched, and greedy must answer each copy as
        it answers the original (so the copy misses nothing greedy reads)."""
        m = games.size
        n = m + 2
        dst = scratch.scratch_world(w, n)
        dview = compiled.agent_view(dst)
        drng = np.zeros((n, 2), dtype=np.uint64)
        drng[n - 1] = 12345  # the untouched game
        src_f, dst_f = scratch.game_fields(w, rng0), scratch.game_fields(dst, drng)
        st, dst_st = view.state, dview.state
        k = int(games[-1])  # a pending trigger event to carry over
        st.events[k, :2] = 7 + np.arange(st.events.shape[2])
        st.nevents[k] = 2
        order = np.r_[games[::-1], games[0]]
        untouched = {name: a[n - 1].copy() for name, a in scratch.game_arrays(dst, drng).items()}
        untouched.update({g: getattr(dst_st, g)[:, n - 1].copy() for g in ("i16", "i8", "flags", "i16x2")})
        scratch.copy_game(st, src_f, int(games[-1]), dst_st, dst_f, m)  # overwritten just below
        for d, b in enumerate(order):
            scratch.copy_game(st, src_f, int(b), dst_st, dst_f, d)
        self.copies += n - 1
        src_arrays, dst_arrays = scratch.game_arrays(w, rng0), scratch.game_arrays(dst, drng)
        for d, b in enumerate(order):
            for group in ("i16", "i8", "flags", "i16x2"):
                if not np.array_equal(getattr(st, group)[:, b], getattr(dst_st, group)[:, d]):
                    self.copy_bad.append(f"component group {group} of game {b}")
            for name in ("alive", "serial", "nevents"):
                if not np.array_equal(getattr(st, name)[b], getattr(dst_st, name)[d]):
                    self.copy_bad.append(f"{name} of game {b}")
            if not np.array_equal(st.events[b, :st.nevents[b]], dst_st.events[d, :st.nevents[b]]):
                self.copy_bad.append(f"events of game {b}")
            for name, arr in src_arrays.items():
                if not np.array_equal(arr[b], dst_arrays[name][d]):
                    self.copy_bad.append(f"{name} of game {b}")
        for name, before in untouched.items():
            now = dst_arrays[name][n - 1] if name in dst_arrays else getattr(dst_st, name)[:, n - 1]
            if not np.array_equal(before, now):
                self.copy_bad.append(f"{name} of the scratch game never copied into changed")
        st.nevents[k] = 0
        dst_st.nevents[:] = 0
        dst_f_agents, dst_cols = compiled.agent_fields(dview), compiled.agent_columns(dview, dst.actions)
        W = compiled.scratch_size(w.actions, w.params.lanes, w.params.positions)
        for j, b in enumerate(games):
            d = m - 1 - j
            a1, a2, r1 = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), rng0.copy()
            _greedy_rows(compiled.greedy_act, st, f, cols, r1, games[j:j + 1], seat, legal[j:j + 1],
                         np.zeros((1, W)), a1)
            _greedy_rows(compiled.greedy_act, dst_st, dst_f_agents, dst_cols, drng, np.array([d]), seat,
                         legal[j:j + 1], np.zeros((1, W)), a2)
            if a1[0] != a2[0] or r1[b, 1] != drng[d, 1]:
                self.copy_bad.append(f"greedy on the copy of game {b}")


@pytest.fixture(scope="module")
def seen(lanes, tmp_path_factory) -> Seen:
    tmp = tmp_path_factory.mktemp("mutants")
    mutants = {name: _mutant(tmp, compiled, name, *swap) for name, swap in MUTANTS.items()}
    value_mutants = {name: _mutant(tmp, lookahead, name, *swap) for name, swap in VALUE_MUTANTS.items()}
    out = Seen(mutants, value_mutants)
    runs = [(pair, ("random", "random"), 32) for pair in PAIRS]
    runs += [(PAIRS[0], ("greedy", "greedy"), 32), (PAIRS[2], ("greedy", "greedy"), 32),
             (PAIRS[1][::-1], ("greedy", "random"), 32), (PAIRS[3], ("random", "greedy"), 32),
             (PAIRS[1], ("pass", "greedy"), 16), (PAIRS[3][::-1], ("random", "pass"), 16)]
    for i, (pair, names, n) in enumerate(runs):
        agents = [make_agent(a) for a in names]
        for agent in agents:
            out.wrap(agent)
        w = lanes.new_world(np.arange(n, dtype=np.int64) + 1000 * i, pair, agents)
        lanes.run_reference(w)
        view, f, cols = out.view(w)
        out.compare_values(w, view, f, cols)  # the batch's end: won, lost and drawn games
    return out


def test_the_compiled_agents_choose_what_numpy_chooses_and_draw_as_it_draws(seen):
    assert seen.calls > 1000 and seen.decisions > 30_000 and seen.narrow > 1000, (seen.calls, seen.decisions)
    print(f"{seen.calls} calls, {seen.decisions} decisions, {seen.values} values, {seen.copies} copies")
    assert not seen.bad, f"{len(seen.bad)} differences, first: " + "; ".join(seen.bad[:5])


def test_every_decision_kind_was_asked_of_every_agent(seen):
    """Play, a pending target, a caster choice, hero deployment and the shop, for random and
    greedy (pass: play, deployment, shop); and greedy ties that only the noise decided."""
    for name in ("random", "greedy"):
        for kind in KINDS:
            assert seen.kinds.get((name, kind), 0) > 0, (name, kind, seen.kinds)
    for kind in ("play", "deploy", "shop"):
        assert seen.kinds.get(("pass", kind), 0) > 0, (kind, seen.kinds)
    assert seen.ties > 100, seen.ties
    assert seen.refined > 1000 and seen.short > 100, (seen.refined, seen.short)
    print(seen.kinds, seen.ties, seen.refined, seen.short)


def test_every_planted_bug_is_caught(seen):
    """Each bug changes the noisy scores lookahead ranks; all but two also change an action
    (upgrading while a buy is affordable, or a tier not scored, never beats the buy's 10+)."""
    missed = [name for name, n in seen.caught.items() if n == 0]
    assert not missed, f"planted bugs the comparison did not see: {missed}"
    acting = {name for name, n in seen.caught_acting.items() if n == 0}
    assert acting <= {"upgrade though affordable", "tier not scored"}, acting
    print(seen.caught, seen.caught_acting)


def test_position_value_equals_numpy_on_every_kind_of_game(seen):
    assert seen.values > 100_000
    for what in ("won or lost", "drawn", "a ruined anchor"):
        assert seen.value_cases.get(what, 0) > 0, (what, seen.value_cases)


def test_a_copied_game_is_the_game(seen):
    assert seen.copies > 500, seen.copies
    assert not seen.copy_bad, f"{len(seen.copy_bad)} differences, first: " + "; ".join(seen.copy_bad[:5])


def test_the_compiled_constants_are_greedys():
    assert (compiled.NOISE, compiled.LETHAL, compiled.KILLABLE) == (numpy_agents.NOISE, numpy_agents.LETHAL,
                                                                    numpy_agents.KILLABLE)

"""Hero deployment compiled (systems/lanes/compiled/deploy.py, run through the lanes engine
module, where it calls the resolution machine) against the numpy ``HeroDeployment`` it replaces,
on real games: every call of its ``process`` is replayed game by game on a second World set to
the state before it. The compiled phase must ask the same seat, with the same legal row, in the
same order as numpy's captured ``w.decide`` calls; it is given numpy's answers (and the RNG
draws the agent made for them, at that point of the game's draws); then every component array,
presence mask, ``alive``, ``serial``, the serial counters, every per-game field and the RNG
counters must come out as numpy left them, and its deployments must be numpy's ``lanes.deploy``
rows, in order.

Effects are NOT deferred: numpy's "On Play", "On Ally Deploy", "On Enemy Deploy" (and what they
set off) run where numpy fires them; the compiled phase drains at the same points.
"""

from __future__ import annotations

from collections import Counter

import esper
import numpy as np
import pytest
from compiled_replay import DEPLOY, Replayer, lanes_engine, snapshot

from battlesim.components.keywords import lanes as lanes_plugin
from battlesim.ecs.decisions import make_agent
from battlesim.ecs.ruleset import get_ruleset
from battlesim.systems.lanes.compiled.deploy import DONE, apply_deploy, deploy_begin
from battlesim.systems.lanes.compiled.round_layout import N_CHOSEN, phase_columns, phase_fields, phase_view
from battlesim.systems.lanes.deploy import HeroDeployment
from battlesim.systems.lanes.state import READY
from battlesim.systems.lanes.vocabulary import EXECUTOR


# numpy twin against compiled kernel, call by call: opt-in (`pytest -m differential`, pyproject.toml)
pytestmark = pytest.mark.differential

PAIRS = [("green_grove", "red_vanguard"), ("blue_tide", "green_grove"), ("black_covenant", "green_black_rot"),
         ("red_blue_tempest", "blue_green_wardens")]


@pytest.fixture(scope="module", name="engine")
def _engine(tmp_path_factory):
    yield from lanes_engine(tmp_path_factory)


class DeployReplay:
    """Wraps ``HeroDeployment.process`` and ``decide`` of one World: each call replayed by the
    compiled phase on a second World set to the state before it, fed numpy's answers, compared
    with what numpy left."""

    def __init__(self, w, engine, m: pytest.MonkeyPatch, actions) -> None:
        self.w, self.actions = w, actions
        self.rep = Replayer(engine, w.copy(), view_of=phase_view)
        self.f = phase_fields(self.rep.world, self.rep.view)
        self.cols = phase_columns(self.rep.view, actions, lanes_plugin.decaying())
        self.capturing = False
        self.seen: Counter = Counter()
        self.failures: list[str] = []
        process, decide, fire = HeroDeployment.process, w.decide, EXECUTOR.fire
        self._deploy_handler = lambda world, *rows: self.deployed.append(tuple(np.asarray(r).copy() for r in rows))

        def wrapped_process(system, world):
            if world is not self.w:
                return process(system, world)
            before = snapshot(world)
            self.capturing, self.asked, self.deployed = True, {}, []
            esper.set_handler("lanes.deploy", self._deploy_handler)
            try:
                process(system, world)
            finally:
                self.capturing = False
                esper.remove_handler("lanes.deploy", self._deploy_handler)
            self.compare(before, snapshot(world))

        def recording_decide(games, actor, legal):
            if not self.capturing:
                return decide(games, actor, legal)
            counter = self.w.rng.counter.copy()
            got = decide(games, actor, legal)
            drew = self.w.rng.counter - counter
            for i, b in enumerate(games):
                self.asked.setdefault(int(b), []).append((int(actor[i]), legal[i].copy(), int(got[i]), int(drew[b])))
            return got

        def counting_fire(world, trigger, ctx):
            if self.capturing and world is self.w and EXECUTOR.depth == 0:
                ctx = ctx() if callable(ctx) else ctx
                self.seen[f"event {trigger}"] += len(ctx)
            return fire(world, trigger, ctx)

        m.setattr(HeroDeployment, "process", wrapped_process)
        m.setattr(w, "decide", recording_decide)
        m.setattr(EXECUTOR, "fire", counting_fire)

    def compare(self, before: dict, after: dict) -> None:
        w, rep, f = self.w, self.rep, self.f
        rep.set(before)
        row = np.zeros(self.actions.size, dtype=np.bool_)
        expired = np.zeros(1, dtype=np.int64)
        where = f"round {int(before['g.round'].max())} seeds {int(w.seeds[0])}.."
        for b in range(w.n_games):
            deploy_begin(rep.st, f, self.cols, rep.rng, b)
            asked = self.asked.get(b, [])
            i = 0
            while (seat := rep.game.round_step(rep.st, f, self.cols, b, rep.g, rep.rng, rep.m, DEPLOY, row,
                                                 expired)) in (0, 1):
                if i == len(asked):
                    self.failures.append(f"{where}: seed {w.seeds[b]}: the compiled phase asks more than numpy")
                    break
                want_seat, legal, action, drew = asked[i]
                if seat != want_seat or not np.array_equal(row, legal):
                    self.failures.append(f"{where}: seed {w.seeds[b]} decision {i}: seat {seat}/{want_seat}, "
                                         f"legal {np.flatnonzero(row)} != numpy's {np.flatnonzero(legal)}")
                apply_deploy(rep.st, f, self.cols, b, seat, action)
                rep.rng[b, 1] += np.uint64(drew)  # what the agent drew for this answer, at this point
                i += 1
            else:
                assert seat == DONE, f"seed {w.seeds[b]}: deploy_next returned {seat} ({rep.card_name()})"
                if i != len(asked):
                    self.failures.append(f"{where}: seed {w.seeds[b]}: asked {i} times, numpy {len(asked)}")
        self.failures += [f"{where}: {d}" for d in rep.differences(after)]
        placed: dict[int, list] = {}
        for games, side, k, lane, pos in self.deployed:
            for row_ in zip(games, side, k, lane, pos):
                placed.setdefault(int(row_[0]), []).append(tuple(int(x) for x in row_[1:]))
        for b in range(w.n_games):
            mine = [tuple(int(x) for x in c) for c in f.chosen[b, :f.deploy[b, N_CHOSEN]]]
            if mine != placed.get(b, []):
                self.failures.append(f"{where}: seed {w.seeds[b]}: deployed {mine} != lanes.deploy {placed.get(b)}")
        self.count(before, after)

    def count(self, before: dict, after: dict) -> None:
        """What the captured calls met (the test must have met each, else it could not fail there)."""
        act = before["active"]
        first = act & (before["g.round"] == 1)
        self.seen["calls"] += 1
        self.seen["round 1 phases"] += int(first.sum())
        self.seen["rounds 2+ phases"] += int((act & ~first).sum())
        for side in (0, 1):
            self.seen[f"left side {side}"] += int((after["g.left_side"][first] == side).sum())
        self.seen["decisions"] += sum(len(v) for v in self.asked.values())
        self.seen["rng draws"] += int((after["rng"] - before["rng"]).sum())
        per_seat = Counter((b, seat) for b, rows in self.asked.items() for seat, _, _, _ in rows
                           if before["g.round"][b] > 1)
        self.seen["several heroes at once"] += sum(1 for n in per_seat.values() if n > 1)
        self.seen["a READY hero left waiting"] += int(((after["g.hero_status"] == READY) & act[:, None, None]).sum())
        self.seen["deployed"] += int((after["g.hero_status"] != before["g.hero_status"]).sum())


def run(game, engine, pairs, agents, n: int, offset: int, monkeypatch) -> tuple[Counter, list[str]]:
    seen: Counter = Counter()
    failures: list[str] = []
    for k, pair in enumerate(pairs):
        w = game.new_world(np.arange(n, dtype=np.int64) + offset + 100 * k, pair, [make_agent(a) for a in agents])
        with monkeypatch.context() as m:
            replay = DeployReplay(w, engine, m, game.actions)
            game.run_reference(w)
        seen += replay.seen
        failures += [f"{pair}: {f}" for f in replay.failures]
    return seen, failures


# lanes.md "Hero Deployment Phase": "Step 1 (Mid)", "Step 2 (Random sides)", "Step 3 (Remaining)"
# lanes.md: "Both submit → all revealed at once"
# lanes.md: "Exactly 1 hero per lane"
# lanes.md: "On Play - Triggers when this card is played/deployed" (events)
# lanes.md: "On Ally Deploy - Triggers when an allied unit is deployed" (events)
# lanes.md: "On Enemy Deploy - Triggers when an enemy unit is deployed" (events)
def test_compiled_deployment_asks_and_places_as_numpy(lanes, engine, monkeypatch) -> None:
    seen, failures = run(lanes, engine, PAIRS, ("random", "random"), 48, 0, monkeypatch)
    more, bad = run(lanes, engine, PAIRS[:2], ("greedy", "random"), 16, 5000, monkeypatch)
    seen += more
    failures += bad
    # full lanes: 2 positions a lane, so READY heroes find no free cell
    edge = get_ruleset("lanes").load(params={"positions": 2})
    more, bad = run(edge, engine, PAIRS[2:], ("random", "random"), 32, 9000, monkeypatch)
    seen += more
    failures += bad
    print(dict(seen))
    assert not failures, f"{len(failures)} differences, first: " + "\n".join(failures[:8])
    for what in ("calls", "round 1 phases", "rounds 2+ phases", "left side 0", "left side 1", "decisions",
                 "several heroes at once", "a READY hero left waiting", "deployed", "event on_ally_deploy",
                 "event on_enemy_deploy"):
        assert seen[what] > 0, (what, seen)


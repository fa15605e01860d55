"""The combat phase and settle compiled (systems/lanes/compiled/combat.py, deaths.py, run through
the lanes engine module, where they call its resolution machine) against the numpy
``Combat.process`` they replace, on real games: every call of numpy combat in several hundred
games (random agents, deck pairs chosen for taunt, stealth, first strike, cleave, siege,
trample, piercing, rapid deployment and the combat triggers) is replayed game by game by the
compiled ``combat`` on a second World set to the state before it; every component array,
presence mask, ``alive``, ``serial``, the serial counters, every per-game field and the RNG
counters must come out as numpy left them.

Effects are NOT deferred: numpy's firings run where they run (each trigger of combat and
settle, "On Damage Taken" inside the pipeline), and the compiled phases drain at the same points
(docs/compiled-core.md "How phases call the resolution machine").
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from compiled_replay import Replayer, lanes_engine, snapshot

from battlesim.ecs.compiled.damage_queue import OK
from battlesim.ecs.decisions import make_agent
from battlesim.systems.lanes import compiled  # noqa: F401  (declares lanes' compiled stages, opcodes, phases)
from battlesim.systems.lanes import deaths as numpy_deaths
from battlesim.systems.lanes.combat import Combat
from battlesim.systems.lanes.vocabulary import EXECUTOR


# numpy twin against compiled kernel, call by call: opt-in (`pytest -m differential`, pyproject.toml)
pytestmark = pytest.mark.differential

PAIRS = [("blue_green_wardens", "red_black_raiders"), ("black_covenant", "green_grove"),
         ("red_vanguard", "blue_tide"), ("green_black_rot", "blue_green_wardens"),
         ("red_black_raiders", "black_covenant"), ("blue_tide", "red_vanguard")]
GAMES = 48  # per pair: 288 games


@pytest.fixture(scope="module", name="engine")
def _engine(tmp_path_factory):
    yield from lanes_engine(tmp_path_factory)


class Replay:
    """Wraps ``Combat.process`` of one World: each call is replayed by the compiled ``combat``
    on a second World set to the state before it, and compared with what numpy left."""

    def __init__(self, w, engine, m: pytest.MonkeyPatch) -> None:
        self.w = w
        self.rep = Replayer(engine, w.copy())
        self.capturing = False
        self.seen: Counter = Counter()
        self.failures: list[str] = []
        process = Combat.process
        fire = EXECUTOR.fire

        def wrapped_process(system, world):
            if world is not self.w:
                return process(system, world)
            before = snapshot(world)
            self.capturing = True
            try:
                process(system, world)
            finally:
                self.capturing = False
            self.compare("combat", before, snapshot(world))

        def counting_fire(world, trigger, ctx):
            if self.capturing and EXECUTOR.depth == 0:
                ctx = ctx() if callable(ctx) else ctx
                self.seen[f"fired {trigger}"] += len(ctx)
            return fire(world, trigger, ctx)

        m.setattr(Combat, "process", wrapped_process)
        m.setattr(EXECUTOR, "fire", counting_fire)

    def compare(self, phase: str, before: dict, after: dict) -> None:
        rep = self.rep
        rep.set(before)
        run = getattr(rep.game, phase)
        for b in range(self.w.n_games):
            status = run(rep.st, rep.f, rep.cols, b, rep.g, rep.rng, rep.m)
            assert status == OK, f"seed {self.w.seeds[b]}: {phase} returned {status} ({rep.card_name()})"
        self.failures += [f"{phase}: {d}" for d in rep.differences(after)]
        self.seen["calls"] += 1
        self.seen["games"] += int(before["active"].sum())
        self.count(before, after)

    def count(self, before: dict, after: dict) -> None:
        """What the captured calls reached (the test must have met each, else it could not fail there)."""
        died = before["alive"] & ~after["alive"]  # compared equal above, so numpy's and the compiled's
        self.seen["deaths"] += int(died.sum())
        self.seen["hero deaths"] += int((died & before["c.hero"]).sum())
        self.seen["gold paid"] += int((after["g.gold"] - before["g.gold"]).sum())
        self.seen["redeployed"] += int((~before["alive"] & after["alive"]).sum())
        self.seen["stealth lost"] += int((before["c.stealth"] & ~after["c.stealth"]).sum())
        self.seen["rng draws"] += int((after["rng"] - before["rng"]).sum())
        for kw in ("taunt", "first_strike"):
            self.seen[f"{kw} on board"] += int((before["alive"] & before[f"c.{kw}"]).sum())
        for kw in ("cleave", "siege"):
            self.seen[f"{kw} on board"] += int((before["alive"] & (before[f"c.{kw}"] > 0)).sum())


# lanes.md: "Combat proceeds lane by lane"
# lanes.md: "Stealth - Cannot be targeted, bypasses taunt (lost when attacking)"
# lanes.md: "Odd rounds (1, 3, 5...): Lane 0 → Lane 1 → Lane 2"
# lanes.md: "Even rounds (2, 4, 6...): Lane 2 → Lane 1 → Lane 0"
# lanes.md: "Units only attack the opposing unit at the same position"
# lanes.md: "If no opposing unit exists, the unit attacks the anchor directly"
# lanes.md: "Unopposed enemy units attack the leftmost Taunt unit instead of the anchor"
# lanes.md: "First Strike - Deals damage before opponent in combat"
# lanes.md: "Within a lane, all fights at each position are simultaneous"
# lanes.md: "Cleave X - Deals X damage to all enemy units in the lane when attacking"
# lanes.md: "Siege X - Deals X additional damage when attacking the anchor directly"
# lanes.md: "Destroyed units are only removed after the entire lane resolves"
# lanes.md: "Kill enemy hero: +5 gold"
# lanes.md: "Kill enemy unit/creep: +1 gold"
# lanes.md: "Minimum bounty is 0 gold"
# lanes.md: "The hero enters a 1-round death timer"
# lanes.md: "Rapid Deployment - Hero returns to play immediately when killed (no death timer)"
# lanes.md: "Before Combat - Triggers before combat resolution begins"
# lanes.md: "After Combat - Triggers after combat in each lane"
def test_compiled_combat_replays_every_numpy_combat_phase(lanes, engine, monkeypatch) -> None:
    seen: Counter = Counter()
    failures: list[str] = []
    for k, pair in enumerate(PAIRS):
        seeds = np.arange(k * GAMES, (k + 1) * GAMES, dtype=np.int64)
        w = lanes.new_world(seeds, pair, [make_agent("random"), make_agent("random")])
        with monkeypatch.context() as m:
            replay = Replay(w, engine, m)
            lanes.run_reference(w)
        seen += replay.seen
        failures += [f"{pair}: {f}" for f in replay.failures]
    print(f"\ncompiled combat: identical on {dict(seen)}")
    assert not failures, "\n".join(failures[:10])
    for what in ("calls", "deaths", "hero deaths", "gold paid", "redeployed", "stealth lost", "taunt on board",
                 "first_strike on board", "cleave on board", "siege on board", "rng draws"):
        assert seen[what] > 0, (what, seen)
    for trigger in ("before_combat", "on_attack", "on_ally_attack", "after_combat", "on_death", "on_enemy_death",
                    "on_damage_taken"):
        assert seen[f"fired {trigger}"] > 0, (trigger, seen)


class SettleReplay(Replay):
    """Before each numpy combat call, kills units the games would rarely kill that way: a random
    third of each game's board units (heroes included) marked dying, with random bounties (some
    negative) and random killers; numpy's ``settle`` and the compiled one must then agree."""

    def __init__(self, w, engine, m: pytest.MonkeyPatch, seed: int) -> None:
        super().__init__(w, engine, m)
        self.rng = np.random.default_rng(seed)
        replay_combat = Combat.process

        def wrapped_process(system, world):
            if world is self.w:
                self.crafted_deaths()
            return replay_combat(system, world)

        m.setattr(Combat, "process", wrapped_process)

    def crafted_deaths(self) -> None:
        w, c = self.w, self.w.c
        units = w.alive & ~c.anchor & ~c.improvement & w.active[:, None]
        pick = units & (self.rng.random(units.shape) < 0.33)
        c.bounty[pick] = self.rng.integers(-6, 4, size=int(pick.sum()))
        c.hit_by[pick] = self.rng.integers(-1, 2, size=int(pick.sum()))
        c.dying[pick] = True
        before = snapshot(w)
        self.capturing = True
        try:
            numpy_deaths.settle(w)
        finally:
            self.capturing = False
        self.compare("settle", before, snapshot(w))
        self.seen["negative bounties"] += int((before["c.bounty"][pick] < 0).sum())


# lanes.md: "Minimum bounty is 0 gold"
# lanes.md: "Kill enemy hero: +5 gold"
# lanes.md: "Rapid Deployment - Hero returns to play immediately when killed (no death timer)"
def test_compiled_settle_replays_numpy_settle_on_crafted_deaths(lanes, engine, monkeypatch) -> None:
    seen: Counter = Counter()
    failures: list[str] = []
    for k, pair in enumerate([("red_black_raiders", "red_vanguard"), ("blue_green_wardens", "black_covenant")]):
        seeds = np.arange(1000 + k * 32, 1000 + (k + 1) * 32, dtype=np.int64)
        w = lanes.new_world(seeds, pair, [make_agent("random"), make_agent("random")])
        with monkeypatch.context() as m:
            replay = SettleReplay(w, engine, m, seed=k)
            lanes.run_reference(w)
        seen += replay.seen
        failures += [f"{pair}: {f}" for f in replay.failures]
    print(dict(seen))
    assert not failures, "\n".join(failures[:10])
    for what in ("deaths", "hero deaths", "redeployed", "negative bounties"):
        assert seen[what] > 0, (what, seen)


SCENARIOS = sorted((Path(__file__).parent / "scenarios" / "lanes").glob("*.toml"))


def test_compiled_combat_replays_the_combat_of_every_scenario(lanes, engine, monkeypatch) -> None:
    """The scenario files are hand checks of single rules (taunt only draws unopposed attackers,
    siege not against taunt, stealth bypasses taunt, first strike kills first, deaths after the
    lane resolves, rapid deployment...): each combat they run is replayed by the compiled combat,
    effects included (their own expectations are tests/test_scenarios.py's)."""
    from battlesim.systems.lanes.compiled.processors import reference_twins
    from battlesim.systems.lanes.scenario import load_scenario

    seen: Counter = Counter()
    failures: list[str] = []
    for path in SCENARIOS:
        sc = load_scenario(path, game=lanes)
        if sc.spec.expect_error:
            continue
        with monkeypatch.context() as m:
            replay = Replay(sc.w, engine, m)
            try:
                with reference_twins():  # the scenario's steps through the numpy twins the replay captures
                    sc.run()
            except Exception:  # noqa: BLE001  (a scenario's own outcome is not this test's business)
                pass
        seen += replay.seen
        failures += [f"{path.stem}: {f}" for f in replay.failures]
    assert not failures, "\n".join(failures[:10])
    print(dict(seen))
    assert seen["calls"] > 30 and seen["deaths"] > 0, seen

"""The combat phase and settle compiled (systems/lanes/compiled/combat.py, deaths.py) against the
numpy ``Combat.process`` they replace, on real games: every call of numpy combat in several
hundred games (random agents, deck pairs chosen for taunt, stealth, first strike, cleave, siege,
trample, piercing, rapid deployment and the combat triggers) is replayed game by game by the
compiled ``combat`` on a copy of the World taken before it; every component array, ``alive``,
``serial``, the serial counters, every per-game field must come out as numpy left them.

Excluded, and only this: the effects of fired card triggers (the trigger boundary,
docs/compiled-core.md "Combat and deaths, compiled"). While a captured call runs, numpy's
``Executor.fire`` records each firing instead of running it; the rows it would have run are
compared with the compiled events, game by game in order (trigger, card, source and its serial,
other, owner, lane, position); after the comparison the recorded firings run and deaths settle.
Those games therefore differ from unwrapped ones (effects run after combat): the test checks the
phase, not the games.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numba
import numpy as np
import pytest

import battlesim.systems.lanes.compiled  # noqa: F401  (declares lanes' compiled damage stages)
from battlesim.ecs.compiled.damage_queue import OK, new_queue
from battlesim.ecs.compiled.engine import build
from battlesim.ecs.compiled.events import CARD, LANE, OTHER, OWNER, POS, SERIAL, SOURCE, TRIGGER, new_events
from battlesim.ecs.compiled.world_view import WorldState
from battlesim.ecs.decisions import make_agent
from battlesim.systems.lanes import deaths as numpy_deaths
from battlesim.systems.lanes.combat import Combat
from battlesim.systems.lanes.compiled.combat import combat
from battlesim.systems.lanes.compiled.deaths import settle
from battlesim.systems.lanes.compiled.combat_layout import READS, CombatFields, combat_fields, combat_view
from battlesim.systems.lanes.vocabulary import EXECUTOR

PAIRS = [("blue_green_wardens", "red_black_raiders"), ("black_covenant", "green_grove"),
         ("red_vanguard", "blue_tide"), ("green_black_rot", "blue_green_wardens"),
         ("red_black_raiders", "black_covenant"), ("blue_tide", "red_vanguard")]
GAMES = 48  # per pair: 288 games
GROUPS = ("i16", "i8", "flags", "i16x2", "alive", "serial")


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory):
    """The lanes engine (its damage dispatcher), built into a cache of this module's own."""
    old = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = str(tmp_path_factory.mktemp("numba"))
    try:
        yield build("lanes")
    finally:
        numba.config.CACHE_DIR = old


class Replay:
    """Wraps ``Combat.process`` of one World: each call is replayed by the compiled ``combat``
    on a copy taken before it, and compared with what numpy left."""

    def __init__(self, w, engine, m: pytest.MonkeyPatch) -> None:
        self.w, self.engine = w, engine
        self.view = combat_view(w)
        self.cols = self.view.cols(READS)
        self.dcols = engine.columns(self.view.layout())
        self.capturing = False
        self.fired: list[tuple[str, object, np.ndarray]] = []
        self.seen: Counter = Counter()
        self.failures: list[str] = []
        process = Combat.process
        fire = EXECUTOR.fire

        def wrapped_process(system, world):
            if world is not self.w:
                return process(system, world)
            before = self.snapshot()
            self.capturing, self.fired = True, []
            try:
                process(system, world)
            finally:
                self.capturing = False
            self.compare(before, self.snapshot())
            for trigger, ctx, _ in self.fired:  # the effects, now (the trigger boundary)
                fire(world, trigger, ctx)
            numpy_deaths.settle(world)

        def recording_fire(world, trigger, ctx):
            if not self.capturing:
                return fire(world, trigger, ctx)
            ctx = ctx() if callable(ctx) else ctx
            self.fired.append((trigger, ctx, world.serial[ctx.game, ctx.source].copy()))

        m.setattr(Combat, "process", wrapped_process)
        m.setattr(EXECUTOR, "fire", recording_fire)

    def snapshot(self) -> dict[str, np.ndarray]:
        s = self.view.state
        out = {name: getattr(s, name).copy() for name in GROUPS}
        out.update({f"g.{name}": arr.copy() for name, arr in self.view.g.items()})
        out["active"] = self.w.active.copy()
        out["next_serial"] = self.w._next_serial.copy()
        return out

    def compare(self, before: dict, after: dict) -> None:
        w, s = self.w, self.view.state
        B = w.n_games
        start = {name: arr.copy() for name, arr in before.items()}
        events, nevents = new_events(B, 256)
        state = WorldState(*(before[name] for name in GROUPS), s.cat, s.params, events, nevents)
        f0 = combat_fields(w, self.view)
        f = CombatFields(before["g.board"], before["g.round"], before["g.gold"], before["g.card_died"],
                         before["g.hero_status"], before["g.hero_ready_round"], before["g.hero_card"],
                         before["active"], before["next_serial"], *f0[9:])
        queue, qlen, stack = new_queue(B, 512)
        for b in range(B):
            status = combat(state, f, self.cols, b, queue, qlen, stack, self.engine.module.run_damage, self.dcols)
            assert status == OK, f"seed {w.seeds[b]}: combat returned {status}"
            assert nevents[b] <= events.shape[1], f"seed {w.seeds[b]}: event queue full"
        self.seen["calls"] += 1
        self.seen["games"] += int(before["active"].sum())
        for name, want in after.items():
            got = before[name]  # the compiled combat wrote into the copy taken before the call
            if not np.array_equal(got, want):
                diff = np.argwhere(got != want)[:3]
                self.failures.append(f"{name} differs at {diff.tolist()}: compiled {got[tuple(diff.T)]} "
                                     f"numpy {want[tuple(diff.T)]}")
        fired: dict[int, list] = {}
        for trigger, ctx, serial in self.fired:
            tid = EXECUTOR.id("trigger", trigger)
            for r in range(len(ctx)):
                fired.setdefault(int(ctx.game[r]), []).append(
                    (tid, int(ctx.card[r]), int(ctx.source[r]), int(serial[r]), int(ctx.other[r]),
                     int(ctx.owner[r]), int(ctx.lane[r]), int(ctx.pos[r])))
                self.seen[f"event {trigger}"] += 1
        for b in range(B):
            got = [tuple(int(e[k]) for k in (TRIGGER, CARD, SOURCE, SERIAL, OTHER, OWNER, LANE, POS))
                   for e in events[b, :nevents[b]]]
            if got != fired.get(b, []):
                self.failures.append(f"seed {w.seeds[b]}: events {got} != fired {fired.get(b, [])}")
        self.count(start, after)

    def count(self, before: dict, after: dict) -> None:
        """What the captured calls reached (the test must have met each, else it could not fail there)."""
        cols = self.view.columns
        died = before["alive"] & ~after["alive"]  # compared equal above, so numpy's and the compiled's
        self.seen["deaths"] += int(died.sum())
        self.seen["hero deaths"] += int((died & before["flags"][cols["hero"][1]]).sum())
        self.seen["gold paid"] += int((after["g.gold"] - before["g.gold"]).sum())
        self.seen["redeployed"] += int((~before["alive"] & after["alive"]).sum())
        self.seen["stealth lost"] += int((before["flags"][cols["stealth"][1]] & ~after["flags"][cols["stealth"][1]]).sum())
        for kw in ("taunt", "first_strike"):
            self.seen[f"{kw} on board"] += int((before["alive"] & before["flags"][cols[kw][1]]).sum())
        for kw in ("cleave", "siege"):
            self.seen[f"{kw} on board"] += int((before["alive"] & (before["i16"][cols[kw][1]] > 0)).sum())


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
# lanes.md: "Before Combat - Triggers before combat resolution begins" (events)
# lanes.md: "After Combat - Triggers after combat in each lane" (events)
def test_compiled_combat_replays_every_numpy_combat_phase(lanes, engine, monkeypatch) -> None:
    seen: Counter = Counter()
    failures: list[str] = []
    for k, pair in enumerate(PAIRS):
        seeds = np.arange(k * GAMES, (k + 1) * GAMES, dtype=np.int64)
        w = lanes.new_world(seeds, pair, [make_agent("random"), make_agent("random")])
        with monkeypatch.context() as m:
            replay = Replay(w, engine, m)
            lanes.run(w)
        seen += replay.seen
        failures += [f"{pair}: {f}" for f in replay.failures]
    print(dict(seen))
    assert not failures, "\n".join(failures[:10])
    for what in ("calls", "deaths", "hero deaths", "gold paid", "redeployed", "stealth lost", "taunt on board",
                 "first_strike on board", "cleave on board", "siege on board"):
        assert seen[what] > 0, (what, seen)
    assert any(key.startswith("event ") for key in seen), seen


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
        before = self.snapshot()
        self.capturing, self.fired = True, []
        try:
            numpy_deaths.settle(w)
        finally:
            self.capturing = False
        after = self.snapshot()
        start = {name: arr.copy() for name, arr in before.items()}
        s = self.view.state
        events, nevents = new_events(w.n_games, 256)
        state = WorldState(*(before[name] for name in GROUPS), s.cat, s.params, events, nevents)
        f0 = combat_fields(w, self.view)
        f = CombatFields(before["g.board"], before["g.round"], before["g.gold"], before["g.card_died"],
                         before["g.hero_status"], before["g.hero_ready_round"], before["g.hero_card"],
                         before["active"], before["next_serial"], *f0[9:])
        for b in range(w.n_games):
            assert settle(state, f, self.cols, b) == OK
        for name, want in after.items():
            if not np.array_equal(before[name], want):
                diff = np.argwhere(before[name] != want)[:3]
                self.failures.append(f"settle: {name} differs at {diff.tolist()}")
        self.seen["negative bounties"] += int((start["i16"][self.view.columns["bounty"][1]] < 0).sum())
        self.count(start, after)
        for trigger, ctx, _ in self.fired:
            EXECUTOR.__class__.fire(EXECUTOR, w, trigger, ctx)
        self.fired = []


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
            lanes.run(w)
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
    lane resolves, rapid deployment...): each combat they run is replayed by the compiled combat
    (their trigger effects deferred past the call, the trigger boundary, so a few may end
    otherwise: their own expectations are tests/test_scenarios.py's)."""
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
                sc.run()
            except Exception:  # noqa: BLE001  (a scenario's own outcome is not this test's business)
                pass
        seen += replay.seen
        failures += [f"{path.stem}: {f}" for f in replay.failures]
    assert not failures, "\n".join(failures[:10])
    print(dict(seen))
    assert seen["calls"] > 30 and seen["deaths"] > 0, seen

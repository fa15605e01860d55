"""The start and end of round compiled (systems/lanes/compiled/round_start.py, round_end.py, run
through the lanes engine module, where they call its resolution machine) against the numpy
``StartOfRound.process`` and ``EndOfRound.process`` they replace, on real games: every call in a
few hundred games is replayed game by game by the compiled twin on a second World set to the
state before it; every component array, presence mask, ``alive``, ``serial``, the serial
counters, every per-game field and the RNG counters must come out as numpy left them, and the
improvements reported expired must be numpy's ``lanes.expired`` rows.

Effects are NOT deferred: numpy's firings run where they run ("Start of Round", "End of Round",
the status tick's "On Damage Taken" inside the pipeline, the settle's "On Death" and "On Enemy
Death"), and the compiled phases drain at the same points (docs/compiled-core.md "How phases
call the resolution machine").

A second run crafts, before each call, what real games reach rarely: random decay and
regeneration stacks on units and anchors (units left at 1 health), decaying statuses, temporary
buffs, cooldowns used this round or before, timers about to run out.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from pathlib import Path

import esper
import numpy as np
import pytest
from compiled_replay import END, START, Replayer, lanes_engine, snapshot

from battlesim.components.keywords import lanes as lanes_plugin
from battlesim.ecs.compiled.damage_queue import OK
from battlesim.ecs.decisions import make_agent
from battlesim.systems.lanes.compiled.round_layout import phase_columns, phase_fields, phase_view
from battlesim.systems.lanes.round_end import EndOfRound
from battlesim.systems.lanes.round_start import StartOfRound
from battlesim.systems.lanes.vocabulary import EXECUTOR


# numpy twin against compiled kernel, call by call: opt-in (`pytest -m differential`, pyproject.toml)
pytestmark = pytest.mark.differential

PAIRS = [("green_black_rot", "black_covenant"), ("green_grove", "blue_tide"), ("blue_green_wardens", "green_grove"),
         ("black_covenant", "red_blue_tempest"), ("blue_tide", "green_black_rot")]
GAMES = 48  # per pair


@pytest.fixture(scope="module", name="engine")
def _engine(tmp_path_factory):
    yield from lanes_engine(tmp_path_factory)


class Replay:
    """Wraps ``StartOfRound.process`` and ``EndOfRound.process`` of one World: each call replayed
    by the compiled twin on a second World set to the state before it, compared with what numpy left."""

    def __init__(self, w, engine, m: pytest.MonkeyPatch, actions, craft=None, seed: int = 0) -> None:
        self.w, self.craft = w, craft
        self.rng = np.random.default_rng(seed)
        self.rep = Replayer(engine, w.copy(), view_of=phase_view)
        self.f = phase_fields(self.rep.world, self.rep.view)
        self.cols = phase_columns(self.rep.view, actions, lanes_plugin.decaying())
        self.row = np.zeros(1, dtype=np.bool_)
        self.col = self.rep.view.columns
        self.capturing = False
        self.expired: list = []
        self.seen: Counter = Counter()
        self.failures: list[str] = []
        fire = EXECUTOR.fire
        self._expired_handler = lambda world, b, s: self.expired.append((b.copy(), s.copy()))  # strong ref

        def wrap(cls):
            process = cls.process

            def wrapped(system, world):
                if world is not self.w:
                    return process(system, world)
                if self.craft is not None:
                    self.craft(self, cls)
                before = snapshot(world)
                self.capturing, self.expired = True, []
                esper.set_handler("lanes.expired", self._expired_handler)
                try:
                    process(system, world)
                finally:
                    self.capturing = False
                    esper.remove_handler("lanes.expired", self._expired_handler)
                self.compare(cls, before, snapshot(world))
            return wrapped

        def counting_fire(world, trigger, ctx):
            if self.capturing and world is self.w and EXECUTOR.depth == 0:
                ctx = ctx() if callable(ctx) else ctx
                self.seen[f"event {trigger}"] += len(ctx)
            return fire(world, trigger, ctx)

        m.setattr(StartOfRound, "process", wrap(StartOfRound))
        m.setattr(EndOfRound, "process", wrap(EndOfRound))
        m.setattr(EXECUTOR, "fire", counting_fire)

    def compare(self, cls, before: dict, after: dict) -> None:
        w, rep = self.w, self.rep
        rep.set(before)
        expired = np.zeros(w.n_slots, dtype=np.int64)
        reported: dict[int, list[int]] = {}
        kind = START if cls is StartOfRound else END
        for b in range(w.n_games):
            status = rep.game.round_step(rep.st, self.f, self.cols, b, rep.g, rep.rng, rep.m, kind, self.row,
                                           expired)
            assert status >= OK, f"seed {w.seeds[b]}: {cls.__name__} returned {status} ({rep.card_name()})"
            if kind == END and status > 0:
                reported[b] = [int(s) for s in expired[:status]]
        name = cls.__name__
        self.seen[f"{name} calls"] += 1
        self.seen[f"{name} games"] += int(before["active"].sum())
        self.seen[f"{name} rng draws"] += int((after["rng"] - before["rng"]).sum())
        self.failures += [f"{name} round {int(before['g.round'].max())}: {d}" for d in rep.differences(after)]
        want: dict[int, list[int]] = {}
        for gb, gs in self.expired:
            for b, s in zip(gb, gs):
                want.setdefault(int(b), []).append(int(s))
        if reported != want:
            self.failures.append(f"{name}: expired {reported} != numpy's lanes.expired {want}")
        self.count(name, before, after)

    def count(self, name: str, before: dict, after: dict) -> None:
        """What the captured calls met (the test must have met each, else it could not fail there)."""
        i16 = flags = x2 = (lambda n: before[f"c.{n}"])
        live = before["alive"] & before["active"][:, None]
        hp0, hp1 = i16("health"), after["c.health"]
        if name == "StartOfRound":
            unit = live & ~flags("anchor") & ~flags("improvement")
            self.seen["decay on a unit"] += int((unit & (i16("decay") > 0)).sum())
            regen = live & ~flags("improvement") & (i16("regeneration") > 0)
            self.seen["regeneration on a unit"] += int((regen & unit).sum())
            self.seen["regeneration on an anchor"] += int((regen & flags("anchor")).sum())
            self.seen["healed"] += int((live & (hp1 > hp0)).sum())
            self.seen["decay and regeneration cancel"] += int((unit & (i16("decay") == i16("regeneration"))
                                                                & (i16("decay") > 0) & (hp1 == hp0)).sum())
            self.seen["revived by regeneration"] += int((unit & (i16("decay") >= hp0) & after["alive"]
                                                         & (i16("regeneration") > 0) & (hp1 > 0)).sum())
            self.seen["died of decay"] += int((unit & ~after["alive"]).sum())
            mana = before["g.lane_mana"][before["active"]]
            self.seen["lane mana grew"] += int((after["g.lane_mana"][before["active"]] > mana).sum())
            self.seen["lane mana at its cap"] += int((after["g.lane_mana"][before["active"]] == mana).sum())
        else:
            for status in lanes_plugin.decaying():
                self.seen["status stacks decayed"] += int((live & (i16(status) > after[f"c.{status}"])).sum())
            self.seen["temporary attack ended"] += int((live & (x2("temp_attack") != 0).any(axis=2)).sum())
            self.seen["temporary health ended"] += int((live & (x2("temp_health") != 0).any(axis=2)).sum())
            cd = live & (i16("cooldown") > 0)
            ticked = after["c.cooldown"] < i16("cooldown")
            self.seen["cooldown ticked"] += int((cd & ticked).sum())
            self.seen["cooldown kept (used this round)"] += int((cd & ~ticked & after["alive"]).sum())
            timed = live & flags("improvement") & (i16("timer") > 0)
            self.seen["timer ticked"] += int((timed & after["alive"]).sum())
            self.seen["improvement expired"] += int((timed & ~after["alive"]).sum())


def play(lanes, engine, monkeypatch, craft=None, games: int = GAMES, agents=("random", "random")) -> Counter:
    seen: Counter = Counter()
    failures: list[str] = []
    for k, pair in enumerate(PAIRS):
        seeds = np.arange(k * games, (k + 1) * games, dtype=np.int64) + (7000 if craft else 0)
        w = lanes.new_world(seeds, pair, [make_agent(a) for a in agents])
        with monkeypatch.context() as m:
            replay = Replay(w, engine, m, lanes.actions, craft, seed=k)
            lanes.run_reference(w)
        seen += replay.seen
        failures += [f"{pair}: {f}" for f in replay.failures]
    print(dict(seen))
    assert not failures, f"{len(failures)} differences, first: " + "\n".join(failures[:8])
    return seen


# lanes.md: "Start of Round - Triggers at the beginning of each round (after creep spawn, before play phase)"
# lanes.md: "Decay (Poison) - Deals 1 damage per stack at the start of each round"
# lanes.md: "Regeneration X - Heals X health at the start of each round"
# lanes.md: "End of Round - Triggers at end of round (after shop phase)"
# lanes.md: "Stun stacks decay by 1 at end of round"
# lanes.md: "Counter decreases by 1 at the end of each round"
# lanes.md: "Effect expires and is removed when counter reaches 0"
def test_compiled_round_start_and_end_replay_every_numpy_call(lanes, engine, monkeypatch) -> None:
    seen = play(lanes, engine, monkeypatch)
    for what in ("StartOfRound calls", "EndOfRound calls", "decay on a unit", "regeneration on a unit", "healed",
                 "died of decay", "lane mana grew", "lane mana at its cap", "status stacks decayed",
                 "temporary attack ended", "cooldown ticked", "timer ticked", "improvement expired",
                 "event start_of_round", "event end_of_round", "event on_death"):
        assert seen[what] > 0, (what, seen)


def craft(replay: Replay, cls) -> None:
    """Before a call: random decay and regeneration (units left at 1 health, anchors enchanted),
    decaying statuses, temporary buffs, cooldowns (some used this round), timers about to expire."""
    w, c, rng = replay.w, replay.w.c, replay.rng
    live = w.alive & w.active[:, None]
    unit = live & ~c.anchor & ~c.improvement

    def some(mask, p):
        return mask & (rng.random(mask.shape) < p)

    if cls is StartOfRound:
        pick = some(unit, 0.3)
        c.decay[pick] = rng.integers(1, 3, size=int(pick.sum()))
        pick = some(unit, 0.3)
        c.regeneration[pick] = rng.integers(1, 3, size=int(pick.sum()))
        low = some(unit, 0.2)
        c.health[low] = 1
        anchors = some(live & c.anchor, 0.3)
        c.regeneration[anchors] = rng.integers(1, 4, size=int(anchors.sum()))
        c.health[anchors] = np.maximum(c.health[anchors] - 3, 1)
        return
    for status in lanes_plugin.decaying():
        pick = some(unit, 0.15)
        getattr(c, status)[pick] = rng.integers(1, 3, size=int(pick.sum()))
    pick = some(unit, 0.2)
    c.temp_attack[pick] = rng.integers(-2, 3, size=(int(pick.sum()), 2))
    pick = some(unit, 0.2)
    c.temp_health[pick] = rng.integers(0, 3, size=(int(pick.sum()), 2))
    pick = some(live & ~c.anchor, 0.2)
    c.cooldown[pick] = rng.integers(1, 3, size=int(pick.sum()))
    c.used_round[pick] = np.where(rng.random(int(pick.sum())) < 0.5, w.g.round[np.nonzero(pick)[0]], 0)
    pick = some(live & c.improvement, 0.5)
    c.timer[pick] = rng.integers(1, 3, size=int(pick.sum()))


# lanes.md: "Decay (Poison) - Deals 1 damage per stack at the start of each round"
# lanes.md: "Regeneration X - Heals X health at the start of each round"
def test_compiled_round_start_and_end_replay_numpy_on_crafted_states(lanes, engine, monkeypatch) -> None:
    """DESIGN.md "Status tick": computed from the state at its start and applied together
    (Regeneration 1 and Decay 1 cancel, even at 1 health)."""
    seen = play(lanes, engine, monkeypatch, craft=craft, games=24)
    for what in ("regeneration on an anchor", "decay and regeneration cancel", "revived by regeneration",
                 "died of decay", "status stacks decayed", "temporary attack ended", "temporary health ended",
                 "cooldown ticked", "cooldown kept (used this round)", "timer ticked", "improvement expired"):
        assert seen[what] > 0, (what, seen)


SCENARIOS = sorted((Path(__file__).parent / "scenarios" / "lanes").glob("*.toml"))


def test_compiled_round_start_and_end_replay_every_scenario(lanes, engine, monkeypatch) -> None:
    """The scenario files are hand checks of single rules (regeneration capped at the maximum,
    regeneration and decay cancel, decay as one instance through the pipeline, statuses decaying,
    timed improvements expiring...): each start and end of round they run is replayed by the
    compiled twin (their trigger effects deferred past the call, so a few may end otherwise: their
    own expectations are tests/test_scenarios.py's)."""
    from battlesim.systems.lanes.compiled.processors import reference_twins
    from battlesim.systems.lanes.scenario import load_scenario

    seen: Counter = Counter()
    failures: list[str] = []
    for path in SCENARIOS:
        sc = load_scenario(path, game=lanes)
        if sc.spec.expect_error:
            continue
        with monkeypatch.context() as m:
            replay = Replay(sc.w, engine, m, lanes.actions)
            with contextlib.suppress(Exception), reference_twins():  # the twins the replay captures
                sc.run()
        seen += replay.seen
        failures += [f"{path.stem}: {f}" for f in replay.failures]
    print(dict(seen))
    assert not failures, "\n".join(failures[:10])
    assert seen["StartOfRound calls"] > 10 and seen["EndOfRound calls"] > 10, seen
    for what in ("decay on a unit", "regeneration on a unit", "status stacks decayed", "improvement expired"):
        assert seen[what] > 0, (what, seen)

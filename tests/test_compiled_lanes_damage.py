"""Lanes' damage pipeline compiled (systems/lanes/compiled/damage_stages.py, run by the resolution
machine of ecs/compiled/machine.py) against the numpy one it replaces, on real games: every
top-level ``pipeline.run`` of numpy games (random agents, several deck pairs) is replayed game by
game by the engine's ``resolve_damage`` on the World as it was before the call, effects NOT
deferred: numpy's "On Damage Taken" firings run where they run (inside the stage at 460, their
damage nested in turn), the compiled machine fires them at the same point. Every component
array, presence mask, ``alive``, ``serial``, the next serials, every per-game field and the RNG
counters must come out as numpy left them, and the batch's rows with the same amount, dealt and
excess."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from compiled_replay import Replayer, changed, lanes_engine, snapshot

from battlesim.ecs.compiled.damage_queue import AMOUNT, DEALT, EXCESS, OK, push
from battlesim.ecs.damage import OVERFLOW, RETALIATE
from battlesim.ecs.decisions import make_agent
from battlesim.systems.lanes import compiled  # noqa: F401  (declares lanes' compiled stages, opcodes, phases)
from battlesim.systems.lanes.damage_stages import STAGES
from battlesim.systems.lanes.vocabulary import EXECUTOR

# deck pairs that bring every stage into play: shields, armor and armor auras, retaliate,
# trample and piercing, lifesteal, "On Damage Taken" cards
PAIRS = [("blue_green_wardens", "red_black_raiders"), ("black_covenant", "green_grove"),
         ("red_vanguard", "blue_tide"), ("green_black_rot", "blue_green_wardens")]
GAMES = 64  # per pair: 256 games
TRIGGER_NAME = "on_damage_taken"


@pytest.fixture(scope="module", name="engine")
def _engine(tmp_path_factory):
    yield from lanes_engine(tmp_path_factory)


class Replay:
    """Wraps one World's ``pipeline.run``: each top-level call is replayed by the compiled
    machine on a second World set to the state before it, and compared with what numpy left."""

    def __init__(self, w, engine, monkeypatch: pytest.MonkeyPatch) -> None:
        self.w = w
        self.rep = Replayer(engine, w.copy())
        self.depth = 0
        self.seen: Counter = Counter()
        self.failures: list[str] = []
        run = w.pipeline.run
        fire = EXECUTOR.fire

        def wrapped_run(world, batch):
            if self.depth:
                kinds = batch.kind
                self.seen["retaliate rows"] += int((kinds == RETALIATE).sum())
                self.seen["overflow rows"] += int((kinds == OVERFLOW).sum())
                self.seen["nested batches"] += 1
                return run(world, batch)
            return self.top_level(run, world, batch)

        def counting_fire(world, trigger, ctx):
            if self.depth and trigger == TRIGGER_NAME:
                ctx = ctx() if callable(ctx) else ctx
                self.seen["on damage taken rows"] += len(ctx)
            return fire(world, trigger, ctx)

        w.pipeline.run = wrapped_run
        monkeypatch.setattr(EXECUTOR, "fire", counting_fire)

    def top_level(self, run, world, batch):
        before = snapshot(world)
        rows = (batch.game.copy(), batch.source.copy(), batch.target.copy(), batch.amount.copy(), batch.kind.copy())
        self.depth += 1
        try:
            out = run(world, batch)
        finally:
            self.depth -= 1
        self.compare(before, snapshot(world), rows, batch)
        return out

    def compare(self, before: dict, after: dict, rows: tuple, batch) -> None:
        game, source, target, amount, kind = rows
        rep = self.rep
        rep.set(before)
        m = rep.m
        for b in dict.fromkeys(game.tolist()):  # each game's rows keep their batch order
            idx = np.flatnonzero(game == b)
            m.qlen[b] = 0
            for r in idx:
                assert push(m.queue, m.qlen, b, source[r], target[r], amount[r], kind[r])
            status = rep.resolve_damage(b)
            assert status == OK, f"seed {self.w.seeds[b]}: resolve_damage returned {status} ({rep.card_name()})"
            assert m.qlen[b] == idx.size  # nested levels gave their rows back
            for field, numpy_field in ((AMOUNT, batch.amount), (DEALT, batch.dealt), (EXCESS, batch.excess)):
                if not np.array_equal(m.queue[b, :idx.size, field], numpy_field[idx]):
                    self.failures.append(f"game {b}: queue field {field} {m.queue[b, :idx.size, field]} "
                                         f"!= {numpy_field[idx]}")
        self.failures += [f"rows {list(zip(*rows))[:6]}: {d}" for d in rep.differences(after)]
        shield, essence = "c.shield", "c.essence"
        self.seen["shield stacks used"] += int(before[shield].sum() - after[shield].sum())
        self.seen["anchors fallen"] += int(after[essence].sum() - before[essence].sum())
        self.seen["top-level calls"] += 1
        self.seen["rng draws"] += int((after["rng"] - before["rng"]).sum())
        self.seen["calls that changed the World"] += changed(before, after)
        self.seen["rows"] += len(game)


def test_the_compiled_stages_are_the_numpy_stages_by_name_and_priority(engine) -> None:
    assert [(s.name, s.priority) for s in engine.stages] == [(name, prio) for name, prio, _ in STAGES]


# The rule sentences the compiled stages implement, each as its numpy twin does (the scenarios
# and tests/rules/lanes/ pin the numpy stages to them; this test pins the compiled ones to those):
# lanes.md: "When essence reaches 0 HP, that lane's objective is destroyed" (destroyed_objective, anchor_falls)
# lanes.md: "Damage Immunity - Cannot take damage" (damage_immunity)
# lanes.md: "Shield - Blocks the next instance of damage completely (then removed). Can stack." (shield)
# lanes.md: "Shield is checked first and blocks ALL damage completely (consumes 1 shield stack)" (order)
# lanes.md: "damage_to_health = max(damage - armor, 0)" (armor, with auras and equipment)
# lanes.md: "Piercing ignores POSITIVE armor (deals full damage)" (armor)
# lanes.md: "Piercing is still amplified by NEGATIVE armor" (armor)
# lanes.md: "Any remaining damage goes to health" (apply_health)
# lanes.md: "Kill enemy unit/creep: +1 gold" (record_hit: who hit last)
# lanes.md: "Lifesteal - Heal own anchor for damage dealt" (lifesteal)
# lanes.md: "Retaliate X - When this unit is attacked, it deals X damage back to each attacker" (retaliate)
# lanes.md: "Trample - Excess damage (overkill on units) hits enemy anchor" (overflow)
# lanes.md: "Piercing - Excess damage (overkill) hits enemy anchor" (overflow)
# lanes.md: "When an anchor reaches 0 HP, it transforms into an essence" (anchor_falls)
# lanes.md: "Essence has 40 HP" (anchor_falls)
# lanes.md: "On Damage Taken - Triggers when this unit takes damage" (damage_taken: the events)
# lanes.md: "Units with 0 or less health are marked as destroyed" (mark_dying)
def test_compiled_pipeline_replays_every_numpy_damage_batch(lanes, engine, monkeypatch) -> None:
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
    assert not failures, "\n".join(failures[:10])
    # the games reached every part of the pipeline (else this test could not fail where it matters)
    print(f"\ncompiled damage: identical on {dict(seen)}")
    for what in ("top-level calls", "retaliate rows", "overflow rows", "on damage taken rows", "nested batches",
                 "shield stacks used", "anchors fallen"):
        assert seen[what] > 0, (what, seen)


SCENARIOS = sorted((Path(__file__).parent / "scenarios" / "lanes").glob("*.toml"))


def test_compiled_pipeline_replays_every_damage_batch_of_the_scenarios(lanes, engine, monkeypatch) -> None:
    """The scenario files are hand checks of single rules (shield before armor, retaliate on
    death, no carry-over into the essence, a destroyed lane absorbing nothing...): the edge cases
    random games may reach rarely. Their own expectations are tests/test_scenarios.py's; here each
    damage batch they deal is replayed by the compiled machine, its effects included."""
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
    assert seen["top-level calls"] > 100, seen

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

import copy
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from compiled_replay import Replayer, changed, lanes_engine, restore, snapshot

from battlesim.ecs.compiled.damage_queue import AMOUNT, DEALT, EXCESS, OK, push
from battlesim.ecs.damage import OVERFLOW, RETALIATE
from battlesim.ecs.decisions import make_agent
from battlesim.systems.lanes import compiled  # noqa: F401  (declares lanes' compiled stages, opcodes, phases)
from battlesim.systems.lanes.damage_stages import STAGES
from battlesim.systems.lanes.vocabulary import EXECUTOR


# numpy twin against compiled kernel, call by call: opt-in (`pytest -m differential`, pyproject.toml)
pytestmark = pytest.mark.differential

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
            lanes.run_reference(w)
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
    assert seen["top-level calls"] > 100, seen


def _two_effect_table(table, cards: list[int]):
    """A copy of ``table`` in which each of ``cards`` has two effects on "On Damage Taken", each
    1 damage to a random enemy: which row's effect gets which draw tells slot-major firing (row
    A's slot 0, row B's slot 0, then the slots 1) from row by row."""
    out = copy.deepcopy(table)
    out._has, out._uses, out._slots, out._programs = {}, {}, {}, {}
    tid = EXECUTOR.id("trigger", TRIGGER_NAME)
    for card in cards:
        out.trigger[card] = -1
        out.trigger[card, :2] = tid
        out.op[card, :2] = EXECUTOR.id("opcode", "damage")
        out.select[card, :2] = EXECUTOR.id("selector", "random_enemy")
        out.amount[card, :2] = 1
    return out


def _boards(lanes, monkeypatch, seed: int):
    """A World as set up, and snapshots of it at its first 40 damage batches (mid-game boards)."""
    boards = []
    w = lanes.new_world(np.arange(16, dtype=np.int64) + seed, PAIRS[2], [make_agent("random"), make_agent("random")])
    start = w.copy()
    run = w.pipeline.run

    def spy(world, batch):
        if len(boards) < 40:
            boards.append(snapshot(world))
        return run(world, batch)

    with monkeypatch.context() as m:
        m.setattr(w.pipeline, "run", spy)
        lanes.run_reference(w)
    return start, boards


# lanes.md: "On Damage Taken - Triggers when this unit takes damage"
def test_one_stage_pass_fires_its_rows_as_one_slot_major_firing(lanes, engine, monkeypatch) -> None:
    """Two units of opposite seats damaged in one batch, both with two "On Damage Taken" effects
    that each deal 1 damage to a random enemy (their damage triggering more of them): numpy fires
    them as one firing, slot 0 of both rows, then slot 1; the machine must too (a row-by-row
    firing hands the draws to other effects). Compared as every other batch, RNG counters too."""
    from battlesim.ecs.damage import SPELL, DamageBatch

    start, boards = _boards(lanes, monkeypatch, 500)
    assert start.effects.n_effects >= 2
    compared, nested = 0, 0
    for before in boards[5::7]:
        for b in range(start.n_games):
            units = [[s for s in range(start.n_slots) if before["alive"][b, s] and not before["c.anchor"][b, s]
                      and not before["c.improvement"][b, s] and before["c.owner"][b, s] == seat] for seat in (0, 1)]
            if not units[0] or not units[1] or not before["active"][b]:
                continue
            a, t = units[0][0], units[1][0]
            cards = sorted({int(before["c.card_id"][b, a]), int(before["c.card_id"][b, t])})
            table = _two_effect_table(start.effects, cards)
            numpy_world = start.copy()
            numpy_world.effects = table
            restore(numpy_world, before)
            numpy_world.rng.counter[...] = before["rng"]
            numpy_world.cache.pop("aura_sources", None)
            numpy_world.pipeline.run(numpy_world, DamageBatch(np.array([b, b]), np.array([-1, -1]), np.array([a, t]),
                                                              np.array([1, 1]), SPELL))
            after = snapshot(numpy_world)
            rep_world = start.copy()
            rep_world.effects = table
            rep = Replayer(engine, rep_world, table)
            rep.set(before)
            m = rep.m
            m.qlen[b] = 0
            push(m.queue, m.qlen, b, -1, a, 1, SPELL)
            push(m.queue, m.qlen, b, -1, t, 1, SPELL)
            assert rep.resolve_damage(b) == OK
            diff = rep.differences(after)
            assert not diff, f"game {b}, units {a} and {t} (cards {cards}): {diff}"
            compared += 1
            nested += int((after["rng"][b] - before["rng"][b]) > 2)  # more draws than the two rows' first slot
    print(f"\ntwo-effect firings: {compared} identical, {nested} with draws beyond the first pair")
    assert compared >= 10 and nested >= 5


# lanes.md: "Units with 0 or less health are marked as destroyed"
def test_on_damage_taken_resolves_before_mark_dying_of_its_batch(lanes, engine, monkeypatch) -> None:
    """A unit whose "On Damage Taken" heals it, dealt more than its health: numpy runs the heal
    inside the stage at 460, before ``mark_dying`` (500) of that batch, so the unit lives; the
    machine must fire it at the same point (after ``mark_dying`` it would die)."""
    from battlesim.ecs.damage import SPELL, DamageBatch

    w, boards = _boards(lanes, monkeypatch, 900)
    before = boards[-1]
    tid = EXECUTOR.id("trigger", TRIGGER_NAME)
    saved = 0
    for b in range(w.n_games):
        units = [s for s in range(w.n_slots) if before["alive"][b, s] and not before["c.anchor"][b, s]
                 and not before["c.improvement"][b, s] and before["c.shield"][b, s] == 0]
        for a in units[:2]:
            table = copy.deepcopy(w.effects)
            table._has, table._uses, table._slots, table._programs = {}, {}, {}, {}
            card = int(before["c.card_id"][b, a])
            table.trigger[card] = -1
            table.trigger[card, 0] = tid
            table.op[card, 0] = EXECUTOR.id("opcode", "heal")
            table.select[card, 0] = EXECUTOR.id("selector", "self")
            table.amount[card, 0] = 50
            amount = int(before["c.health"][b, a]) + int(max(before["c.armor"][b, a], 0)) + 10
            numpy_world = w.copy()
            numpy_world.effects = table
            restore(numpy_world, before)
            numpy_world.rng.counter[...] = before["rng"]
            numpy_world.cache.pop("aura_sources", None)
            numpy_world.pipeline.run(numpy_world, DamageBatch(np.array([b]), np.array([-1]), np.array([a]),
                                                              np.array([amount]), SPELL))
            after = snapshot(numpy_world)
            rep_world = w.copy()
            rep_world.effects = table
            rep = Replayer(engine, rep_world, table)
            rep.set(before)
            rep.m.qlen[b] = 0
            push(rep.m.queue, rep.m.qlen, b, -1, a, amount, SPELL)
            assert rep.resolve_damage(b) == OK
            diff = rep.differences(after)
            assert not diff, f"game {b}, unit {a}: {diff}"
            saved += int(not after["c.dying"][b, a])
    print(f"\nhealed inside the batch: {saved} units saved from mark_dying, identical")
    assert saved >= 10

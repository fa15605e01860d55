"""group "engine": one system over a prepared batch of B = 4096 games.

Each round's setup builds a fresh world and plays it to just before the system (round 3
unless said otherwise: all five heroes are out and the boards are busy), so every timed call
sees the same, realistic state. ``games_per_s`` here is B / (time of one system call): how
many games that system advances per second.
"""

from __future__ import annotations

import numpy as np
import pytest
from harness import advance, find_system, fresh_world, record_rate

from battlesim.ecs.damage import ATTACK, COMBAT, DamageBatch
from battlesim.systems.lanes.damage_stages import lanes_pipeline

B = 4096
ROUNDS = 8  # timed calls per benchmark (each on a fresh world)
WARMUP = 1


def prepared(game, phase: str, full_rounds: int = 2, system: str | None = None):
    def setup():
        w = advance(game, fresh_world(game, B), full_rounds, phase, system)
        return (w,), {}
    return setup


def bench_system(benchmark, game, phase: str, cls_name: str, full_rounds: int = 2):
    system = find_system(game, phase, cls_name)
    setup = prepared(game, phase, full_rounds, cls_name)
    benchmark.extra_info["round"] = full_rounds + 1
    benchmark.pedantic(system.process, setup=setup, rounds=ROUNDS, warmup_rounds=WARMUP, iterations=1)
    record_rate(benchmark, B)


@pytest.mark.benchmark(group="engine")
def test_creep_spawn(benchmark, game):
    bench_system(benchmark, game, "creep_spawn", "CreepSpawn")


@pytest.mark.benchmark(group="engine")
def test_hero_deployment_round1(benchmark, game):
    """Round 1: the three-step deployment (three decisions per seat)."""
    bench_system(benchmark, game, "hero_deployment", "HeroDeployment", full_rounds=0)


@pytest.mark.benchmark(group="engine")
def test_draw(benchmark, game):
    bench_system(benchmark, game, "draw", "DrawPhase")


@pytest.mark.benchmark(group="engine")
def test_play_phase_random_agents(benchmark, game):
    """The whole play phase of round 3 (decision loop until both pass), random vs random."""
    bench_system(benchmark, game, "play", "PlayPhase")


@pytest.mark.benchmark(group="engine")
def test_combat(benchmark, game):
    """Three lanes of combat with deaths after each lane (round 3, boards after play)."""
    bench_system(benchmark, game, "combat", "Combat")


@pytest.mark.benchmark(group="engine")
def test_damage_pipeline_synthetic(benchmark, game):
    """The lanes damage pipeline over a synthetic DamageBatch: every live entity of every
    game (anchors included) takes 1-3 damage, as one batch."""
    pipeline = lanes_pipeline()
    rng = np.random.default_rng(0)
    rows = []

    def setup():
        w = advance(game, fresh_world(game, B), 2, "combat")
        b, s = np.nonzero(w.alive)
        amount = rng.integers(1, 4, size=b.size)
        batch = DamageBatch(b, s, s, amount, COMBAT | ATTACK)
        rows.append(len(batch))
        return (w, batch), {}

    benchmark.pedantic(pipeline.run, setup=setup, rounds=ROUNDS, warmup_rounds=WARMUP, iterations=1)
    record_rate(benchmark, rows[-1], unit="rows")
    benchmark.extra_info["games"] = B

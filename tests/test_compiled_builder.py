"""The compiled-core builder (DESIGN.md "Plugins", "Damage pipeline", "Rules of the road"): stages
declared in plain Python with one signature, composed by code generation into one engine
module whose dispatcher calls them in priority order, the engine's own stages included."""

from __future__ import annotations

import io
import textwrap
from pathlib import Path
from types import SimpleNamespace

import numba
import numpy as np
import pytest

from battlesim.ecs.compiled import stages as cstages
from battlesim.ecs.compiled.application import apply_health
from battlesim.ecs.compiled.damage_queue import (
    AMOUNT,
    DEALT,
    EXCESS,
    KIND,
    OK,
    QUEUE_FULL,
    SOURCE,
    TARGET,
    TOO_DEEP,
    new_queue,
    push,
)
from battlesim.ecs.compiled.cache import engine_hash
from battlesim.ecs.compiled.codegen import dependency_files, engine_source
from battlesim.ecs.compiled.engine import build
from battlesim.ecs.compiled.stages import MAX_READS
from battlesim.ecs.compiled.world_view import toy_state
from battlesim.ecs.damage import ATTACK, COMBAT, RETALIATE, DamageBatch, apply_to_health
from battlesim.ecs.plugin import PluginError, isolated, load_plugins

# A plugin as a designer writes one: plain functions in numba's subset, the documented signature.
PLUGIN = '''
from battlesim.ecs.compiled.damage_queue import AMOUNT, DEALT, KIND, SOURCE, TARGET, push
from battlesim.ecs.compiled.stages import damage_stage
from battlesim.ecs.damage import ATTACK, PREVENTION, REACTIONS, RETALIATE


@damage_stage("toy", "ward", PREVENTION, reads=("ward",))
def ward(w, b, queue, qlen, i, cols):
    """Ward: damage to a warded unit is halved (rounded down)."""
    if w.i16[cols[0], b, queue[b, i, TARGET]] > 0:
        queue[b, i, AMOUNT] = queue[b, i, AMOUNT] // 2


@damage_stage("toy", "health_before", 299, reads=("health", "before"))
def health_before(w, b, queue, qlen, i, cols):
    """Writes down the target's health just before application (priority 299 < 300)."""
    t = queue[b, i, TARGET]
    w.i16[cols[1], b, t] = w.i16[cols[0], b, t]


@damage_stage("toy", "thorns", REACTIONS, reads=("thorns",))
def thorns(w, b, queue, qlen, i, cols):
    """Thorns X: a unit dealt attack damage deals X back to the attacker."""
    x = w.i16[cols[0], b, queue[b, i, TARGET]]
    if x > 0 and queue[b, i, KIND] & ATTACK and queue[b, i, DEALT] > 0:
        push(queue, qlen, b, queue[b, i, TARGET], queue[b, i, SOURCE], x, RETALIATE)


@damage_stage("toy", "echo", REACTIONS + 10, reads=("echo",))
def echo(w, b, queue, qlen, i, cols):
    """Echo: every hit on this unit hits it again for 0 (a chain of reactions with no end)."""
    t = queue[b, i, TARGET]
    if w.i16[cols[0], b, t] > 0:
        push(queue, qlen, b, t, t, 0, RETALIATE)


@damage_stage("toy", "source_health_after", REACTIONS + 50, reads=("health", "after"))
def source_health_after(w, b, queue, qlen, i, cols):
    """Writes down the dealer's health once the reactions before it (priority 450) are done."""
    s = queue[b, i, SOURCE]
    if s >= 0:
        w.i16[cols[1], b, s] = w.i16[cols[0], b, s]
'''
LAYOUT = {"health": 0, "ward": 1, "before": 2, "thorns": 3, "echo": 4, "after": 5}


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """numba's cache directory (and so the engines') in a temp dir: what NUMBA_CACHE_DIR sets."""
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "numba"))
    return tmp_path / "numba"


@pytest.fixture
def plugin(tmp_path: Path):
    path = tmp_path / "ward_plugin.py"
    path.write_text(PLUGIN)
    with isolated():
        load_plugins([str(path)])
        yield path


def test_plugin_stages_run_in_priority_order_with_the_built_in_ones(cache_dir: Path, plugin: Path) -> None:
    err = io.StringIO()
    engine = build("toy", stderr=err)
    assert [s.name for s in engine.stages] == ["ward", "health_before", "apply_health", "thorns", "echo",
                                               "source_health_after"]
    assert [s.source for s in engine.stages] == ["ward_plugin", "ward_plugin", "built-in"] + ["ward_plugin"] * 3
    assert engine.path.is_relative_to(cache_dir / "battlesim")
    assert err.getvalue().startswith("compiling the toy engine (first run)...")
    assert err.getvalue().count("\n") == 1

    w = toy_state(2, 5, i16_rows=len(LAYOUT))
    comp = w.i16  # [component, game, slot]
    comp[0, :, :] = 10  # health
    comp[1, 1, 2] = 1  # game 1: the target (slot 2) has ward
    comp[3, :, 2] = 3  # and thorns 3, in both games
    queue, qlen, stack = new_queue(2, 8)
    for b in range(2):
        assert push(queue, qlen, b, 0, 2, 7, COMBAT | ATTACK)  # slot 0 attacks slot 2 for 7
    cols = engine.columns(LAYOUT)
    status = [engine.module.run_damage(w, b, queue, qlen, 0, cols, stack) for b in range(2)]

    assert comp[0, 0, 2] == 3 and comp[0, 1, 2] == 7  # ward (prevention) ran before application: 7 // 2
    assert comp[2, 0, 2] == 10 and comp[2, 1, 2] == 10  # 299 ran before application (300)
    # thorns (reaction, after application) pushed 3 back at the attacker, which the built-in
    # application applied; a RETALIATE row does not set thorns off again
    assert status == [OK, OK] and list(qlen) == [2, 2]
    assert comp[0, 0, 0] == 7 and comp[0, 1, 0] == 7
    assert queue[0, 1, SOURCE] == 2 and queue[0, 1, TARGET] == 0 and queue[0, 1, KIND] == RETALIATE
    assert queue[0, 1, DEALT] == 3
    # depth first, as the numpy pipeline: the pushed row went through every stage before the
    # stage after thorns (450) ran on the row that set it off, so that stage saw the attacker hurt
    assert comp[5, 0, 0] == 7 and comp[5, 1, 0] == 7


def test_endless_reactions_and_a_full_queue_stop_with_an_error(cache_dir: Path, plugin: Path) -> None:
    engine = build("toy")
    cols = engine.columns(LAYOUT)
    for capacity, want in ((64, TOO_DEEP), (8, QUEUE_FULL)):
        w = toy_state(1, 3, i16_rows=len(LAYOUT))
        w.i16[0, 0, :] = 10
        w.i16[4, 0, 1] = 1  # echo on slot 1
        queue, qlen, stack = new_queue(1, capacity)
        push(queue, qlen, 0, 0, 1, 1, COMBAT)
        assert engine.module.run_damage(w, 0, queue, qlen, 0, cols, stack) == want


def test_equal_priorities_run_by_name_then_source(cache_dir: Path, tmp_path: Path) -> None:
    # ecs/damage.py's DamagePipeline order: the same in every process, whatever the import order
    path = tmp_path / "tie_plugin.py"
    path.write_text(textwrap.dedent('''
        from battlesim.ecs.compiled.stages import damage_stage

        @damage_stage("toy", "zz_first_declared", 300)
        def zz(w, b, queue, qlen, i, cols):
            pass

        @damage_stage("toy", "aa_second_declared", 300)
        def aa(w, b, queue, qlen, i, cols):
            pass
    '''))
    with isolated():
        load_plugins([str(path)])
        names = [s.name for s in cstages.stages_of("toy")]
    assert names == ["aa_second_declared", "apply_health", "zz_first_declared"]
    assert "apply_health" in [s.name for s in cstages.stages_of("hex")]  # the engine's stage: every ruleset
    # isolated() unloaded the plugin: its stages are no longer part of any pipeline
    assert "zz_first_declared" not in [s.name for s in cstages.stages_of("toy")]


def test_compiled_application_equals_the_numpy_stage_with_repeated_targets() -> None:
    """The compiled twin of ecs/damage.py's apply_to_health: same health, dealt and excess,
    several instances on one target applying in row order."""
    g = np.random.default_rng(0)
    B, S, n = 40, 6, 9
    health = g.integers(-2, 12, size=(B, S)).astype(np.int16)
    game = np.repeat(np.arange(B), n)
    target = g.integers(0, 3, size=B * n)  # few targets: many repeats
    amount = g.integers(-3, 9, size=B * n)
    world = SimpleNamespace(c=SimpleNamespace(health=health.copy()), n_slots=S, n_games=B)
    batch = DamageBatch(game, np.full(B * n, -1), target, amount, COMBAT)
    apply_to_health(world, batch)

    w = toy_state(B, S, i16_rows=1)
    w.i16[0] = health
    queue, qlen, stack = new_queue(B, n)
    cols = np.zeros(MAX_READS, dtype=np.int64)
    for r in range(B * n):
        push(queue, qlen, game[r], -1, target[r], amount[r], COMBAT)
    for b in range(B):
        for i in range(n):
            apply_health(w, b, queue, qlen, i, cols)  # the plain function: numba's subset is Python
    assert np.array_equal(w.i16[0], world.c.health)
    assert np.array_equal(queue[:, :, DEALT].reshape(-1), batch.dealt)
    assert np.array_equal(queue[:, :, EXCESS].reshape(-1), batch.excess)
    assert np.array_equal(queue[:, :, AMOUNT].reshape(-1), amount)


def test_a_stage_with_the_wrong_signature_is_refused_naming_its_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad_plugin.py"
    path.write_text("from battlesim.ecs.compiled.stages import damage_stage\n\n\n"
                    "@damage_stage('toy', 'bad', 100)\ndef bad(w, b, queue):\n    pass\n")
    want = (r"bad_plugin\.py:\d+: damage stage 'bad' must take \(w, b, queue, qlen, i, cols\); "
            r"it takes \(w, b, queue\)")
    with isolated(), pytest.raises(PluginError, match=want):
        load_plugins([str(path)])


def test_a_stage_not_in_a_file_is_refused() -> None:
    # cache=True caches only functions defined in real files (DESIGN.md "Rules of the road")
    scope: dict = {}
    exec("def made_up(w, b, queue, qlen, i, cols):\n    pass\n", scope)
    with pytest.raises(PluginError, match="not defined in a file"):
        cstages.damage_stage("toy", "made_up", 100)(scope["made_up"])


def test_another_source_cannot_take_a_stage_name() -> None:
    with pytest.raises(PluginError, match="'apply_health' is already declared by built-in"):
        cstages.add_stage(cstages.CompiledStage("apply_health", 300, apply_health, ("health",), "toy", "someone"))


def test_columns_name_a_component_the_state_lacks(cache_dir: Path) -> None:
    engine = build("toy")
    assert engine.columns({"health": 4})[0, 0] == 4
    with pytest.raises(PluginError, match="'apply_health' \\(built-in\\) reads 'health'"):
        engine.columns({"armor": 0})


def test_a_constant_a_stage_reads_is_in_the_engine_hash(plugin: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """numba freezes a global constant's value into the machine code, and the constant may live
    in a file the hash does not read (thorns reads RETALIATE from ecs/damage.py): its value is
    written into the engine's text, so a change of it names a new engine."""
    stages = cstages.stages_of("toy")
    files = dependency_files(stages)
    before = engine_source("toy", stages)
    thorns = next(s.fn for s in stages if s.name == "thorns")
    assert f"{thorns.__module__}.RETALIATE = {RETALIATE}" in before
    monkeypatch.setitem(thorns.__globals__, "RETALIATE", RETALIATE * 2)  # what an edit of the constant gives
    after = engine_source("toy", stages)
    assert f"{thorns.__module__}.RETALIATE = {RETALIATE * 2}" in after
    assert engine_hash(after, files) != engine_hash(before, files)


def test_a_stage_reading_a_name_through_the_wrong_buffer_is_one_line(cache_dir: Path, tmp_path: Path) -> None:
    """``anchor`` is a tag (w.flags): read as ``w.i16[cols[0]]`` it would silently be whatever
    int16 component has the same row number."""
    path = tmp_path / "wrong_buffer_plugin.py"
    path.write_text(textwrap.dedent('''
        from battlesim.ecs.compiled.damage_queue import AMOUNT, TARGET
        from battlesim.ecs.compiled.stages import damage_stage

        @damage_stage("toy", "anchors_halve", 100, reads=("health", "anchor"))
        def anchors_halve(w, b, queue, qlen, i, cols):
            t = queue[b, i, TARGET]
            if w.i16[cols[0], b, t] > 0 and w.i16[cols[1], b, t]:
                queue[b, i, AMOUNT] = queue[b, i, AMOUNT] // 2
    '''))
    with isolated():
        load_plugins([str(path)])
        engine = build("toy")
        want = (r"wrong_buffer_plugin\.py:8: damage stage 'anchors_halve' reads 'anchor' through "
                r"w\.i16\[cols\[1\], \.\.\.\]; it lives in w\.flags")
        with pytest.raises(PluginError, match=want):
            engine.columns({"health": 0, "anchor": 0})
        path.write_text(path.read_text().replace("w.i16[cols[1], b, t]", "w.flags[cols[1], b, t]"))
    with isolated():
        load_plugins([str(path)])
        assert build("toy").columns({"health": 2, "anchor": 5})[0, :2].tolist() == [2, 5]


def _allocating(n):
    return np.zeros(n, dtype=np.int64).sum()


def test_rebound_code_runs_without_reference_counting_unless_it_says_it_allocates() -> None:
    # DESIGN.md "Rules of the road": "allocate once per chunk, never in hot code"; rebound phases
    # compile without numba's reference counting, and one that must allocate says so (@allocates)
    from battlesim.ecs.compiled.codegen import allocates, rebind

    machine: dict = {}
    with pytest.raises(numba.core.errors.TypingError, match="Only accept returning of array passed into the function"):
        rebind(_allocating, machine)(3)  # numba's words for "no allocation without reference counting"
    marked = allocates(lambda n: np.zeros(n, dtype=np.int64).sum())
    assert rebind(marked, machine)(3) == 0

"""The compiled plugin API (DESIGN.md "Plugins": "A plugin declares components, keywords, statuses,
triggers, opcodes, selectors, damage stages, systems and agents with ecs.plugin, writing the
compiled parts as plain Python in numba's subset against the documented signatures. The engine
generates one module per (ruleset, plugin set), hash-named, cached."): declared on
``extend(ruleset)``, checked at declaration in one line, forgotten by ``isolated()``, in the
engine's hash, run by the engine in priority order."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import numpy as np
import pytest

from battlesim.ecs.compiled.damage_queue import KIND, SOURCE, TARGET, new_queue, push
from battlesim.ecs.compiled.engine import build
from battlesim.ecs.compiled.stages import stages_of
from battlesim.ecs.compiled.world_view import toy_state
from battlesim.ecs.damage import ATTACK, COMBAT, REACTIONS, RETALIATE
from battlesim.ecs.plugin import PluginError, extend, isolated, load_plugins
from battlesim.ecs.ruleset import get_ruleset

ROOT = Path(__file__).resolve().parents[1]
FROST_THORNS = ROOT / "examples" / "keyword-plugin" / "frost_thorns"

STAGE = '''
from battlesim.ecs.compiled.damage_queue import AMOUNT, TARGET
from battlesim.ecs.plugin import extend

toy = extend("toy")


@toy.compiled_damage_stage("halve", 100, reads=("ward",))
def halve(w, b, queue, qlen, i, cols):
    """Ward: damage to a warded unit is halved."""
    if w.i16[cols[0], b, queue[b, i, TARGET]] > 0:
        queue[b, i, AMOUNT] = queue[b, i, AMOUNT] // 2
'''


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "numba"))
    return tmp_path / "numba"


def _plugin(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(body))
    return path


BAD = {
    # what the plugin writes -> the one line it gets (after "<file>:<line>: ")
    "stage_signature": ("@toy.compiled_damage_stage('s', 100)\ndef s(w, b, queue):\n    pass\n",
                        "damage stage 's' must take (w, b, queue, qlen, i, cols); it takes (w, b, queue)"),
    "opcode_signature": ("@toy.compiled_opcode('zap')\ndef zap(w, b, hits):\n    return 0\n",
                         "opcode 'zap' must take (w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at); "
                         "it takes (w, b, hits)"),
    "selector_signature": ("@toy.compiled_selector('near')\ndef near(w, b, ctx):\n    return 0\n",
                           "selector 'near' must take (w, g, rng, b, ctx, nctx, tbl, e, cols, out); "
                           "it takes (w, b, ctx)"),
    # no game loop runs these yet: refused rather than declared and never called
    "system_phase": ("toy.declare_phases(['combat'])\n@toy.compiled_system('combat', 5)\n"
                     "def brawl(st, f, cols, b, g, rng, m):\n    return 0\n",
                     "toy system 'brawl' in phase 'combat': no game loop runs a plugin's compiled system yet; "
                     "declare it with extend('toy').system (an esper Processor over the whole batch, run between "
                     "the compiled systems)"),
    "agent": ("@toy.compiled_agent('coward')\ndef coward(st, f, cols, rng, b, seat, legal_row, scratch):\n    return 0\n",
              "toy agent 'coward': no game loop calls a plugin's compiled agent yet; declare it with "
              "battlesim.ecs.plugin.agent (it decides through the step API, once per batch of pending decisions)"),
    "priority": ("@toy.compiled_damage_stage('s', '100')\ndef s(w, b, queue, qlen, i, cols):\n    pass\n",
                 "damage stage 's': priority must be an integer (got '100')"),
    "reads": ("@toy.compiled_damage_stage('s', 100, reads='health')\ndef s(w, b, queue, qlen, i, cols):\n    pass\n",
              "damage stage 's': reads must be a tuple of names (got 'health')"),
    "engine_stage_name": ("@toy.compiled_damage_stage('apply_health', 300)\ndef s(w, b, queue, qlen, i, cols):\n"
                          "    pass\n", "toy damage stage 'apply_health' is already declared by built-in"),
    "nested": ("def outer():\n    def inner(w, b, queue, qlen, i, cols):\n        pass\n    return inner\n"
               "toy.compiled_damage_stage('s', 100)(outer())\n",
               "damage stage 's': outer.<locals>.inner must be a module-level function"),
    "reserved": ("@toy.compiled_system()\ndef drain(st, f, cols, b, g, rng, m):\n    return 0\n",
                 "system name 'drain' is reserved"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_compiled_declaration_is_one_line_naming_its_file_and_line(tmp_path: Path, case: str) -> None:
    body, message = BAD[case]
    head = "from battlesim.ecs.plugin import extend\n\ntoy = extend('toy')\n"
    path = tmp_path / f"bad_{case}.py"
    path.write_text(head + body)
    with isolated(), pytest.raises(PluginError) as e:
        load_plugins([str(path)])
    text = str(e.value)
    assert "\n" not in text
    assert text.endswith(message), text
    assert text.startswith(f"{path}:") or text.startswith(f"--plugin {path}") or "nested" == case


def test_a_compiled_part_not_in_a_file_is_refused() -> None:
    # DESIGN.md "Rules of the road": "cache=True caches only functions defined in real files"
    scope: dict = {}
    exec("def made_up(w, b, queue, qlen, i, cols):\n    pass\n", scope)
    with isolated(), pytest.raises(PluginError, match="is not defined in a file"):
        extend("toy").compiled_damage_stage("made_up", 100)(scope["made_up"])


def test_another_plugin_cannot_take_a_compiled_name(tmp_path: Path) -> None:
    a = _plugin(tmp_path, "a_halve", STAGE)
    b = _plugin(tmp_path, "b_halve", STAGE)
    with isolated(), pytest.raises(PluginError, match=r"b_halve\.py:\d+: toy damage stage 'halve' is already "
                                                      r"declared by a_halve$"):
        load_plugins([str(a), str(b)])


def test_compiled_declarations_are_forgotten_by_isolated(tmp_path: Path) -> None:
    path = _plugin(tmp_path, "everything", '''
        from battlesim.ecs.plugin import extend

        toy = extend("toy")
        toy.declare_phases(["combat"])


        @toy.compiled_damage_stage("halve", 100)
        def halve(w, b, queue, qlen, i, cols):
            pass


        @toy.compiled_opcode("zap")
        def zap(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
            return 0


        @toy.compiled_selector("near")
        def near(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
            return 0


        @toy.compiled_system()
        def brawl(st, b):
            return 0
    ''')
    with isolated():
        load_plugins([str(path)])
        toy = extend("toy")
        assert [s.name for s in stages_of("toy")] == ["halve", "apply_health"]
        assert [p.name for p in toy.compiled_pieces_of("opcode")] == ["zap"]
        assert [p.name for p in toy.compiled_pieces_of("selector")] == ["near"]
        assert list(toy.compiled_systems) == ["brawl"]
        assert {toy.compiled_stages["halve"].source, toy.compiled_systems["brawl"].source} == {"everything"}
        assert "zap" in toy.executor.opcodes, "a plugin's compiled opcode is a word card files may name"
    toy = extend("toy")
    assert [s.name for s in stages_of("toy")] == ["apply_health"]
    assert not toy.compiled_pieces and not toy.compiled_systems and "zap" not in toy.executor.opcodes


NUMPY_PARTS = {
    "stage": ('@lanes.damage_stage("sting", 415)\ndef sting(world, batch):\n    pass\n',
              "lanes damage stage 'sting' is a numpy-engine part, which no game plays any more: declare it with "
              "extend('lanes').compiled_damage_stage"),
    "opcode": ('@lanes.opcode("zap", doc="zap")\ndef zap(world, hit):\n    pass\n',
               "lanes opcode 'zap' is a numpy-engine part, which no game plays any more: declare it with "
               "extend('lanes').compiled_opcode"),
    "selector": ('@lanes.selector("near", doc="near")\ndef near(world, ctx, table, e):\n    pass\n',
                 "lanes selector 'near' is a numpy-engine part, which no game plays any more: declare it with "
                 "extend('lanes').compiled_selector"),
    "handler": ('@lanes.on("on_death")\ndef count(world, ctx):\n    pass\n',
                "lanes trigger handler on 'on_death': Python run on every firing is gone with the numpy engine"),
}


@pytest.mark.parametrize("part", sorted(NUMPY_PARTS))
def test_a_numpy_part_from_a_plugin_is_refused_in_one_line(tmp_path: Path, part: str) -> None:
    # issue 13, "One engine": no game plays the numpy engine, so a plugin's numpy stage, opcode,
    # selector or trigger handler would be silently ignored; it is refused, naming file and line
    body, message = NUMPY_PARTS[part]
    path = _plugin(tmp_path, f"numpy_{part}", "from battlesim.ecs.plugin import extend\nlanes = extend('lanes')\n" + body)
    with isolated():
        get_ruleset("lanes")
        with pytest.raises(PluginError) as e:
            load_plugins([str(path)])
    text = str(e.value)
    assert "\n" not in text and message in text
    assert f"numpy_{part}.py:3" in text  # the declaration (its decorator line)


CHILL_CARD = """
[[cards]]
name = "Chill Mage"
type = "unit"
faction = "Blue"
rarity = "Common"
tier = 1
cost = 2
attack = 1
health = 2
text = "On play: chill."
effects = [{ trigger = "on_play", op = "chill", select = "all_enemies", amount = 1 EXTRA}]
"""


def test_a_plugin_compiled_opcode_is_a_word_card_files_may_name(tmp_path: Path) -> None:
    """A card file may name a plugin's compiled opcode (``op = "chill"``), checked against the
    ``params`` it declared like a built-in's: the vocabulary has it, without a numpy kernel."""
    from battlesim.ecs.datafiles import DataError

    for extra, ok in ((', stat = "attack" ', True), (', keyword = "taunt" ', False)):
        cards = tmp_path / f"cards_{ok}"
        cards.mkdir()
        (cards / "chill.toml").write_text(CHILL_CARD.replace("EXTRA", extra))
        path = _plugin(tmp_path, f"chill_{ok}", f'''
            from battlesim.ecs.plugin import extend

            @extend("lanes").compiled_opcode("chill", params=("stat",))
            def chill(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
                """Chill X: nothing yet."""
                return 0

            extend("lanes").card_files(cards={str(cards)!r})
        ''')
        with isolated():
            get_ruleset("lanes")
            load_plugins([str(path)])
            op = extend("lanes").executor.opcodes["chill"]
            assert (op.fn, op.params, op.source, op.doc) == (None, ("stat",), f"chill_{ok}", "Chill X: nothing yet.")
            if ok:
                assert "Chill Mage" in get_ruleset("lanes").load().cards.specs
            else:
                with pytest.raises(DataError, match="op 'chill' takes no 'keyword'"):
                    get_ruleset("lanes").load()


def test_the_example_plugin_declares_its_keywords_stages_compiled() -> None:
    with isolated():
        get_ruleset("lanes", [str(FROST_THORNS)])
        lanes = extend("lanes")
        for name, priority in (("frostbite", REACTIONS + 5), ("thorns", REACTIONS + 15)):
            assert lanes.compiled_stages[name].priority == priority
            assert lanes.compiled_stages[name].source == "frost_thorns"
            assert name not in lanes.stages  # no numpy part
        rows = [r for r in lanes.vocabulary() if r["kind"] == "damage_stage" and r["source"] == "frost_thorns"]
        assert [r["name"] for r in rows] == ["frostbite", "thorns"]


def test_a_plugin_keyword_gets_its_own_machine_and_shares_the_game_loop() -> None:
    """A plugin that adds damage stages changes the machine module only: the game module (phases
    and loop, minutes to compile) is the built-in one, and each engine's ``Resolution`` carries
    its own machine's address (ecs/compiled/unlinked.py)."""
    with isolated():
        get_ruleset("lanes")
        plain = build("lanes")
    with isolated():
        get_ruleset("lanes", [str(FROST_THORNS)])
        frost = build("lanes")
    assert plain.path != frost.path and "thorns" in frost.path.read_text() and "thorns" not in plain.path.read_text()
    assert plain.game_plan is not None and frost.game_plan is not None
    assert plain.game_plan.path == frost.game_plan.path
    a, b = plain.address_table(), frost.address_table()
    recorded = int((a != 0).sum())
    assert recorded == int((b != 0).sum())  # every signature the game module recorded, for each machine
    assert recorded == 0 or not np.array_equal(a[:recorded], b[:recorded])  # two machines, two addresses


def test_the_engine_hash_changes_when_a_plugin_is_added_or_edited(cache_dir: Path, tmp_path: Path) -> None:
    # DESIGN.md "Plugins": "one module per (ruleset, plugin set), hash-named"
    with isolated():
        bare = build("toy").path
    path = _plugin(tmp_path, "halving", STAGE)
    with isolated():
        load_plugins([str(path)])
        added = build("toy").path
        assert "halving.halve" in added.read_text()  # (read now: the next build prunes older engines)
    path.write_text(path.read_text().replace("// 2", "// 3"))
    with isolated():
        load_plugins([str(path)])
        edited = build("toy").path
    assert len({bare, added, edited}) == 3

    # a worker (another process) that loads the same plugin builds the same engine
    code = ("import sys; from battlesim.ecs.plugin import load_plugins; "
            "from battlesim.ecs.compiled.engine import build; "
            f"load_plugins([{str(path)!r}]); print(build('toy', stderr=sys.stderr).path)")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(edited)
    assert "first run" not in out.stderr  # the same engine module, found in the cache


def frost_thorns_engine(stage_names: tuple[str, ...]):
    """The lanes engine of ``stage_names`` (lanes' and frost_thorns' compiled stages, run order),
    a ``WorldState`` of 2 games x 4 slots with every name they read, and its ``cols``."""
    stages = [s for s in stages_of("lanes") if s.name in stage_names]
    engine = build("lanes", stages=stages)
    layout = {"health": 0, "retaliate": 1, "thorns": 2, "frostbite": 3, "equipment": 4, "stunned": 5,
              "anchor": 0, "improvement": 1, "card.kw_retaliate": 0, "card.kw_thorns": 1, "card.kw_frostbite": 2}
    return engine, layout


def _state(B: int, S: int):
    w = toy_state(B, S, i16_rows=6, flag_rows=2)
    w = w._replace(cat=np.zeros((3, 2), dtype=np.int64))  # card.kw_* by card id; -1 (no item) reads 0
    w.i16[4] = -1  # nobody holds an item
    w.i16[0] = 10  # health
    return w


def test_plugin_stages_run_in_the_engine_in_priority_order(cache_dir: Path) -> None:
    """frost_thorns' compiled stages in the lanes engine: thorns (415) after retaliate (410),
    frostbite (405) stuns what a frostbite attack damaged, returned damage never bounces back."""
    with isolated():
        get_ruleset("lanes", [str(FROST_THORNS)])
        engine, layout = frost_thorns_engine(("apply_health", "retaliate", "frostbite", "thorns"))
        assert [s.name for s in engine.stages] == ["apply_health", "frostbite", "retaliate", "thorns"]
        w = _state(1, 4)
        w.i16[3, 0, 0] = 2  # slot 0: frostbite 2
        w.i16[1, 0, 1], w.i16[2, 0, 1] = 1, 3  # slot 1: retaliate 1, thorns 3
        queue, qlen, stack = new_queue(1, 8)
        push(queue, qlen, 0, 0, 1, 4, COMBAT | ATTACK)  # slot 0 attacks slot 1 for 4
        assert engine.module.run_damage(w, 0, queue, qlen, 0, engine.columns(layout), stack) == 0
        thorns_kind = extend("lanes").compiled_stages["thorns"].fn.__globals__["THORNS"]
    assert int(qlen[0]) == 3
    # retaliate's row resolved (every stage) before thorns ran on the attack: rows in that order
    assert [int(queue[0, r, KIND]) for r in (1, 2)] == [RETALIATE, thorns_kind]
    assert all(int(queue[0, r, SOURCE]) == 1 and int(queue[0, r, TARGET]) == 0 for r in (1, 2))
    assert w.i16[0, 0, 1] == 6 and w.i16[0, 0, 0] == 10 - 1 - 3  # 4 taken; 1 + 3 back
    assert w.i16[5, 0, 1] == 2 and w.i16[5, 0, 0] == 0  # stunned 2 by frostbite, the attacker not


FX = '''
from battlesim.ecs.compiled.interpreter import H_AMOUNT, H_TARGET, OK
from battlesim.ecs.plugin import extend

fx = extend("toy_fx")


@fx.compiled_selector("odd_slots")
def odd_slots(w, g, rng, b, ctx, nctx, tbl, e, cols, out):
    """Slots 1 and 3, for every firing row."""
    n = 0
    for r in range(nctx):
        for s in (1, 3):
            out[n, 0] = r
            out[n, 1] = s
            n += 1
    return n


@fx.compiled_opcode("chill", reads=("chill",))
def chill(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """Chill X: X chill stacks on each target."""
    for i in range(nh):
        w.i16[cols[0], b, hits[i, H_TARGET]] += hits[i, H_AMOUNT]
    return OK
'''


def test_a_plugin_opcode_and_selector_fire_through_the_machine(cache_dir: Path, tmp_path: Path) -> None:
    """A card whose effect is ``op = "chill", select = "odd_slots", amount = 2``, fired once by the
    engine's resolution machine: the plugin's selector picks the targets, its opcode runs on them."""
    from battlesim.ecs.compiled import interpreter as it
    from battlesim.ecs.compiled.machine import ARENA_ROWS, FW, MAX_FRAMES, Resolution, work_tables

    path = _plugin(tmp_path, "fx_plugin", FX)
    with isolated():
        load_plugins([str(path)])
        engine = build("toy_fx")
        pieces = it.interpreter_pieces("toy_fx")
        w = toy_state(1, 4, i16_rows=2)
        tbl = np.full((it.T_PARAMS, 2, 1), -1, dtype=np.int64)
        tbl[it.T_TRIGGER, 0, 0], tbl[it.T_OP, 0, 0], tbl[it.T_SELECT, 0, 0] = 0, 0, 0
        tbl[it.T_AMOUNT, :, 0] = 0
        tbl[it.T_AMOUNT, 0, 0] = 2
        queue, qlen, _ = new_queue(1, 16)
        m = Resolution(queue, qlen, np.zeros((MAX_FRAMES, FW), dtype=np.int64),
                       np.zeros((ARENA_ROWS, it.WIDTH), dtype=np.int64), tbl,
                       it.id_maps(pieces, ["chill"], ["odd_slots"]), it.columns(pieces, {"chill": 1}),
                       engine.columns({"health": 0}), np.full(4, -1, dtype=np.int64), engine.address_table(), work_tables(4))
        ctx = np.full((1, it.NCTX), -1, dtype=np.int64)
        ctx[0, it.C_CARD], ctx[0, it.C_OWNER] = 0, 0
        status = engine.module.fire(w, (np.zeros(1, dtype=np.int64),), np.zeros((1, 2), dtype=np.uint64), 0, m, 0,
                                    ctx, 1)
    assert status == it.OK
    assert w.i16[1, 0].tolist() == [0, 2, 0, 2]

"""The compiled effect interpreter (ecs/compiled/interpreter.py, machine.py, systems/lanes/compiled/
opcodes.py, damage_opcodes.py and selectors.py) against the numpy Executor, firing by firing.

Real games are played with the numpy engine on several deck pairs; every top-level
``Executor.fire`` is captured (the World's arrays before, the firing's rows, the arrays after),
with everything it set off: the damage its opcodes dealt, the "On Damage Taken" firings inside
that damage, their damage in turn. Each firing is replayed, game by game, on a copy of the World
set to the "before" arrays with the engine's ``fire`` (the resolution machine), and every
component array, presence mask, ``alive``, ``serial``, ``_next_serial``, per-game field and RNG
counter must equal the "after" arrays. Every captured firing counts: none is excluded.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

import numba
import numpy as np
import pytest
from compiled_replay import Replayer, changed, lanes_engine, restore, snapshot

from battlesim.ecs.compiled import interpreter as it
from battlesim.ecs.compiled.damage_queue import new_queue
from battlesim.ecs.compiled.engine import build
from battlesim.ecs.compiled.interpreter import NCTX, OK, UNPORTED, EffectError
from battlesim.ecs.compiled.machine import ARENA_ROWS, FW, MAX_FRAMES, Resolution, work_tables
from battlesim.ecs.compiled.world_view import toy_state
from battlesim.ecs.decisions import make_agent
from battlesim.systems.lanes import compiled  # noqa: F401  (registers the compiled opcodes, selectors, phases)
from battlesim.systems.lanes.vocabulary import EXECUTOR

DECK_PAIRS = [("red_vanguard", "blue_tide"), ("green_grove", "black_covenant"),
              ("red_blue_tempest", "green_black_rot"), ("blue_green_wardens", "red_black_raiders")]
GAMES_PER_PAIR = 64
BATCH = 16
_CTX = ("card", "owner", "lane", "pos", "source", "caster", "chosen", "chosen_lane", "other")  # the C_* order
DAMAGE_OPCODES = {"damage", "battle", "strike", "battle_blocker", "battle_adjacent", "caster_strike"}


@pytest.fixture(scope="module", name="engine")
def _engine(tmp_path_factory):
    yield from lanes_engine(tmp_path_factory)


def capture(lanes, decks: tuple[str, str], seeds: np.ndarray, monkeypatch: pytest.MonkeyPatch):
    """Play ``seeds`` with the numpy engine; returns the World as set up (before any round) and
    the top-level firings ``(trigger, ctx, before, after, nested, ran)`` of the games (``ran``:
    the opcodes whose numpy kernel ran)."""
    w = lanes.new_world(seeds, decks, [make_agent("random"), make_agent("random")])
    start = w.copy()
    fired: list[tuple] = []
    nested = [0]
    ran: set[str] = set()
    real = EXECUTOR.fire

    def kernel(name, fn):
        def run(world, hit):
            ran.add(name)
            return fn(world, hit)
        return run

    def spy(world, trigger, ctx):
        if EXECUTOR.depth > 0 or not world.effects.uses(EXECUTOR.id("trigger", trigger)):
            nested[0] += EXECUTOR.depth > 0
            return real(world, trigger, ctx)
        if callable(ctx):
            ctx = ctx()
        before, n0 = snapshot(world), nested[0]
        ran.clear()
        real(world, trigger, ctx)
        fired.append((trigger, ctx, before, snapshot(world), nested[0] > n0, frozenset(ran)))

    with monkeypatch.context() as m:
        m.setattr(EXECUTOR, "fire", spy)
        for name, op in list(EXECUTOR.opcodes.items()):
            m.setitem(EXECUTOR.opcodes, name, replace(op, fn=kernel(name, op.fn)))
        m.delattr(EXECUTOR, "_lists_cache", raising=False)
        lanes.run_reference(w)
    EXECUTOR.__dict__.pop("_lists_cache", None)  # it held the spies
    return start, fired


def replay(rep: Replayer, trigger: str, ctx, before: dict[str, np.ndarray]) -> int:
    """The firing on the replay World set to ``before``, game by game (each is independent);
    returns the first status that is not OK."""
    rep.set(before)
    tid = EXECUTOR.id("trigger", trigger)
    rows = np.stack([getattr(ctx, f) for f in _CTX], axis=1).astype(np.int64)
    for b in dict.fromkeys(ctx.game.tolist()):
        mine = np.ascontiguousarray(rows[ctx.game == b])
        status = rep.fire(b, tid, mine)
        if status != OK:
            return status
    return OK


@pytest.mark.differential  # numpy twin against compiled kernel: opt-in (pyproject.toml)
def test_compiled_firings_equal_the_numpy_executor(lanes, engine, monkeypatch) -> None:
    """Every captured firing leaves the World exactly as the numpy Executor did, the damage its
    opcodes dealt and the firings nested in that damage included; a few hundred games over four
    deck pairs."""
    ported = {p.name for p in it.pieces_of("lanes", "opcode")}
    covered, moved, nested_firings, by_op = 0, 0, 0, Counter()
    for pair, decks in enumerate(DECK_PAIRS):
        for start in range(0, GAMES_PER_PAIR, BATCH):
            seeds = np.arange(start, start + BATCH, dtype=np.int64) + 10_000 * pair
            world, fired = capture(lanes, decks, seeds, monkeypatch)
            rep = Replayer(engine, world)
            for trigger, ctx, before, after, nested, used in fired:
                # card -1 has no effects compiled (numpy would index the last card): never fired
                assert (ctx.card >= 0).all()
                status = replay(rep, trigger, ctx, before)
                assert status == OK and used <= ported, (trigger, status, sorted(used))
                diff = rep.differences(after)
                assert not diff, f"{decks} seeds {seeds[0]}..: {trigger} ({sorted(used)}) differs in {diff}"
                covered += 1
                moved += changed(before, after)
                nested_firings += nested
                by_op.update(used)
    print(f"\ncompiled effects: {covered} firings replayed identically, none excluded ({moved} changed the "
          f"World, {nested_firings} with firings nested in their damage); opcode kernels run in them {dict(by_op)}")
    assert covered > 5000 and nested_firings > 20  # the games reach the machine's nesting, not only flat firings
    assert DAMAGE_OPCODES - {"battle_adjacent", "strike"} <= set(by_op), by_op
    assert moved >= covered // 2  # the replays compare real changes, not two untouched Worlds


def _synthetic_ctx(w, card: int, seed: int):
    """One firing row per game of World ``w`` for ``card``, from its board as it stands: the
    owner and lane vary by game; the source is the owner's first unit in that lane (else none,
    as for a spell), the chosen target the first unit of the side the game's parity picks."""
    from battlesim.ecs.effects import Ctx

    B = w.n_games
    game = np.arange(B)
    owner, lane = (game + seed) % 2, (game + seed) % 3
    source, pos, chosen = np.full(B, -1), np.full(B, -1), np.full(B, -1)
    for b in range(B):
        cells = w.g.board[b, owner[b], lane[b]]
        if (cells >= 0).any():
            source[b] = cells[cells >= 0][0]
            pos[b] = w.c.pos[b, source[b]]
        side = owner[b] if (b + seed) % 4 == 0 else 1 - owner[b]
        units = w.g.board[b, side].reshape(-1)
        if (units >= 0).any():
            chosen[b] = units[units >= 0][(b + seed) % np.count_nonzero(units >= 0)]
    return Ctx.make(game, np.full(B, card), owner, lane, pos, source=source, caster=source, chosen=chosen,
                    chosen_lane=lane)


# lanes.md: "Battle - Two units deal their attack damage to each other simultaneously" (battle, battle_blocker)
# lanes.md: "Strike - One unit deals its attack damage to another (one-way damage)" (strike, caster_strike)
# lanes.md: "Uses current attack values (including buffs/debuffs)" (unit_stats.attack_of, read per step)
# lanes.md: "Respects First Strike - unit with First Strike deals damage first" (damage_opcodes.exchange)
# lanes.md: "Respects Armor and Shield" (through the damage stages)
# lanes.md: "Triggers on-damage effects" (the machine fires "On Damage Taken" inside)
# lanes.md: "Does NOT trigger "On Attack" effects (those only fire during combat phase)"
# lanes.md: "Some effects deal damage while moving (e.g., "deal 1 damage to each enemy passed")"
@pytest.mark.differential  # numpy twin against compiled kernel: opt-in (pyproject.toml)
def test_every_card_effect_on_mid_game_boards(lanes, engine, monkeypatch) -> None:
    """Each card's effects, fired on each of its triggers for every game of mid-game boards (as
    real games left them), by numpy and compiled: identical. This reaches the opcodes that random
    games rarely fire (push with passing damage, strike, battle_adjacent...)."""
    start, fired = capture(lanes, DECK_PAIRS[0], np.arange(BATCH, dtype=np.int64) + 77, monkeypatch)  # boards
    table = start.effects
    rep = Replayer(engine, start.copy(), table)
    numpy_world = start.copy()
    ops = list(EXECUTOR.opcodes)
    boards = [fired[k][2] for k in np.linspace(len(fired) // 4, len(fired) - 1, 3).astype(int)]
    ran, compared = Counter(), 0
    for card in range(len(start.catalog)):
        for tid in np.unique(table.trigger[card][table.trigger[card] >= 0]):
            used = {ops[int(o)] for o in table.op[card][table.trigger[card] == tid]}
            trigger = list(EXECUTOR.triggers)[int(tid)]
            for k, before in enumerate(boards):
                restore(numpy_world, before)
                numpy_world.rng.counter[...] = before["rng"]
                numpy_world.cache.pop("aura_sources", None)
                ctx = _synthetic_ctx(numpy_world, card, card + k)
                EXECUTOR.fire(numpy_world, trigger, ctx)
                after = snapshot(numpy_world)
                assert replay(rep, trigger, ctx, before) == OK
                diff = rep.differences(after)
                assert not diff, f"card {card}: {trigger} ({sorted(used)}) differs in {diff}"
                compared += 1
                if changed(before, after):
                    ran.update(used)
    print(f"\nsynthetic firings: {compared} identical; opcodes of firings that changed a World: {dict(ran)}")
    assert {"push", "gain_resources", "destroy_improvement", "summon", "bounce"} | DAMAGE_OPCODES <= set(ran), ran

# A plugin's opcodes whose effects trigger each other forever (echo) or flood the queue (burst).
TOY_PLUGIN = '''
from battlesim.ecs.compiled.events import push_event
from battlesim.ecs.compiled.interpreter import H_CARD, H_OWNER, H_SOURCE, OK, compiled_opcode


@compiled_opcode("toy_effects", "echo")
def echo(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """Fires trigger 0 of the same card again: effects that never settle."""
    for i in range(nh):
        push_event(w.events, w.nevents, b, 0, hits[i, H_CARD], hits[i, H_SOURCE], 0, -1, hits[i, H_OWNER], 0, 0)
    return OK


@compiled_opcode("toy_effects", "burst")
def burst(w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at):
    """Pushes more events than the queue holds."""
    for i in range(w.events.shape[1] + 1):
        push_event(w.events, w.nevents, b, 1, hits[0, H_CARD], -1, 0, -1, 0, 0, 0)
    return OK
'''


@pytest.fixture
def toy_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from battlesim.ecs.plugin import isolated, load_plugins

    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "numba"))
    path = tmp_path / "toy_effects_plugin.py"
    path.write_text(TOY_PLUGIN)
    with isolated():
        load_plugins([str(path)])
        yield build("toy_effects")


def _toy_fire(engine, op_name: str):
    """Card 0 has one effect: on trigger 0, opcode ``op_name`` (no selector); fire it once for
    game 0 through the engine's machine. Returns the status and the ``Resolution``."""
    pieces = it.interpreter_pieces("toy_effects")
    w = toy_state(1, 4)
    tbl = np.full((it.T_PARAMS, 2, 1), -1, dtype=np.int64)
    tbl[it.T_TRIGGER, 0, 0], tbl[it.T_OP, 0, 0], tbl[it.T_AMOUNT, :, 0] = 0, 0, 0
    queue, qlen, _ = new_queue(1, 16)
    m = Resolution(queue, qlen, np.zeros((MAX_FRAMES, FW), dtype=np.int64),
                   np.zeros((ARENA_ROWS, it.WIDTH), dtype=np.int64), tbl, it.id_maps(pieces, [op_name], []),
                   it.columns(pieces, {}), engine.columns({"health": 0}), np.full(4, -1, dtype=np.int64), engine.address_table(), work_tables(4))
    rng = np.zeros((1, 2), dtype=np.uint64)
    g = (np.zeros(1, dtype=np.int64),)
    ctx = np.full((1, NCTX), -1, dtype=np.int64)
    ctx[0, it.C_CARD], ctx[0, it.C_OWNER] = 0, 0
    return engine.module.fire(w, g, rng, 0, m, 0, ctx, 1), m


def test_effects_that_never_settle_stop_with_one_line_naming_seed_and_card(toy_engine) -> None:
    # DESIGN.md "Effects and triggers": "the queue drains until quiet, with a depth bound that
    # stops the game with an error naming its seed"
    # numpy's Executor: a 41st firing nested in the others is one too many
    status, m = _toy_fire(toy_engine, "echo")
    assert status == it.TOO_DEEP
    card = int(m.info[0])
    with pytest.raises(EffectError) as e:
        it.check(status, 1234, ["Echoing Idol"][card])
    assert str(e.value) == ("effects still triggering each other after 40 levels (card 'Echoing Idol', "
                            "game with seed 1234)")


def test_a_flooded_trigger_queue_stops_the_game_rather_than_losing_events(toy_engine) -> None:
    status, _ = _toy_fire(toy_engine, "burst")
    assert status == it.QUEUE_FULL
    with pytest.raises(EffectError, match=r"^trigger queue full \(card 'Storm', game with seed 7\)$"):
        it.check(status, 7, "Storm")


def test_an_opcode_with_no_compiled_twin_is_reported_not_skipped(toy_engine) -> None:
    pieces = it.interpreter_pieces("toy_effects")
    assert it.id_maps(pieces, ["echo", "heal"], [])[0].tolist() == [1, -1]  # by name: burst 0, echo 1
    status, _ = _toy_fire(toy_engine, "heal")
    assert status == UNPORTED


def test_a_piece_with_the_wrong_signature_is_one_line_naming_its_file(tmp_path: Path) -> None:
    from battlesim.ecs.plugin import PluginError, isolated, load_plugins

    path = tmp_path / "bad_opcode_plugin.py"
    path.write_text("from battlesim.ecs.compiled.interpreter import compiled_opcode\n\n\n"
                    "@compiled_opcode('toy_effects', 'bad')\ndef bad(w, b, hits):\n    return 0\n")
    with isolated(), pytest.raises(PluginError) as e:
        load_plugins([str(path)])
    assert f"{path}:4: opcode 'bad' must take (w, g, rng, b, hits, nh, tbl, cols, queue, qlen, at)" in str(e.value)
    assert "\n" not in str(e.value)

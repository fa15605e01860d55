"""The round's own phases compiled (systems/lanes/compiled/round.py) against their numpy twins:
real games, every call of each numpy system's ``process``, every game of the batch.

Each numpy system's ``process`` is wrapped: before it runs, every component buffer, ``alive``,
``serial``, ``active``, the next serials and every per-game field are copied; numpy runs; the
compiled twin then runs game by game on the copy, and every array is compared with what numpy
left (fields the compiled twin does not take must not have changed under numpy either).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import esper
import numpy as np
import pytest

from battlesim.ecs.compiled.world_view import world_view
from battlesim.ecs.decisions import make_agent
from battlesim.ecs.ruleset import get_ruleset
from battlesim.systems.lanes.compiled import round as compiled
from battlesim.systems.lanes.compiled.round import RoundFields, round_columns, round_fields
from battlesim.systems.lanes.compiled.shop import (
    BUY,
    DONE,
    SKIP,
    UPGRADED,
    ShopFields,
    apply_shop,
    legal_shop,
    shop_begin,
    shop_columns,
    shop_fields,
)
from battlesim.systems.lanes.measures import ObjectiveSnapshot
from battlesim.systems.lanes.round_start import CreepSpawn, DrawPhase, HeroAvailability, RefreshResources
from battlesim.systems.lanes.shop import ShopPhase
from battlesim.systems.lanes.victory import RoundEnd, VictoryCheck

PAIRS = [("red_vanguard", "blue_tide"), ("green_grove", "black_covenant"), ("red_blue_tempest", "green_black_rot"),
         ("blue_green_wardens", "red_black_raiders")]
TWINS: dict[type, Callable] = {CreepSpawn: compiled.creep_spawn, HeroAvailability: compiled.hero_availability,
                               DrawPhase: compiled.draw, RefreshResources: compiled.refresh_resources,
                               VictoryCheck: compiled.victory_check, ObjectiveSnapshot: compiled.objective_snapshot,
                               RoundEnd: compiled.round_end}
STATE = ("i16", "i8", "flags", "i16x2", "alive", "serial")


class Compared:
    """Every call compared; the first differences described; what the games went through counted."""

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}
        self.games: dict[str, int] = {}
        self.bad: list[str] = []
        self.seen: dict[str, int] = {}

    def count(self, what: str, n: int) -> None:
        self.seen[what] = self.seen.get(what, 0) + int(n)

    def check(self, w, system, run: Callable[[], None]) -> None:
        name = type(system).__name__
        view = world_view(w)
        st = view.state
        copy_st = st._replace(**{k: getattr(st, k).copy() for k in STATE})
        copy_f = RoundFields(*(a.copy() for a in round_fields(w, view)))
        other = {n: a.copy() for n, a in view.g.items() if n not in RoundFields._fields}
        before = RoundFields(*(a.copy() for a in copy_f))
        run()
        cols = round_columns(view)
        twin = TWINS[_numpy_type(system)]
        ended = np.zeros(w.n_games, dtype=bool)
        for b in range(w.n_games):
            ended[b] = bool(twin(copy_st, copy_f, cols, b))
        self.calls[name] = self.calls.get(name, 0) + 1
        self.games[name] = self.games.get(name, 0) + int(before.active.sum())
        where = f"{name} round {int(before.round.max())} seeds {int(w.seeds[0])}.."
        for k in STATE:
            if not np.array_equal(getattr(copy_st, k), getattr(st, k)):
                self.bad.append(f"{where}: {k} differs")
        now = round_fields(w, view)
        for k in RoundFields._fields:
            if not np.array_equal(getattr(copy_f, k), getattr(now, k)):
                self.bad.append(f"{where}: field {k} differs")
        for n, a in other.items():
            if not np.array_equal(a, view.g[n]):
                self.bad.append(f"{where}: numpy wrote field {n}, which the twin does not take")
        if isinstance(system, (VictoryCheck, RoundEnd)) and not np.array_equal(ended, before.active & ~now.active):
            self.bad.append(f"{where}: the games reported ended differ")
        self.tally(name, before, now)

    def tally(self, name: str, before: RoundFields, now: RoundFields) -> None:
        """What happened, so that the comparison is known to have met each case."""
        if name == "CreepSpawn":
            self.count("creeps spawned", (now.next_serial - before.next_serial).sum())
            self.count("lanes full", (before.board >= 0).all(axis=3)[before.active].sum())
        elif name == "HeroAvailability":
            changed = before.hero_status != now.hero_status
            self.count("heroes unlocked", (changed & (before.hero_status == 0)).sum())
            self.count("heroes respawned", (changed & (before.hero_status == 3)).sum())
        elif name == "DrawPhase":
            self.count("cards drawn", (now.deck_top - before.deck_top).sum())
            self.count("cards burned", (now.burned - before.burned).sum())
            self.count("empty decks asked", ((before.deck_top >= before.deck_size) & before.active[:, None]).sum())
        elif name == "RefreshResources":
            self.count("resources refilled", ((now.resources > before.resources) & before.active[:, None]).sum())
        elif name in ("VictoryCheck", "RoundEnd"):
            for reason in np.unique(now.end_reason[before.active & ~now.active]):
                self.count(f"{name} ended: reason {int(reason)}", (now.end_reason[before.active & ~now.active]
                                                                   == reason).sum())
        elif name == "ObjectiveSnapshot":
            self.count("snapshots", (now.objective_hp_snapshot[:, 0] != before.objective_hp_snapshot[:, 0]).sum())


def _numpy_type(system) -> type | None:
    """The numpy twin of a scheduled system (compiled/processors.py names each after its twin)."""
    return next((t for t in TWINS if t.__name__ == type(system).__name__), None)


@contextmanager
def processes_compared(lanes, seen: Compared) -> Iterator[None]:
    """Wrap the ``process`` of every numpy system with a compiled twin."""
    wrapped = []
    for _, systems in lanes.reference._order:
        for system in systems:
            numpy_type = _numpy_type(system)
            if numpy_type is not None:  # the scheduled system runs compiled: run its numpy twin's process
                def process(w, system=system, numpy_type=numpy_type):
                    seen.check(w, system, lambda: numpy_type.process(system, w))
                system.process = process
                wrapped.append(system)
    try:
        yield
    finally:
        for system in wrapped:
            del system.process


@pytest.fixture(scope="module")
def compared(lanes) -> Compared:
    seen = Compared()
    runs = [(pair, ("random", "random"), 64) for pair in PAIRS]
    runs += [(PAIRS[0], ("greedy", "greedy"), 32), (PAIRS[1][::-1], ("pass", "random"), 32),
             (PAIRS[2], ("random", "pass"), 32)]
    with processes_compared(lanes, seen):
        for i, (pair, agents, n) in enumerate(runs):
            lanes.play_reference(np.arange(n, dtype=np.int64) + 1000 * i, pair, [make_agent(a) for a in agents])
    # the cases shipped numbers rarely reach: the round limit, empty decks, full lanes, a low cap
    edge = get_ruleset("lanes").load(params={"round_limit": 7, "draw_per_round": 10, "anchor_hp": 300,
                                             "positions": 2, "resources_cap": 5})
    with processes_compared(edge, seen):
        edge.play_reference(np.arange(48, dtype=np.int64), PAIRS[3], [make_agent("random")] * 2)
    return seen


@pytest.mark.differential  # numpy twin against compiled kernel: opt-in (pyproject.toml)
def test_each_compiled_phase_leaves_the_world_numpy_leaves(compared):
    # lanes.md "Creep Spawning": "Each player spawns 1 creep per lane (3 total per player)"
    # lanes.md "Hero Deployment Phase": "At the start of the following round, the hero becomes available for redeployment"
    # lanes.md: "Draw Phase - Draw 1 card"; "After hero deployment, players draw their starting hand of 5 cards"
    # lanes.md "Resource System": "Resources fully refill at round start"
    # lanes.md "Win Condition": "Destroying 2 anchors across 2 different lanes, OR Destroying 1 anchor AND its essence in the same lane"
    assert set(compared.calls) == {t.__name__ for t in TWINS}
    assert min(compared.games.values()) > 300, compared.games
    assert not compared.bad, f"{len(compared.bad)} differences, first: " + "; ".join(compared.bad[:5])


@pytest.mark.differential  # numpy twin against compiled kernel: opt-in (pyproject.toml)
def test_the_games_met_each_case_of_the_round_phases(compared):
    """The comparison means something only if the games went through each case."""
    s = compared.seen
    for what in ("creeps spawned", "lanes full", "heroes unlocked", "heroes respawned", "cards drawn",
                 "cards burned", "empty decks asked", "resources refilled", "snapshots", "RoundEnd ended: reason 3"):
        assert s.get(what, 0) > 0, (what, s)
    assert s.get("VictoryCheck ended: reason 1", 0) + s.get("VictoryCheck ended: reason 2", 0) > 0, s
    print(s)


def test_a_game_with_no_free_slot_is_reported_not_spawned_into(lanes):
    """``World.allocate`` raises SlotsExhausted naming the seed; the compiled spawn returns NO_SLOT
    for the caller to do so, and writes nothing."""
    w = lanes.new_world(np.arange(2, dtype=np.int64), lanes.default_decks(), [make_agent("random")] * 2)
    view = world_view(w)
    w.alive[0] = True
    board = w.g.board.copy()
    f = round_fields(w, view)
    assert compiled.creep_spawn(view.state, f, round_columns(view), 0) == compiled.NO_SLOT
    assert compiled.creep_spawn(view.state, f, round_columns(view), 1) == 0
    assert (w.g.board[0] == board[0]).all() and (w.g.board[1] != board[1]).any()


def test_the_snapshot_counts_a_destroyed_lane_as_numpy_does(lanes):
    """A destroyed lane ends the game at once, so no real game records one at the snapshot: a
    constructed World (round 5, one lane ruined, one anchor fallen) against ``measures.objective_hp``."""
    from battlesim.systems.lanes.measures import SNAPSHOT_ROUND, objective_hp

    w = lanes.new_world(np.arange(2, dtype=np.int64), lanes.default_decks(), [make_agent("random")] * 2)
    view = world_view(w)
    w.g.round[:] = SNAPSHOT_ROUND
    w.c.ruined[0, 1] = True
    w.c.essence[0, 4] = True
    w.c.health[0, 4] = -3
    compiled.objective_snapshot(view.state, round_fields(w, view), round_columns(view), 0)
    # ledger "Interpretations": 0 for a destroyed lane; the essence's HP once the anchor has fallen
    assert (w.g.objective_hp_snapshot[0] == objective_hp(w, np.array([0]))[0]).all()
    assert w.g.objective_hp_snapshot[1, 0] == -1  # game 1 not asked


# -- the shop ------------------------------------------------------------------------------------

class ShopCompared:
    """Every ``begin``, ``request`` and ``apply`` of the numpy shop against the compiled kernels on
    a copy, with the RNG counters and the replay events (``lanes.shop_skip``, ``lanes.buy``,
    ``lanes.upgrade``) numpy dispatched."""

    def __init__(self) -> None:
        self.bad: list[str] = []
        self.seen: dict[str, int] = {}
        self.events: list[tuple] = []
        self._handlers = {name: (lambda *a, name=name: self.events.append((name, a[1:])))
                          for name in ("lanes.shop_skip", "lanes.buy", "lanes.upgrade")}  # strong refs: esper keeps weak ones

    def count(self, what: str, n: int) -> None:
        self.seen[what] = self.seen.get(what, 0) + int(n)

    def copies(self, w):
        view = world_view(w)
        f = shop_fields(w, view)
        rng = np.stack([w.rng._keys, w.rng.counter], axis=1).astype(np.uint64)
        return view, ShopFields(*(a.copy() for a in f)), rng

    def same(self, w, view, f, rng, where: str) -> None:
        now = shop_fields(w, view)
        for k in ShopFields._fields:
            if not np.array_equal(getattr(f, k), getattr(now, k)):
                self.bad.append(f"{where}: field {k} differs")
        if not np.array_equal(rng[:, 1], w.rng.counter):
            self.bad.append(f"{where}: RNG counters differ")

    def begin(self, phase, w) -> None:
        view, f, rng = self.copies(w)
        ShopPhase.begin(phase, w)
        cols = shop_columns(view, phase.actions)
        for b in range(w.n_games):
            shop_begin(view.state, f, cols, rng, b)
        self.same(w, view, f, rng, f"begin seeds {int(w.seeds[0])}..")
        self.count("shops opened", w.active.sum())

    def request(self, phase, w, games):
        actor, legal = ShopPhase.request(phase, w, games)
        view = world_view(w)
        cols = shop_columns(view, phase.actions)
        f = shop_fields(w, view)
        row = np.zeros(legal.shape[1], dtype=np.bool_)
        for i, b in enumerate(games):
            seat = legal_shop(view.state, f, cols, int(b), row)
            if seat != actor[i] or not np.array_equal(row, legal[i]):
                self.bad.append(f"request seed {int(w.seeds[b])}: seat {seat}/{int(actor[i])}, rows differ")
        A = phase.actions
        self.count("buys legal", legal[:, A.buy_slice].any(axis=1).sum())
        self.count("buys illegal for gold or room", (~legal[:, A.buy_slice] & (w.g.offers[games, actor] >= 0)).any(axis=1).sum())
        self.count("upgrades legal", legal[:, A.upgrade].sum())
        return actor, legal

    def apply(self, phase, w, games, actor, actions) -> None:
        view, f, rng = self.copies(w)
        self.events.clear()
        for name, h in self._handlers.items():
            esper.set_handler(name, h)
        try:
            ShopPhase.apply(phase, w, games, actor, actions)
        finally:
            for name, h in self._handlers.items():
                esper.remove_handler(name, h)
        cols = shop_columns(view, phase.actions)
        got = {}
        for b, seat, a in zip(games, actor, actions):
            got[int(b)] = apply_shop(view.state, f, cols, rng, int(b), int(seat), int(a))
        self.same(w, view, f, rng, f"apply seeds {int(w.seeds[0])}..")
        expected = {int(b): (DONE, 0) for b in games}
        code = {"lanes.shop_skip": SKIP, "lanes.buy": BUY, "lanes.upgrade": UPGRADED}
        for name, args in self.events:
            values = args[2] if len(args) > 2 else np.zeros(len(args[0]), dtype=np.int64)
            for b, v in zip(args[0], values):
                expected[int(b)] = (code[name], int(v))
        if got != expected:
            self.bad.append(f"apply seeds {int(w.seeds[0])}..: reported {got} != numpy's {expected}")
        for what, n in zip(("done", "skip", "buy", "upgrade"), np.bincount([g[0] for g in got.values()], minlength=4)):
            self.count(what, n)


@contextmanager
def shop_compared(lanes, seen: ShopCompared) -> Iterator[None]:
    phase = next(s for _, systems in lanes.reference._order for s in systems if type(s).__name__ == "ShopPhase")
    phase.begin = lambda w: seen.begin(phase, w)
    phase.request = lambda w, games: seen.request(phase, w, games)
    phase.apply = lambda w, games, actor, actions: seen.apply(phase, w, games, actor, actions)
    try:
        yield
    finally:
        del phase.begin, phase.request, phase.apply


@pytest.fixture(scope="module")
def shopped(lanes) -> ShopCompared:
    seen = ShopCompared()
    runs = [(pair, ("random", "random"), 48) for pair in PAIRS] + [(PAIRS[0], ("greedy", "random"), 32)]
    with shop_compared(lanes, seen):
        for i, (pair, agents, n) in enumerate(runs):
            lanes.play_reference(np.arange(n, dtype=np.int64) + 500 * i, pair, [make_agent(a) for a in agents])
    return seen


@pytest.mark.differential  # numpy twin against compiled kernel: opt-in (pyproject.toml)
def test_the_compiled_shop_leaves_the_world_numpy_leaves(shopped):
    # lanes.md: "Each player is presented with 3 equipment items to choose from"
    # lanes.md: "Buy - Purchase items from the selection (costs gold) - can buy multiple items"
    # lanes.md: "Upgrade Shop - FREE - Unlock higher tier items and reshuffle offerings (forfeits +5 skip bonus, once per shop phase)"
    # lanes.md: "Skip - Pass on buying, gain +5 gold (only if no upgrade and no buy)"
    assert not shopped.bad, f"{len(shopped.bad)} differences, first: " + "; ".join(shopped.bad[:5])
    s = shopped.seen
    for what in ("shops opened", "buys legal", "buys illegal for gold or room", "upgrades legal", "done", "skip",
                 "buy", "upgrade"):
        assert s.get(what, 0) > 0, (what, s)
    print(s)


# -- setup -----------------------------------------------------------------------------------------

def test_the_compiled_setup_makes_the_games_new_world_makes(lanes):
    """``setup_game`` on a fresh World against ``state.new_world``: four decks (one cut short, so
    that the shuffle's padding sorts last), mixed per game, 256 seeds with the int64 extremes.
    lanes.md: "At the start of the game, initiative is randomly assigned to one player"."""
    import dataclasses

    from battlesim.ecs.world import World
    from battlesim.systems.lanes import state
    from battlesim.systems.lanes.compiled.setup import setup_columns, setup_fields, setup_game, setup_tables

    decks = [lanes.cards.deck(name) for name in (PAIRS[0][0], PAIRS[1][1], PAIRS[2][0])]
    decks.append(dataclasses.replace(decks[1], main=decks[1].main[:31], equipment=decks[1].equipment[:4]))
    B = 256
    seeds = np.arange(B, dtype=np.int64) * 7919 - 99
    seeds[:2] = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    deck_index = np.random.default_rng(5).integers(0, len(decks), size=(B, 2)).astype(np.int16)
    w = state.new_world(lanes.cards, lanes.params, seeds, decks, deck_index)

    p = lanes.params
    D = max(int(d.main.size) for d in decks)
    M = max(max(int(d.equipment.size) for d in decks), 1)
    fresh = World(B, w.n_slots, state.components(), state.state_fields(p, D, M), seeds=seeds, catalog=lanes.cards.catalog,
                  params=p)
    view = world_view(fresh)
    rng = np.stack([fresh.rng._keys, fresh.rng.counter], axis=1).astype(np.uint64)
    f = setup_fields(fresh, view)
    tables = setup_tables(decks, D, M)
    cols = setup_columns(view)
    for b in range(B):
        setup_game(view.state, f, cols, tables, deck_index, rng, b)
    done = world_view(w)
    for k in STATE:
        assert np.array_equal(getattr(view.state, k), getattr(done.state, k)), k
    for name in w.state_fields:
        assert np.array_equal(view.g[name], done.g[name]), name
    assert np.array_equal(fresh._next_serial, w._next_serial)
    assert np.array_equal(rng[:, 1], w.rng.counter)
    assert (w.g.deck[deck_index[:, 0] == 3, 0, 31:] == -1).all()  # the padding sorted last
    assert len(np.unique(w.g.initiative)) == 2


# -- round triggers at the trigger boundary ---------------------------------------------------------

@pytest.mark.differential  # numpy twin against compiled kernel: opt-in (pyproject.toml)
def test_round_triggers_push_the_rows_numpy_fires(lanes):
    """Every firing of "start_of_round" / "end_of_round" by ``fire_all`` in real games against the
    events ``fire_round_trigger`` pushes for each game from the same World at that moment.
    lanes.md: "Start of Round - Triggers at the beginning of each round (after creep spawn, before
    play phase)"; "End of Round - Triggers at end of round (after shop phase)"."""
    from battlesim.ecs.compiled import events as ev
    from battlesim.systems.lanes.compiled.round import ROUND_TRIGGERS, fire_round_trigger, round_trigger_rows
    from battlesim.systems.lanes.vocabulary import EXECUTOR

    bad, fired = [], {t: 0 for t in (*ROUND_TRIGGERS, "an improvement's lane")}
    original = type(EXECUTOR).fire

    def fire(w, trigger, ctx):
        if trigger in ROUND_TRIGGERS:
            c = ctx() if callable(ctx) else ctx
            cards, params = round_trigger_rows(w)
            view = world_view(w, extra_cards=cards, extra_params=params)
            st, f, cols = view.state, round_fields(w, view), round_columns(view)
            tid, listens = view.param_index[f"trigger.{trigger}"], view.cat_rows[f"listens.{trigger}"]
            for b in range(w.n_games):
                fire_round_trigger(st, f, cols, b, int(st.params[tid]), listens)
            rows = set()
            for b in range(w.n_games):
                for e in st.events[b, :st.nevents[b]]:
                    rows.add((b, *(int(x) for x in e[:ev.NEV])))  # every field, an improvement's lane chosen
            want = {(int(b), EXECUTOR.id("trigger", trigger), int(card), int(s), int(w.serial[b, s]), -1, int(o),
                     int(lane), int(pos), int(caster), int(chosen), int(chosen_lane))
                    for b, card, s, o, lane, pos, caster, chosen, chosen_lane
                    in zip(c.game, c.card, c.source, c.owner, c.lane, c.pos, c.caster, c.chosen, c.chosen_lane)}
            fired["an improvement's lane"] += sum(1 for r in want if r[-1] >= 0)
            order_ok = all(list(st.events[b, :st.nevents[b], ev.SOURCE]) == sorted(st.events[b, :st.nevents[b], ev.SOURCE])
                           for b in range(w.n_games))
            if rows != want or not order_ok:
                bad.append(f"{trigger} seeds {int(w.seeds[0])}..: {sorted(rows ^ want)[:3]}")
            fired[trigger] += len(want)
            ctx = c
        return original(EXECUTOR, w, trigger, ctx)

    EXECUTOR.fire = fire
    try:
        for i, pair in enumerate(PAIRS):
            lanes.play_reference(np.arange(48, dtype=np.int64) + 300 * i, pair, [make_agent("random")] * 2)
    finally:
        del EXECUTOR.fire
    assert not bad, bad[:3]
    assert all(n > 0 for n in fired.values()), fired

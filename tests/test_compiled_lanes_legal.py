"""The play phase's legal actions compiled (systems/lanes/compiled/legal.py) against the numpy
request (PlayPhase.request): real games, every request, every game of it, row for row.

Each request of the numpy PlayPhase is intercepted as it is made: the compiled row is computed
from the same World at the same moment (before the agent answers and the World moves on), which
is what a deep copy of the World captured then would hold, without copying it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
import pytest

from battlesim.ecs.compiled.world_view import ViewError, regroup, world_view
from battlesim.ecs.decisions import make_agent
from battlesim.systems.lanes import play
from battlesim.systems.lanes.cards import EQUIPMENT
from battlesim.systems.lanes.compiled.legal import legal_columns, legal_play, legal_rows, play_fields
from battlesim.systems.lanes.play import PlayPhase
from battlesim.systems.lanes.targets import ENEMY_UNIT

PAIRS = [("red_vanguard", "blue_tide"), ("green_grove", "black_covenant"), ("red_blue_tempest", "green_black_rot"),
         ("blue_green_wardens", "red_black_raiders")]


def play_phase(lanes) -> PlayPhase:
    return next(s for _, systems in lanes.reference._order for s in systems if isinstance(s, PlayPhase))


@contextmanager
def requests_seen(lanes, see: Callable) -> Iterator[None]:
    """Call ``see(w, games, actor, legal)`` on every request of the numpy play phase, before the
    agent answers it."""
    phase = play_phase(lanes)

    def request(w, games):
        actor, legal = PlayPhase.request(phase, w, games)
        see(w, games, actor, legal)
        return actor, legal

    phase.request = request
    try:
        yield
    finally:
        del phase.request


def compiled_rows(w, games: np.ndarray, actor: np.ndarray) -> np.ndarray:
    """The compiled legal rows of the listed games (the numpy request's shape)."""
    view = world_view(w)
    out = np.zeros((games.size, w.actions.size), dtype=np.bool_)
    legal_rows(view.state, play_fields(view), legal_columns(view, w.actions, w.equip_keywords),
               games.astype(np.int64), actor.astype(np.int64), out)
    return out


class Differences:
    """Every request compared; the first few differing games described; coverage counted."""

    def __init__(self) -> None:
        self.requests = self.rows = 0
        self.bad: list[str] = []
        self.pending: dict[int, int] = {}
        self.blocks: dict[str, int] = {}

    def __call__(self, w, games, actor, legal) -> None:
        got = compiled_rows(w, games, actor)
        self.requests += 1
        self.rows += games.size
        for k in np.flatnonzero((got != legal).any(axis=1))[:3]:
            diff = np.flatnonzero(got[k] != legal[k])
            self.bad.append(f"seed {int(w.seeds[games[k]])} round {int(w.g.round[games[k]])} pending "
                            f"{int(w.g.pending_kind[games[k]])}: " + ", ".join(
                                f"{w.actions.describe(a)} numpy={bool(legal[k, a])}" for a in diff[:4]))
        for kind, n in zip(*np.unique(w.g.pending_kind[games], return_counts=True)):
            self.pending[int(kind)] = self.pending.get(int(kind), 0) + int(n)
        for name, sl in w.actions.slices.items():
            self.blocks[name] = self.blocks.get(name, 0) + int(legal[:, sl].any(axis=1).sum())
        self.blocks["pass"] = self.blocks.get("pass", 0) + int(legal[:, 0].sum())


@pytest.fixture(scope="module")
def compared(lanes) -> Differences:
    return compare_games(lanes)


def compare_games(lanes) -> Differences:
    """A few hundred games: random vs random on four deck pairs, greedy vs greedy, greedy vs
    random, with the decks both ways round."""
    seen = Differences()
    runs = [(pair, ("random", "random"), 64) for pair in PAIRS]
    runs += [(PAIRS[0], ("greedy", "greedy"), 48), (PAIRS[1][::-1], ("greedy", "random"), 48),
             (PAIRS[2], ("random", "greedy"), 48)]
    with requests_seen(lanes, seen):
        for i, (pair, agents, n) in enumerate(runs):
            lanes.play_reference(np.arange(n, dtype=np.int64) + 1000 * i, pair, [make_agent(a) for a in agents])
    return seen


@pytest.mark.differential  # numpy twin against compiled kernel: opt-in (pyproject.toml)
def test_the_compiled_rows_equal_the_numpy_rows_in_every_game_of_every_request(compared):
    assert compared.requests > 1000 and compared.rows > 20_000
    assert not compared.bad, f"{len(compared.bad)} differing games, first: " + "; ".join(compared.bad[:5])


@pytest.mark.differential  # numpy twin against compiled kernel: opt-in (pyproject.toml)
def test_the_games_asked_every_decision_kind_of_the_play_phase(compared):
    """The comparison means something only if each kind of decision came up: plays, abilities,
    activations, pass, and pending unit, spell, ability, activation and caster targets."""
    # lanes.md "Play Phase": "Play a card", "Use an ability", "Pass"; "Activated Improvements"
    assert all(compared.blocks[name] > 0 for name in ("pass", "play", "target", "ability", "activate"))
    assert compared.blocks["deploy"] == compared.blocks["buy"] == compared.blocks["upgrade"] == 0
    kinds = (play.PENDING_NONE, play.PENDING_UNIT, play.PENDING_SPELL, play.PENDING_ABILITY,
             play.PENDING_ACTIVATE, play.PENDING_CASTER)
    assert all(compared.pending.get(k, 0) > 0 for k in kinds), compared.pending


@pytest.mark.differential  # numpy twin against compiled kernel: opt-in (pyproject.toml)
def test_a_copied_world_regrouped_gives_the_same_rows(lanes):
    """A captured request (a deep copy of the World, as benches keep) is read after ``regroup``."""
    taken = []

    def keep(w, games, actor, legal):
        if len(taken) < 40:
            taken.append((w.copy(), games.copy(), actor.copy(), legal.copy()))

    with requests_seen(lanes, keep):
        lanes.play_reference(np.arange(16, dtype=np.int64), lanes.default_decks(), [make_agent("random")] * 2)
    for w, games, actor, legal in taken:
        with pytest.raises(ViewError):
            world_view(w)
        regroup(w)
        assert (compiled_rows(w, games, actor) == legal).all()


def test_pass_is_illegal_while_a_target_is_pending(lanes):
    """ledger: a card or ability aiming at a unit asks for the target next; the player may not
    pass instead. Pending unit target with no unit to aim at: no action at all."""
    w = lanes.new_world(np.arange(2, dtype=np.int64), lanes.default_decks(), [make_agent("random")] * 2)
    view = world_view(w)
    cols = legal_columns(view, w.actions, w.equip_keywords)
    row = np.ones(w.actions.size, dtype=np.bool_)
    w.g.pending_kind[0] = play.PENDING_SPELL
    w.g.pending_card[0] = next(c for c in range(len(w.catalog)) if w.catalog.arrays.target[c] == ENEMY_UNIT)
    w.g.board[0] = -1
    legal_play(view.state, play_fields(view), cols, 0, 0, row)
    assert not row.any()
    w.g.pending_kind[0] = play.PENDING_NONE
    legal_play(view.state, play_fields(view), cols, 0, 0, row)
    assert row[0]  # lanes.md: "Pass - Skip your turn without playing a card"


def first_request(lanes) -> tuple:
    """A deep copy of the World at the first request of a small batch (regrouped), and its games
    and seats."""
    taken = []

    def keep(w, games, actor, legal):
        if not taken:
            taken.append((w.copy(), games.copy(), actor.copy()))

    with requests_seen(lanes, keep):
        lanes.play_reference(np.arange(4, dtype=np.int64), lanes.default_decks(), [make_agent("random")] * 2)
    w, games, actor = taken[0]
    regroup(w)
    return w, games, actor


@pytest.mark.differential  # numpy twin against compiled kernel: opt-in (pyproject.toml)
def test_stealth_granted_by_an_item_hides_its_holder_as_numpy_reads_it(lanes):
    """lanes.md "Stealth - Cannot be targeted", through held equipment (``stats.keyword_flat``):
    no shipped item grants stealth, so an item is made to, in a copy of the catalog."""
    w, games, actor = first_request(lanes)
    b, seat = int(games[0]), int(actor[0])
    cat = w.catalog.arrays
    enemy = w.g.board[b, 1 - seat].reshape(-1)
    cell = int(np.flatnonzero(enemy >= 0)[0])
    holder = int(enemy[cell])
    item = int(np.flatnonzero(cat.kind == EQUIPMENT)[0])
    w.catalog = copy.deepcopy(w.catalog)
    w.catalog.arrays.kw_stealth[item] = True
    w.equip_keywords = set(w.equip_keywords) | {"stealth"}
    w.c.equipment[b, holder] = item
    w.c.stealth[b, holder] = False
    w.c.untargetable[b, holder] = 0
    w.g.pending_kind[b] = play.PENDING_SPELL
    w.g.pending_card[b] = next(c for c in range(len(w.catalog)) if cat.target[c] == ENEMY_UNIT and cat.range[c] == 1)
    target = w.actions.target_base + (1 - seat) * w.actions.L * w.actions.P + cell
    g, a = np.array([b]), np.array([seat])
    for hidden in (True, False):
        w.cache.clear()
        w.catalog.arrays.kw_stealth[item] = hidden
        _, legal = PlayPhase.request(play_phase(lanes), w, g)  # the numpy request (the scheduled one is compiled)
        got = compiled_rows(w, g, a)
        assert (got == legal).all() and got[0, target] != hidden


def test_a_component_in_another_group_is_an_error_naming_it(lanes):
    w = lanes.new_world(np.arange(2, dtype=np.int64), lanes.default_decks(), [make_agent("random")] * 2)
    view = world_view(w)
    view.columns["stealth"] = ("i16", view.columns["stealth"][1])
    with pytest.raises(ViewError, match="'stealth'"):
        legal_columns(view, w.actions, w.equip_keywords)

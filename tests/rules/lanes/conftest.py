"""Shared fixtures for the lanes rules tests (shared/rules/lanes.md).

Boards are built through the esper bridge (DESIGN.md "esper's part": "Tests and scenario
files build boards this way"): ``put`` snapshots one game into an esper world, adds one
entity as esper components, and loads the game back (``load`` replaces every entity of the
game, anchors included, which is why the snapshot comes first).

Helpers are handed out as fixtures (the test modules have no ``__init__.py``, so they do
not import this file).
"""

from __future__ import annotations

import esper
import numpy as np
import pytest

from battlesim.ecs.decisions import PassAgent, make_agent
from battlesim.ecs.esper_bridge import C, load, snapshot
from battlesim.systems.lanes.compiled.processors import PlayPhase
from battlesim.systems.lanes.state import ON_BOARD

DECKS = ("red_vanguard", "blue_tide")


@pytest.fixture(scope="session")
def game(lanes):
    """The lanes ruleset with its default parameters, cards and decks (tests/conftest.py)."""
    return lanes


class Script:
    """A scripted agent: ``fn(world, games, seat, legal) -> int[n]``; every call is logged.

    With no ``fn`` it behaves like the pass agent (pass when legal, else the first legal
    action), so a game against it still completes its mandatory hero deployments.
    """

    def __init__(self, fn=None, name: str = "script") -> None:
        self.fn = fn
        self.name = name
        self.calls: list[dict] = []

    @classmethod
    def playing(cls, *actions: int) -> "Script":
        """A single-game script that takes ``actions`` in order, each checked to be legal."""
        todo = list(actions)

        def fn(world, games, seat, legal):
            a = todo.pop(0)
            assert legal[0, a], f"scripted action {a} is not legal"
            return [a]

        return cls(fn)

    def act(self, world, games, seat, legal):
        self.calls.append({
            "round": world.g.round[games].copy(),
            "games": games.copy(),
            "seat": seat,
            "legal": legal.copy(),
            "board": world.g.board[games].copy(),
            "hand": world.g.hand[games].copy(),
            "resources": world.g.resources[games].copy(),
            "max_resources": world.g.max_resources[games].copy(),
            "initiative": world.g.initiative[games].copy(),
            "hero_status": world.g.hero_status[games].copy(),
            "in_play": world.g.in_play[games].copy(),  # a play-phase decision
        })
        if self.fn is None:
            return PassAgent().act(world, games, seat, legal)
        return np.asarray(self.fn(world, games, seat, legal), dtype=np.int64)


@pytest.fixture
def new_world(game):
    """``new_world(n=1, agents=None, decks=DECKS, g=game)``: n fresh games, seeds 0..n-1.
    A fresh world holds the six anchors only (slots 0..5) and is in round 1."""

    def make(n: int = 1, agents=None, decks=DECKS, g=None, seeds=None):
        g = g or game
        agents = agents or [make_agent("pass"), make_agent("pass")]
        seeds = np.arange(n) if seeds is None else np.asarray(seeds)
        return g.new_world(seeds, decks, agents)

    return make


def _put(w, b, side, lane, pos, attack=1, health=1, *, hero=False, creep=False, card=None,
         hero_index=None, max_health=None, faction=None):
    """Add one unit to game ``b`` through the esper bridge; returns its slot.

    ``hero=True`` makes it roster hero ``hero_index`` (default 0) of ``side``: its card and
    faction come from the roster, and the roster marks it ON_BOARD.
    """
    cat = w.catalog
    if hero:
        k = 0 if hero_index is None else hero_index
        card = int(w.g.hero_card[b, side, k]) if card is None else card
    elif card is None:
        card = cat.id("Cinder Recruit") if side == 0 else cat.id("Ostland Lookout")
    if isinstance(card, str):
        card = cat.id(card)
    faction = int(cat.arrays.faction[card]) if faction is None else faction
    comps = [
        C.CardId(int(card)), C.Owner(int(side)), C.Faction(faction), C.Lane(int(lane)), C.Pos(int(pos)),
        C.Attack(int(attack)), C.Health(int(health)),
        C.MaxHealth(int(health if max_health is None else max_health)),
    ]
    if hero:
        comps += [C.Hero(), C.HeroIndex(int(k))]
    if creep:
        comps.append(C.Creep())
    name = snapshot(w, b)
    esper.create_entity(*comps)
    slots = load(w, b, name)
    if hero:
        w.g.hero_status[b, side, k] = ON_BOARD
    return int(slots[-1])


def _set_anchor(w, b, side, lane, health, *, essence=False, ruined=False):
    """Set one objective's state (its anchor entity) through the esper bridge."""
    name = snapshot(w, b)
    (ent,) = [e for e, (_, o, l) in esper.get_components(C.Anchor, C.Owner, C.Lane)
              if o.value == side and l.value == lane]
    esper.component_for_entity(ent, C.Health).value = health
    if essence or ruined:
        esper.add_component(ent, C.Essence())
        esper.component_for_entity(ent, C.MaxHealth).value = w.params.essence_hp
    if ruined:
        esper.add_component(ent, C.Ruined())
    load(w, b, name)


def _legal_plays(w, b, seat):
    """``bool[H, L, P]``: where seat may play each hand card in game ``b`` right now, as the
    play phase itself offers it to the agent (``PlayPhase.request``)."""
    A = w.actions
    w.g.to_act[b] = seat
    actor, legal = PlayPhase(A).request(w, np.array([b]))
    assert actor[0] == seat and legal[0, 0]  # passing is always legal
    assert not legal[0, A.deploy_slice].any()
    return legal[0, A.play_slice].reshape(A.H, A.L, A.P)


@pytest.fixture
def legal_plays():
    return _legal_plays


@pytest.fixture
def put():
    return _put


@pytest.fixture
def set_anchor():
    return _set_anchor


@pytest.fixture
def events():
    """``events(*names)`` -> dict name -> list of event argument tuples (and ``"_order"``:
    every event as ``(name, args)`` in dispatch order).

    esper keeps event handlers per esper world context and the bridge switches contexts, so
    call this *after* building boards; it switches to a fresh context of its own.
    """
    contexts = []

    def listen(*names):
        ctx = f"lanes-test-events-{len(contexts)}-{id(contexts)}"
        esper.switch_world(ctx)
        log = {n: [] for n in names}
        log["_order"] = []  # (name, args) of every event, in dispatch order
        fns = []
        for n in names:
            def fn(*args, _n=n):
                log[_n].append(args)
                log["_order"].append((_n, args))
            fns.append((n, fn))
            esper.set_handler(n, fn)
        contexts.append((ctx, fns))
        return log

    yield listen
    for ctx, fns in contexts:
        esper.switch_world(ctx)
        for n, fn in fns:
            esper.remove_handler(n, fn)
    esper.switch_world("default")
    for ctx, _ in contexts:
        esper.delete_world(ctx)


@pytest.fixture
def script():
    return Script

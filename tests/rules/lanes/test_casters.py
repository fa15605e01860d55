"""lanes.md "Faction Restrictions": "Cross-lane and global/no-lane spells use the caster's lane as
the origin (caster selection required if multiple valid heroes exist)".

Ledger, interpretation 28: with several heroes of the spell's faction in its origin lane the
player chooses the caster (a CASTER decision, answered with a TARGET-block entry naming the
hero's own cell; the action table keeps its size); with one it casts without a decision.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from battlesim.ecs.decisions import make_agent
from battlesim.systems.lanes.compiled.processors import PlayPhase
from battlesim.systems.lanes.play import PENDING_CASTER, PENDING_NONE, PENDING_SPELL
from battlesim.systems.lanes.scenario import load_scenario

G = np.array([0])

BOARD = """
ruleset = "lanes"
rule = "test"
units = [
  { side = 0, lane = 1, pos = 0, name = "Sage", attack = 9, health = 5, hero = true, faction = "Blue" },
  { side = 0, lane = 1, pos = 1, name = "Ember", attack = 2, health = 5, hero = true, faction = "Red" },
  { side = 0, lane = 1, pos = 3, name = "Blaze", attack = 5, health = 5, hero = true, faction = "Red" },
  { side = 1, lane = 1, pos = 4, name = "Target", attack = 3, health = 20 },
]

[players]
resources = [10, 10]
initiative = 0

[[cards]]
name = "Test Command"
type = "spell"
faction = "Red"
cost = 1
target = "enemy_unit"
effects = [{ trigger = "on_play", op = "caster_strike", select = "chosen" }]
"""


def _cast(game, tmp_path):
    """The board above with Test Command played from lane 1 by seat 0: ``(world, phase)``."""
    path = tmp_path / "casters.toml"
    path.write_text(textwrap.dedent(BOARD))
    sc = load_scenario(path, game=game)
    w, A = sc.w, game.actions
    w.g.hand[0, 0, 0] = sc.game.cards.catalog.id("Test Command")
    w.g.to_act[0] = 0
    phase = PlayPhase(A)
    actor, legal = phase.request(w, G)
    assert legal[0, A.play(0, 1, 0)]
    phase.apply(w, G, actor, np.array([A.play(0, 1, 0)]))
    return w, phase


def test_several_valid_heroes_make_the_caster_a_decision_of_the_same_player(game, tmp_path):
    # lanes.md: "caster selection required if multiple valid heroes exist"
    w, phase = _cast(game, tmp_path)
    A = game.actions
    assert w.g.pending_kind[0] == PENDING_CASTER
    actor, legal = phase.request(w, G)
    assert actor[0] == 0
    # the two Red heroes, not the Blue Sage; nothing else (no pass: the card is already played)
    assert np.flatnonzero(legal[0]).tolist() == [A.target(0, 1, 1), A.target(0, 1, 3)]
    assert int(w.g.initiative[0]) == 1  # "Playing a card passes initiative"
    phase.apply(w, G, actor, np.array([A.target(0, 1, 3)]))
    assert w.g.pending_kind[0] == PENDING_SPELL  # then the target, still the same player
    actor, legal = phase.request(w, G)
    assert actor[0] == 0 and np.flatnonzero(legal[0]).tolist() == [A.target(1, 1, 4)]
    phase.apply(w, G, actor, np.array([A.target(1, 1, 4)]))
    assert w.g.pending_kind[0] == PENDING_NONE
    assert w.c.health[0, w.g.board[0, 1, 1, 4]] == 15  # Blaze's 5, the chosen caster's attack
    assert (int(w.g.to_act[0]), int(w.g.initiative[0])) == (1, 1)


@pytest.mark.parametrize("name", ["random", "greedy", "lookahead"])
def test_every_agent_takes_the_caster_decision(game, tmp_path, name):
    # lanes.md: "caster selection required if multiple valid heroes exist": agents choose a valid hero
    w, phase = _cast(game, tmp_path)
    A = game.actions
    _, legal = phase.request(w, G)
    choice = int(make_agent(name).act(w, G, 0, legal)[0])
    assert choice in (A.target(0, 1, 1), A.target(0, 1, 3))
    if name != "random":  # greedy (and lookahead, greedy outside the play phase's own choices): the harder hitter
        assert choice == A.target(0, 1, 3)


class AskedRandom:
    """A Python agent (no compiled twin, so the compiled loop asks it through the step API at
    every decision): uniform over the legal row from the game's own RNG, as the compiled random
    agent draws; it checks each row and counts the caster decisions it is asked."""

    name = "asked-random"

    def __init__(self, seen: dict[str, int]) -> None:
        self.seen = seen

    def act(self, world, games, seat, legal):
        from battlesim.ecs.rng import Stream

        assert legal.any(axis=1).all(), "a decision with no legal action"
        self.seen["caster"] += int((world.g.pending_kind[games] == PENDING_CASTER).sum())
        self.seen["asked"] += len(games)
        return world.rng.choice(games, legal, Stream.AGENT)


def test_random_games_ask_for_casters_and_always_offer_a_legal_action(game):
    # lanes.md: "caster selection required if multiple valid heroes exist": in played games the
    # decision comes up, and (like every decision) it always offers at least one legal action
    seen = {"caster": 0, "asked": 0}
    agents = [AskedRandom(seen), AskedRandom(seen)]
    game.play(np.arange(512, dtype=np.int64), game.default_decks(), agents)
    assert seen["asked"] > 512 and seen["caster"] > 0

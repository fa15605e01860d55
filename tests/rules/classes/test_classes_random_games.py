"""Random games of classes to their end, through the compiled random agent (``agent.py``), with
the invariants of issue 15 checked after every step (``invariants.violation``), and the
determinism contract (DESIGN.md: "a game's result depends only on its seed ... never on batch
size, batch mates")."""

from __future__ import annotations

import numpy as np
import pytest

from battlesim.systems.classes import games, invariants
from battlesim.systems.classes.ruleset import RULESET
from battlesim.systems.classes.state import G_WINNER, P_CAST, P_KILLS, P_POOL

PAIRS = [("paladin_vanguard", "warlock_pact"), ("warlock_legion", "paladin_bulwark"),
         ("paladin_bulwark", "paladin_vanguard"), ("warlock_pact", "warlock_legion")]


@pytest.fixture(scope="module")
def game():
    return RULESET.load()


@pytest.mark.parametrize("decks", PAIRS, ids=["-".join(p) for p in PAIRS])
def test_random_games_keep_every_invariant(game, decks) -> None:
    # issue 15 "Invariants over random games: at most one unit per field, mana conserved (pool +
    # track + on prepared spell + gained), life changes only by damage, experience below the level
    # maximum, conditions >= 0, a winner only when a life reaches 0 (or the turn-limit draw)"
    G, _, out = games.play(game, decks, np.arange(80), check=True)
    bad = {int(b): invariants.NAMES[v] if v < len(invariants.NAMES) else "a legal action was refused"
           for b, v in enumerate(out) if v}
    assert bad == {}
    results = [games.summary(G, b) for b in range(80)]
    # every game ended: a winner whose opponent is at 0, or a draw
    assert all(r["winner"] is not None or r["draw"] for r in results)
    assert all(r["life"][1 - r["winner"]] <= 0 for r in results if r["winner"] is not None)
    # the games are games: units die, levels rise, cards are cast
    assert G.pl[:, :, P_KILLS].sum() > 0 and G.pl[:, :, P_CAST].sum() > 0
    assert max(max(r["level"]) for r in results) > 1


def test_a_game_depends_only_on_its_seed(game) -> None:
    # DESIGN.md "Randomness and the determinism contract": never on batch size or batch mates
    decks = PAIRS[0]
    batch, _, _ = games.play(game, decks, np.array([11, 12, 13, 14]))
    alone, _, _ = games.play(game, decks, np.array([13]))
    again, _, _ = games.play(game, decks, np.array([13]))
    for name in ("g", "u", "pl", "hand", "nether", "area", "pw"):
        assert np.array_equal(getattr(batch, name)[2], getattr(alone, name)[0]), name
        assert np.array_equal(getattr(again, name)[0], getattr(alone, name)[0]), name
    other, _, _ = games.play(game, decks, np.array([14]))
    assert not np.array_equal(other.pl[0], alone.pl[0]) or not np.array_equal(other.u[0], alone.u[0])


def test_the_invariant_check_can_fail(game) -> None:
    # no test that cannot fail: a state breaking each rule is reported
    G, compiled, start = games.set_up(game, PAIRS[0], 1)
    assert invariants.violation(G, compiled.rules, 0, start) == invariants.OK
    G.pl[0, 0, P_POOL] += 1  # mana from nowhere
    assert invariants.violation(G, compiled.rules, 0, start) == invariants.MANA
    G.pl[0, 0, P_POOL] -= 1
    G.hand[0, 1, 39] = 0  # a card from nowhere
    assert invariants.violation(G, compiled.rules, 0, start) == invariants.CARDS
    G.hand[0, 1, 39] = -1
    G.g[0, G_WINNER] = 1  # a winner while both live
    assert invariants.violation(G, compiled.rules, 0, start) == invariants.WINNER

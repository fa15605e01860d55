"""Random games of classes to their end, through the compiled random agent (``agent.py``), with
the invariants of issue 15 checked after every step (``invariants.violation``), and the
determinism contract (DESIGN.md: "a game's result depends only on its seed ... never on batch
size, batch mates")."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from battlesim.systems.classes import games, invariants
from battlesim.systems.classes.ruleset import RULESET
from battlesim.systems.classes.state import (
    G_BASE_DEFENSE,
    G_TURN_LIMIT,
    G_WINNER,
    P_CAST,
    P_EXP,
    P_KILLS,
    P_LEVEL,
    P_LIFE,
    P_POOL,
    W_ID,
    W_TOKENS,
)
from battlesim.systems.classes.vocabulary import COLOURS

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


def test_a_game_is_set_up_from_its_decks(game) -> None:
    # classes.md "Setup": "life points tracker set to 20"; "Mark Level 1 as current level and take
    # its bonus (power token, starting cards and Mana)"
    G, compiled, _ = games.set_up(game, ("paladin_vanguard", "warlock_pact"), 1)
    for side, deck_id in enumerate(("paladin_vanguard", "warlock_pact")):
        deck = game.decks[deck_id]
        board = game.boards[deck.class_name]
        hand = Counter(compiled.card_names[c] for c in G.hand[0, side] if c >= 0)
        upgrade = Counter(compiled.card_names[c] for c in G.upgrade[0, side] if c >= 0)
        # the starting cards, plus what level 1's token took from the upgrade deck (Demonology: an Imp)
        assert hand - Counter(deck.hand) == Counter(deck.upgrade) - upgrade and not Counter(deck.hand) - hand
        assert {c: int(G.pl[0, side, P_POOL + k]) for k, c in enumerate(COLOURS) if G.pl[0, side, P_POOL + k]} == board.pool
        assert (G.pl[0, side, P_LIFE], G.pl[0, side, P_LEVEL], G.pl[0, side, P_EXP]) == (20, 1, 0)
        # level 1's power token on the first legal power in board order (spec §14's default)
        tokens = {compiled.power_names[G.pw[0, side, k, W_ID]]: int(G.pw[0, side, k, W_TOKENS])
                  for k in range(len(board.powers))}
        assert sum(tokens.values()) == 1
        first = next(p.name for p in board.powers if p.slots > 0 and p.level <= 1 and p.requires is None)
        assert tokens[first] == 1


def test_games_take_the_ruleset_parameters() -> None:
    # data/rulesets/classes.toml: life, turn_limit, base_defense (overridable per run)
    game = RULESET.load(params={"life": 7, "turn_limit": 9, "base_defense": 0})
    G, _, _ = games.set_up(game, PAIRS[0], 2)
    assert (G.pl[:, :, P_LIFE] == 7).all() and (G.g[:, G_TURN_LIMIT] == 9).all() and (G.g[:, G_BASE_DEFENSE] == 0).all()

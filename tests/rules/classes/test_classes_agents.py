"""The compiled greedy and lookahead agents of classes (``greedy.py``, ``lookahead.py``): they keep
every invariant, their games still depend on the seed, and each beats the one below it with seats
swapped (a 95% Wilson interval of its win rate above 50%).

The game counts are what CI affords (issue 15: the whole suite under 20 minutes on 2 cores); the
10,000-game measurements are in the ledger (docs/rules/classes.md "The greedy agent")."""

from __future__ import annotations

import math

import numpy as np
import pytest

from battlesim.ecs.ruleset import get_ruleset
from battlesim.systems.classes.games import play_batch
from battlesim.systems.classes.loop import GREEDY, LOOKAHEAD, RANDOM

DECKS = ("paladin_bulwark", "warlock_pact")


@pytest.fixture(scope="module")
def classes():
    return get_ruleset("classes").load()


def wilson_low(wins: int, n: int, z: float = 1.96) -> float:
    p = wins / n
    den = 1 + z * z / n
    return (p + z * z / (2 * n) - z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / den


def wins_of(classes, agent: int, other: int, n: int, decks=DECKS) -> tuple[int, int]:
    """``agent``'s wins over ``n`` games in each seat (seeds 0..n-1), and the games played."""
    wins = 0
    for seat in (0, 1):
        codes = (agent, other) if seat == 0 else (other, agent)
        bt = play_batch(classes, decks, np.arange(n), agents=codes)
        assert (bt.out == 0).all()
        wins += int((bt.G.g[:, 2] == seat).sum())
    return wins, 2 * n


@pytest.mark.parametrize("agents", [(GREEDY, RANDOM), (RANDOM, GREEDY), (LOOKAHEAD, GREEDY), (GREEDY, LOOKAHEAD)])
def test_agents_keep_every_invariant(classes, agents):
    # the invariants of issue 15 after every step (invariants.py), as for random games
    bt = play_batch(classes, ("paladin_vanguard", "warlock_legion"), np.arange(12), agents=agents, check=True)
    assert (bt.out == 0).all(), bt.out


def test_two_agents_that_draw_nothing_still_play_different_games_by_seed(classes):
    # ledger: the scores' seeded jitter (classes deals no random cards: the hand is the deck)
    bt = play_batch(classes, DECKS, np.arange(16), agents=(GREEDY, GREEDY))
    outcomes = {(int(g[0]), int(g[2])) for g in bt.G.g}
    assert len(outcomes) > 3


def test_greedy_beats_random_with_seats_swapped(classes):
    wins, n = wins_of(classes, GREEDY, RANDOM, 150)
    assert wilson_low(wins, n) > 0.5, (wins, n)


def test_lookahead_beats_greedy_with_seats_swapped(classes):
    wins, n = wins_of(classes, LOOKAHEAD, GREEDY, 100)
    assert wilson_low(wins, n) > 0.5, (wins, n)


def per_target_listing(G, R, b: int, side: int) -> list[tuple[int, int, int, int]]:
    """The legal Main Phase actions as the action functions say, one call per target (what
    ``agent.legal_actions`` lists with one ``*_error`` call per card or ability)."""
    from battlesim.systems.classes.actions import ability_error, cast_error, prepare_error
    from battlesim.systems.classes.agent import K_ABILITY, K_CAST, K_CAST_PREPARED, K_PREPARE
    from battlesim.systems.classes.rules import AB_TARGET, C_TARGET, NAB, PW_AB, PW_NAB, target_list
    from battlesim.systems.classes.state import P_PREP, POWERS, W_ID

    pay = np.full(5, -1, np.int64)
    rows, seen = [], set()
    for c in (int(x) for x in G.hand[b, side]):
        if c < 0 or R.cards[c, 0] == 0 or c in seen:
            continue
        seen.add(c)
        for t in target_list(int(R.cards[c, C_TARGET])):
            if cast_error(G, R, b, side, c, False, t, -1, pay) == 0:
                rows.append((K_CAST, c, 0, t))
        if prepare_error(G, R, b, side, c, pay) == 0:
            rows.append((K_PREPARE, c, 0, -1))
    c = int(G.pl[b, side, P_PREP])
    if c >= 0:
        for t in target_list(int(R.cards[c, C_TARGET])):
            if cast_error(G, R, b, side, c, True, t, -1, pay) == 0:
                rows.append((K_CAST_PREPARED, c, 0, t))
    for p in range(POWERS):
        pid = int(G.pw[b, side, p, W_ID])
        if pid < 0:
            continue
        for a in range(R.powers[pid, PW_NAB]):
            for t in target_list(int(R.powers[pid, PW_AB + a * NAB + AB_TARGET])):
                if ability_error(G, R, b, side, p, a, t, -1, pay) == 0:
                    rows.append((K_ABILITY, p, a, t))
    return rows


def mid_game_boards(n_games: int):
    """``(G, R, live)`` of greedy-against-random batches of ``n_games`` on two deck pairs, stopped by
    a 9-turn limit: the ``live`` games are mid-game boards, reopened (not ended) to be listed."""
    from battlesim.systems.classes.state import G_DRAW, G_ENDED

    short = get_ruleset("classes").load({"turn_limit": 9})
    for decks in (DECKS, ("paladin_vanguard", "warlock_legion")):
        bt = play_batch(short, decks, np.arange(n_games), agents=(GREEDY, RANDOM))
        G = bt.G
        live = np.flatnonzero(G.g[:, G_DRAW] == 1)  # stopped by the turn limit: mid-game boards
        G.g[live, G_ENDED] = 0
        yield G, bt.compiled.rules, live


def test_the_legal_listing_is_the_per_target_one(classes):
    # legal_actions checks each card once and the other targets with check_target alone: on
    # mid-game states of both seats it lists exactly what one *_error call per target allows
    from battlesim.systems.classes.agent import CANDIDATES, legal_actions
    from battlesim.systems.classes.state import G_ACTIVE

    listed = 0
    for G, R, live in mid_game_boards(12):
        rows = np.empty((CANDIDATES, 4), np.int64)
        for b in live:
            for side in (0, 1):
                G.g[b, G_ACTIVE] = side
                n = legal_actions(G, R, b, side, rows)
                assert [tuple(int(x) for x in r) for r in rows[:n]] == per_target_listing(G, R, b, side)
                listed += n
    assert listed > 50


def per_target_unit_acts(G, R, b: int, f: int) -> list[tuple[int, int, int, int]]:
    """A unit's legal acts as the act functions say, one ``acting.ability_error`` call per target."""
    from battlesim.systems.classes.acting import ACT_ABILITY, ACT_ATTACK, ACT_DEFEND, ability_error
    from battlesim.systems.classes.rules import C_AB_TARGET, C_HAS_ABILITY, target_list
    from battlesim.systems.classes.state import U_CARD, U_HAS_ATTACK
    from battlesim.systems.classes.units import find_target

    card = int(G.u[b, f, U_CARD])
    rows = [(ACT_ATTACK, card, 0, -1)] if G.u[b, f, U_HAS_ATTACK] and find_target(G.u, R, b, f) != -1 else []
    rows.append((ACT_DEFEND, card, 0, -1))
    if card >= 0 and R.cards[card, C_HAS_ABILITY] == 1:
        for t in target_list(int(R.cards[card, C_AB_TARGET])):
            if ability_error(G, R, b, f, t, np.full(5, -1, np.int64)) == 0:
                rows.append((ACT_ABILITY, card, 0, t))
    return rows


def test_a_units_acts_are_the_per_target_ones(classes):
    # agent.unit_actions checks a unit's ability once and its other targets with check_target
    # alone: on mid-game boards it lists exactly what one ability_error call per target allows
    from battlesim.systems.classes.acting import ACT_ABILITY
    from battlesim.systems.classes.agent import CANDIDATES, unit_actions
    from battlesim.systems.classes.state import U_PRESENT

    abilities = 0
    for G, R, live in mid_game_boards(24):
        rows, pay = np.empty((CANDIDATES, 4), np.int64), np.full(5, -1, np.int64)
        for b in live:
            for f in np.flatnonzero(G.u[b, :, U_PRESENT]):
                n = unit_actions(G, R, b, f, pay, rows)
                want = per_target_unit_acts(G, R, b, f)
                assert [tuple(int(x) for x in r) for r in rows[:n]] == want
                abilities += sum(r[0] == ACT_ABILITY for r in want)
    assert abilities > 0, "some unit's ability was listed"


def test_greedy_level_up_takes_the_colour_its_hand_needs(classes):
    # classes.md "Experience": a Mana bonus: "Gain one colored Mana (any except Summoning)";
    # greedy picks the colour its hand's costs ask most beyond its pool and cooldown track
    from battlesim.systems.classes.games import new_batch
    from battlesim.systems.classes.greedy import level_colour, prime_answers
    from battlesim.systems.classes.rules import C_COST
    from battlesim.systems.classes.state import (BONUS_MANA, L_BONUS, NCOL, P_ANSWER, P_LEVEL, P_NANSWERS, P_POOL,
                                                 P_TRACK)

    for decks in (DECKS, ("warlock_legion", "paladin_vanguard")):
        bt = new_batch(classes, decks, np.arange(1))
        G, R = bt.G, bt.compiled.rules
        for side in (0, 1):
            need = [sum(int(R.cards[c, C_COST + k]) for c in G.hand[0, side] if c >= 0)
                    - int(G.pl[0, side, P_POOL + k]) - sum(int(G.pl[0, side, P_TRACK + s * NCOL + k]) for s in range(3))
                    for k in range(4)]
            colour = level_colour(G, R, 0, side)
            assert colour == int(np.argmax(need)) and 0 <= colour < 4  # never summoning (4)
            prime_answers(G, R, 0, side)
            level = int(G.pl[0, side, P_LEVEL])
            bonuses = [int(x) for x in G.lv[0, side, level, L_BONUS:] if x]
            assert int(G.pl[0, side, P_ANSWER]) == 0 and int(G.pl[0, side, P_NANSWERS]) == len(bonuses)
            for k, kind in enumerate(bonuses):
                assert int(G.ans[0, side, k]) == (colour if kind == BONUS_MANA else -1)

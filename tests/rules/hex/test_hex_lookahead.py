"""The lookahead hex agent (issue 14 "a lookahead agent"): greedy's best entries played ahead
with the opponent's greedy reply, the game restored after each. It beats greedy with seats
swapped; looking ahead leaves no trace in the game (invariants, same games alone or batched)."""

from __future__ import annotations

import itertools
import math

import pytest

from battlesim.ecs.ruleset import get_ruleset
from battlesim.systems.hex.game import play_games
from battlesim.systems.hex.play import AGENTS, GREEDY, LOOKAHEAD, RANDOM


@pytest.fixture(scope="module")
def hexgame():
    return get_ruleset("hex").load()


def wilson_low(wins: int, n: int, z: float = 1.96) -> float:
    p = wins / n
    return (p + z * z / (2 * n) - z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n)


def test_lookahead_is_a_compiled_hex_agent(hexgame):
    # issue 14: "selectable as --agents lookahead", listed by `battlesim agents --ruleset hex`
    assert "lookahead" in AGENTS and "lookahead" in hexgame.compiled_agents()


def test_lookahead_beats_greedy_with_seats_swapped(hexgame):
    """Issue 14 "lookahead beats greedy with a 95% interval excluding 50%", seats swapped: every
    ordered pair of blitz kingdoms, 100 games with lookahead in seat 0 and 100 in seat 1 (2,400
    games, ~17 s of CPU). Lookahead plays ~140 games/s, so the >= 10,000-game figure was measured
    once for the report (not here: over CI's ~60 s budget); at 2,400 games its measured ~55.5%
    keeps the interval's low end ~0.535."""
    wins = n = 0
    for i, decks in enumerate(itertools.permutations(hexgame.deck_ids(), 2)):
        for seat in (0, 1):
            agents = (LOOKAHEAD, GREEDY) if seat == 0 else (GREEDY, LOOKAHEAD)
            res = play_games(hexgame.armies(decks), list(range(i * 1000, i * 1000 + 100)), agents=agents, check=False)
            wins += sum(r["winner"] == seat for r in res)
            n += len(res)
    assert n >= 2_400
    assert wilson_low(wins, n) > 0.5, (wins, n)


def test_looking_ahead_leaves_no_trace(hexgame):
    # hex.md "units cannot occupy the same hex as other units at the end of the turn" and every
    # invariant of test_hex_games, checked after every step of games with lookahead in both
    # seats; a game played alone equals the same game in a batch (the restore is exact)
    decks = hexgame.default_decks()
    armies = hexgame.armies(decks)
    res = play_games(armies, list(range(40)), agents=(LOOKAHEAD, RANDOM), check=True)
    assert all(r["violation"] == "" for r in res)
    alone = [play_games(armies, [s], agents=(LOOKAHEAD, RANDOM), check=True)[0] for s in (3, 17)]
    assert alone == [res[3], res[17]]

"""Invariants that hold after every system of every round, on thousands of random games.

"at most one entity per board cell, board index agrees with positions, resources within
0..10, health <= max, anchors and essence never negative, every finished game has a winner
or a draw reason" (issue: engine foundation)."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battlesim.ecs.decisions import make_agent
from battlesim.systems.lanes.state import END_REASONS, RUNNING


def check_invariants(w, where: str) -> None:
    g, c = w.g, w.c
    units = w.alive & ~c.anchor & ~c.improvement
    b, s = np.nonzero(units)
    # every unit stands on the cell the board index says, and that cell names it
    assert (c.lane[b, s] >= 0).all() and (c.pos[b, s] >= 0).all(), where
    assert (g.board[b, c.owner[b, s], c.lane[b, s], c.pos[b, s]] == s).all(), where
    # every occupied cell holds a live unit of that side, lane and position (so one entity per cell)
    gb, side, lane, pos = np.nonzero(g.board >= 0)
    slot = g.board[gb, side, lane, pos]
    assert units[gb, slot].all(), where
    assert (c.owner[gb, slot] == side).all() and (c.lane[gb, slot] == lane).all() and (c.pos[gb, slot] == pos).all(), where
    assert gb.size == b.size, where  # no unit off the index, none twice
    # improvements: the lane index lists exactly the live improvements, at most 3 per lane and side
    ib, iside, ilane, _ = np.nonzero(g.improvements >= 0)
    islot = g.improvements[g.improvements >= 0]
    assert (w.alive[ib, islot] & c.improvement[ib, islot]).all(), where
    assert (c.owner[ib, islot] == iside).all() and (c.lane[ib, islot] == ilane).all(), where
    assert ib.size == int((w.alive & c.improvement).sum()), where
    assert ((g.resources >= 0) & (g.resources <= 10)).all(), where
    live_units = units & ~c.dying
    assert (c.health[live_units] <= c.max_health[live_units]).all(), where
    anchors = c.health[:, :6]
    assert (anchors >= 0).all(), where
    assert (anchors <= c.max_health[:, :6]).all(), where
    assert (c.ruined[:, :6] <= c.essence[:, :6]).all(), where
    done = ~w.active
    assert (g.winner[done] != RUNNING).all(), where
    assert (g.end_reason[done] > 0).all(), where
    draws = done & (g.winner == -1)
    assert np.isin(np.array(END_REASONS)[g.end_reason[draws]], ["round_limit", "simultaneous"]).all(), where
    assert (g.winner[w.active] == RUNNING).all(), where


def play_checked(lanes, seeds, decks, agents) -> None:
    w = lanes.new_world(np.asarray(seeds), decks, agents)
    check_invariants(w, "setup")
    for rnd in range(lanes.params.round_limit + 1):
        if not w.active.any():
            break
        for phase, systems in lanes.schedule._order:
            for system in systems:
                system.process(w)
                check_invariants(w, f"round {rnd + 1} after {phase}/{type(system).__name__}")
    assert not w.active.any()


def test_invariants_after_every_system_on_thousands_of_games(lanes, random_agents):
    play_checked(lanes, np.arange(3000), ("red_vanguard", "black_covenant"), random_agents)


def test_invariants_with_a_passive_player(lanes):
    play_checked(lanes, np.arange(500), ("blue_green_wardens", "green_grove"), [make_agent("random"), make_agent("pass")])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seeds=st.lists(st.integers(0, 2**62), min_size=1, max_size=40, unique=True),
    decks=st.tuples(
        st.sampled_from(["red_vanguard", "blue_tide", "green_grove", "black_covenant", "red_black_raiders", "blue_green_wardens"]),
        st.sampled_from(["red_vanguard", "blue_tide", "green_grove", "black_covenant", "red_black_raiders", "blue_green_wardens"]),
    ),
    agents=st.tuples(st.sampled_from(["random", "pass"]), st.sampled_from(["random", "pass"])),
)
def test_invariants_hold_for_any_seeds_decks_and_agents(lanes, seeds, decks, agents):
    play_checked(lanes, seeds, decks, [make_agent(a) for a in agents])

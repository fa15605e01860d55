"""hex.md movement keywords (Pathing, Flying, Trample, Root, Pushed, Pulled, Move) through the
engine's reachability and displacement: each test cites its sentence."""

from __future__ import annotations

from pathlib import Path

import pytest
from hex_boards import board

from battlesim.systems.hex.actions import Illegal
from battlesim.systems.hex.board import hex_id

FAR = '{ side = 1, col = 8, row = 6, name = "Far", health = 3 }'


def units(sc) -> dict[str, dict]:
    return {u["name"]: u for u in sc.state()["units"]}


def test_pathing_moves_through_enemies(tmp_path: Path) -> None:
    # hex.md "Pathing – This unit can move through other units."
    wall = '{ side = 1, col = 0, row = 3, name = "E", health = 3 }'
    sc = board(tmp_path, ['{ side = 0, col = 0, row = 2, name = "P", movement = 2, health = 3, keywords = { pathing = true } }', wall])
    sc.battle.move(0, 0, hex_id(0, 4), [hex_id(0, 3), hex_id(0, 4)])
    assert (units(sc)["P"]["row"], units(sc)["E"]["health"]) == (4, 3)
    sc2 = board(tmp_path, ['{ side = 0, col = 0, row = 2, name = "P", movement = 2, health = 3 }', wall])
    with pytest.raises(Illegal):
        sc2.battle.move(0, 0, hex_id(0, 4), [hex_id(0, 3), hex_id(0, 4)])


def test_trample_hits_each_entry_even_the_same_hex_twice(tmp_path: Path) -> None:
    # hex.md "A unit with trample may move through the same hex multiple times, if possible, dealing the trample damage each time."
    sc = board(tmp_path, ['{ side = 0, col = 0, row = 2, name = "T", movement = 4, health = 6, keywords = { trample = 1 } }',
                          '{ side = 1, col = 0, row = 3, name = "E", health = 5 }', FAR])
    path = [hex_id(0, 3), hex_id(1, 3), hex_id(0, 3), hex_id(0, 4)]
    sc.battle.move(0, 0, hex_id(0, 4), path)
    assert (units(sc)["T"]["row"], units(sc)["E"]["health"]) == (4, 3)


def test_no_trample_damage_to_the_melee_defender(tmp_path: Path) -> None:
    # hex.md "Trample damage is not applied to the defender when a melee attack occurs."
    sc = board(tmp_path, ['{ side = 0, col = 3, row = 1, name = "T", power = 1, movement = 2, health = 9, keywords = { trample = 3 } }',
                          '{ side = 1, col = 3, row = 2, name = "E", power = 1, health = 5 }', FAR])
    sc.battle.attack(0, 0, hex_id(3, 2), None, None, None)
    assert units(sc)["E"]["health"] == 4


def test_root_stops_pushes(tmp_path: Path) -> None:
    # hex.md "Root prevents any effects that would cause a unit to move."
    sc = board(tmp_path, ['{ side = 1, col = 2, row = 3, name = "R", health = 5, statuses = { rooted = 1 } }',
                          '{ side = 0, col = 6, row = 1, name = "P", health = 4 }'])
    sc.battle.displace(0, 16, hex_id(3, 3), 2, False, None)
    assert (units(sc)["R"]["col"], units(sc)["R"]["row"]) == (2, 3)


def test_a_unit_without_movement_is_still_pushed(tmp_path: Path) -> None:
    # hex.md "If an ability causes another unit to move, any movement rules associated with that ability override the unit's movement property."
    sc = board(tmp_path, ['{ side = 1, col = 2, row = 3, name = "N", health = 5 }',
                          '{ side = 0, col = 6, row = 1, name = "P", health = 4 }'])
    sc.battle.displace(0, 16, hex_id(3, 3), 2, False, None)
    assert (units(sc)["N"]["col"], units(sc)["N"]["row"]) == (0, 2)


def test_a_pull_stops_at_a_unit(tmp_path: Path) -> None:
    # hex.md "Units cannot be pulled through other units. A pulled unit stops being pulled whenever it cannot be pulled any further."
    sc = board(tmp_path, ['{ side = 1, col = 4, row = 5, name = "V", health = 5 }',
                          '{ side = 1, col = 4, row = 3, name = "W", health = 5 }',
                          '{ side = 0, col = 4, row = 1, name = "P", health = 4 }'])
    sc.battle.displace(0, 16, hex_id(4, 1), 3, True, None)
    assert (units(sc)["V"]["col"], units(sc)["V"]["row"]) == (4, 4)


def test_the_legal_tables_reach_is_the_searchs(tmp_path: Path) -> None:
    # hex.md "A unit may move a number of hexes up to its Movement value."; "Pathing – This unit can
    # move through other units."; "Trample X – This unit may move into and through hexes occupied by
    # enemy units."; "Steadfast – This unit cannot be charged or trampled.": the legal table's reach
    # as hex sets (battle.reach_sets, a step = the board's neighbours of what is reached) is the
    # search's (battle.reach_within, which paths follow): the hexes within each limit, on boards
    # crowded with every passing keyword, for every unit and every limit
    import numpy as np

    from battlesim.systems.hex.battle import reach_sets, reach_within
    from battlesim.systems.hex.board import N_HEXES
    from battlesim.systems.hex.state import CONTROLLER, POS

    rng = np.random.default_rng(23)
    kinds = ['keywords = { pathing = true }', 'keywords = { flying = true }', 'keywords = { allied_pathing = true }',
             'keywords = { trample = 1 }', 'keywords = { steadfast = true }', 'keywords = { trample = 1, allied_pathing = true }',
             'power = 1', 'power = 1']
    hexes = [(c, r) for c in range(9) for r in range(7 if c % 2 == 0 else 6)]
    compared = 0
    for trial in range(20):
        picks = rng.choice(len(hexes), size=int(rng.integers(6, 24)), replace=False)
        units = [f'{{ side = {i % 2}, col = {hexes[p][0]}, row = {hexes[p][1]}, name = "U{i}", health = 3, movement = 1, '
                 f'{kinds[int(rng.integers(len(kinds)))]} }}' for i, p in enumerate(picks)]
        bt = board(tmp_path, units).battle
        w, cols, f = bt.st, bt.cols, bt.f
        occ = bt.occupied(0).copy()
        steps, prev, frontier = (np.zeros(N_HEXES, dtype=np.int64) for _ in range(3))
        for s in np.flatnonzero(w.alive[0]):
            seat = w.i16[cols[CONTROLLER], 0, s]
            on = [h for h in range(N_HEXES) if occ[h] >= 0]
            vacant = sum(1 << h for h in range(N_HEXES) if occ[h] < 0)
            mine = sum(1 << h for h in on if w.i16[cols[CONTROLLER], 0, occ[h]] == seat)
            foes = sum(1 << h for h in on if w.i16[cols[CONTROLLER], 0, occ[h]] != seat)
            assert occ[w.i16[cols[POS], 0, s]] == s
            for limit in (0, 1, 2, 3, 5, N_HEXES - 1):  # the last: no limit (no path is longer)
                reach_within(w, cols, f, 0, int(s), occ, steps, prev, frontier, limit, -1)
                within = [sum(1 << h for h in range(N_HEXES) if steps[h] <= lim) for lim in (limit, limit - 1)]
                got = reach_sets(w, cols, f, 0, int(s), occ, np.uint64(vacant), np.uint64(mine), np.uint64(foes), limit)
                assert int(got[0]) == within[0]
                if limit >= 1:
                    assert int(got[1]) == within[1]
                compared += 1
    assert compared > 500

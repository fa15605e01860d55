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


def test_a_trample_move_ends_only_on_an_enemy_the_trample_kills(tmp_path: Path) -> None:
    # hex.md "Trample X – This unit may move into and through hexes occupied by enemy units. If it
    # does, those enemy units take X physical damage."; "units cannot occupy the same hex as other
    # units at the end of the turn" (I-23: a move may end on an enemy's hex only if the trample
    # kills it, through the damage pipeline: Shield, Armor; not a Steadfast enemy; an Undying one
    # comes back to that hex): the legal table lists exactly the hexes the trample empties
    import numpy as np

    from battlesim.systems.hex.battle import MOVE, U, V
    from battlesim.systems.hex.board import N_HEXES
    from battlesim.systems.hex.legal import legal_actions

    rhino = '{ side = 0, col = 4, row = 3, name = "T", power = 1, movement = 2, health = 9, keywords = { trample = 2 } }'
    enemies = {  # (col, row): (the enemy, whether the trample empties its hex)
        (4, 2): ('health = 2', True),
        (4, 4): ('health = 3', False),
        (3, 3): ('health = 2, statuses = { shield = 1 }', False),  # hex-keywords.md "Shield X" absorbs 1
        (5, 3): ('health = 2, keywords = { armor = 1 }', False),  # hex.md "Armor X" reduces physical
        (3, 2): ('health = 1, keywords = { armor = 1 }', True),
        (5, 2): ('health = 1, keywords = { steadfast = true }', False),  # "cannot be ... trampled"
        (4, 1): ('health = 1, keywords = { undying = true }', False),  # returns "in its last hex"
        (4, 5): ('health = 1', True),  # two steps away: entered on the move's last step
    }
    units = [rhino] + [f'{{ side = 1, col = {c}, row = {r}, name = "E{c}{r}", power = 1, {e} }}'
                       for (c, r), (e, _) in enemies.items()]
    sc = board(tmp_path, units)
    bt = sc.battle
    out = np.zeros(U * V * N_HEXES, dtype=np.bool_)
    legal_actions(bt.st, bt.cols, bt.f, bt.k, 0, 0, out)
    moves = out.reshape(U, V, N_HEXES)[0, MOVE]
    assert {at: bool(moves[hex_id(*at)]) for at in enemies} == {at: kills for at, (_, kills) in enemies.items()}
    # the flying trampler tramples nothing (hex-keywords.md "Flying units cannot trample."): no enemy hex
    sc = board(tmp_path, [rhino.replace("trample = 2", "trample = 2, flying = true")] + units[1:])
    bt = sc.battle
    legal_actions(bt.st, bt.cols, bt.f, bt.k, 0, 0, out)
    assert not any(out.reshape(U, V, N_HEXES)[0, MOVE, hex_id(*at)] for at in enemies)


def test_the_trample_kill_move_lands_on_the_emptied_hex(tmp_path: Path) -> None:
    # hex.md "Trample X – ... those enemy units take X physical damage." (I-23): the move onto the
    # enemy's hex deals the trample (Armor 1 taken off: 2 - 1 = 1 kills a 1-health unit), the enemy
    # dies and the trampler ends on its hex; one through the pipeline with a Shield is not legal
    sc = board(tmp_path, ['{ side = 0, col = 4, row = 3, name = "T", power = 1, movement = 2, health = 9, keywords = { trample = 2 } }',
                          '{ side = 1, col = 4, row = 4, name = "E", power = 1, health = 1, keywords = { armor = 1 } }',
                          '{ side = 1, col = 3, row = 3, name = "S", power = 1, health = 2, statuses = { shield = 1 } }', FAR])
    with pytest.raises(Illegal):
        sc.battle.move(0, 0, hex_id(3, 3), None)
    sc.battle.move(0, 0, hex_id(4, 4), None)
    assert set(units(sc)) == {"T", "S", "Far"} and (units(sc)["T"]["col"], units(sc)["T"]["row"]) == (4, 4)

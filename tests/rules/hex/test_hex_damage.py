"""hex.md "Damage" and the keywords of the damage pipeline (spec §3), through the compiled
stages of ``build("hex")``: each test cites its sentence."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hex_boards import board

from battlesim.ecs.compiled.stages import stages_of
from battlesim.systems.hex.damage_stages import MAGICAL, PHYSICAL, PURE, RETURN, STATUS

FAR = '{ side = 1, col = 8, row = 6, name = "Far", health = 3 }'


def unit_at(sc, col: int, row: int) -> dict:
    return next(u for u in sc.state()["units"] if (u["col"], u["row"]) == (col, row))


def test_stage_order_follows_spec_priorities() -> None:
    # spec §3: "Shield X ... absorb before other reductions"; Pure skips 100-200 (I-26)
    names = [s.name for s in stages_of("hex")]
    order = ["shield", "refraction", "ethereal", "armor", "magic_resist", "evasion", "nonlethal", "apply_health"]
    assert [n for n in names if n in order] == order
    assert names.index("apply_health") < names.index("damage_return") and names.index("apply_health") < names.index("lifesteal")


def test_pure_keeps_the_shield(tmp_path: Path) -> None:
    # hex.md: "Pure damage cannot be reduced by any effect." (I-26: Shield untouched)
    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", health = 6, statuses = { shield = 2 }, keywords = { armor = 3 } }', FAR])
    sc.battle.deal(0, -1, 0, 4, PURE)
    u = unit_at(sc, 1, 1)
    assert (u["health"], u["statuses"]) == (2, {"shield": 2})


def test_shield_absorbs_before_armor(tmp_path: Path) -> None:
    # hex-keywords.md "Shield X": "reduce the next X incoming damage to zero and remove that many" (I-31)
    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", health = 6, statuses = { shield = 3 }, keywords = { armor = 1 } }', FAR])
    sc.battle.deal(0, -1, 0, 5, PHYSICAL)
    u = unit_at(sc, 1, 1)
    assert (u["health"], u["statuses"]) == (5, {})  # 5 - 3 shield = 2, - 1 armor = 1


def test_magic_resist_only_magical(tmp_path: Path) -> None:
    # hex.md: "Magic Resist X – This unit reduces incoming magical damage by X."
    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", health = 9, keywords = { magic_resist = 2 } }', FAR])
    sc.battle.deal(0, -1, 0, 3, MAGICAL)
    sc.battle.deal(0, -1, 0, 3, PHYSICAL)
    assert unit_at(sc, 1, 1)["health"] == 9 - 1 - 3


def test_returned_damage_is_not_returned_again(tmp_path: Path) -> None:
    # hex-keywords.md "Damage Return X – When this unit receives damage that is not from retaliation" (I-28: not from other returns)
    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", health = 9, keywords = { damage_return = true } }',
                          '{ side = 1, col = 3, row = 1, name = "B", health = 9, keywords = { damage_return = true } }'])
    sc.battle.deal(0, 16, 0, 2, PHYSICAL)
    assert (unit_at(sc, 1, 1)["health"], unit_at(sc, 3, 1)["health"]) == (7, 7)
    sc.battle.deal(0, 16, 0, 1, PHYSICAL | RETURN)
    assert (unit_at(sc, 1, 1)["health"], unit_at(sc, 3, 1)["health"]) == (6, 7)


def test_broken_turns_armor_off(tmp_path: Path) -> None:
    # hex.md: "Break – A broken unit has its passive abilities disabled."
    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", health = 9, keywords = { armor = 2 }, statuses = { broken = 1 } }', FAR])
    sc.battle.deal(0, -1, 0, 3, PHYSICAL)
    assert unit_at(sc, 1, 1)["health"] == 6


def test_status_damage_is_not_returned(tmp_path: Path) -> None:
    # hex.md "Physical Damage Return X" / hex-keywords.md "Damage from buffs and debuffs is not returned."
    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", health = 9, keywords = { damage_return = true, magic_damage_return = true } }',
                          '{ side = 1, col = 3, row = 1, name = "B", health = 9 }'])
    sc.battle.deal(0, 16, 0, 2, MAGICAL | STATUS)
    assert (unit_at(sc, 1, 1)["health"], unit_at(sc, 3, 1)["health"]) == (7, 9)


def test_magic_damage_return_all(tmp_path: Path) -> None:
    # hex-keywords.md "Magic Damage Return X" (1): "If X is not specified, all damage is returned."
    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", health = 9, keywords = { magic_damage_return = true } }',
                          '{ side = 1, col = 3, row = 1, name = "B", health = 9 }'])
    sc.battle.deal(0, 16, 0, 4, MAGICAL)
    sc.battle.deal(0, 16, 0, 3, PHYSICAL)
    assert (unit_at(sc, 1, 1)["health"], unit_at(sc, 3, 1)["health"]) == (2, 5)


def test_break_leaves_modifiers_and_granted_keywords(tmp_path: Path) -> None:
    # hex.md "Buffs, debuffs, and basic property modifiers are not considered passive abilities." (I-37)
    sc = board(tmp_path, [('{ side = 0, col = 1, row = 1, name = "A", power = 1, health = 9, keywords = { armor = 2 }, '
                           'statuses = { broken = 1 }, modifiers = [{ stat = "power", amount = 2 }, { keyword = "flying" }] }'),
                          FAR])
    u = unit_at(sc, 1, 1)
    assert (u["power"], u["keywords"]) == (3, {"flying": True})


def test_a_units_modifiers_are_found_through_its_games_modified_slots(tmp_path: Path) -> None:
    # hex.md "Some items and abilities modify the numerical value of properties." (I-35): a unit's
    # instances are read only when its game's MODDED bit for it is set (battle.granted, modified
    # skip the others); every writer sets it, and the check runs assert it (play.violation)
    from battlesim.systems.hex.play import INVARIANTS, violation
    from battlesim.systems.hex.state import MODDED

    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", power = 1, health = 9, '
                          'modifiers = [{ stat = "power", amount = 2 }] }', FAR])
    bt = sc.battle
    assert unit_at(sc, 1, 1)["power"] == 3 and bt.f.g[0, MODDED] == 1  # slot 0's bit
    assert violation(bt.st, bt.cols, bt.f, 0, False) == 0
    bt.f.g[0, MODDED] = 0
    assert unit_at(sc, 1, 1)["power"] == 1  # the instance is no longer read
    assert INVARIANTS[violation(bt.st, bt.cols, bt.f, 0, False)] == "a modifier instance on a slot its game's MODDED bits lack"


def test_the_walks_over_a_games_modifier_instances_stop_at_its_mods_top(tmp_path: Path) -> None:
    # hex.md "Some items and abilities modify the numerical value of properties." (I-35): the
    # instances are walked up to the game's MODS_TOP (1 + the highest row written; every writer
    # raises it), and the check runs assert no instance lies past it (play.violation)
    from battlesim.systems.hex.play import INVARIANTS, violation
    from battlesim.systems.hex.state import MODS_TOP

    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", power = 1, health = 9, '
                          'modifiers = [{ stat = "power", amount = 2 }, { stat = "power", amount = 1 }] }', FAR])
    bt = sc.battle
    assert unit_at(sc, 1, 1)["power"] == 4 and bt.f.g[0, MODS_TOP] == 2
    assert violation(bt.st, bt.cols, bt.f, 0, False) == 0
    bt.f.g[0, MODS_TOP] = 1
    assert unit_at(sc, 1, 1)["power"] == 3  # the second instance is no longer read
    assert INVARIANTS[violation(bt.st, bt.cols, bt.f, 0, False)] == "a modifier instance at or past its game's MODS_TOP"


def test_the_kept_board_names_each_units_hex_and_the_check_sees_a_missed_write(tmp_path: Path) -> None:
    # hex.md "units cannot occupy the same hex as other units at the end of the turn": the game's
    # kept board (``f.board``, the slot on each hex) is what the 32 slots make; a write ``battle.stand``
    # did not make (a unit moved by its position alone) is what the check runs report
    from battlesim.systems.hex.battle import occupancy
    from battlesim.systems.hex.board import N_HEXES, hex_id
    from battlesim.systems.hex.play import INVARIANTS, violation
    from battlesim.systems.hex.state import POS

    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", power = 1, movement = 2, health = 9 }', FAR])
    bt = sc.battle
    fresh = np.full(N_HEXES, -1, dtype=np.int64)
    occupancy(bt.st, bt.cols, 0, fresh)
    assert (bt.occupied(0) == fresh).all() and bt.occupied(0)[hex_id(1, 1)] == 0
    assert violation(bt.st, bt.cols, bt.f, 0, False) == 0
    bt.move(0, 0, hex_id(2, 1), None)
    occupancy(bt.st, bt.cols, 0, fresh)
    assert (bt.occupied(0) == fresh).all() and bt.occupied(0)[hex_id(1, 1)] == -1
    bt.put(POS, 0, 0, hex_id(3, 1))  # not through ``stand``: the board still says (2, 1)
    assert INVARIANTS[violation(bt.st, bt.cols, bt.f, 0, False)] == "the kept board differs from the units' hexes"


def test_armor_modifiers_reach_the_armor_stage(tmp_path: Path) -> None:
    # hex.md "Example: "Target unit gets Armor 1" or "Target unit gets +1 Burned."" (I-35: Prop X
    # takes the highest, +X stacks; modifiers stay while broken)
    sc = board(tmp_path, [('{ side = 0, col = 1, row = 1, name = "A", health = 20, modifiers = [{ stat = "armor", set = 1 }, '
                           '{ stat = "armor", set = 2 }, { stat = "armor", amount = 1 }] }'),
                          ('{ side = 0, col = 3, row = 1, name = "B", health = 20, keywords = { magic_resist = 3 }, '
                           'statuses = { broken = 1 }, modifiers = [{ stat = "magic_resist", amount = 1 }] }'), FAR])
    sc.battle.deal(0, -1, 0, 5, PHYSICAL)
    sc.battle.deal(0, -1, 1, 5, MAGICAL)
    assert (unit_at(sc, 1, 1)["health"], unit_at(sc, 3, 1)["health"]) == (20 - 2, 20 - 4)


def test_the_forecast_is_the_pipelines_damage_and_writes_nothing(tmp_path: Path) -> None:
    # hex.md "If a unit's health is reduced to less than 1, it dies" (I-23: a trample move's
    # legality forecasts that through the pipeline): ``pipeline.health_after`` is the health
    # ``run_damage`` leaves, for every damage type and the stages before application (Shield,
    # Refraction, Ethereal, Armor and Piercing, Magic Resist, Evasion, Non-lethal, Broken), and it
    # writes nothing
    from battlesim.ecs.compiled.damage_queue import OK, push
    from battlesim.systems.hex.damage_stages import ATTACK, COMBAT, NONLETHAL, RANGED
    from battlesim.systems.hex.pipeline import health_after, run_damage
    from battlesim.systems.hex.state import HEALTH

    rng = np.random.default_rng(23)
    targets = ['statuses = { shield = 2 }', 'statuses = { refraction = 1 }', 'keywords = { ethereal = true }',
               'keywords = { armor = 2 }', 'keywords = { armor = 2 }, statuses = { broken = 1 }',
               'keywords = { magic_resist = 1 }', 'keywords = { evasion = 2 }', 'statuses = { shield = 1 }, keywords = { armor = 1 }', 'power = 1']
    sources = ['power = 1', 'power = 1, keywords = { piercing = 1 }', 'power = 1, keywords = { piercing = 1 }, statuses = { broken = 1 }']
    kinds = [PHYSICAL, MAGICAL, PURE, PHYSICAL | COMBAT | ATTACK, PHYSICAL | COMBAT | ATTACK | RANGED,
             MAGICAL | COMBAT | ATTACK, PHYSICAL | NONLETHAL, PHYSICAL | STATUS]
    compared = 0
    for _ in range(40):
        t = targets[int(rng.integers(len(targets)))]
        src = sources[int(rng.integers(len(sources)))]
        hp = int(rng.integers(1, 5))
        sc = board(tmp_path, [f'{{ side = 0, col = 1, row = 1, name = "A", health = {hp}, {t} }}',
                              f'{{ side = 1, col = 3, row = 1, name = "B", health = 9, {src} }}'])
        bt = sc.battle
        w, k = bt.st, bt.k
        for kind in kinds:
            amount = int(rng.integers(0, 6))
            before = [a.copy() for a in (w.i16, w.flags, w.alive)]
            forecast = health_after(w, 0, 16, 0, amount, kind, k.dcols)
            assert all(np.array_equal(a, c) for a, c in zip((w.i16, w.flags, w.alive), before))  # nothing written
            push(k.queue, k.qlen, 0, 16, 0, amount, kind)
            assert run_damage(w, 0, k.queue, k.qlen, 0, k.dcols, k.stack) == OK
            k.qlen[0] = 0
            assert forecast == w.i16[bt.cols[HEALTH], 0, 0], (t, src, hp, amount, kind)
            w.i16[:], w.flags[:], w.alive[:] = before  # the next kind against the same unit
            compared += 1
    assert compared == 40 * len(kinds)

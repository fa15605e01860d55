"""hex.md "Battle Rounds" / "Actions": the legal mask (spec §6), turn passing, round start and
end, through the compiled kernels; and an invariant check over random legal actions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hex_boards import board

from battlesim.ecs.compiled.rng import rng_state
from battlesim.systems.hex.battle import (
    ABILITY_0,
    ATTACK,
    CHARGE,
    MOVE,
    SKIP,
    U,
    V,
    acting_slot,
    legal_charge,
)
from battlesim.systems.hex.board import N_HEXES, hex_id
from battlesim.systems.hex.legal import legal_actions
from battlesim.systems.hex.state import (
    ACTIONS,
    CONTROLLER,
    END_NO_UNITS,
    END_REASON,
    FIRST_STATUS,
    HEALTH,
    LAST_STATUS,
    MAX_HEALTH,
    POS,
    ROUND,
    TO_ACT,
    WINNER,
)

WIDTH = U * V * N_HEXES


def mask(sc, seat: int) -> np.ndarray:
    out = np.zeros(WIDTH, dtype=np.bool_)
    legal_actions(sc.battle.st, sc.battle.cols, sc.battle.f, sc.battle.k, 0, seat, out)
    return out


def test_table_size() -> None:
    # spec §6: "Size 16 x 10 x 59 = 9,440"
    assert WIDTH == 9440


def test_skip_always_legal_and_exhausted_units_have_no_action(tmp_path: Path) -> None:
    # hex.md: "A unit that has no actions remaining is considered exhausted." / skip is always legal (H10.4)
    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", health = 3 }',
                          '{ side = 0, col = 3, row = 1, name = "B", health = 3, movement = 2, exhausted = true }',
                          '{ side = 1, col = 8, row = 6, name = "C", health = 3 }'])
    m = mask(sc, 0).reshape(U, V, N_HEXES)
    assert m[0, SKIP, 0] and not m[0, MOVE].any()  # NULL movement: "cannot move on its own"
    assert not m[1].any()


def test_move_mask_counts_hexes(tmp_path: Path) -> None:
    # hex.md: "A unit may move a number of hexes up to its Movement value."
    sc = board(tmp_path, ['{ side = 0, col = 4, row = 3, name = "A", health = 3, movement = 1 }',
                          '{ side = 1, col = 8, row = 6, name = "C", health = 3 }'])
    m = mask(sc, 0).reshape(U, V, N_HEXES)
    assert m[0, MOVE].sum() == 6  # the centre's six neighbours


def test_melee_attack_needs_adjacency_ranged_reaches(tmp_path: Path) -> None:
    # hex.md: melee attacks an adjacent unit; I-18: Range not null = ranged, within Range
    sc = board(tmp_path, ['{ side = 0, col = 2, row = 2, name = "M", health = 3, power = 1, movement = 1 }',
                          '{ side = 0, col = 2, row = 0, name = "R", health = 3, power = 1, range = 3 }',
                          '{ side = 1, col = 2, row = 3, name = "E", health = 3 }'])
    m = mask(sc, 0).reshape(U, V, N_HEXES)
    t = hex_id(2, 3)
    assert m[0, ATTACK, t] and m[1, ATTACK, t] and m[:, ATTACK].sum() == 2


def test_turn_passes_to_the_opponent_then_stays(tmp_path: Path) -> None:
    # I-12; hex.md "a player may take multiple turns in a row" when the opponent has no unit to act
    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", health = 3 }',
                          '{ side = 0, col = 3, row = 1, name = "B", health = 3 }',
                          '{ side = 1, col = 8, row = 6, name = "C", health = 3 }'])
    bt = sc.battle
    bt.skip(0, 0)
    assert bt.f.g[0, TO_ACT] == 1
    bt.skip(0, 16)
    assert bt.f.g[0, TO_ACT] == 0
    bt.skip(0, 1)
    assert bt.f.g[0, TO_ACT] == -1  # the round ends


def decode(i: int) -> tuple[int, int, int]:
    return i // (V * N_HEXES), (i // N_HEXES) % V, i % N_HEXES


def test_invariants_over_random_legal_actions(tmp_path: Path) -> None:
    # hex.md "units cannot occupy the same hex as other units at the end of the turn"; "cannot
    # exceed this amount of health"; counters never below 0 (issue 14 "Invariants after every step")
    units = ['{ side = 0, col = 1, row = 1, name = "A", power = 3, movement = 3, health = 6, keywords = { charging = true, burn = 1 } }',
             '{ side = 0, col = 3, row = 1, name = "B", power = 2, range = 3, movement = 2, health = 4, keywords = { lifesteal = true, piercing = 1 } }',
             '{ side = 0, col = 5, row = 0, name = "C", power = 2, movement = 2, health = 5, mana = 3, keywords = { trample = 1, health_regen = 1 }, abilities = [{ name = "Bolt", cost = 1, cast_range = 3, target = "enemy", effects = [{ op = "damage", amount = 2, type = "magical" }] }] }',
             '{ side = 1, col = 1, row = 5, name = "D", power = 3, movement = 2, health = 6, keywords = { counterstrike = true, armor = 1, physical_damage_return = 1 } }',
             '{ side = 1, col = 4, row = 5, name = "E", power = 2, range = 2, movement = 2, health = 4, keywords = { evasion = 1, poison = 2 } }',
             '{ side = 1, col = 7, row = 4, name = "F", power = 2, movement = 3, health = 5, keywords = { undying = true, overwatch = true }, statuses = { shield = 1 } }']
    rng = np.random.default_rng(14)
    checked = 0
    for game in range(6):
        sc = board(tmp_path, units)
        bt = sc.battle
        g = bt.f.g
        for _ in range(200):
            if g[0, WINNER] >= 0:
                break
            seat = int(g[0, TO_ACT])
            if seat < 0:
                bt.round_end(0)
                # hex.md "The victory check occurs after all other end-of-round events.": a winner
                # by the centre only after round 7's end (I-17), else by the early end
                assert g[0, WINNER] < 0 or g[0, ROUND] == 7 or g[0, END_REASON] == END_NO_UNITS
                if g[0, WINNER] < 0:
                    bt.round_start(0)
                continue
            legal = np.flatnonzero(mask(sc, seat))
            assert legal.size > 0
            u, v, h = decode(int(rng.choice(legal)))
            s = int(acting_slot(bt.st, bt.cols, 0, seat, u))
            if v == SKIP:
                bt.skip(0, s)
            elif v == MOVE:
                bt.move(0, s, h, None)
            elif v == ATTACK:
                bt.attack(0, s, h, None, None, None)
            elif v == CHARGE:
                occ = bt.occupied(0).copy()
                a = next(a for a in range(N_HEXES)
                         if legal_charge(bt.st, bt.cols, bt.f, 0, s, h, a, occ, bt.steps, bt.prev, bt.frontier))
                bt.attack(0, s, h, a, None, None)
            else:
                bt.ability(0, s, v - ABILITY_0, h)
            live = np.flatnonzero(bt.st.alive[0])
            pos = [bt.i(POS, 0, x) for x in live]
            assert len(pos) == len(set(pos))
            for x in live:
                assert 1 <= bt.i(HEALTH, 0, x) <= bt.i(MAX_HEALTH, 0, x)
                assert all(bt.i(k, 0, x) >= 0 for k in range(FIRST_STATUS, LAST_STATUS + 1))
                assert bt.i(ACTIONS, 0, x) >= 0 and bt.i(CONTROLLER, 0, x) in (0, 1)
            assert g[0, WINNER] < 0 or g[0, END_REASON] == END_NO_UNITS  # no centre win mid-round
            checked += 1
        assert g[0, WINNER] in (0, 1)
    assert checked > 100


def test_the_mask_agrees_with_each_actions_own_check(tmp_path: Path) -> None:
    # spec §8: a step "must be legal exactly as the agent's mask says": the mask (legal_actions)
    # and the checks the steps run (legal_move, legal_attack, legal_charge, legal_ability) agree
    from battlesim.systems.hex.battle import legal_ability, legal_attack, legal_move

    rng = np.random.default_rng(7)
    kinds = ['power = 2, movement = 3, keywords = { charging = true }',
             'power = 1, range = 2, movement = 2, keywords = { charging = true }',
             'power = 2, movement = 1, statuses = { rooted = 1 }',
             'power = 2, movement = 2, keywords = { steadfast = true, pathing = true }',
             'movement = 2, keywords = { defender = true }',
             'power = 1, movement = 2, mana = 1, abilities = [{ name = "Bolt", cost = 1, cast_range = 2, target = "enemy", effects = [{ op = "damage", amount = 1, type = "magical" }] }]',
             'power = 1, movement = 3, keywords = { trample = 3 }',  # I-23: ends on the enemies it kills
             'power = 1, movement = 2, statuses = { shield = 1 }',
             'power = 1, movement = 1, keywords = { undying = true }']
    hexes = [(c, r) for c in range(9) for r in range(7 if c % 2 == 0 else 6)]
    compared = 0
    for trial in range(12):
        picks = rng.choice(len(hexes), size=8, replace=False)
        units = [f'{{ side = {i % 2}, col = {hexes[p][0]}, row = {hexes[p][1]}, name = "U{i}", health = 3, '
                 f'{kinds[int(rng.integers(len(kinds)))]} }}' for i, p in enumerate(picks)]
        sc = board(tmp_path, units)
        bt = sc.battle
        for seat in (0, 1):
            m = mask(sc, seat).reshape(U, V, N_HEXES)
            occ = bt.occupied(0).copy()
            for u in range(U):
                s = seat * U + u
                if not bt.st.alive[0, s]:
                    continue
                for h in range(N_HEXES):
                    assert m[u, MOVE, h] == legal_move(bt.st, bt.cols, bt.f, 0, s, h, occ, bt.steps, bt.prev, bt.frontier, bt.k.dcols)
                    assert m[u, ATTACK, h] == legal_attack(bt.st, bt.cols, bt.f, 0, s, h, occ)
                    charge = any(legal_charge(bt.st, bt.cols, bt.f, 0, s, h, a, occ, bt.steps, bt.prev, bt.frontier)
                                 for a in range(N_HEXES))
                    assert m[u, CHARGE, h] == charge
                    assert m[u, ABILITY_0, h] == legal_ability(bt.st, bt.cols, bt.f, 0, s, 0, h, occ)
                    compared += 1
    assert compared > 4000


def test_games_of_a_batch_play_apart(tmp_path: Path) -> None:
    # DESIGN.md "Randomness"/determinism: a game's history depends on nothing but that game: the
    # same board and actions in games 0 and 2 of a 3-game World end in the same state; game 1 is untouched
    from battlesim.systems.hex.actions import Battle
    from battlesim.systems.hex.state import new_world

    one = board(tmp_path, ['{ side = 0, col = 3, row = 1, name = "A", power = 2, movement = 2, health = 5, keywords = { charging = true, burn = 1 } }',
                           '{ side = 1, col = 3, row = 3, name = "B", power = 2, range = 2, movement = 2, health = 5, statuses = { shield = 1 } }'])
    w = new_world(3)
    bt = Battle(w)
    src = one.battle
    for name in ("i16", "i8", "flags"):
        for b in (0, 2):
            getattr(bt.st, name)[:, b] = getattr(src.st, name)[:, 0]
    for b in (0, 2):
        bt.st.alive[b] = src.st.alive[0]
        for arr, s_arr in zip(bt.f, src.f):
            arr[b] = s_arr[0]
    untouched = bt.st.i16[:, 1].copy()
    rng = np.random.default_rng(3)
    for _ in range(40):
        g = bt.f.g
        if g[0, WINNER] >= 0:
            break
        seat = int(g[0, TO_ACT])
        if seat < 0:
            for b in (0, 2):
                bt.round_end(b)
                if g[b, WINNER] < 0:
                    bt.round_start(b)
            continue
        out = np.zeros(WIDTH, dtype=np.bool_)
        legal_actions(bt.st, bt.cols, bt.f, bt.k, 0, seat, out)
        u, v, h = decode(int(rng.choice(np.flatnonzero(out))))
        for b in (0, 2):
            s = seat * U + u
            if v == SKIP:
                bt.skip(b, s)
            elif v == MOVE:
                bt.move(b, s, h, None)
            elif v == ATTACK:
                bt.attack(b, s, h, None, None, None)
            else:
                bt.skip(b, s)
        assert (bt.st.i16[:, 0] == bt.st.i16[:, 2]).all() and (bt.f.g[0] == bt.f.g[2]).all()
    assert (bt.st.i16[:, 1] == untouched).all()


def test_a_controlled_unit_acts_for_its_new_controller(tmp_path: Path) -> None:
    # hex.md: "Control – When you control a unit, it becomes an allied unit." In batch games too: block
    # u of a seat's table names its own slot u, else the other half's slot u if the seat controls it
    # (spec §6 "u = the acting side's unit slot"; battle.acting_slot)
    from battlesim.systems.hex.step import RANDOM, apply_action

    sc = board(tmp_path, ['{ side = 0, col = 4, row = 0, name = "Zephra", hero = true, health = 8, movement = 1 }',
                          '{ side = 1, col = 4, row = 2, name = "Knight", power = 2, movement = 1, health = 5, controller = 0 }',
                          '{ side = 1, col = 8, row = 6, name = "Raider", power = 1, movement = 1, health = 4 }'])
    bt = sc.battle
    zephra, knight, raider = 0, 16, 17  # each side's units from the first slot of its half
    assert bt.i(CONTROLLER, 0, knight) == 0 and bt.i(CONTROLLER, 0, raider) == 1
    assert acting_slot(bt.st, bt.cols, 0, 0, 0) == zephra  # its own unit first: the Knight waits
    assert acting_slot(bt.st, bt.cols, 0, 1, 0) == -1  # its owner does not act with it
    assert acting_slot(bt.st, bt.cols, 0, 1, 1) == raider
    bt.skip(0, zephra)
    assert acting_slot(bt.st, bt.cols, 0, 0, 0) == knight
    m = mask(sc, 0).reshape(U, V, N_HEXES)
    to = hex_id(4, 3)
    assert m[0, MOVE, to] and m[0, SKIP, 0] and not m[1:].any()
    apply_action(bt.st, bt.cols, bt.f, bt.k, rng_state(np.array([1])), 0, 0, (0 * V + MOVE) * N_HEXES + to, RANDOM)
    assert bt.i(POS, 0, knight) == to and bt.i(ACTIONS, 0, knight) == 0
    assert not mask(sc, 0).any()  # both of seat 0's units have acted


def test_a_ranged_attack_is_not_blocked(tmp_path: Path) -> None:
    # I-3: hex.md "Ranged attacks are not blocked by other units." (only the distance counts)
    sc = board(tmp_path, ['{ side = 0, col = 2, row = 0, name = "R", power = 1, range = 3, health = 3 }',
                          '{ side = 1, col = 2, row = 1, name = "Wall", health = 3 }',
                          '{ side = 1, col = 2, row = 3, name = "E", health = 3 }'])
    assert mask(sc, 0).reshape(U, V, N_HEXES)[0, ATTACK, hex_id(2, 3)]


def test_a_channelling_unit_that_dies_and_returns_by_undying_has_its_channel_cancelled(tmp_path: Path) -> None:
    # hex-keywords.md "If the channeling unit becomes dead or silenced, the channeling is cancelled." - also
    # when Undying returns it: no counters and no pending cast from the moment it dies (a turn's channel
    # tick walks only units with counters, so a cast must never wait on a unit without them)
    from battlesim.systems.hex.state import A_PENDING_HEX, A_PENDING_UNIT, CHANNEL_C

    sc = board(tmp_path, [
        ('{ side = 0, col = 4, row = 0, name = "Zephra", hero = true, movement = 2, health = 8, mana = 3, '
         'keywords = { undying = true }, abilities = [{ name = "Mind Theft", cost = 3, cast_range = 3, '
         'target = "enemy", channel = 2, effects = [{ op = "control", rounds = 1 }] }] }'),
        '{ side = 1, col = 4, row = 2, name = "Knight", power = 2, movement = 1, health = 5 }'],
        steps='[[steps]]\ndo = "ability"\nunit = [4, 0]\nability = "Mind Theft"\ntarget = [4, 2]\n\n'
              '[[steps]]\ndo = "damage"\ntarget = [4, 0]\namount = 20\ntype = "pure"\n')
    bt = sc.battle
    s = int(np.flatnonzero(bt.st.alive[0] & (bt.st.i16[bt.cols[POS], 0] == hex_id(4, 0)))[0])
    sc._step(sc.spec.steps[0])
    assert bt.st.i16[bt.cols[CHANNEL_C], 0, s] == 2 and bt.f.abil[0, s, :, A_PENDING_HEX].any()
    sc._step(sc.spec.steps[1])
    assert bt.alive(0, s) and bt.i(HEALTH, 0, s) == bt.i(MAX_HEALTH, 0, s)  # returned by Undying
    assert bt.st.i16[bt.cols[CHANNEL_C], 0, s] == 0
    assert not bt.f.abil[0, s, :, A_PENDING_HEX].any() and not bt.f.abil[0, s, :, A_PENDING_UNIT].any()


def test_the_random_agent_draws_as_from_the_whole_table() -> None:
    # spec §6: the random agent is uniform over the legal entries of the battle table. It draws
    # from the units' counts and the hex sets (legal_rows, nth_entry) without writing the table:
    # at every decision of many games the counts are the table's blocks' and the entry, and the
    # RNG after it, are rng.choice's over the whole table (the draw the engine always made)
    from battlesim.ecs.compiled.rng import choice
    from battlesim.ecs.decisions import make_agent
    from battlesim.ecs.ruleset import get_ruleset
    from battlesim.systems.hex.game import MAX_STEPS, HexBatch, agent_codes
    from battlesim.systems.hex.play import RNG_AGENT, SETUP, STEP, play_batch, random_action

    game = get_ruleset("hex").load()
    codes = agent_codes([make_agent("random"), make_agent("greedy")])  # greedy too: boards random play rarely reaches
    full = np.zeros(WIDTH, dtype=np.bool_)
    decided = 0
    for decks in (("bulwark_blitz", "ember_blitz"), ("gale_blitz", "thorn_blitz"), ("ember_blitz", "gale_blitz"),
                  ("thorn_blitz", "bulwark_blitz")):
        hb = HexBatch(game.armies(decks), np.arange(12, dtype=np.int64))
        w, cols, f, k = hb.bt.st, hb.bt.cols, hb.bt.f, hb.bt.k
        for b in range(12):
            one = np.array([b], dtype=np.int64)
            play_batch(w, cols, f, k, hb.rng, one, codes, MAX_STEPS, False, SETUP, hb.out)
            while f.g[b, WINNER] < 0:
                seat = int(f.g[b, TO_ACT])
                if seat >= 0:
                    units = legal_actions(w, cols, f, k, b, seat, full)
                    blocks = full.reshape(U, V * N_HEXES)
                    assert (k.counts == blocks.sum(axis=1)).all()
                    assert all(blocks[u].any() == bool(units >> u & 1) for u in range(U))
                    want_rng, got_rng = hb.rng.copy(), hb.rng.copy()
                    want = choice(want_rng, b, full, RNG_AGENT)
                    assert random_action(w, cols, f, k, got_rng, b, seat, RNG_AGENT) == want
                    assert (want_rng == got_rng).all()
                    decided += 1
                play_batch(w, cols, f, k, hb.rng, one, codes, MAX_STEPS, False, STEP, hb.out)
    assert decided > 2000


def test_greedy_takes_the_kill_a_trample_move_makes(tmp_path: Path) -> None:
    # issue 14 "greedy (a heuristic worth playing against: damage and kills by type ...)"; hex.md
    # "Trample X – ... those enemy units take X physical damage." (I-23: the move may end on the
    # enemy it kills): greedy values that move as a kill, not only as a step towards the centre
    from battlesim.systems.hex.play import GREEDY, agent_action

    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "T", power = 1, movement = 2, health = 9, keywords = { trample = 2 } }',
                          '{ side = 1, col = 1, row = 2, name = "E", power = 1, health = 2 }',
                          '{ side = 1, col = 8, row = 6, name = "Far", power = 1, health = 3 }'])
    bt = sc.battle
    assert mask(sc, 0).reshape(U, V, N_HEXES)[0, MOVE, hex_id(1, 2)]
    a = agent_action(bt.st, bt.cols, bt.f, bt.k, rng_state(np.array([1])), 0, 0, GREEDY)
    assert a == (0 * V + MOVE) * N_HEXES + hex_id(1, 2)

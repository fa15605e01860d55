"""hex.md "Battle Rounds" (H10.1-H10.9), "Victory" (H8) and the centre token (H9.3.3), through
the compiled kernels of ``systems/hex/turn.py``: each test cites its sentence or choice."""

from __future__ import annotations

from pathlib import Path

from hex_boards import board

from battlesim.systems.hex.board import hex_id
from battlesim.systems.hex.state import END_NO_UNITS, END_REASON, LAST_ACTOR, OPENER, POS, ROUND, TO_ACT, WINNER

A = '{ side = 0, col = 1, row = 1, name = "A", health = 3, movement = 2, power = 1 }'
Z = '{ side = 1, col = 7, row = 5, name = "Z", health = 3, movement = 2, power = 1 }'


def test_nobody_acted_last_round_the_same_opener_opens(tmp_path: Path) -> None:
    # I-11: hex.md "the player who last performed an action in the previous round acts second";
    # skips are not actions (H10.4), so after a round of skips the previous opener opens again
    sc = board(tmp_path, [A, Z], head="first_player = 1")
    bt = sc.battle
    bt.skip(0, 16)
    bt.skip(0, 0)
    assert bt.f.g[0, TO_ACT] == -1 and bt.f.g[0, LAST_ACTOR] == -1
    bt.round_end(0)
    bt.round_start(0)
    assert (bt.f.g[0, ROUND], bt.f.g[0, OPENER], bt.f.g[0, TO_ACT]) == (2, 1, 1)


def test_the_last_actor_acts_second(tmp_path: Path) -> None:
    # hex.md "The player who last performed an action in the previous round acts second."
    sc = board(tmp_path, [A, Z])
    bt = sc.battle
    bt.skip(0, 0)
    bt.move(0, 16, hex_id(7, 4), None)  # side 1 performs the last action
    bt.round_end(0)
    bt.round_start(0)
    assert bt.f.g[0, TO_ACT] == 0


def test_round_start_does_not_run_in_round_1(tmp_path: Path) -> None:
    # I-10: H10.9 "At the start of the next round": a scenario in round 1 starts with its units as written
    sc = board(tmp_path, ['{ side = 0, col = 1, row = 1, name = "A", health = 3, statuses = { burn = 2 } }', Z])
    assert sc.state()["units"][0]["health"] == 3 and sc.battle.f.g[0, ROUND] == 1


def test_early_end_when_the_first_player_has_no_unit(tmp_path: Path) -> None:
    # I-17 (spec §2.11): "the first player owns and controls no unit on the battlefield -> the second player wins at once"
    sc = board(tmp_path, [A, Z])
    sc.battle.deal(0, -1, 0, 5, 4)  # 5 pure
    g = sc.battle.f.g
    assert (g[0, WINNER], g[0, END_REASON], g[0, TO_ACT]) == (1, END_NO_UNITS, -1)


def test_the_second_player_losing_everything_does_not_end_early(tmp_path: Path) -> None:
    # hex.md "Otherwise, the second player wins.": only the first player can win, and only by the centre (I-15)
    sc = board(tmp_path, [A, Z])
    sc.battle.deal(0, -1, 16, 5, 4)
    assert sc.battle.f.g[0, WINNER] == -1


def test_centre_token_goes_to_either_side(tmp_path: Path) -> None:
    # I-16: hex.md "The first buffable unit to end a turn on this hex receives the +1 Shield buff." (whoever's unit)
    sc = board(tmp_path, [A, '{ side = 1, col = 4, row = 4, name = "Z", health = 3, movement = 1 }'], head="to_act = 1")
    bt = sc.battle
    bt.move(0, 16, hex_id(4, 3), None)
    u = next(x for x in sc.state()["units"] if x["name"] == "Z")
    assert u["statuses"] == {"shield": 1} and sc.state()["centre_shield"] is False
    assert bt.i(POS, 0, 16) == hex_id(4, 3)


def test_a_concession_ends_the_game_for_the_opponent(tmp_path: Path) -> None:
    # hex.md "A player wins immediately if their opponent concedes." (I-14: an API call, not an agent action)
    from battlesim.systems.hex.state import END_CONCEDE, END_REASONS

    sc = board(tmp_path, [A, Z])
    sc.battle.concede(0, 0)
    g = sc.battle.f.g
    assert (g[0, WINNER], g[0, TO_ACT], END_REASONS[g[0, END_REASON]]) == (1, -1, "concede")
    assert g[0, END_REASON] == END_CONCEDE

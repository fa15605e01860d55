"""grid.md 4.1 Managing Units and the player turn (spec §2 Player turn start, Unit turn, Hired
units, Victory), played through the engine (``battlesim scenario``'s runner: the compiled legal
mask and ``apply_action``)."""

from __future__ import annotations

import numpy as np

from battlesim.systems.grid.action_table import MOVE, SELECT, USE, decode
from battlesim.systems.grid.rules import legal_mask
from battlesim.systems.grid.state import K


def mask_kinds(p) -> list[tuple[int, int, int]]:
    r = p.run
    legal_mask(r.ws, r.cols, r.f, r.bd, r.ct, r.pr, 0, r.work, r.mask)
    return [decode(int(a), r.cells, K, r.f.hand.shape[2]) for a in np.flatnonzero(r.mask)]


def test_only_the_current_players_units_have_actions(play, unit):
    # grid.md 4.4.1: "Unless specified otherwise, combat can only be initiated during a player's turn."
    p = play(unit("A", 0, 3, 3, "Footman") + unit("E", 1, 3, 5, "Footman"))
    r = p.run
    own = r.plan.board.cell(3, 3)
    selects = [c for kind, _, c in mask_kinds(p) if kind == SELECT]
    assert selects == [own]


def test_a_unit_turn_is_started_before_it_moves_and_one_at_a_time(play, unit, steps):
    # grid.md 4.1.2: "The player must do everything with a single unit's turn before managing the
    # next available unit or hero's turn."
    p = play(unit("A", 0, 0, 0, "Footman") + unit("B", 0, 5, 0, "Footman")
             + steps({"do": "start_unit_turn", "unit": "A"}))
    kinds = mask_kinds(p)
    moves = {c for kind, _, c in kinds if kind == MOVE}
    assert moves and all(p.run.bd.manhattan[0, c] <= 3 for c in moves)  # only A's moves: B is not active
    assert [c for kind, _, c in kinds if kind == SELECT] == [p.run.plan.board.cell(5, 0)]


def test_starting_another_unit_ends_the_active_ones_turn(play, unit, steps):
    # grid.md 4.1.3: "Starting the turn of another unit or hero results in the immediate termination
    # of the previous card's turn."
    p = play(unit("A", 0, 0, 0, "Footman") + unit("B", 0, 5, 0, "Footman")
             + steps({"do": "move", "unit": "A", "to": [0, 1]}, {"do": "start_unit_turn", "unit": "B"}))
    assert p.state["active_unit"] == "B"
    assert p.unit("A")["has_turn"] is False and p.unit("A")["mv_left"] == 0


def test_hiring_does_not_end_the_active_units_turn(play, unit, steps):
    # spec §2 Hiring mid-turn: "Allowed at any time in the own player turn; does not end the active unit's turn"
    p = play('[players]\ngold = [5, 0]\nhand = [["Footman"], []]\n' + unit("A", 0, 0, 3, "Footman")
             + steps({"do": "move", "unit": "A", "to": [0, 4]}, {"do": "hire", "card": "Footman", "at": [3, 0]},
                     {"do": "move", "unit": "A", "to": [0, 5]}))
    assert p.error is None, p.error
    assert p.unit("A")["y"] == 5 and p.unit("Footman")["has_turn"] is False and p.state["gold"] == [3, 0]


def test_a_hired_unit_acts_in_its_owners_next_turn(play, steps):
    # grid.md 4.4.4: "treated as if it was newly spawned" (spec §2 Hired units: hired_units_act = false)
    p = play('[players]\ngold = [5, 0]\nhand = [["Footman"], []]\n'
             + steps({"do": "hire", "card": "Footman", "at": [3, 0]}, {"do": "end_turn"}, {"do": "end_turn"},
                     {"do": "move", "unit": "Footman", "to": [3, 3]}))
    assert p.error is None, p.error
    assert p.unit("Footman")["y"] == 3 and p.state["round"] == 2


def test_the_other_player_gains_gold_and_se_and_draws(play, steps):
    # grid.md 4.1.4: "the other player's turn begins by gaining gold and drawing a card."
    p = play('[players]\ngold = [1, 1]\nse = [98, 98]\ndeck = [["Haste"], ["Footman", "Longbow"]]\n'
             + steps({"do": "end_turn"}))
    assert p.state["gold"] == [1, 4] and p.state["hand"] == [[], ["Footman"]] and p.state["deck_size"] == [1, 1]
    assert p.state["se"] == [98, 99]  # spec §2: + se_per_turn, up to se_cap = 99


def test_a_card_drawn_into_a_full_hand_is_burned_and_an_empty_deck_draws_nothing(play, steps):
    # spec §2 Player turn start: "hand_limit = 7: a card drawn into a full hand is burned; empty deck: no draw"
    full = ", ".join(['"Footman"'] * 7)
    p = play(f'[players]\nhand = [[], [{full}]]\ndeck = [[], ["Haste"]]\n'
             + steps({"do": "end_turn"}, {"do": "end_turn"}))
    assert len(p.state["hand"][1]) == 7 and p.state["cemetery"][1] == ["Haste"]
    assert p.state["hand"][0] == [] and p.state["deck_size"] == [0, 0]


def test_a_round_is_both_players_turns_and_the_limit_ends_the_game(play, unit, steps):
    # spec §2 Victory: "round_limit = 20 (a round = both players' turns): more kill points wins, equal = draw"
    p = play('round = 20\n[players]\nkill_points = [2, 1]\n' + steps({"do": "end_turn"}))
    assert p.state["round"] == 20 and p.state["winner"] is None
    p = play('round = 20\n[players]\nkill_points = [2, 1]\n' + steps({"do": "end_turn"}, {"do": "end_turn"}))
    assert p.state["winner"] == 0 and p.state["draw"] is False
    p = play('round = 20\n[players]\nkill_points = [1, 1]\n' + steps({"do": "end_turn"}, {"do": "end_turn"}))
    assert p.state["winner"] is None and p.state["draw"] is True


def test_stun_is_removed_at_the_end_of_the_lost_turn(play, unit, steps):
    # grid.md 4.4.4: "A stunned card ... is treated as if it was newly spawned on the opponent's turn."
    p = play(unit("A", 0, 0, 0, "Footman", statuses="{ stunned = true }")
             + steps({"do": "end_turn"}, {"do": "end_turn"}, {"do": "move", "unit": "A", "to": [0, 3]}))
    assert p.error is None, p.error
    assert p.unit("A")["statuses"] == {} and p.unit("A")["y"] == 3


def test_a_bonus_action_keeps_the_turn_a_main_action_ends_it(play, unit, steps):
    # grid.md 4.3.5: "the bonus action will not be considered as the main action"; 4.3.4: "If the
    # action is not part of combat, the completion of the action indicates that the unit or hero has
    # ended its turn and cannot engage in combat afterwards."
    p = play(unit("S", 0, 3, 3, "Sellsword") + steps({"do": "ability", "unit": "S", "ability": "Sprint"}))
    assert p.unit("S")["has_turn"] and p.unit("S")["mv_left"] == 4 and p.state["active_unit"] == "S"
    p = play('[board]\nmana_pools = [[3, 3]]\n' + unit("Elf", 0, 3, 3, "Elf Gatherer")
             + steps({"do": "ability", "unit": "Elf", "ability": "Gather"}))
    assert not p.unit("Elf")["has_turn"] and p.state["active_unit"] is None


def test_ability_uses_are_in_the_mask_only_with_enough_se(play, unit):
    # grid.md 4.3.7: "Each unit or hero can only use actions if the player has enough SE."
    def uses(se: int) -> list:
        p = play(f'[players]\nse = [{se}, 10]\n' + unit("Mage", 0, 3, 3, "Archmage")
                 + '[[steps]]\ndo = "start_unit_turn"\nunit = "Mage"\n')
        return [k for kind, k, _ in mask_kinds(p) if kind == USE]

    assert 1 in uses(3) and 1 not in uses(2)  # Blink costs 3 SE
    assert set(uses(4)) == {0, 1}  # Fireball 4 SE, its centre an empty cell in range


def test_elimination_loses_when_a_player_starts_without_units_or_hires(tmp_path, params, card_set):
    # spec §2 Victory: "elimination = false (true: a player starting its turn with no unit on the
    # board and no affordable hire loses)"
    from battlesim.systems.grid.scenario import GridScenarioRun

    path = tmp_path / "e.toml"
    path.write_text('ruleset = "grid"\n' + """
[[units]]
side = 0
x = 0
y = 0
name = "A"
card = "Footman"
[[steps]]
do = "end_turn"
""", encoding="utf-8")
    on = params.model_copy(update={"elimination": True})
    assert GridScenarioRun(path, on, card_set.specs).run()["winner"] == 0
    assert GridScenarioRun(path, params, card_set.specs).run()["winner"] is None

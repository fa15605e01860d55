"""grid.md 4.2-4.4 as the engine plays them beyond the scenario files: statuses ticking (hidden,
invisible, parry counts), spells, items and traps (ledger choices), targeting limits of
abilities, deaths with their items, and the seeded reshuffle after a search."""

from __future__ import annotations


def test_a_main_action_ends_hiding_a_bonus_action_does_not(play, unit, steps):
    # grid.md 4.2.14: "Units or heroes with the hiding ability can move and then hide as long as no
    # other action or combat is taken." (ledger Hidden: lost by an attack or a main action)
    sprint = '[{ name = "Sprint", op = "extra_mv", bonus = true, amount = 1 }]'
    p = play(unit("R", 0, 3, 3, "Cutpurse", statuses="{ hidden = true }", abilities=sprint)
             + steps({"do": "ability", "unit": "R", "ability": "Sprint"}))
    assert p.unit("R")["statuses"] == {"hidden": True}
    gather = '[{ name = "Gather", op = "gather", amount = 2 }]'
    p = play('[board]\nmana_pools = [[3, 3]]\n' + unit("R", 0, 3, 3, "Cutpurse", statuses="{ hidden = true }",
                                                       abilities=gather)
             + steps({"do": "ability", "unit": "R", "ability": "Gather"}))
    assert p.unit("R")["statuses"] == {}


def test_invisibility_lasts_until_its_owners_next_turn(play, unit, steps):
    # grid.md 4.4.1: "A unit or hero cannot target a hidden or invisible unit." (ledger Hidden:
    # invisible "until its owner's next turn")
    p = play(unit("R", 0, 3, 3, "Cutpurse", statuses="{ invisible = true }") + unit("E", 1, 3, 4, "Footman")
             + steps({"do": "end_turn"}))
    assert p.unit("R")["statuses"] == {"invisible": True}
    p = play(unit("R", 0, 3, 3, "Cutpurse", statuses="{ invisible = true }") + unit("E", 1, 3, 4, "Footman")
             + steps({"do": "end_turn"}, {"do": "end_turn"}))
    assert p.unit("R")["statuses"] == {}


def test_vanish_hides_an_own_rogue_only(play, unit, steps):
    # grid.md 4.4.1: "cannot target a hidden or invisible unit" (ledger: op conceal, Vanish own rogue)
    p = play('[players]\nhand = [["Vanish"], []]\n' + unit("C", 0, 3, 1, "Acolyte") + unit("R", 0, 3, 3, "Cutpurse")
             + steps({"do": "play", "card": "Vanish", "unit": "C", "target": "R"}))
    assert p.unit("R")["statuses"] == {"hidden": True} and p.state["se"] == [8, 10]
    p = play('[players]\nhand = [["Vanish"], []]\n' + unit("C", 0, 3, 1, "Acolyte") + unit("F", 0, 3, 3, "Footman")
             + steps({"do": "play", "card": "Vanish", "unit": "C", "target": "F"}))
    assert p.error is not None and "steps[0] (play): not legal" in p.error


def test_parry_counts_again_in_each_opponent_turn(play, unit, steps):
    # grid.md 4.4.4: "Attacks can be nullified by using abilities such as parry" (ledger: the first N
    # non-AoE attacks in each opponent turn)
    p = play(unit("A", 0, 3, 3, "Sellsword") + unit("D", 1, 3, 4, "Blademaster")
             + steps({"do": "attack", "unit": "A", "target": "D"}, {"do": "end_turn"}, {"do": "end_turn"},
                     {"do": "attack", "unit": "A", "target": "D"}))
    assert p.unit("D")["hp"] == 9


def test_an_item_replaces_the_old_one_and_boots_add_mv(play, unit, steps):
    # grid.md 4.2.3: "A unit or hero can use actions, items or spell cards to increase movement."
    p = play('[players]\ngold = [10, 0]\nhand = [["Iron Shield", "Boots of Speed"], []]\n' + unit("F", 0, 0, 0, "Footman")
             + steps({"do": "play", "card": "Iron Shield", "target": "F"},
                     {"do": "play", "card": "Boots of Speed", "target": "F"}, {"do": "move", "unit": "F", "to": [0, 4]}))
    assert p.error is None, p.error
    f = p.unit("F")
    assert (f["mv"], f["y"], f["resist"]["physical"]) == (4, 4, 1)
    assert p.state["cemetery"] == [["Iron Shield"], []] and p.state["gold"] == [6, 0]


def test_a_dead_unit_and_its_item_go_to_the_cemetery(play, unit, steps):
    # grid.md 4.4.4: "Unless specified otherwise, dead units are placed in the cemetary"
    p = play('[players]\ngold = [0, 3]\nhand = [[], ["Longbow"]]\n'
             + unit("A", 0, 3, 3, "Footman") + unit("E", 1, 3, 4, "Longbowman", hp=1)
             + steps({"do": "end_turn"}, {"do": "play", "card": "Longbow", "target": "E"}, {"do": "end_turn"},
                     {"do": "attack", "unit": "A", "target": "E"}))
    assert p.error is None, p.error
    assert p.state["cemetery"] == [[], ["Longbowman", "Longbow"]] and p.state["kill_points"] == [1, 0]


def test_a_trap_goes_only_on_the_own_half_and_not_off_for_own_units(play, unit, steps):
    # grid.md 4.4.3: "Physical damage occurs from melee, ranged weapons and spike traps." (ledger Traps)
    p = play('[players]\ngold = [2, 0]\nhand = [["Spike Trap"], []]\n'
             + steps({"do": "play", "card": "Spike Trap", "cell": [3, 4]}))
    assert p.error is not None and "not legal" in p.error
    p = play('[players]\ngold = [2, 0]\nhand = [["Spike Trap"], []]\n' + unit("F", 0, 3, 0, "Footman")
             + steps({"do": "play", "card": "Spike Trap", "cell": [3, 2]}, {"do": "move", "unit": "F", "to": [3, 3]}))
    assert p.unit("F")["hp"] == 8 and p.unit("F")["y"] == 3 and p.state["cemetery"] == [[], []]


def test_a_flyer_sets_a_trap_off(play, unit, steps):
    # grid.md 4.2.9: "Flying creatures are not affected by web obstacles." (webs only: ledger Traps)
    p = play('[players]\ngold = [2, 0]\nhand = [["Spike Trap"], []]\n' + unit("Bat", 1, 3, 4, "Giant Bat")
             + steps({"do": "play", "card": "Spike Trap", "cell": [3, 3]}, {"do": "end_turn"},
                     {"do": "move", "unit": "Bat", "to": [3, 1]}))
    assert (p.unit("Bat")["y"], p.unit("Bat")["hp"], p.unit("Bat")["mv_left"]) == (3, 3, 3)


def test_heal_and_conceal_take_own_units_area_centres_no_own_unit(play, unit, steps):
    # spec §3 op heal: "own unit in range"; spec §2 AoE: "the centre must be in range and LoS (a
    # visible enemy, or a cell with cell)"
    p = play(unit("Ac", 0, 3, 1, "Acolyte") + unit("E", 1, 3, 3, "Footman", hp=5)
             + steps({"do": "ability", "unit": "Ac", "ability": "Mend", "target": "E"}))
    assert p.error is not None and "not legal" in p.error
    p = play(unit("W", 0, 3, 1, "Hex Witch") + unit("F", 0, 3, 3, "Footman") + unit("E", 1, 4, 3, "Footman")
             + steps({"do": "attack", "unit": "W", "ability": "Poison Cloud", "target": "F"}))
    assert p.error is not None and "not legal" in p.error


def test_search_reshuffles_the_deck_by_the_seed(play, unit, steps):
    # grid.md 4.3.12: "the player can search their deck to find a specific card and add it to their hand."
    deck = '"Footman", "Haste", "Longbowman", "Vanish", "Longbow", "Iron Shield", "Sellsword"'

    def after(seed: int) -> list[str]:
        p = play(f'seed = {seed}\n[players]\nhand = [["Scout\'s Eye"], []]\ndeck = [[{deck}], []]\n'
                 + unit("F", 0, 3, 1, "Footman") + steps({"do": "play", "card": "Scout's Eye", "unit": "F"},
                                                        {"do": "end_turn"}, {"do": "end_turn"}))
        assert p.state["hand"][0][0] == "Longbowman"
        return p.state["hand"][0][1:]

    draws = {after(s)[0] for s in range(12)}
    assert after(3) == after(3) and len(draws) > 1  # seeded, and the top card does change with the seed


def test_an_item_put_on_a_named_unit_does_not_start_its_turn(play, unit, steps):
    # spec §3 Items: "put on an own unit (any time in the own turn, not an action)"
    p = play('[players]\ngold = [3, 0]\nhand = [["Longbow"], []]\n' + unit("A", 0, 0, 0, "Footman")
             + unit("Bow", 0, 3, 0, "Longbowman")
             + steps({"do": "move", "unit": "A", "to": [0, 1]}, {"do": "play", "card": "Longbow", "unit": "Bow"},
                     {"do": "move", "unit": "A", "to": [0, 2]}))
    assert p.error is None, p.error
    assert p.unit("Bow")["range"] == 4 and p.unit("Bow")["has_turn"] and p.state["active_unit"] == "A"

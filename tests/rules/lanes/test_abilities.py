"""lanes.md "Hero Abilities", "Activated Improvements" and the action keywords (Quickcast, Keep
Initiative) as they change whose turn it is.

Boards are scenario files written inline (docs/scenarios.md), with their own cards, so these
checks do not depend on the shipped card set. Ledger: an ability or an activation is not
"playing a card": it never moves initiative; once per round; a cooldown of X keeps it unusable
for the X rounds after the round of use; the lane mana pool grows by ``lane_mana_per_round``
(1) per round up to ``lane_mana_cap`` (5).
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from battlesim.systems.lanes.compiled.processors import StartOfRound
from battlesim.systems.lanes.legal import legal_abilities, legal_activations
from battlesim.systems.lanes.scenario import ScenarioError, Step, load_scenario
from battlesim.systems.lanes.scenario_steps import run_step

G = np.array([0])

HERO = """
[[cards]]
name = "Test Pyromancer"
type = "hero"
faction = "Red"
rarity = "Legendary"
attack = 2
health = 8
ability = {{ mana = {mana}, cooldown = {cooldown}, quickcast = {quick}, target = "enemy_unit", effects = [{{ op = "damage", select = "chosen", amount = 1 }}] }}
"""

TOWER = """
[[cards]]
name = "Test Tower"
type = "improvement"
faction = "Red"
cost = 1
ability = {{ cooldown = {cooldown}, charges = {charges}, quickcast = {quick}, effects = [{{ op = "damage", select = "enemy_anchor", amount = 1 }}] }}
"""


def build(game, tmp_path, body: str, cards: str = ""):
    """A scenario from TOML text (top-level keys first, then ``cards``)."""
    path = tmp_path / "scenario.toml"
    path.write_text('ruleset = "lanes"\nrule = "test"\n' + textwrap.dedent(body) + "\n" + textwrap.dedent(cards))
    return load_scenario(path, game=game)


def step(sc, **kw):
    run_step(sc, 0, Step.model_validate(kw))


def hero_board(game, tmp_path, mana=2, cooldown=0, quick="false", lane_mana="[[5, 5, 5], [5, 5, 5]]"):
    return build(game, tmp_path, f"""
        units = [
          {{ side = 0, lane = 1, pos = 2, card = "Test Pyromancer" }},
          {{ side = 1, lane = 1, pos = 4, name = "Target", attack = 0, health = 20 }},
        ]
        [players]
        initiative = 0
        lane_mana = {lane_mana}
        """, HERO.format(mana=mana, cooldown=cooldown, quick=quick))


def can_use(sc, seat=0) -> bool:
    out = np.zeros((1, 3, 5), dtype=bool)
    legal_abilities(sc.w, G, np.array([seat]), out)
    return bool(out[0, 1, 2])


def use(sc):
    step(sc, do="ability", side=0, lane=1, pos=2, target=[1, 1, 4])


def next_round(sc):
    step(sc, do="round_end")
    step(sc, do="round_start")


def test_ability_pays_mana_from_its_lanes_pool_not_resources(game, tmp_path):
    # lanes.md "Hero Abilities": "Mana Cost - Requires spending mana from the lane's mana pool";
    # "Using an active ability: ... Pay any mana cost"; resources pay for cards only
    sc = hero_board(game, tmp_path, mana=2)
    use(sc)
    w = sc.w
    assert w.g.lane_mana[0].tolist() == [[5, 3, 5], [5, 5, 5]]
    assert w.g.resources[0].tolist() == [10, 10]
    target = w.g.board[0, 1, 1, 4]
    assert w.c.health[0, target] == 19  # "Ability resolves immediately"


def test_ability_needs_enough_mana_in_its_own_lane(game, tmp_path):
    # lanes.md: "Mana Cost - Requires spending mana from the lane's mana pool"
    assert not can_use(hero_board(game, tmp_path, mana=2, lane_mana="[[5, 1, 5], [5, 5, 5]]"))
    assert can_use(hero_board(game, tmp_path, mana=2, lane_mana="[[0, 2, 0], [0, 0, 0]]"))


def test_lane_mana_pool_grows_one_per_round_up_to_five(game, tmp_path):
    # ledger: "Mana Cost - Requires spending mana from the lane's mana pool": each side has one
    # pool per lane, +lane_mana_per_round (1) at each round start, capped at lane_mana_cap (5)
    assert (game.params.lane_mana_per_round, game.params.lane_mana_cap) == (1, 5)
    sc = hero_board(game, tmp_path, lane_mana="[[0, 3, 5], [4, 1, 0]]")
    StartOfRound().process(sc.w)
    assert sc.w.g.lane_mana[0].tolist() == [[1, 4, 5], [5, 2, 1]]
    for _ in range(6):
        StartOfRound().process(sc.w)
    assert (sc.w.g.lane_mana[0] == 5).all()


def test_a_new_game_starts_with_empty_mana_pools(game, new_world):
    # ledger: the pools start at 0 and fill at each round start (1 mana in round 1)
    w = new_world(1)
    assert (w.g.lane_mana[0] == 0).all()
    StartOfRound().process(w)
    assert (w.g.lane_mana[0] == 1).all()


def test_cooldown_counts_the_rounds_after_the_round_of_use(game, tmp_path):
    # lanes.md: "Cooldown X - After using, cannot be used again for X rounds"; "Cooldown begins"
    # ledger: used in round 1 with cooldown 2, it is unusable in rounds 2 and 3, usable in 4
    sc = hero_board(game, tmp_path, mana=0, cooldown=2)
    assert can_use(sc)
    use(sc)
    assert not can_use(sc)
    usable = []
    for _ in range(3):
        next_round(sc)
        usable.append((int(sc.w.g.round[0]), can_use(sc)))
    assert usable == [(2, False), (3, False), (4, True)]


def test_ability_once_per_round_even_without_cooldown(game, tmp_path):
    # ledger, interpretation 26: an active ability is used at most once per round (cooldown 0 =
    # every round), resting on lanes.md: "Cooldown X - After using, cannot be used again for X rounds"
    # (use is counted in rounds) and lanes.md: "Phase continues until both players pass consecutively"
    sc = hero_board(game, tmp_path, mana=1, cooldown=0, quick="true")
    use(sc)
    assert not can_use(sc)
    next_round(sc)
    assert can_use(sc)


@pytest.mark.parametrize("quick", [False, True])
def test_ability_ends_the_turn_unless_quickcast_and_keeps_initiative(game, tmp_path, quick):
    # lanes.md: "Active - Must be manually activated, uses your turn (unless Quickcast)";
    # "Your turn ends (unless ability has Quickcast)"; "Quickcast - Playing this card/ability does
    # not end your turn (free action)". Ledger: using an ability is not playing a card, so
    # initiative stays where it was
    sc = hero_board(game, tmp_path, mana=0, quick=str(quick).lower())
    use(sc)
    assert sc.w.g.to_act[0] == (0 if quick else 1)
    assert sc.w.g.initiative[0] == 0
    assert sc.w.g.passes[0] == 0


def test_ability_with_no_legal_target_cannot_be_used(game, tmp_path):
    # lanes.md: "Targeting - Some abilities require selecting a target": with no enemy unit to
    # choose in its lane the ability is not offered
    sc = build(game, tmp_path, """
        units = [{ side = 0, lane = 1, pos = 2, card = "Test Pyromancer" },
                 { side = 1, lane = 2, pos = 4, name = "Elsewhere", attack = 0, health = 5 }]
        """, HERO.format(mana=0, cooldown=0, quick="false"))
    assert not can_use(sc)


def test_silence_blocks_the_ability_until_it_decays(game, tmp_path):
    # lanes.md: "Silenced - Unit cannot use abilities. Decays by 1 at end of round"
    sc = hero_board(game, tmp_path, mana=0)
    hero = sc.w.g.board[0, 0, 1, 2]
    sc.w.c.silenced[0, hero] = 1
    assert not can_use(sc)
    next_round(sc)
    assert can_use(sc)


def test_only_the_owner_uses_its_heroes_ability(game, tmp_path):
    sc = hero_board(game, tmp_path, mana=0)
    out = np.zeros((1, 3, 5), dtype=bool)
    legal_abilities(sc.w, G, np.array([1]), out)
    assert not out.any()


# -- activated improvements ----------------------------------------------------------------

def tower_board(game, tmp_path, cooldown=0, charges=-1, quick="false"):
    return build(game, tmp_path, """
        units = [{ side = 0, lane = 0, pos = 0, name = "Warlord", attack = 0, health = 5, hero = true, faction = "Red" }]
        improvements = [{ side = 0, lane = 0, card = "Test Tower" }]
        [players]
        initiative = 1
        """, TOWER.format(cooldown=cooldown, charges=charges, quick=quick))


def can_activate(sc) -> bool:
    out = np.zeros((1, 3, 3), dtype=bool)
    legal_activations(sc.w, G, np.array([0]), out)
    return bool(out[0, 0, 0])


def activate(sc):
    step(sc, do="activate", side=0, lane=0, slot=0)


@pytest.mark.parametrize("quick", [False, True])
def test_activation_costs_the_action_unless_quick(game, tmp_path, quick):
    # lanes.md "Activated Improvements": "Activating an Improvement costs your action (ends your
    # turn like playing a card)"; "Some activated effects are free actions (do not end your turn)
    # — marked with the Quick keyword". Ledger: it does not move initiative.
    sc = tower_board(game, tmp_path, quick=str(quick).lower())
    activate(sc)
    assert sc.w.c.health[0, 3 + 0] == 29  # side 1's anchor of lane 0 (slot 3): "On Activation"
    assert sc.w.g.to_act[0] == (0 if quick else 1)
    assert sc.w.g.initiative[0] == 1


def test_activation_cooldown(game, tmp_path):
    # lanes.md: "May have cooldowns (cannot activate again for X rounds)"
    sc = tower_board(game, tmp_path, cooldown=1)
    activate(sc)
    assert not can_activate(sc)
    next_round(sc)
    assert not can_activate(sc)  # round 2: the one round of cooldown
    next_round(sc)
    assert can_activate(sc)  # round 3


def test_activation_once_per_round(game, tmp_path):
    # ledger: at most once per round, like hero abilities
    sc = tower_board(game, tmp_path, quick="true")
    activate(sc)
    assert not can_activate(sc)
    next_round(sc)
    assert can_activate(sc)


def test_charges_limit_the_uses_then_the_improvement_expires(game, tmp_path):
    # lanes.md: "May have charges (limited number of uses before expiring)"
    sc = tower_board(game, tmp_path, charges=2)
    activate(sc)
    assert sc.w.g.improvements[0, 0, 0, 0] >= 0
    next_round(sc)
    activate(sc)
    assert (sc.w.g.improvements[0, 0, 0] < 0).all()
    assert sc.w.c.health[0, 3] == 28


def test_unlimited_charges_never_expire(game, tmp_path):
    # docs/cards.md: charges = -1 is unlimited
    sc = tower_board(game, tmp_path, charges=-1)
    for _ in range(3):
        activate(sc)
        next_round(sc)
    assert sc.w.g.improvements[0, 0, 0, 0] >= 0
    assert sc.w.c.health[0, 3] == 27


# -- Quickcast and Keep Initiative on cards -----------------------------------------------

CARDS = """
[[cards]]
name = "Test Spark"
type = "spell"
faction = "Red"
cost = 1
effects = [{ trigger = "on_play", op = "damage", select = "enemy_anchor", amount = 1 }]

[[cards]]
name = "Test Quick Spark"
type = "spell"
faction = "Red"
cost = 1
quickcast = true
effects = [{ trigger = "on_play", op = "damage", select = "enemy_anchor", amount = 1 }]

[[cards]]
name = "Test Tempo Spark"
type = "spell"
faction = "Red"
cost = 1
keep_initiative = true
effects = [{ trigger = "on_play", op = "damage", select = "enemy_anchor", amount = 1 }]

[[cards]]
name = "Test Tempo Recruit"
type = "unit"
faction = "Red"
cost = 1
attack = 1
health = 1
keep_initiative = true

[[cards]]
name = "Test Zap"
type = "spell"
faction = "Red"
cost = 1
target = "enemy_unit"
effects = [{ trigger = "on_play", op = "damage", select = "chosen", amount = 1 }]
"""


def card_board(game, tmp_path):
    return build(game, tmp_path, """
        units = [
          { side = 0, lane = 0, pos = 0, name = "Warlord", attack = 0, health = 5, hero = true, faction = "Red" },
          { side = 1, lane = 0, pos = 3, name = "Foe", attack = 0, health = 9 },
        ]
        [players]
        initiative = 0
        """, CARDS)


@pytest.mark.parametrize("card, to_act, initiative", [
    ("Test Spark", 1, 1),          # "Cast Spell - ... ends your turn"; "Playing any card ... passes initiative"
    ("Test Quick Spark", 0, 1),    # Quickcast: the turn goes on; initiative still passes (ledger)
    ("Test Tempo Spark", 1, 0),    # Keep Initiative: the turn ends, initiative stays
    ("Test Tempo Recruit", 1, 0),  # Keep Initiative on a unit
])
def test_playing_a_card_turn_and_initiative(game, tmp_path, card, to_act, initiative):
    # lanes.md: "Cast Spell - Cast a spell card (may require targeting, ends your turn)";
    # "Playing any card (unit or spell) automatically ends your turn and passes initiative";
    # "Keep Initiative - Playing this card does not pass initiative to the opponent";
    # "Quickcast - Playing this card/ability does not end your turn (free action)"
    sc = card_board(game, tmp_path)
    step(sc, do="play", side=0, card=card, lane=0, pos=1 if "Recruit" in card else 0)
    assert (int(sc.w.g.to_act[0]), int(sc.w.g.initiative[0])) == (to_act, initiative)
    assert sc.w.g.resources[0, 0] == 9


def test_a_targeted_spell_asks_its_player_for_the_target_then_ends_the_turn(game, tmp_path):
    # lanes.md: "Cast Spell - Cast a spell card (may require targeting, ends your turn)";
    # ledger: the target is a second decision of the same player
    from battlesim.systems.lanes.compiled.processors import PlayPhase
    from battlesim.systems.lanes.play import PENDING_NONE, PENDING_SPELL

    sc = card_board(game, tmp_path)
    w, A = sc.w, game.actions
    cat = sc.game.cards.catalog
    w.g.hand[0, 0, 0] = cat.id("Test Zap")
    phase = PlayPhase(A)
    actor, legal = phase.request(w, G)
    assert actor[0] == 0 and legal[0, A.play(0, 0, 0)]
    phase.apply(w, G, actor, np.array([A.play(0, 0, 0)]))
    assert w.g.pending_kind[0] == PENDING_SPELL
    actor, legal = phase.request(w, G)
    assert actor[0] == 0  # the same player chooses
    assert np.flatnonzero(legal[0]).tolist() == [A.target(1, 0, 3)]
    phase.apply(w, G, actor, np.array([A.target(1, 0, 3)]))
    assert w.g.pending_kind[0] == PENDING_NONE
    assert (int(w.g.to_act[0]), int(w.g.initiative[0])) == (1, 1)
    assert w.c.health[0, w.g.board[0, 1, 0, 3]] == 8


def test_scenario_step_refuses_an_ability_while_silenced(game, tmp_path):
    sc = hero_board(game, tmp_path, mana=0)
    sc.w.c.silenced[0, sc.w.g.board[0, 0, 1, 2]] = 2
    with pytest.raises(ScenarioError, match="not legal: activate hero at lane 1 pos 2"):
        use(sc)

"""lanes.md "Phase 2: Play Phase", "Faction Restrictions", "Lane Rules" (bounce, positions),
"Units", "Hero Death & Respawn" (faction access)."""

from __future__ import annotations

from battlesim.systems.lanes.compiled.processors import Combat, PlayPhase

RECRUIT = "Cinder Recruit"  # Red unit, cost 1, 2/1
SPEARMAN = "Normark Spearman"  # Red unit, cost 2, 3/2
LOOKOUT = "Ostland Lookout"  # Blue unit


def setup(new_world, put, script, s0=(), s1=(), hand0=(), hand1=(), resources=(3, 3), initiative=0):
    a, b = script.playing(*s0), script.playing(*s1)
    w = new_world(1, agents=[a, b])
    cat = w.catalog
    for seat, hand in ((0, hand0), (1, hand1)):
        for h, name in enumerate(hand):
            w.g.hand[0, seat, h] = cat.id(name)
    w.g.resources[0] = resources
    w.g.max_resources[0] = resources
    w.g.initiative[0] = initiative
    return w, a, b


def test_playing_a_unit_places_it_and_costs_its_cost(game, new_world, put, script):
    # lanes.md: "Play Unit - Place a unit card in a lane"; "Playing a card costs resources equal to its cost"
    A = game.actions
    cat = game.cards.catalog
    w, a, b = setup(new_world, put, script, s0=[A.play(1, 0, 1), A.play(0, 0, 2), 0], s1=[0, 0, 0],
                    hand0=[RECRUIT, SPEARMAN], resources=(3, 3))
    put(w, 0, side=0, lane=0, pos=0, attack=4, health=7, hero=True)  # Kaelen Ashbrand, Red
    PlayPhase(A).process(w)
    assert w.g.resources[0].tolist() == [0, 3]
    sp, rc = w.g.board[0, 0, 0, 1], w.g.board[0, 0, 0, 2]
    assert w.c.card_id[0, sp] == cat.id(SPEARMAN) and w.c.card_id[0, rc] == cat.id(RECRUIT)
    assert (w.c.attack[0, sp], w.c.health[0, sp], w.c.max_health[0, sp]) == (3, 2, 2)
    assert (w.c.attack[0, rc], w.c.health[0, rc]) == (2, 1)
    assert w.c.owner[0, sp] == 0 and not w.c.hero[0, sp] and not w.c.creep[0, sp]
    assert (w.g.hand[0, 0] < 0).all()  # both cards left the hand


def test_a_card_costing_more_than_the_resources_left_cannot_be_played(game, new_world, put, script, legal_plays):
    # lanes.md: "Cards cost resources to play"; "Resources Required to play"
    w, a, b = setup(new_world, put, script, hand0=[RECRUIT, SPEARMAN], resources=(1, 1))
    put(w, 0, side=0, lane=0, pos=0, attack=4, health=7, hero=True)
    legal = legal_plays(w, 0, 0)
    assert legal[0, 0, 1:].all() and not legal[1].any()
    w.g.resources[0, 0] = 2
    assert legal_plays(w, 0, 0)[1, 0, 1:].all()


def test_faction_gating_by_a_matching_hero_in_the_lane(game, new_world, put, script, legal_plays):
    # lanes.md "Faction Restrictions": "All cards (units, spells, improvements) require a
    # matching-faction hero in the origin lane"; "For lane-targeted cards, the target lane is
    # the origin lane"; lanes.md "Units": "Can only be played in lanes with a matching-faction hero"
    w, a, b = setup(new_world, put, script, hand0=[RECRUIT, LOOKOUT], resources=(10, 10))
    assert not legal_plays(w, 0, 0).any()  # no hero anywhere: nothing can be played
    put(w, 0, side=0, lane=1, pos=4, attack=4, health=7, hero=True)  # Red hero in lane 1
    put(w, 0, side=1, lane=2, pos=0, attack=4, health=7, hero=True, card="Kaelen Ashbrand")  # the opponent's Red hero
    legal = legal_plays(w, 0, 0)
    assert legal[0].tolist() == [[False] * 5, [True, True, True, True, False], [False] * 5]
    assert not legal[1].any()  # Blue card: no Blue hero of ours anywhere
    put(w, 0, side=0, lane=2, pos=2, attack=3, health=8, hero=True, hero_index=1, card="Ithra Tidecaller")
    legal = legal_plays(w, 0, 0)
    assert legal[1].tolist() == [[False] * 5, [False] * 5, [True, True, False, True, True]]
    assert not legal[0, 2].any()  # the Blue hero gives Red no access


def test_dead_hero_gives_no_faction_access_until_a_hero_is_back(game, new_world, put, script, legal_plays):
    # lanes.md: "If all your heroes in a lane are destroyed, you cannot play matching-faction
    # cards there until a matching hero is present again"
    # lanes.md "Hero Death & Respawn": "(cannot act or provide lane faction access)"
    w, a, b = setup(new_world, put, script, hand0=[RECRUIT], resources=(10, 10))
    w.g.round[:] = 5
    put(w, 0, side=0, lane=0, pos=0, attack=1, health=2, hero=True, hero_index=0, max_health=7)
    put(w, 0, side=0, lane=0, pos=1, attack=1, health=9, hero=True, hero_index=1)  # a 2nd Red hero
    put(w, 0, side=1, lane=0, pos=0, attack=5, health=9)
    put(w, 0, side=1, lane=0, pos=1, attack=5, health=9)
    assert legal_plays(w, 0, 0)[0, 0, 2:].all()
    Combat().process(w)  # hero 0 dies, hero 1 survives (9 - 5)
    assert legal_plays(w, 0, 0)[0, 0, [0, 2, 3, 4]].all()  # one matching hero is enough
    w.c.attack[0, w.g.board[0, 1, 0, 1]] = 9
    Combat().process(w)  # hero 1 dies too
    assert not (w.c.hero[0] & w.alive[0]).any()
    assert not legal_plays(w, 0, 0).any()
    put(w, 0, side=0, lane=2, pos=3, attack=4, health=7, hero=True, hero_index=0)  # redeployed in lane 2
    legal = legal_plays(w, 0, 0)
    assert not legal[0, :2].any() and legal[0, 2, [0, 1, 2, 4]].all()


def test_bounce_replaces_your_own_unit(game, new_world, put, script):
    # lanes.md "Lane Rules": "Bounce: Playing a unit on a position occupied by your own unit
    # destroys the existing unit and places the new one there"
    A = game.actions
    cat = game.cards.catalog
    w, a, b = setup(new_world, put, script, s0=[A.play(0, 0, 3), 0], s1=[0, 0], hand0=[SPEARMAN])
    put(w, 0, side=0, lane=0, pos=0, attack=4, health=7, hero=True)
    old = put(w, 0, side=0, lane=0, pos=3, attack=1, health=1, card=RECRUIT)
    PlayPhase(A).process(w)
    new = w.g.board[0, 0, 0, 3]
    assert w.c.card_id[0, new] == cat.id(SPEARMAN) and w.c.attack[0, new] == 3
    assert int((w.alive[0] & ~w.c.anchor[0] & (w.c.owner[0] == 0)).sum()) == 2  # hero + new unit
    assert not w.alive[0, old] or new == old  # the old unit is gone (the new one may reuse its slot)
    assert w.g.gold[0].tolist() == [0, 0]  # destroying your own unit is no kill
    assert w.g.resources[0, 0] == 1


def test_bounce_replaces_your_own_creep(game, new_world, put, script):
    # lanes.md "Lane Rules": "Bounce" — a creep is a unit you own on the board
    # ledger (interpretation): creeps and units can be bounced
    A = game.actions
    w, a, b = setup(new_world, put, script, s0=[A.play(0, 1, 0), 0], s1=[0, 0], hand0=[RECRUIT])
    put(w, 0, side=0, lane=1, pos=2, attack=4, health=7, hero=True)
    put(w, 0, side=0, lane=1, pos=0, attack=1, health=1, creep=True, card="Normark Raider")
    PlayPhase(A).process(w)
    s = w.g.board[0, 0, 1, 0]
    assert not w.c.creep[0, s] and w.c.card_id[0, s] == game.cards.catalog.id(RECRUIT)
    assert not (w.c.creep[0] & w.alive[0]).any()


def test_heroes_cannot_be_bounced(game, new_world, put, script, legal_plays):
    # ledger, interpretation 4: a hero's cell is not a legal target, resting on
    # lanes.md: "Bounce: Playing a unit on a position occupied by your own unit destroys the existing unit"
    # read with lanes.md: "Maximum 5 units per lane (heroes count toward this limit)" (the text names heroes when it means them)
    w, a, b = setup(new_world, put, script, hand0=[RECRUIT], resources=(10, 10))
    put(w, 0, side=0, lane=0, pos=2, attack=4, health=7, hero=True)
    put(w, 0, side=0, lane=0, pos=4, attack=3, health=8, hero=True, hero_index=1)
    put(w, 0, side=0, lane=0, pos=0, attack=1, health=1)
    assert legal_plays(w, 0, 0)[0, 0].tolist() == [True, True, False, True, False]


def test_cards_are_played_on_your_own_side_only(game, new_world, put, script):
    # lanes.md "Lane Rules": "Cards fight the opposing card at the same index" — each side has its own 0-4
    A = game.actions
    w, a, b = setup(new_world, put, script, s0=[A.play(0, 0, 1), 0], s1=[0, 0], hand0=[RECRUIT])
    put(w, 0, side=0, lane=0, pos=0, attack=4, health=7, hero=True)
    opp = put(w, 0, side=1, lane=0, pos=1, attack=1, health=1)
    PlayPhase(A).process(w)
    assert w.g.board[0, 1, 0, 1] == opp and w.alive[0, opp]
    assert w.c.owner[0, w.g.board[0, 0, 0, 1]] == 0


def test_five_positions_per_side_and_lane(game, new_world, put, script, legal_plays):
    # lanes.md: "Maximum 5 units per lane (heroes count toward this limit)"
    # lanes.md: "Players choose the position (0 through 4) when playing a card"
    w, a, b = setup(new_world, put, script, hand0=[RECRUIT], resources=(10, 10))
    put(w, 0, side=0, lane=0, pos=0, attack=4, health=7, hero=True)
    legal = legal_plays(w, 0, 0)
    assert legal.shape[-1] == 5
    assert legal[0, 0].tolist() == [False, True, True, True, True]  # 4 cells besides the hero
    for pos in range(1, 5):
        put(w, 0, side=0, lane=0, pos=pos, attack=1, health=1)
    # a full lane (hero + 4 units) accepts a new unit only by bouncing one of the 4
    assert legal_plays(w, 0, 0)[0, 0].tolist() == [False, True, True, True, True]
    assert int((w.g.board[0, 0, 0] >= 0).sum()) == 5


def test_cards_are_played_face_up(game, new_world, put, script):
    # lanes.md: "Cards are played face-up (immediately visible to opponent)"
    A = game.actions
    w, a, b = setup(new_world, put, script, s0=[A.play(0, 2, 4), 0], s1=[0, 0], hand0=[RECRUIT])
    put(w, 0, side=0, lane=2, pos=0, attack=4, health=7, hero=True)
    PlayPhase(A).process(w)
    seen = b.calls[0]["board"][0, 0, 2, 4]
    assert seen >= 0 and seen == w.g.board[0, 0, 2, 4]

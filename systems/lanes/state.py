"""What a lanes World holds, and how a batch of games is set up (lanes.md "Game Setup").

Cards in decks and hands are catalog ids in per-game zone arrays rather than entities: a
deck is an ordered pile, and keeping ~100 pile cards per game out of the entity slots keeps
every board system's ``[B, S]`` arrays small. A card becomes an entity when it reaches the
board (DESIGN.md allows it: "entities carry CardId"; this is the one departure, noted there).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

import battlesim.components  # noqa: F401  (registers the built-in components)
from battlesim.components.keywords import KEYWORDS, STATUSES
from battlesim.ecs.rng import Stream
from battlesim.ecs.world import StateField, World
from battlesim.systems.lanes import board
from battlesim.systems.lanes.cards import CardSet, Deck
from battlesim.systems.lanes.params import LanesParams

BASE_COMPONENTS = [
    "card_id", "owner", "faction", "hero", "creep", "lane", "pos",
    "attack", "health", "max_health", "anchor", "essence", "ruined", "hero_index", "deck_pos", "dying",
    "anchor_aura", "hit_by",
    "temp_attack", "temp_health", "equipment", "improvement", "timer", "charges", "cooldown",
    "used_round", "bounty", "aura",
]


def components() -> list[str]:
    """What a lanes World allocates: the base components, then every declared keyword and
    status (a plugin's too, in declaration order); a keyword that is a status (``STATUS_KEYWORDS``)
    is one component."""
    return list(dict.fromkeys([*BASE_COMPONENTS, *KEYWORDS, *STATUSES]))
MAX_IMPROVEMENTS = 3  # lanes.md: "Maximum 3 Improvements per lane per player"
OFFERS = 3  # lanes.md: "Each player is presented with 3 equipment items to choose from"

# hero roster status
LOCKED, READY, ON_BOARD, DEAD = 0, 1, 2, 3

# end reasons (games table column ``end_reason``)
END_REASONS = ("", "two_anchors", "lane_destroyed", "round_limit", "simultaneous")
RUNNING = -2  # winner value of an unfinished game; -1 is a draw


def state_fields(p: LanesParams, deck_size: int, equipment_size: int) -> list[StateField]:
    L, P, K = p.lanes, p.positions, p.heroes
    return [
        StateField("round", np.int16, default=1, doc="Current round, from 1."),
        StateField("initiative", np.int8, doc="Seat holding initiative."),
        StateField("first_player", np.int8, doc="Seat that held initiative at the start."),
        StateField("resources", np.int16, (2,), doc="Resources left this round."),
        StateField("max_resources", np.int16, (2,), doc="Resource maximum this round."),
        StateField("gold", np.int32, (2,), doc="Gold (bounties)."),
        StateField("winner", np.int8, default=RUNNING, doc="0/1 winner, -1 draw, -2 running."),
        StateField("end_reason", np.int8, doc="Index into END_REASONS."),
        StateField("rounds", np.int16, doc="Rounds played when the game ended."),
        StateField("objective_hp_snapshot", np.int32, (2,), default=-1,
                   doc="Each side's objective HP at the end of round 5 (-1: the game ended before; measures.py)."),
        StateField("deck_index", np.int16, (2,), doc="Index of each seat's deck in the run's deck list."),
        StateField("deck", np.int16, (2, deck_size), default=-1, doc="Shuffled main deck (card ids)."),
        StateField("deck_size", np.int16, (2,)),
        StateField("deck_top", np.int16, (2,), doc="Index of the next card to draw."),
        StateField("hand", np.int16, (2, p.hand_limit), default=-1, doc="Hand (card ids, -1 empty)."),
        StateField("hand_src", np.int16, (2, p.hand_limit), default=-1, doc="Deck position of each hand card."),
        StateField("burned", np.int16, (2,), doc="Cards drawn into a full hand and burned."),
        StateField("card_drawn", np.int16, (2, deck_size), doc="Round each deck card was drawn (0: never)."),
        StateField("card_played", np.int16, (2, deck_size), doc="Round each deck card was played (0: never)."),
        StateField("card_died", np.int16, (2, deck_size), doc="Round each deck card's unit died (0: never)."),
        StateField("hero_card", np.int16, (2, K), default=-1, doc="Roster: hero card in deck slots 1-5."),
        StateField("hero_status", np.int8, (2, K), doc="LOCKED, READY, ON_BOARD or DEAD."),
        StateField("hero_ready_round", np.int16, (2, K), doc="Round a dead hero may redeploy."),
        StateField("creep_card", np.int16, (2,), doc="The creep each seat spawns."),
        StateField("board", np.int16, (2, L, P), default=board.EMPTY, doc="Cell index: slot or -1."),
        StateField("to_act", np.int8, doc="Seat to act in the play phase."),
        StateField("passes", np.int8, doc="Consecutive passes in the play phase."),
        StateField("in_play", np.bool_, doc="The play phase is still running in this game."),
        StateField("left_side", np.int8, doc="Round 1 step 2: the seat that deploys to lane 0."),
        StateField("improvements", np.int16, (2, L, MAX_IMPROVEMENTS), default=board.EMPTY,
                   doc="Improvement slots per side and lane, oldest first."),
        StateField("lane_mana", np.int16, (2, L), doc="Mana pool per side and lane (hero abilities)."),
        StateField("shop_tier", np.int8, (2,), default=1, doc="Shop tier (1-5)."),
        StateField("offers", np.int16, (2, OFFERS), default=-1, doc="Shop offers: index into equip_pool, -1 none."),
        StateField("shop_bought", np.bool_, (2,), doc="Bought something this shop phase."),
        StateField("shop_upgraded", np.bool_, (2,), doc="Upgraded this shop phase."),
        StateField("shop_done", np.bool_, (2,), doc="Finished this shop phase."),
        StateField("equip_pool", np.int16, (2, equipment_size), default=-1,
                   doc="The equipment deck (card ids); -1 once bought."),
        StateField("pending_kind", np.int8, doc="What awaits a target or a caster: 0 nothing, see play.PENDING_*."),
        StateField("pending_card", np.int16, default=-1, doc="Card whose effects await a target."),
        StateField("pending_src", np.int16, default=-1, doc="Source entity of the pending effects."),
        StateField("pending_caster", np.int16, default=-1, doc="Caster (hero) of a pending spell."),
        StateField("pending_lane", np.int8, default=-1, doc="Origin lane of the pending effects."),
        StateField("pending_free", np.bool_, doc="The pending action does not end the turn (quickcast)."),
    ]


def new_world(
    cards: CardSet,
    params: LanesParams,
    seeds: np.ndarray,
    decks: Sequence[Deck],
    deck_index: np.ndarray,
    setup: Callable[[World, Sequence[Deck], np.ndarray, int, int], None] | None = None,
) -> World:
    """A batch of fresh games. ``deck_index[b, seat]`` picks each seat's deck from ``decks``.

    Setup draws, in this order per game: the two deck shuffles, then initiative
    (lanes.md: "At the start of the game, initiative is randomly assigned to one player").
    The World is allocated here; ``setup(w, decks, deck_index, D, M)`` sets up each game: runs
    pass the compiled one (``compiled.processors.setup_world``, over ``setup_game``); the default
    is the numpy code it is tested against (``numpy_setup``; this module cannot import the compiled
    one, which reads its codes).
    """
    seeds = np.asarray(seeds, dtype=np.int64)
    B = seeds.shape[0]
    D, M = _deck_room(decks)
    # anchors + every cell + every improvement + margin
    S = 6 + 2 * params.lanes * params.positions + 2 * params.lanes * MAX_IMPROVEMENTS + 2
    w = World(B, S, components(), state_fields(params, D, M), seeds=seeds, catalog=cards.catalog, params=params)
    w.load_hooks = [board.rebuild]
    attach_rules(w)
    _set_up(w, decks, deck_index, setup)
    return w


def restart_world(
    w: World,
    seeds: np.ndarray,
    decks: Sequence[Deck],
    deck_index: np.ndarray,
    setup: Callable[[World, Sequence[Deck], np.ndarray, int, int], None] | None = None,
) -> None:
    """World ``w``, made by ``new_world`` for these ``decks``, emptied (``World.restart``) and set
    up again for games seeded ``seeds`` (as many as it has): the games ``new_world`` would make,
    in the arrays it already has."""
    w.restart(seeds)
    _set_up(w, decks, deck_index, setup)


def _deck_room(decks: Sequence[Deck]) -> tuple[int, int]:
    """The room per seat for a main deck (D) and an equipment deck (M) of any of ``decks``."""
    return max(int(d.main.size) for d in decks), max(max(int(d.equipment.size) for d in decks), 1)


def _set_up(w: World, decks: Sequence[Deck], deck_index: np.ndarray,
            setup: Callable[[World, Sequence[Deck], np.ndarray, int, int], None] | None) -> None:
    D, M = _deck_room(decks)
    deck_index = np.ascontiguousarray(np.broadcast_to(np.asarray(deck_index, dtype=np.int16), (w.n_games, 2)))
    (setup or numpy_setup)(w, decks, deck_index, D, M)


def numpy_setup(w: World, decks: Sequence[Deck], deck_index: np.ndarray, D: int, M: int) -> None:
    """The per-game part of ``new_world`` in numpy: the reference ``setup_game`` is tested against
    (tests/test_compiled_lanes_round.py); goes with the numpy engine."""
    params = w.params
    B = w.n_games
    games = w.games
    g = w.g
    g.deck_index[:] = deck_index

    # Anchors: slots 0..5, one per side and lane (lanes.md: "Each anchor starts with 30 HP").
    for side in range(2):
        for lane in range(params.lanes):
            s = w.allocate(games)
            w.add(games, s, owner=side, lane=lane, pos=-1, health=params.anchor_hp, max_health=params.anchor_hp)
            w.c.anchor[games, s] = True

    # Decks, heroes and creeps per seat, from each game's deck index.
    mains = np.full((len(decks), D), -1, dtype=np.int16)
    for i, d in enumerate(decks):
        mains[i, : d.main.size] = d.main
    sizes = np.array([d.main.size for d in decks], dtype=np.int16)
    heroes = np.stack([d.heroes for d in decks])
    creeps = np.array([d.creep for d in decks], dtype=np.int16)
    pools = np.full((len(decks), M), -1, dtype=np.int16)
    for i, d in enumerate(decks):
        pools[i, : d.equipment.size] = d.equipment
    g.equip_pool[:] = pools[deck_index]
    g.deck[:] = mains[deck_index]
    g.deck_size[:] = sizes[deck_index]
    g.hero_card[:] = heroes[deck_index]
    g.creep_card[:] = creeps[deck_index]

    # Shuffle: random sort keys; padding sorts last (key = max).
    keys = w.rng.permutation_keys(games, 2 * D, Stream.SHUFFLE).reshape(B, 2, D)
    keys[g.deck < 0] = np.iinfo(np.uint64).max
    order = np.argsort(keys, axis=2, kind="stable")
    g.deck[:] = np.take_along_axis(g.deck, order, axis=2)

    g.initiative[:] = w.rng.integers(games, 2, Stream.INITIATIVE)
    g.first_player[:] = g.initiative


def attach_rules(w: World) -> None:
    """What the lanes systems need on every World: the effect table, the damage pipeline, and
    per-card trigger masks that let listeners be found without scanning every effect."""
    from battlesim.systems.lanes.damage_stages import lanes_pipeline
    from battlesim.systems.lanes.vocabulary import EXECUTOR

    cat = w.catalog
    EXECUTOR.silenced = silenced
    w.effects = cat.effects
    w.pipeline = lanes_pipeline()
    equipment = cat.arrays.kind == 4
    w.equip_keywords = {kw for kw in KEYWORDS if getattr(cat.arrays, f"kw_{kw}")[equipment].any()}
    w.cache = {}
    for trig in ("on_enemy_death", "on_ally_deploy", "on_enemy_deploy", "on_enemy_play", "on_play_ally",
                 "start_of_round", "end_of_round"):
        has = w.effects.cards_with(EXECUTOR.id("trigger", trig))
        w.cache[trig] = has if has.any() else None
    w.cache["aura_cards"] = w.effects.cards_with(EXECUTOR.id("trigger", "while_in_lane"))
    enchant = w.effects.op == EXECUTOR.id("opcode", "enchant_anchor")
    anchor_auras = (enchant & (w.effects.params["stat"] >= 0)).any()
    # with no aura card and no anchor aura in the set, every aura read is a constant None
    w.cache["auras_possible"] = bool(w.cache["aura_cards"].any() or anchor_auras)


def silenced(w, games: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """Sources whose triggered abilities are switched off (lanes.md "Silenced - Unit cannot use
    abilities"; ledger: auras, being passive, stay on)."""
    return w.c.silenced.reshape(-1)[games * w.n_slots + slots] > 0  # one flat gather

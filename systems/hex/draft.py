"""The hex draft (spec §2.4; hex.md H9.2; I-5, I-6, I-9): two players pick armies of <= 80 gold
from their draft kingdoms, in alternating draft turns, the first player first. The result is two
armies in the blitz shape (every card drafted, each unit on the hex it was drafted onto), so the
battle plays them exactly like blitz kingdoms (``setup.place``).

Python, not compiled: a draft is 10-20 decisions against a battle's 80-150, once per game.
Deciders: ``random`` draws uniformly among the legal entries of the spec §6 draft table (each
card x free hex for a unit, each other card once, END and COMPLETE where legal); ``greedy`` (and
``lookahead``, whose search is the battle's) takes the legal card with the most value per gold
onto the free hex nearest the centre, and ENDs its turn as soon as END is legal; ``pass`` drafts
its hero only. Each seat draws from its own numpy Generator seeded by (seed, DRAFT_STREAM, seat): a
draft depends only on its seed, kingdoms and agents.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from battlesim.ecs.compiled.rng import integers, rng_state
from battlesim.systems.hex.board import CENTRE_ID, COLS, DIST, from_rank, hex_id, on_board
from battlesim.systems.hex.cards import AbilityCard, HexCardSet, ItemCard, UnitCard
from battlesim.systems.hex.kingdoms import ARMY_GOLD, DEPLOY_RANKS, INVENTORY_SLOTS, Kingdom
from battlesim.systems.hex.step import RNG_FIRST

DRAFT_STREAM = 6  # the drafters' draws (numpy Generator seeded by (seed, DRAFT_STREAM))
END, COMPLETE = "END", "COMPLETE"
SIDE_UNITS = 16  # a side's unit slots (spec §6 U), the hero included
# hex.md "the two rows of hexes closest to them": (col, rank) from the own edge
DEPLOY = tuple((c, r) for r in range(DEPLOY_RANKS) for c in range(COLS) if on_board(*from_rank(0, c, r)))
NEAR = {h: int(DIST[hex_id(*from_rank(0, *h)), CENTRE_ID]) for h in DEPLOY}  # a deployment hex's steps to (4, 3)


@dataclass
class Drafter:
    """One player's draft: its pool (card key -> copies left), what it drafted, its gold."""

    kingdom: Kingdom
    pool: Counter
    cards: list[str]
    placed: list[tuple[str, int, int]]
    gold: int = 0
    slots: int = 0
    complete: bool = False


def first_player(seed: int) -> int:
    """Spec §2.3: the first player as the compiled loop draws it (stream RNG_FIRST of the game's
    RNG), so the player who drafts first (I-9) is the one who opens round 1."""
    rng = rng_state(np.array([seed], dtype=np.int64))
    return int(integers(rng, 0, 2, RNG_FIRST))


def legal_picks(d: Drafter, cards: HexCardSet) -> list[tuple[str, tuple[int, int] | None]]:
    """H9.2.4.1 "A player may not draft more than 80 gold worth of cards."; a unit needs a free
    hex of its two rows, an item free inventory slots (hex.md "A hero cannot use more than 3
    inventory slots worth of items."); I-5: the hero is the first pick; I-44: a higher ability
    level needs the lower one drafted."""
    taken = {(c, r) for _, c, r in d.placed}
    free = [h for h in DEPLOY if h not in taken]
    hero = d.kingdom.hero
    if not d.placed:
        return [(hero, h) for h in free]
    have = set(d.cards)
    out: list[tuple[str, tuple[int, int] | None]] = []
    for key, left in sorted(d.pool.items()):
        card = cards.cards[key]
        if left <= 0 or d.gold + (card.gold or 0) > ARMY_GOLD:
            continue
        if isinstance(card, UnitCard):
            if len(d.placed) < SIDE_UNITS:
                out += [(key, h) for h in free]
        elif isinstance(card, ItemCard):
            if d.slots + card.slots <= INVENTORY_SLOTS:
                out.append((key, None))
        elif isinstance(card, AbilityCard):
            lower = [k for k in have if isinstance(cards.cards[k], AbilityCard) and cards.cards[k].name == card.name]
            if card.level == 1 or any(cards.cards[k].level == card.level - 1 for k in lower):
                out.append((key, None))
    return out


def take(d: Drafter, key: str, where: tuple[int, int] | None, cards: HexCardSet) -> None:
    """Draft ``key`` (onto ``where`` for a unit); I-44: a higher ability level replaces the lower."""
    card = cards.cards[key]
    if key == d.kingdom.hero:
        d.placed.append((key, *where))
        return
    d.pool[key] -= 1
    d.gold += card.gold or 0
    if isinstance(card, AbilityCard):
        d.cards[:] = [k for k in d.cards if not (isinstance(cards.cards[k], AbilityCard)
                                                 and cards.cards[k].name == card.name)]
    if isinstance(card, ItemCard):
        d.slots += card.slots
    d.cards.append(key)
    if where is not None:
        d.placed.append((key, *where))


def value_per_gold(card) -> float:
    """Greedy's simple value per gold: a unit's 2 x power + health + movement (+2 if ranged) per
    gold; an ability or item 1.0 a gold (so a strong unit comes first, spells fill the gold)."""
    if isinstance(card, UnitCard):
        v = 2 * (card.power or 0) + card.health + (card.movement or 0) + (2 if card.range is not None else 0)
        return v / max(card.gold or 1, 1)
    return 1.0


def decide(agent: str, d: Drafter, picks: list, end_ok: bool, complete_ok: bool, cards: HexCardSet,
           gen: np.random.Generator):
    """One entry of the draft table for ``agent``: a pick ``(key, hex)``, END or COMPLETE."""
    if agent == "random":
        n = len(picks) + int(end_ok) + int(complete_ok)
        j = int(gen.integers(n))
        if j < len(picks):
            return picks[j]
        return END if end_ok and j == len(picks) else COMPLETE
    if agent == "pass" and complete_ok:
        return COMPLETE
    if end_ok:
        return END
    vals = {k: value_per_gold(cards.cards[k]) for k in {p[0] for p in picks}}
    return max(picks, key=lambda p: (vals[p[0]], -(NEAR[p[1]] if p[1] else 0)))


def draft(kingdoms: Sequence[Kingdom], cards: HexCardSet, agents: Sequence[str], seed: int,
          first: int | None = None) -> tuple[Kingdom, Kingdom]:
    """Spec §2.4: both armies drafted from ``kingdoms`` (draft kingdoms, seat order) by ``agents``.
    "Players alternate draft turns"; a drafter may END "once it picked >= 1 card and its in-play
    gold >= the opponent's" or when no pick is legal; COMPLETE ends its drafting for good; the
    draft ends when both are complete. Returns the armies as blitz-shaped kingdoms."""
    gens = [np.random.default_rng([seed, DRAFT_STREAM, side]) for side in (0, 1)]  # a seat's draws: its own
    ds = [Drafter(k, Counter(k.cards), [], []) for k in kingdoms]
    seat = first_player(seed) if first is None else first
    while not all(d.complete for d in ds):
        d, other = ds[seat], ds[1 - seat]
        picked = 0
        while True:
            picks = legal_picks(d, cards)
            if not picks:
                d.complete = True  # spec §2.4 "a player with no legal pick is complete"
                break
            end_ok = picked >= 1 and d.gold >= other.gold and bool(d.placed)
            complete_ok = bool(d.placed) and (end_ok or picked == 0)
            choice = decide(agents[seat], d, picks, end_ok, complete_ok, cards, gens[seat])
            if choice == COMPLETE:
                d.complete = True
                break
            if choice == END:
                break
            take(d, choice[0], choice[1], cards)
            picked += 1
        if not ds[1 - seat].complete:
            seat = 1 - seat
    return tuple(replace(d.kingdom, id=f"{d.kingdom.id}:drafted", format="blitz", cards=tuple(d.cards),
                         placed=tuple(d.placed), gold=d.gold) for d in ds)  # type: ignore[return-value]


def play_draft_tables(game, seeds: np.ndarray, decks: tuple[str, str], agents: Sequence,
                      cards: bool = True) -> dict[str, dict[str, np.ndarray]]:
    """``--param format=draft``: per seed, the draft (``draft``), then every game's battle in one
    World (each game holds its own drafted armies: ``setup.put_game``) played by the compiled
    loop; the tables as blitz runs write them, ``drawn_round`` = drafted before round 1 (1). A
    game depends only on its seed, kingdoms and agents, never on its batch mates."""
    from battlesim.ecs.threads import threads
    from battlesim.systems.hex.game import Armies, HexBatch, agent_codes
    from battlesim.systems.hex.results import games_columns
    from battlesim.systems.hex.setup import put_game

    codes = agent_codes(agents)
    names = [getattr(a, "name", a) for a in agents]
    kingdoms = (game.kingdoms[decks[0]], game.kingdoms[decks[1]])
    seeds = np.asarray(seeds, dtype=np.int64)
    armies = [Armies(game.cards, draft(kingdoms, game.cards, names, int(seed))) for seed in seeds]
    hb = HexBatch(armies[0], seeds)
    for b in range(1, len(armies)):
        put_game(armies[b].template, hb.bt, b)
    hb.play(codes, threads())
    out = {"games": games_columns(hb, decks, names)}
    if cards:
        out["cards"] = drafted_cards(hb, armies, game.card_names)
    return out


def drafted_cards(hb, armies: list, card_names: list[str]) -> dict[str, np.ndarray]:
    """The cards table of draft games (``results.cards_columns`` per game: each has its own
    units): one row per unit card of each army, drafted and deployed before round 1 (1)."""
    from battlesim.systems.hex.work import DIED, KILLS

    index = {name: i for i, name in enumerate(card_names)}
    cols: dict[str, list[np.ndarray]] = {c: [] for c in ("seed", "player", "card", "died_round", "kills")}
    for b, a in enumerate(armies):
        slots = np.array(sorted(a.army.card), dtype=np.int64)
        stats = hb.bt.k.stats[b, slots]
        cols["seed"].append(np.full(len(slots), hb.seeds[b], dtype=np.int64))
        cols["player"].append((slots >= SIDE_UNITS).astype(np.int8))
        cols["card"].append(np.array([index[a.army.card[s]] for s in slots], dtype=np.int16))
        cols["died_round"].append(stats[:, DIED].astype(np.int16))
        cols["kills"].append(stats[:, KILLS].astype(np.int16))
    out = {c: np.concatenate(v) for c, v in cols.items()}
    ones = np.ones(len(out["seed"]), dtype=np.int16)
    return {"seed": out["seed"], "player": out["player"], "card": out["card"], "drawn_round": ones,
            "played_round": ones, "died_round": out["died_round"], "kills": out["kills"]}

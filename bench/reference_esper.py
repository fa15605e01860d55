"""Reference implementation: the lanes core written the way an esper user would write it.

One esper world per game (esper 3's module-level contexts, ``esper.switch_world``), one
entity per anchor and per unit on the board, one small dataclass per component, one
``esper.Processor`` per system, one game at a time. It is the yardstick the batched engine
is measured against (``bench/test_reference.py``): same cards, same decks, same rules as
``systems/lanes/`` (the rules text sections named in each class's docstring), same random
agent (uniform over the legal actions, "pass" included), so games/s compare like for like.

It is written to be reasonably fast, as a performance-aware esper user would write it:

- static card data is read once into plain Python lists (no numpy scalars in the hot loop);
- a per-game cell index ``board[side][lane][pos] -> entity | None`` is kept next to the
  ``Position`` components (the engine keeps the same index; scanning every entity to find
  "the unit opposite" would be the silly way);
- the random agent counts the legal actions and decodes the chosen index instead of
  materialising the whole action list;
- components are ``slots`` dataclasses; game-level state (round, initiative, hands, decks)
  lives in a ``Match`` object passed to ``esper.process(match)``, the usual esper idiom for
  per-frame arguments.

It uses Python's ``random.Random(seed)``, so it cannot reproduce the engine's games one for
one (the engine uses its counter-based RNG); the *distributions* (win rates, game lengths)
should agree, and ``bench/test_reference.py::test_reference_matches_engine_statistics``
checks that they do.

Not covered: the shop, spells, equipment, improvements, keywords, card effects, abilities. So
the benchmark (``bench/test_reference.py``) has both implementations play the vanilla card set of
``bench/vanilla.py`` (the shipped units, heroes and creeps with their stats only, and the shipped
decks with their spells and improvements replaced by units): the same cards, the same game.
``python bench/reference_esper.py N`` plays it too (``--shipped``: the shipped set, whose
keywords and effects it ignores).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

import esper

from battlesim.systems.lanes.cards import UNIT, load_card_set
from battlesim.systems.lanes.params import load_params

# hero roster status (same meaning as systems/lanes/state.py)
LOCKED, READY, ON_BOARD, DEAD = 0, 1, 2, 3
RUNNING = -2


# --------------------------------------------------------------------------- components
@dataclass(slots=True)
class Position:
    lane: int
    pos: int


@dataclass(slots=True)
class Owner:
    side: int


@dataclass(slots=True)
class CardRef:
    card: int


@dataclass(slots=True)
class Faction:
    value: int


@dataclass(slots=True)
class Attack:
    value: int


@dataclass(slots=True)
class Health:
    value: int


@dataclass(slots=True)
class Hero:
    index: int  # deck slot 0-4 in its player's roster


@dataclass(slots=True)
class Creep:
    pass


@dataclass(slots=True)
class Anchor:
    lane: int
    essence: bool = False
    ruined: bool = False


@dataclass(slots=True)
class Dying:
    pass


@dataclass(slots=True)
class Player:
    """One seat's zones and counters (a component on the seat's player entity)."""

    seat: int
    deck: list[int]  # shuffled; the top of the deck is the end of the list
    heroes: list[int]  # hero card ids in deck slots 1-5
    creep_card: int
    hand: list[int] = field(default_factory=list)
    hero_status: list[int] = field(default_factory=lambda: [LOCKED] * 5)
    hero_ready_round: list[int] = field(default_factory=lambda: [0] * 5)
    resources: int = 0
    gold: int = 0
    burned: int = 0


@dataclass(slots=True)
class Match:
    """Per-game state that is not an entity; passed to every processor."""

    rules: "Rules"
    rng: random.Random
    players: tuple[Player, Player]
    anchors: list[list[int]]  # anchors[side][lane] -> entity
    board: list[list[list[int | None]]]  # board[side][lane][pos] -> entity or None
    round: int = 1
    initiative: int = 0
    first_player: int = 0
    winner: int = RUNNING
    rounds: int = 0
    over: bool = False


# --------------------------------------------------------------------------- static data
class Rules:
    """Parameters and card data as plain Python values, loaded once."""

    def __init__(self, params=None, cards=None) -> None:
        p = load_params() if params is None else params
        cards = load_card_set(p) if cards is None else cards
        self.p = p
        self.cards = cards
        a = cards.catalog.arrays
        self.attack = a.attack.tolist()
        self.health = a.health.tolist()
        self.cost = a.cost.tolist()
        self.faction = a.faction.tolist()
        self.is_unit = (a.kind == UNIT).tolist()
        self.lanes = p.lanes
        self.positions = p.positions

    def deck(self, deck_id: str):
        return self.cards.deck(deck_id)

    @classmethod
    def of(cls, game) -> "Rules":
        """The parameters and card set of a loaded ``LanesGame`` (e.g. ``bench/vanilla.py``'s)."""
        return cls(game.params, game.cards)


@lru_cache(maxsize=1)
def rules() -> Rules:
    return Rules()


# --------------------------------------------------------------------------- board helpers
def spawn(m: Match, side: int, lane: int, pos: int, card: int, *, hero: int | None = None,
          creep: bool = False) -> int:
    """lanes.md "Lane Rules": a unit occupies one position of its side of a lane."""
    r = m.rules
    if creep:  # "Creep Stats": every creep is 1/1
        atk, hp = r.p.creep_attack, r.p.creep_health
    else:
        atk, hp = r.attack[card], r.health[card]
    comps = [CardRef(card), Owner(side), Faction(r.faction[card]), Position(lane, pos), Attack(atk), Health(hp)]
    if creep:
        comps.append(Creep())
    if hero is not None:
        comps.append(Hero(hero))
    ent = esper.create_entity(*comps)
    m.board[side][lane][pos] = ent
    return ent


def remove(m: Match, ent: int) -> None:
    pos = esper.component_for_entity(ent, Position)
    side = esper.component_for_entity(ent, Owner).side
    m.board[side][pos.lane][pos.pos] = None
    esper.delete_entity(ent, immediate=True)


# --------------------------------------------------------------------------- processors
class CreepSpawn(esper.Processor):
    """"Each player spawns 1 creep per lane"; "at the leftmost empty position in each lane";
    "If a lane is full, the creep for that lane is skipped"."""

    def process(self, m: Match) -> None:
        for side in (0, 1):
            creep = m.players[side].creep_card
            for lane, row in enumerate(m.board[side]):
                if None in row:
                    spawn(m, side, lane, row.index(None), creep, creep=True)


class HeroAvailability(esper.Processor):
    """Deck slots 1-3 unlock in round 1, slot 4 in round 2, slot 5 in round 3; a dead hero is
    ready again at the start of the round after its death ("1-round death timer")."""

    def process(self, m: Match) -> None:
        rnd = m.round
        for p in m.players:
            st = p.hero_status
            for k in range(5):
                if (st[k] == LOCKED and max(1, k - 1) <= rnd) or (st[k] == DEAD and p.hero_ready_round[k] <= rnd):
                    st[k] = READY


class HeroDeployment(esper.Processor):
    """"Hero Deployment Phase": round 1 in three steps (Mid; random sides; remaining lane),
    later rounds any lane/position for every ready hero. Each step is simultaneous: both
    seats choose, then both are placed (they deploy on their own sides, so never collide).
    The random agent picks uniformly among (ready hero, allowed empty cell)."""

    def process(self, m: Match) -> None:
        if m.round == 1:
            left = m.rng.randrange(2)  # "System randomly assigns which player deploys Left (0) vs Right (2)"
            self.step(m, ((1,), (1,)))
            self.step(m, ((0,), (2,)) if left == 0 else ((2,), (0,)))
            self.step(m, ((2,), (0,)) if left == 0 else ((0,), (2,)))
        else:
            every = tuple(range(m.rules.lanes))
            for _ in range(5):  # at most one hero per seat per step
                if not self.step(m, (every, every)):
                    break

    def step(self, m: Match, lanes: tuple[tuple[int, ...], tuple[int, ...]]) -> bool:
        rng = m.rng
        chosen = []
        for seat in (0, 1):
            p = m.players[seat]
            ready = [k for k, st in enumerate(p.hero_status) if st == READY]
            if not ready:
                continue
            side = m.board[seat]
            cells = [(lane, pos) for lane in lanes[seat] for pos, e in enumerate(side[lane]) if e is None]
            if not cells:
                continue
            i = rng.randrange(len(ready) * len(cells))
            chosen.append((seat, ready[i // len(cells)], *cells[i % len(cells)]))
        for seat, k, lane, pos in chosen:  # revealed simultaneously
            p = m.players[seat]
            spawn(m, seat, lane, pos, p.heroes[k], hero=k)
            p.hero_status[k] = ON_BOARD
        return bool(chosen)


class DrawPhase(esper.Processor):
    """"Draw 1 card"; round 1 draws the starting hand of 5 instead. Empty deck: no draw;
    full hand (10): the card is burned (engine ledger)."""

    def process(self, m: Match) -> None:
        p_ = m.rules.p
        n = p_.starting_hand if m.round == 1 else p_.draw_per_round
        limit = p_.hand_limit
        for p in m.players:
            for _ in range(n):
                if not p.deck:
                    break
                card = p.deck.pop()
                if len(p.hand) < limit:
                    p.hand.append(card)
                else:
                    p.burned += 1


class RefreshResources(esper.Processor):
    """"Resource System": round 1 has 3, +1 per round, cap 10, fully refilled."""

    def process(self, m: Match) -> None:
        p_ = m.rules.p
        mx = min(p_.resources_start + m.round - 1, p_.resources_cap)
        for p in m.players:
            p.resources = mx


class PlayPhase(esper.Processor):
    """"Phase 2: Play Phase" + "Initiative System": the initiative holder acts first, seats
    alternate, playing passes initiative, passing keeps it, two passes in a row end the
    phase. Legal plays ("Faction Restrictions", "Lane Rules"): a unit card within resources,
    in a lane holding a hero of its faction, on an empty cell or one of the player's own
    non-hero units (bounced)."""

    def process(self, m: Match) -> None:
        passes = 0
        seat = m.initiative
        while passes < 2:
            choice = self.random_agent(m, seat)
            if choice is None:
                passes += 1
            else:
                self.play(m, seat, *choice)
                passes = 0
                m.initiative = 1 - seat
            seat = 1 - seat

    @staticmethod
    def random_agent(m: Match, seat: int) -> tuple[int, int, int] | None:
        """Uniform over pass + every legal (hand card, lane, position)."""
        r = m.rules
        p = m.players[seat]
        side = m.board[seat]
        # one pass over this seat's 15 cells: factions of its heroes in each lane, and the
        # cells a unit may go to (empty, or an own non-hero unit to bounce)
        lane_factions: list[tuple[int, ...]] = []
        cells: list[list[int]] = []
        for row in side:
            facs = []
            free = []
            for i, e in enumerate(row):
                if e is None:
                    free.append(i)
                elif esper.has_component(e, Hero):
                    facs.append(esper.component_for_entity(e, Faction).value)
                else:
                    free.append(i)
            lane_factions.append(tuple(facs))
            cells.append(free)
        res = p.resources
        options = []  # (hand index, lane, legal positions)
        total = 0
        for h, card in enumerate(p.hand):
            if not r.is_unit[card] or r.cost[card] > res:
                continue
            fac = r.faction[card]
            for lane in range(r.lanes):
                if fac in lane_factions[lane] and cells[lane]:
                    options.append((h, lane, cells[lane]))
                    total += len(cells[lane])
        k = m.rng.randrange(total + 1)
        if k == 0:
            return None  # pass
        k -= 1
        for h, lane, pos in options:
            if k < len(pos):
                return h, lane, pos[k]
            k -= len(pos)
        raise AssertionError("unreachable")

    @staticmethod
    def play(m: Match, seat: int, h: int, lane: int, pos: int) -> None:
        p = m.players[seat]
        card = p.hand.pop(h)
        p.resources -= m.rules.cost[card]
        occupant = m.board[seat][lane][pos]
        if occupant is not None:  # "Bounce": the existing unit is destroyed (no bounty)
            remove(m, occupant)
        spawn(m, seat, lane, pos, card)


class Combat(esper.Processor):
    """"Phase 3: Combat Phase" + "Combat Resolution": lanes 0->2 in odd rounds, 2->0 in even
    ones; each unit hits the opposing unit at its position, else the enemy anchor (once a
    lane's objective is destroyed there is nothing left to hit); all hits of a lane are
    simultaneous; "Anchor & Essence": an anchor at 0 HP becomes a 40 HP essence (excess is
    lost), an essence at 0 HP destroys the lane's objective; dead units are removed after
    the lane resolves, with their bounty."""

    def process(self, m: Match) -> None:
        lanes = range(m.rules.lanes)
        for lane in (lanes if m.round % 2 == 1 else reversed(lanes)):
            self.fight(m, lane)
            resolve_deaths(m)

    @staticmethod
    def fight(m: Match, lane: int) -> None:
        cfe = esper.component_for_entity
        hits: list[tuple[int, int]] = []
        for side in (0, 1):
            mine, theirs = m.board[side][lane], m.board[1 - side][lane]
            anchor = m.anchors[1 - side][lane]
            open_anchor = not cfe(anchor, Anchor).ruined
            for pos, ent in enumerate(mine):
                if ent is None:
                    continue
                atk = cfe(ent, Attack).value
                if atk <= 0:
                    continue
                target = theirs[pos]
                if target is None:
                    if not open_anchor:
                        continue
                    target = anchor
                hits.append((target, atk))
        if not hits:
            return
        for target, amount in hits:  # simultaneous: every hit was chosen before any lands
            cfe(target, Health).value -= amount
        for side in (0, 1):
            a = m.anchors[side][lane]
            hp = cfe(a, Health)
            if hp.value <= 0:
                anc = cfe(a, Anchor)
                if not anc.ruined:
                    if anc.essence:
                        anc.ruined = True
                        hp.value = 0
                    else:
                        anc.essence = True
                        hp.value = m.rules.p.essence_hp
        for target, _ in hits:
            if cfe(target, Health).value <= 0 and not esper.has_component(target, Anchor):
                esper.add_component(target, Dying())


def resolve_deaths(m: Match) -> None:
    """"Bounty": +5 gold for an enemy hero, +1 for an enemy unit or creep; a dead hero waits
    one round ("Hero Death & Respawn")."""
    p_ = m.rules.p
    dead = esper.get_components(Dying, Owner)
    for ent, (_, owner) in dead:
        hero = esper.try_component(ent, Hero)
        if hero is None:
            m.players[1 - owner.side].gold += p_.bounty_unit
        else:
            m.players[1 - owner.side].gold += p_.bounty_hero
            p = m.players[owner.side]
            p.hero_status[hero.index] = DEAD
            p.hero_ready_round[hero.index] = m.round + p_.hero_death_timer
        remove(m, ent)


class VictoryCheck(esper.Processor):
    """"Win Condition": two anchors down, or one lane's anchor and essence destroyed; both
    players at once is a draw (engine ledger)."""

    def process(self, m: Match) -> None:
        fallen = [0, 0]
        ruined = [0, 0]
        for _, (anc, own) in esper.get_components(Anchor, Owner):
            if anc.essence or anc.ruined:
                fallen[own.side] += 1
            if anc.ruined:
                ruined[own.side] += 1
        wins = [fallen[1] >= 2 or ruined[1] >= 1, fallen[0] >= 2 or ruined[0] >= 1]
        if wins[0] and wins[1]:
            self.finish(m, -1)
        elif wins[0] or wins[1]:
            self.finish(m, 0 if wins[0] else 1)

    @staticmethod
    def finish(m: Match, winner: int) -> None:
        m.winner, m.rounds, m.over = winner, m.round, True


class RoundEnd(esper.Processor):
    """A game still running after ``round_limit`` rounds is a draw (engine ledger)."""

    def process(self, m: Match) -> None:
        if m.over:
            return
        if m.round >= m.rules.p.round_limit:
            VictoryCheck.finish(m, -1)
            return
        m.round += 1


# Processors in order; esper runs higher priority first.
SYSTEMS = (CreepSpawn, HeroAvailability, HeroDeployment, DrawPhase, RefreshResources,
           PlayPhase, Combat, VictoryCheck, RoundEnd)


# --------------------------------------------------------------------------- games
def new_game(seed: int, decks: Sequence[str], name: str, r: Rules | None = None) -> Match:
    """Create and switch to esper world ``name`` holding a fresh game (lanes.md "Game Setup")."""
    r = rules() if r is None else r
    esper.switch_world(name)
    for prio, cls in enumerate(reversed(SYSTEMS)):
        esper.add_processor(cls(), priority=prio)
    rng = random.Random(seed)
    players = []
    for seat, deck_id in enumerate(decks):
        d = r.deck(deck_id)
        deck = d.main.tolist()
        rng.shuffle(deck)
        p = Player(seat, deck, d.heroes.tolist(), int(d.creep))
        esper.create_entity(p)
        players.append(p)
    anchors = [
        [esper.create_entity(Anchor(lane), Owner(side), Health(r.p.anchor_hp)) for lane in range(r.lanes)]
        for side in (0, 1)
    ]
    board = [[[None] * r.positions for _ in range(r.lanes)] for _ in (0, 1)]
    m = Match(r, rng, (players[0], players[1]), anchors, board)
    m.initiative = m.first_player = rng.randrange(2)  # "initiative is randomly assigned"
    return m


def play_game(seed: int, decks: Sequence[str] = ("red_vanguard", "blue_tide"),
              r: Rules | None = None) -> tuple[int, int]:
    """One game to the end in its own esper world; returns ``(winner, rounds)``
    (winner 0/1, -1 for a draw). ``r``: the rules and cards (default: the shipped set)."""
    name = f"lanes-ref-{seed}"
    previous = esper.current_world
    m = new_game(seed, decks, name, r)
    try:
        while not m.over:
            esper.process(m)
    finally:
        esper.switch_world(previous)
        esper.delete_world(name)
    return m.winner, m.rounds


def play_games(n: int, seed: int = 0, decks: Sequence[str] = ("red_vanguard", "blue_tide"),
               r: Rules | None = None) -> list[tuple[int, int]]:
    """``n`` games with seeds ``seed .. seed + n - 1``; a list of ``(winner, rounds)``."""
    r = rules() if r is None else r  # load the card data outside any game
    return [play_game(seed + i, decks, r) for i in range(n)]


if __name__ == "__main__":  # pragma: no cover
    import sys
    import time
    from collections import Counter

    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[0]) if args else 500
    if "--shipped" in sys.argv:
        r = rules()
    else:
        from vanilla import load_vanilla_game

        r = Rules.of(load_vanilla_game())
    t0 = time.perf_counter()
    res = play_games(n, r=r)
    dt = time.perf_counter() - t0
    print(f"{n} games in {dt:.2f}s: {n / dt:.0f} games/s; winners {dict(Counter(w for w, _ in res))}; "
          f"mean rounds {sum(r for _, r in res) / n:.2f}")

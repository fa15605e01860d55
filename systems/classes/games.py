"""Games of classes set up from two decks, and played to the end by the compiled game loop
(``loop.py``), each seat by its compiled agent (random or greedy), on one or more threads.

classes.md "Setup" 5: "choose a class ... take and place matching class board ... Mark Level 1 as
current level and take its bonus (power token, starting cards and Mana)"; life 20 (the ``life``
parameter). The deck gives the starting cards and the Class Upgrade deck, the board its powers,
level table and level 1's Mana (its ``pool``); level 1's bonus list (a power token) is taken as a
level-up's is. Who begins alternates with the seed (choice 25, ``first_player``): an even seed's
game seat 0, an odd seed's seat 1, so a run's consecutive seeds swap the first player game by game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from battlesim.ecs.compiled.rng import rng_state
from battlesim.ecs.datafiles import DataError
from battlesim.ecs.decisions import compiled_agent_codes
from battlesim.ecs.threads import over_threads
from battlesim.systems.classes import kernel_cache, loop
from battlesim.systems.classes.cards import CardSet
from battlesim.systems.classes.conditions import plugin_conditions
from battlesim.systems.classes.decks import ClassDeck
from battlesim.systems.classes.params import ClassesParams
from battlesim.systems.classes.powers import EXPERIENCE_MAX, ClassBoard
from battlesim.systems.classes.rules import Compiled, compile_rules
from battlesim.systems.classes.state import (
    BONUS_MANA,
    BONUS_TOKEN,
    END_REASONS,
    G_ACTIVE,
    G_DRAW,
    G_END_REASON,
    G_TURN,
    G_WINNER,
    L_BONUS,
    L_MAX,
    P_EXP,
    P_LEVEL,
    P_LIFE,
    P_NLEVELS,
    P_POOL,
    W_ID,
    Game,
    new_game,
)
from battlesim.systems.classes.vocabulary import COLOURS, SHAPES


class ClassesGame(Protocol):
    """What a game set-up reads of ``ruleset.ClassesGame`` (named here so that this module does
    not import the ruleset, which imports this one)."""

    cards: CardSet
    boards: dict[str, ClassBoard]
    decks: dict[str, ClassDeck]
    params: ClassesParams
    compiled_by_decks: dict[tuple[str, str, int], tuple[tuple[Any, ...], Compiled]]  # (decks, rows)
    spare: list[Game]  # a played batch's arrays handed back (``keep``) for the next ``empty_games``


def agent_codes(names: Sequence[str]) -> np.ndarray:
    """Each seat's compiled classes agent (``--agents``; ``loop.AGENTS``)."""
    return compiled_agent_codes(names, "classes", loop.AGENTS)


def compile_for(game: ClassesGame, decks: tuple[str, str]) -> Compiled:
    """The card set and both decks' class boards as tables, built once per deck pair and the
    plugin conditions declared at the time: building them took about half of a one-game call
    (~0.7 ms), and a loaded game's cards and boards do not change (a plugin condition declared
    or forgotten later gets new tables)."""
    decks = (decks[0], decks[1])
    declared = tuple(plugin_conditions().values())
    rows = game.params.rows
    kept = game.compiled_by_decks.get((*decks, rows))
    if kept is not None and len(kept[0]) == len(declared) and all(a is b for a, b in zip(kept[0], declared)):
        return kept[1]
    powers = [p for d in decks for p in game.boards[game.decks[d].class_name].powers]
    compiled = compile_rules(game.cards, powers, rows)
    game.compiled_by_decks[(*decks, rows)] = (declared, compiled)
    return compiled


def threshold(max_experience: int, offset: int) -> int:
    """A level's maximum experience moved by the ``level_threshold_offset`` parameter, kept
    within 1 (a level needs some experience) and ``powers.EXPERIENCE_MAX``."""
    return max(1, min(EXPERIENCE_MAX, max_experience + offset))


def empty_games(game: ClassesGame, n_games: int, cards: int, reuse: bool = False) -> Game:
    """``n_games`` games before their set-up (``state.new_game`` with the ruleset's parameters), of
    a card set of ``cards`` cards. With ``reuse``, the arrays ``keep`` was last handed, if they
    are of this shape, refilled in place from one new game: a new batch's arrays (~70 MB for
    4,096 games) are zeroed by the kernel page by page as they are first touched, which was a
    sixth of a random batch's time (docs/classes-speed.md, S16); the refilled arrays hold what
    new ones would (tested)."""
    p = game.params

    def new(n: int) -> Game:
        return new_game(n, cards, life=p.life, turn_limit=p.turn_limit, base_defense=p.base_defense, rows=p.rows)

    try:
        kept = game.spare.pop() if reuse else None  # taken (atomically): a concurrent call allocates its own
    except IndexError:
        kept = None
    one = new(1) if kept is not None and kept.g.shape[0] == n_games else None
    if one is None or any(a.shape[1:] != first.shape[1:] for a, first in zip(kept, one)):
        del kept  # another shape: its memory is free before the new batch takes its own
        return new(n_games)
    for a, first in zip(kept, one):
        np.copyto(a, first)  # every game as the new one (broadcast over the batch)
    return kept


def keep(game: ClassesGame, G: Game) -> None:
    """Hand a batch's arrays back for the next ``empty_games(reuse=True)``, once nothing reads
    them any more (``ClassesGame.play_tables``: its tables are copies). One batch is kept."""
    game.spare[:] = [G]


def set_up(game: ClassesGame, decks: tuple[str, str], n_games: int, reuse: bool = False
           ) -> tuple[Game, Compiled, np.ndarray]:
    """``n_games`` games at their first turn (``empty_games``, ``reuse`` as there), and
    ``start[b, side]`` (mana, cards, life) for the invariants."""
    kernel_cache.check_all()
    compiled = compile_for(game, decks)
    R = compiled.rules
    G = empty_games(game, n_games, R.cards.shape[0], reuse)
    for s, deck_id in enumerate(decks):
        deck = game.decks[deck_id]
        board = game.boards[deck.class_name]
        G.hand[:, s, :len(deck.hand)] = [compiled.card(c) for c in deck.hand]
        G.upgrade[:, s, :len(deck.upgrade)] = [compiled.card(c) for c in deck.upgrade]
        for c, colour in enumerate(COLOURS):
            G.pl[:, s, P_POOL + c] = board.pool.get(colour, 0)
        for k, power in enumerate(board.powers):
            G.pw[:, s, k, W_ID] = compiled.power(power)
        G.pl[:, s, P_NLEVELS] = len(board.levels)
        for k, lv in enumerate(board.levels):
            G.lv[:, s, k, L_MAX] = threshold(lv.max_experience, game.params.level_threshold_offset)
            for j, bonus in enumerate(lv.bonus):
                G.lv[:, s, k, L_BONUS + j] = BONUS_MANA if bonus == "mana" else BONUS_TOKEN
    start = np.zeros((n_games, 2, 3), np.int64)
    loop.take_level_one(G, R, start)  # "take its bonus (power token, ...)"
    return G, compiled, start


@dataclass
class Batch:
    """A played batch: the final states (the cards table's tally among them: ``G.tally``), their
    tables, each game's violation code (0: none) and which cards each side held at the start."""

    G: Game
    compiled: Compiled
    out: np.ndarray
    held: np.ndarray  # bool[B, 2, cards]: in the Class Upgrade deck at the start
    dealt: np.ndarray  # bool[B, 2, cards]: in the starting hand
    seeds: np.ndarray
    rng: np.ndarray  # uint64[B, 2]: each game's RNG key and counter
    start: np.ndarray  # what the invariants compare against (``set_up``)


def first_player(seeds: np.ndarray) -> np.ndarray:
    """The seat that takes turn 1 (spec choice 25: "seat 0 by default, alternated by the runner"):
    the seed's parity, so it depends on the game's seed alone (never on its batch) and a run's
    consecutive seeds alternate it, as lanes' random initiative balances it."""
    return np.mod(np.asarray(seeds, dtype=np.int64), 2)


def new_batch(game: ClassesGame, decks: tuple[str, str], seeds: np.ndarray, reuse: bool = False) -> Batch:
    """One game per seed set up, its tally empty, not played yet, on a board of ``rows`` rows
    (the unit array and ``Rules``' board tables are laid out per batch; ``reuse``: in the arrays
    ``keep`` was handed, ``empty_games``). The token shapes are fixed (``state.py``): other
    ``shapes`` are refused, not silently played as 5."""
    p = game.params
    if p.shapes != len(SHAPES):
        raise DataError(f"classes: shapes={p.shapes}: the compiled engine plays {len(SHAPES)} shapes "
                        f"(spec choice 18); other values are not built")
    seeds = np.asarray(seeds, dtype=np.int64)
    G, compiled, start = set_up(game, decks, len(seeds), reuse)
    G.g[:, G_ACTIVE] = first_player(seeds)
    B, ncards = len(seeds), compiled.rules.cards.shape[0]
    held, dealt = np.zeros((B, 2, ncards), np.bool_), np.zeros((B, 2, ncards), np.bool_)
    for pile, mask in ((G.upgrade, held), (G.hand, dealt)):
        b, s, k = np.nonzero(pile >= 0)
        mask[b, s, pile[b, s, k]] = True
    return Batch(G, compiled, np.zeros(B, np.int64), held, dealt, seeds, rng_state(seeds), start)


def scratch(game: ClassesGame, cards: int) -> Game:
    """A one-game scratch state for the greedy agent's trials (one per thread), of a card set of
    ``cards`` cards."""
    p = game.params
    return new_game(1, cards, life=p.life, turn_limit=p.turn_limit, base_defense=p.base_defense, rows=p.rows)


def play_batch(game: ClassesGame, decks: tuple[str, str], seeds: np.ndarray, agents: tuple[int, int] = (0, 0),
               threads: int = 1, check: bool = False, reuse: bool = False) -> Batch:
    """Set up one game per seed and play each to its end, seat s by compiled agent ``agents[s]``
    (``loop.AGENTS``); thread t plays the t-th block of consecutive games (``threads.blocks``)
    with its own scratch game. A game depends only on its seed, decks, agents and parameters
    (DESIGN.md "Threads"). ``reuse``: in the arrays ``keep`` was last handed (``empty_games``)."""
    bt = new_batch(game, decks, seeds, reuse)
    G, compiled, out, rng, start = bt.G, bt.compiled, bt.out, bt.rng, bt.start
    B, ncards = len(bt.seeds), compiled.rules.cards.shape[0]
    codes = np.asarray(agents, dtype=np.int64)
    games = np.arange(B, dtype=np.int64)
    over_threads(lambda part, t: loop.play_chunk(G, compiled.rules, rng, check, start, part, codes,
                                                 scratch(game, ncards), out), games, threads)
    return bt


def play(game: ClassesGame, decks: tuple[str, str], seeds: np.ndarray, check: bool = False
         ) -> tuple[Game, Compiled, np.ndarray]:
    """Set up one game per seed and play each to its end with the random agent on both seats;
    returns the final state, its tables and each game's first invariant violation (0: none)."""
    bt = play_batch(game, decks, seeds, check=check)
    return bt.G, bt.compiled, bt.out


def summary(G: Game, b: int) -> dict[str, Any]:
    """One game's result: winner (None: draw), turns, end reason, life, level and experience."""
    w = int(G.g[b, G_WINNER])
    return {"winner": None if w < 0 else w, "draw": bool(G.g[b, G_DRAW]), "turns": int(G.g[b, G_TURN]),
            "end_reason": END_REASONS[int(G.g[b, G_END_REASON])],
            "life": [int(G.pl[b, s, P_LIFE]) for s in (0, 1)], "level": [int(G.pl[b, s, P_LEVEL]) for s in (0, 1)],
            "experience": [int(G.pl[b, s, P_EXP]) for s in (0, 1)]}

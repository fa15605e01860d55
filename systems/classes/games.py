"""Games of classes set up from two decks, and played to the end by the compiled random agent.

classes.md "Setup" 5: "choose a class ... take and place matching class board ... Mark Level 1 as
current level and take its bonus (power token, starting cards and Mana)"; life 20 (the ``life``
parameter). The deck gives the starting cards and the Class Upgrade deck, the board its powers,
level table and level 1's Mana (its ``pool``); level 1's bonus list (a power token) is taken as a
level-up's is. Seat 0 begins (choice 25; the runner's alternation is left).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from battlesim.ecs.compiled.rng import rng_state
from battlesim.systems.classes import agent, invariants, kernel_cache, progress
from battlesim.systems.classes.effects import run_jobs
from battlesim.systems.classes.rules import Compiled, compile_rules
from battlesim.systems.classes.ruleset import ClassesGame
from battlesim.systems.classes.state import (
    BONUS_MANA,
    BONUS_TOKEN,
    END_REASONS,
    G_DRAW,
    G_END_REASON,
    G_TURN,
    G_WINNER,
    L_BONUS,
    L_MAX,
    P_EXP,
    P_GAINED,
    P_LEVEL,
    P_LIFE,
    P_NLEVELS,
    P_POOL,
    W_ID,
    Game,
    new_game,
)
from battlesim.systems.classes.vocabulary import COLOURS


def compile_for(game: ClassesGame, decks: tuple[str, str]) -> Compiled:
    """The card set and both decks' class boards as tables."""
    powers = [p for d in decks for p in game.boards[game.decks[d].class_name].powers]
    return compile_rules(game.cards, powers)


def set_up(game: ClassesGame, decks: tuple[str, str], n_games: int) -> tuple[Game, Compiled, np.ndarray]:
    """``n_games`` games at their first turn, and ``start[b, side]`` (mana, cards, life) for the
    invariants."""
    kernel_cache.check_all()
    compiled = compile_for(game, decks)
    R = compiled.rules
    G = new_game(n_games, life=game.params.life, turn_limit=game.params.turn_limit,
                 base_defense=game.params.base_defense)
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
            G.lv[:, s, k, L_MAX] = lv.max_experience
            for j, bonus in enumerate(lv.bonus):
                G.lv[:, s, k, L_BONUS + j] = BONUS_MANA if bonus == "mana" else BONUS_TOKEN
    start = np.zeros((n_games, 2, 3), np.int64)
    for b in range(n_games):
        for s in (0, 1):
            progress.take_bonus(G, R, b, s, 1)  # "take its bonus (power token, ...)"
        run_jobs(G, R, b)
        for s in (0, 1):
            # mana conserved from here: what it holds, less what it gained (the tally keeps counting)
            start[b, s] = (invariants.mana_total(G, b, s) - G.pl[b, s, P_GAINED], invariants.card_total(G, b, s),
                           G.pl[b, s, P_LIFE])
    return G, compiled, start


def play(game: ClassesGame, decks: tuple[str, str], seeds: np.ndarray, check: bool = False
         ) -> tuple[Game, Compiled, np.ndarray]:
    """Set up one game per seed and play each to its end with the random agent on both seats;
    returns the final state, its tables and each game's first invariant violation (0: none)."""
    seeds = np.asarray(seeds, dtype=np.int64)
    G, compiled, start = set_up(game, decks, len(seeds))
    out = np.zeros(len(seeds), np.int64)
    agent.play_batch(G, compiled.rules, rng_state(seeds), check, start, out)
    return G, compiled, out


def summary(G: Game, b: int) -> dict[str, Any]:
    """One game's result: winner (None: draw), turns, end reason, life, level and experience."""
    w = int(G.g[b, G_WINNER])
    return {"winner": None if w < 0 else w, "draw": bool(G.g[b, G_DRAW]), "turns": int(G.g[b, G_TURN]),
            "end_reason": END_REASONS[int(G.g[b, G_END_REASON])],
            "life": [int(G.pl[b, s, P_LIFE]) for s in (0, 1)], "level": [int(G.pl[b, s, P_LEVEL]) for s in (0, 1)],
            "experience": [int(G.pl[b, s, P_EXP]) for s in (0, 1)]}

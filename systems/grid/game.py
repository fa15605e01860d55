"""One grid game from two decks on the parameters' map, played by the compiled random agent
(``play.py``): what ``simulate --ruleset grid`` will do per game once the core's generated loop
batches it (issue 16), and what the invariant tests play.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from battlesim.systems.grid.action_table import table_size
from battlesim.systems.grid.card_set import GridCardSet
from battlesim.systems.grid.maps import hero_start, load_map
from battlesim.systems.grid.params import GridParams
from battlesim.systems.grid.play import INVARIANTS, play_game, setup_game
from battlesim.systems.grid.state import (
    DECK_MAX,
    END_REASON,
    END_REASONS,
    GOLD,
    KPTS,
    ROUND,
    SE,
    WINNER,
    K,
    board_tables,
    card_tables,
    columns,
    fields,
    new_world,
    param_table,
    view_of,
)


@dataclass
class GridTables:
    """The static tables of one (parameters, card set): board, cards, parameters."""

    params: GridParams
    cards: GridCardSet

    def __post_init__(self) -> None:
        p = self.params
        self.board = load_map(p.map, width=p.width, height=p.height, deploy_rows=p.deploy_rows).board
        self.bd = board_tables(self.board, p)
        self.ct = card_tables(self.cards.catalog.names, self.cards.specs)
        self.pr = param_table(p, self.board.width, self.board.height)


def play_games(tables: GridTables, seeds: list[int], decks: tuple[str, str], check: bool = False,
               max_actions: int = 100_000) -> list[dict[str, Any]]:
    """Random vs random, one game per seed in one World of ``len(seeds)`` games, each played alone
    through the compiled kernels (state -> legal actions -> random choice -> apply, until the game
    ends): the results, and with ``check`` the first invariant each game broke (``violation``).
    The core's generated loop will batch this (issue 16, after issue 13)."""
    p, board = tables.params, tables.board
    w = new_world(len(seeds), board.cells, p.hand_limit, np.array(seeds))
    view = view_of(w)
    ws, cols, f = view.state, columns(view), fields(w)
    dk = [tables.cards.deck(d) for d in decks]
    main = np.full((2, DECK_MAX), -1, dtype=np.int16)
    for side, d in enumerate(dk):
        main[side, :len(d.main)] = d.main[:DECK_MAX]
    sizes = np.array([min(len(d.main), DECK_MAX) for d in dk], dtype=np.int64)
    heroes = np.array([d.hero for d in dk], dtype=np.int64)
    cells = np.array([hero_start(s, board.width, board.height) for s in (0, 1)], dtype=np.int64)
    start = np.array([p.starting_hand, p.gold_start, p.se_start], dtype=np.int64)
    mask = np.zeros(table_size(board.cells, K, p.hand_limit), dtype=np.bool_)
    out = []
    for b, seed in enumerate(seeds):
        setup_game(ws, cols, f, tables.bd, tables.ct, tables.pr, b, main, sizes, heroes, cells, start)
        n, bad = play_game(ws, cols, f, tables.bd, tables.ct, tables.pr, b, mask, max_actions, check)
        g = f.g[b]
        out.append({"seed": int(seed), "actions": int(n), "violation": INVARIANTS[bad], "winner": int(g[WINNER]),
                    "rounds": int(g[ROUND]), "end_reason": END_REASONS[int(g[END_REASON])],
                    "kill_points": [int(g[KPTS]), int(g[KPTS + 1])], "gold": [int(g[GOLD]), int(g[GOLD + 1])],
                    "se": [int(g[SE]), int(g[SE + 1])],
                    "units_left": [int((w.alive[b] & (w.c.grid_side[b] == s)).sum()) for s in (0, 1)]})
    return out


def play_one_game(tables: GridTables, seed: int, decks: tuple[str, str], check: bool = False,
                  max_actions: int = 100_000) -> dict[str, Any]:
    """One random game (``play_games`` of one seed)."""
    return play_games(tables, [seed], decks, check, max_actions)[0]

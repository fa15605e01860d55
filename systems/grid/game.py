"""Grid games from two decks on the parameters' map, played by the compiled game loop
(``play.py``): batches for ``simulate --ruleset grid`` (``play_batch``, one compiled call per
chunk and thread) and single games with invariant checks for the tests (``play_games``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from battlesim.ecs.decisions import compiled_agent_codes
from battlesim.ecs.threads import over_threads
from battlesim.systems.grid.action_table import table_size
from battlesim.systems.grid.card_set import GridCardSet
from battlesim.systems.grid.maps import hero_start, load_map
from battlesim.systems.grid.params import GridParams
from battlesim.systems.grid.play import AGENTS, INVARIANTS, RANDOM, play_batch, play_game, setup_game
from battlesim.systems.grid.state import (
    DECK_MAX,
    END_REASON,
    END_REASONS,
    GAME_OVER,
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
    kernel_world,
    new_world,
    param_table,
    view_of,
)
from battlesim.systems.grid.work import new_agent_work

MAX_ACTIONS = 100_000  # a guard only: every player turn ends (play.py ``play_game``)


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


@dataclass
class GridBatch:
    """A World of ``len(seeds)`` games of two decks, with what the compiled setup takes."""

    tables: GridTables
    seeds: np.ndarray
    decks: tuple[str, str]

    def __post_init__(self) -> None:
        t, p, board = self.tables, self.tables.params, self.tables.board
        self.seeds = np.asarray(self.seeds, dtype=np.int64)
        self.w = new_world(len(self.seeds), board.cells, p.hand_limit, self.seeds)
        view = view_of(self.w)
        self.ws, self.cols, self.f = kernel_world(view), columns(view), fields(self.w)
        dk = [t.cards.deck(d) for d in self.decks]
        self.main = np.full((2, DECK_MAX), -1, dtype=np.int16)
        for side, d in enumerate(dk):
            self.main[side, :len(d.main)] = d.main[:DECK_MAX]
        self.sizes = np.array([min(len(d.main), DECK_MAX) for d in dk], dtype=np.int64)
        self.heroes = np.array([d.hero for d in dk], dtype=np.int64)
        self.cells = np.array([hero_start(s, board.width, board.height) for s in (0, 1)], dtype=np.int64)
        self.start = np.array([p.starting_hand, p.gold_start, p.se_start], dtype=np.int64)
        self.actions_size = table_size(board.cells, K, p.hand_limit)
        self.actions = np.zeros(len(self.seeds), dtype=np.int64)

    def play(self, agents: np.ndarray, threads: int = 1) -> None:
        """Every game to its end: one compiled call per thread, thread t playing the t-th block of
        consecutive games (``threads.blocks``)."""
        t = self.tables
        args = (self.ws, self.cols, self.f, t.bd, t.ct, t.pr)
        rest = (self.main, self.sizes, self.heroes, self.cells, self.start, agents, self.actions_size, MAX_ACTIONS,
                self.actions)
        games = np.arange(len(self.seeds), dtype=np.int64)
        over_threads(lambda part, _: play_batch(*args, new_agent_work(self.ws, self.f, self.actions_size), part, *rest),
                     games, threads)
        running = np.flatnonzero(self.f.g[:, GAME_OVER] == 0)
        if running.size:
            raise RuntimeError(f"seed {int(self.seeds[running[0]])}: the game did not end in {MAX_ACTIONS:,} actions")


def agent_codes(agents: Sequence[Any]) -> np.ndarray:
    """Each seat's compiled grid agent (``--agents``; ``play.AGENTS``)."""
    return compiled_agent_codes(agents, "grid", AGENTS)


def play_games(tables: GridTables, seeds: list[int], decks: tuple[str, str], check: bool = False,
               max_actions: int = MAX_ACTIONS) -> list[dict[str, Any]]:
    """Random vs random, one game per seed in one World of ``len(seeds)`` games, each played alone
    through the compiled kernels (state -> legal actions -> random choice -> apply, until the game
    ends): the results, and with ``check`` the first invariant each game broke (``violation``)."""
    gb = GridBatch(tables, np.array(seeds), decks)
    w, f, t = gb.w, gb.f, tables
    mask = np.zeros(gb.actions_size, dtype=np.bool_)
    work = new_agent_work(gb.ws, gb.f, gb.actions_size)
    agents = np.array([RANDOM, RANDOM], dtype=np.int64)
    out = []
    for b, seed in enumerate(seeds):
        setup_game(gb.ws, gb.cols, f, t.bd, t.ct, t.pr, b, gb.main, gb.sizes, gb.heroes, gb.cells, gb.start)
        n, bad = play_game(gb.ws, gb.cols, f, t.bd, t.ct, t.pr, b, work, mask, agents, max_actions, check)
        g = f.g[b]
        out.append({"seed": int(seed), "actions": int(n), "violation": INVARIANTS[bad], "winner": int(g[WINNER]),
                    "rounds": int(g[ROUND]), "end_reason": END_REASONS[int(g[END_REASON])],
                    "kill_points": [int(g[KPTS]), int(g[KPTS + 1])], "gold": [int(g[GOLD]), int(g[GOLD + 1])],
                    "se": [int(g[SE]), int(g[SE + 1])],
                    "units_left": [int((w.alive[b] & (w.c.grid_side[b] == s)).sum()) for s in (0, 1)]})
    return out


def play_one_game(tables: GridTables, seed: int, decks: tuple[str, str], check: bool = False,
                  max_actions: int = MAX_ACTIONS) -> dict[str, Any]:
    """One random game (``play_games`` of one seed)."""
    return play_games(tables, [seed], decks, check, max_actions)[0]

"""``battlesim replay --ruleset grid``: one game written action by action.

The compiled batch loop keeps no log, so a replay plays the game from Python one action at a time
through the same compiled kernels in the same order (``setup_game``, then ``agent_action`` and
``apply_action`` until the game ends): the same game as that seed's row in any run. Each player
turn opens with its gold, SE and hand; each action says who did what where, every HP change it
caused, deaths and kill points.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from battlesim.systems.grid.action_table import ATTACK, END_UNIT, HIDE, MOVE, PASS, PLAY, SELECT, USE, decode
from battlesim.systems.grid.apply import apply_action
from battlesim.systems.grid.game import GridBatch, agent_codes
from battlesim.systems.grid.play import agent_action, setup_game
from battlesim.systems.grid.results import games_columns
from battlesim.systems.grid.state import (
    A_OP,
    A_SE,
    ACTIVE,
    CARD,
    CELL,
    FIRST,
    GAME_OVER,
    GOLD,
    HAND_N,
    HP,
    KPTS,
    MV_LEFT,
    ROUND,
    SE,
    SIDE,
    TURN,
    K,
)
from battlesim.systems.grid.vocabulary import OP_NAMES
from battlesim.systems.grid.work import new_agent_work

MAX_ACTIONS = 100_000


def replay_game(game: Any, seed: int, decks: Sequence[str], agents: Sequence[Any],
                write: Callable[[str], Any] = print) -> dict[str, Any]:
    """Play game ``seed`` alone, writing each player turn and action; returns its games-table row."""
    t = game.tables
    gb = GridBatch(t, np.array([seed], dtype=np.int64), (decks[0], decks[1]))
    codes = agent_codes(agents)
    w, cols, f = gb.ws, gb.cols, gb.f  # the World as the kernels see it (its i16, i8, alive)
    args = (w, cols, f, t.bd, t.ct, t.pr, 0)
    width, names, hand_limit = t.board.width, game.card_names, game.params.hand_limit
    mask = np.zeros(gb.actions_size, dtype=np.bool_)
    agent_work = new_agent_work(w, f, gb.actions_size)
    work = agent_work.k

    def at(c: int) -> str:
        return f"({c % width},{c // width})"

    def unit(s: int) -> str:
        return f"{names[w.i16[cols[CARD], 0, s]]} (side {w.i8[cols[SIDE], 0, s]}) at {at(w.i16[cols[CELL], 0, s])}"

    def units() -> dict[int, tuple[int, str]]:
        return {s: (int(w.i16[cols[HP], 0, s]), unit(s)) for s in np.flatnonzero(w.alive[0])}

    setup_game(*args, gb.main, gb.sizes, gb.heroes, gb.cells, gb.start)
    write(f"grid game seed {seed}: {decks[0]} (side 0, {codes_name(agents[0])}) vs {decks[1]} "
          f"(side 1, {codes_name(agents[1])}) on {game.params.map} {width}x{t.board.height}; "
          f"side {f.g[0, FIRST]} plays first")
    turn_key = None
    n = 0
    while not f.g[0, GAME_OVER] and n < MAX_ACTIONS:
        side = int(f.g[0, TURN])
        if (int(f.g[0, ROUND]), side) != turn_key:
            turn_key = (int(f.g[0, ROUND]), side)
            hand = [names[c] for c in f.hand[0, side, :f.g[0, HAND_N + side]]]
            write(f"round {turn_key[0]}, side {side}: gold {f.g[0, GOLD + side]}, SE {f.g[0, SE + side]}, "
                  f"hand {', '.join(hand) or '-'}")
        a = int(agent_action(*args, agent_work, mask, codes[side]))
        kind, k, c = decode(a, t.bd.wall.shape[0], K, hand_limit)
        active = int(f.g[0, ACTIVE])
        text = describe(kind, k, c, active, unit, at, names, f, w, cols, side)
        before = units()
        apply_action(*args, work, a)
        n += 1
        after = units()
        if kind == MOVE and active >= 0 and w.alive[0, active]:
            text += f" (MV left {w.i8[cols[MV_LEFT], 0, active]})"
        write("  " + text)
        for s, (hp, who) in before.items():
            if s not in after:
                write(f"    {who} dies (HP {hp} -> {int(w.i16[cols[HP], 0, s])}); kill points "
                      f"{f.g[0, KPTS]}-{f.g[0, KPTS + 1]}")
            elif after[s][0] != hp:
                write(f"    {who}: HP {hp} -> {after[s][0]}")
    gb.actions[0] = n
    cols_ = games_columns(gb, (decks[0], decks[1]), [codes_name(a) for a in agents])
    return {key: v[0].item() if hasattr(v[0], "item") else v[0] for key, v in cols_.items()}


def codes_name(agent: Any) -> str:
    return str(getattr(agent, "name", agent))


def describe(kind: int, k: int, c: int, active: int, unit: Callable[[int], str], at: Callable[[int], str],
             names: list[str], f: Any, w: Any, cols: np.ndarray, side: int) -> str:
    """One action in words (before it is applied)."""
    if kind == PASS:
        return "ends the player turn"
    if kind == END_UNIT:
        return f"{unit(active)} ends its turn"
    if kind == HIDE:
        return f"{unit(active)} hides"
    if kind == PLAY:
        return f"plays {names[f.hand[0, side, k]]} at {at(c)}"
    if kind == SELECT:
        s = int(np.flatnonzero(w.alive[0] & (w.i16[cols[CELL], 0] == c))[0])
        return f"starts the turn of {unit(s)}"
    if kind == MOVE:
        return f"{unit(active)} moves to {at(c)}"
    if kind == ATTACK:
        return f"{unit(active)} attacks {at(c)}"
    if kind == USE:
        row = f.abil[0, active, k]
        return f"{unit(active)} uses {OP_NAMES[row[A_OP]]} (ability {k + 1}, {max(0, int(row[A_SE]))} SE) at {at(c)}"
    return f"action {kind} {k} {c}"  # pragma: no cover

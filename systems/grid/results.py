"""The tables of a batch of grid games, as the runner writes them (one row per game; one per card
instance): what ``simulate --ruleset grid`` prints, ``--out`` stores and ``balance`` reads."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from battlesim.systems.grid.game import GridBatch
from battlesim.systems.grid.state import (
    DECK_N,
    END_REASON,
    END_REASONS,
    FIRST,
    GOLD,
    KPTS,
    L_CARD,
    L_DIED,
    L_DRAWN,
    L_KILLS,
    L_PLAYED,
    L_SIDE,
    LOG_N,
    ROUND,
    SE,
    WINNER,
)


def games_columns(gb: GridBatch, decks: tuple[str, str], agents: Sequence[str]) -> dict[str, np.ndarray]:
    """One row per game (issue 16: winner, rounds, end reason, kill points, units left, gold and SE
    left), with the columns every ruleset's games table has (seed, winner, rounds, first_player,
    end_reason, decks, agents) so the runner and ``balance`` read it as lanes'."""
    g, n = gb.f.g, len(gb.seeds)
    side = gb.w.c.grid_side
    cols: dict[str, np.ndarray] = {
        "seed": gb.seeds.astype(np.int64),
        "winner": g[:, WINNER].astype(np.int8),
        "rounds": g[:, ROUND].astype(np.int16),
        "first_player": g[:, FIRST].astype(np.int8),
        "end_reason": np.array(END_REASONS, dtype=object)[g[:, END_REASON]],
        "deck_0": np.full(n, decks[0], dtype=object),
        "deck_1": np.full(n, decks[1], dtype=object),
        "agent_0": np.full(n, agents[0], dtype=object),
        "agent_1": np.full(n, agents[1], dtype=object),
    }
    for s in (0, 1):
        cols[f"kill_points_{s}"] = g[:, KPTS + s].astype(np.int16)
    for s in (0, 1):
        cols[f"units_left_{s}"] = (gb.w.alive & (side == s)).sum(axis=1).astype(np.int8)
    for s in (0, 1):
        cols[f"gold_{s}"] = g[:, GOLD + s].astype(np.int32)
    for s in (0, 1):
        cols[f"se_{s}"] = g[:, SE + s].astype(np.int16)
    cols["actions"] = gb.actions.astype(np.int32)
    return cols


def cards_columns(gb: GridBatch) -> dict[str, np.ndarray]:
    """One row per card instance of each game: both starting heroes, every card that left a draw
    pile (drawn, or found by a search) and every card still in one, with the round it was drawn,
    played (hired, cast, equipped, set) and died in (0: it did not happen; the runner writes
    nulls; a starting hero is drawn and played in round 1) and the enemies that died by its
    actions (``kills``). ``card`` holds catalog ids."""
    f = gb.f
    log_n = f.g[:, LOG_N]
    b_log, r_log = np.nonzero(np.arange(f.log.shape[1])[None, :] < log_n[:, None])
    rows = f.log[b_log, r_log]
    deck_n = f.g[:, DECK_N:DECK_N + 2]  # [B, 2]: cards still in each draw pile
    b_d, s_d, p_d = np.nonzero(np.arange(f.deck.shape[2])[None, None, :] < deck_n[:, :, None])
    zeros = np.zeros(b_d.size, dtype=np.int16)
    game = np.concatenate([b_log, b_d])
    player = np.concatenate([rows[:, L_SIDE], s_d]).astype(np.int8)
    order = np.lexsort((player, game))  # by game, then player; log rows before pile rows
    seeds = np.asarray(gb.seeds, dtype=np.int64)
    return {
        "seed": seeds[game][order],
        "player": player[order],
        "card": np.concatenate([rows[:, L_CARD], f.deck[b_d, s_d, p_d]]).astype(np.int16)[order],
        "drawn_round": np.concatenate([rows[:, L_DRAWN], zeros]).astype(np.int16)[order],
        "played_round": np.concatenate([rows[:, L_PLAYED], zeros]).astype(np.int16)[order],
        "died_round": np.concatenate([rows[:, L_DIED], zeros]).astype(np.int16)[order],
        "kills": np.concatenate([rows[:, L_KILLS], zeros]).astype(np.int16)[order],
    }


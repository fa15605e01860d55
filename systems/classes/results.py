"""The tables of a batch of classes games, as the runner writes them: one row per game, one row
per (game, player, card the player held): what ``simulate --ruleset classes`` prints, ``--out``
stores and ``balance`` reads.

classes counts player turns (spec §2: a turn is one player's Begin, Main, Battle and End
Phases), so the runner's ``rounds`` column and the cards table's ``*_round`` columns hold turn
numbers (``turns`` repeats ``rounds`` under its own name).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from battlesim.systems.classes.games import Batch, first_player
from battlesim.systems.classes.state import (
    END_REASONS,
    G_END_REASON,
    G_TURN,
    G_WINNER,
    LC_CAST,
    LC_DIED,
    LC_KILLS,
    LC_PLAYED,
    LC_SUMMONED,
    P_CAST,
    P_EXP,
    P_KILLS,
    P_LEVEL,
    P_LIFE,
    P_SUMMONED,
)

TURN_LIMIT = END_REASONS.index("turn_limit")


def games_columns(bt: Batch, decks: tuple[str, str], agents: Sequence[str]) -> dict[str, np.ndarray]:
    """One row per game (issue 15: winner, turns, end reason, life left, level reached,
    experience, cards cast, units summoned, kills), with the columns every ruleset's games table
    has (seed, winner, rounds, first_player, end_reason, decks, agents). ``winner`` -1: a draw
    (choice 21: both lives at 0 at once, or the turn limit). ``first_player``: the seed's parity
    (choice 25, ``games.first_player``)."""
    g, pl, n = bt.G.g, bt.G.pl, len(bt.seeds)
    reason = g[:, G_END_REASON]
    # the turn limit ends the game in the End Phase that passed the last turn (its counter one over)
    turns = (g[:, G_TURN] - (reason == TURN_LIMIT)).astype(np.int16)
    cols: dict[str, np.ndarray] = {
        "seed": bt.seeds.astype(np.int64),
        "winner": g[:, G_WINNER].astype(np.int8),
        "rounds": turns,
        "first_player": first_player(bt.seeds).astype(np.int8),
        "end_reason": np.array(END_REASONS, dtype=object)[reason],
        "deck_0": np.full(n, decks[0], dtype=object),
        "deck_1": np.full(n, decks[1], dtype=object),
        "agent_0": np.full(n, agents[0], dtype=object),
        "agent_1": np.full(n, agents[1], dtype=object),
        "turns": turns.copy(),
    }
    for name, col, dtype in (("life", P_LIFE, np.int16), ("level", P_LEVEL, np.int8), ("experience", P_EXP, np.int16),
                             ("cast", P_CAST, np.int16), ("summoned", P_SUMMONED, np.int16),
                             ("kills", P_KILLS, np.int16)):
        for s in (0, 1):
            cols[f"{name}_{s}"] = pl[:, s, col].astype(dtype)
    return cols


def cards_columns(bt: Batch) -> dict[str, np.ndarray]:
    """One row per (game, player, card) the player held at the start (its hand and Class Upgrade
    deck: classes has no draw pile, the hand is dealt whole, classes.md "Setup") or used:
    ``drawn_round`` 1 for a card in the starting hand, else the turn it was first cast;
    ``played_round`` the turn it was first cast; ``died_round`` the turn its unit last died (0:
    never, written as null); ``cast``, ``summoned`` and ``kills`` (enemy units its unit or its
    spell killed) counted over the game. ``card`` holds card ids (``ClassesGame.card_names``)."""
    L = bt.G.tally
    used = bt.held | bt.dealt | (L != 0).any(axis=3)
    b, s, c = np.nonzero(used)  # by game, then player, then card id
    first = L[b, s, c, LC_PLAYED]
    in_hand = bt.dealt[b, s, c]
    return {
        "seed": bt.seeds[b].astype(np.int64),
        "player": s.astype(np.int8),
        "card": c.astype(np.int16),
        "drawn_round": np.where(in_hand, 1, first).astype(np.int16),
        "played_round": first.astype(np.int16),
        "died_round": L[b, s, c, LC_DIED].astype(np.int16),
        "cast": L[b, s, c, LC_CAST].astype(np.int16),
        "summoned": L[b, s, c, LC_SUMMONED].astype(np.int16),
        "kills": L[b, s, c, LC_KILLS].astype(np.int16),
    }

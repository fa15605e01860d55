"""The tables of a batch of hex games, as the runner writes them (one row per game; one per unit
card of each army): what ``simulate --ruleset hex`` prints, ``--out`` stores and ``balance`` reads."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from battlesim.systems.hex.board import CENTRE_ID
from battlesim.systems.hex.game import HexBatch
from battlesim.systems.hex.state import (
    CONTROLLER,
    END_REASON,
    END_REASONS,
    FIRST_PLAYER,
    POS,
    ROUND,
    SIDE,
    SUMMONED,
    WINNER,
)
from battlesim.systems.hex.work import DIED, KILLS


def games_columns(hb: HexBatch, decks: tuple[str, str], agents: Sequence[str]) -> dict[str, np.ndarray]:
    """One row per game (spec §2.11: winner, first player, rounds, end reason "centre" or
    "no_units", centre holder, units left per side), with the columns every ruleset's games table
    has (seed, winner, rounds, first_player, end_reason, decks, agents)."""
    bt = hb.bt
    g, n = bt.f.g, len(hb.seeds)
    st, cols = bt.st, bt.cols
    alive = st.alive
    side = st.i16[cols[SIDE]]
    summoned = st.flags[cols[SUMMONED]]
    on_centre = alive & (st.i16[cols[POS]] == CENTRE_ID)
    holder = np.where(on_centre.any(axis=1), (st.i16[cols[CONTROLLER]] * on_centre).sum(axis=1), -1)
    out: dict[str, np.ndarray] = {
        "seed": hb.seeds.astype(np.int64),
        "winner": g[:, WINNER].astype(np.int8),
        "rounds": g[:, ROUND].astype(np.int16),
        "first_player": g[:, FIRST_PLAYER].astype(np.int8),
        "end_reason": np.array(END_REASONS, dtype=object)[g[:, END_REASON]],
        "deck_0": np.full(n, decks[0], dtype=object),
        "deck_1": np.full(n, decks[1], dtype=object),
        "agent_0": np.full(n, agents[0], dtype=object),
        "agent_1": np.full(n, agents[1], dtype=object),
        "centre_holder": holder.astype(np.int8),
    }
    for s in (0, 1):
        # the army's units (cards-table rows) still on the board; summons (I-45) are no card
        out[f"units_left_{s}"] = (alive & (side == s) & ~summoned).sum(axis=1).astype(np.int8)
    out["decisions"] = hb.decisions.astype(np.int32)
    return out


def cards_columns(hb: HexBatch, card_names: list[str]) -> dict[str, np.ndarray]:
    """One row per unit card of each game's armies (blitz: every card of the kingdom is drafted
    and deployed in round 1, spec §2.2): ``drawn_round`` = drafted (1), ``played_round`` = deployed
    (1), ``died_round`` (0: alive at the end), ``kills`` (enemies whose death its damage caused).
    ``card`` indexes ``card_names``."""
    army = hb.armies.army
    slots = np.array(sorted(army.card), dtype=np.int64)
    index = {name: i for i, name in enumerate(card_names)}
    card = np.array([index[army.card[s]] for s in slots], dtype=np.int16)
    n, m = len(hb.seeds), len(slots)
    stats = hb.bt.k.stats[:, slots]
    ones = np.ones(n * m, dtype=np.int16)
    return {
        "seed": np.repeat(hb.seeds.astype(np.int64), m),
        "player": np.tile((slots >= 16).astype(np.int8), n),
        "card": np.tile(card, n),
        "drawn_round": ones,
        "played_round": ones,
        "died_round": stats[:, :, DIED].reshape(-1).astype(np.int16),
        "kills": stats[:, :, KILLS].reshape(-1).astype(np.int16),
    }

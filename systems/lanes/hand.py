"""The hand: drawing from the top of the deck (the draw phase and card effects that draw)."""

from __future__ import annotations

import numpy as np

from battlesim.ecs.npx import any_axis


def draw_cards(w, games: np.ndarray, seat: np.ndarray, count: np.ndarray | int) -> None:
    """Draw ``count`` cards for each listed (game, seat): top of deck to the first free hand
    slot. An empty deck draws nothing; a full hand burns the card (ledger: not in the rules)."""
    count = np.broadcast_to(np.asarray(count), games.shape)
    g = w.g
    for i in range(int(count.max(initial=0))):  # loops over cards drawn (<= a handful)
        sel = count > i
        gi, si = games[sel], seat[sel]
        top = g.deck_top[gi, si]
        has = top < g.deck_size[gi, si]
        gi, si, top = gi[has], si[has], top[has]
        card = g.deck[gi, si, top]
        g.deck_top[gi, si] = top + 1
        g.card_drawn[gi, si, top] = g.round[gi]
        free = g.hand[gi, si] < 0
        room = any_axis(free, 1)
        h = np.argmax(free, axis=1)
        g.hand[gi[room], si[room], h[room]] = card[room]
        g.hand_src[gi[room], si[room], h[room]] = top[room]
        np.add.at(g.burned, (gi[~room], si[~room]), 1)

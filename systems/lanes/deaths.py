"""Removing destroyed units: bounties, hero death timers, freeing the cell.

lanes.md "Unit Removal": "Destroyed units are only removed after the entire lane resolves";
"Gold System": "Kill enemy hero: +5 gold", "Kill enemy unit/creep: +1 gold" (to the opponent);
"Hero Death & Respawn": "The hero enters a 1-round death timer".
"""

from __future__ import annotations

import esper
import numpy as np

from systems.lanes import board
from systems.lanes.state import DEAD


def resolve_deaths(w) -> np.ndarray:
    """Remove every entity marked ``dying``, paying bounties; returns the number removed per game."""
    b, s = np.nonzero(w.c.dying & w.alive)
    if b.size:
        destroy(w, b, s, bounty=True)
    return np.bincount(b, minlength=w.n_games)


def destroy(w, b: np.ndarray, s: np.ndarray, bounty: bool) -> None:
    """Destroy board entities now: the one way a unit dies. ``bounty`` pays the opponent of each
    dead unit's owner (a kill); a bounce destroys the player's own unit and pays nothing."""
    p = w.params
    owner = w.c.owner[b, s].astype(np.intp)
    is_hero = w.c.hero[b, s]
    if bounty:
        np.add.at(w.g.gold, (b, 1 - owner), np.where(is_hero, p.bounty_hero, p.bounty_unit))
    hb, hs, ho = b[is_hero], s[is_hero], owner[is_hero]
    k = w.c.hero_index[hb, hs]
    w.g.hero_status[hb, ho, k] = DEAD
    w.g.hero_ready_round[hb, ho, k] = w.g.round[hb] + p.hero_death_timer
    src = w.c.deck_pos[b, s]
    from_deck = src >= 0
    w.g.card_died[b[from_deck], owner[from_deck], src[from_deck]] = w.g.round[b[from_deck]]
    esper.dispatch_event("lanes.deaths", w, b, s, w.c.card_id[b, s].copy())
    board.remove(w, b, s)

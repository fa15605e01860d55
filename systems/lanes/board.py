"""The lanes board: the one place that puts entities on, moves them on, and takes them off it.

``g.board[b, side, lane, pos]`` holds the slot standing there or -1. It is changed only
here, together with the entities' ``lane``/``pos`` components, so the two never disagree.
lanes.md "Lane Rules": positions 0-4 per side and lane; "Empty positions remain empty until
filled - no automatic shifting".
"""

from __future__ import annotations

import numpy as np

EMPTY = -1


def anchor_slot(side: np.ndarray | int, lane: np.ndarray | int) -> np.ndarray | int:
    """Anchors occupy fixed slots 0..5 (allocated first in every game)."""
    return side * 3 + lane


def spawn(
    w,
    games: np.ndarray,
    side: np.ndarray,
    lane: np.ndarray,
    pos: np.ndarray,
    card: np.ndarray,
    *,
    hero_index: np.ndarray | None = None,
    creep: bool = False,
) -> np.ndarray:
    """Create board entities from catalog cards at empty cells; returns their slots.

    ``games`` must be distinct (one entity per game per call). Stats come from the catalog;
    creeps take the ruleset's creep stats (lanes.md "Creep Stats": every creep is 1/1).
    """
    cat = w.catalog.arrays
    slots = w.allocate(games)
    if creep:
        atk = np.full(games.size, w.params.creep_attack, dtype=np.int16)
        hp = np.full(games.size, w.params.creep_health, dtype=np.int16)
    else:
        atk, hp = cat.attack[card], cat.health[card]
    w.add(
        games, slots,
        card_id=card, owner=side, faction=cat.faction[card],
        attack=atk, health=hp, max_health=hp,
    )
    flat = np.asarray(games, dtype=np.intp) * w.n_slots + slots  # the tags and counters below: one flat index for all
    c = w.c
    if creep:
        c.creep.reshape(-1)[flat] = True
    else:
        # the card's keywords (only those some card of the set has: most sets use a few)
        for kw in w.catalog.keywords:
            getattr(c, kw).reshape(-1)[flat] = getattr(cat, f"kw_{kw}")[card]
        aura = w.cache["aura_cards"][card]
        if aura.any():
            w.add(games[aura], slots[aura], aura=True)  # through ``add``: aura_sources tracks it
    if hero_index is not None:
        c.hero.reshape(-1)[flat] = True
        w.add(games, slots, hero_index=hero_index)
        c.charges.reshape(-1)[flat] = cat.ability_charges[card]
    place(w, games, slots, side, lane, pos)
    return slots


def place(w, games: np.ndarray, slots: np.ndarray, side: np.ndarray, lane: np.ndarray, pos: np.ndarray) -> None:
    w.add(games, slots, lane=lane, pos=pos)
    w.g.board[games, side, lane, pos] = slots


def remove(w, games: np.ndarray, slots: np.ndarray) -> None:
    """Take entities off the board and free their slots."""
    if (w.c.pos[games, slots] < 0).any():
        raise ValueError("board.remove: not a board entity (an anchor or an improvement)")
    side = w.c.owner[games, slots]
    w.g.board[games, side, w.c.lane[games, slots], w.c.pos[games, slots]] = EMPTY
    w.release(games, slots)


def move(w, games: np.ndarray, slots: np.ndarray, lane: np.ndarray, pos: np.ndarray) -> None:
    """Move units (games distinct) to empty cells of their own side; callers check the cells."""
    side = w.c.owner[games, slots]
    w.g.board[games, side, w.c.lane[games, slots], w.c.pos[games, slots]] = EMPTY
    place(w, games, slots, side, lane, pos)


def swap(w, games: np.ndarray, a: np.ndarray, b_slots: np.ndarray) -> None:
    """Exchange the cells of two units of the same side (games distinct)."""
    side = w.c.owner[games, a]
    la, pa = w.c.lane[games, a].copy(), w.c.pos[games, a].copy()
    lb, pb = w.c.lane[games, b_slots].copy(), w.c.pos[games, b_slots].copy()
    place(w, games, a, side, lb, pb)
    place(w, games, b_slots, side, la, pa)


def add_improvement(w, games: np.ndarray, side: np.ndarray, lane: np.ndarray, card: np.ndarray) -> np.ndarray:
    """Attach improvements to lanes (lanes.md "Attach to a lane, not a specific position or unit");
    the caller has checked there is room ("Maximum 3 Improvements per lane per player")."""
    slots = w.allocate(games)
    w.add(games, slots, card_id=card, owner=side, faction=w.catalog.arrays.faction[card], lane=lane, pos=-1,
          timer=w.catalog.arrays.duration[card], charges=w.catalog.arrays.ability_charges[card])
    w.c.improvement[games, slots] = True
    row = w.g.improvements[games, side, lane]
    free = np.argmax(row == EMPTY, axis=1)
    w.g.improvements[games, side, lane, free] = slots
    return slots


def remove_improvement(w, games: np.ndarray, slots: np.ndarray) -> None:
    """Destroy improvements: "When an Improvement is destroyed, any ongoing effects immediately
    end" (their auras are derived, their triggers gone with the entity). The lane's list stays
    in age order (later ones shift left)."""
    side, lane = w.c.owner[games, slots], w.c.lane[games, slots]
    row = w.g.improvements[games, side, lane]  # [n, 3]
    keep = (row != slots[:, None]) & (row != EMPTY)
    order = np.argsort(~keep, axis=1, kind="stable")
    packed = np.where(np.take_along_axis(keep, order, axis=1), np.take_along_axis(row, order, axis=1), EMPTY)
    w.g.improvements[games, side, lane] = packed
    w.release(games, slots)


def rebuild(w, b: int) -> None:
    """Recompute game ``b``'s cell index from entity positions (after an esper ``load``)."""
    w.g.board[b] = EMPTY
    units = np.flatnonzero(w.alive[b] & ~w.c.anchor[b] & ~w.c.improvement[b])
    for s in units:  # one game's handful of entities, at load time only
        side, lane, pos = int(w.c.owner[b, s]), int(w.c.lane[b, s]), int(w.c.pos[b, s])
        if w.g.board[b, side, lane, pos] != EMPTY:
            raise ValueError(f"two entities at side {side} lane {lane} position {pos}")
        w.g.board[b, side, lane, pos] = s

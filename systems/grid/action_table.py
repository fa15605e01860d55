"""The flat action table of spec §4: one decision maker (the player whose turn it is), one index
per possible decision, fixed for a board size, so legal masks are ``bool[A]`` arrays.

| block | size | meaning |
|---|---|---|
| PASS | 1 | end the player turn |
| END_UNIT | 1 | end the active unit's turn |
| SELECT | C | start the turn of the own ready unit at cell c |
| MOVE | C | move the active unit to cell c (cheapest legal path) |
| ATTACK | C | basic attack on the enemy at c |
| USE | K x C | ability k of the active unit aimed at c |
| HIDE | 1 | the active unit hides |
| PLAY | Hh x C | hand card h at c (hire, item, spell, trap) |

Size = 3 + C x (3 + K + Hh): 835 at 8x8 (K = 3, Hh = 7), 1,303 at 10x10. ``encode`` and
``decode`` are integer arithmetic that compiled agents and replays share.
"""

from __future__ import annotations

from numba import njit

from battlesim.systems.grid.cards import MAX_ABILITIES

PASS, END_UNIT, SELECT, MOVE, ATTACK, USE, HIDE, PLAY = range(8)
KINDS = ("pass", "end_unit", "select", "move", "attack", "use", "hide", "play")


@njit(cache=True, _nrt=False)
def table_size(cells: int, abilities: int, hand: int) -> int:
    """The number of actions: 3 + C x (3 + K + Hh)."""
    return 3 + cells * (3 + abilities + hand)


@njit(cache=True, _nrt=False)
def block_start(kind: int, cells: int, abilities: int) -> int:
    """Index of the first action of block ``kind``."""
    if kind == PASS:
        return 0
    if kind == END_UNIT:
        return 1
    if kind == SELECT:
        return 2
    if kind == MOVE:
        return 2 + cells
    if kind == ATTACK:
        return 2 + 2 * cells
    if kind == USE:
        return 2 + 3 * cells
    if kind == HIDE:
        return 2 + 3 * cells + abilities * cells
    return 3 + 3 * cells + abilities * cells  # PLAY


@njit(cache=True, _nrt=False)
def encode(kind: int, k: int, c: int, cells: int, abilities: int) -> int:
    """The action ``kind`` with ability / hand index ``k`` (USE, PLAY) at cell ``c``."""
    start = block_start(kind, cells, abilities)
    if kind == PASS or kind == END_UNIT or kind == HIDE:
        return start
    if kind == USE or kind == PLAY:
        return start + k * cells + c
    return start + c


@njit(cache=True, _nrt=False)
def decode(a: int, cells: int, abilities: int, hand: int) -> tuple[int, int, int]:
    """(kind, k, c) of action ``a`` (k and c are -1 where the block has none)."""
    if a == 0:
        return PASS, -1, -1
    if a == 1:
        return END_UNIT, -1, -1
    for kind in (SELECT, MOVE, ATTACK):
        start = block_start(kind, cells, abilities)
        if a < start + cells:
            return kind, -1, a - start
    start = block_start(USE, cells, abilities)
    if a < start + abilities * cells:
        return USE, (a - start) // cells, (a - start) % cells
    if a == block_start(HIDE, cells, abilities):
        return HIDE, -1, -1
    start = block_start(PLAY, cells, abilities)
    return PLAY, (a - start) // cells, (a - start) % cells


def default_size(width: int, height: int, hand_limit: int) -> int:
    """The table size of a board and hand limit with the card format's K = MAX_ABILITIES."""
    return table_size(width * height, MAX_ABILITIES, hand_limit)

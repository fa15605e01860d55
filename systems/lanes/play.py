"""The play phase (lanes.md "Phase 2: Play Phase", "Initiative System", "Faction Restrictions",
"Lane Rules").

Turn order (ledger): players strictly alternate, starting with the initiative holder.
"Playing a card passes initiative to the opponent", "Passing does NOT pass initiative", and
the phase ends "when both players pass consecutively". Initiative therefore decides who
opens each play phase and carries over between rounds.
"""

from __future__ import annotations

import esper
import numpy as np

from ecs.decisions import DecisionSystem
from systems.lanes import board
from systems.lanes.cards import UNIT
from systems.lanes.deaths import destroy

def lane_factions(w, games: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """``int[n, L]`` bit set of the factions of the seat's heroes standing in each lane
    (bit f set: a hero of faction f is there). Dead heroes are off the board, so they give no
    access (lanes.md "Hero Death & Respawn": "cannot act or provide lane faction access")."""
    cells = w.g.board[games, seat]  # [n, L, P]
    gi = games[:, None, None]
    sl = np.where(cells >= 0, cells, 0)
    is_hero = (cells >= 0) & w.take("hero", gi, sl)
    bits = np.left_shift(1, w.take("faction", gi, sl).astype(np.int16), dtype=np.int16) * is_hero
    return np.bitwise_or.reduce(bits, axis=2)


FACTION_BITS = np.left_shift(1, np.arange(4), dtype=np.int16)


def legal_plays(w, games: np.ndarray, seat: np.ndarray, out: np.ndarray) -> None:
    """Write into ``out: bool[n, H, L, P]`` (a view, reshaped without copy) which hand card may be played where.

    - a unit card whose cost is within the seat's resources ("Playing a card costs resources");
    - in a lane with a hero of its faction ("All cards ... require a matching-faction hero in
      the origin lane");
    - on an empty position of the seat's side, or one held by its own non-hero unit, which
      is bounced ("Playing a unit on a position occupied by your own unit destroys the
      existing unit"; ledger: heroes cannot be bounced).
    """
    cat = w.catalog.arrays
    hand = w.g.hand[games, seat]  # [n, H]
    card = np.where(hand >= 0, hand, 0)
    playable = (hand >= 0) & (cat.kind[card] == UNIT) & (cat.cost[card] <= w.g.resources[games, seat][:, None])
    present = lane_factions(w, games, seat)  # [n, L] faction bits
    gate = (present[:, None, :] & FACTION_BITS[cat.faction[card]][:, :, None]) != 0  # [n, H, L]
    gate &= playable[:, :, None]
    cells = w.g.board[games, seat]
    occ = cells >= 0
    cell_ok = ~(occ & w.take("hero", games[:, None, None], np.where(occ, cells, 0)))
    # broadcasting over the long (L*P) axis is ~3x faster than over the 5-wide P axis
    n, H, L, P = out.shape
    np.logical_and(np.repeat(gate, P, axis=2), cell_ok.reshape(n, 1, L * P), out=out.reshape(n, H, L * P))


class PlayPhase(DecisionSystem):
    def __init__(self, actions) -> None:
        self.actions = actions

    def begin(self, w) -> None:
        w.g.in_play[:] = w.active
        w.g.passes[:] = 0
        w.g.to_act[:] = w.g.initiative

    def pending(self, w) -> np.ndarray:
        return w.g.in_play

    def request(self, w, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        A = self.actions
        actor = w.g.to_act[games].astype(np.intp)
        legal = np.zeros((games.size, A.size), dtype=bool)
        legal[:, 0] = True  # "Pass - Skip your turn without playing a card"
        legal_plays(w, games, actor, legal[:, A.play_slice].reshape(games.size, A.H, A.L, A.P))
        return actor, legal

    def apply(self, w, games: np.ndarray, actor: np.ndarray, actions: np.ndarray) -> None:
        g = w.g
        passed = actions == 0
        # Pass: keeps initiative; the opponent acts; two passes in a row end the phase.
        pg = games[passed]
        g.passes[pg] += 1
        g.in_play[pg] = g.passes[pg] < 2
        g.to_act[pg] = 1 - actor[passed]
        # Play a unit.
        sel = ~passed
        pg, seat, act = games[sel], actor[sel], actions[sel]
        if pg.size:
            self.play_units(w, pg, seat, act)
            g.passes[pg] = 0
            g.initiative[pg] = 1 - seat  # "Playing a card passes initiative to the opponent"
            g.to_act[pg] = 1 - seat  # "Playing a card automatically ends your turn"

    def play_units(self, w, games: np.ndarray, seat: np.ndarray, act: np.ndarray) -> None:
        h, lane, pos = self.actions.decode_play(act)
        card = w.g.hand[games, seat, h]
        src = w.g.hand_src[games, seat, h]
        w.g.hand[games, seat, h] = -1
        w.g.hand_src[games, seat, h] = -1
        w.g.resources[games, seat] -= w.catalog.arrays.cost[card]
        occupant = w.g.board[games, seat, lane, pos]
        bounce = occupant >= 0
        if bounce.any():
            esper.dispatch_event("lanes.bounce", w, games[bounce], occupant[bounce])
            destroy(w, games[bounce], occupant[bounce], bounty=False)
        slots = board.spawn(w, games, seat, lane, pos, card)
        w.add(games, slots, deck_pos=src)
        from_deck = src >= 0
        w.g.card_played[games[from_deck], seat[from_deck], src[from_deck]] = w.g.round[games[from_deck]]
        esper.dispatch_event("lanes.play", w, games, seat, card, lane, pos, slots)

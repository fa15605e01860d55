"""How much would compiling buy? A probe, not part of the suite (it needs numba, which battlesim
does not depend on: ``pip install numba``, then ``python bench/compiled_probe.py``).

It plays one random-vs-random batch of B = 4096 games, captures a few play-phase decision
steps with many pending games, and times on exactly those states:

- the engine's whole legal-action request (``PlayPhase.request``: the 284-action row of every
  pending game, numpy);
- the unit-play part of that row (which hand unit may go to which own cell: cost, faction
  gating by the heroes in the lane, no hero bounced) written by a compiled loop over the games
  (numba), checked equal to the engine's entries for those cards.

The compiled loop is the lower bound of any compiled legal-mask kernel (it does a third of the
work); bench/README.md ("Third pass") uses the figures to bound what a compiled core could reach.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

try:
    import numba
except ImportError:  # pragma: no cover - a probe
    sys.exit("bench/compiled_probe.py needs numba: pip install numba")

from battlesim.ecs.decisions import make_agent
from battlesim.ecs.ruleset import get_ruleset
from battlesim.systems.lanes.cards import UNIT
from battlesim.systems.lanes.play import PlayPhase


@numba.njit(cache=False)
def unit_plays(games, seat, hand, board, hero, faction, kind, cost, card_faction, resources, S, out):
    """``out[i, h, l, p]``: hand card h of game i's seat may be played at its cell (l, p)."""
    H, L, P = hand.shape[2], board.shape[2], board.shape[3]
    for i in range(games.size):
        b, st = games[i], seat[i]
        for l in range(L):
            present = 0  # factions of the seat's heroes in lane l, as bits
            for p in range(P):
                c = board[b, st, l, p]
                if c >= 0 and hero[b * S + c]:
                    present |= 1 << faction[b * S + c]
            for h in range(H):
                card = hand[b, st, h]
                if card < 0 or kind[card] != UNIT or cost[card] > resources[b, st]:
                    continue
                f = card_faction[card]
                if f < 0 or not (present >> f) & 1:
                    continue
                for p in range(P):
                    c = board[b, st, l, p]
                    out[i, h, l, p] = not (c >= 0 and hero[b * S + c])


def main() -> None:
    game = get_ruleset("lanes").load()
    A = game.actions
    captured = []
    request = PlayPhase.request
    calls = [0]

    def capture(self, w, games):
        calls[0] += 1
        # the first step of a round (no game waits for a target), rounds 2 to 5
        if 1 < calls[0] and len(captured) < 4 and games.size > 1000 and not (w.g.pending_kind[games] != 0).any():
            captured.append((self, w.copy(), games.copy()))
        return request(self, w, games)

    PlayPhase.request = capture
    try:
        game.play(np.arange(1_000_000, 1_004_096), game.default_decks(), [make_agent("random")] * 2)
    finally:
        PlayPhase.request = request
    for phase, w, games in captured:
        cat = w.catalog.arrays
        n = games.size
        t_np = []
        for _ in range(15):
            t0 = time.perf_counter()
            actor, legal = phase.request(w, games)
            t_np.append(time.perf_counter() - t0)
        hand = w.g.hand[games, actor]
        unit = (hand >= 0) & (cat.kind[np.maximum(hand, 0)] == UNIT)
        ref = legal[:, A.play_slice].reshape(n, A.H, A.L, A.P) & unit[:, :, None, None]
        out = np.zeros((n, A.H, A.L, A.P), dtype=bool)
        args = (games.astype(np.int64), actor.astype(np.int64), w.g.hand, w.g.board, w.c.hero.reshape(-1),
                w.c.faction.reshape(-1), cat.kind, cat.cost, cat.faction, w.g.resources, w.n_slots, out)
        unit_plays(*args)  # compile
        t_nb = []
        for _ in range(15):
            out[:] = False
            t0 = time.perf_counter()
            unit_plays(*args)
            t_nb.append(time.perf_counter() - t0)
        ok = np.array_equal(out, ref)
        print(f"n = {n:5d} pending games: numpy request {1e3 * statistics.median(t_np):6.2f} ms "
              f"({1e6 * statistics.median(t_np) / n:.2f} us/game); compiled unit plays "
              f"{1e3 * statistics.median(t_nb):6.2f} ms ({1e6 * statistics.median(t_nb) / n:.2f} us/game); "
              f"same entries: {ok}")


if __name__ == "__main__":
    main()

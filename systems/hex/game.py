"""Hex battles from two kingdoms, played by the compiled game loop (``play.py``): batches for
``simulate --ruleset hex`` (``play_batch``, one compiled call per chunk and thread) and games
with invariant checks for the tests (``play_games``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from battlesim.ecs.compiled.rng import rng_state
from battlesim.ecs.datafiles import DataError
from battlesim.ecs.decisions import compiled_agent_codes
from battlesim.ecs.threads import over_threads
from battlesim.systems.hex.actions import Battle
from battlesim.systems.hex.cards import HexCardSet
from battlesim.systems.hex.kingdoms import Kingdom
from battlesim.systems.hex.pipeline import check_stages
from battlesim.systems.hex.play import AGENTS, INVARIANTS, PLAY, RANDOM, play_batch
from battlesim.systems.hex.setup import Army, place, refill, tile
from battlesim.systems.hex.state import WINNER, new_world
from battlesim.systems.hex.work import new_work

MAX_STEPS = 10_000  # a guard only: every turn spends an action, each unit has one a round (I-13)


@dataclass
class Armies:
    """The two kingdoms' armies written once into a one-game template World (what every game of a
    batch starts from)."""

    cards: HexCardSet
    kingdoms: tuple[Kingdom, Kingdom]
    army: Army = field(default_factory=Army)

    def __post_init__(self) -> None:
        for k in self.kingdoms:
            if k.format != "blitz":
                raise DataError(f"hex: kingdom {k.id!r} is a {k.format} kingdom; batch games play blitz kingdoms "
                                "(pre-assigned hexes) - the draft format is not built yet")
        self.template = Battle(new_world(1, np.zeros(1, dtype=np.int64)))
        for side, k in enumerate(self.kingdoms):
            place(self.template, 0, side, k, self.cards, self.army)


class HexBatch:
    """A World of ``len(seeds)`` games of two armies, with the scratch the compiled loop takes."""

    def __init__(self, armies: Armies, seeds: np.ndarray, log: int = 0) -> None:
        check_stages()
        self.armies = armies
        self.seeds = np.asarray(seeds, dtype=np.int64)
        self.bt = Battle(new_world(len(self.seeds), self.seeds), log=log)
        tile(armies.template, self.bt)
        self.rng = rng_state(self.seeds)
        self.out = np.zeros((len(self.seeds), 2), dtype=np.int64)  # decisions, invariant broken

    @classmethod
    def refilled(cls, last: HexBatch | None, armies: Armies, seeds: np.ndarray) -> HexBatch:
        """A batch for ``seeds``: ``last``'s arrays refilled in place from the armies' template
        when it holds the same armies and as many games, else a new batch. Why: a new batch is
        ~140 MB (the ability rows alone 87 MB at B = 4,096) allocated, filled and first touched per
        chunk, measured at 30-300 ms against a chunk's ~400 ms of play; a refill writes the same
        values (every batch-axis array of a new batch is its template's game 0, checked by the
        golden tables played chunk after chunk) without the page faults. The Work (the loop's
        scratch) is new per batch, as before."""
        if last is None or last.armies is not armies or len(last.seeds) != len(seeds) or last.bt.k.log.shape[0]:
            return cls(armies, seeds)
        hb = last
        hb.seeds = np.asarray(seeds, dtype=np.int64)
        bt = hb.bt
        bt.w.seeds = hb.seeds
        refill(armies.template, bt)
        bt.k = new_work(len(hb.seeds), bt.w.n_slots, bt.k.dcols)  # a chunk logs nothing (``log`` 0)
        bt.returned = bt.k.returned
        hb.rng = rng_state(hb.seeds)
        hb.out[:] = 0
        return hb

    @property
    def decisions(self) -> np.ndarray:
        return self.out[:, 0]

    @property
    def f(self) -> Any:
        return self.bt.f

    def play(self, agents: np.ndarray, threads: int = 1, check: bool = False) -> None:
        """Every game to its end: one compiled call per thread, thread t playing the t-th block of
        consecutive games (``threads.blocks``); with ``check``, the invariants after every step (``out[:, 1]``)."""
        bt = self.bt
        games = np.arange(len(self.seeds), dtype=np.int64)
        n = max(1, min(threads, len(games)))
        # thread 0 plays on the batch's own work rows, each other thread on its own copy
        works = [bt.k] + [new_work(len(games), bt.w.n_slots, bt.k.dcols, shared=bt.k) for _ in range(n - 1)]
        over_threads(lambda part, t: play_batch(bt.st, bt.cols, bt.f, works[t], self.rng, part, agents, MAX_STEPS,
                                                check, PLAY, self.out), games, n)
        running = np.flatnonzero((bt.f.g[:, WINNER] < 0) & (self.out[:, 1] == 0))  # a broken invariant stops its game
        if running.size:
            raise RuntimeError(f"seed {int(self.seeds[running[0]])}: the hex game did not end in {MAX_STEPS:,} steps")


def agent_codes(agents: Sequence[Any]) -> np.ndarray:
    """Each seat's compiled hex agent (``--agents``; ``play.AGENTS``)."""
    return compiled_agent_codes(agents, "hex", AGENTS)


def play_games(armies: Armies, seeds: Sequence[int], agents: Sequence[int] = (RANDOM, RANDOM),
               check: bool = True) -> list[dict[str, Any]]:
    """One game per seed in one World, the invariants checked after every step (``check``): per
    game its winner, end reason, rounds, decisions, and the first invariant it broke
    (``violation``, "" if none)."""
    from battlesim.systems.hex.state import END_REASON, END_REASONS, ROUND

    hb = HexBatch(armies, np.array(seeds))
    hb.play(np.asarray(agents, dtype=np.int64), check=check)
    g = hb.bt.f.g
    return [{"seed": int(seed), "decisions": int(hb.out[b, 0]), "violation": INVARIANTS[int(hb.out[b, 1])],
             "winner": int(g[b, WINNER]), "end_reason": END_REASONS[int(g[b, END_REASON])], "rounds": int(g[b, ROUND])}
            for b, seed in enumerate(seeds)]

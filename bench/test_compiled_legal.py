"""group "legal": the play phase's legal request, compiled against numpy, per game.

Requests captured from a real batch of B = 4,096 random-vs-random games (a deep copy of the World
at the request, ``regroup``-ed, with the games and seats asked): the numpy request
(``PlayPhase.request``) and the compiled rows (``legal_rows``: ``legal_play`` per game, over the
same games) answer each. The view (``world_view``, ``legal_columns``) is built outside the timing:
the compiled engine builds it once per chunk. Also each request's first game alone. Divide a time by ``extra_info["games"]`` for the
time per game.

Run: ``python -m pytest bench/test_compiled_legal.py --benchmark-only -p no:cacheprovider``.
"""

from __future__ import annotations

import numpy as np
import pytest

from battlesim.ecs.compiled.world_view import regroup, world_view
from battlesim.ecs.decisions import make_agent
from battlesim.systems.lanes.compiled.legal import legal_columns, legal_rows, play_fields
from battlesim.systems.lanes.play import PlayPhase

B, CAPTURES, MIN_GAMES = 4096, 3, 2048


class _Enough(Exception):
    pass


@pytest.fixture(scope="module")
def captured(game):
    """Requests of round 2 onwards asking at least ``MIN_GAMES`` games: ``(world, games, actor)``."""
    # the numpy play phase of the reference schedule: the compiled loop of ``play`` asks no
    # Processor for its requests (the loop lists them itself)
    phase = next(s for _, systems in game.reference._order for s in systems if isinstance(s, PlayPhase))
    taken = []

    def request(w, games):
        actor, legal = PlayPhase.request(phase, w, games)
        if int(w.g.round.max()) >= 2 and games.size >= MIN_GAMES:
            taken.append((w.copy(), games.copy(), actor.copy()))
            if len(taken) == CAPTURES:
                raise _Enough
        return actor, legal

    phase.request = request
    try:
        game.play_reference(np.arange(B, dtype=np.int64), game.default_decks(), [make_agent("random")] * 2)
    except _Enough:
        pass
    finally:
        del phase.request
    for w, _, _ in taken:
        regroup(w)
    return taken


@pytest.mark.benchmark(group="legal")
@pytest.mark.parametrize("k", range(CAPTURES))
@pytest.mark.parametrize("asked", ["all", "one"])
@pytest.mark.parametrize("how", ["numpy", "compiled"])
def test_legal_request(benchmark, game, captured, how, asked, k):
    """``asked``: every game the captured request asked, or its first one alone (B = 1: what one
    game costs, Python's call overhead included)."""
    w, games, actor = captured[k]
    if asked == "one":
        games, actor = games[:1], actor[:1]
    phase = next(s for _, systems in game.reference._order for s in systems if isinstance(s, PlayPhase))
    if how == "numpy":
        benchmark(phase.request, w, games)
    else:
        view = world_view(w)
        st, f, cols = view.state, play_fields(view), legal_columns(view, w.actions, w.equip_keywords)
        out = np.zeros((games.size, w.actions.size), dtype=np.bool_)
        g64, a64 = games.astype(np.int64), actor.astype(np.int64)
        legal_rows(st, f, cols, g64, a64, out)  # compiled (or loaded from the cache) outside the timing
        benchmark(legal_rows, st, f, cols, g64, a64, out)
    benchmark.extra_info["games"] = int(games.size)
    benchmark.extra_info["pending"] = int((w.g.pending_kind[games] != 0).sum())

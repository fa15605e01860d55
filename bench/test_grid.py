"""group "grid": whole grid games, random vs random on the default map (8x8 crossroads), default
decks, one thread, at several batch sizes (issue 16 "Speed": >= 10,000 games/s at B >= 4,096 on
one core; one game <= 2 ms); and greedy vs greedy at B = 1,024, the compiled agent that still
allocates per decision (docs/grid-speed.md).

The timed call is ``GridGame.play_tables`` (what a chunk of ``simulate --ruleset grid`` runs:
building the World, the compiled ``play_batch`` over every game, the games and cards tables),
seeds 0..B-1, so every round replays the same games. ``games_per_s`` = B / time (median; best
and worst from the min and max times); ``actions_per_game`` says how long the games were.

Group "grid_kernels": the random agent's decision in parts, on recorded states (``recorded``:
256 random games, each played to a seeded point, with the mask of the decision before and the
kind of the last action kept), each part a compiled loop over all of them; ``ns_per_call`` =
time / states. Whole batches vary 5-10% from process to process; these resolve ~10 ns, so a
step is chosen and judged here, then confirmed on batches (docs/grid-speed.md, session 12).

Run: ``python -m pytest bench/test_grid.py --benchmark-only -p no:cacheprovider``.
"""

from __future__ import annotations

import numpy as np
import pytest
from harness import record_rate
from numba import njit

from battlesim.ecs.decisions import make_agent
from battlesim.ecs.ruleset import get_ruleset
from battlesim.systems.grid.action_table import decode
from battlesim.systems.grid.apply import apply_action
from battlesim.systems.grid.game import GridBatch
from battlesim.systems.grid.play import random_action, setup_game
from battlesim.systems.grid.rules import legal_mask
from battlesim.systems.grid.state import GAME_OVER, K
from battlesim.systems.grid.work import forget_move_costs, new_agent_work

RECORDED = 256  # states: a few games' rows stay in the caches, as one game's do in play_game

# (batch size, timed rounds, warmup rounds): B = 1 measures one game's latency
GRID_CASES = [(1, 30, 3), (256, 5, 1), (1024, 3, 1), (4096, 3, 0)]


@pytest.fixture(scope="module")
def grid():
    return get_ruleset("grid").load()


@pytest.mark.benchmark(group="grid")
@pytest.mark.parametrize("n,rounds,warmup", GRID_CASES, ids=[f"B={c[0]}" for c in GRID_CASES])
def test_grid_random_vs_random(benchmark, grid, monkeypatch, n, rounds, warmup):
    play_timed(benchmark, grid, monkeypatch, "random", n, rounds, warmup)


@pytest.mark.benchmark(group="grid")
def test_grid_greedy_vs_greedy(benchmark, grid, monkeypatch):
    play_timed(benchmark, grid, monkeypatch, "greedy", 1024, 3, 1)


def play_timed(benchmark, grid, monkeypatch, agent: str, n: int, rounds: int, warmup: int) -> None:
    """Time ``play_tables`` of seeds 0..n-1, ``agent`` in both seats, one thread."""
    monkeypatch.setenv("BATTLESIM_THREADS", "1")
    agents = [make_agent(agent), make_agent(agent)]
    seeds = np.arange(n, dtype=np.int64)
    decks = grid.default_decks()
    out = benchmark.pedantic(lambda: grid.play_tables(seeds, decks, agents, cards=True), rounds=rounds,
                             warmup_rounds=warmup, iterations=1)
    benchmark.extra_info["actions_per_game"] = round(float(out["games"]["actions"].mean()), 1)
    benchmark.extra_info["mean_rounds"] = round(float(out["games"]["rounds"].mean()), 2)
    record_rate(benchmark, n)


@njit(_nrt=False)
def play_to(w, cols, f, bd, ct, pr, k, mask, masks, since, stops):
    """Game b played by the random agent for ``stops[b]`` decisions (or to its end); its mask of
    the decision before in ``masks[b]``, the kind of its last action in ``since[b]``."""
    for b in range(stops.shape[0]):
        kind = -1
        forget_move_costs(k)
        for _ in range(stops[b]):
            if f.g[b, GAME_OVER]:
                break
            a = random_action(w, cols, f, bd, ct, pr, b, k, mask, kind)
            apply_action(w, cols, f, bd, ct, pr, b, k, a)
            kind = decode(a, bd.wall.shape[0], K, f.hand.shape[2])[0]
        copy_into(masks[b], mask)


@njit(_nrt=False, inline="always")
def copy_into(dst, src):
    """``dst[:] = src`` without numba's reference counting (an array slice assignment needs it)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(_nrt=False)
def kept_masks(w, cols, f, bd, ct, pr, k, games, out, masks, since):
    """The legal mask of each state, kept from the decision before as ``play_game`` keeps it."""
    for b in games:
        copy_into(out, masks[b])
        forget_move_costs(k)
        legal_mask(w, cols, f, bd, ct, pr, b, k, out, since[b])


@njit(_nrt=False)
def decisions(w, cols, f, bd, ct, pr, k, games, out, masks, since):
    """A whole random decision in each state: the kept mask, the draw, the action applied."""
    for b in games:
        copy_into(out, masks[b])
        forget_move_costs(k)
        apply_action(w, cols, f, bd, ct, pr, b, k, random_action(w, cols, f, bd, ct, pr, b, k, out, since[b]))


@pytest.fixture(scope="module")
def recorded(grid):
    """``RECORDED`` random games (default decks and map) each stopped after 1..380 decisions."""
    t = grid.tables
    gb = GridBatch(t, np.arange(RECORDED, dtype=np.int64) + 77, grid.default_decks())
    args = (gb.ws, gb.cols, gb.f, t.bd, t.ct, t.pr)
    for b in range(RECORDED):
        setup_game(*args, b, gb.main, gb.sizes, gb.heroes, gb.cells, gb.start)
    k = new_agent_work(gb.ws, gb.f, gb.actions_size).k
    masks = np.zeros((RECORDED, gb.actions_size), dtype=np.bool_)
    since = np.zeros(RECORDED, dtype=np.int64)
    play_to(*args, k, np.zeros(gb.actions_size, dtype=np.bool_), masks, since,
            np.random.default_rng(5).integers(1, 380, RECORDED))
    games = np.flatnonzero(gb.f.g[:, GAME_OVER] == 0).astype(np.int64)
    state = [gb.ws.i16, gb.ws.i8, gb.ws.flags, gb.ws.alive, *gb.f]
    return args, k, games, np.zeros(gb.actions_size, dtype=np.bool_), masks, since, state


@pytest.mark.benchmark(group="grid_kernels")
def test_grid_kept_mask_per_call(benchmark, recorded):
    args, k, games, out, masks, since, _ = recorded
    benchmark.pedantic(lambda: kept_masks(*args, k, games, out, masks, since), rounds=61, warmup_rounds=1)
    per_call(benchmark, len(games))


@pytest.mark.benchmark(group="grid_kernels")
def test_grid_decision_per_call(benchmark, recorded):
    args, k, games, out, masks, since, state = recorded
    saved = [a.copy() for a in state]

    def put_back():  # apply changes the games: each round starts from the recorded states
        for a, s in zip(state, saved):
            np.copyto(a, s)

    benchmark.pedantic(lambda: decisions(*args, k, games, out, masks, since), setup=put_back, rounds=61,
                       warmup_rounds=1)
    per_call(benchmark, len(games))


def per_call(benchmark, n: int) -> None:
    """``ns_per_call`` (min, median, max) over the ``n`` states of a round."""
    st = getattr(getattr(benchmark, "stats", None), "stats", None)
    if st is not None and getattr(st, "data", None):
        benchmark.extra_info["ns_per_call"] = [round(1e9 * x / n, 1) for x in (st.min, st.median, st.max)]

"""The compiled RNG draws exactly what ``CounterRng`` draws (DESIGN.md "Randomness and the
determinism contract"): same bits, same floats, same integers and choices, same counters
afterwards, for any seed, counter and stream. The compiled engine's claim to reproduce the
golden games row for row rests on this."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from battlesim.ecs.compiled import rng as crng
from battlesim.ecs.rng import CounterRng, Stream

INT64 = st.integers(-(2**63), 2**63 - 1)


def _triples(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    g = np.random.default_rng(seed)
    seeds = g.integers(-(2**63), 2**63 - 1, size=n, dtype=np.int64, endpoint=True)
    seeds[:4] = [0, 1, -1, np.iinfo(np.int64).max]
    counters = g.integers(0, 2**64 - 1, size=n, dtype=np.uint64, endpoint=True)
    counters[:4] = [0, 0, 2**64 - 1, 7]  # 2**64 - 1: the counter wraps like numpy's
    streams = g.integers(0, 5000, size=n)
    streams[:6] = list(Stream)
    return seeds, counters, streams


def _both(seeds: np.ndarray, counters: np.ndarray) -> tuple[CounterRng, np.ndarray]:
    ref = CounterRng(seeds)
    ref.counter[:] = counters
    state = crng.rng_state(seeds)
    state[:, crng.COUNTER] = counters
    return ref, state


def test_bits_uniform_integers_match_for_thousands_of_triples() -> None:
    seeds, counters, streams = _triples(3000, 1)
    for draw in ("bits", "uniform", "integers"):
        ref, state = _both(seeds, counters)
        for b in range(seeds.size):
            s = int(streams[b])
            if draw == "bits":
                want, got = ref.bits(np.array([b]), 1, s)[0, 0], crng.next_bits(state, b, s)
            elif draw == "uniform":
                want, got = ref.uniform(np.array([b]), 1, s)[0, 0], crng.uniform(state, b, s)
            else:
                high = 1 + b % 97
                want, got = ref.integers(np.array([b]), high, s)[0], crng.integers(state, b, high, s)
            assert want == got, (draw, b, int(seeds[b]), int(counters[b]), s)
        assert np.array_equal(ref.counter, state[:, crng.COUNTER])


def test_a_batch_draw_of_n_is_n_compiled_draws_in_a_row() -> None:
    seeds, counters, _ = _triples(200, 2)
    ref, state = _both(seeds, counters)
    want = ref.bits(np.arange(seeds.size), 9, Stream.SHOP)
    out = np.empty(9, dtype=np.uint64)
    for b in range(seeds.size):
        crng.bits_into(state, b, int(Stream.SHOP), out)
        assert np.array_equal(out, want[b])
    assert np.array_equal(ref.counter, state[:, crng.COUNTER])
    # bits_at reads entry j of the next draw without advancing (the greedy agent's noise)
    ref2, state2 = _both(seeds, counters)
    full = ref2.uniform(np.arange(seeds.size), 5, Stream.AGENT)
    for b in range(seeds.size):
        assert crng.to_unit(np.uint64(crng.bits_at(state2, b, 3, int(Stream.AGENT)))) == full[b, 3]
    assert np.array_equal(state2[:, crng.COUNTER], counters)


def test_choice_matches_over_random_masks() -> None:
    g = np.random.default_rng(3)
    seeds, counters, _ = _triples(2000, 3)
    masks = g.random((seeds.size, 37)) < g.random((seeds.size, 1))
    masks[np.arange(seeds.size), g.integers(0, 37, seeds.size)] = True  # CounterRng needs a True per row
    ref, state = _both(seeds, counters)
    want = ref.choice(np.arange(seeds.size), masks, Stream.AGENT)
    got = [crng.choice(state, b, masks[b], int(Stream.AGENT)) for b in range(seeds.size)]
    assert np.array_equal(want, got)
    assert np.array_equal(ref.counter, state[:, crng.COUNTER])


def test_choice_with_no_legal_entry_still_draws_and_says_minus_one() -> None:
    state = crng.rng_state(np.array([5], dtype=np.int64))
    assert crng.choice(state, 0, np.zeros(4, dtype=np.bool_), 4) == -1
    assert state[0, crng.COUNTER] == 1


def test_permutation_keys_sorted_stably_give_the_numpy_order_with_padding() -> None:
    # systems/lanes/state.py shuffles decks with argsort(kind="stable") of keys, padding = max
    seeds, counters, _ = _triples(300, 4)
    ref, state = _both(seeds, counters)
    D = 23
    keys = ref.permutation_keys(np.arange(seeds.size), D, Stream.SHUFFLE)
    pad = np.random.default_rng(4).random(keys.shape) < 0.3
    keys[pad] = np.iinfo(np.uint64).max
    want = np.argsort(keys, axis=1, kind="stable")
    out = np.empty(D, dtype=np.uint64)
    for b in range(seeds.size):
        crng.permutation_keys(state, b, int(Stream.SHUFFLE), out)
        out[pad[b]] = np.iinfo(np.uint64).max
        assert np.array_equal(_stable_order(out), want[b])


@njit
def _stable_order(keys: np.ndarray) -> np.ndarray:
    return np.argsort(keys, kind="mergesort")


_OPS = st.lists(st.tuples(st.sampled_from(["bits", "uniform", "integers", "choice", "keys"]),
                          st.integers(0, 1100), st.integers(1, 40)), min_size=1, max_size=25)


@settings(max_examples=60, deadline=None)
@given(seeds=st.lists(INT64, min_size=1, max_size=4), ops=_OPS)
def test_mixed_sequences_of_draws_match(seeds: list[int], ops: list[tuple[str, int, int]]) -> None:
    """Any sequence of draws by any games of a batch: same values, same counters after each."""
    arr = np.array(seeds, dtype=np.int64)
    ref, state = _both(arr, np.zeros(arr.size, dtype=np.uint64))
    for i, (op, stream, n) in enumerate(ops):
        b = i % arr.size
        games = np.array([b])
        if op == "bits":
            out = np.empty(n, dtype=np.uint64)
            crng.bits_into(state, b, stream, out)
            assert np.array_equal(out, ref.bits(games, n, stream)[0])
        elif op == "uniform":
            assert crng.uniform(state, b, stream) == ref.uniform(games, 1, stream)[0, 0]
        elif op == "integers":
            assert crng.integers(state, b, n, stream) == ref.integers(games, n, stream)[0]
        elif op == "choice":
            mask = (np.arange(n) % 3) == (i % 3)
            mask[n // 2] = True
            assert crng.choice(state, b, mask, stream) == ref.choice(games, mask[None, :], stream)[0]
        else:
            out = np.empty(n, dtype=np.uint64)
            crng.permutation_keys(state, b, stream, out)
            assert np.array_equal(out, ref.permutation_keys(games, n, stream)[0])
        assert np.array_equal(state[:, crng.COUNTER], ref.counter)

"""The batched World's bookkeeping: component buffers, release, change counts, copies.

Component arrays of one dtype and shape share a buffer (so ``release`` can reset a group in one
call); these tests check that each array still behaves as its own and that release resets
exactly the released entities, whichever path it takes."""

from __future__ import annotations

import numpy as np
import pytest

import battlesim.ecs.world as world_mod
from battlesim.ecs.ruleset import get_ruleset
from battlesim.ecs.world import World


@pytest.fixture(scope="module")
def names() -> list[str]:
    get_ruleset("lanes")  # declares the lanes components
    from battlesim.systems.lanes.state import components

    return components()


def filled(names: list[str], B: int = 6, S: int = 80) -> World:
    """A world whose every slot is alive and holds a non-default value in every component."""
    w = World(B, S, names)
    w.alive[:] = True
    for name, comp in w.components.items():
        arr = getattr(w.c, name)
        arr[...] = True if arr.dtype == np.bool_ else (comp.default or 0) + 3
        if name in w.present:
            w.present[name][...] = True
    return w


@pytest.mark.parametrize("count", [5, world_mod._FEW_RELEASED + 40])  # grouped, then array by array
def test_release_resets_exactly_the_released_entities(names, count):
    w = filled(names)
    rng = np.random.default_rng(count)
    flat = rng.choice(w.n_games * w.n_slots, size=count, replace=False)
    b, s = np.divmod(flat, w.n_slots)
    before = {n: getattr(w.c, n).copy() for n in w.components}
    w.release(b, s)
    freed = np.zeros((w.n_games, w.n_slots), dtype=bool)
    freed[b, s] = True
    assert not w.alive[freed].any() and w.alive[~freed].all()
    for name, comp in w.components.items():
        arr = getattr(w.c, name)
        assert (arr[freed] == comp.default).all(), name
        assert np.array_equal(arr[~freed], before[name][~freed]), name
        if name in w.present:
            assert not w.present[name][freed].any() and w.present[name][~freed].all(), name


def test_arrays_sharing_a_buffer_stay_independent(names):
    w = World(2, 8, names)
    int16 = [n for n in w.components if getattr(w.c, n).dtype == np.int16 and not w.components[n].shape]
    assert len(int16) >= 2
    a, b = int16[0], int16[1]
    w.add(np.array([1]), np.array([3]), **{a: 7})
    assert getattr(w.c, a)[1, 3] == 7 and getattr(w.c, b)[1, 3] == w.components[b].default
    for n in int16:
        arr = getattr(w.c, n)
        assert arr.shape == (2, 8) and arr.flags.c_contiguous


def test_change_count_moves_on_add_remove_and_release_of_a_holder(names):
    w = World(2, 8, names)
    assert w.track("aura") == 0
    g, s = np.array([0]), w.allocate(np.array([0]))
    w.add(g, s, aura=True)
    assert w.changes["aura"] == 1
    other = w.allocate(np.array([0]))
    w.release(g, other)  # holds no aura: nothing to count
    assert w.changes["aura"] == 1
    w.release(g, s)
    assert w.changes["aura"] == 2
    s = w.allocate(np.array([0]))
    w.add(g, s, aura=True)
    w.remove("aura", g, s)
    assert w.changes["aura"] == 4


def test_copy_owns_its_arrays_and_releases_like_the_original(names):
    w = filled(names, B=3, S=16)
    before = {n: getattr(w.c, n).copy() for n in w.components}
    dup = w.copy()
    dup.release(np.array([0, 2]), np.array([1, 5]))
    for name, comp in w.components.items():
        assert np.array_equal(getattr(w.c, name), before[name]), name  # the original is untouched
        released = getattr(dup.c, name)[[0, 2], [1, 5]]
        assert (released == comp.default).all(), name
    assert w.alive[0, 1] and not dup.alive[0, 1]


def test_restart_leaves_the_state_a_new_world_has_in_the_same_arrays(names):
    """``World.restart``: every component, mask, per-game field, slot and RNG as ``World(...)`` makes
    them for the new seeds, in the arrays the World already had (compiled views of them stay valid),
    and the caller's seeds array is never written."""
    from battlesim.ecs.world import StateField

    state = [StateField("round", np.int16, default=1), StateField("gold", np.int32, (2,), default=5)]
    w = World(4, 80, names, state, seeds=np.arange(4))
    w2 = filled(names, B=4)
    w.alive[:] = True
    for name in w.components:
        getattr(w.c, name)[...] = getattr(w2.c, name)
    for mask in w.present.values():
        mask[...] = True
    w.g.round[:] = 9
    w.g.gold[:] = 7
    w.active[:] = False
    w.serial[:] = 3
    w.rng.bits(np.arange(4), 3, 1)
    arrays = [getattr(w.c, n) for n in w.components] + [w.g.round, w.g.gold, w.seeds, w.rng.packed, w.alive]
    version, changes = w.version, dict(w.changes, health=w.track("health"))
    seeds = np.array([11, 12, 13, 14])
    w.restart(seeds)
    seeds[:] = 0
    fresh = World(4, 80, names, state, seeds=np.array([11, 12, 13, 14]))
    for name in w.components:
        assert np.array_equal(getattr(w.c, name), getattr(fresh.c, name)), name
    for name in w.present:
        assert not w.present[name].any(), name
    assert np.array_equal(w.g.round, fresh.g.round) and np.array_equal(w.g.gold, fresh.g.gold)
    assert not w.alive.any() and not w.serial.any() and w.active.all()
    assert np.array_equal(w.seeds, fresh.seeds) and np.array_equal(w.rng.packed, fresh.rng.packed)
    assert np.array_equal(w.rng.bits(np.arange(4), 2, 1), fresh.rng.bits(np.arange(4), 2, 1))
    assert all(a is b for a, b in zip(arrays, [getattr(w.c, n) for n in w.components]
                                       + [w.g.round, w.g.gold, w.seeds, w.rng.packed, w.alive]))
    assert w.version > version and w.changes["health"] > changes["health"]  # caches keyed on them rebuild
    with pytest.raises(ValueError, match="need 4 seeds"):
        w.restart(np.arange(3))

"""The World as compiled code sees it (ecs/compiled/world_view.py): the World's own buffers, so a
kernel's write is a write to ``w.c.<name>``, for every group, with column ids as arguments."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from battlesim.ecs.compiled.events import CARD, POS, SERIAL, new_events, push_event
from battlesim.ecs.compiled.world_view import ViewError, regroup, world_view
from battlesim.ecs.decisions import make_agent


@njit(cache=False)
def write_each_group(st, b, s, cols):
    """Writes through the view: cols = (i16 row, i8 row, flags row, i16x2 row, presence row)."""
    st.i16[cols[0], b, s] = 1234
    st.i8[cols[1], b, s] = -7
    st.flags[cols[2], b, s] = True
    st.i16x2[cols[3], b, s, 1] = -321
    st.flags[cols[4], b, s] = False
    st.alive[b, s] = True
    st.serial[b, s] = 4242


@njit(cache=False)
def read_card(st, card, row):
    return st.cat[row, card]


@pytest.fixture
def world(lanes):
    return lanes.new_world(np.arange(3, dtype=np.int64), lanes.default_decks(), [make_agent("random")] * 2)


def test_a_kernel_writes_the_worlds_own_arrays(world):
    v = world_view(world)
    assert {g for g, _ in v.columns.values()} == {"i16", "i8", "flags", "i16x2"}
    cols = v.cols(["health", "owner", "stealth", "temp_attack", "present.pos"])
    b, s = 2, 40  # a free slot: every value below differs from what the world holds there
    assert not world.alive[b, s] and world.c.health[b, s] != 1234
    world.present["pos"][b, s] = True
    write_each_group(v.state, b, s, cols)
    assert world.c.health[b, s] == 1234
    assert world.c.owner[b, s] == -7
    assert world.c.stealth[b, s]
    assert world.c.temp_attack[b, s, 1] == -321
    assert not world.present["pos"][b, s]
    assert world.alive[b, s] and world.serial[b, s] == 4242
    # and nothing else moved: the other games and slots of those rows are untouched
    assert (world.c.health[:2] != 1234).all() and (world.c.health[b, :s] != 1234).all()


def test_the_numpy_engine_sees_compiled_writes_through_its_flat_views(world):
    v = world_view(world)
    flat = world.take("health", np.array([1]), np.array([7]))  # builds the world's flat views first
    write_each_group(v.state, 1, 7, v.cols(["health", "owner", "stealth", "temp_attack", "present.pos"]))
    assert flat[0] != 1234 and world.take("health", np.array([1]), np.array([7]))[0] == 1234


def test_a_deep_copy_is_refused_until_regrouped(world):
    dup = world.copy()
    with pytest.raises(ViewError, match="regroup"):
        world_view(dup)
    before = {n: getattr(dup.c, n).copy() for n in dup.components}
    regroup(dup)
    assert all(np.array_equal(getattr(dup.c, n), before[n]) for n in dup.components)
    v = world_view(dup)
    write_each_group(v.state, 0, 50, v.cols(["health", "owner", "stealth", "temp_attack", "present.pos"]))
    assert dup.c.health[0, 50] == 1234 and world.c.health[0, 50] != 1234  # the copy's memory, not the original's
    assert dup.take("health", np.array([0]), np.array([50]))[0] == 1234  # its flat views were rebuilt


def test_the_catalog_by_card_id_reads_zero_for_no_card(world):
    v = world_view(world)
    cat = world.catalog
    row = v.cat_rows["kw_armor"]
    card = int(np.flatnonzero(cat.arrays.kw_armor)[0])
    assert read_card(v.state, card, row) == cat.arrays.kw_armor[card]
    assert read_card(v.state, -1, row) == 0  # "no item": the extra last column
    assert v.state.params[v.param_index["essence_hp"]] == world.params.essence_hp


def test_unknown_column_is_one_line(world):
    with pytest.raises(ViewError, match="no column 'nope'"):
        world_view(world).cols(["nope"])


def test_a_full_trigger_queue_loses_nothing_silently():
    """ecs/compiled/events.py: a push into a full queue writes nothing and lets ``nevents`` pass
    the capacity, so the caller can stop the game rather than drop an event."""
    events, nevents = new_events(2, 2)
    assert push_event(events, nevents, 1, 7, 100, 9, 3, 4, 1, 2, 0)
    assert push_event(events, nevents, 1, 7, 101, 10, 5, -1, 0, 1, 4)
    assert not push_event(events, nevents, 1, 7, 102, 11, 6, 4, 1, 2, 0)
    assert list(nevents) == [0, 3]
    assert events[1, :, CARD].tolist() == [100, 101] and events[1, 1, POS] == 4 and events[1, 0, SERIAL] == 3
    assert not events[0].any()

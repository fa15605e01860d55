"""The machine as data (ecs/compiled/unlinked.py): a Resolution's address table holds its own
machine's ``resolve`` for every signature the game module recorded, including the ones another
process recorded after the table was made (its callers load from the cache untyped here: an
empty slot would be a jump to address 0)."""

from __future__ import annotations

import pickle
import types
from pathlib import Path

import numpy as np
from numba import njit
from numba import types as nt

from battlesim.ecs.compiled import unlinked


@njit
def _resolve_a(a, x):
    return a[0] + x


@njit
def _resolve_b(a, x):
    return a[0] - x


def _machine(name: str, fn) -> types.SimpleNamespace:
    return types.SimpleNamespace(__name__=name, resolve=fn)


SIG = (nt.int64[::1], nt.int64)


def test_a_signature_recorded_by_another_process_is_filled_before_entering(tmp_path: Path) -> None:
    manifest = tmp_path / "machine_signatures.pkl"
    a = _machine("test_machine_a", _resolve_a)
    table = unlinked.new_table(a, manifest)
    assert not table.any()  # nothing recorded yet
    manifest.write_bytes(pickle.dumps([SIG]))  # another process typed a caller (and may have cached it)
    unlinked.refresh(manifest)
    assert table[0] == unlinked.address(a, SIG) != 0 and not table[1:].any()


def test_each_table_holds_its_own_machine(tmp_path: Path) -> None:
    """Two plugin sets in one process (``isolated()``): one game module, two machines."""
    manifest = tmp_path / "machine_signatures.pkl"
    manifest.write_bytes(pickle.dumps([SIG]))
    a = unlinked.new_table(_machine("test_machine_a2", _resolve_a), manifest)
    b = unlinked.new_table(_machine("test_machine_b2", _resolve_b), manifest)
    assert a[0] != 0 and b[0] != 0 and a[0] != b[0]
    assert unlinked.machine_of(b, manifest).resolve is _resolve_b  # NUMBA_DISABLE_JIT's way back
    assert np.array_equal(a[1:], b[1:]) and not a[1:].any()


def test_a_signature_past_the_last_slot_is_refused_before_it_is_written(tmp_path: Path) -> None:
    # the index is frozen into the callers' machine code, so the manifest may only hold as many
    # signatures as a table has slots: the one too many is a one-line SignatureLimit, and the
    # manifest keeps the ones that fit (a later table is still complete)
    manifest = tmp_path / "machine_signatures.pkl"
    full = [(nt.int64[::1], nt.Array(nt.int64, 1, "C", readonly=False), nt.UniTuple(nt.int64, k))
            for k in range(unlinked.MAX_SIGNATURES)]
    manifest.write_bytes(pickle.dumps(full))
    assert unlinked._record(manifest, full[-1]) == unlinked.MAX_SIGNATURES - 1
    try:
        unlinked._record(manifest, SIG)
    except unlinked.SignatureLimit as e:
        assert str(manifest) in str(e) and "\n" not in str(e)
    else:
        raise AssertionError("a 33rd signature was accepted")
    assert pickle.loads(manifest.read_bytes()) == full


def test_compile_recorded_compiles_every_recorded_signature(tmp_path: Path) -> None:
    manifest = tmp_path / "machine_signatures.pkl"
    manifest.write_bytes(pickle.dumps([SIG]))

    @njit
    def resolve(a, x):
        return a[0] * x

    unlinked.compile_recorded(_machine("test_machine_recorded", resolve), manifest)
    assert list(resolve.overloads) == [SIG]

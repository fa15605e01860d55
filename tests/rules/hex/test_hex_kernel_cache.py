"""The hex kernels' numba cache follows the layout they index (``systems/hex/kernel_cache.py``):
a stamp of another layout flushes the cached code, so no kernel reads stale column positions."""

from __future__ import annotations

from pathlib import Path

from battlesim.systems.hex import battle, kernel_cache


def test_a_stale_layout_stamp_is_replaced() -> None:
    fns = [battle.prop, battle.reach]
    stamp = Path(fns[0]._cache._cache_path) / "test_kernels.layout"
    stamp.write_text("another layout")
    kernel_cache.check("test_kernels", fns)
    assert stamp.read_text() == kernel_cache.layout_digest()
    stamp.unlink()


def test_the_digest_covers_the_column_table(monkeypatch) -> None:
    before = kernel_cache.layout_digest()
    monkeypatch.setattr(kernel_cache.state, "COLUMNS", (*kernel_cache.state.COLUMNS, "hex_new_keyword"))
    assert kernel_cache.layout_digest() != before

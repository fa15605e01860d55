"""The grid engine's compiled functions: each cites the rule it implements, and numba's cache
follows the layout and files they were compiled against (systems/grid/kernel_cache.py)."""

from __future__ import annotations

from pathlib import Path

from battlesim.systems.grid import apply, kernel_cache, occupancy, outcome, play, rules


def test_every_engine_kernel_cites_its_rule():
    for module in (occupancy, rules, outcome, apply, play):
        for fn in kernel_cache.kernels_of(vars(module), module.__name__):
            doc = fn.py_func.__doc__ or ""
            assert "grid.md" in doc or "spec §" in doc, f"{module.__name__}.{fn.__name__}"


def test_a_stale_layout_stamp_is_replaced():
    fns = [rules.eff_mv]
    stamp = Path(fns[0]._cache._cache_path) / "grid_test_kernels.layout"
    stamp.write_text("another layout")
    kernel_cache.check("test_kernels", fns)
    assert stamp.read_text() == kernel_cache.layout_digest()
    stamp.unlink()


def test_the_digest_covers_the_column_table_and_the_kernel_files(monkeypatch):
    before = kernel_cache.layout_digest()
    monkeypatch.setattr(kernel_cache.state, "COLUMNS", (*kernel_cache.state.COLUMNS, "grid_new_keyword"))
    assert kernel_cache.layout_digest() != before
    assert {"rules.py", "outcome.py", "apply.py", "play.py", "board.py", "damage.py"} <= set(kernel_cache.KERNEL_FILES)

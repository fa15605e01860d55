"""Fixtures and hooks of the benchmark suites (how to run them: bench/README.md).

Only the engine's public calls are used (``get_ruleset``, ``make_agent``,
``LanesGame.new_world/run/play``, ``Schedule.run/profile/timings/phases``), so the suites keep
measuring the same thing while the engine's internals change under them. The shared set-up lives in
``bench/harness.py``.
"""

from __future__ import annotations

import pytest

from battlesim.ecs.ruleset import get_ruleset


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    # pyproject's addopts carry --benchmark-disable (so the normal test run never times
    # anything), and pytest-benchmark refuses --benchmark-only together with it. Asking for
    # --benchmark-only on this directory is asking for the benchmarks to run, so enable them.
    # (This conftest is only loaded at startup when bench/ is on the command line.)
    if config.getoption("benchmark_only", False) and config.getoption("benchmark_disable", False):
        config.option.benchmark_enable = True


# --------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="session")
def game():
    """The lanes ruleset with its default parameters, cards and decks (loaded once)."""
    return get_ruleset("lanes").load()


@pytest.fixture(scope="session")
def rates():
    """games/s measured by this session, shared between benchmarks (for ratios)."""
    return {}


# --------------------------------------------------------------------------- summary
def pytest_terminal_summary(terminalreporter, config):
    """After pytest-benchmark's tables: the rates (games/s ...) kept in extra_info, which its
    tables do not show."""
    bs = getattr(config, "_benchmarksession", None)
    if bs is None or bs.disabled or not bs.benchmarks:
        return
    rows = []
    for b in bs.benchmarks:
        info = b.extra_info or {}
        keys = [k for k in info if k.endswith("_per_s") and not k.startswith(("reference_", "engine_"))]
        if keys:
            rows.append((b.group or "", b.name, info, keys))
    if not rows:
        return
    tr = terminalreporter
    tr.write_sep("-", "rates (median time; best = min time, worst = max time)")
    for group, name, info, keys in rows:
        for k in keys:
            unit = k[: -len("_per_s")]
            spread = ""
            if k + "_best" in info:
                spread = f"   (best {info[k + '_best']:,.0f}, worst {info[k + '_worst']:,.0f})"
            tr.write_line(f"{group:10s} {name:48s} {info[k]:>12,.0f} {unit}/s{spread}")
        if "speedup_vs_reference" in info:
            spread = ""
            if "speedup_best" in info:
                spread = f"   (best/best {info['speedup_best']:.1f}x, worst/worst {info['speedup_worst']:.1f}x)"
            tr.write_line(f"{'':10s} {'':48s} engine / esper reference = {info['speedup_vs_reference']:.1f}x{spread}")
        if "phase_share" in info and info.get("games", 0) >= 4096:
            split = ", ".join(f"{k} {v:.0%}" for k, v in info["phase_share"].items())
            tr.write_line(f"{'':10s} {'':48s} per phase: {split}")

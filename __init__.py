"""battlesim: play tactical card-battle games in large batches and turn them into balance numbers.

The installed distribution is this one namespace: ``battlesim.ecs`` (the engine, with its
``runs`` and ``balance`` sub-packages and the CLI), ``battlesim.systems`` (a sub-package per
ruleset), ``battlesim.components`` and ``battlesim.data``. The repository keeps those folders at
its top level; ``pyproject.toml`` maps them under ``battlesim``.

The Python API, for notebooks and scripts, is what the commands use (the README's "Run from
Python" shows it running; tests/test_api.py runs that example)::

    import battlesim
    games = battlesim.run_games(20_000, decks=("red_vanguard", "green_grove"))   # battlesim simulate
    spec = battlesim.BalanceSpec(decks=("red_vanguard", "green_grove"), games_per_pairing=200)
    result = battlesim.measure_balance(spec, "runs/bal")                        # battlesim balance
    sweep = battlesim.run_sweep(spec, [battlesim.Axis("anchor_hp", (20, 30))], "runs/sweep")

- ``run_games``: the games table (pyarrow) of a run; ``simulate(RunConfig(...))`` the lower-level
  form (a ``RunResult``: counts only, the cards table, a run directory), ``summarize`` its headline numbers (the
  object ``battlesim simulate --json`` prints);
- ``measure_balance(BalanceSpec, out)``: the round-robin measure, the ``balance.json`` object
  (also written to ``out`` with ``report.html``), resumable like the command;
- ``run_sweep(spec, axes, out)``: that measure per combination of parameter values (``Axis``),
  the ``sweep.json`` object;
- ``RunError``: the one exception bad input raises, its message one line.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

try:
    __version__ = _version("battlesim")
except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
    __version__ = "0+unknown"

from battlesim.ecs.balance.measure import BalanceSpec  # noqa: E402
from battlesim.ecs.balance.measure import measure as measure_balance  # noqa: E402
from battlesim.ecs.balance.sweep import Axis, run_sweep  # noqa: E402
from battlesim.ecs.runs.runner import RunConfig, RunError, RunResult, run_games, simulate, summarize  # noqa: E402

__all__ = [
    "__version__",
    "Axis",
    "BalanceSpec",
    "RunConfig",
    "RunError",
    "RunResult",
    "measure_balance",
    "run_games",
    "run_sweep",
    "simulate",
    "summarize",
]

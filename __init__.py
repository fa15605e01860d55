"""battlesim: play tactical card-battle games in large batches and turn them into balance numbers.

The installed distribution is this one namespace: ``battlesim.ecs`` (the engine, with its
``runs`` and ``balance`` sub-packages and the CLI), ``battlesim.systems`` (a sub-package per
ruleset), ``battlesim.components`` and ``battlesim.data``. The repository keeps those folders at
its top level; ``pyproject.toml`` maps them under ``battlesim``.

The Python API, for notebooks and scripts::

    import battlesim
    games = battlesim.run_games(20_000, decks=("red_vanguard", "green_grove"))
    result = battlesim.run_balance(["red_vanguard", "green_grove"], games_per_pairing=200)
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

try:
    __version__ = _version("battlesim")
except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
    __version__ = "0+unknown"

from battlesim.ecs.runs.runner import RunConfig, RunError, run_games, simulate  # noqa: E402

__all__ = ["__version__", "RunConfig", "RunError", "run_games", "simulate"]

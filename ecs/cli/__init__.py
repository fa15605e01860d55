"""The ``battlesim`` command line: one module per command group, registered on one typer app."""

from __future__ import annotations

import sys

from battlesim.ecs.cli import balance, bench, catalog, scenario, simulate  # noqa: F401  (register the commands)
from battlesim.ecs.cli import compile as _compile  # noqa: F401  (battlesim compile)
from battlesim.ecs.cli.app import app, run

__all__ = ["app", "main", "run"]


def main() -> None:
    sys.exit(run())

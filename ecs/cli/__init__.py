"""The ``battlesim`` command line: one module per command group, registered on one typer app."""

from __future__ import annotations

from battlesim.ecs.cli import balance, bench, catalog, scenario, simulate  # noqa: F401  (register the commands)
from battlesim.ecs.cli import compile as _compile  # noqa: F401  (battlesim compile)
from battlesim.ecs.cli.app import app

__all__ = ["app", "main"]


def main() -> None:
    app()

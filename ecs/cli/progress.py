"""The run progress bar on stderr: games done, games/s, elapsed, ETA."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from battlesim.ecs.cli.app import err


class _Speed(ProgressColumn):
    """Games per second since the run started playing (games resumed from --out excluded)."""

    def render(self, task) -> Text:
        rate = _rate(task)
        return Text(f"{rate:,.0f} games/s" if rate else "", style="cyan")


class _Eta(ProgressColumn):
    def render(self, task) -> Text:
        rate = _rate(task)
        if not rate or task.remaining is None:
            return Text("eta -:--:--", style="progress.remaining")
        left = int(task.remaining / rate)
        return Text(f"eta {left // 3600}:{left // 60 % 60:02d}:{left % 60:02d}", style="progress.remaining")


def _rate(task) -> float | None:
    played, started = task.fields.get("played", 0), task.fields.get("started")
    if not played or started is None:
        return None
    return played / max(time.monotonic() - started, 1e-9)


class RunProgress:
    """One progress bar for the whole run, on stderr: games done, games/s, elapsed, ETA.

    One bar also serves a run made of several runs (the pairings of ``balance``, the points x
    pairings of ``sweep``): ``games`` is the total of all of them, each run reports into it, and
    ``describe`` names the part being played. Games found finished in a resumed run directory
    count as done but not in the speed (so the ETA is that of the games still to play)."""

    def __init__(self, games: int, console: Console | None = None, label: str = "simulating") -> None:
        self.bar = Progress(
            # the label may hold deck names: plain text, never rich markup
            TextColumn("{task.fields[label]}", style="bold", markup=False), BarColumn(), MofNCompleteColumn(),
            _Speed(), TimeElapsedColumn(), _Eta(),
            console=console or err, transient=True,
        )
        self.played = 0
        self.task = self.bar.add_task("games", total=games, played=0, started=time.monotonic(), label=label)

    def __call__(self, games: int, resumed: bool = False) -> None:
        if resumed:  # these count as done, not in the speed
            if self.played:
                self.bar.update(self.task, advance=games)
            else:  # nothing played yet: the speed starts now
                self.bar.update(self.task, advance=games, started=time.monotonic())
        else:
            self.played += games
            self.bar.update(self.task, advance=games, played=self.played)

    def describe(self, label: str) -> None:
        """Name the part of the run being played (shown left of the bar)."""
        self.bar.update(self.task, label=label)

    def __enter__(self) -> "RunProgress":
        self.bar.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.bar.__exit__(*exc)


@contextmanager
def run_progress(games: int, show: bool = True) -> Iterator[RunProgress | None]:
    """The bar of a command that plays ``games`` games, or None when it is not wanted (``show``
    off: --quiet or --json) or stderr is not a terminal (a log file gets no bar frames)."""
    if not show or not err.is_terminal:
        yield None
        return
    with RunProgress(games) as bar:
        yield bar

"""``battlesim bench``: games/s here, and where the time goes."""

from __future__ import annotations

import json
import sys

import typer
from rich.console import Console
from rich.table import Table

from battlesim.ecs.cli.app import PLUGIN_OPTION, app, fail
from battlesim.ecs.datafiles import DataError
from battlesim.ecs.runs.runner import (
    RunConfig,
    RunError,
    load_game,
)


@app.command()
def bench(
    ruleset: str = typer.Option("lanes", help="Rule system."),
    quick: bool = typer.Option(False, "--quick", help="Small batches only (a few seconds)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of tables."),
    plugin: list[str] = PLUGIN_OPTION,
) -> None:
    """Measure games per second here, and where the time goes.

    Each configuration is played several times on fresh seeds; min / median / max are shown
    because a shared machine is noisy. Two splits of one random-vs-random batch follow: by
    system (which phase costs) and by engine service (legal actions, agents, card effects,
    damage pipeline, the systems' own work; each second counted once, in the innermost). For
    tracking speed over time use the pytest-benchmark suites in bench/ (see bench/README.md).
    """
    from battlesim.ecs.speed import (
        measure,
        phase_split,
        service_split,
        standard_configs,
    )

    try:
        game = load_game(RunConfig(ruleset=ruleset, plugins=tuple(plugin)))
    except (RunError, DataError) as e:
        fail(str(e))
        return
    samples = []
    for batch, agent_pair in standard_configs(quick):
        repeats = (5 if quick else 20) if batch < 64 else (2 if quick else 3)
        samples.append(measure(game, batch, agent_pair, repeats=repeats))
    split_batch = 256 if quick else 4096
    split = phase_split(game, split_batch)
    services = service_split(game, split_batch)
    if as_json:
        sys.stdout.write(json.dumps({
            "ruleset": ruleset,
            "configs": [
                {"agents": list(s.agents), "batch": s.batch, "games_per_second":
                 {"min": s.low, "median": s.median, "max": s.high}} for s in samples
            ],
            "phase_split": _split_json(split_batch, split),
            "service_split": _split_json(split_batch, services),
        }) + "\n")
        return
    console = Console()
    t = Table(title=f"{ruleset}: games per second (one process)")
    for col in ("agents", "batch", "min", "median", "max", "ms per game (median)"):
        t.add_column(col, justify="right" if col != "agents" else "left")
    for s in samples:
        t.add_row(s.label, f"{s.batch:,}", f"{s.low:,.0f}", f"{s.median:,.0f}", f"{s.high:,.0f}",
                  f"{1000 / s.median:.3f}")
    console.print(t)
    console.print(_share_table(f"where the time goes (random vs random, batch {split_batch:,})", "phase/system", split))
    console.print(_share_table(f"by engine service, numpy reference schedule (batch {split_batch:,})", "service", services))


def _split_json(batch: int, seconds: dict[str, float]) -> dict:
    total = sum(seconds.values()) or 1.0
    return {"batch": batch, "seconds": seconds, "share": {k: v / total for k, v in seconds.items()}}


def _share_table(title: str, what: str, seconds: dict[str, float]) -> Table:
    """Seconds and share of the total for each entry of a time split."""
    total = sum(seconds.values()) or 1.0
    table = Table(title=title)
    table.add_column(what)
    table.add_column("seconds", justify="right")
    table.add_column("share", justify="right")
    for k, v in seconds.items():
        table.add_row(k, f"{v:.3f}", f"{v / total:.1%}")
    return table

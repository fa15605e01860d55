"""``battlesim scenario``: play a scenario file step by step and check its expectations."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from battlesim.ecs.cli.app import PLUGIN_OPTION, UserError, app, fail, say
from battlesim.ecs.datafiles import DataError, printable, read_toml
from battlesim.ecs.runs.runner import (
    RunConfig,
    RunError,
    load_game,
)


@app.command()
def scenario(
    file: Path = typer.Argument(..., help="A scenario file (TOML); see docs/scenarios.md."),
    as_json: bool = typer.Option(False, "--json", help="Print the resulting state as one JSON object."),
    check: bool = typer.Option(False, "--check", help="Compare with the file's \\[expect]; exit 1 on a mismatch."),
    plugin: list[str] = PLUGIN_OPTION,
) -> None:
    """Set up a board, run steps (combat, round start/end, shop, plays, abilities) and show the state.

    Lets a designer check any rule or card by hand; the same files are the rules tests.
    """
    try:
        raw, _ = read_toml(file)
        ruleset = raw.get("ruleset", "lanes")
        if not isinstance(ruleset, str):
            raise DataError(f"{file}: field 'ruleset': expected text in quotes, e.g. \"lanes\"")
        game = load_game(RunConfig(ruleset=ruleset, plugins=tuple(plugin)))
        if not hasattr(game, "scenario"):
            raise UserError(f"ruleset {ruleset!r} has no scenarios")
        sc = game.scenario(file)
        state = sc.run()
    except (UserError, RunError, DataError) as e:
        fail(str(e))
    if as_json:
        sys.stdout.write(json.dumps(state) + "\n")
    elif hasattr(sc, "print_state"):  # a ruleset with its own printer (hex: spec §7, the anchors are lanes')
        sc.print_state(state)
    else:
        _print_state(state)
    if check:
        diffs = sc.check(state)
        for d in diffs:
            say("mismatch:", "bold red", d)
        if not as_json:
            Console().print("[green]matches \\[expect][/]" if not diffs else f"[red]{len(diffs)} mismatch(es)[/]")
        if diffs:
            raise typer.Exit(1)


def _print_state(state: dict[str, Any]) -> None:
    console = Console(markup=False, emoji=False, highlight=False)
    head = f"round {state['round']}   gold {state['gold']}   resources {state['resources']}"
    if state.get("winner") is not None:
        head += f"   winner: side {state['winner']}"
    elif state.get("draw"):
        head += "   draw"
    console.print(head)
    t = Table(title="anchors")
    for col in ("side", "lane", "anchor hp", "essence hp", "destroyed"):
        t.add_column(col)
    for side, row in enumerate(state["anchors"]):
        for a in row:
            t.add_row(str(side), str(a["lane"]), str(a["hp"]), str(a["essence"]), "yes" if a["destroyed"] else "")
    console.print(t)
    u = Table(title="units")
    for col in ("side", "lane", "pos", "name", "atk", "hp", "keywords", "statuses"):
        u.add_column(col)
    for x in state["units"]:
        kw = ", ".join(k if v is True else f"{k} {v}" for k, v in x["keywords"].items())
        st = ", ".join(f"{k} {v}" for k, v in x["statuses"].items())
        name = x["name"] + (" (hero)" if x.get("hero") else "") + (f" [{x['equipment']}]" if x.get("equipment") else "")
        u.add_row(*(Text(printable(c)) for c in (str(x["side"]), str(x["lane"]), str(x["pos"]), name,
                                                  str(x["attack"]), f"{x['health']}/{x['max_health']}", kw, st)))
    console.print(u)
    if state.get("improvements"):
        console.print(printable("improvements: " + ", ".join(f"{i['name']} (side {i['side']}, lane {i['lane']})"
                                                             for i in state["improvements"])))

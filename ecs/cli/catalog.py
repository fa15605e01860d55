"""What a ruleset offers: ``battlesim decks``, ``agents`` and ``keywords``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from battlesim.ecs.cli.app import PLUGIN_OPTION, app, fail, warn
from battlesim.ecs.datafiles import DataError
from battlesim.ecs.decisions import agent_names
from battlesim.ecs.runs.runner import (
    RunConfig,
    RunError,
    load_game,
    load_ruleset,
)


@app.command()
def decks(ruleset: str = typer.Option("lanes", help="Rule system."),
          decks_dir: Optional[str] = typer.Option(None, "--decks", "--decks-dir",
                                                  help="List and validate the decks of this directory instead of the shipped ones."),
          plugin: list[str] = PLUGIN_OPTION) -> None:
    """List the decks of a ruleset (the shipped ones and those plugins ship), each validated."""
    try:
        if decks_dir is not None and not decks_dir.strip():
            fail("--decks: an empty name (give a directory or leave the option out)")
        if decks_dir is not None and not Path(decks_dir).is_dir():
            fail(f"--decks {decks_dir}: {'not a directory' if Path(decks_dir).exists() else 'no such directory'}")
        game = load_game(RunConfig(ruleset=ruleset, plugins=tuple(plugin), decks_dir=decks_dir))
    except (RunError, DataError) as e:
        fail(str(e))
        return
    for d in game.deck_ids():
        typer.echo(d)
    # a deck file that does not validate is left out, and said so (it fails only where it is used)
    for name, e in sorted(getattr(getattr(game, "cards", None), "broken", {}).items()):
        warn(f"deck {name!r} cannot be used: {e}")


@app.command()
def agents(ruleset: str = typer.Option("lanes", help="Rule system (it may register agents of its own)."),
           plugin: list[str] = PLUGIN_OPTION) -> None:
    """List the agents that --agents accepts (the ruleset's and plugins' included), each with
    its kind: compiled (runs inside the game loop) or Python (the step API)."""
    try:
        rules = load_ruleset(ruleset, plugin)  # a ruleset (and a plugin) declares its agents when it loads
        game = rules.load()
    except (RunError, DataError) as e:
        fail(str(e))
        return
    if not hasattr(game, "compiled_agents"):  # a ruleset without a compiled game loop yet
        for name in agent_names():
            typer.echo(name)
        return
    compiled = game.compiled_agents()
    # a ruleset without the step API (grid, hex, classes) plays only its compiled agents: the
    # others are refused by --agents, so they are not listed as if it accepted them
    python = getattr(game, "python_agents", False)
    for name in agent_names():
        if name in compiled:
            typer.echo(f"{name:<12} compiled: decides inside the game loop")
        elif python:
            typer.echo(f"{name:<12} python: asked through the step API, once per batch of pending games")



@app.command()
def keywords(
    ruleset: str = typer.Option("lanes", help="Rule system."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object: {ruleset, plugins, entries: [...]}."),
    kind: Optional[str] = typer.Option(None, help="Only this kind: keyword, status, trigger, handler, opcode, "
                                                  "selector, damage_stage, system (or a ruleset's own, "
                                                  "such as classes' condition)."),
    plugin: list[str] = PLUGIN_OPTION,
) -> None:
    """List what card files may name and what runs each round: every keyword, status, trigger,
    opcode, selector, damage stage and system, with its value type, its source
    (built-in or the plugin that declared it) and its one-line doc."""
    from battlesim.ecs.plugin import extend, installed_plugins, loaded_plugins

    try:
        rules = load_ruleset(ruleset, plugin)  # declares the built-ins, then the plugins
    except (RunError, DataError) as e:
        fail(str(e))
        return
    # a ruleset whose words are tables, not extension declarations (grid, classes), lists them itself
    own = getattr(rules, "vocabulary", None)
    rows = (own() if callable(own) else []) + extend(ruleset).vocabulary()
    kinds = sorted({r["kind"] for r in rows})
    if kind is not None:
        if kind not in kinds:
            fail(f"--kind {kind!r}: expected one of {', '.join(kinds)}")
        rows = [r for r in rows if r["kind"] == kind]
    plugins = [{"name": p.name, "module": p.module, "how": p.how, "package": p.dist} for p in loaded_plugins().values()]
    if as_json:
        sys.stdout.write(json.dumps({"ruleset": ruleset, "installed_plugins": installed_plugins(),
                                     "plugins": plugins, "entries": rows}) + "\n")
        return
    console = Console()
    t = Table(title=f"{ruleset}: keywords, statuses, triggers, opcodes, selectors, damage stages, systems")
    for col in ("kind", "name", "value", "source", "doc"):
        t.add_column(col, overflow="fold")
    for r in rows:
        t.add_row(r["kind"], r["name"], r["value_type"], r["source"], r["doc"])
    console.print(t)
    console.print("plugins: " + (", ".join(f"{p['name']} ({p['how']})" for p in plugins) or "none loaded"))

"""``battlesim compile``: build the compiled engine ahead of time (CI, containers, clusters)."""

from __future__ import annotations

import typer

from battlesim.ecs.cli.app import PLUGIN_OPTION, app, fail
from battlesim.ecs.datafiles import DataError
from battlesim.ecs.runs.runner import RunError, load_ruleset


@app.command("compile")
def compile_engine(
    ruleset: str = typer.Option("lanes", help="Rule system."),
    plugin: list[str] = PLUGIN_OPTION,
) -> None:
    """Compile the engine of a ruleset and its plugins ahead of runs.

    Warms the cache, so that runs start without compiling; prints where the engine is and
    how long it took. The cache is
    $NUMBA_CACHE_DIR/battlesim when NUMBA_CACHE_DIR is set, else ~/.cache/battlesim
    (or $XDG_CACHE_HOME/battlesim). Today the engine holds the RNG and the damage-stage
    dispatcher; it will hold the whole game once the compiled core lands (issue 13)."""
    from battlesim.ecs.compiled.cache import EngineCacheError
    from battlesim.ecs.compiled.engine import build

    try:
        load_ruleset(ruleset, plugin)  # declares the built-ins, then the plugins
        engine = build(ruleset)
    except (RunError, DataError, EngineCacheError) as e:
        fail(str(e))
        return
    how = "compiled" if engine.compiled else "already compiled; loaded from the cache"
    stages = ", ".join(s.name for s in engine.stages)
    typer.echo(f"{ruleset} engine: {engine.path.parent}")
    typer.echo(f"{how} in {engine.seconds:.2f} s (damage stages in run order: {stages})")

"""``battlesim compile``: build the compiled engine ahead of time (CI, containers, clusters)."""

from __future__ import annotations

import time

import numpy as np
import typer

from battlesim.ecs.cli.app import PLUGIN_OPTION, app, fail
from battlesim.ecs.datafiles import DataError
from battlesim.ecs.decisions import make_agent
from battlesim.ecs.runs.runner import RunError, load_ruleset
from battlesim.ecs.compiled.loop import LOOP_MARKER


@app.command("compile")
def compile_engine(
    ruleset: str = typer.Option("lanes", help="Rule system."),
    plugin: list[str] = PLUGIN_OPTION,
) -> None:
    """Compile the engine of a ruleset and its plugins ahead of runs.

    Warms the cache, so that runs start without compiling; prints where the engine is and
    how long it took. The cache is
    $NUMBA_CACHE_DIR/battlesim when NUMBA_CACHE_DIR is set, else ~/.cache/battlesim
    (or $XDG_CACHE_HOME/battlesim). The engine is two modules: the machine (damage stages,
    effect interpreter, resolution machine; one per plugin set) and the game loop (one per
    ruleset, shared by plugin sets that add no system or agent); warming plays one game."""
    from battlesim.ecs.compiled.cache import EngineCacheError
    from battlesim.ecs.compiled.engine import build

    try:
        t0 = time.perf_counter()
        rules = load_ruleset(ruleset, plugin)  # declares the built-ins, then the plugins
        engine = build(ruleset)
        built = time.perf_counter()
        game = rules.load()
        loop = engine.game_plan.path.parent if engine.game_plan is not None else None
        loop_cached = loop is not None and (loop / LOOP_MARKER).exists()
        if hasattr(game, "play_tables"):  # compiles the game loop (and everything it reaches)
            agents = [make_agent("random"), make_agent("random")]
            game.play_tables(np.array([0], dtype=np.int64), game.default_decks(), agents, cards=False)
        seconds = time.perf_counter() - t0
    except (RunError, DataError, EngineCacheError) as e:
        fail(str(e))
        return
    how = "compiled" if engine.compiled else "already compiled; loaded from the cache"
    stages = ", ".join(s.name for s in engine.stages)
    typer.echo(f"{ruleset} engine: {engine.path.parent}")
    typer.echo(f"{how} in {built - t0:.2f} s (damage stages in run order: {stages})")
    if loop is not None and (loop / LOOP_MARKER).exists():
        what = "loaded from the cache" if loop_cached else "compiled now"
        typer.echo(f"{ruleset} game loop: {loop} ({what}; {seconds - (built - t0):.2f} s with one game played)")

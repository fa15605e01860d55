"""``battlesim simulate`` and ``battlesim replay``."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from battlesim.ecs.cli.app import (
    PLUGIN_OPTION,
    UserError,
    app,
    err,
    fail,
    parse_pair,
    parse_params,
    stop_run,
    warn,
)
from battlesim.ecs.cli.progress import RunProgress
from battlesim.ecs.datafiles import DataError
from battlesim.ecs.decisions import make_agent
from battlesim.ecs.runs.runner import (
    DEFAULT_CHUNK,
    DEFAULT_RETRIES,
    ChunkFailed,
    RunConfig,
    RunError,
    load_game,
    resolve_decks,
    simulate,
    summarize,
)


@app.command("simulate")
def simulate_cmd(
    ruleset: str = typer.Option("lanes", help="Rule system to play."),
    games: int = typer.Option(20000, help="Number of games. Game i has seed SEED + i."),
    seed: int = typer.Option(0, help="Seed of the first game."),
    deck: Optional[str] = typer.Option(None, help="Deck of seat 0 (see `battlesim decks`). Default: the ruleset's."),
    vs: Optional[str] = typer.Option(None, help="Deck of seat 1. Default: the ruleset's second deck."),
    agents: str = typer.Option("random,random", help="Agents of seat 0 and 1, e.g. random,pass (see `battlesim agents`)."),
    chunk: Optional[int] = typer.Option(
        None, show_default=False,
        help=f"Games per batch (default {DEFAULT_CHUNK:,}; with workers, at most that, split evenly between them; when resuming, the run directory's). Changes speed and memory, never results."),
    out: Optional[Path] = typer.Option(None, help="Write Parquet shards (games and cards tables, one per chunk) to this run directory; rerunning resumes."),
    workers: int = typer.Option(1, "--workers", "-w", help="Local worker processes (1: play in this process). With --backend ray and no --address: the local Ray's CPUs."),
    # (help texts are rich markup: \\[ keeps "[ray]" from being read as a style)
    backend: str = typer.Option("local", help="local (this machine) or ray (pip install 'battlesim\\[ray]')."),
    address: Optional[str] = typer.Option(None, help="Ray cluster to join (--backend ray), e.g. auto or ray://head:10001."),
    retries: int = typer.Option(DEFAULT_RETRIES, help="Times a failing chunk is played again before the run stops."),
    as_json: bool = typer.Option(False, "--json", help="Print exactly one JSON object on stdout instead of the table."),
    param: list[str] = typer.Option([], help="Override a ruleset parameter, NAME=VALUE (repeatable)."),
    cards: Optional[Path] = typer.Option(None, help="Play with another card directory (a designer's copy)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    plugin: list[str] = PLUGIN_OPTION,
) -> None:
    """Play a batch of games and print a summary: wins, draws, first-player win rate, rounds, speed."""
    try:
        if games < 1:
            raise UserError(f"--games must be at least 1 (got {games})")
        config = RunConfig(
            ruleset=ruleset, games=games, seed=seed, agents=parse_pair(agents, "agents"), chunk=chunk,
            params=parse_params(param), cards_dir=str(cards) if cards else None, plugins=tuple(plugin),
        )
        game = load_game(config)
        defaults = game.default_decks()
        decks = (deck or defaults[0], vs or defaults[1])
        config = replace(config, decks=decks)
        opts: dict[str, Any] = dict(backend=backend, workers=workers, address=address, retries=retries,
                                    keep_table=False, warn=warn)
        if not quiet and err.is_terminal:
            with RunProgress(games) as bar:
                result = simulate(config, out, bar, game=game, **opts)
        else:
            result = simulate(config, out, game=game, **opts)
    except (ChunkFailed, KeyboardInterrupt, UserError, RunError, DataError) as e:
        stop_run(e, out, "shards")
    summary = summarize(result, config, decks)
    if as_json:
        sys.stdout.write(json.dumps(summary) + "\n")
    else:
        _print_summary(summary, out)



def _print_summary(s: dict[str, Any], out: Optional[Path]) -> None:
    console = Console()
    t = Table(title=f"{s['ruleset']}: {s['decks'][0]} vs {s['decks'][1]}  ({s['agents'][0]} vs {s['agents'][1]})")
    t.add_column("measure")
    t.add_column("value", justify="right")
    n = s["games"]
    t.add_row("games", f"{n:,}")
    for seat in range(2):
        t.add_row(f"wins seat {seat} ({s['decks'][seat]})", f"{s['wins'][seat]:,}  ({s['wins'][seat] / n:.1%})")
    t.add_row("draws", f"{s['draws']:,}  ({s['draws'] / n:.1%})")
    if s["first_player_win_rate"] is not None:
        lo, hi = s["first_player_win_rate_ci"]
        t.add_row("first-player win rate (decided games)", f"{s['first_player_win_rate']:.1%}  [95% CI {lo:.1%} - {hi:.1%}]")
    t.add_row("mean rounds", f"{s['mean_rounds']:.2f}")
    t.add_row("end reasons", ", ".join(f"{k or 'running'} {v:,}" for k, v in s["end_reasons"].items()))
    if s["games_per_second"]:
        t.add_row("games per second", f"{s['games_per_second']:,.0f}")
    else:
        t.add_row("games per second", "(all shards resumed from --out)")
    if s["games_played"] < n:
        t.add_row("resumed from --out", f"{n - s['games_played']:,} games (played now: {s['games_played']:,})")
    if out:
        t.add_row("written to", str(out))
    console.print(t)


@app.command()
def replay(
    seed: int = typer.Option(..., help="Seed of the game to replay (game i of a run has seed SEED + i)."),
    ruleset: str = typer.Option("lanes", help="Rule system."),
    deck: Optional[str] = typer.Option(None, help="Deck of seat 0 (as in the run). Default: the ruleset's."),
    vs: Optional[str] = typer.Option(None, help="Deck of seat 1 (as in the run). Default: the ruleset's second deck."),
    agents: str = typer.Option("random,random", help="Agents of seat 0 and 1 (as in the run)."),
    param: list[str] = typer.Option([], help="Override a ruleset parameter, NAME=VALUE (as in the run)."),
    cards: Optional[Path] = typer.Option(None, help="Card directory (as in the run)."),
    plugin: list[str] = PLUGIN_OPTION,
) -> None:
    """Play one game alone and print it turn by turn: deployments, plays, combat per lane,
    deaths, gold, objectives. Its result is that seed's row in any run with the same options."""
    try:
        config = RunConfig(ruleset=ruleset, games=1, seed=seed, agents=parse_pair(agents, "agents"),
                           params=parse_params(param), cards_dir=str(cards) if cards else None,
                           plugins=tuple(plugin))
        game = load_game(config)
        defaults = game.default_decks()
        config = replace(config, decks=(deck or defaults[0], vs or defaults[1]))
        decks_ = resolve_decks(game, config)
        agent_objs = [make_agent(a) for a in config.agents]
    except KeyError as e:
        fail(str(e.args[0]))
        return
    except (UserError, RunError, DataError) as e:
        fail(str(e))
        return
    if not hasattr(game, "replay"):
        fail(f"ruleset {ruleset!r} has no replay log")
        return
    lines: list[str] = []
    row = game.replay(seed, decks_, agent_objs, write=lines.append)
    winner = row["winner"]
    lines.append(f"result: winner {winner} ({'draw' if winner < 0 else decks_[winner]}), rounds {row['rounds']}, "
                 f"end reason {row['end_reason']}")
    try:
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # `battlesim replay ... | head`
        sys.stderr.close()

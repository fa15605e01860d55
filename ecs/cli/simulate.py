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
from rich.text import Text

from battlesim.ecs.cli.app import (
    PLUGIN_OPTION,
    UserError,
    app,
    fail,
    parse_pair,
    parse_params,
    stop_run,
    warn,
)
from battlesim.ecs.cli.progress import run_progress
from battlesim.ecs.threads import MAX_THREADS, default_threads, set_threads
from battlesim.ecs.datafiles import DataError
from battlesim.ecs.decisions import make_agent
from battlesim.ecs.runs.runner import (
    DEFAULT_CHUNK,
    DEFAULT_RETRIES,
    ChunkFailed,
    RunConfig,
    RunError,
    check_seeds,
    load_game,
    recorded_run,
    resolve_decks,
    simulate,
    summarize,
)


@app.command("simulate")
def simulate_cmd(
    ruleset: str = typer.Option("lanes", help="Rule system to play."),
    games: int = typer.Option(20000, help="Number of games. Game i has seed SEED + i. A larger --games into the same --out plays only the new seeds."),
    seed: int = typer.Option(0, help="Seed of the first game."),
    deck: Optional[str] = typer.Option(None, help="Deck of seat 0 (see `battlesim decks`). Default: the ruleset's."),
    vs: Optional[str] = typer.Option(None, help="Deck of seat 1. Default: the ruleset's second deck."),
    agents: str = typer.Option("random,random", help="Agents of seat 0 and 1, e.g. random,pass (see `battlesim agents`)."),
    chunk: Optional[int] = typer.Option(
        None, show_default=False,
        help=f"Games per batch (default {DEFAULT_CHUNK:,}; with workers, at most that, split evenly between them; when resuming, the run directory's). Changes speed and memory, never results."),
    out: Optional[str] = typer.Option(None, help="Write Parquet shards (games and cards tables, one per chunk) to this run directory; rerunning resumes."),
    restart: bool = typer.Option(False, "--restart", help="Empty the --out run directory and start the run over (when its options or any card, deck, ruleset or plugin file changed)."),
    workers: int = typer.Option(1, "--workers", "-w", help="Local worker processes (1: play in this process). With --backend ray and no --address: the local Ray's CPUs."),
    threads: Optional[int] = typer.Option(
        None, "--threads", "-t", show_default=False,
        help="Threads each process plays a batch on (the compiled game loop; 1-8; default: this machine's cores shared among the local workers, 1 with Ray). Changes speed, never results."),
    # (help texts are rich markup: \\[ keeps "[ray]" from being read as a style)
    backend: str = typer.Option("local", help="local (this machine) or ray (pip install 'battlesim\\[ray]')."),
    address: Optional[str] = typer.Option(None, help="Ray cluster to join (--backend ray), e.g. auto or ray://head:10001."),
    retries: int = typer.Option(DEFAULT_RETRIES, help="Times a failing chunk is played again before the run stops."),
    chunk_timeout: Optional[float] = typer.Option(
        None, show_default=False,
        help="Seconds a chunk may take with --workers > 1 or Ray before its worker counts as hung and the chunk is retried on another (default: 60 + 0.05 per game of the chunk; 0: no limit)."),
    as_json: bool = typer.Option(False, "--json", help="Print exactly one JSON object on stdout instead of the table."),
    param: list[str] = typer.Option([], help="Override a ruleset parameter, NAME=VALUE (repeatable)."),
    cards: Optional[str] = typer.Option(None, help="Play with another card directory (a designer's copy)."),
    decks: Optional[str] = typer.Option(None, "--decks", "--decks-dir", help="Play with another deck directory (a designer's decks, validated like the shipped ones)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    plugin: list[str] = PLUGIN_OPTION,
) -> None:
    """Play a batch of games and print a summary: wins, draws, first-player win rate, rounds, speed."""
    out_dir: Optional[Path] = None
    try:
        out_dir = _path(out, "--out")
        config = RunConfig(
            ruleset=ruleset, games=games, seed=seed, agents=parse_pair(agents, "agents"), chunk=chunk,
            params=parse_params(param), cards_dir=_folder(cards, "--cards"), plugins=_plugins(plugin),
            decks_dir=_folder(decks, "--decks"),
        )
        if restart and out_dir is None:
            raise UserError("--restart starts an --out run directory over: give --out")
        if threads is None:
            threads = default_threads(workers if backend == "local" else 0)
        if not 1 <= threads <= MAX_THREADS:
            raise UserError(f"--threads must be between 1 and {MAX_THREADS}, got {threads}")
        set_threads(threads)
        game = load_game(config)
        defaults = game.default_decks()
        config = replace(config, decks=(_name(deck, "--deck") or defaults[0], _name(vs, "--vs") or defaults[1]))
        opts: dict[str, Any] = dict(backend=backend, workers=workers, address=address, retries=retries,
                                    keep_table=False, warn=warn, chunk_timeout=chunk_timeout, restart=restart)
        with run_progress(games, not quiet) as bar:
            result = simulate(config, out_dir, bar, game=game, **opts)
    except (ChunkFailed, KeyboardInterrupt, UserError, RunError, DataError) as e:
        stop_run(e, out_dir, "shards")
    summary = summarize(result, config, config.decks)  # type: ignore[arg-type]
    if as_json:
        sys.stdout.write(json.dumps(summary) + "\n")
    else:
        _print_summary(summary, out_dir)


def _name(value: Optional[str], flag: str) -> Optional[str]:
    """A name given on the command line: None when not given, never empty."""
    if value is not None and not value.strip():
        raise UserError(f"{flag}: an empty name (give a name or leave the option out)")
    return value


def _path(value: Optional[str], flag: str) -> Optional[Path]:
    return Path(value) if _name(value, flag) is not None else None  # type: ignore[arg-type]


def _folder(value: Optional[str], flag: str) -> Optional[str]:
    """A data folder option (--cards, --decks): it must be a directory."""
    path = _path(value, flag)
    if path is not None and not path.is_dir():
        raise UserError(f"{flag} {value}: {'not a directory' if path.exists() else 'no such directory'}")
    return str(path) if path is not None else None


def _plugins(specs: list[str]) -> tuple[str, ...]:
    return tuple(_name(s, "--plugin") for s in specs)  # type: ignore[misc]


def _print_summary(s: dict[str, Any], out: Optional[Path]) -> None:
    console = Console()
    t = Table(title=f"{s['ruleset']}: {s['decks'][0]} vs {s['decks'][1]}  ({s['agents'][0]} vs {s['agents'][1]})")
    t.add_column("measure")
    t.add_column("value", justify="right")
    n = s["games"]
    t.add_row("games", f"{n:,}")
    for seat in range(2):
        lo, hi = s["win_rates_ci"][seat]
        t.add_row(Text(f"wins seat {seat} ({s['decks'][seat]})"),
                  f"{s['wins'][seat]:,}  ({s['win_rates'][seat]:.1%}  [95% CI {lo:.1%} - {hi:.1%}])")
    t.add_row("draws", f"{s['draws']:,}  ({s['draws'] / n:.1%})")
    if s["params"]:
        t.add_row("parameter overrides", Text(", ".join(f"{k}={v}" for k, v in s["params"].items())))
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
    rundir: Optional[str] = typer.Argument(None, metavar="[RUNDIR]", show_default=False,
                                           help="A run directory (simulate --out): the game is played with its decks, agents, "
                                                "parameters, cards, decks and plugins."),
    seed: int = typer.Option(..., help="Seed of the game to replay (game i of a run has seed SEED + i)."),
    ruleset: str = typer.Option("lanes", help="Rule system."),
    deck: Optional[str] = typer.Option(None, help="Deck of seat 0 (as in the run). Default: the ruleset's."),
    vs: Optional[str] = typer.Option(None, help="Deck of seat 1 (as in the run). Default: the ruleset's second deck."),
    agents: str = typer.Option("random,random", help="Agents of seat 0 and 1 (as in the run)."),
    param: list[str] = typer.Option([], help="Override a ruleset parameter, NAME=VALUE (as in the run)."),
    cards: Optional[str] = typer.Option(None, help="Card directory (as in the run)."),
    decks: Optional[str] = typer.Option(None, "--decks", "--decks-dir", help="Deck directory (as in the run)."),
    plugin: list[str] = PLUGIN_OPTION,
) -> None:
    """Play one game alone and print it turn by turn: deployments, plays, combat per lane,
    deaths, gold, objectives. Its result is that seed's row in any run with the same options;
    with RUNDIR, the run's options are used (and a run whose files changed is refused)."""
    try:
        check_seeds(seed)
        if rundir is not None:
            given = [f for f, v in (("--ruleset", ruleset != "lanes"), ("--deck", deck), ("--vs", vs),
                                    ("--agents", agents != "random,random"), ("--param", param),
                                    ("--cards", cards), ("--decks", decks), ("--plugin", plugin)) if v]
            if given:
                raise UserError(f"{', '.join(given)}: RUNDIR gives the run's options; leave them out")
            config, game = recorded_run(Path(_name(rundir, "RUNDIR")))  # type: ignore[arg-type]
            last = config.seed + config.games - 1
            if not config.seed <= seed <= last:
                raise UserError(f"--seed {seed} is not a game of the run in {rundir} (seeds {config.seed}..{last})")
            config = replace(config, games=1, seed=seed)
        else:
            config = RunConfig(ruleset=ruleset, games=1, seed=seed, agents=parse_pair(agents, "agents"),
                               params=parse_params(param), cards_dir=_folder(cards, "--cards"),
                               decks_dir=_folder(decks, "--decks"), plugins=_plugins(plugin))
            game = load_game(config)
            defaults = game.default_decks()
            config = replace(config, decks=(_name(deck, "--deck") or defaults[0], _name(vs, "--vs") or defaults[1]))
        decks_ = resolve_decks(game, config)
        agent_objs = [make_agent(a) for a in config.agents]
    except KeyError as e:
        fail(str(e.args[0]))
        return
    except (UserError, RunError, DataError) as e:
        fail(str(e))
        return
    if not hasattr(game, "replay"):
        fail(f"ruleset {config.ruleset!r} has no replay log")
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

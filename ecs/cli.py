"""The ``battlesim`` command line.

Errors a user can cause (unknown deck, agent or ruleset, bad numbers, unreadable card
files) end the program with a one-line message on stderr and exit status 2, never a
traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.progress import ProgressColumn, BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from ecs.datafiles import DataError
from ecs.decisions import agent_names
from ecs.runner import DEFAULT_CHUNK, RunConfig, RunError, load_game, simulate, summarize

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="battlesim: play tactical card-battle games in large batches and measure balance.",
)
err = Console(stderr=True)


class UserError(Exception):
    pass


def fail(message: str) -> None:
    err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def parse_params(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UserError(f"--param takes NAME=VALUE (got {item!r})")
        try:
            out[key.strip()] = int(value)
        except ValueError:
            try:
                out[key.strip()] = float(value)
            except ValueError:
                raise UserError(f"--param {key}: {value!r} is not a number") from None
    return out


def parse_pair(value: str, what: str) -> tuple[str, str]:
    parts = [p.strip() for p in value.split(",")]
    if len(parts) == 1:
        parts = parts * 2
    if len(parts) != 2 or not all(parts):
        raise UserError(f"--{what} takes one name or two separated by a comma (got {value!r})")
    return parts[0], parts[1]


@app.command("simulate")
def simulate_cmd(
    ruleset: str = typer.Option("lanes", help="Rule system to play."),
    games: int = typer.Option(20000, help="Number of games. Game i has seed SEED + i."),
    seed: int = typer.Option(0, help="Seed of the first game."),
    deck: Optional[str] = typer.Option(None, help="Deck of seat 0 (see `battlesim decks`). Default: the ruleset's."),
    vs: Optional[str] = typer.Option(None, help="Deck of seat 1. Default: the ruleset's second deck."),
    agents: str = typer.Option("random,random", help="Agents of seat 0 and 1, e.g. random,pass (see `battlesim agents`)."),
    chunk: int = typer.Option(DEFAULT_CHUNK, help="Games per batch. Changes speed and memory, never results."),
    out: Optional[Path] = typer.Option(None, help="Write Parquet shards (one per chunk) to this run directory; rerunning resumes."),
    as_json: bool = typer.Option(False, "--json", help="Print exactly one JSON object on stdout instead of the table."),
    param: list[str] = typer.Option([], help="Override a ruleset parameter, NAME=VALUE (repeatable)."),
    cards: Optional[Path] = typer.Option(None, help="Play with another card directory (a designer's copy)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Play a batch of games and print a summary: wins, draws, first-player win rate, rounds, speed."""
    try:
        agent_pair = parse_pair(agents, "agents")
        config = RunConfig(
            ruleset=ruleset, games=games, seed=seed, agents=agent_pair, chunk=chunk,
            params=parse_params(param), cards_dir=str(cards) if cards else None,
        )
        if games < 1:
            raise UserError(f"--games must be at least 1 (got {games})")
        game = load_game(config)
        defaults = game.default_decks()
        decks = (deck or defaults[0], vs or defaults[1])
        config = RunConfig(**{**config.__dict__, "decks": decks})
        show = not quiet and sys.stderr.isatty() and games > chunk
        if show:
            with _progress() as bar:
                task = bar.add_task("games", total=games)
                result = simulate(config, out, lambda n: bar.advance(task, n), game=game)
        else:
            result = simulate(config, out, game=game)
    except (UserError, RunError, DataError) as e:
        fail(str(e))
        return
    summary = summarize(result, config, decks)
    if as_json:
        sys.stdout.write(json.dumps(summary) + "\n")
    else:
        _print_summary(summary, out)


class _Speed(ProgressColumn):
    def render(self, task) -> Text:
        return Text(f"{task.speed:,.0f} games/s" if task.speed else "", style="cyan")


def _progress() -> Progress:
    return Progress(
        TextColumn("[bold]simulating"), BarColumn(), MofNCompleteColumn(), _Speed(),
        TimeElapsedColumn(), TimeRemainingColumn(),
        console=err, transient=True,
    )


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
    if out:
        t.add_row("written to", str(out))
    console.print(t)


@app.command()
def decks(ruleset: str = typer.Option("lanes", help="Rule system.")) -> None:
    """List the shipped decks of a ruleset."""
    try:
        game = load_game(RunConfig(ruleset=ruleset))
    except (RunError, DataError) as e:
        fail(str(e))
        return
    for d in game.deck_ids():
        typer.echo(d)


@app.command()
def agents() -> None:
    """List the agents that --agents accepts."""
    for name in agent_names():
        typer.echo(name)


@app.command()
def bench(
    ruleset: str = typer.Option("lanes", help="Rule system."),
    quick: bool = typer.Option(False, "--quick", help="Small batches only (a few seconds)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of tables."),
) -> None:
    """Measure games per second here, and the share of time each system takes.

    Each configuration is played several times on fresh seeds; min / median / max are shown
    because a shared machine is noisy. For tracking speed over time use the pytest-benchmark
    suites in bench/ (see bench/README.md).
    """
    from ecs.speed import measure, phase_split, standard_configs

    try:
        game = load_game(RunConfig(ruleset=ruleset))
    except (RunError, DataError) as e:
        fail(str(e))
        return
    samples = []
    for batch, agent_pair in standard_configs(quick):
        repeats = 20 if batch < 64 else 3
        samples.append(measure(game, batch, agent_pair, repeats=repeats))
    split_batch = 1024 if quick else 4096
    split = phase_split(game, split_batch)
    total = sum(split.values()) or 1.0
    if as_json:
        sys.stdout.write(json.dumps({
            "ruleset": ruleset,
            "configs": [
                {"agents": list(s.agents), "batch": s.batch, "games_per_second":
                 {"min": s.low, "median": s.median, "max": s.high}} for s in samples
            ],
            "phase_split": {"batch": split_batch, "seconds": split,
                            "share": {k: v / total for k, v in split.items()}},
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
    p = Table(title=f"where the time goes (random vs random, batch {split_batch:,})")
    p.add_column("phase/system")
    p.add_column("seconds", justify="right")
    p.add_column("share", justify="right")
    for k, v in split.items():
        p.add_row(k, f"{v:.3f}", f"{v / total:.1%}")
    console.print(p)


def main() -> None:
    app()


if __name__ == "__main__":
    main()

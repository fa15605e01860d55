"""The ``battlesim`` command line.

Errors a user can cause (unknown deck, agent or ruleset, bad numbers, unreadable card
files) end the program with a one-line message on stderr and exit status 2, never a
traceback.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from ecs.datafiles import DataError
from ecs.decisions import agent_names, make_agent
from ecs.runner import (
    DEFAULT_CHUNK, DEFAULT_RETRIES, ChunkFailed, RunConfig, RunError, load_game, load_ruleset, resolve_decks, simulate,
    summarize,
)

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="battlesim: play tactical card-battle games in large batches and measure balance.",
)
err = Console(stderr=True)


class UserError(Exception):
    pass


PLUGIN_OPTION = typer.Option(
    [], "--plugin", metavar="MODULE",
    help="Load a plugin by import path (a module, or a path to a .py file) without installing it; "
         "repeatable. Installed plugins load anyway (see `battlesim keywords`).",
)


def fail(message: str) -> None:
    err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def stop_run(e: BaseException, out: Optional[Path], kept: str) -> NoReturn:
    """How a command that plays games stops on an error: a chunk that kept failing (exit 1,
    its seed range named), Ctrl-C (exit 130; what was written stays for a resume) or bad input
    (exit 2, one line)."""
    if isinstance(e, ChunkFailed):
        err.print(f"[bold red]run stopped:[/] {e}", highlight=False, soft_wrap=True)
        raise typer.Exit(1)
    if isinstance(e, KeyboardInterrupt):
        resume = f"; the {kept} written in {out} are kept: run the same command again to resume" if out else ""
        err.print(f"[bold red]interrupted[/]{resume}", highlight=False, soft_wrap=True)
        raise typer.Exit(130)
    fail(str(e))
    raise typer.Exit(2)  # (fail raises it already)


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
    chunk: Optional[int] = typer.Option(
        None, show_default=False,
        help=f"Games per batch (default {DEFAULT_CHUNK:,}; with workers, at most that, split evenly between them; when resuming, the run directory's). Changes speed and memory, never results."),
    out: Optional[Path] = typer.Option(None, help="Write Parquet shards (games and cards tables, one per chunk) to this run directory; rerunning resumes."),
    workers: int = typer.Option(1, "--workers", "-w", help="Local worker processes (1: play in this process). With --backend ray and no --address: the local Ray's CPUs."),
    backend: str = typer.Option("local", help="local (this machine) or ray (pip install 'battlesim[ray]')."),
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
                                    keep_table=False, warn=_warn)
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


def _warn(message: str) -> None:
    err.print(f"[yellow]warning:[/] {message}", highlight=False, soft_wrap=True)


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
    Games found finished in a resumed run directory count as done but not in the speed."""

    def __init__(self, games: int, console: Console | None = None) -> None:
        self.bar = Progress(
            TextColumn("[bold]simulating"), BarColumn(), MofNCompleteColumn(), _Speed(),
            TimeElapsedColumn(), _Eta(),
            console=console or err, transient=True,
        )
        self.played = 0
        self.task = self.bar.add_task("games", total=games, played=0, started=time.monotonic())

    def __call__(self, games: int, resumed: bool = False) -> None:
        if resumed:  # before anything is played: these count as done, not in the speed
            self.bar.update(self.task, completed=games, started=time.monotonic())
        else:
            self.played += games
            self.bar.update(self.task, advance=games, played=self.played)

    def __enter__(self) -> "RunProgress":
        self.bar.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.bar.__exit__(*exc)


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


@app.command()
def decks(ruleset: str = typer.Option("lanes", help="Rule system."), plugin: list[str] = PLUGIN_OPTION) -> None:
    """List the decks of a ruleset (the shipped ones and those plugins ship)."""
    try:
        game = load_game(RunConfig(ruleset=ruleset, plugins=tuple(plugin)))
    except (RunError, DataError) as e:
        fail(str(e))
        return
    for d in game.deck_ids():
        typer.echo(d)


@app.command()
def agents(ruleset: str = typer.Option("lanes", help="Rule system (it may register agents of its own)."),
           plugin: list[str] = PLUGIN_OPTION) -> None:
    """List the agents that --agents accepts (the ruleset's and plugins' included)."""
    try:
        load_ruleset(ruleset, plugin)  # a ruleset (and a plugin) declares its agents when it loads
    except (RunError, DataError) as e:
        fail(str(e))
        return
    for name in agent_names():
        typer.echo(name)


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
    from ecs.speed import measure, phase_split, service_split, standard_configs

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
    console.print(_share_table(f"by engine service (batch {split_batch:,})", "service", services))


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


@app.command()
def scenario(
    file: Path = typer.Argument(..., help="A scenario file (TOML); see docs/scenarios.md."),
    as_json: bool = typer.Option(False, "--json", help="Print the resulting state as one JSON object."),
    check: bool = typer.Option(False, "--check", help="Compare with the file's [expect]; exit 1 on a mismatch."),
    plugin: list[str] = PLUGIN_OPTION,
) -> None:
    """Set up a board, run steps (combat, round start/end, shop, plays, abilities) and show the state.

    Lets a designer check any rule or card by hand; the same files are the rules tests.
    """
    import tomllib

    try:
        try:
            ruleset = tomllib.loads(file.read_text(encoding="utf-8")).get("ruleset", "lanes")
        except OSError as e:
            raise DataError(f"{file}: cannot read file: {e.strerror or e}") from None
        except tomllib.TOMLDecodeError as e:
            raise DataError(f"{file}: invalid TOML: {e}") from None
        game = load_game(RunConfig(ruleset=str(ruleset), plugins=tuple(plugin)))
        if not hasattr(game, "scenario"):
            raise UserError(f"ruleset {ruleset!r} has no scenarios")
        sc = game.scenario(file)
        state = sc.run()
    except (UserError, RunError, DataError) as e:
        fail(str(e))
        return
    if as_json:
        sys.stdout.write(json.dumps(state) + "\n")
    else:
        _print_state(state)
    if check:
        diffs = sc.check(state)
        for d in diffs:
            err.print(f"[bold red]mismatch:[/] {d}", highlight=False, soft_wrap=True)
        if not as_json:
            Console().print("[green]matches \\[expect][/]" if not diffs else f"[red]{len(diffs)} mismatch(es)[/]")
        if diffs:
            raise typer.Exit(1)


def _print_state(state: dict[str, Any]) -> None:
    console = Console()
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
        u.add_row(str(x["side"]), str(x["lane"]), str(x["pos"]), name, str(x["attack"]),
                  f"{x['health']}/{x['max_health']}", kw, st)
    console.print(u)
    if state.get("improvements"):
        console.print("improvements: " + ", ".join(f"{i['name']} (side {i['side']}, lane {i['lane']})" for i in state["improvements"]))


@app.command()
def keywords(
    ruleset: str = typer.Option("lanes", help="Rule system."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object: {ruleset, plugins, entries: [...]}."),
    kind: Optional[str] = typer.Option(None, help="Only this kind: keyword, status, trigger, handler, opcode, "
                                                  "selector, damage_stage or system."),
    plugin: list[str] = PLUGIN_OPTION,
) -> None:
    """List what card files may name and what runs each round: every keyword, status, trigger,
    trigger handler, opcode, selector, damage stage and system, with its value type, its source
    (built-in or the plugin that declared it) and its one-line doc."""
    from ecs.plugin import extend, installed_plugins, loaded_plugins

    try:
        load_ruleset(ruleset, plugin)  # declares the built-ins, then the plugins
    except (RunError, DataError) as e:
        fail(str(e))
        return
    rows = extend(ruleset).vocabulary()
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


@app.command()
def balance(
    ruleset: str = typer.Option("lanes", help="Rule system."),
    decks: str = typer.Option("all", help="Decks of the round-robin, comma-separated, or all."),
    games_per_pairing: int = typer.Option(200, help="Games per ordered pairing (each seat order is a pairing)."),
    agents: str = typer.Option("random,random", help="Agents of seat 0 and 1."),
    seed: int = typer.Option(0, help="Base seed; each pairing adds a fixed offset of its own."),
    out: Path = typer.Option(Path("runs/balance"), help="Directory: pairs/<a>__<b> run directories (resumable) and balance.json."),
    min_games: int = typer.Option(200, help="Report a card only if drawn in at least this many games."),
    workers: int = typer.Option(1, "--workers", "-w", help="Local worker processes per pairing."),
    param: list[str] = typer.Option([], help="Override a ruleset parameter, NAME=VALUE (repeatable)."),
    cards: Optional[Path] = typer.Option(None, help="Play with another card directory (a designer's copy)."),
    as_json: bool = typer.Option(False, "--json", help="Print balance.json on stdout instead of tables."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress lines."),
    plugin: list[str] = PLUGIN_OPTION,
) -> None:
    """Round-robin the decks (both seat orders) and report matchups, deck ratings, card impact
    and game measures, with 95% intervals; writes OUT/balance.json and OUT/report.html (see
    docs/balance.md). Rerunning the same command resumes; a card is flagged as an outlier only
    when its early-draw test survives Holm's correction over all the reported cards."""
    from ecs import balance as bal

    try:
        load_ruleset(ruleset, plugin)  # declare the plugins' decks and keywords before decks are resolved
        spec = bal.BalanceSpec(
            decks=tuple(bal.resolve_deck_list(decks, ruleset, str(cards) if cards else None)),
            games_per_pairing=games_per_pairing, ruleset=ruleset, agents=parse_pair(agents, "agents"), seed=seed,
            min_games=min_games, params=parse_params(param), cards_dir=str(cards) if cards else None,
            plugins=tuple(plugin))

        def on_pair(i: int, n: int, a: str, b: str) -> None:
            if not quiet and not as_json:
                err.print(f"[dim]pairing {i + 1}/{n}: {a} vs {b}[/]", highlight=False)

        result = bal.measure(spec, out, workers=workers, on_pair=on_pair, warn=_warn)
    except (ChunkFailed, KeyboardInterrupt, UserError, RunError, DataError) as e:
        stop_run(e, out, "pairings")
    path = out / "balance.json"
    if as_json:
        sys.stdout.write(path.read_text(encoding="utf-8"))
        return
    _print_balance(result, path)


@app.command(epilog="Example: battlesim sweep --param anchor_hp=20,25,30 --param creep_attack=1,2 "
                    "--decks red_vanguard,blue_tide --games-per-pairing 300 --out runs/sweep-hp")
def sweep(
    param: list[str] = typer.Option(
        [], help="A parameter to sweep and its values, NAME=V1,V2,... (repeatable: the points are every "
                 "combination). A single value fixes a parameter for every point. --list-params shows the names."),
    ruleset: str = typer.Option("lanes", help="Rule system."),
    decks: str = typer.Option("all", help="Decks of each point's round-robin, comma-separated, or all."),
    games_per_pairing: int = typer.Option(200, help="Games per ordered pairing, at every point."),
    agents: str = typer.Option("random,random", help="Agents of seat 0 and 1."),
    seed: int = typer.Option(0, help="Base seed; every point plays the same seeds (common random numbers)."),
    out: Path = typer.Option(Path("runs/sweep"), help="Directory: one balance directory per point (resumable), "
                                                    "sweep.json, sweep.png, sweep.html."),
    min_games: int = typer.Option(200, help="Report a card only if drawn in at least this many games (per point)."),
    workers: int = typer.Option(1, "--workers", "-w", help="Local worker processes per pairing."),
    cards: Optional[Path] = typer.Option(None, help="Play with another card directory (a designer's copy)."),
    as_json: bool = typer.Option(False, "--json", help="Print sweep.json on stdout instead of tables."),
    list_params: bool = typer.Option(False, "--list-params", help="List the parameters that can be swept, with "
                                                                  "their defaults and allowed ranges, and exit."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress lines."),
    plugin: list[str] = PLUGIN_OPTION,
) -> None:
    """Repeat the balance measure for each combination of ruleset parameters and show how the
    first player's win rate and advantage, game length, draws, decisiveness and each deck's win
    rate against the field move, with 95% intervals (table, OUT/sweep.json, OUT/sweep.png,
    OUT/sweep.html).

    It plays points x pairings x games-per-pairing games (printed first). Each point is an
    ordinary `battlesim balance` directory (OUT/NAME=V__NAME=V), so rerunning resumes and adding
    a value plays only the new points. Every numeric parameter of data/rulesets/<ruleset>.toml
    can be swept; see docs/balance.md.
    """
    from ecs import balance as bal
    from ecs import sweep as sw

    try:
        load_ruleset(ruleset, plugin)  # declare the plugins' decks and keywords before decks are resolved
        if list_params:
            _print_params(ruleset)
            return
        if games_per_pairing < 1:
            raise UserError(f"--games-per-pairing must be at least 1 (got {games_per_pairing})")
        if min_games < 1:
            raise UserError(f"--min-games must be at least 1 (got {min_games})")
        swept, fixed = sw.split_axes(sw.parse_axes(param, sw.numeric_params(ruleset, str(cards) if cards else None)))
        spec = bal.BalanceSpec(
            decks=tuple(bal.resolve_deck_list(decks, ruleset, str(cards) if cards else None)),
            games_per_pairing=games_per_pairing, ruleset=ruleset, agents=parse_pair(agents, "agents"), seed=seed,
            min_games=min_games, params=fixed, cards_dir=str(cards) if cards else None, plugins=tuple(plugin))
        talk = not quiet and not as_json

        def on_start(grid: list[dict[str, Any]]) -> None:
            if talk:
                n_pairs = len(bal.pairings(spec.decks))
                err.print(f"sweep: {len(grid)} point(s) x {n_pairs} pairings x {games_per_pairing} games = "
                          f"{len(grid) * n_pairs * games_per_pairing:,} games into {out}", highlight=False)

        def on_point(i: int, n: int, params: dict[str, Any]) -> None:
            if talk:
                err.print(f"[bold]point {i + 1}/{n}:[/] {sw.point_name(params)}", highlight=False)

        def on_pair(i: int, n: int, a: str, b: str) -> None:
            if talk:
                err.print(f"[dim]  pairing {i + 1}/{n}: {a} vs {b}[/]", highlight=False)

        result = sw.run_sweep(spec, swept, out, workers=workers, on_start=on_start, on_point=on_point, on_pair=on_pair,
                              warn=_warn)
    except (ChunkFailed, KeyboardInterrupt, UserError, RunError, DataError) as e:
        stop_run(e, out, "points")
    written = [out / sw.SWEEP_JSON]
    try:
        from ecs import sweep_report
    except ImportError:
        _warn("matplotlib is not installed: no sweep.png or sweep.html (pip install matplotlib)")
    else:
        written += [sweep_report.write_plot(result, out), sweep_report.write_html(result, out)]
    if as_json:
        sys.stdout.write((out / sw.SWEEP_JSON).read_text(encoding="utf-8"))
        return
    _print_sweep(result, written)


def _print_params(ruleset: str) -> None:
    from ecs import sweep as sw

    defaults = sw.numeric_params(ruleset)
    bounds = sw.param_bounds(ruleset)
    t = Table(title=f"{ruleset}: parameters --param can sweep (data/rulesets/{ruleset}.toml)")
    for col in ("parameter", "default", "allowed"):
        t.add_column(col, justify="left" if col == "parameter" else "right")
    for k, v in defaults.items():
        lo, hi = bounds.get(k, (None, None))
        allowed = "fixed" if lo is not None and lo == hi else f"{'' if lo is None else lo}..{'' if hi is None else hi}"
        t.add_row(k, str(v), allowed)
    Console().print(t)


def _print_sweep(r: dict[str, Any], written: list[Path]) -> None:
    from rich import box

    from ecs.sweep_report import deck_rows, table_rows

    console = Console() if sys.stdout.isatty() else Console(width=140)  # piped: room for the intervals
    head, rows = table_rows(r, compact=True)
    if not any(row[-1] for row in rows):  # no point has a flagged card
        head, rows = head[:-1], [row[:-1] for row in rows]
    t = Table(title="sweep: game measures per point, 95% intervals (rates in %)", box=box.SIMPLE_HEAD)
    for h in head:
        t.add_column(h, justify="left" if h == "outliers" else "right", no_wrap=h != "outliers")
    for row in rows:
        t.add_row(*row)
    console.print(t)
    dhead, drows = deck_rows(r, compact=True)
    d = Table(title="deck win rate % against the field, per point (95% intervals)", box=box.SIMPLE_HEAD)
    for i, h in enumerate(dhead):
        d.add_column(h if i == 0 else f"P{i}", justify="left" if i == 0 else "right", no_wrap=True)
    for row in drows:
        d.add_row(*row)
    console.print(d)
    console.print("  ".join(f"P{i + 1}: {h}" for i, h in enumerate(dhead[1:])), highlight=False)
    console.print("written: " + ", ".join(str(p) for p in written), highlight=False)


def _print_balance(r: dict[str, Any], path: Path) -> None:
    console = Console()
    decks_ = r["meta"]["decks"]
    wide = len(decks_) > 3  # many decks: column numbers and no intervals (they are in balance.json)
    m = Table(title="matchups: row deck's win rate vs column deck (both seat orders)")
    m.add_column("deck")
    for i, d in enumerate(decks_):
        m.add_column(str(i + 1) if wide else d, justify="right")
    for i, a in enumerate(decks_):
        cells = []
        for b in decks_:
            o = r["matchups"][a].get(b)
            cells.append("-" if o is None else f"{o['win_rate']:.0%}" if wide
                         else f"{o['win_rate']:.0%} [{o['ci'][0]:.0%}-{o['ci'][1]:.0%}]")
        m.add_row(f"{i + 1} {a}" if wide else a, *cells)
    console.print(m)
    t = Table(title="decks (sorted by Bradley-Terry rating)")
    for col in ("deck", "BT rating", "win rate vs field [95% CI]", "first-player advantage"):
        t.add_column(col, justify="left" if col == "deck" else "right")
    for d in sorted(decks_, key=lambda d: -r["decks"]["decks"][d]["bt_rating"]):
        o = r["decks"]["decks"][d]
        f = o["vs_field"]
        adv = o["first_player_advantage"]
        t.add_row(d, f"{o['bt_rating']:+.2f}", f"{f['win_rate']:.1%} [{f['ci'][0]:.1%}-{f['ci'][1]:.1%}]",
                  "-" if adv is None else f"{adv:+.1%}")
    console.print(t)
    fp = r["decks"]["first_player"]
    g = r["game"]
    if fp["games"]:
        console.print(f"first player wins {fp['win_rate']:.1%} of decided games [95% CI {fp['ci'][0]:.1%} - {fp['ci'][1]:.1%}]; "
                      f"BT first-seat term {r['decks']['bradley_terry']['first_seat']:+.2f}")
    console.print(f"games {g['games']:,}: balance {g['balance']:.3f}, draws {g['drawishness']:.1%}, "
                  f"round limit {g['round_limit_rate']:.1%}, rounds {g['rounds_mean']:.1f} +/- {g['rounds_sd']:.1f}")
    if g.get("decisiveness") is not None:
        lo, hi = g["decisiveness_ci"]
        d = g["decisiveness_detail"]
        console.print(f"decisiveness: the side ahead in objective HP at the end of round 5 wins {g['decisiveness']:.1%} "
                      f"[95% CI {lo:.1%} - {hi:.1%}] of {d['games_with_leader']:,} games "
                      f"({d['ended_before']:,} ended before, {d['ties']:,} tied)")
    outl = [c for c in r["cards"] if c["outlier"]][:10]
    if outl:
        c_t = Table(title="card outliers, strongest first (win-rate points)",
                    caption=f"early = drawn by round {r['meta'].get('early_round')} vs not, within pairing, seat and "
                            f"turn order; flagged when Holm-adjusted p < {r['meta'].get('flag_alpha', 0.05)}; "
                            "impact = drawn vs never drawn, all games")
        for col in ("card", "early [95% CI]", "p Holm", "impact [95% CI]", "drawn", "play"):
            c_t.add_column(col, justify="left" if col == "card" else "right", no_wrap=True,
                           min_width=12 if col == "card" else None)
        for c in outl:
            elo, ehi = c["early_impact_ci"]
            imp = "-" if c["impact_ci"] is None else (
                f"{100 * c['impact']:+.0f} [{100 * c['impact_ci'][0]:+.0f}, {100 * c['impact_ci'][1]:+.0f}]")
            c_t.add_row(c["card"], f"{100 * c['early_impact']:+.0f} [{100 * elo:+.0f}, {100 * ehi:+.0f}]",
                        f"{c['p_holm']:.2g}", imp, f"{c['games_drawn']:,}",
                        "-" if c["play_rate"] is None else f"{c['play_rate']:.0%}")
        console.print(c_t)
    else:
        console.print(f"no card outliers among {len(r['cards'])} cards drawn in at least {r['meta']['min_games']} games "
                      f"(Holm-adjusted early-draw test at {r['meta'].get('flag_alpha', 0.05)})")
    console.print(f"written to {path}")


def main() -> None:
    app()


if __name__ == "__main__":
    main()

"""``battlesim balance`` and ``battlesim sweep``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from battlesim.ecs.balance.cards import no_cards_message
from battlesim.ecs.cli.app import (
    PLUGIN_OPTION,
    UserError,
    app,
    err,
    parse_pair,
    parse_params,
    stop_run,
    warn,
)
from battlesim.ecs.cli.progress import run_progress
from battlesim.ecs.datafiles import DataError
from battlesim.ecs.runs.runner import (
    ChunkFailed,
    RunError,
    load_ruleset,
)


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
    decks_dir: Optional[Path] = typer.Option(None, "--decks-dir", help="Play with another deck directory (a designer's decks; --decks names which)."),
    restart: bool = typer.Option(False, "--restart", help="Start the pairings' run directories over (when any card, deck, ruleset or plugin file changed)."),
    as_json: bool = typer.Option(False, "--json", help="Print balance.json on stdout instead of tables."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress lines."),
    plugin: list[str] = PLUGIN_OPTION,
) -> None:
    """Round-robin the decks (both seat orders) and report matchups, deck ratings, card impact
    and game measures, with 95% intervals; writes OUT/balance.json and OUT/report.html (see
    docs/balance.md). Rerunning the same command resumes; a card is flagged as an outlier only
    when its early-draw test survives Holm's correction over all the reported cards."""
    from battlesim.ecs.balance import measure as bal

    try:
        load_ruleset(ruleset, plugin)  # declare the plugins' decks and keywords before decks are resolved
        spec = bal.BalanceSpec(
            decks=tuple(bal.resolve_deck_list(decks, ruleset, str(cards) if cards else None, _dir(decks_dir))),
            games_per_pairing=games_per_pairing, ruleset=ruleset, agents=parse_pair(agents, "agents"), seed=seed,
            min_games=min_games, params=parse_params(param), cards_dir=str(cards) if cards else None,
            plugins=tuple(plugin), decks_dir=_dir(decks_dir))

        talk = not quiet and not as_json
        with run_progress(len(bal.pairings(spec.decks)) * games_per_pairing, talk) as bar:

            def on_pair(i: int, n: int, a: str, b: str) -> None:
                if bar:
                    bar.describe(f"pairing {i + 1}/{n}: {a} vs {b}")
                elif talk:
                    err.print(f"pairing {i + 1}/{n}: {a} vs {b}", highlight=False, markup=False, style="dim")

            result = bal.measure(spec, out, workers=workers, on_pair=on_pair, warn=warn, restart=restart, progress=bar)
    except (ChunkFailed, KeyboardInterrupt, UserError, RunError, DataError) as e:
        stop_run(e, out, "pairings")
    path = out / "balance.json"
    report = out / "report.html"
    if as_json:
        sys.stdout.write(path.read_text(encoding="utf-8"))
        if not quiet and report.is_file():
            err.print(f"report: {report}", highlight=False, markup=False, soft_wrap=True)
        return
    _print_balance(result, path, report if report.is_file() else None)


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
    decks_dir: Optional[Path] = typer.Option(None, "--decks-dir", help="Play with another deck directory (a designer's decks; --decks names which)."),
    restart: bool = typer.Option(False, "--restart", help="Start every point's run directories over (when any card, deck, ruleset or plugin file changed)."),
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
    from battlesim.ecs.balance import measure as bal
    from battlesim.ecs.balance import sweep as sw

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
            decks=tuple(bal.resolve_deck_list(decks, ruleset, str(cards) if cards else None, _dir(decks_dir))),
            games_per_pairing=games_per_pairing, ruleset=ruleset, agents=parse_pair(agents, "agents"), seed=seed,
            min_games=min_games, params=fixed, cards_dir=str(cards) if cards else None, plugins=tuple(plugin),
            decks_dir=_dir(decks_dir))
        talk = not quiet and not as_json
        n_pairs = len(bal.pairings(spec.decks))
        n_points = len(sw.points(swept))
        here = {"point": ""}

        def on_start(grid: list[dict[str, Any]]) -> None:
            if talk:
                err.print(f"sweep: {len(grid)} point(s) x {n_pairs} pairings x {games_per_pairing} games = "
                          f"{len(grid) * n_pairs * games_per_pairing:,} games into {out}", highlight=False, markup=False)

        with run_progress(n_points * n_pairs * games_per_pairing, talk) as bar:

            def on_point(i: int, n: int, params: dict[str, Any]) -> None:
                here["point"] = f"point {i + 1}/{n} {sw.point_name(params)}"
                if not bar and talk:
                    err.print(here["point"], highlight=False, markup=False, style="bold")

            def on_pair(i: int, n: int, a: str, b: str) -> None:
                if bar:
                    bar.describe(f"{here['point']}, pairing {i + 1}/{n}: {a} vs {b}")
                elif talk:
                    err.print(f"  pairing {i + 1}/{n}: {a} vs {b}", highlight=False, markup=False, style="dim")

            result = sw.run_sweep(spec, swept, out, workers=workers, on_start=on_start, on_point=on_point,
                                  on_pair=on_pair, warn=warn, restart=restart, progress=bar)
    except (ChunkFailed, KeyboardInterrupt, UserError, RunError, DataError) as e:
        stop_run(e, out, "points")
    written = [out / sw.SWEEP_JSON]
    try:
        from battlesim.ecs.balance import sweep_report
    except ImportError:
        warn("matplotlib is not installed: no sweep.png or sweep.html (pip install matplotlib)")
    else:
        written += [sweep_report.write_plot(result, out), sweep_report.write_html(result, out)]
    report = out / "sweep.html"
    if as_json:
        sys.stdout.write((out / sw.SWEEP_JSON).read_text(encoding="utf-8"))
        if not quiet and report.is_file():
            err.print(f"report: {report}", highlight=False, markup=False, soft_wrap=True)
        return
    _print_sweep(result, written, report if report.is_file() else None)


def _dir(path: Optional[Path]) -> Optional[str]:
    """--decks-dir: a directory (one line otherwise, before anything loads)."""
    if path is not None and not path.is_dir():
        raise UserError(f"--decks-dir {path}: {'not a directory' if path.exists() else 'no such directory'}")
    return str(path) if path is not None else None


def _print_params(ruleset: str) -> None:
    from battlesim.ecs.balance import sweep as sw

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


def _print_sweep(r: dict[str, Any], written: list[Path], report: Path | None) -> None:
    from rich import box

    from battlesim.ecs.balance.sweep_report import deck_rows, table_rows

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
    for p in r["points"]:
        if p.get("no_cards"):
            console.print(f"{p['dir']}: {no_cards_message(p['no_cards'])}", highlight=False, markup=False,
                          soft_wrap=True)
    console.print("written: " + ", ".join(str(p) for p in written), highlight=False, markup=False, soft_wrap=True)
    if report:
        console.print(f"report: {report} (each point's own: {report.parent}/<point>/report.html)",
                      highlight=False, markup=False, soft_wrap=True)


def _print_balance(r: dict[str, Any], path: Path, report: Path | None) -> None:
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
    for col in ("deck", "BT rating [95% CI]", "win rate vs field [95% CI]", "first-player advantage"):
        t.add_column(col, justify="left" if col == "deck" else "right")
    for d in sorted(decks_, key=lambda d: -r["decks"]["decks"][d]["bt_rating"]):
        o = r["decks"]["decks"][d]
        f = o["vs_field"]
        adv = o["first_player_advantage"]
        bt_ci = o.get("bt_rating_ci")
        t.add_row(d, f"{o['bt_rating']:+.2f}" + (f" [{bt_ci[0]:+.2f}, {bt_ci[1]:+.2f}]" if bt_ci else ""), f"{f['win_rate']:.1%} [{f['ci'][0]:.1%}-{f['ci'][1]:.1%}]",
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
    elif r["meta"].get("no_cards"):
        console.print(no_cards_message(r["meta"]["no_cards"]), highlight=False, markup=False, soft_wrap=True)
    else:
        console.print(f"no card outliers among {len(r['cards'])} cards drawn in at least {r['meta']['min_games']} games "
                      f"(Holm-adjusted early-draw test at {r['meta'].get('flag_alpha', 0.05)})")
    console.print(f"written to {path}", highlight=False, markup=False, soft_wrap=True)
    if report:
        console.print(f"report: {report}", highlight=False, markup=False, soft_wrap=True)

"""``sweep.png`` and ``sweep.html`` of ``battlesim sweep``, from the ``sweep.json`` object.

The x axis is the swept parameter with the most values; every combination of the other axes
is one series (a line). Top row: first player's win rate, mean rounds, decisiveness and draw
rate per series; below, one panel per series with each deck's win rate against the field.
Error bars are the 95% intervals of sweep.json.
"""

from __future__ import annotations

import html
import itertools
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import numpy as np  # noqa: E402

from battlesim.ecs.balance.report import STYLE, _pct, _png, _table  # noqa: E402

MAX_DECK_PANELS = 9
SERIES_COLORS = plt.get_cmap("Dark2")


def _layout(r: dict[str, Any]) -> tuple[str, list[dict[str, Any]], list[tuple[str, list[dict[str, Any]]]]]:
    """(x axis name, x values, series): the axis with the most values is x; each combination of
    the others is a series, labelled ``name=value, ...`` (or ``all points`` for one axis)."""
    axes = r["meta"]["axes"]
    x = max(axes, key=lambda a: len(axes[a]))  # ties: the first given
    others = [a for a in axes if a != x]
    series = []
    for combo in itertools.product(*(axes[a] for a in others)):
        fixed = dict(zip(others, combo))
        pts = [p for p in r["points"] if all(p["params"][k] == v for k, v in fixed.items())]
        pts.sort(key=lambda p: p["params"][x])
        label = ", ".join(f"{k}={v}" for k, v in fixed.items()) or "all points"
        series.append((label, pts))
    return x, axes[x], series


def _positions(values: list[Any]) -> dict[Any, float]:
    """Where each value of the x axis is drawn: at itself for numbers, in the given order for names
    (a sweep over grid's ``map``)."""
    if all(isinstance(v, (int, float)) for v in values):
        return {v: float(v) for v in values}
    return {v: float(i) for i, v in enumerate(values)}


def _errorbar(ax: Any, xs: np.ndarray, pts: list[dict[str, Any]], key: str, label: str | None, offset: float,
              color: Any = None, fmt: str = "o-") -> None:
    v = np.array([np.nan if p.get(key) is None else p[key] for p in pts], dtype=float)
    cis = [p.get(key + "_ci") for p in pts]
    lo = np.array([np.nan if c is None else c[0] for c in cis], dtype=float)
    hi = np.array([np.nan if c is None else c[1] for c in cis], dtype=float)
    err = np.vstack([np.nan_to_num(v - lo), np.nan_to_num(hi - v)])
    ax.errorbar(xs + offset, v, yerr=err, fmt=fmt, capsize=3, ms=4, lw=1.2, label=label, color=color)


def figure(r: dict[str, Any]) -> "matplotlib.figure.Figure":
    """The sweep's figure (matplotlib)."""
    x, xvals, series = _layout(r)
    position = _positions(xvals)
    xs_all = np.array([position[v] for v in xvals], dtype=float)
    span = (xs_all.max() - xs_all.min()) or 1.0
    deck_panels = series[:MAX_DECK_PANELS]
    ncol = 4
    nrow = 1 + int(np.ceil(len(deck_panels) / ncol))
    fig, axs = plt.subplots(nrow, ncol, figsize=(4.2 * ncol, 3.3 * nrow), squeeze=False)
    top = [("first_player_win_rate", "first player's win rate\n(decided games)", 0.5),
           ("rounds_mean", "mean rounds", None), ("decisiveness", "decisiveness\n(round-5 leader wins)", 0.5),
           ("drawishness", "draw rate", None)]
    for j, (key, title, ref) in enumerate(top):
        ax = axs[0, j]
        for s, (label, pts) in enumerate(series):  # series colours differ from the deck colours below
            off = (s - (len(series) - 1) / 2) * 0.012 * span
            _errorbar(ax, np.array([position[p["params"][x]] for p in pts], float), pts, key, label, off,
                      color=SERIES_COLORS(s % SERIES_COLORS.N), fmt="s-")
        if ref is not None:
            ax.axhline(ref, color="0.6", lw=0.8, ls="--")
        if key != "rounds_mean":
            ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(x)
        ax.set_xticks(xs_all, [str(v) for v in xvals])
    if len(series) > 1:
        axs[0, 0].legend(fontsize=7, loc="best")
    decks = r["meta"]["decks"]
    colors = plt.get_cmap("tab10" if len(decks) <= 10 else "tab20")
    for k, (label, pts) in enumerate(deck_panels):
        ax = axs[1 + k // ncol, k % ncol]
        xs = np.array([position[p["params"][x]] for p in pts], float)
        for d_i, d in enumerate(decks):
            off = (d_i - (len(decks) - 1) / 2) * 0.008 * span
            rows = [{"v": p["decks"][d]["win_rate"], "v_ci": p["decks"][d]["ci"]} for p in pts]
            _errorbar(ax, xs, rows, "v", d, off, color=colors(d_i % colors.N))
        ax.axhline(0.5, color="0.6", lw=0.8, ls="--")
        ax.set_ylim(0, 1)
        ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))
        ax.set_title(f"deck win rate vs field\n{label}", fontsize=10)
        ax.set_xlabel(x)
        ax.set_xticks(xs_all, [str(v) for v in xvals])
        if k == 0:
            ax.legend(fontsize=7, loc="best")
    for k in range(len(deck_panels), (nrow - 1) * ncol):
        axs[1 + k // ncol, k % ncol].axis("off")
    fig.suptitle(f"battlesim sweep: {r['meta']['games_per_pairing']} games per pairing, "
                 f"{len(decks)} decks, 95% intervals", fontsize=11)
    fig.tight_layout()
    return fig


def _ci(p: dict[str, Any], key: str, kind: str = "pct", compact: bool = False) -> str:
    """A value with its interval: ``51.2% [47.0%, 55.3%]``, or compact ``51 [47-55]`` (percent
    points for rates) for a narrow terminal."""
    v, ci = p.get(key), p.get(key + "_ci")
    if v is None:
        return "-"
    signed = key == "first_player_advantage"
    if kind == "num":
        if compact:
            return f"{v:.1f} [{ci[0]:.1f},{ci[1]:.1f}]" if ci else f"{v:.1f}"
        return f"{v:.2f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")
    if compact:
        f = "{:+.0f}" if signed else "{:.0f}"
        return f.format(100 * v) + (f" [{f.format(100 * ci[0])},{f.format(100 * ci[1])}]" if ci else "")
    return _pct(v, signed) + (f" [{_pct(ci[0], signed)}, {_pct(ci[1], signed)}]" if ci else "")


def table_rows(r: dict[str, Any], compact: bool = False) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the points table (HTML; ``compact``: the terminal's, rates in percent)."""
    names = list(r["meta"]["axes"])
    head = [*names, "games", "first player WR", "first-player adv.", "mean rounds", "draws", "decisiveness",
            "outliers"]
    if compact:
        head = [*names, "games", "1st WR %", "1st adv pts", "rounds", "draws %", "decisive %", "outliers"]
    rows = []
    for p in r["points"]:
        rows.append([*(str(p["params"][n]) for n in names), f"{p['games']:,}",
                     _ci(p, "first_player_win_rate", compact=compact), _ci(p, "first_player_advantage", compact=compact),
                     _ci(p, "rounds_mean", "num", compact), _ci(p, "drawishness", compact=compact),
                     _ci(p, "decisiveness", compact=compact),
                     ", ".join(p["outliers"][:3]) + (" ..." if len(p["outliers"]) > 3 else "")])
    return head, rows


def deck_rows(r: dict[str, Any], compact: bool = False) -> tuple[list[str], list[list[str]]]:
    """Decks (rows) by point (columns): win rate against the field with its interval."""
    head = ["deck", *(", ".join(f"{k}={v}" for k, v in p["params"].items()) for p in r["points"])]
    rows = []
    for d in r["meta"]["decks"]:
        cells = []
        for p in r["points"]:
            o = {"v": p["decks"][d]["win_rate"], "v_ci": p["decks"][d]["ci"]}
            cells.append(_ci(o, "v", compact=compact))
        rows.append([d, *cells])
    return head, rows


def write_plot(r: dict[str, Any], out: Path | str) -> Path:
    path = Path(out) / "sweep.png"
    fig = figure(r)
    fig.savefig(path, dpi=90, bbox_inches="tight")
    plt.close(fig)
    return path


def render(r: dict[str, Any]) -> str:
    """sweep.html: the figure embedded, the points and decks tables, a link to each point's report."""
    m = r["meta"]
    axes = ", ".join(f"{k} = {', '.join(map(str, v))} (default {m['defaults'][k]})" for k, v in m["axes"].items())
    title = f"battlesim sweep: {m['ruleset']}, {axes}"
    head, rows = table_rows(r)
    dhead, drows = deck_rows(r)
    links = "".join(f'<li><a href="{html.escape(p["dir"])}/report.html">{html.escape(p["dir"])}</a></li>'
                    for p in r["points"])
    fixed = ", ".join(f"{k}={v}" for k, v in m["params"].items() if k not in m["axes"]) or "none"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{STYLE}</style></head><body>
<h1>{html.escape(title)}</h1>
<p class="lead">{len(m['decks'])} decks ({html.escape(', '.join(m['decks']))}), {m['games_per_pairing']} games per ordered
pairing, agents {html.escape(', '.join(m['agents']))}, seed {m['seed']}, other parameter overrides: {html.escape(fixed)}.
Every point plays the same seeds. Intervals are 95% (Wilson for rates, normal for means and the advantage);
draws count as non-wins.</p>
{_png(figure(r))}
<h2>Points</h2>{_table(head, rows)}
<h2>Deck win rate against the field</h2>{_table(dhead, drows)}
<h2>Each point's balance report</h2><ul>{links}</ul>
</body></html>
"""


def write_html(r: dict[str, Any], out: Path | str) -> Path:
    path = Path(out) / "sweep.html"
    path.write_text(render(r), encoding="utf-8")
    return path

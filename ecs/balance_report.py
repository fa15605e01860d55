"""``report.html`` of ``battlesim balance``: one self-contained page (plots embedded as base64
PNG, no external file or script) built from the ``balance.json`` object."""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    return '<img alt="plot" src="data:image/png;base64,' + base64.b64encode(buf.getvalue()).decode("ascii") + '">'


def _pct(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "-"
    return f"{x:+.1%}" if signed else f"{x:.1%}"


def heatmap(r: dict[str, Any]) -> str:
    decks = r["meta"]["decks"]
    D = len(decks)
    m = np.full((D, D), np.nan)
    for i, a in enumerate(decks):
        for j, b in enumerate(decks):
            o = r["matchups"].get(a, {}).get(b)
            if o and o["win_rate"] is not None:
                m[i, j] = o["win_rate"]
    fig, ax = plt.subplots(figsize=(1.2 + 0.9 * D, 0.8 + 0.7 * D))
    im = ax.imshow(m, cmap="RdBu", vmin=0, vmax=1)
    ax.set_xticks(range(D), decks, rotation=45, ha="right")
    ax.set_yticks(range(D), decks)
    for i in range(D):
        for j in range(D):
            if not np.isnan(m[i, j]):
                ax.text(j, i, f"{m[i, j]:.0%}", ha="center", va="center", fontsize=8)
    ax.set_title("row deck's win rate vs column deck")
    fig.colorbar(im, ax=ax, fraction=0.046)
    return _png(fig)


def forest(cards: list[dict[str, Any]], top: int = 30) -> str:
    rows = [c for c in cards if c["impact"] is not None][:top]
    if not rows:
        return "<p>No card has both drawn and never-drawn games at this sample size.</p>"
    rows = rows[::-1]
    fig, ax = plt.subplots(figsize=(7, 0.8 + 0.28 * len(rows)))
    y = np.arange(len(rows))
    imp = np.array([c["impact"] for c in rows])
    lo = np.array([c["impact_ci"][0] for c in rows])
    hi = np.array([c["impact_ci"][1] for c in rows])
    colors = ["tab:red" if c["outlier"] else "tab:gray" for c in rows]
    ax.hlines(y, lo, hi, colors=colors, lw=1.5)
    ax.scatter(imp, y, c=colors, zorder=3, s=14)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, [c["card"] for c in rows], fontsize=8)
    ax.set_xlabel("impact: drawn win rate - never-drawn win rate (95% CI)")
    ax.set_title("card impact (red: interval excludes 0)")
    return _png(fig)


def rounds_hist(g: dict[str, Any]) -> str:
    h = g.get("rounds_histogram") or {}
    if not h:
        return ""
    k = np.array([int(x) for x in h])
    v = np.array(list(h.values()))
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.bar(k, v, color="tab:blue")
    ax.set_xlabel("rounds")
    ax.set_ylabel("games")
    ax.set_title(f"game length: mean {g['rounds_mean']:.1f}, sd {g['rounds_sd']:.1f}")
    return _png(fig)


def first_player(r: dict[str, Any]) -> str:
    decks = r["meta"]["decks"]
    adv = [r["decks"]["decks"][d]["first_player_advantage"] for d in decks]
    cis = [r["decks"]["decks"][d]["first_player_advantage_ci"] for d in decks]
    ok = [i for i, a in enumerate(adv) if a is not None]
    if not ok:
        return ""
    fig, ax = plt.subplots(figsize=(6, 0.8 + 0.35 * len(ok)))
    y = np.arange(len(ok))
    a = np.array([adv[i] for i in ok])
    lo = np.array([cis[i][0] for i in ok])
    hi = np.array([cis[i][1] for i in ok])
    ax.errorbar(a, y, xerr=[a - lo, hi - a], fmt="o", capsize=2)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, [decks[i] for i in ok])
    ax.set_xlabel("win rate going first - win rate going second (95% CI)")
    ax.set_title("first-player advantage per deck")
    return _png(fig)


def _table(head: list[str], rows: list[list[str]]) -> str:
    h = "".join(f"<th>{html.escape(x)}</th>" for x in head)
    b = "".join("<tr>" + "".join(f"<td>{html.escape(x)}</td>" for x in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{h}</tr></thead><tbody>{b}</tbody></table>"


def render(r: dict[str, Any]) -> str:
    meta, g = r["meta"], r["game"]
    decks = sorted(meta["decks"], key=lambda d: -r["decks"]["decks"][d]["bt_rating"])
    deck_rows = []
    for d in decks:
        o = r["decks"]["decks"][d]
        f = o["vs_field"]
        ci = f"[{_pct(f['ci'][0])} - {_pct(f['ci'][1])}]" if f["ci"] else ""
        deck_rows.append([d, f"{o['bt_rating']:+.2f}", f"{_pct(f['win_rate'])} {ci}", str(f["games"]),
                          _pct(o["first_player_advantage"], True)])
    card_rows = []
    for c in r["cards"]:
        ci = f"[{_pct(c['impact_ci'][0], True)}, {_pct(c['impact_ci'][1], True)}]" if c["impact_ci"] else ""
        card_rows.append([c["card"], f"{_pct(c['impact'], True)} {ci}", "yes" if c["outlier"] else "",
                          _pct(c["drawn_wr"]), _pct(c["not_drawn_wr"]), _pct(c["played_wr"]), _pct(c["in_deck_wr"]),
                          str(c["games_drawn"]), _pct(c["play_rate"]),
                          "-" if c["avg_round_played"] is None else f"{c['avg_round_played']:.1f}"])
    fp = r["decks"]["first_player"]
    fp_line = (f"First player wins {_pct(fp['win_rate'])} of decided games (95% CI {_pct(fp['ci'][0])} - "
               f"{_pct(fp['ci'][1])}); Bradley-Terry first-seat term {r['decks']['bradley_terry']['first_seat']:+.2f}."
               if fp["games"] else "")
    game_rows = [[k, (f"{v:.3f}" if isinstance(v, float) else str(v))] for k, v in g.items()
                 if k in ("games", "balance", "seat_balance", "drawishness", "round_limit_rate", "rounds_mean",
                          "rounds_sd", "first_player_win_rate", "second_player_win_rate")]
    title = f"battlesim balance: {meta.get('ruleset', '')}, {len(meta['decks'])} decks, {meta.get('games_per_pairing')} games per pairing"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body {{ font-family: sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }}
th, td {{ border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }}
th:first-child, td:first-child {{ text-align: left; }}
img {{ max-width: 100%; display: block; margin: 1em 0; }}
</style></head><body>
<h1>{html.escape(title)}</h1>
<p>Agents {html.escape(", ".join(meta.get("agents", [])))}, seed {meta.get("seed")}. Win rates count draws as non-wins; intervals are 95%.</p>
<h2>Matchups</h2>{heatmap(r)}
<h2>Decks</h2>{_table(["deck", "BT rating", "win rate vs field [95% CI]", "games", "first-player advantage"], deck_rows)}
<h2>First-player advantage</h2><p>{html.escape(fp_line)}</p>{first_player(r)}
<h2>Cards (outliers first)</h2>{forest(r["cards"])}
{_table(["card", "impact [95% CI]", "outlier", "drawn WR", "never drawn WR", "played WR", "in deck WR", "games drawn", "play rate", "avg round played"], card_rows)}
<h2>Game</h2>{rounds_hist(g)}{_table(["measure", "value"], game_rows)}
<p>{html.escape(g.get("decisiveness_note", ""))}</p>
</body></html>
"""


def write_report(r: dict[str, Any], out: Path | str) -> Path:
    path = Path(out) / "report.html"
    path.write_text(render(r), encoding="utf-8")
    return path

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
import matplotlib.ticker  # noqa: E402,F401
import numpy as np  # noqa: E402

from battlesim.ecs.balance.cards import no_cards_message  # noqa: E402


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return '<img alt="plot" src="data:image/png;base64,' + base64.b64encode(buf.getvalue()).decode("ascii") + '">'


def _pct(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "-"
    return f"{x:+.1%}" if signed else f"{x:.1%}"


def heatmap(r: dict[str, Any]) -> str:
    """Matchup matrix. The text is the row deck's win rate against the column deck (both seat
    orders); the colour is its margin, row deck's wins - column deck's wins over their games
    (blue: the row deck is ahead). A margin, not the win rate, because draws count as non-wins:
    with 12% draws an even matchup is 44% to 44%, which a colour centred on 50% would paint red.
    The diagonal (a deck against itself, not played) is grey. Decks in the order of the deck
    table (by rating, highest first), so the strong decks sit top-left."""
    decks = sorted(r["meta"]["decks"], key=lambda d: -r["decks"]["decks"][d]["bt_rating"])
    D = len(decks)
    wr = np.full((D, D), np.nan)
    margin = np.full((D, D), np.nan)
    for i, a in enumerate(decks):
        for j, b in enumerate(decks):
            o, back = r["matchups"].get(a, {}).get(b), r["matchups"].get(b, {}).get(a)
            if o and back and o["win_rate"] is not None:
                wr[i, j] = o["win_rate"]
                margin[i, j] = o["win_rate"] - back["win_rate"]
    side = max(3.2, 0.8 * D + 1.2)
    fig, ax = plt.subplots(figsize=(side + 1.2, side))
    cmap = plt.get_cmap("RdBu").with_extremes(bad="0.88")
    im = ax.imshow(np.ma.masked_invalid(margin), cmap=cmap, vmin=-0.5, vmax=0.5)
    ax.set_xticks(range(D), decks, rotation=40, ha="right", fontsize=9)
    ax.set_yticks(range(D), decks, fontsize=9)
    for i in range(D):
        for j in range(D):
            if np.isnan(wr[i, j]):
                ax.text(j, i, "-", ha="center", va="center", fontsize=9, color="0.5")
            else:
                ax.text(j, i, f"{wr[i, j]:.0%}", ha="center", va="center", fontsize=9,
                        color="white" if abs(margin[i, j]) > 0.3 else "black")
    ax.set_xlabel("opponent (column)")
    ax.set_title("row deck's win rate against the column deck\n"
                 "colour: row deck's wins - column deck's wins (draws are neither)", fontsize=10)
    bar = fig.colorbar(im, ax=ax, fraction=0.046, extend="both")
    bar.ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))
    bar.set_label("win margin (share of games)", fontsize=9)
    return _png(fig)


def forest(cards: list[dict[str, Any]], early_round: int | None, top: int = 30) -> str:
    """Early impact of the top cards with 95% intervals; red when flagged (Holm), and the plain
    drawn-vs-never-drawn impact as a hollow mark beside it."""
    rows = [c for c in cards if c.get("early_impact") is not None][:top]
    if not rows:
        return "<p>No card has games both with and without an early draw at this sample size.</p>"
    rows = rows[::-1]
    fig, ax = plt.subplots(figsize=(8.5, 1.2 + 0.27 * len(rows)))
    y = np.arange(len(rows))
    imp = np.array([c["early_impact"] for c in rows])
    lo = np.array([c["early_impact_ci"][0] for c in rows])
    hi = np.array([c["early_impact_ci"][1] for c in rows])
    colors = ["tab:red" if c["outlier"] else "0.45" for c in rows]
    ax.hlines(y, lo, hi, colors=colors, lw=1.6)
    ax.scatter(imp, y, c=colors, zorder=3, s=16, label=f"early impact (drawn by round {early_round})")
    raw = np.array([np.nan if c["impact"] is None else c["impact"] for c in rows])
    ax.scatter(raw, y, facecolors="none", edgecolors="tab:blue", zorder=2, s=16, lw=0.8,
               label="impact (drawn vs never drawn, confounded)")
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, [c["card"] for c in rows], fontsize=8)
    ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))
    ax.set_xlabel("win-rate difference, 95% interval")
    ax.set_title("card impact (red: flagged, Holm-adjusted p < 0.05)", fontsize=10, pad=28)
    ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
    ax.grid(axis="x", color="0.92")
    return _png(fig)


def rounds_hist(g: dict[str, Any]) -> str:
    h = g.get("rounds_histogram") or {}
    if not h:
        return ""
    k = np.array([int(x) for x in h])
    v = np.array(list(h.values()))
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.bar(k, v, color="tab:blue")
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_xlabel("rounds")
    ax.set_ylabel("games")
    ax.set_title(f"game length: mean {g['rounds_mean']:.1f}, sd {g['rounds_sd']:.1f}")
    return _png(fig)


def first_player(r: dict[str, Any]) -> str:
    """Each deck's win rate going first minus going second, with intervals; decks in the order
    of the deck table (by rating, highest at the top)."""
    decks = sorted(r["meta"]["decks"], key=lambda d: r["decks"]["decks"][d]["bt_rating"])
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
    ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))
    ax.grid(axis="x", color="0.92")
    ax.set_xlabel("win rate going first - win rate going second (95% CI)")
    ax.set_title("first-player advantage per deck")
    return _png(fig)


def _table(head: list[str], rows: list[list[str]]) -> str:
    h = "".join(f"<th>{html.escape(x)}</th>" for x in head)
    b = "".join("<tr>" + "".join(f"<td>{html.escape(x)}</td>" for x in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{h}</tr></thead><tbody>{b}</tbody></table>"


STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1250px;
       padding: 0 1.5em; color: #222; line-height: 1.4; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
p.lead { color: #555; margin-top: 0; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.8em; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.5em; text-align: right; white-space: nowrap; }
th { background: #f4f4f4; white-space: normal; vertical-align: bottom; }
th:first-child, td:first-child { text-align: left; }
tr.flag td { background: #fdecea; }
img { max-width: 100%; display: block; margin: 1em 0; }
.note { color: #555; font-size: 0.9em; max-width: 60em; }
.scroll { overflow-x: auto; }
"""


def _ci_text(v: float | None, ci: list[float] | None, signed: bool = False) -> str:
    if v is None:
        return "-"
    return _pct(v, signed) + (f" [{_pct(ci[0], signed)}, {_pct(ci[1], signed)}]" if ci else "")


def _num_ci(v: float, ci: list[float] | None) -> str:
    """A log-odds number with its interval, e.g. ``+0.31 [+0.12, +0.50]``."""
    return f"{v:+.2f}" + (f" [{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else "")


def render(r: dict[str, Any]) -> str:
    """The page: matchups, decks, first-player advantage, cards (flagged first), game measures."""
    meta, g = r["meta"], r["game"]
    decks = sorted(meta["decks"], key=lambda d: -r["decks"]["decks"][d]["bt_rating"])
    deck_rows = []
    for d in decks:
        o = r["decks"]["decks"][d]
        f = o["vs_field"]
        deck_rows.append([d, _num_ci(o["bt_rating"], o.get("bt_rating_ci")), _ci_text(f["win_rate"], f["ci"]), f"{f['games']:,}",
                          _ci_text(o["first_player_advantage"], o["first_player_advantage_ci"], True)])
    card_rows, flags = [], []
    for c in r["cards"]:
        flags.append(c["outlier"])
        card_rows.append([c["card"], _ci_text(c.get("early_impact"), c.get("early_impact_ci"), True),
                          "-" if c.get("p_holm") is None else f"{c['p_holm']:.2g}",
                          _ci_text(c["impact"], c["impact_ci"], True),
                          _pct(c["drawn_wr"]), _pct(c["not_drawn_wr"]), _pct(c["played_wr"]), _pct(c["in_deck_wr"]),
                          f"{c['games_drawn']:,}", f"{c.get('games_drawn_early', 0):,}", _pct(c["play_rate"]),
                          "-" if c["avg_round_played"] is None else f"{c['avg_round_played']:.1f}"])
    fp, bt = r["decks"]["first_player"], r["decks"]["bradley_terry"]
    fp_line = (f"The first player wins {_ci_text(fp['win_rate'], fp['ci'])} of decided games; Bradley-Terry "
               f"first-seat term {_num_ci(bt['first_seat'], bt.get('first_seat_ci'))} (log-odds; ratings sum to 0)."
               if fp["games"] else "")
    game_rows = [
        ["games", f"{g['games']:,}"],
        ["balance (1 - |first WR - second WR|)", f"{g['balance']:.3f}"],
        ["first-player advantage (first WR - second WR)",
         _ci_text(g.get("first_player_advantage"), g.get("first_player_advantage_ci"), True)],
        ["seat balance (seat 0 vs seat 1)", f"{g['seat_balance']:.3f}"],
        ["drawishness (draw rate)", _ci_text(g["drawishness"], g.get("drawishness_ci"))],
        ["round-limit rate", _pct(g["round_limit_rate"])],
        ["mean rounds", f"{g['rounds_mean']:.2f}" + (f" [{g['rounds_mean_ci'][0]:.2f}, {g['rounds_mean_ci'][1]:.2f}]"
                                                       if g.get("rounds_mean_ci") else "")],
        ["sd of rounds", f"{g['rounds_sd']:.2f}"],
        ["decisiveness (round-5 leader wins)", _ci_text(g.get("decisiveness"), g.get("decisiveness_ci"))],
    ]
    d = g.get("decisiveness_detail")
    dec_note = (f"Decisiveness: {d['games_with_leader']:,} games had a leader in objective HP at the end of round 5 "
                f"({d['ended_before']:,} had ended before, {d['ties']:,} were tied)." if d else g.get("decisiveness_note", ""))
    er = meta.get("early_round")
    title = (f"battlesim balance: {meta.get('ruleset', '')}, {len(meta['decks'])} decks, "
             f"{meta.get('games_per_pairing')} games per pairing")
    params = ", ".join(f"{k}={v}" for k, v in (meta.get("params") or {}).items()) or "none"
    body = "".join(
        ('<tr class="flag">' if flag else "<tr>") + "".join(f"<td>{html.escape(x)}</td>" for x in row) + "</tr>"
        for row, flag in zip(card_rows, flags))
    card_head = ["card", "early impact [95% CI]", "p (Holm)", "impact [95% CI]", "drawn WR", "never drawn WR",
                 "played WR", "in deck WR", "games drawn", f"drawn by round {er}", "play rate", "avg round played"]
    card_table = ("<table><thead><tr>" + "".join(f"<th>{html.escape(x)}</th>" for x in card_head)
                  + f"</tr></thead><tbody>{body}</tbody></table>")
    n_flag = sum(flags)
    no_cards = (f'<p class="note"><b>{html.escape(no_cards_message(meta["no_cards"]))}</b></p>'
                if meta.get("no_cards") else "")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{STYLE}</style></head><body>
<h1>{html.escape(title)}</h1>
<p class="lead">Agents {html.escape(", ".join(meta.get("agents", [])))}, seed {meta.get("seed")}, parameter overrides:
{html.escape(params)}. Win rates count draws as non-wins; intervals are 95%.</p>
<h2>Matchups</h2>{heatmap(r)}
<h2>Decks</h2>{_table(["deck", "BT rating [95% CI]", "win rate vs field [95% CI]", "games", "first-player advantage [95% CI]"], deck_rows)}
<h2>First-player advantage</h2><p>{html.escape(fp_line)}</p>{first_player(r)}
<h2>Cards: {n_flag} flagged of {len(card_rows)}</h2>
<p class="note">Early impact: win rate when the card was drawn by the end of round {er} minus when it was not,
compared within the same pairing, seat and turn order (a comparison the shuffle randomizes). A card is flagged
(red) when that difference survives Holm's correction over all {len(card_rows)} cards (family-wise 5%). Impact:
drawn at any time minus never drawn, over all games; it is confounded by game length. See docs/balance.md.</p>
{no_cards}{forest(r["cards"], er)}
<div class="scroll">{card_table}</div>
<h2>Game</h2>{rounds_hist(g)}{_table(["measure", "value"], game_rows)}
<p class="note">{html.escape(dec_note)}</p>
</body></html>
"""


def write_report(r: dict[str, Any], out: Path | str) -> Path:
    path = Path(out) / "report.html"
    path.write_text(render(r), encoding="utf-8")
    return path

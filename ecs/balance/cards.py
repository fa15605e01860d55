"""Card-level numbers of ``battlesim balance``: win rates by draw and play, impact, and the
outlier flag with its false-positive control (docs/balance.md "Cards").

Two comparisons per card, for two different jobs:

- ``impact`` = drawn WR - never-drawn WR over every game that had the card in its deck (17lands'
  IWD, the number the issue names), with Newcombe's 95% interval (sound for a card drawn in few
  games, or never drawn in few). Descriptive, and confounded:
  a card is more likely to be drawn at all in a longer game, so its "drawn" games are longer
  games, whoever tends to win those.
- ``early_impact`` = WR when drawn by the end of round ``EARLY_ROUND`` - WR when not, among
  games still running at that round's draw, compared within strata of the same pairing, seat
  and turn order (Mantel-Haenszel), with Sato's 95% interval and the CMH test's p-value.
  Every player has seen the same number of cards by then (apart from draw effects), so whether
  this card is among them is decided by the shuffle alone: a randomized comparison, like
  17lands' opening-hand win rate but over more cards. This is what the flag uses.

``outlier`` = Holm-adjusted p < ``FLAG_ALPHA`` over every reported card: the chance that a list
flags any card whose early draw does not change the win rate is at most ``FLAG_ALPHA``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from battlesim.ecs.balance.stats import holm, mantel_haenszel, newcombe_diff, rate
from battlesim.ecs.runs.runner import RunError

if TYPE_CHECKING:
    from battlesim.ecs.balance.pairs import PairRun

EARLY_ROUND = 3  # "drawn early" = drawn by the end of this round (the opening hand and two draws in lanes)
FLAG_ALPHA = 0.05  # family-wise error rate of the outlier flag (Holm)


def _col(t: pa.Table, name: str) -> np.ndarray:
    return t.column(name).to_numpy(zero_copy_only=False)


def _instances(runs: Sequence["PairRun"]) -> pa.Table | None:
    """One row per card instance of every pairing, with its (pairing, game, player) id, stratum
    (pairing, seat, turn order), whether its player won, and the game's length in rounds."""
    tables = []
    for k, r in enumerate(runs):
        if r.cards is None or r.cards.num_rows == 0:
            continue
        c = r.cards
        seeds = _col(r.games, "seed")
        cs = _col(c, "seed")
        pos = np.clip(np.searchsorted(seeds, cs), 0, len(seeds) - 1)
        if not np.array_equal(seeds[pos], cs):
            raise RunError(f"pairing {r.a}__{r.b}: cards table names a seed missing from its games table")
        player = _col(c, "player").astype(np.int64)
        went_first = _col(r.games, "first_player").astype(np.int64)[pos] == player
        tables.append(pa.table({
            "gid": k * (1 << 40) + (cs - r.seed) * 2 + player,
            "stratum": (k * 2 + player) * 2 + went_first,
            "card": pc.cast(c.column("card"), pa.string()),
            "won": (_col(r.games, "winner").astype(np.int64)[pos] == player).astype(np.int64),
            "rounds": _col(r.games, "rounds").astype(np.int64)[pos],
            "drawn": c.column("drawn_round"),
            "played": c.column("played_round"),
        }))
    return pa.concat_tables(tables) if tables else None


def card_stats(runs: Sequence["PairRun"], min_games: int = 200, alpha: float = FLAG_ALPHA,
               early_round: int = EARLY_ROUND) -> list[dict[str, Any]]:
    """Per card (pooled over decks), over (game, player) pairs that had it in their main deck.

    A card is *drawn* in a game when any copy was drawn, *played* when any copy was played,
    *drawn early* when a copy was drawn by the end of ``early_round``. Only cards drawn in at
    least ``min_games`` games are reported (and form the Holm family). Sorted outliers first,
    then by |early_impact| (the randomized estimate), largest first.
    """
    t = _instances(runs)
    if t is None:
        return []
    early = pc.fill_null(pc.less_equal(t.column("drawn"), early_round), False)
    t = t.append_column("early", pc.cast(early, pa.int64()))
    per = t.group_by(["gid", "card"]).aggregate(
        [("won", "max"), ("stratum", "max"), ("rounds", "max"), ("early", "max"), ("drawn", "count"),
         ("played", "count")])
    card = _col(per, "card").astype(object)
    won = _col(per, "won_max").astype(np.int64)
    drawn = _col(per, "drawn_count") > 0
    played = _col(per, "played_count") > 0
    drawn_early = _col(per, "early_max") > 0
    reached = _col(per, "rounds_max") >= early_round  # still running at the early round's draw
    stratum = _col(per, "stratum_max").astype(np.int64)
    # average round played, over played copies
    pl = t.filter(pc.is_valid(t.column("played"))).group_by("card").aggregate([("played", "mean")])
    avg_round = dict(zip(pl.column("card").to_pylist(), pl.column("played_mean").to_pylist()))

    names, inv = np.unique(card, return_inverse=True)
    C = len(names)

    def count(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (np.bincount(inv[mask], minlength=C),
                np.bincount(inv[mask], weights=won[mask], minlength=C).astype(np.int64))

    n_deck, k_deck = count(np.ones(len(won), bool))
    n_dr, k_dr = count(drawn)
    n_pl, k_pl = count(played)
    n_nd, k_nd = count(~drawn)

    # the randomized comparison: one row per (card, stratum) of the games that reached early_round
    r = reached
    cell_key, cell = np.unique(inv[r].astype(np.int64) * (1 << 40) + stratum[r], return_inverse=True)

    def cell_sum(x: np.ndarray) -> np.ndarray:
        return np.bincount(cell, weights=x.astype(np.float64), minlength=len(cell_key))

    ex, w = drawn_early[r], won[r]
    mh = mantel_haenszel((cell_key >> 40).astype(np.int64), cell_sum(w * ex), cell_sum(ex),
                         cell_sum(w * ~ex), cell_sum(~ex), C)
    reported = n_dr >= min_games
    p = np.where(reported, mh["p"], np.nan)
    p_holm = holm(p)

    out = []
    for i in np.flatnonzero(reported):
        name = str(names[i])
        impact, ci = newcombe_diff(k_dr[i], n_dr[i], k_nd[i], n_nd[i])
        has = bool(np.isfinite(mh["rd"][i]))
        out.append({
            "card": name,
            "games_in_deck": int(n_deck[i]),
            "games_drawn": int(n_dr[i]),
            "games_played": int(n_pl[i]),
            "games_not_drawn": int(n_nd[i]),
            "in_deck_wr": rate(k_deck[i], n_deck[i]),
            "drawn_wr": rate(k_dr[i], n_dr[i]),
            "played_wr": rate(k_pl[i], n_pl[i]),
            "not_drawn_wr": rate(k_nd[i], n_nd[i]),
            "impact": impact,
            "impact_ci": ci,
            "games_drawn_early": int(mh["n_exposed"][i]),
            "games_not_drawn_early": int(mh["n_unexposed"][i]),
            "early_impact": float(mh["rd"][i]) if has else None,
            "early_impact_ci": [float(mh["lo"][i]), float(mh["hi"][i])] if has else None,
            "p_value": float(p[i]) if has else None,
            "p_holm": float(p_holm[i]) if has else None,
            "outlier": bool(has and p_holm[i] < alpha),
            "play_rate": rate(n_pl[i], n_dr[i]),
            "avg_round_played": avg_round.get(name),
        })
    out.sort(key=lambda c: (not c["outlier"], -abs(c["early_impact"]) if c["early_impact"] is not None else 1.0,
                            c["card"]))
    return out


def min_games_hint(runs: Sequence["PairRun"], min_games: int) -> dict[str, Any]:
    """Why ``--min-games`` left no card, and a value that would not: the cards drawn at all, the
    most games any was drawn in, and the median of their counts (a ``--min-games`` that reports
    about half of them, enough for Holm's correction to have a family worth the name)."""
    drawn = sorted(c["games_drawn"] for c in card_stats(runs, min_games=1))
    return {"min_games": min_games, "cards_drawn": len(drawn),
            "most_games_drawn": drawn[-1] if drawn else 0,
            "suggested_min_games": drawn[(len(drawn) - 1) // 2] if drawn else None}


def no_cards_message(hint: dict[str, Any]) -> str:
    """One line for a user whose ``--min-games`` left no card to report."""
    if not hint["cards_drawn"]:
        return "no card was drawn in any game: nothing to report about cards"
    return (f"no card was drawn in at least {hint['min_games']:,} games (--min-games): the most drawn of "
            f"{hint['cards_drawn']} cards was drawn in {hint['most_games_drawn']:,}; try --min-games "
            f"{hint['suggested_min_games']} (reports about half of them) or more --games-per-pairing")


def outliers(cards: list[dict[str, Any]], top: int = 10) -> list[dict[str, Any]]:
    """Flagged cards (Holm-adjusted early-draw test), strongest |early_impact| first."""
    return [c for c in cards if c["outlier"]][:top]

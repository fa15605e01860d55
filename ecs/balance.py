"""``battlesim balance``: a round-robin of decks turned into the numbers a designer acts on.

- ``run_round_robin`` plays every ordered pairing of the decks (both seat orders), N games
  each, through ``ecs.runner.simulate`` into ``OUT/pairs/<a>__<b>`` (resumable like any run).
  Pairing ``a__b`` starts at seed ``SEED + pair_seed_offset(a, b)``: a fixed offset per
  pairing, so a pairing's games do not depend on which other decks are in the round-robin.
- ``deck_stats`` / ``card_stats`` / ``game_stats`` compute the deck, card and game level
  measures from the games and cards tables (plain numpy, no pandas), ``analyze`` assembles
  them into the ``balance.json`` object.

Win rates count a draw as a non-win (the draw rate is reported beside them). Intervals are
95%: Wilson for a proportion, the normal approximation for a difference of proportions.
"""

from __future__ import annotations

import json
import math
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

from ecs.runner import RunConfig, RunError, load_game, simulate, wilson

Z95 = 1.959963984540054
DEFAULT_GAMES_PER_PAIRING = 200
DEFAULT_MIN_GAMES = 200
PAIR_SEED_STRIDE = 1_000_000


# ---------------------------------------------------------------- running the round-robin


def pair_name(a: str, b: str) -> str:
    return f"{a}__{b}"


def pair_seed_offset(a: str, b: str) -> int:
    """A fixed seed offset for the ordered pairing (a in seat 0, b in seat 1)."""
    return (zlib.crc32(pair_name(a, b).encode()) & 0xFFFF) * PAIR_SEED_STRIDE


def pairings(decks: Sequence[str]) -> list[tuple[str, str]]:
    """Every ordered pairing of distinct decks: both seat orders."""
    return [(a, b) for a in decks for b in decks if a != b]


@dataclass
class PairRun:
    a: str
    b: str
    seed: int
    games: pa.Table
    cards: pa.Table | None


def resolve_deck_list(spec: str | None, ruleset: str = "lanes", cards_dir: str | None = None) -> list[str]:
    """``None`` or ``all``: every deck of the ruleset; else a comma-separated list, checked."""
    game = load_game(RunConfig(ruleset=ruleset, cards_dir=cards_dir))
    known = list(game.deck_ids())
    if spec is None or spec.strip() == "all":
        decks = known
    else:
        decks = [d.strip() for d in spec.split(",") if d.strip()]
        for d in decks:
            if d not in known:
                raise RunError(f"unknown deck {d!r}; available: {', '.join(known)}")
        if len(set(decks)) != len(decks):
            raise RunError(f"--decks names a deck twice ({spec!r})")
    if len(decks) < 2:
        raise RunError("--decks needs at least two decks")
    return decks


def run_round_robin(
    decks: Sequence[str],
    games_per_pairing: int,
    out: Path | str,
    *,
    ruleset: str = "lanes",
    agents: tuple[str, str] = ("random", "random"),
    seed: int = 0,
    cards_dir: str | None = None,
    params: dict[str, Any] | None = None,
    workers: int = 1,
    on_pair: Callable[[int, int, str, str], None] | None = None,
) -> list[PairRun]:
    """Play (or resume) every ordered pairing into ``out/pairs/<a>__<b>``."""
    if games_per_pairing < 1:
        raise RunError(f"--games-per-pairing must be at least 1 (got {games_per_pairing})")
    out = Path(out)
    config0 = RunConfig(ruleset=ruleset, agents=tuple(agents), cards_dir=cards_dir,  # type: ignore[arg-type]
                        params=dict(params or {}))
    game = load_game(config0)
    runs: list[PairRun] = []
    pairs = pairings(decks)
    for i, (a, b) in enumerate(pairs):
        if on_pair:
            on_pair(i, len(pairs), a, b)
        s = seed + pair_seed_offset(a, b)
        config = RunConfig(ruleset=ruleset, games=games_per_pairing, seed=s, decks=(a, b),
                           agents=tuple(agents), cards_dir=cards_dir, params=dict(params or {}))  # type: ignore[arg-type]
        pdir = out / "pairs" / pair_name(a, b)
        simulate(config, pdir, game=game, workers=workers, keep_table=False)
        g = ds.dataset(pdir / "games", format="parquet").to_table().sort_by("seed")
        c = ds.dataset(pdir / "cards", format="parquet").to_table() if (pdir / "cards").is_dir() else None
        runs.append(PairRun(a, b, s, g, c))
    return runs


# ---------------------------------------------------------------- statistics


def rate(k: float, n: float) -> float | None:
    return k / n if n else None


def wilson_obj(k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson(int(k), int(n))
    return {"wins": int(k), "games": int(n), "win_rate": rate(k, n),
            "ci": [lo, hi] if n else None}


def diff_ci(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> tuple[float | None, list[float] | None]:
    """p1 - p2 with a normal-approximation interval (None when a side has no games)."""
    if not n1 or not n2:
        return None, None
    p1, p2 = k1 / n1, k2 / n2
    d = p1 - p2
    se = math.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
    return d, [d - z * se, d + z * se]


def bradley_terry(first: np.ndarray, second: np.ndarray, score: np.ndarray, n_teams: int,
                  ridge: float = 1e-3, iters: int = 100) -> tuple[np.ndarray, float]:
    """Bradley-Terry ratings with a first-seat term, by Newton iterations.

    Each observation is one game (or an aggregate with fractional ``score``): the deck that
    played first ``first[k]``, the deck that played second ``second[k]``, and the first deck's
    score (1 win, 0 loss, 0.5 draw). Model: P(first wins) = sigmoid(r[first] - r[second] + h).
    Returns the ratings (natural-log odds scale, centred on 0) and h. A small ridge on the
    ratings keeps a deck that never lost finite.
    """
    first = np.asarray(first, dtype=np.int64)
    second = np.asarray(second, dtype=np.int64)
    y = np.asarray(score, dtype=np.float64)
    m = len(y)
    p = n_teams + 1
    X = np.zeros((m, p))
    X[np.arange(m), first] += 1.0
    X[np.arange(m), second] -= 1.0
    X[:, n_teams] = 1.0
    beta = np.zeros(p)
    reg = np.full(p, ridge)
    reg[n_teams] = 1e-9
    for _ in range(iters):
        eta = X @ beta
        mu = 1.0 / (1.0 + np.exp(-eta))
        w = mu * (1 - mu)
        grad = X.T @ (y - mu) - reg * beta
        hess = (X * w[:, None]).T @ X + np.diag(reg)
        # ratings are only defined up to a constant: pin their sum to 0
        c = np.zeros(p)
        c[:n_teams] = 1.0
        hess += np.outer(c, c)
        step = np.linalg.solve(hess, grad - c * (c @ beta))
        beta += step
        if np.max(np.abs(step)) < 1e-10:
            break
    r = beta[:n_teams] - beta[:n_teams].mean()
    return r, float(beta[n_teams])


def _col(t: pa.Table, name: str) -> np.ndarray:
    return t.column(name).to_numpy(zero_copy_only=False)


def deck_stats(runs: Sequence[PairRun], decks: Sequence[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(``decks`` object, ``matchups`` object) of balance.json."""
    idx = {d: i for i, d in enumerate(decks)}
    D = len(decks)
    # per unordered matchup a vs b, both seat orders: wins of the row deck, draws, games
    wins = np.zeros((D, D), dtype=np.int64)
    games = np.zeros((D, D), dtype=np.int64)
    draws = np.zeros((D, D), dtype=np.int64)
    seat_wins = {}  # ordered pairing -> [seat0 wins, seat1 wins, draws, games]
    first_l, second_l, score_l = [], [], []
    fp_wins = np.zeros(D, dtype=np.int64)  # deck's wins when it played first
    fp_games = np.zeros(D, dtype=np.int64)
    sp_wins = np.zeros(D, dtype=np.int64)  # ... when it played second
    sp_games = np.zeros(D, dtype=np.int64)
    for r in runs:
        ia, ib = idx[r.a], idx[r.b]
        w = _col(r.games, "winner").astype(np.int64)
        fp = _col(r.games, "first_player").astype(np.int64)
        n = len(w)
        w0, w1, dr = int((w == 0).sum()), int((w == 1).sum()), int((w < 0).sum())
        seat_wins[pair_name(r.a, r.b)] = [w0, w1, dr, n]
        wins[ia, ib] += w0
        wins[ib, ia] += w1
        games[ia, ib] += n
        games[ib, ia] += n
        draws[ia, ib] += dr
        draws[ib, ia] += dr
        seat_deck = np.array([ia, ib])
        fdeck, sdeck = seat_deck[fp], seat_deck[1 - fp]
        fscore = np.where(w < 0, 0.5, (w == fp).astype(np.float64))
        first_l.append(fdeck)
        second_l.append(sdeck)
        score_l.append(fscore)
        for seat, d in ((0, ia), (1, ib)):
            went_first = fp == seat
            won = w == seat
            fp_games[d] += int(went_first.sum())
            fp_wins[d] += int((won & went_first).sum())
            sp_games[d] += int((~went_first).sum())
            sp_wins[d] += int((won & ~went_first).sum())

    first = np.concatenate(first_l) if first_l else np.zeros(0, np.int64)
    second = np.concatenate(second_l) if second_l else np.zeros(0, np.int64)
    score = np.concatenate(score_l) if score_l else np.zeros(0)
    ratings, home = bradley_terry(first, second, score, D) if len(score) else (np.zeros(D), 0.0)

    matchups: dict[str, Any] = {}
    for a in decks:
        row = {}
        for b in decks:
            if a == b:
                continue
            ia, ib = idx[a], idx[b]
            if not games[ia, ib]:
                continue
            o = wilson_obj(wins[ia, ib], games[ia, ib])
            o["draws"] = int(draws[ia, ib])
            o["draw_rate"] = rate(draws[ia, ib], games[ia, ib])
            o["as_seat_0"] = _seat_obj(seat_wins.get(pair_name(a, b)), 0)
            o["as_seat_1"] = _seat_obj(seat_wins.get(pair_name(b, a)), 1)
            row[b] = o
        matchups[a] = row

    deck_out: dict[str, Any] = {}
    for d in decks:
        i = idx[d]
        field = wilson_obj(wins[i].sum(), games[i].sum())
        field["draws"] = int(draws[i].sum())
        first_adv, first_ci = diff_ci(fp_wins[i], fp_games[i], sp_wins[i], sp_games[i])
        deck_out[d] = {
            "vs_field": field,
            "bt_rating": float(ratings[i]),
            "first": wilson_obj(fp_wins[i], fp_games[i]),
            "second": wilson_obj(sp_wins[i], sp_games[i]),
            "first_player_advantage": first_adv,
            "first_player_advantage_ci": first_ci,
        }
    decided = score != 0.5
    fpw = int((score[decided] == 1).sum())
    overall = wilson_obj(fpw, int(decided.sum()))
    overall["note"] = "win rate of the player who played first, among decided games"
    bt = {"ratings": {d: float(ratings[idx[d]]) for d in decks}, "first_seat": home,
          "first_seat_win_prob_even": float(1 / (1 + math.exp(-home)))}
    return ({"decks": deck_out, "first_player": overall, "bradley_terry": bt}, matchups)


def _seat_obj(counts: list[int] | None, seat: int) -> dict[str, Any] | None:
    if counts is None:
        return None
    return wilson_obj(counts[seat], counts[3])


def card_stats(runs: Sequence[PairRun], min_games: int = DEFAULT_MIN_GAMES) -> list[dict[str, Any]]:
    """Per card (pooled over decks), over (game, player) pairs that had it in their deck.

    A card is *drawn* in a game when any copy was drawn, *played* when any copy was played.
    Only cards drawn in at least ``min_games`` games are reported, sorted by impact, the
    largest magnitude first among those whose interval excludes 0, then the others.
    """
    tables = []
    for k, r in enumerate(runs):
        if r.cards is None or r.cards.num_rows == 0:
            continue
        c = r.cards
        seeds = _col(r.games, "seed")
        winners = _col(r.games, "winner").astype(np.int64)
        cs = _col(c, "seed")
        pos = np.searchsorted(seeds, cs)
        pos = np.clip(pos, 0, len(seeds) - 1)
        if not np.array_equal(seeds[pos], cs):
            raise RunError(f"pairing {pair_name(r.a, r.b)}: cards table names a seed missing from its games table")
        player = _col(c, "player").astype(np.int64)
        won = (winners[pos] == player).astype(np.int64)
        gid = k * (1 << 40) + (cs - r.seed) * 2 + player  # one id per (pairing, game, player)
        tables.append(pa.table({
            "gid": gid, "card": pc.cast(c.column("card"), pa.string()), "won": won,
            "drawn": c.column("drawn_round"), "played": c.column("played_round"),
        }))
    if not tables:
        return []
    t = pa.concat_tables(tables)
    per = t.group_by(["gid", "card"]).aggregate(
        [("won", "max"), ("drawn", "count"), ("played", "count")])
    card = _col(per, "card").astype(object)
    won = _col(per, "won_max").astype(np.int64)
    drawn = _col(per, "drawn_count") > 0
    played = _col(per, "played_count") > 0
    # average round played, over played copies
    pl = t.filter(pc.is_valid(t.column("played"))).group_by("card").aggregate([("played", "mean")])
    avg_round = dict(zip(pl.column("card").to_pylist(), pl.column("played_mean").to_pylist()))

    names, inv = np.unique(card, return_inverse=True)
    C = len(names)

    def count(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (np.bincount(inv[mask], minlength=C), np.bincount(inv[mask], weights=won[mask], minlength=C).astype(np.int64))

    all_ = np.ones(len(won), bool)
    n_deck, k_deck = count(all_)
    n_dr, k_dr = count(drawn)
    n_pl, k_pl = count(played)
    n_nd, k_nd = count(~drawn)
    out = []
    for i, name in enumerate(names):
        if n_dr[i] < min_games:
            continue
        impact, ci = diff_ci(k_dr[i], n_dr[i], k_nd[i], n_nd[i])
        out.append({
            "card": str(name),
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
            "outlier": bool(ci is not None and (ci[0] > 0 or ci[1] < 0)),
            "play_rate": rate(n_pl[i], n_dr[i]),
            "avg_round_played": avg_round.get(str(name)),
        })
    out.sort(key=lambda c: (not c["outlier"], -abs(c["impact"]) if c["impact"] is not None else 0.0, c["card"]))
    return out


def game_stats(runs: Sequence[PairRun]) -> dict[str, Any]:
    """Ludii-style game measures over every game of the round-robin."""
    if not runs:
        return {}
    w = np.concatenate([_col(r.games, "winner").astype(np.int64) for r in runs])
    fp = np.concatenate([_col(r.games, "first_player").astype(np.int64) for r in runs])
    rounds = np.concatenate([_col(r.games, "rounds").astype(np.float64) for r in runs])
    reasons = np.concatenate([_col(r.games, "end_reason").astype(object) for r in runs])
    n = len(w)
    first_wr = float(((w >= 0) & (w == fp)).sum() / n)
    second_wr = float(((w >= 0) & (w != fp)).sum() / n)
    seat_wr = [float((w == s).sum() / n) for s in (0, 1)]
    names, counts = np.unique(reasons, return_counts=True)
    return {
        "games": int(n),
        "balance": 1.0 - abs(first_wr - second_wr),
        "balance_note": "1 - |first player's win rate - second player's| (turn order, all games)",
        "first_player_win_rate": first_wr,
        "second_player_win_rate": second_wr,
        "seat_win_rates": seat_wr,
        "seat_balance": 1.0 - abs(seat_wr[0] - seat_wr[1]),
        "drawishness": float((w < 0).sum() / n),
        "round_limit_rate": float((reasons == "round_limit").sum() / n),
        "end_reasons": {str(k) if k else "running": int(v) for k, v in zip(names, counts)},
        "rounds_mean": float(rounds.mean()),
        "rounds_sd": float(rounds.std(ddof=1)) if n > 1 else 0.0,
        "rounds_histogram": {str(int(k)): int(v) for k, v in zip(*np.unique(rounds, return_counts=True))},
        "decisiveness": None,
        "decisiveness_note": "not computed: the games table keeps only the final anchor HP, not HP per round",
    }


def analyze(runs: Sequence[PairRun], decks: Sequence[str], min_games: int = DEFAULT_MIN_GAMES,
            meta: dict[str, Any] | None = None) -> dict[str, Any]:
    deck_obj, matchups = deck_stats(runs, decks)
    return {
        "meta": meta or {},
        "decks": deck_obj,
        "matchups": matchups,
        "cards": card_stats(runs, min_games),
        "game": game_stats(runs),
    }


def clean(x: Any) -> Any:
    """JSON-safe: NaN and infinities become null, numpy scalars plain numbers."""
    if isinstance(x, dict):
        return {str(k): clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [clean(v) for v in x]
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        f = float(x)
        return f if math.isfinite(f) else None
    return x


def write_json(result: dict[str, Any], out: Path | str) -> Path:
    path = Path(out) / "balance.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(clean(result), indent=1) + "\n", encoding="utf-8")
    return path


def outliers(cards: list[dict[str, Any]], top: int = 10) -> list[dict[str, Any]]:
    """Cards whose impact interval excludes 0, strongest (largest |impact|) first."""
    return [c for c in cards if c["outlier"]][:top]

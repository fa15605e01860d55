"""``battlesim balance``: a round-robin of decks turned into the numbers a designer acts on.

- ``run_round_robin`` plays every ordered pairing of the decks (both seat orders), N games
  each, through ``battlesim.ecs.runs.runner.simulate`` into ``OUT/pairs/<a>__<b>`` (resumable like any run).
  Pairing ``a__b`` starts at seed ``SEED + pair_seed_offset(a, b)``: a fixed offset per
  pairing, so a pairing's games do not depend on which other decks are in the round-robin.
- ``deck_stats`` / ``card_stats`` (``battlesim.ecs.balance.cards``) / ``game_stats`` compute the deck,
  card and game level measures from the games and cards tables (plain numpy, no pandas),
  ``analyze`` assembles them into the ``balance.json`` object.
- ``measure`` is the whole measure (play or resume, analyze, write ``balance.json`` and
  ``report.html``): ``battlesim balance`` runs it once, ``battlesim sweep`` once per point.

Win rates count a draw as a non-win (the draw rate is reported beside them). Intervals are
95%: Wilson for a proportion, Newcombe's hybrid score interval for a difference of two
independent proportions, estimate +/- 1.96 SE for Bradley-Terry ratings.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from battlesim.ecs.balance.cards import (  # noqa: F401  (part of this module's API)
    EARLY_ROUND,
    FLAG_ALPHA,
    card_stats,
    min_games_hint,
    outliers,
)
from battlesim.ecs.balance.pairs import (  # noqa: F401  (part of this module's API)
    PairRun,
    pair_name,
    pair_seed_offset,
    pairings,
    resolve_deck_list,
    run_round_robin,
)
from battlesim.ecs.balance.stats import (
    Z95,
    mean_ci,
    newcombe_diff,
    paired_rate_diff,
    rate,
    wilson_obj,
)
from battlesim.ecs.runs.rundir import RunDirError, make_out_dir
from battlesim.ecs.runs.runner import Progress, RunError

DEFAULT_GAMES_PER_PAIRING = 200
DEFAULT_MIN_GAMES = 200


# ---------------------------------------------------------------- statistics


class BradleyTerry(NamedTuple):
    """A Bradley-Terry fit: ratings (sum 0) and the first-seat term, each with its standard error."""

    ratings: np.ndarray
    first_seat: float
    ratings_se: np.ndarray
    first_seat_se: float

    def ratings_ci(self, z: float = Z95) -> np.ndarray:
        """(n_teams, 2) 95% intervals: rating +/- z SE."""
        return np.stack([self.ratings - z * self.ratings_se, self.ratings + z * self.ratings_se], axis=1)

    def first_seat_ci(self, z: float = Z95) -> list[float]:
        return [self.first_seat - z * self.first_seat_se, self.first_seat + z * self.first_seat_se]


def bradley_terry(first: np.ndarray, second: np.ndarray, score: np.ndarray, n_teams: int,
                  ridge: float = 1e-3, iters: int = 100) -> BradleyTerry:
    """Bradley-Terry ratings with a first-seat term, by Newton iterations, with standard errors.

    Each observation is one game (or an aggregate with fractional ``score``): the deck that
    played first ``first[k]``, the deck that played second ``second[k]``, and the first deck's
    score (1 win, 0 loss, 0.5 draw). Model: P(first wins) = sigmoid(r[first] - r[second] + h),
    a logistic regression on columns +1 (first deck), -1 (second deck) and 1 (the first seat).

    Ratings are only defined up to a constant, so they are fitted under the constraint
    sum(r) = 0 (natural-log odds, centred on 0). The standard errors are those of that
    constrained maximum-likelihood fit: the inverse Fisher information in the free
    parameters (r_0 .. r_{n-2}, h, with r_{n-1} = -sum of the others), mapped back to every
    rating -- the same numbers as a binomial GLM on the deviation-coded design (checked
    against statsmodels in tests/test_stats.py). A small ridge on the ratings keeps a deck
    that never lost finite (its interval is then wide, not infinite).
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
    c = np.zeros(p)
    c[:n_teams] = 1.0
    for _ in range(iters):
        eta = X @ beta
        mu = 1.0 / (1.0 + np.exp(-eta))
        w = mu * (1 - mu)
        grad = X.T @ (y - mu) - reg * beta
        hess = (X * w[:, None]).T @ X + np.diag(reg)
        # pin the ratings' sum to 0
        step = np.linalg.solve(hess + np.outer(c, c), grad - c * (c @ beta))
        beta += step
        if np.max(np.abs(step)) < 1e-10:
            break
    beta[:n_teams] -= beta[:n_teams].mean()
    mu = 1.0 / (1.0 + np.exp(-(X @ beta)))
    info = (X * (mu * (1 - mu))[:, None]).T @ X + np.diag(reg)
    # free parameters -> all: r_i = f_i (i < n-1), r_{n-1} = -sum(f), h = h
    Z = np.zeros((p, p - 1))
    Z[: n_teams - 1, : n_teams - 1] = np.eye(n_teams - 1)
    Z[n_teams - 1, : n_teams - 1] = -1.0
    Z[n_teams, p - 2] = 1.0
    cov = Z @ np.linalg.inv(Z.T @ info @ Z) @ Z.T
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    return BradleyTerry(beta[:n_teams].copy(), float(beta[n_teams]), se[:n_teams], float(se[n_teams]))


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
    fit = (bradley_terry(first, second, score, D) if len(score)
           else BradleyTerry(np.zeros(D), 0.0, np.full(D, np.nan), math.nan))
    ratings, home, ratings_ci = fit.ratings, fit.first_seat, fit.ratings_ci()

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
        first_adv, first_ci = newcombe_diff(fp_wins[i], fp_games[i], sp_wins[i], sp_games[i])
        deck_out[d] = {
            "vs_field": field,
            "bt_rating": float(ratings[i]),
            "bt_rating_ci": [float(x) for x in ratings_ci[i]] if len(score) else None,
            "first": wilson_obj(fp_wins[i], fp_games[i]),
            "second": wilson_obj(sp_wins[i], sp_games[i]),
            "first_player_advantage": first_adv,
            "first_player_advantage_ci": first_ci,
        }
    decided = score != 0.5
    fpw = int((score[decided] == 1).sum())
    overall = wilson_obj(fpw, int(decided.sum()))
    overall["note"] = "win rate of the player who played first, among decided games"
    bt = {"ratings": {d: float(ratings[idx[d]]) for d in decks},
          "ratings_ci": {d: [float(x) for x in ratings_ci[idx[d]]] if len(score) else None for d in decks},
          "first_seat": home, "first_seat_ci": fit.first_seat_ci() if len(score) else None,
          "first_seat_win_prob_even": float(1 / (1 + math.exp(-home))),
          "note": "log-odds; ratings constrained to sum to 0; intervals are estimate +/- 1.96 SE of that fit"}
    return ({"decks": deck_out, "first_player": overall, "bradley_terry": bt}, matchups)


def _seat_obj(counts: list[int] | None, seat: int) -> dict[str, Any] | None:
    if counts is None:
        return None
    return wilson_obj(counts[seat], counts[3])


SNAPSHOT_COLUMNS = ("objective_hp_r5_0", "objective_hp_r5_1")  # each side's objective HP at the end of round 5


def _nullable(t: pa.Table, name: str) -> np.ndarray:
    """A nullable integer column as float64 with NaN for null."""
    return pc.cast(t.column(name), pa.float64()).to_numpy(zero_copy_only=False)


def decisiveness(winner: np.ndarray, hp0: np.ndarray, hp1: np.ndarray) -> dict[str, Any]:
    """How often the side ahead in objective HP at the end of round 5 wins the game.

    ``hp0``/``hp1``: each side's objective HP then, NaN where the game had ended before. Among
    games with a snapshot and a strict leader, the leader's win rate (a draw is a non-win) with
    its Wilson interval; ties (no leader) are counted and left out. 0.5 means an early lead says
    nothing about the result, 1.0 that the game is decided by round 5.
    """
    winner = np.asarray(winner, dtype=np.int64)
    snap = ~(np.isnan(hp0) | np.isnan(hp1))
    lead = snap & (hp0 != hp1)
    leader = np.where(hp0 > hp1, 0, 1)
    o = wilson_obj(int((lead & (winner == leader)).sum()), int(lead.sum()))
    n = len(winner)
    return {
        "value": o["win_rate"], "ci": o["ci"], "leader_wins": o["wins"], "games_with_leader": o["games"],
        "ties": int((snap & ~lead).sum()), "games_with_snapshot": int(snap.sum()),
        "ended_before": int(n - snap.sum()),
    }


def game_stats(runs: Sequence[PairRun]) -> dict[str, Any]:
    """Ludii-style game measures over every game of the round-robin."""
    if not runs:
        return {}
    w = np.concatenate([_col(r.games, "winner").astype(np.int64) for r in runs])
    fp = np.concatenate([_col(r.games, "first_player").astype(np.int64) for r in runs])
    rounds = np.concatenate([_col(r.games, "rounds").astype(np.float64) for r in runs])
    reasons = np.concatenate([_col(r.games, "end_reason").astype(object) for r in runs])
    n = len(w)
    first_wins = int(((w >= 0) & (w == fp)).sum())
    second_wins = int(((w >= 0) & (w != fp)).sum())
    first_wr, second_wr = first_wins / n, second_wins / n
    seat_wr = [float((w == s).sum() / n) for s in (0, 1)]
    names, counts = np.unique(reasons, return_counts=True)
    adv, adv_ci = paired_rate_diff(first_wins, second_wins, n)
    mean, mean_ci_ = mean_ci(rounds)
    out = {
        "games": int(n),
        "balance": 1.0 - abs(first_wr - second_wr),
        "balance_note": "1 - |first player's win rate - second player's| (turn order, all games)",
        "first_player_win_rate": first_wr,
        "second_player_win_rate": second_wr,
        "first_player_advantage": adv,
        "first_player_advantage_ci": adv_ci,
        "seat_win_rates": seat_wr,
        "seat_balance": 1.0 - abs(seat_wr[0] - seat_wr[1]),
        "drawishness": float((w < 0).sum() / n),
        "drawishness_ci": wilson_obj(int((w < 0).sum()), n)["ci"],
        "round_limit_rate": float((reasons == "round_limit").sum() / n),
        "end_reasons": {str(k) if k else "running": int(v) for k, v in zip(names, counts)},
        "rounds_mean": mean,
        "rounds_mean_ci": mean_ci_,
        "rounds_sd": float(rounds.std(ddof=1)) if n > 1 else 0.0,
        "rounds_histogram": {str(int(k)): int(v) for k, v in zip(*np.unique(rounds, return_counts=True))},
    }
    if all(c in r.games.column_names for r in runs for c in SNAPSHOT_COLUMNS):
        hp = [np.concatenate([_nullable(r.games, c) for r in runs]) for c in SNAPSHOT_COLUMNS]
        d = decisiveness(w, hp[0], hp[1])
        out["decisiveness"] = d["value"]
        out["decisiveness_ci"] = d["ci"]
        out["decisiveness_detail"] = d
        out["decisiveness_note"] = ("win rate of the side ahead in objective HP (anchors + essences) at the end of "
                                    "round 5, among games still running then that had a leader")
    else:
        out["decisiveness"] = None
        out["decisiveness_ci"] = None
        out["decisiveness_note"] = ("not computed: these games tables have no objective_hp_r5 columns "
                                    "(written by an older battlesim, or a ruleset that does not record them)")
    return out


def analyze(runs: Sequence[PairRun], decks: Sequence[str], min_games: int = DEFAULT_MIN_GAMES,
            meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``balance.json`` object of a round-robin's runs."""
    deck_obj, matchups = deck_stats(runs, decks)
    cards = card_stats(runs, min_games)
    meta = {**(meta or {}), "early_round": EARLY_ROUND, "flag_alpha": FLAG_ALPHA}
    if not cards:  # say why, and what would report some
        meta["no_cards"] = min_games_hint(runs, min_games)
    return {
        "meta": meta,
        "decks": deck_obj,
        "matchups": matchups,
        "cards": cards,
        "game": game_stats(runs),
    }


@dataclass(frozen=True)
class BalanceSpec:
    """What one balance measure plays: the options of ``battlesim balance`` (and of each point
    of ``battlesim sweep``) except where it is written and how many processes play it."""

    decks: tuple[str, ...]
    games_per_pairing: int = DEFAULT_GAMES_PER_PAIRING
    ruleset: str = "lanes"
    agents: tuple[str, str] = ("random", "random")
    seed: int = 0
    min_games: int = DEFAULT_MIN_GAMES
    params: dict[str, Any] = field(default_factory=dict)
    cards_dir: str | None = None
    plugins: tuple[str, ...] = ()  # --plugin modules (installed plugins load anyway)
    decks_dir: str | None = None  # --decks-dir: the designer's deck folder

    def meta(self) -> dict[str, Any]:
        return {"ruleset": self.ruleset, "decks": list(self.decks), "games_per_pairing": self.games_per_pairing,
                "agents": list(self.agents), "seed": self.seed, "min_games": self.min_games,
                "params": dict(self.params), "cards_dir": self.cards_dir, "plugins": list(self.plugins),
                "decks_dir": self.decks_dir}


def measure(spec: BalanceSpec, out: Path | str, *, workers: int = 1,
            on_pair: Callable[[int, int, str, str], None] | None = None, report: bool = True,
            warn: Callable[[str], None] | None = None, restart: bool = False,
            progress: Progress | None = None) -> dict[str, Any]:
    """Play (or resume; with ``restart``, start over) the round-robin of ``spec`` into ``out``, write ``balance.json`` and,
    with ``report`` (and matplotlib), ``report.html`` there; returns the JSON-safe result.

    The one entry point of a balance measure: ``battlesim balance`` runs it once, ``battlesim
    sweep`` once per combination of parameters."""
    if spec.min_games < 1:
        raise RunError(f"--min-games must be at least 1 (got {spec.min_games})")
    out = Path(out)
    try:
        make_out_dir(out)
    except RunDirError as e:
        raise RunError(str(e)) from None
    runs = run_round_robin(spec.decks, spec.games_per_pairing, out, ruleset=spec.ruleset, agents=spec.agents,
                           seed=spec.seed, cards_dir=spec.cards_dir, params=spec.params, workers=workers,
                           on_pair=on_pair, plugins=spec.plugins, decks_dir=spec.decks_dir, restart=restart,
                           warn=warn, progress=progress)
    result = clean(analyze(runs, spec.decks, spec.min_games, spec.meta()))
    write_json(result, out)
    if report:
        try:
            from battlesim.ecs.balance.report import write_report
        except ImportError:  # matplotlib missing: balance.json only
            if warn:
                warn("matplotlib is not installed: no report.html (pip install matplotlib)")
        else:
            write_report(result, out)
    return result


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

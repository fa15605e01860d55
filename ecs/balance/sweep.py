"""``battlesim sweep``: the balance measure repeated over a grid of ruleset parameters.

A sweep is the cartesian product of ``--param NAME=V1,V2,...`` axes. Each combination (a
*point*) is one ordinary balance measure (``battlesim.ecs.balance.measure.measure``) in its own directory,
``OUT/<name>=<value>__<name>=<value>``, with its pairings' run directories, ``balance.json`` and
``report.html``; so a sweep resumes like any run, and adding a value to an axis only plays the
new points. Every point plays the same seeds (common random numbers): two points differ only by
their parameters, not by luck of the draw, although each point's intervals are computed alone.

``summarize_point`` picks out of a point's ``balance.json`` what moves with the rules: the
first player's win rate and advantage, game length, draws, decisiveness, and each deck's win
rate against the field, each with its 95% interval.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Sequence

from pydantic import BaseModel, ValidationError

from battlesim.ecs.balance.measure import BalanceSpec, clean, measure
from battlesim.ecs.runs.rundir import RunDirError, make_out_dir
from battlesim.ecs.runs.runner import Progress, RunConfig, RunError, load_game

SWEEP_JSON = "sweep.json"


class SweepError(RunError):
    """A sweep cannot start: a bad ``--param`` axis. ``str()`` is one line naming it."""


@dataclass(frozen=True)
class Axis:
    """One swept parameter and its values, in the order given."""

    name: str
    values: tuple[int | float, ...]


def numeric_params(ruleset: str = "lanes", cards_dir: str | None = None) -> dict[str, Any]:
    """The parameters a sweep can vary, with their default values (``data/rulesets/<ruleset>.toml``):
    the numbers, and the names (grid's ``map``); not the flags."""
    game = load_game(RunConfig(ruleset=ruleset, cards_dir=cards_dir))
    params = getattr(game, "params", None)
    if not isinstance(params, BaseModel):
        raise SweepError(f"ruleset {ruleset!r} has no parameters to sweep")
    return {k: v for k, v in params.model_dump().items()
            if isinstance(v, (int, float, str)) and not isinstance(v, bool)}


def param_bounds(ruleset: str = "lanes") -> dict[str, tuple[Any, Any]]:
    """(lowest, highest) allowed value of each numeric parameter (None: unbounded), for help text."""
    game = load_game(RunConfig(ruleset=ruleset))
    out = {}
    for name, f in type(game.params).model_fields.items():
        lo = hi = None
        for m in f.metadata:
            lo = getattr(m, "ge", lo) if getattr(m, "ge", None) is not None else lo
            hi = getattr(m, "le", hi) if getattr(m, "le", None) is not None else hi
        out[name] = (lo, hi)
    return out


def _number(name: str, text: str, default: Any) -> int | float | str:
    """One value of an axis, of its parameter's kind: a number, or a name for a text parameter."""
    t = text.strip()
    if isinstance(default, str):
        return t
    try:
        return int(t)
    except ValueError:
        pass
    try:
        v = float(t)
    except ValueError:
        raise SweepError(f"--param {name}: {t!r} is not a number") from None
    if isinstance(default, int):
        raise SweepError(f"--param {name}: {t!r} is not a whole number ({name} takes integers)")
    return v


def parse_axes(items: Sequence[str], defaults: dict[str, Any]) -> list[Axis]:
    """``NAME=V1,V2,...`` items into axes. An unknown name, a value that is not a number, a name
    given twice or a value listed twice is a ``SweepError`` naming it."""
    axes: list[Axis] = []
    seen: set[str] = set()
    for item in items:
        name, sep, values = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise SweepError(f"--param takes NAME=V1,V2,... (got {item!r})")
        if name not in defaults:
            raise SweepError(f"unknown parameter {name!r}; valid: {', '.join(defaults)}")
        if name in seen:
            raise SweepError(f"--param {name} is given twice; list all its values in one --param {name}=V1,V2,...")
        seen.add(name)
        parts = [v for v in values.split(",")]
        if not values.strip() or any(not v.strip() for v in parts):
            raise SweepError(f"--param {name}: empty value in {values!r}")
        vals = tuple(_number(name, v, defaults[name]) for v in parts)
        if len(set(vals)) != len(vals):
            raise SweepError(f"--param {name}: a value is listed twice in {values!r}")
        axes.append(Axis(name, vals))
    if not axes:
        raise SweepError("give at least one --param NAME=V1,V2,... to sweep")
    return axes


def split_axes(axes: Sequence[Axis]) -> tuple[list[Axis], dict[str, int | float]]:
    """(swept axes, fixed overrides): an axis of one value fixes that parameter for every point
    rather than adding a dimension; with no axis of two values or more, the first one is swept
    (a sweep of one point)."""
    swept = [a for a in axes if len(a.values) > 1] or list(axes[:1])
    names = {a.name for a in swept}
    return swept, {a.name: a.values[0] for a in axes if a.name not in names}


def check_values(axes: Sequence[Axis], ruleset: str = "lanes") -> None:
    """Each value alone against the parameter's rules (range, type): an error names the
    parameter, the value and the reason, before anything is played."""
    game = load_game(RunConfig(ruleset=ruleset))
    model = type(game.params)
    base = game.params.model_dump()
    for axis in axes:
        for v in axis.values:
            try:
                model.model_validate({**base, axis.name: v})
            except ValidationError as e:
                raise SweepError(f"--param {axis.name}={v}: {e.errors()[0]['msg']}") from None


def points(axes: Sequence[Axis]) -> list[dict[str, int | float]]:
    """Every combination of the axes' values (the first axis varies slowest)."""
    return [dict(zip((a.name for a in axes), combo)) for combo in itertools.product(*(a.values for a in axes))]


def point_name(params: dict[str, Any]) -> str:
    """The point's directory name, e.g. ``anchor_hp=20__creep_attack=1``."""
    return "__".join(f"{k}={v}" for k, v in params.items())


def check_points(spec: BalanceSpec, grid: Sequence[dict[str, Any]]) -> None:
    """Load the ruleset with each point's parameters (cross-parameter rules, deck legality): an
    error names the point."""
    for params in grid:
        try:
            game = load_game(RunConfig(ruleset=spec.ruleset, params={**spec.params, **params},
                                       cards_dir=spec.cards_dir, decks_dir=spec.decks_dir))
            broken = getattr(getattr(game, "cards", None), "broken", {})  # decks these parameters make illegal
            for d in spec.decks:
                if d in broken:
                    raise broken[d]
        except (RunError, ValueError) as e:
            raise SweepError(f"--param {point_name(params)}: {e}") from None


def summarize_point(params: dict[str, Any], name: str, r: dict[str, Any]) -> dict[str, Any]:
    """What moves with the rules, from one point's ``balance.json`` object."""
    g, d = r["game"], r["decks"]
    fp = d["first_player"]
    return {
        "params": dict(params),
        "dir": name,
        "games": g["games"],
        "first_player_win_rate": fp["win_rate"],
        "first_player_win_rate_ci": fp["ci"],
        "first_player_advantage": g["first_player_advantage"],
        "first_player_advantage_ci": g["first_player_advantage_ci"],
        "bt_first_seat": d["bradley_terry"]["first_seat"],
        "rounds_mean": g["rounds_mean"],
        "rounds_mean_ci": g["rounds_mean_ci"],
        "rounds_sd": g["rounds_sd"],
        "drawishness": g["drawishness"],
        "drawishness_ci": g["drawishness_ci"],
        "round_limit_rate": g["round_limit_rate"],
        "decisiveness": g.get("decisiveness"),
        "decisiveness_ci": g.get("decisiveness_ci"),
        "decks": {k: {"win_rate": v["vs_field"]["win_rate"], "ci": v["vs_field"]["ci"], "games": v["vs_field"]["games"],
                      "bt_rating": v["bt_rating"]} for k, v in d["decks"].items()},
        "outliers": [c["card"] for c in r["cards"] if c["outlier"]],
        "cards_reported": len(r["cards"]),
        "no_cards": r["meta"].get("no_cards"),
    }


def run_sweep(spec: BalanceSpec, axes: Sequence[Axis], out: Path | str, *, workers: int = 1,
              on_start: Callable[[list[dict[str, Any]]], None] | None = None,
              on_point: Callable[[int, int, dict[str, Any]], None] | None = None,
              on_pair: Callable[[int, int, str, str], None] | None = None, reports: bool = True,
              warn: Callable[[str], None] | None = None, restart: bool = False,
              progress: Progress | None = None) -> dict[str, Any]:
    """Play (or resume; with ``restart``, start over) every point of the grid and write ``OUT/sweep.json``; returns it.

    ``spec.params`` holds fixed overrides shared by every point; the axes' names must not be
    among them. Every point is checked before anything is played; then ``on_start(grid)``."""
    out = Path(out)
    clash = sorted(set(spec.params) & {a.name for a in axes})
    if clash:
        raise SweepError(f"parameter(s) {clash} both fixed and swept")
    grid = points(axes)
    check_values(axes, spec.ruleset)
    check_points(spec, grid)
    defaults = numeric_params(spec.ruleset, spec.cards_dir)
    try:
        make_out_dir(out)  # a bad --out is refused as itself, before the first point
    except RunDirError as e:
        raise RunError(str(e)) from None
    if on_start:
        on_start(grid)
    rows = []
    for i, params in enumerate(grid):
        if on_point:
            on_point(i, len(grid), params)
        name = point_name(params)
        r = measure(replace(spec, params={**spec.params, **params}), out / name, workers=workers,
                    on_pair=on_pair, report=reports, warn=warn, restart=restart, progress=progress)
        rows.append(summarize_point(params, name, r))
    meta = {**spec.meta(), "axes": {a.name: list(a.values) for a in axes},
            "defaults": {a.name: defaults[a.name] for a in axes}, "points": len(grid)}
    result = clean({"meta": meta, "points": rows})
    out.mkdir(parents=True, exist_ok=True)
    (out / SWEEP_JSON).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return result

"""The ``--json`` state of a classes game (spec §14) and its human-readable print."""

from __future__ import annotations

from typing import Any

from battlesim.systems.classes.board import LANES
from battlesim.systems.classes.conditions import condition_names
from battlesim.systems.classes.rules import Compiled, Rules
from battlesim.systems.classes.scenario_check import Scenario
from battlesim.systems.classes.state import (
    A_CARD,
    A_SHAPE,
    A_TOKENS,
    AREA,
    G_ACTIVE,
    G_DRAW,
    G_TURN,
    G_WINNER,
    NCOL,
    NSHAPES,
    P_CURRENT,
    P_EXP,
    P_LEVEL,
    P_LIFE,
    P_POOL,
    P_PREP,
    P_PREP_MANA,
    P_PREP_TURN,
    P_TRACK,
    POWERS,
    U_BASE_ATTACK,
    U_BASE_HEALTH,
    U_CARD,
    U_CONDITION,
    U_DEFENDING,
    U_ENCH,
    U_HAS_ATTACK,
    U_HEALTH,
    U_KEYWORD,
    U_PRESENT,
    U_RANGE,
    U_SIDE,
    U_UID,
    W_ID,
    W_TOKENS,
    Game,
)
from battlesim.systems.classes.vocabulary import COLOURS, KEYWORDS, SHAPES


def _colours(row: Any, start: int) -> dict[str, int]:
    return {c: int(row[start + k]) for k, c in enumerate(COLOURS)}


def json_state(G: Game, R: Rules, compiled: Compiled, sc: Scenario, names: dict[int, str], b: int) -> dict[str, Any]:
    """Spec §14: ``ruleset, turn, active, winner, draw, players, units``."""
    from battlesim.systems.classes import progress, units

    card_names = compiled.card_names
    players = []
    for s in (0, 1):
        pl = G.pl[b, s]
        prepared = None
        if pl[P_PREP] >= 0:
            prepared = {"card": card_names[pl[P_PREP]], "mana": _colours(pl, P_PREP_MANA), "turn": int(pl[P_PREP_TURN])}
        area = [{"card": card_names[G.area[b, s, k, A_CARD]],
                 "shape": SHAPES[G.area[b, s, k, A_SHAPE]] if G.area[b, s, k, A_SHAPE] >= 0 else None,
                 "tokens": int(G.area[b, s, k, A_TOKENS])} for k in range(AREA) if G.area[b, s, k, A_CARD] >= 0]
        powers = [{"name": compiled.power_names[G.pw[b, s, k, W_ID]], "tokens": int(G.pw[b, s, k, W_TOKENS]),
                   "unlocked": bool(progress.unlocked(G.pw, R.powers, b, s, k))} for k in range(POWERS) if G.pw[b, s, k, W_ID] >= 0]
        players.append({
            "side": s, "class": sc.sides[s].class_name, "life": int(pl[P_LIFE]), "level": int(pl[P_LEVEL]),
            "experience": int(pl[P_EXP]), "pool": _colours(pl, P_POOL),
            "cooldown": [_colours(pl, P_TRACK + slot * NCOL) for slot in range(3)],
            "cooldown_current": int(pl[P_CURRENT]),
            "hand": [card_names[c] for c in G.hand[b, s] if c >= 0],
            "nether": [card_names[c] for c in G.nether[b, s] if c >= 0],
            "prepared": prepared, "play_area": area, "powers": powers,
        })
    out_units = []
    for f in range(G.u.shape[1]):
        u = G.u[b, f]
        if not u[U_PRESENT]:
            continue
        has_attack = bool(u[U_HAS_ATTACK])
        keywords: dict[str, Any] = {}
        for k, (word, (kind, _)) in enumerate(KEYWORDS.items()):
            if u[U_KEYWORD + k]:
                keywords[word] = True if kind == "tag" else int(u[U_KEYWORD + k])
        out_units.append({
            "side": int(u[U_SIDE]), "lane": f % LANES, "row": f // LANES,
            "name": card_names[u[U_CARD]] if u[U_CARD] >= 0 else names.get(int(u[U_UID]), ""),
            "attack": int(units.attack_value(G, R, b, f)) if has_attack else None,
            "health": int(u[U_HEALTH]), "base_attack": int(u[U_BASE_ATTACK]) if has_attack else None,
            "base_health": int(u[U_BASE_HEALTH]), "range": int(u[U_RANGE]), "keywords": keywords,
            "conditions": {c: int(u[U_CONDITION + k]) for k, c in enumerate(condition_names()) if u[U_CONDITION + k]},
            "defending": bool(u[U_DEFENDING]),
            "enchanted": [{"side": p, "shape": SHAPES[x], "tokens": int(u[U_ENCH + p * NSHAPES + x])}
                          for p in (0, 1) for x in range(NSHAPES) if u[U_ENCH + p * NSHAPES + x]],
        })
    winner = int(G.g[b, G_WINNER])
    return {"ruleset": "classes", "turn": int(G.g[b, G_TURN]), "active": int(G.g[b, G_ACTIVE]),
            "winner": None if winner < 0 else winner, "draw": bool(G.g[b, G_DRAW]), "players": players,
            "units": out_units}


def print_state(state: dict[str, Any]) -> None:
    """The human-readable state: the turn line, one row per player, one per unit."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from battlesim.ecs.datafiles import printable

    console = Console(markup=False, emoji=False, highlight=False)
    head = f"turn {state['turn']}   active side {state['active']}"
    if state["winner"] is not None:
        head += f"   winner: side {state['winner']}"
    elif state["draw"]:
        head += "   draw"
    console.print(head)
    t = Table(title="players")
    for col in ("side", "class", "life", "level", "exp", "pool", "cooldown", "hand", "prepared", "play area"):
        t.add_column(col)
    for p in state["players"]:
        pool = " ".join(f"{c} {n}" for c, n in p["pool"].items() if n)
        track = " | ".join(" ".join(f"{c} {n}" for c, n in slot.items() if n) or "-" for slot in p["cooldown"])
        cells = (str(p["side"]), p["class"], str(p["life"]), str(p["level"]), str(p["experience"]), pool,
                 f"{track} (at {p['cooldown_current']})", ", ".join(p["hand"]),
                 p["prepared"]["card"] if p["prepared"] else "", ", ".join(a["card"] for a in p["play_area"]))
        t.add_row(*(Text(printable(c)) for c in cells))
    console.print(t)
    u = Table(title="units")
    for col in ("side", "field", "name", "atk", "hp", "keywords", "conditions", "defending"):
        u.add_column(col)
    for x in state["units"]:
        kws = ", ".join(k if v is True else f"{k} {v}" for k, v in x["keywords"].items())
        conds = ", ".join(f"{k} {v}" for k, v in x["conditions"].items())
        cells = (str(x["side"]), f"{x['lane']},{x['row']}", x["name"], "-" if x["attack"] is None else str(x["attack"]),
                 f"{x['health']}/{x['base_health']}", kws, conds, "yes" if x["defending"] else "")
        u.add_row(*(Text(printable(c)) for c in cells))
    console.print(u)


"""The human-readable state of a grid scenario: the turn line, each player's gold, SE, kill
points and hand, and one row per unit (the printer is per ruleset: ecs/cli/scenario.py)."""

from __future__ import annotations

from typing import Any


def print_state(state: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from battlesim.ecs.datafiles import printable

    console = Console(markup=False, emoji=False, highlight=False)
    head = f"round {state['round']}   turn: side {state['turn']}   active unit {state['active_unit'] or '-'}"
    if state["winner"] is not None:
        head += f"   winner: side {state['winner']}"
    elif state["draw"]:
        head += "   draw"
    console.print(Text(printable(head)))
    console.print(f"gold {state['gold']}   SE {state['se']}   kill points {state['kill_points']}")
    for side in (0, 1):
        console.print(Text(printable(f"side {side}: hand {', '.join(state['hand'][side]) or '-'}; "
                                     f"deck {state['deck_size'][side]}; cemetery "
                                     f"{', '.join(state['cemetery'][side]) or '-'}")))
    t = Table(title="units")
    for col in ("side", "cell", "name", "class", "hp", "mv", "dmg", "rng", "resist p/m/p", "keywords", "statuses",
                "turn"):
        t.add_column(col)
    for u in state["units"]:
        kws = ", ".join(k if v is True else f"{k} {v}" for k, v in u["keywords"].items())
        r = u["resist"]
        turn = (f"{u['mv_left']} MV left" if u["has_turn"] else "-")
        cells = (str(u["side"]), f"{u['x']},{u['y']}", u["name"] + (" (hero)" if u["hero"] else ""), u["class"],
                 f"{u['hp']}/{u['max_hp']}", str(u["mv"]), f"{u['damage']} {u['damage_type']}", str(u["range"]),
                 f"{r['physical']}/{r['magic']}/{r['poison']}", kws, ", ".join(u["statuses"]), turn)
        t.add_row(*(Text(printable(c)) for c in cells))
    console.print(t)

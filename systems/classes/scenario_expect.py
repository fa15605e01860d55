"""Comparing a classes scenario's ``[expect]`` with a state in the spec §14 ``--json`` shape.

Only what ``[expect]`` names counts. Players are matched by ``side``, units by ``lane, row``
(spec §14: "``[[expect.units]]`` matched by ``lane, row``; ``[[expect.players]]`` by ``side``").
TOML has no null, so ``prepared = false`` means none prepared and a unit's ``attack = false``
means no Attack value (ledger G10). Hands and Nethers are compared as multisets (their order is
not a rule); play areas in order (oldest first, the default unleash order); ``keywords``,
``conditions`` and ``enchanted`` exactly (the JSON lists only non-zero ones).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

EXACT = ("keywords", "conditions")


def _null(want: Any) -> Any:
    return None if want is False else want


def _partial(want: dict[str, Any], have: dict[str, Any] | None, path: str) -> list[str]:
    """Every key of ``want`` equal in ``have`` (nested dicts compared the same way)."""
    if have is None:
        return [f"{path}: expected {want!r}, got nothing"]
    out = []
    for k, v in want.items():
        if isinstance(v, dict) and isinstance(have.get(k), dict) and k not in EXACT:
            out += _partial(v, have[k], f"{path}.{k}")
        elif have.get(k) != v:
            out.append(f"{path}.{k}: expected {v!r}, got {have.get(k)!r}")
    return out


def _player(want: dict[str, Any], have: dict[str, Any], path: str) -> list[str]:
    out = []
    for k, v in want.items():
        if k == "side":
            continue
        where = f"{path}.{k}"
        if k in ("hand", "nether"):
            if Counter(v) != Counter(have.get(k, [])):
                out.append(f"{where}: expected {v!r}, got {have.get(k)!r}")
        elif k == "prepared":
            if v is False or have.get(k) is None:
                if _null(v) != have.get(k):
                    out.append(f"{where}: expected {_null(v)!r}, got {have.get(k)!r}")
            else:
                out += _partial(v, have[k], where)
        elif k == "cooldown":
            slots = have.get(k) or []
            out += [m for i, slot in enumerate(v) for m in _partial(slot, slots[i] if i < len(slots) else None,
                                                                   f"{where}[{i}]")]
        elif k == "play_area":
            area = have.get(k) or []
            if len(area) != len(v):
                out.append(f"{where}: expected {len(v)} cards, got {[a.get('card') for a in area]}")
            else:
                out += [m for i, item in enumerate(v) for m in _partial(item, area[i], f"{where}[{i}]")]
        elif k == "powers":
            by_name = {p["name"]: p for p in have.get(k) or []}
            out += [m for p in v for m in _partial(p, by_name.get(p["name"]), f"{where}[{p['name']!r}]")]
        elif isinstance(v, dict):
            out += _partial(v, have.get(k), where)
        elif have.get(k) != v:
            out.append(f"{where}: expected {v!r}, got {have.get(k)!r}")
    return out


def _token_key(token: dict[str, Any]) -> tuple:
    return token["side"], token["shape"]


def _unit(want: dict[str, Any], have: dict[str, Any], path: str) -> list[str]:
    out = []
    for k, v in want.items():
        if k in ("lane", "row", "absent"):
            continue
        if k == "enchanted":
            if sorted(v, key=_token_key) != sorted(have.get(k) or [], key=_token_key):
                out.append(f"{path}.{k}: expected {v!r}, got {have.get(k)!r}")
        elif k in EXACT:
            if v != (have.get(k) or {}):
                out.append(f"{path}.{k}: expected {v!r}, got {have.get(k)!r}")
        else:
            want = _null(v) if k == "attack" else v  # only `attack = false` spells null (G10)
            if have.get(k) != want:
                out.append(f"{path}.{k}: expected {want!r}, got {have.get(k)!r}")
    return out


def compare(expect: dict[str, Any], state: dict[str, Any]) -> list[str]:
    """One line per difference between ``expect`` (the ``[expect]`` table as written) and
    ``state`` (the ``--json`` object); empty when they agree."""
    out = []
    for key, want in expect.items():
        if key == "players":
            for p in want:
                out += _player(p, state["players"][p["side"]], f"players[{p['side']}]")
        elif key == "units":
            have = {(u["lane"], u["row"]): u for u in state["units"]}
            for u in want:
                field = (u["lane"], u["row"])
                where = f"units[{u['lane']}, {u['row']}]"
                if u.get("absent"):
                    if field in have:
                        out.append(f"{where}: expected empty, found {have[field]['name']!r}")
                elif field not in have:
                    out.append(f"{where}: expected a unit, found none")
                else:
                    out += _unit(u, have[field], where)
        elif key == "units_count":
            if len(state["units"]) != want:
                out.append(f"units_count: expected {want}, got {len(state['units'])}")
        elif state.get(key) != want:
            out.append(f"{key}: expected {want!r}, got {state.get(key)!r}")
    return out

"""``battlesim scenario`` for hex files (spec §8): set up the World from the parsed scenario,
run its steps through the engine's own functions (``actions.Battle``), print the ``--json``
object, compare ``[expect]``.

A unit step is taken by the unit's controller as if it were that player's turn; a step the
mask refuses stops the scenario with one line ``FILE: steps[i] (do): not legal: ...``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from battlesim.ecs.datafiles import DataError
from battlesim.systems.hex.actions import Battle, Illegal
from battlesim.systems.hex.battle import prop
from battlesim.systems.hex.board import coords, hex_id
from battlesim.systems.hex.damage_stages import ATTACK, COMBAT, NONLETHAL, RANGED
from battlesim.systems.hex.scenario_spec import HexScenario, load_hex_scenario
from battlesim.systems.hex.setup import Templates, playable, write_ability
from battlesim.systems.hex.state import (
    ABILITIES,
    ACTIONS,
    ALL,
    CENTRE_SHIELD,
    COLUMNS,
    CONTROLLER,
    EFFECT_OPS,
    FIRST_PLAYER,
    FIRST_TAG,
    HEALTH,
    HERO,
    LAST_ACTOR,
    M_AMOUNT,
    M_BY,
    M_KEYWORD,
    M_SET,
    M_SLOT,
    M_STAT,
    M_UNTIL,
    MANA,
    MAX_HEALTH,
    MAX_MANA,
    MOD_STATS,
    MOVEMENT,
    NULL,
    OPENER,
    PERMANENT,
    POS,
    POWER,
    RANGE,
    ROUND,
    SIDE,
    TO_ACT,
    UNDEAD,
    WINNER,
    kw,
    modifier_on,
    new_world,
    st,
)
from battlesim.systems.hex.turn import early_end, sync_modifiers
from battlesim.systems.hex.vocabulary import DAMAGE_TYPES, KEYWORDS, STATUSES

U = 16
B = 0  # a scenario is one game


@lru_cache(maxsize=1)
def _cards():
    from battlesim.systems.hex.cards import load_cards

    return load_cards()


class NotBuilt(ValueError):
    """A step the engine does not play yet (said in one line, never silently skipped)."""


class HexScenarioRun:
    """One scenario file, set up and ready to ``run``; ``check`` compares with ``[expect]``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.spec: HexScenario = load_hex_scenario(path)
        self.names: dict[int, str] = {}
        self.abilities: dict[int, list[str]] = {}
        self.summons: dict[int, str] = {}  # template slot -> summoned card name
        self.battle = self._setup()

    # -- setup -------------------------------------------------------------------------------
    def _setup(self) -> Battle:
        sp = self.spec
        w = new_world(1, seeds=np.array([sp.seed]))
        battle = Battle(w)
        g = battle.f.g
        g[B, ROUND] = sp.round
        g[B, FIRST_PLAYER] = sp.first_player
        g[B, OPENER] = sp.first_player
        g[B, TO_ACT] = sp.to_act
        g[B, LAST_ACTOR] = -1 if sp.last_actor is None else sp.last_actor
        g[B, CENTRE_SHIELD] = int(sp.centre_shield)
        used = [0, 0]
        nmod = 0
        placed = []
        for side in (0, 1):
            n = sum(1 for u in sp.units if u.side == side)
            if n > U:
                raise DataError(f"{self.path}: units: side {side} has {n} units; a side holds at most {U} "
                                "(spec §6: hero + units + summons)")
        for u in sp.units:
            s = u.side * U + used[u.side]
            used[u.side] += 1
            self.names[s] = u.name
            w.alive[B, s] = True
            battle.stand(B, s, hex_id(u.col, u.row))
            for k, v in ((SIDE, u.side), (CONTROLLER, u.controller),
                         (HEALTH, u.health), (MAX_HEALTH, u.max_health), (ACTIONS, u.actions),
                         (POWER, NULL if u.power is None else u.power), (RANGE, NULL if u.range is None else u.range),
                         (MOVEMENT, NULL if u.movement is None else u.movement),
                         (MANA, NULL if u.mana is None else u.mana),
                         (MAX_MANA, NULL if u.max_mana is None else u.max_mana)):
                battle.put(k, B, s, int(v))
            battle.st.flags[battle.cols[HERO], B, s] = u.hero
            battle.st.flags[battle.cols[UNDEAD], B, s] = "undead" in u.types
            for name, value in u.keywords.items():
                k = kw(name)
                if k >= FIRST_TAG:
                    battle.st.flags[battle.cols[k], B, s] = bool(value)
                else:
                    battle.put(k, B, s, ALL if value is True else int(value))
            for name, value in u.statuses.items():
                battle.put(st(name), B, s, int(value))
            for m in u.modifiers:
                row = battle.f.mods[B, nmod]
                modifier_on(battle.f.g, B, s, nmod)
                nmod += 1
                row[:] = -1
                row[M_SLOT] = s
                row[M_BY] = m.by
                row[M_UNTIL] = PERMANENT if m.rounds is None else sp.round + m.rounds - 1
                if m.stat is not None:
                    row[M_STAT] = MOD_STATS.index(m.stat)
                    if m.set is not None:
                        row[M_SET] = m.set
                    else:
                        row[M_AMOUNT] = m.amount or 0
                else:
                    row[M_KEYWORD] = kw(m.keyword)
                    row[M_AMOUNT] = 1 if m.amount is None else m.amount
            self.abilities[s] = [a.name for a in u.abilities]
            placed.append((s, u))
        templates = {}
        for s, u in placed:
            for k, a in enumerate(u.abilities[:ABILITIES]):
                effects = playable(a)
                for eff in a.effects:
                    if eff not in effects:
                        what = f"op {eff.op!r}" + (f" to {eff.to!r}" if eff.op == "relocate" else "")
                        raise DataError(f"{self.path}: units {u.name!r}: ability {a.name!r}: {what} is not played "
                                        f"by the engine yet (ops {', '.join(EFFECT_OPS)}; relocate to the target hex)")
                if u.side not in templates:  # summons: the card set's summon cards (I-45)
                    templates[u.side] = Templates(battle, B, u.side, _cards(), used[u.side])
                try:
                    write_ability(battle.f.abil[B, s, k], a, effects, templates[u.side])
                except StopIteration:
                    raise DataError(f"{self.path}: units {u.name!r}: ability {a.name!r}: no summon card of that "
                                    "name in data/cards/hex") from None
        for side, t in templates.items():
            for name, slot in t.slot.items():
                self.summons[slot] = name
        sync_modifiers(battle.st, battle.cols, battle.f, B)
        early_end(battle.st, battle.cols, battle.f, B)
        return battle

    # -- steps -------------------------------------------------------------------------------
    def _unit(self, c: list[int], what: str) -> int:
        occ = self.battle.occupied(B)
        s = int(occ[hex_id(*c)])
        if s < 0:
            raise Illegal(f"no unit on {what} {c}")
        return s

    def run(self) -> dict[str, Any]:
        """Play every step; the resulting state as the ``--json`` object."""
        for i, step in enumerate(self.spec.steps):
            try:
                self._step(step)
            except Illegal as e:
                raise DataError(f"{self.path}: steps[{i}] ({step.do}): not legal: {e}") from None
            except NotBuilt as e:
                raise DataError(f"{self.path}: steps[{i}] ({step.do}): {e}") from None
        return self.state()

    def _step(self, step: Any) -> None:
        bt = self.battle
        g = bt.f.g
        do = step.do
        if do in ("move", "attack", "ability", "skip"):
            if g[B, WINNER] >= 0:
                raise Illegal("the game is over")
            s = self._unit(step.unit, "unit")
            if bt.i(ACTIONS, B, s) <= 0:
                raise Illegal(f"the unit on {step.unit} is exhausted")
            g[B, TO_ACT] = bt.i(CONTROLLER, B, s)
            if do == "move":
                bt.move(B, s, hex_id(*step.to), None if step.path is None else [hex_id(*c) for c in step.path])
            elif do == "skip":
                bt.skip(B, s)
            elif do == "attack":
                bt.attack(B, s, hex_id(*step.target), None if step.approach is None else hex_id(*step.approach),
                          None if step.path is None else [hex_id(*c) for c in step.path],
                          None if step.retreat is None else hex_id(*step.retreat))
            else:
                names = self.abilities.get(s, [])
                if step.ability not in names:
                    raise Illegal(f"the unit on {step.unit} has no ability {step.ability!r}")
                target = step.target if step.target is not None else step.unit
                bt.ability(B, s, names.index(step.ability), hex_id(*target),
                           None if step.move_to is None else hex_id(*step.move_to), step.move_first is not False)
        elif do == "damage":
            t = self._unit(step.target, "target")
            source = -1 if step.source is None else self._unit(step.source, "source")
            kind = [1, 2, 4][DAMAGE_TYPES.index(step.type)]
            if step.nonlethal:
                kind |= NONLETHAL
            if step.ranged:
                kind |= RANGED | ATTACK
            if step.combat:
                kind |= COMBAT
            bt.deal(B, source, t, step.amount, kind)
        elif do == "heal":
            bt.heal(B, self._unit(step.target, "target"), step.amount)
        elif do in ("push", "pull"):
            s = self._unit(step.unit, "unit")
            src = hex_id(*(step.source if do == "push" else step.toward))
            bt.displace(B, s, src, step.amount, do == "pull",
                        None if step.path is None else [hex_id(*c) for c in step.path])
        elif do == "round_start":
            bt.round_start(B)
        elif do == "round_end":
            bt.round_end(B)

    # -- output ------------------------------------------------------------------------------
    def _summoned(self, s: int) -> str:
        """A summoned unit's card name: the template with its printed stats (I-45)."""
        bt = self.battle
        for slot, name in self.summons.items():
            if all(bt.i(c, B, s) == bt.i(c, B, slot) for c in (MAX_HEALTH, POWER, RANGE, MOVEMENT, MAX_MANA)):
                return name
        return ""

    def state(self) -> dict[str, Any]:
        """Spec §8 ``--json``: round, winner, first_player, to_act, last_actor, centre_shield, units."""
        bt = self.battle
        g = bt.f.g
        units = []
        for s in range(bt.w.n_slots):
            if not bt.alive(B, s):
                continue
            col, row = coords(bt.i(POS, B, s))

            def null(v: int) -> int | None:
                return None if v == NULL else v

            keywords: dict[str, Any] = {}
            broken = bt.i(st("broken"), B, s) > 0
            for name in KEYWORDS:
                c = kw(name)
                if broken:
                    continue
                if c >= FIRST_TAG:
                    if bt.st.flags[bt.cols[c], B, s]:
                        keywords[name] = True
                else:
                    v = bt.i(c, B, s)
                    if v:
                        keywords[name] = True if v == ALL else v
            for m in range(bt.f.mods.shape[1]):
                if bt.f.mods[B, m, M_SLOT] == s and bt.f.mods[B, m, M_KEYWORD] >= 0:
                    c = int(bt.f.mods[B, m, M_KEYWORD])
                    name = COLUMNS[c][len("hex_"):]
                    keywords[name] = True if c >= FIRST_TAG else int(bt.f.mods[B, m, M_AMOUNT])
            statuses = {n: bt.i(st(n), B, s) for n in STATUSES if bt.i(st(n), B, s) > 0}
            units.append({
                "side": bt.i(SIDE, B, s), "controller": bt.i(CONTROLLER, B, s), "col": col, "row": row,
                "name": self.names.get(s) or self._summoned(s), "hero": bool(bt.st.flags[bt.cols[HERO], B, s]),
                "types": ["undead"] if bt.st.flags[bt.cols[UNDEAD], B, s] else [],
                "power": null(int(prop(bt.st, bt.cols, bt.f, B, s, 0))),
                "range": null(int(prop(bt.st, bt.cols, bt.f, B, s, 1))),
                "movement": null(int(prop(bt.st, bt.cols, bt.f, B, s, 2))),
                "health": max(bt.i(HEALTH, B, s), 0), "max_health": bt.i(MAX_HEALTH, B, s),
                "mana": null(bt.i(MANA, B, s)), "max_mana": null(bt.i(MAX_MANA, B, s)),
                "keywords": keywords, "statuses": statuses,
                "exhausted": bt.i(ACTIONS, B, s) == 0, "actions": bt.i(ACTIONS, B, s),
            })
        units.sort(key=lambda u: (u["col"], u["row"]))

        def opt(v: int) -> int | None:
            return None if v < 0 else int(v)

        return {"round": int(g[B, ROUND]), "winner": opt(g[B, WINNER]), "first_player": int(g[B, FIRST_PLAYER]),
                "to_act": opt(g[B, TO_ACT]), "last_actor": opt(g[B, LAST_ACTOR]),
                "centre_shield": bool(g[B, CENTRE_SHIELD]), "units": units}

    def check(self, state: dict[str, Any]) -> list[str]:
        """``[expect]`` against the state: top-level fields, ``units_count``, units by ``col, row``."""
        exp = self.spec.expect
        if exp is None:
            return []
        diffs = []
        for key in ("round", "winner", "first_player", "to_act", "last_actor", "centre_shield"):
            want = getattr(exp, key)
            if key in exp.model_fields_set and want != state[key]:
                diffs.append(f"{key}: expected {want}, got {state[key]}")
        if exp.units_count is not None and exp.units_count != len(state["units"]):
            diffs.append(f"units_count: expected {exp.units_count}, got {len(state['units'])}")
        at = {(u["col"], u["row"]): u for u in state["units"]}
        for e in exp.units or []:
            got = at.get((e.col, e.row))
            if e.absent:
                if got is not None:
                    diffs.append(f"({e.col}, {e.row}): expected empty, got {got['name']}")
                continue
            if got is None:
                diffs.append(f"({e.col}, {e.row}): expected a unit, the hex is empty")
                continue
            for key in e.model_fields_set - {"col", "row", "absent"}:
                want = getattr(e, key)
                if key == "types":
                    want = [t.lstrip("#") for t in want]
                if want != got[key]:
                    diffs.append(f"({e.col}, {e.row}) {key}: expected {want}, got {got[key]}")
        return diffs

    def print_state(self, state: dict[str, Any]) -> None:
        print_state(state)


def run_file(path: Path) -> HexScenarioRun:
    return HexScenarioRun(Path(path))



def print_state(state: dict[str, Any]) -> None:
    """The human-readable state: the round line and one row per unit (spec §7: the printer is per ruleset)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from battlesim.ecs.datafiles import printable

    console = Console(markup=False, emoji=False, highlight=False)
    head = (f"round {state['round']}   first player {state['first_player']}   to act {state['to_act']}   "
            f"centre shield {'yes' if state['centre_shield'] else 'no'}")
    if state["winner"] is not None:
        head += f"   winner: side {state['winner']}"
    console.print(head)
    t = Table(title="units")
    for col in ("side", "hex", "name", "pow", "rng", "mov", "hp", "mana", "keywords", "statuses", "actions"):
        t.add_column(col)
    for u in state["units"]:
        kws = ", ".join(k if v is True else f"{k} {v}" for k, v in u["keywords"].items())
        sts = ", ".join(f"{k} {v}" for k, v in u["statuses"].items())
        mana = "-" if u["mana"] is None else f"{u['mana']}/{u['max_mana']}"
        cells = (str(u["side"]), f"{u['col']},{u['row']}", u["name"] + (" (hero)" if u["hero"] else ""),
                 *("-" if u[k] is None else str(u[k]) for k in ("power", "range", "movement")),
                 f"{u['health']}/{u['max_health']}", mana, kws, sts, str(u["actions"]))
        t.add_row(*(Text(printable(c)) for c in cells))
    console.print(t)

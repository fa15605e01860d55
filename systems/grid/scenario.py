"""``battlesim scenario`` for grid files (spec §5): set up one game from the checked plan
(``scenario_check.py``), run each step as actions of the action table through the compiled legal
mask and ``apply_action`` (the same functions a game runs), print the ``--json`` object, compare
``[expect]``.

A step the mask refuses stops the scenario with one line ``FILE: steps[i] (do): not legal: ...``
(spec §5). A step naming a unit that is not the active one starts that unit's turn first (spec
§5 ``move``: "starts its turn if needed"), itself a legal action or the step is not legal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from battlesim.data import data_dir
from battlesim.systems.grid.action_table import (
    ATTACK,
    END_UNIT,
    HIDE,
    MOVE,
    PASS,
    PLAY,
    SELECT,
    USE,
    encode,
    table_size,
)
from battlesim.systems.grid.apply import apply_action
from battlesim.systems.grid.cards import CardSpec, load_cards
from battlesim.systems.grid.keywords import plugin_only
from battlesim.systems.grid.occupancy import occupancy_into
from battlesim.systems.grid.params import GridParams, load_params
from battlesim.systems.grid.rules import (
    eff_damage,
    eff_dtype,
    eff_mv,
    eff_range,
    eff_resist,
    flies,
    hides,
    legal_mask,
    parry_of,
)
from battlesim.systems.grid.scenario_check import ScenarioPlan, load_scenario_plan
from battlesim.systems.grid.scenario_error import ScenarioError
from battlesim.systems.grid.scenario_spec import step_label
from battlesim.systems.grid.state import (
    A_CARD,
    ACTIVE,
    ACTIVE_TURN,
    CEM_N,
    DECK_N,
    DRAW,
    FIRST,
    GAME_OVER,
    GOLD,
    HAND_N,
    KPTS,
    OVER,
    READY,
    ROUND,
    SE,
    TURN,
    WINNER,
    K,
    ability_row,
    board_tables,
    card_tables,
    columns,
    fields,
    kernel_world,
    new_world,
    param_table,
    view_of,
)
from battlesim.systems.grid.vocabulary import CLASS_NAMES, DAMAGE_TYPES
from battlesim.systems.grid.work import forget_move_costs, new_work

B = 0  # a scenario is one game


class Illegal(ValueError):
    """A step the rules refuse (its message follows ``not legal: ``)."""


class GridScenarioRun:
    """One grid scenario file, set up and ready to ``run``; ``check`` compares with ``[expect]``."""

    def __init__(self, path: Path, params: GridParams | None = None, cards: dict[str, CardSpec] | None = None) -> None:
        self.path = Path(path)
        self.params = params or load_params()
        if cards is None:
            cards, _ = load_cards(data_dir() / "cards" / "grid")
        self.plan: ScenarioPlan = load_scenario_plan(self.path, self.params, cards)
        self._setup()

    # -- setup ---------------------------------------------------------------------------------------
    def _setup(self) -> None:
        plan, sp, params = self.plan, self.plan.spec, self.params
        board = plan.board
        self.names = sorted(plan.cards)
        self.card_id = {n: i for i, n in enumerate(self.names)}
        self.ct = card_tables(self.names, plan.cards)
        self.bd = board_tables(board, params)
        self.pr = param_table(params, board.width, board.height)
        self.cells = board.cells
        self.w = new_world(1, board.cells, params.hand_limit, np.array([sp.seed]))
        view = view_of(self.w)
        self.cols, self.ws = columns(view), kernel_world(view)
        self.f = fields(self.w)
        self.mask = np.zeros(table_size(board.cells, K, params.hand_limit), dtype=np.bool_)
        self.work = new_work(board.cells)
        g = self.f.g
        g[B, ROUND], g[B, TURN], g[B, FIRST] = sp.round, sp.turn, 0
        p = sp.players
        for side in (0, 1):
            g[B, GOLD + side] = p.gold[side]
            g[B, SE + side] = plan.se[side]
            g[B, KPTS + side] = p.kill_points[side]
            for key, arr, n in (("hand", self.f.hand, HAND_N), ("deck", self.f.deck, DECK_N)):
                pile = getattr(p, key)[side]
                if len(pile) > arr.shape[2]:
                    raise ScenarioError(f"{self.path}: players.{key}[{side}]: {len(pile)} cards, at most {arr.shape[2]}")
                arr[B, side, :len(pile)] = [self.card_id[c] for c in pile]
                g[B, n + side] = len(pile)
        if len(plan.units) > self.w.n_slots:
            raise ScenarioError(f"{self.path}: units: {len(plan.units)} units, a game holds at most {self.w.n_slots}")
        self.slot_names: dict[int, str] = {}
        self.slot_abilities: dict[int, list[str]] = {}
        self.slot_plugin_kw: dict[int, dict[str, Any]] = {}  # plugin keywords (keywords.py: stats, no column)
        c = self.w.c
        for s, u in enumerate(plan.units):
            self.w.alive[B, s] = True
            self.slot_names[s] = u.name
            self.slot_abilities[s] = [a.name for a in u.abilities]
            self.slot_plugin_kw[s] = plugin_only(u.keywords)
            for name, v in (("cell", board.cell(u.x, u.y)), ("card", self.card_id[u.card] if u.card else -1),
                            ("hp", u.hp), ("max_hp", u.max_hp), ("damage", u.damage), ("resist_physical", u.resist[0]),
                            ("resist_magic", u.resist[1]), ("resist_poison", u.resist[2]), ("item", -1),
                            ("side", u.side), ("class", CLASS_NAMES.index(u.cls)), ("mv", u.mv),
                            ("damage_type", DAMAGE_TYPES.index(u.damage_type)), ("range", u.range),
                            ("kill_points", u.kill_points), ("parry", int(u.keywords.get("parry", 0))), ("parried", 0),
                            ("flying", bool(u.keywords.get("flying"))), ("hiding", bool(u.keywords.get("hiding"))),
                            ("hidden", bool(u.statuses.get("hidden"))), ("invisible", bool(u.statuses.get("invisible"))),
                            ("stunned", bool(u.statuses.get("stunned"))), ("hero", u.hero)):
                getattr(c, f"grid_{name}")[B, s] = v
            for k, a in enumerate(u.abilities[:K]):
                row = ability_row(a)
                if a.card is not None:
                    row[A_CARD] = self.card_id[a.card]
                self.f.abil[B, s, k] = row
            # spec §5: the current player's units have their turn ready with full MV, except stunned
            # and turn_over ones
            ready = u.side == sp.turn and not u.statuses.get("stunned") and not u.turn_over
            c.grid_turn_state[B, s] = READY if ready else OVER
            c.grid_mv_left[B, s] = self._eff(eff_mv, s) if ready else 0
        # the units were set down here, not moved by the game: its occupancy map is built from them
        occupancy_into(self.ws, self.cols, B, self.f.occ[B], self.f.who[B])
        forget_move_costs(self.work)  # and no move costs are known for it

    def _eff(self, fn, s: int, *args: int) -> int:
        return int(fn(self.ws, self.cols, self.ct, B, s, *args))

    # -- steps ---------------------------------------------------------------------------------------
    def _slot(self, name: str) -> int:
        for s, n in self.slot_names.items():
            if n == name and self.w.alive[B, s]:
                return s
        raise Illegal(f"no unit named {name!r} on the board")

    def _cell_of(self, s: int) -> int:
        return int(self.w.c.grid_cell[B, s])

    def _xy(self, c: int) -> list[int]:
        return [c % self.plan.board.width, c // self.plan.board.width]

    def _legal(self, a: int) -> bool:
        legal_mask(self.ws, self.cols, self.f, self.bd, self.ct, self.pr, B, self.work, self.mask)
        return bool(self.mask[a])

    def _do(self, a: int, what: str) -> None:
        if not self._legal(a):
            raise Illegal(what)
        before = self.w.alive[B].copy()
        apply_action(self.ws, self.cols, self.f, self.bd, self.ct, self.pr, B, self.work, a)
        for s in np.flatnonzero(self.w.alive[B] & ~before):  # a hired unit is named by its card (spec §5)
            card = self.names[int(self.w.c.grid_card[B, s])]
            self.slot_names[int(s)] = card
            self.slot_abilities[int(s)] = [x.name for x in self.plan.cards[card].abilities]
            self.slot_plugin_kw[int(s)] = plugin_only(self.plan.cards[card].keywords)

    def _enc(self, kind: int, c: int = 0, k: int = -1) -> int:
        return int(encode(kind, k, c, self.cells, K))

    def _activate(self, name: str) -> int:
        """The unit's slot, its turn started if it is not the active unit (ends the active one's)."""
        s = self._slot(name)
        if int(self.f.g[B, ACTIVE]) != s:
            if int(self.w.c.grid_side[B, s]) != int(self.f.g[B, TURN]):
                raise Illegal(f"{name!r} is not the current player's (side {int(self.f.g[B, TURN])}) unit")
            if int(self.w.c.grid_turn_state[B, s]) != READY:
                raise Illegal(f"{name!r} has no turn left")
            self._do(self._enc(SELECT, self._cell_of(s)), f"{name!r} cannot start its turn")
        return s

    def _aim(self, step: Any, default: int) -> int:
        if step.target is not None:
            return self._cell_of(self._slot(step.target))
        if step.cell is not None:
            return self.plan.board.cell(*step.cell)
        return default

    def run(self) -> dict[str, Any]:
        """Play every step; the resulting state as the ``--json`` object."""
        for i, step in enumerate(self.plan.spec.steps):
            try:
                if self.f.g[B, GAME_OVER]:
                    raise Illegal("the game is already over")
                self._step(step)
            except Illegal as e:
                raise ScenarioError(f"{self.path}: {step_label(i, step.do)}: not legal: {e}") from None
        return self.state()

    def _step(self, step: Any) -> None:
        do = step.do
        if do == "end_turn":
            self._do(PASS, "end the turn")
        elif do == "end_unit_turn":
            self._do(END_UNIT, "no unit's turn is going on")
        elif do == "start_unit_turn":
            self._activate(step.unit)
        elif do == "move":
            s = self._activate(step.unit)
            self._do(self._enc(MOVE, self.plan.board.cell(*step.to)), f"{step.unit!r} cannot move to {step.to}")
        elif do == "hide":
            self._activate(step.unit)
            self._do(self._enc(HIDE), f"{step.unit!r} cannot hide now")
        elif do in ("attack", "ability"):
            s = self._activate(step.unit)
            c = self._aim(step, self._cell_of(s))
            where = self._xy(c)
            if step.ability is None:
                self._do(self._enc(ATTACK, c), f"{step.unit!r} cannot attack {where}")
            else:
                names = self.slot_abilities.get(s, [])
                if step.ability not in names:
                    raise Illegal(f"{step.unit!r} has no ability {step.ability!r}")
                self._do(self._enc(USE, c, names.index(step.ability)),
                         f"{step.unit!r} cannot use {step.ability!r} on {where}")
        elif do in ("hire", "play"):
            side = int(self.f.g[B, TURN])
            if step.side is not None and step.side != side:
                raise Illegal(f"it is side {side}'s turn, not side {step.side}'s")
            if step.unit is None:
                caster = int(self.f.g[B, ACTIVE])
            elif do == "play" and self.plan.cards[step.card].type == "spell":
                caster = self._activate(step.unit)  # spec §3: the active own unit casts a spell
            else:
                caster = self._slot(step.unit)  # an item's holder: putting it on is not the unit's turn
            card = self.card_id[step.card]
            hand = [int(x) for x in self.f.hand[B, side, :int(self.f.g[B, HAND_N + side])]]
            if card not in hand:
                raise Illegal(f"{step.card!r} is not in side {side}'s hand")
            if do == "hire":
                c = self.plan.board.cell(*step.at)
            else:
                c = self._aim(step, self._cell_of(caster) if caster >= 0 else -1)
                if c < 0:
                    raise Illegal(f"{step.card!r} needs a target, a cell or a casting unit")
            self._do(self._enc(PLAY, c, hand.index(card)), f"{step.card!r} cannot be played on {self._xy(c)}")

    # -- output --------------------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """Spec §5 ``--json``."""
        g, f, c, w = self.f.g, self.f, self.w.c, self.w
        board = self.plan.board
        turn = int(g[B, TURN])
        over = bool(g[B, GAME_OVER])
        units = []
        for s in range(w.n_slots):
            if not w.alive[B, s]:
                continue
            cell = int(c.grid_cell[B, s])
            has_turn = (not over and int(c.grid_side[B, s]) == turn
                        and int(c.grid_turn_state[B, s]) in (READY, ACTIVE_TURN))
            keywords: dict[str, Any] = dict(self.slot_plugin_kw.get(s, {}))
            if flies(self.ws, self.cols, self.ct, B, s):
                keywords["flying"] = True
            if hides(self.ws, self.cols, self.ct, B, s):
                keywords["hiding"] = True
            if self._eff(parry_of, s):
                keywords["parry"] = self._eff(parry_of, s)
            card = int(c.grid_card[B, s])
            units.append({
                "side": int(c.grid_side[B, s]), "x": cell % board.width, "y": cell // board.width,
                "name": self.slot_names.get(s, ""), "card": self.names[card] if card >= 0 else None,
                "class": CLASS_NAMES[int(c.grid_class[B, s])], "hero": bool(c.grid_hero[B, s]),
                "hp": int(c.grid_hp[B, s]), "max_hp": int(c.grid_max_hp[B, s]), "mv": self._eff(eff_mv, s),
                "mv_left": int(c.grid_mv_left[B, s]) if has_turn else 0, "damage": self._eff(eff_damage, s),
                "damage_type": DAMAGE_TYPES[self._eff(eff_dtype, s)], "range": self._eff(eff_range, s),
                "resist": {t: self._eff(eff_resist, s, i) for i, t in enumerate(DAMAGE_TYPES)},
                "kill_points": int(c.grid_kill_points[B, s]), "keywords": keywords,
                "statuses": {n: True for n in ("hidden", "invisible", "stunned") if bool(getattr(c, f"grid_{n}")[B, s])},
                "abilities": list(self.slot_abilities.get(s, [])),
                "has_turn": has_turn, "action_used": bool(c.grid_action_used[B, s]),
                "bonus_used": bool(c.grid_bonus_used[B, s]), "attacked": bool(c.grid_attacked[B, s]),
            })
        active = int(g[B, ACTIVE])

        def pile(arr: np.ndarray, n: int, side: int) -> list[str]:
            return [self.names[int(x)] for x in arr[B, side, :int(g[B, n + side])]]

        return {
            "round": int(g[B, ROUND]), "turn": turn,
            "active_unit": self.slot_names.get(active) if active >= 0 else None,
            "winner": int(g[B, WINNER]) if int(g[B, WINNER]) >= 0 else None, "draw": bool(g[B, DRAW]),
            "gold": [int(g[B, GOLD]), int(g[B, GOLD + 1])], "se": [int(g[B, SE]), int(g[B, SE + 1])],
            "kill_points": [int(g[B, KPTS]), int(g[B, KPTS + 1])],
            "hand": [pile(f.hand, HAND_N, 0), pile(f.hand, HAND_N, 1)],
            "deck_size": [int(g[B, DECK_N]), int(g[B, DECK_N + 1])],
            "cemetery": [pile(f.cem, CEM_N, 0), pile(f.cem, CEM_N, 1)],
            "board": {"width": board.width, "height": board.height,
                      "walls": [self._xy(i) for i in np.flatnonzero(board.wall)],
                      "webs": [self._xy(i) for i in np.flatnonzero(board.web)],
                      "mana_pools": [self._xy(i) for i in np.flatnonzero(board.mana)]},
            "units": units,
        }

    def check(self, state: dict[str, Any]) -> list[str]:
        """``[expect]`` against the state: every key it gives; units by ``name`` (``absent``: dead)."""
        exp = self.plan.spec.expect
        if exp is None:
            return []
        diffs = []
        for key, want in exp.items():
            if key == "units":
                continue
            got = state[key]
            if isinstance(want, dict):
                for k2, v in want.items():
                    if got.get(k2) != v:
                        diffs.append(f"{key}.{k2}: expected {v}, got {got.get(k2)}")
            elif want != got:
                diffs.append(f"{key}: expected {want}, got {got}")
        by_name = {u["name"]: u for u in state["units"]}
        for e in exp.get("units", []):
            name = e["name"]
            got = by_name.get(name)
            if e.get("absent"):
                if got is not None:
                    diffs.append(f"unit {name!r}: expected absent, it is on [{got['x']}, {got['y']}]")
                continue
            if got is None:
                diffs.append(f"unit {name!r}: expected on the board, it is not")
                continue
            for key, want in e.items():
                if key in ("name", "absent"):
                    continue
                have = got[key]
                if key == "resist":
                    have = {k: v for k, v in have.items() if k in want}
                if want != have:
                    diffs.append(f"unit {name!r} {key}: expected {want}, got {have}")
        return diffs

    def print_state(self, state: dict[str, Any]) -> None:
        from battlesim.systems.grid.scenario_print import print_state

        print_state(state)


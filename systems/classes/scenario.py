"""``battlesim scenario`` for classes files (spec §14): the World set up from the loaded scenario
(``scenario_check.load_scenario``), its steps played through the compiled engine's own functions
(``actions``, ``acting``, ``mana``, ``progress``), the ``--json`` state (``scenario_state``),
``[expect]`` compared by ``scenario_expect``.

An illegal step stops the run with one line ``FILE: step N (do): reason`` (the CLI prints it
after ``error:`` and exits 2); the reasons carry ledger G13's words ("cannot pay", "not in hand",
"prepared", "occupied", "once per turn", "locked", "Antimagic"). After a win the remaining steps
are skipped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from battlesim.ecs.datafiles import read_toml
from battlesim.systems.classes import acting, actions, kernel_cache, mana, progress, units
from battlesim.systems.classes.board import LANES
from battlesim.systems.classes.conditions import condition_names
from battlesim.systems.classes.rules import ST_HEALTH, Compiled, compile_rules
from battlesim.systems.classes.scenario_check import Scenario, load_scenario
from battlesim.systems.classes.scenario_error import ScenarioError
from battlesim.systems.classes.scenario_expect import compare
from battlesim.systems.classes.scenario_spec import Step
from battlesim.systems.classes.scenario_state import json_state
from battlesim.systems.classes.state import (
    A_CARD,
    A_SHAPE,
    A_TOKENS,
    ANSWER_POWER,
    ANSWER_REPLACE,
    BONUS_MANA,
    BONUS_TOKEN,
    ERRORS,
    G_ACTIVE,
    G_ENDED,
    G_ERROR,
    G_NEXT_UID,
    G_TURN,
    L_BONUS,
    L_MAX,
    NCOL,
    NONE,
    NSHAPES,
    P_ANSWER,
    P_CURRENT,
    P_EXP,
    P_LEVEL,
    P_LIFE,
    P_NANSWERS,
    P_NLEVELS,
    P_POOL,
    P_PREP,
    P_PREP_MANA,
    P_PREP_TURN,
    P_TRACK,
    T_INTERSECTION,
    T_LANE,
    T_NONE,
    T_PLAYER,
    U_ATTACK,
    U_AURA_HEALTH,
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
    new_game,
)
from battlesim.systems.classes.vocabulary import COLOURS, KEYWORDS, LEVEL_COLOURS, SHAPES

B = 0  # a scenario is one game
FIRST = {None: acting.FIRST_DEFAULT, "action": acting.FIRST_ACTION, "advance": acting.FIRST_ADVANCE}
ACTION = {None: acting.ACT_DEFAULT, "attack": acting.ACT_ATTACK, "defend": acting.ACT_DEFEND,
          "ability": acting.ACT_ABILITY}


class Illegal(ValueError):
    """A step the rules refuse (its reason is one of ``state.ERRORS``)."""


def field_of(lane: int, row: int) -> int:
    return row * LANES + lane


class ClassesScenarioRun:
    """One scenario file, set up and ready to ``run``; ``check`` compares with ``[expect]``."""

    def __init__(self, path: Path) -> None:
        kernel_cache.check_all()
        self.path = Path(path)
        self.sc: Scenario = load_scenario(self.path)
        self.spec = self.sc.spec
        powers = [p for side in self.sc.sides for p in side.powers]
        self.compiled: Compiled = compile_rules(self.sc.cards, powers)
        self.R = self.compiled.rules
        self.names: dict[int, str] = {}  # uid -> an inline unit's name
        self.G: Game = self._setup()

    # -- setup -------------------------------------------------------------------------------
    def _card(self, name: str) -> int:
        return self.compiled.card(name)

    def _setup(self) -> Game:
        sp, P = self.spec, self.spec.players
        G = new_game(1, self.R.cards.shape[0])
        G.g[B, G_TURN] = sp.turn
        G.g[B, G_ACTIVE] = sp.active
        for s in (0, 1):
            pl = G.pl[B, s]
            pl[P_LIFE], pl[P_LEVEL], pl[P_EXP] = P.life[s], P.level[s], P.experience[s]
            for c, colour in enumerate(COLOURS):
                pl[P_POOL + c] = P.pool[s].get(colour, 0)
                for slot in range(3):
                    pl[P_TRACK + slot * NCOL + c] = P.cooldown[s][slot].get(colour, 0)
            pl[P_CURRENT] = P.cooldown_current[s]
            for k, name in enumerate(P.hand[s]):
                G.hand[B, s, k] = self._card(name)
            for k, name in enumerate(P.nether[s]):
                G.nether[B, s, k] = self._card(name)
            side = self.sc.sides[s]
            for k, power in enumerate(side.powers):
                G.pw[B, s, k, W_ID] = self.compiled.power(power)
                G.pw[B, s, k, W_TOKENS] = side.tokens.get(power.name, 0)
            pl[P_NLEVELS] = len(side.levels)
            for k, lv in enumerate(side.levels):
                G.lv[B, s, k, L_MAX] = lv.max_experience
                for j, bonus in enumerate(lv.bonus):
                    G.lv[B, s, k, L_BONUS + j] = BONUS_MANA if bonus == "mana" else BONUS_TOKEN
            answers = [self._answer(s, a) for a in P.choices[s]]
            G.ans[B, s, :len(answers)] = answers
            pl[P_ANSWER], pl[P_NANSWERS] = 0, len(answers)
        for prep in sp.prepared:
            pl = G.pl[B, prep.side]
            pl[P_PREP] = self._card(prep.card)
            pl[P_PREP_TURN] = sp.turn if prep.this_turn else sp.turn - 1
            for c, colour in enumerate(COLOURS):
                pl[P_PREP_MANA + c] = prep.mana.get(colour, 0)
        used: list[list[int]] = [[], []]
        for i, entry in enumerate(sp.play_area):
            spec = self.sc.cards.specs[entry.card]
            k = sum(1 for e in sp.play_area[:i] if e.side == entry.side)
            if spec.enchantment is None:
                shape, tokens = NONE, entry.tokens or 0
            else:
                shape = SHAPES.index(entry.shape) if entry.shape else next(
                    x for x in range(NSHAPES) if x not in used[entry.side] and SHAPES[x] not in
                    [e.shape for e in sp.play_area if e.side == entry.side])
                tokens = entry.tokens if entry.tokens is not None else max(spec.enchantment.duration, 1)
                used[entry.side].append(shape)
            G.area[B, entry.side, k, A_CARD], G.area[B, entry.side, k, A_SHAPE] = self._card(entry.card), shape
            G.area[B, entry.side, k, A_TOKENS] = tokens
        for u in sp.units:
            self._unit(G, u)
        for f in range(G.u.shape[1]):  # a unit's `health` is its current HP, the auras in play included
            if G.u[B, f, U_PRESENT]:
                G.u[B, f, U_AURA_HEALTH] = units.aura_gain(G, self.R, B, f, ST_HEALTH)
        return G

    def _unit(self, G: Game, u: Any) -> None:
        f = field_of(u.lane, u.row)
        row = G.u[B, f]
        uid = int(G.g[B, G_NEXT_UID])
        G.g[B, G_NEXT_UID] += 1
        row[U_PRESENT], row[U_SIDE], row[U_UID] = 1, u.side, uid
        keywords: dict[str, int | bool] = {}
        if u.card is not None:
            card = self.sc.cards.specs[u.card]
            row[U_CARD] = self._card(u.card)
            has_attack = card.attack is not None or u.attack is not None
            attack = u.attack if u.attack is not None else (card.attack or 0)
            health = u.health if u.health is not None else (card.health or 1)
            base_attack = u.base_attack if u.base_attack is not None else (card.attack or 0)
            base_health = u.base_health if u.base_health is not None else (card.health or 1)
            reach = u.range or card.range
            keywords.update(card.keywords)
        else:
            self.names[uid] = u.name
            has_attack = u.attack is not None
            attack = u.attack or 0
            health = u.health if u.health is not None else 1
            base_attack = u.base_attack if u.base_attack is not None else attack
            base_health = u.base_health if u.base_health is not None else health
            reach = u.range or 1
        keywords.update(u.keywords)
        row[U_HAS_ATTACK], row[U_ATTACK], row[U_HEALTH] = int(has_attack), attack, health
        row[U_BASE_ATTACK], row[U_BASE_HEALTH], row[U_RANGE] = base_attack, base_health, reach
        for k, word in enumerate(KEYWORDS):
            row[U_KEYWORD + k] = int(keywords.get(word, 0))
        for k, word in enumerate(condition_names()):
            row[U_CONDITION + k] = u.conditions.get(word, 0)
        row[U_DEFENDING] = int(u.defending)
        for e in u.enchanted:
            row[U_ENCH + e.side * NSHAPES + SHAPES.index(e.shape)] = e.tokens

    def _answer(self, side: int, answer: str) -> int:
        """A ``choices`` entry as the engine reads it (``state.ANSWER_*``)."""
        if answer in LEVEL_COLOURS:
            return LEVEL_COLOURS.index(answer)
        kind, _, rest = answer.partition(":")
        if kind == "summoning":
            return ANSWER_REPLACE + LEVEL_COLOURS.index(rest)
        names = [p.name for p in self.sc.sides[side].powers]
        return ANSWER_POWER + names.index(rest)

    # -- steps -------------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        """Play every step; the resulting state as the ``--json`` object."""
        for i, step in enumerate(self.spec.steps):
            if self.G.g[B, G_ENDED]:
                break  # spec §14: "After a win the remaining steps are skipped."
            self.G.g[B, G_ERROR] = 0
            try:
                code = self._step(step)
                code = code or int(self.G.g[B, G_ERROR])
                if code:
                    raise Illegal(ERRORS[code])
            except Illegal as e:
                raise ScenarioError(f"{self.path}: step {i + 1} ({step.do}): {e}") from None
        return self.state()

    def _target(self, step: Any, side: int) -> int:
        t = step.target
        if getattr(step, "intersection", None) is not None:
            lane, row = step.intersection
            return T_INTERSECTION + row * (LANES - 1) + lane
        if getattr(step, "lane", None) is not None and getattr(step, "row", None) is None and step.do != "act":
            return T_LANE + step.lane
        if t is None:
            return T_NONE
        if t == "enemy_player":
            return T_PLAYER + 1 - side
        if t == "own_player":
            return T_PLAYER + side
        return field_of(*t)

    @staticmethod
    def _pay(step: Step) -> np.ndarray:
        pay = np.full(NCOL, -1, np.int64)
        if step.pay is not None:
            pay[:] = [step.pay.get(c, 0) for c in COLOURS]
        return pay

    def _orders(self, step: Step) -> tuple[np.ndarray, int]:
        orders = np.full((max(len(step.orders or []), 1), 4), NONE, np.int64)
        for k, o in enumerate(step.orders or []):
            orders[k] = (field_of(o.lane, o.row), FIRST[o.first], ACTION[o.action],
                         T_NONE if o.target is None else self._target(o, int(self.G.g[B, G_ACTIVE])))
        return orders, len(step.orders or [])

    def _step(self, step: Step) -> int:
        G, R, do = self.G, self.R, step.do
        active = int(G.g[B, G_ACTIVE])
        side = active if step.side is None else step.side
        if do == "mana_step":
            mana.mana_step(G, B, active)
            return 0
        if do == "enchantments_step":
            order = np.array([self._card(n) for n in step.order or []] or [NONE], np.int64)
            return actions.enchantments_step(G, R, B, order, len(step.order or []))
        if do == "begin_phase":
            return actions.begin_phase(G, R, B)
        if do == "gain_experience_step":
            progress.gain_experience(G, R, B, active, 1)
            from battlesim.systems.classes.effects import run_jobs

            run_jobs(G, R, B)
            return 0
        if do == "end_phase":
            actions.end_phase(G, B)
            return 0
        if do in ("act_step", "battle_phase"):
            orders, n = self._orders(step)
            fn = acting.act_step if do == "act_step" else acting.battle_phase
            return fn(G, R, B, orders, n)
        if do == "turn":
            code = actions.begin_phase(G, R, B)
            if code or G.g[B, G_ENDED]:
                return code
            code = acting.battle_phase(G, R, B, np.full((1, 4), NONE, np.int64), 0)
            if code or G.g[B, G_ENDED]:
                return code
            actions.end_phase(G, B)
            return 0
        if do == "act":
            return acting.act(G, R, B, field_of(step.lane, step.row), FIRST[step.first], ACTION[step.action],
                              self._target(step, active), self._pay(step))
        if do == "cast":
            card = self._card(step.card)
            prepared = step.from_ == "prepared" or (step.from_ is None and card not in G.hand[B, side]
                                                    and G.pl[B, side, P_PREP] == card)
            return actions.cast(G, R, B, side, card, prepared, self._target(step, side), NONE, self._pay(step))
        if do == "prepare":
            return actions.prepare(G, R, B, side, self._card(step.card), self._pay(step))
        if do == "class_ability":
            names = [p.name for p in self.sc.sides[side].powers]
            choice = NONE if step.card is None else self._card(step.card)
            return actions.class_ability(G, R, B, side, names.index(step.power), step.ability or 0,
                                         self._target(step, side), choice, self._pay(step))
        raise Illegal(f"unknown step {do!r}")

    # -- output ------------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """Spec §14 ``--json``."""
        return json_state(self.G, self.R, self.compiled, self.sc, self.names, B)

    def check(self, state: dict[str, Any]) -> list[str]:
        """``[expect]`` against the state (``scenario_expect.compare``)."""
        raw, _ = read_toml(self.path)
        return compare(raw.get("expect") or {}, state)

    def print_state(self, state: dict[str, Any]) -> None:
        from battlesim.systems.classes.scenario_state import print_state

        print_state(state)


def run_file(path: Path) -> ClassesScenarioRun:
    return ClassesScenarioRun(Path(path))


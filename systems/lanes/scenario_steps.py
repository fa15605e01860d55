"""The steps a scenario can run, each through the same compiled systems a real game runs (the
Processors of ``compiled/processors.py``; an action through the game loop's own ``apply``)."""

from __future__ import annotations

import numpy as np

from battlesim.systems.lanes.compiled.processors import (
    Combat,
    CreepSpawn,
    EndOfRound,
    PlayPhase,
    RoundEnd,
    ShopPhase,
    StartOfRound,
    VictoryCheck,
)
from battlesim.systems.lanes.play import PENDING_CASTER, PENDING_NONE
from battlesim.systems.lanes.scenario_error import ScenarioError

G = np.array([0])


def run_step(sc, i: int, step) -> None:
    w, where = sc.w, f"{sc.path}: steps[{i}] ({step.do})"
    if not w.active[0]:
        raise ScenarioError(f"{where}: the game is already over")
    if step.do == "combat":
        Combat().process(w)
        VictoryCheck().process(w)
    elif step.do == "round_start":
        StartOfRound().process(w)
    elif step.do == "creep_spawn":
        CreepSpawn().process(w)
    elif step.do == "round_end":
        EndOfRound().process(w)
        RoundEnd().process(w)
    elif step.do == "shop":
        shop(sc, step, where)
    else:
        act(sc, step, where)


def _need(step, where: str, *fields: str) -> None:
    missing = [f for f in fields if getattr(step, f) is None]
    if missing:
        raise ScenarioError(f"{where}: needs {', '.join(missing)}")


def act(sc, step, where: str) -> None:
    """play / ability / activate: the action must be legal, as an agent would see it; the play
    phase's ``apply`` settles deaths after it ("Deaths are processed immediately")."""
    w, game = sc.w, sc.game
    A = game.actions
    _need(step, where, "side", "lane")
    side = step.side
    if step.do == "play":
        _need(step, where, "card")
        card = sc._card(step.card, where)
        hand = w.g.hand[0, side]
        have = np.flatnonzero(hand == card)
        if have.size == 0:
            free = np.flatnonzero(hand < 0)
            if free.size == 0:
                raise ScenarioError(f"{where}: side {side}'s hand is full")
            w.g.hand[0, side, free[0]] = card
            have = free[:1]
        action = A.play(int(have[0]), step.lane, step.pos or 0)
    elif step.do == "ability":
        _need(step, where, "pos")
        action = A.ability(step.lane, step.pos)
    else:
        _need(step, where, "slot")
        action = A.activate(step.lane, step.slot)
    phase = PlayPhase(A)
    w.g.to_act[0] = side
    w.g.pending_kind[0] = PENDING_NONE
    _legal_apply(w, phase, action, side, where, A)
    if w.g.pending_kind[0] == PENDING_CASTER:
        if step.caster is None:
            raise ScenarioError(f"{where}: several heroes can cast this spell: needs caster = <position in lane {step.lane}>")
        _legal_apply(w, phase, A.target(side, step.lane, step.caster), side, where + " caster", A)
    elif step.caster is not None:
        raise ScenarioError(f"{where}: a caster was given but nothing asks for one")
    if w.g.pending_kind[0] != PENDING_NONE:
        if step.target is None:
            raise ScenarioError(f"{where}: this card or ability needs a target = [side, lane, pos]")
        _legal_apply(w, phase, A.target(*step.target), side, where + " target", A)
    elif step.target is not None:
        raise ScenarioError(f"{where}: a target was given but nothing asks for one")


def _legal_apply(w, phase, action: int, side: int, where: str, A) -> None:
    actor, legal = phase.request(w, G)
    if actor[0] != side:
        raise ScenarioError(f"{where}: it is side {actor[0]}'s decision")
    if not legal[0, action]:
        options = [A.describe(a) for a in np.flatnonzero(legal[0])][:12]
        raise ScenarioError(f"{where}: not legal: {A.describe(action)}; legal now: {options}")
    phase.apply(w, G, np.array([side]), np.array([action]))


def shop(sc, step, where: str) -> None:
    """One shop phase. ``upgrade = [bool, bool]`` upgrades first; ``buy = [[offer indexes], [...]]``
    buys those offers (0-2); everyone then finishes (a player who did neither gets the skip gold)."""
    w, A = sc.w, sc.game.actions
    plan = {seat: ([A.upgrade] if step.upgrade and step.upgrade[seat] else [])
            + [A.buy(k) for k in (step.buy[seat] if step.buy else [])] for seat in range(2)}
    phase = ShopPhase(A)
    phase.begin(w)
    for _ in range(20):
        if not phase.pending(w)[0]:
            return
        actor, legal = phase.request(w, G)
        seat = int(actor[0])
        action = plan[seat].pop(0) if plan[seat] else 0
        if not legal[0, action]:
            raise ScenarioError(f"{where}: side {seat}: not legal: {A.describe(action)}")
        phase.apply(w, G, actor, np.array([action]))

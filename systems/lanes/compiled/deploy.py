"""Hero deployment, compiled over one game: the twin of ``HeroDeployment`` (``systems/lanes/
deploy.py``), a decision point.

lanes.md "Hero Deployment Phase": round 1 runs three steps, Mid (lane 1) for both players, then
a random side assignment (one player deploys Left (0), the other Right (2)), then each player's
remaining lane; from round 2 on every READY hero goes to "any lane/position". "revealed
simultaneously": in every step each player chooses against the board as it was before the step
(a player's own earlier picks of the step reserve their cells and heroes); then the step's
choices are placed together, in the order made (seat 0's, then seat 1's).

The phase for game b, driven by its caller (the round loop, or the step API for Python agents):

```python
deploy_begin(st, f, cols, rng, b)                 # round 1: the sides draw (Stream.SIDES)
while (seat := deploy_next(st, f, cols, b, g, rng, m, row)) in (0, 1):   # row: that seat's legal row
    apply_deploy(st, f, cols, b, seat, agent(seat, row))
# deploy_next returned DONE, or an error (< 0: the caller stops the game naming its seed)
```

``legal_deploy(st, f, cols, b, seat, row) -> bool`` is the legal row alone (what numpy's
``choose`` builds for a game it asks). The per-game order of the draws is numpy's: the side
draw before any decision, then the decisions in the order above (step by step, seat 0 first;
rounds 2+: seat 0 up to one decision per hero while it has a legal one, then seat 1).

What stays with the caller: the replay's ``lanes.deploy`` rows are ``f.chosen[b, :n]`` (seat,
hero, lane, position; ``n = f.deploy[b, N_CHOSEN]``), placed in that order. The trigger
boundary: "On Play" of each placed hero whose card listens, then "On Ally Deploy" and "On Enemy
Deploy" of the listening units and improvements (``listeners.deployed``), pushed where numpy
fires them and drained (``# DRAIN``, the resolution machine's ``drain``) right there: ``deploy_next``
and ``place_step`` reach the machine, so they are plain functions that the phase (or round loop)
calling them gets rebound copies of (``codegen.rebind``); ``g, rng, m`` are the machine's.

The phase's place in a game (step, seat asked, answers so far, the step's first choice, the
choices) lives in ``PhaseFields.deploy`` / ``chosen``, scratch of the caller's allocated once per
chunk (``phase_fields``), not in the World: numpy keeps it in locals of its ``process``. The
kernels that only read and write (``legal_deploy``, ``apply_deploy``) run without reference
counting (``_nrt=False``, legal.py's note); placing and settling allocate settle's scratch. All
``cache=False``: they call ``deaths.py`` and ``rng.py`` and index ``round_layout.py``'s positions.
"""

from __future__ import annotations

from numba import njit

from battlesim.ecs.compiled.damage_queue import OK
from battlesim.ecs.compiled.emit import emit, emitting
from battlesim.ecs.compiled.events import push_event
from battlesim.ecs.compiled.machine import drain
from battlesim.ecs.compiled.rng import integers
from battlesim.systems.lanes.compiled import event_codes as ev
from battlesim.systems.lanes.compiled.deaths import SLOTS_FULL, settle, spawn_hero
from battlesim.systems.lanes.compiled.play_steps import notify
from battlesim.systems.lanes.compiled.round_layout import (
    ASKED,
    C_LISTENS,
    C_TRIGGER,
    DEPLOY_BASE,
    DONE_STEP,
    MID,
    N_CHOSEN,
    ON_BOARD,
    READY,
    REMAINING,
    SEAT,
    SETTLE,
    SIDES,
    SIDES_STEP,
    STEP,
    STEP_START,
    T_ALLY_DEPLOY,
    T_ON_PLAY,
    TOGETHER,
)

DONE = 2  # what ``deploy_next`` returns when the phase is over (0, 1: the seat to decide)


@njit(cache=False)
def deploy_begin(st, f, cols, rng, b) -> None:
    """``HeroDeployment.process``'s start for game b: in round 1, "a random side assignment (one
    player deploys Left, the other Right)" drawn now (``integers(2, SIDES)``), before anyone
    chooses, so step 1 cannot depend on it; the phase's place reset."""
    d = f.deploy
    for j in (SEAT, ASKED, STEP_START, N_CHOSEN):
        d[b, j] = 0
    if not f.combat.active[b]:
        d[b, STEP] = SETTLE  # numpy's settle runs over every game, finished ones too
    elif f.combat.round[b] == 1:
        f.left_side[b] = integers(rng, b, 2, cols[SIDES])
        d[b, STEP] = MID
    else:
        d[b, STEP] = TOGETHER


@njit(cache=False, _nrt=False)
def _allowed(step, seat, left, lane) -> bool:
    """The lanes a seat may use in a step: Mid; Left for the seat drawn left, Right for the other;
    then the remaining lane(s); any lane from round 2."""
    if step == MID:
        return lane == 1
    own = 0 if seat == left else 2  # the lane of the random step
    if step == SIDES_STEP:
        return lane == own
    if step == REMAINING:
        return lane != 1 and lane != own
    return True


@njit(cache=False, _nrt=False)
def legal_deploy(st, f, cols, b, seat, row) -> bool:
    """``HeroDeployment.choose``'s legal row for game b and ``seat`` in the current step: every
    (READY hero not yet chosen in the step, empty own cell of an allowed lane not reserved by the
    seat's earlier choice of the step); False (and no legal action) when there is none: "a hero
    with no free cell waits"."""
    d = f.deploy
    K, L, P = f.combat.hero_status.shape[2], f.combat.board.shape[2], f.combat.board.shape[3]
    for a in range(row.shape[0]):
        row[a] = False
    step, left = d[b, STEP], f.left_side[b]
    some = False
    for k in range(K):
        if f.combat.hero_status[b, seat, k] != cols[READY]:
            continue
        taken = False
        for j in range(d[b, STEP_START], d[b, N_CHOSEN]):
            if f.chosen[b, j, 0] == seat and f.chosen[b, j, 1] == k:
                taken = True
        if taken:
            continue
        for lane in range(L):
            if not _allowed(step, seat, left, lane):
                continue
            for pos in range(P):
                if f.combat.board[b, seat, lane, pos] != -1:
                    continue
                reserved = False
                for j in range(d[b, STEP_START], d[b, N_CHOSEN]):
                    if f.chosen[b, j, 0] == seat and f.chosen[b, j, 2] == lane and f.chosen[b, j, 3] == pos:
                        reserved = True
                if not reserved:
                    row[cols[DEPLOY_BASE] + (k * L + lane) * P + pos] = True
                    some = True
    return some


@njit(cache=False, _nrt=False)
def apply_deploy(st, f, cols, b, seat, action) -> None:
    """``HeroDeployment``'s handling of one answer: the hero and cell of ``action`` (the DEPLOY
    block, ``ActionTable.decode_deploy``) are chosen, to be placed when the step closes."""
    L, P = f.combat.board.shape[2], f.combat.board.shape[3]
    i = action - cols[DEPLOY_BASE]
    n = f.deploy[b, N_CHOSEN]
    f.chosen[b, n, 0] = seat
    f.chosen[b, n, 1] = i // (L * P)
    f.chosen[b, n, 2] = (i // P) % L
    f.chosen[b, n, 3] = i % P
    f.deploy[b, N_CHOSEN] = n + 1
    f.deploy[b, ASKED] += 1


def place_step(st, f, cols, b, g, rng, m) -> int:
    """``HeroDeployment.place`` of the step's choices for game b, in the order made: the hero
    spawned from its card (``board.spawn``), ON_BOARD, then "On Play - Triggers when this card is
    played/deployed" and the deploy listeners (``listeners.deployed``: "On Ally Deploy", "On Enemy
    Deploy"), each drained where numpy fires it. OK, SLOTS_FULL when the game has no free slot, or
    the machine's failure."""
    d = f.deploy
    for j in range(d[b, STEP_START], d[b, N_CHOSEN]):
        seat, k, lane, pos = f.chosen[b, j, 0], f.chosen[b, j, 1], f.chosen[b, j, 2], f.chosen[b, j, 3]
        card = f.combat.hero_card[b, seat, k]
        if not spawn_hero(st, f.combat, cols, b, seat, lane, pos, card, k):
            return SLOTS_FULL
        f.combat.hero_status[b, seat, k] = cols[ON_BOARD]
        if emitting(m):
            emit(ev.DEPLOY, b, seat, k, lane, pos, 0)
        slot = f.combat.board[b, seat, lane, pos]
        if st.cat[cols[C_LISTENS + T_ON_PLAY], card] != 0:
            push_event(st.events, st.nevents, b, st.params[cols[C_TRIGGER + T_ON_PLAY]], card, slot,
                       st.serial[b, slot], -1, seat, lane, pos)
            status = drain(st, g, rng, b, m)  # DRAIN: "On Play", before the deploy listeners are found
            if status != OK:
                return status
        status = notify(st, cols, b, seat, slot, 0, 2, C_LISTENS + T_ALLY_DEPLOY, C_TRIGGER + T_ALLY_DEPLOY, g, rng,
                        m)
        if status != OK:  # drained inside, each trigger before the next; all before the next hero is placed
            return status
    d[b, STEP_START] = d[b, N_CHOSEN]
    return OK


def deploy_next(st, f, cols, b, g, rng, m, row) -> int:
    """Game b's deployment up to its next decision: the seat to decide (its legal row in ``row``),
    or ``DONE`` once every step is placed and deaths settled ("deployed heroes' on-play effects may
    have destroyed something"), or an error (< 0) of placing or settling. A seat is asked once per
    step in round 1, and in rounds 2+ once per READY hero while it has a legal choice."""
    d = f.deploy
    K = f.combat.hero_status.shape[2]
    while True:
        step = d[b, STEP]
        if step == DONE_STEP:
            return DONE
        if step == SETTLE:
            d[b, STEP] = DONE_STEP
            status = settle(st, f.combat, cols, b, g, rng, m)
            if status != OK:
                return status
            continue
        most = 1 if step != TOGETHER else K
        while d[b, SEAT] < 2:
            seat = d[b, SEAT]
            if d[b, ASKED] < most and legal_deploy(st, f, cols, b, seat, row):
                return seat
            d[b, SEAT] = seat + 1
            d[b, ASKED] = 0
        status = place_step(st, f, cols, b, g, rng, m)
        if status != OK:
            return status
        d[b, SEAT] = 0
        d[b, ASKED] = 0
        d[b, STEP] = SETTLE if step == TOGETHER or step == REMAINING else step + 1

"""One compiled entry per phase family, to step one phase of one game from Python: the
differential tests replay captured numpy calls through them, and a debugging session can run a
single start of round, deployment, end of round or play action on a World and read it after.

They are phases of the engine module (``@compiled_phase``: ``build("lanes").module.round_step``),
so they call the resolution machine as the game loop does. ONE entry per family (round:
``round_layout.PhaseFields``; play: ``play_layout.PlayApplyFields``) keeps their compile small:
the functions they reach are the loop's own, compiled once per engine (``codegen.rebind``).
"""

from __future__ import annotations

from battlesim.ecs.compiled.machine import compiled_phase
from battlesim.ecs.compiled.rng import choice
from battlesim.systems.lanes.compiled.deploy import deploy_next
from battlesim.systems.lanes.compiled.legal import legal_play
from battlesim.systems.lanes.compiled.play import apply_play, play_actor, play_begin, play_pending
from battlesim.systems.lanes.compiled.round_end import end_of_round
from battlesim.systems.lanes.compiled.round_start import start_of_round

START, END, DEPLOY = 0, 1, 2  # ``round_step``'s kinds


@compiled_phase("lanes")
def round_step(st, f, cols, b, g, rng, m, kind, row, expired):
    """One entry to the round family (``round_layout.PhaseFields``): ``start_of_round``,
    ``end_of_round`` (-> how many expired, into ``expired``) or ``deploy_next`` (-> the seat to
    decide, its legal row in ``row``; or DONE), by ``kind``."""
    if kind == START:
        return start_of_round(st, f, cols, b, g, rng, m)
    if kind == END:
        return end_of_round(st, f, cols, b, g, rng, m, expired)
    return deploy_next(st, f, cols, b, g, rng, m, row)


APPLY, PHASE = 0, 1  # ``play_step``'s kinds


@compiled_phase("lanes")
def play_step(st, f, cols, b, g, rng, m, kind, seat, action, lcols, row, stream, out):
    """One entry to the play family (``play_layout.PlayApplyFields``): APPLY:
    ``apply_play(seat, action)``, its replay tuple into ``out``, returns its code; PHASE: game
    b's whole play phase with both seats random (``RandomAgent``: ``choice`` over the legal row
    on ``stream``), at most ``action`` decisions: returns how many, -1 past them, or an error."""
    n = 0
    if kind == PHASE:
        play_begin(f, cols, b)
    while True:  # one call site of apply_play: each is inlined whole (its compile time)
        who, act = seat, action
        if kind == PHASE:
            if not play_pending(f, b):
                return n
            if n == action:
                return -1
            who = play_actor(f, b)
            legal_play(st, f, lcols, b, who, row)
            act = choice(rng, b, row, stream)
        r = apply_play(st, f, cols, b, who, act, g, rng, m)
        if kind == APPLY:
            for j in range(7):
                out[j] = r[j]
            return r[0]
        if r[0] < 0:
            return r[0]
        n += 1

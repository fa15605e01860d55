"""Lanes' phases that fire card effects, as steps of the compiled game loop (``game.py`` holds the
others, ``LoopArgs`` and the agents): start of round, hero deployment, the play phase and end of
round, each calling its draining twin (round_start.py, deploy.py, play.py, round_end.py) with
``L.g, L.rng, L.m`` for the resolution machine."""

from __future__ import annotations

from battlesim.ecs.compiled.loop import DECIDE, DONE, PC_ACTOR, PC_SUB, compiled_system
from battlesim.systems.lanes.compiled.deploy import DONE as DEPLOY_DONE
from battlesim.systems.lanes.compiled.deploy import apply_deploy, deploy_begin, deploy_next
from battlesim.systems.lanes.compiled.legal import legal_play
from battlesim.systems.lanes.compiled.play import apply_play, play_actor, play_begin, play_pending
from battlesim.systems.lanes.compiled.round_end import end_of_round
from battlesim.systems.lanes.compiled.round_start import start_of_round


@compiled_system("lanes", "StartOfRound")
def start_of_round_step(L, b):
    """lanes.md "Start of Round": ``round_start.start_of_round`` (settles finished games too)."""
    return start_of_round(L.st, L.ph, L.phcols, b, L.g, L.rng, L.m)


def deploy_apply(L, b, seat, action):
    """``deploy.apply_deploy``: the seat's hero and cell, placed when the step closes."""
    apply_deploy(L.st, L.ph, L.phcols, b, seat, action)
    return DONE


@compiled_system("lanes", "HeroDeployment", apply=deploy_apply)
def deploy_step(L, b):
    """``HeroDeployment``: sub-step 0 starts it (``deploy_begin``: round 1's side draw), then
    ``deploy_next`` up to each decision."""
    if L.pc[b, PC_SUB] == 0:
        deploy_begin(L.st, L.ph, L.phcols, L.rng, b)
        L.pc[b, PC_SUB] = 1
    r = deploy_next(L.st, L.ph, L.phcols, b, L.g, L.rng, L.m, L.legal[b])
    if r == DEPLOY_DONE:
        return DONE
    if r < 0:
        return r
    L.pc[b, PC_ACTOR] = r
    return DECIDE


def play_apply(L, b, seat, action):
    """``play.apply_play`` of the seat's answer (its replay tuple's code: negative, a failure)."""
    out = apply_play(L.st, L.pa, L.pcols, b, seat, action, L.g, L.rng, L.m)
    return out[0] if out[0] < 0 else DONE


@compiled_system("lanes", "PlayPhase", apply=play_apply)
def play_step(L, b):
    """``PlayPhase``: sub-step 0 begins it (``play_begin``), then the seat to act is asked
    (``legal_play``) while the game plays."""
    if L.pc[b, PC_SUB] == 0:
        play_begin(L.pa, L.pcols, b)
        L.pc[b, PC_SUB] = 1
    if not play_pending(L.pa, b):
        return DONE
    seat = play_actor(L.pa, b)
    legal_play(L.st, L.pa, L.lcols, b, seat, L.legal[b])
    L.pc[b, PC_ACTOR] = seat
    return DECIDE


@compiled_system("lanes", "EndOfRound")
def end_of_round_step(L, b):
    """lanes.md "End of Round": ``round_end.end_of_round`` (settles finished games too)."""
    n = end_of_round(L.st, L.ph, L.phcols, b, L.g, L.rng, L.m, L.expired[b])
    return n if n < 0 else DONE

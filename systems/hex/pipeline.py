"""Hex's damage pipeline compiled into the game loop: the built-in hex stages in priority order,
called directly (no generated module), so a whole game compiles and caches as one set of
``@njit(cache=True)`` kernels.

Why not the engine's ``run_damage``: that dispatcher lives in a generated module (one per plugin
set) which a cached kernel cannot name. This is the same dispatcher over the same stage
functions in the same order (``stages_of("hex")``), depth first for reactions
(``damage_queue.py``); ``check_stages`` refuses to play batches when a plugin added hex stages
(they would be silently skipped) and ``tests/rules/hex/test_hex_games.py`` checks the order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battlesim.ecs.compiled import application
from battlesim.ecs.compiled.damage_queue import HI, LO, MAX_DEPTH, NEXT, OK, QUEUE_FULL, TOO_DEEP
from battlesim.ecs.compiled.stages import MAX_READS, stages_of
from battlesim.ecs.datafiles import DataError
from battlesim.systems.hex import damage_stages as ds
from battlesim.systems.hex import kernel_cache
from battlesim.systems.hex.kernel_cache import kernel

STAGE_NAMES = ("shield", "refraction", "ethereal", "armor", "magic_resist", "evasion", "nonlethal", "apply_health",
               "lifesteal", "damage_return", "status_on_hit")
_shield = njit(cache=True)(ds.shield)
_refraction = njit(cache=True)(ds.refraction)
_ethereal = njit(cache=True)(ds.ethereal)
_armor = njit(cache=True)(ds.armor)
_magic_resist = njit(cache=True)(ds.magic_resist)
_evasion = njit(cache=True)(ds.evasion)
_nonlethal = njit(cache=True)(ds.nonlethal)
_apply_health = njit(cache=True)(application.apply_health)
_lifesteal = njit(cache=True)(ds.lifesteal)
_damage_return = njit(cache=True)(ds.damage_return)
_status_on_hit = njit(cache=True)(ds.status_on_hit)
N_STAGES = len(STAGE_NAMES)


def plugin_stages() -> list[str]:
    """Hex stages registered beyond the built-in ones (a plugin's)."""
    return [s.name for s in stages_of("hex") if s.name not in STAGE_NAMES]


def check_stages() -> None:
    """The registered hex stages are exactly the built-in ones, in this order (else batch games
    would skip a plugin's stage silently: refuse in one line)."""
    got = tuple(s.name for s in stages_of("hex"))
    if got != STAGE_NAMES:
        raise DataError(f"hex: batch games play the built-in damage stages only ({', '.join(STAGE_NAMES)}); "
                        f"registered: {', '.join(got)} (a plugin's hex stage runs in scenario 'damage' steps)")


def stage_columns(layout: dict[str, int]) -> np.ndarray:
    """``int64[N_STAGES, MAX_READS]``: row k = the column ids stage k reads (``Engine.columns``)."""
    out = np.full((N_STAGES, MAX_READS), -1, dtype=np.int64)
    by_name = {s.name: s for s in stages_of("hex")}
    for k, name in enumerate(STAGE_NAMES):
        for j, col in enumerate(by_name[name].reads):
            out[k, j] = layout[col]
    return out


@kernel
def _stage(k, w, b, queue, qlen, i, cols):
    if k == 0:
        _shield(w, b, queue, qlen, i, cols[0])
    elif k == 1:
        _refraction(w, b, queue, qlen, i, cols[1])
    elif k == 2:
        _ethereal(w, b, queue, qlen, i, cols[2])
    elif k == 3:
        _armor(w, b, queue, qlen, i, cols[3])
    elif k == 4:
        _magic_resist(w, b, queue, qlen, i, cols[4])
    elif k == 5:
        _evasion(w, b, queue, qlen, i, cols[5])
    elif k == 6:
        _nonlethal(w, b, queue, qlen, i, cols[6])
    elif k == 7:
        _apply_health(w, b, queue, qlen, i, cols[7])
    elif k == 8:
        _lifesteal(w, b, queue, qlen, i, cols[8])
    elif k == 9:
        _damage_return(w, b, queue, qlen, i, cols[9])
    else:
        _status_on_hit(w, b, queue, qlen, i, cols[10])


APPLY = STAGE_NAMES.index("apply_health")  # the stages before it reduce an instance; it takes the health
_after = (ds.after_shield, ds.after_refraction, ds.after_ethereal, ds.after_armor, ds.after_magic_resist,
          ds.after_evasion, ds.after_nonlethal)
assert len(_after) == APPLY and all(f.__name__ == "after_" + n for f, n in zip(_after, STAGE_NAMES))
_after_shield, _after_refraction, _after_ethereal, _after_armor, _after_magic_resist, _after_evasion, \
    _after_nonlethal = _after


@kernel
def _left(k, w, b, s, t, amount, kind, cols):
    """What stage k (< ``APPLY``) leaves of the instance: ``_stage``'s arithmetic, nothing written."""
    if k == 0:
        return _after_shield(w, b, s, t, amount, kind, cols[0])
    elif k == 1:
        return _after_refraction(w, b, s, t, amount, kind, cols[1])
    elif k == 2:
        return _after_ethereal(w, b, s, t, amount, kind, cols[2])
    elif k == 3:
        return _after_armor(w, b, s, t, amount, kind, cols[3])
    elif k == 4:
        return _after_magic_resist(w, b, s, t, amount, kind, cols[4])
    elif k == 5:
        return _after_evasion(w, b, s, t, amount, kind, cols[5])
    return _after_nonlethal(w, b, s, t, amount, kind, cols[6])


@kernel
def health_after(w, b, s, t, amount, kind, cols):
    """Unit t's health after one instance (from s, ``amount`` of ``kind``) went through the
    pipeline up to application, with nothing written: the stages' own arithmetic (``ds.after_*``,
    in ``run_damage``'s order), then application's (the health less what remains). Why: a trample
    move may end on an enemy's hex only if the trample kills it (I-23), known before the move is
    listed; the reactions after application (lifesteal, returns, statuses on hit) change no
    health of t. tests/rules/hex/test_hex_damage.py checks it against ``run_damage``."""
    for k in range(APPLY):
        amount = _left(k, w, b, s, t, amount, kind, cols)
    return np.int64(w.i16[cols[APPLY, 0], b, t]) - max(amount, 0)


@kernel
def run_damage(w, b, queue, qlen, start, cols, stack):
    """DESIGN "Damage pipeline": every hex stage, in priority order, over rows start..qlen[b];
    rows a stage pushes (reactions) go through the whole pipeline before the next stage. OK,
    or TOO_DEEP / QUEUE_FULL (the caller stops the game)."""
    depth = 0
    stack[b, 0, LO] = start
    stack[b, 0, HI] = qlen[b]
    stack[b, 0, NEXT] = 0
    while depth >= 0:
        lo = stack[b, depth, LO]
        hi = stack[b, depth, HI]
        k = stack[b, depth, NEXT]
        if k >= N_STAGES:
            depth -= 1
            continue
        stack[b, depth, NEXT] = k + 1
        pushed = qlen[b]
        for i in range(lo, hi):
            _stage(k, w, b, queue, qlen, i, cols)
        if qlen[b] > pushed:
            if qlen[b] > queue.shape[1]:
                return QUEUE_FULL
            depth += 1
            if depth >= MAX_DEPTH:
                return TOO_DEEP
            stack[b, depth, LO] = pushed
            stack[b, depth, HI] = qlen[b]
            stack[b, depth, NEXT] = 0
    return OK


# the stage wrappers (``_shield``...) too: their own file is damage_stages.py, but the constants
# they freeze (damage kinds) live elsewhere
kernel_cache.check("pipeline", [v for n, v in list(globals().items())
                                if hasattr(v, "py_func") and (v.__module__ == __name__ or n.startswith("_"))])

"""The text of the resolution machine (``machine.py`` says what it is and why), written into the
engine module by ``codegen.engine_source`` after the stages, the interpreter's pieces and their
switches (``run_opcode``, ``run_selector``, ``is_quiet``), which it calls by name.

Kept as text in a file of its own: it is one long function (numba compiles a loop over a frame
stack, never a recursion) whose only generated part is the ``if k == ...`` chain over the
stages (``stage_chain``).
"""

from __future__ import annotations


def stage_chain(n_stages: int) -> str:
    """Stage k over rows lo..hi, as the machine's loop runs the damage level on top."""
    if n_stages == 0:
        return ""
    out = []
    for k in range(n_stages):
        out += [f"            {'if' if k == 0 else 'elif'} k == {k}:",
                "                for i in range(lo, hi):",
                f"                    stage_{k}(st, b, queue, qlen, i, m.dcols[{k}])"]
    return "\n".join(out) + "\n"


MACHINE = '''

# -- the resolution machine (battlesim.ecs.compiled.machine) --
from battlesim.ecs.compiled.machine import (DAMAGE, F_AT, F_CARD, F_HI, F_HITS, F_KEEP, F_KIND, F_LAST, F_LO, F_N,
    F_NEXT, F_NH, F_OP, F_OPEN, F_ROWS, F_SLOT, F_TOP, F_TRIGGER, FIRING, I_CARD)
from battlesim.ecs.compiled.interpreter import MAX_DEPTH as MAX_FIRINGS, NO_SLOT, WIDTH
from battlesim.ecs.compiled.emit import (DAMAGE_CLOSE, DAMAGE_OPEN, DAMAGE_ROW, EMITTING, I_EMIT, OPCODE_DONE,
    OPCODE_HIT, emit)
from battlesim.ecs.compiled.damage_queue import (AMOUNT as Q_AMOUNT, DEALT as Q_DEALT, KIND as Q_KIND,
    SOURCE as Q_SOURCE, TARGET as Q_TARGET)

N_STAGES = len(STAGES)


@njit(cache=True, _nrt=False)
def open_events(st, b, m, ev0, nf, top):
    """Game b's events ev0..nevents as firings on the frame stack, one per run of consecutive
    events of one trigger (numpy's one ``Ctx`` per ``fire`` call), the first run on top; their
    rows copied to the arena as ``C_*`` rows and the events given back (nevents = ev0). Returns
    (frames, arena top, status)."""
    n = st.nevents[b]
    if n > st.events.shape[1]:
        return nf, top, QUEUE_FULL
    end = n
    while end > ev0:  # the last run first: it goes deepest
        start = end - 1
        trig = st.events[b, start, _events.TRIGGER]
        while start > ev0 and st.events[b, start - 1, _events.TRIGGER] == trig:
            start -= 1
        if nf >= m.frames.shape[0]:
            return nf, top, TOO_DEEP
        if top + (end - start) > m.arena.shape[0]:
            return nf, top, QUEUE_FULL
        for j in range(end - start):
            i = start + j
            r = top + j
            m.arena[r, C_CARD] = st.events[b, i, _events.CARD]
            m.arena[r, C_OWNER] = st.events[b, i, _events.OWNER]
            m.arena[r, C_LANE] = st.events[b, i, _events.LANE]
            m.arena[r, C_POS] = st.events[b, i, _events.POS]
            m.arena[r, C_SOURCE] = st.events[b, i, _events.SOURCE]
            m.arena[r, C_CASTER] = st.events[b, i, _events.CASTER]
            m.arena[r, C_CHOSEN] = st.events[b, i, _events.CHOSEN]
            m.arena[r, C_CHOSEN_LANE] = st.events[b, i, _events.CHOSEN_LANE]
            m.arena[r, C_OTHER] = st.events[b, i, _events.OTHER]
        open_firing(m, nf, trig, top, end - start)
        nf += 1
        top += end - start
        end = start
    st.nevents[b] = ev0
    return nf, top, OK


@njit(cache=True, _nrt=False)
def open_firing(m, f, trigger, rows, n):
    """Frame f: a firing of ``trigger`` over arena rows rows..rows+n, not yet started."""
    m.frames[f, F_KIND] = FIRING
    m.frames[f, F_TRIGGER] = trigger
    m.frames[f, F_ROWS] = rows
    m.frames[f, F_N] = n
    m.frames[f, F_OPEN] = 0
    m.frames[f, F_TOP] = rows
    m.frames[f, F_AT] = 0


@njit(cache=True, _nrt=False)
def set_off(st, b, m, nf, top, pushed, ev0):
    """What a stage pass or an opcode call pushed, on the frame stack to run before its caller
    goes on: its events (as firings), then its damage rows (a damage level, on top: they resolve
    first). Returns (frames, arena top, status)."""
    status = OK
    if st.nevents[b] > ev0:
        nf, top, status = open_events(st, b, m, ev0, nf, top)
        if status != OK:
            return nf, top, status
    if m.qlen[b] > pushed:
        if m.qlen[b] > m.queue.shape[1]:
            return nf, top, QUEUE_FULL
        if nf >= m.frames.shape[0]:
            return nf, top, TOO_DEEP
        m.frames[nf, F_KIND] = DAMAGE
        m.frames[nf, F_LO] = pushed
        m.frames[nf, F_HI] = m.qlen[b]
        m.frames[nf, F_NEXT] = 0
        m.frames[nf, F_KEEP] = 0
        nf += 1
        if m.info[I_EMIT] == EMITTING:
            emit(DAMAGE_OPEN, b, 0, 0, 0, 0, 0)
    return nf, top, status


@njit(cache=True, _nrt=False)
def resolve(st, g, rng, b, m, kind, start, trigger, ctx, nctx):
    """The machine, entered by ``resolve_damage`` (kind 0: rows start..qlen[b]), ``drain`` (1:
    the pending events) or ``fire`` (2: ``trigger`` over rows ctx[:nctx]); ONE compiled function,
    which phases call unlinked (``ecs/compiled/unlinked.py``: a function that linked it would
    optimise and emit all of it again). Runs the frame on top until the stack is empty. A damage level runs one stage
    over its rows per step, then what that pass set off (reactions' rows, the events of "On
    Damage Taken") before its next stage; a firing runs one (slot, pair) group per step as
    ``Executor.fire`` does (rows whose card has no effect on the trigger or whose source is
    quiet dropped when it starts; slots in card order; pairs by opcode then selector id), then
    what the opcode set off; an opcode that returned a resume token is called again with it once
    that resolved. Returns OK or the first failure (``m.info[I_CARD]``: the card)."""
    m.info[I_CARD] = -1
    nf = 0
    top = 0
    if kind == 0:
        if m.qlen[b] > m.queue.shape[1]:
            return QUEUE_FULL
        if m.qlen[b] <= start:
            return OK
        m.frames[0, F_KIND] = DAMAGE
        m.frames[0, F_LO] = start
        m.frames[0, F_HI] = m.qlen[b]
        m.frames[0, F_NEXT] = 0
        m.frames[0, F_KEEP] = 1
        nf = 1
        if m.info[I_EMIT] == EMITTING:
            emit(DAMAGE_OPEN, b, 0, 0, 0, 0, 0)
    elif kind == 1:
        if st.nevents[b] == 0:
            return OK
        nf, top, status = open_events(st, b, m, 0, 0, 0)
        if status != OK:
            return status
    else:
        if nctx == 0:
            return OK
        if nctx > m.arena.shape[0]:
            return QUEUE_FULL
        for r in range(nctx):
            for c in range(NCTX):
                m.arena[r, c] = ctx[r, c]
        open_firing(m, 0, trigger, 0, nctx)
        nf = 1
        top = nctx
    queue, qlen, frames, arena, tbl, maps, cols = m.queue, m.qlen, m.frames, m.arena, m.tbl, m.maps, m.icols
    E = tbl.shape[2]
    firings = 0  # firings open that act: numpy's Executor.depth
    while nf > 0:
        f = nf - 1
        if frames[f, F_KIND] == DAMAGE:
            k = frames[f, F_NEXT]
            if k >= N_STAGES:
                if m.info[I_EMIT] == EMITTING:  # the level's rows as every stage left them
                    for i in range(frames[f, F_LO], frames[f, F_HI]):
                        emit(DAMAGE_ROW, b, queue[b, i, Q_SOURCE], queue[b, i, Q_TARGET], queue[b, i, Q_AMOUNT],
                             queue[b, i, Q_KIND], queue[b, i, Q_DEALT])
                    emit(DAMAGE_CLOSE, b, 0, 0, 0, 0, 0)
                if frames[f, F_KEEP] == 0:
                    qlen[b] = frames[f, F_LO]  # a nested level's rows are done with
                nf -= 1
                continue
            frames[f, F_NEXT] = k + 1
            lo = frames[f, F_LO]
            hi = frames[f, F_HI]
            pushed = qlen[b]
            ev0 = st.nevents[b]
            # STAGES
            nf, top, status = set_off(st, b, m, nf, top, pushed, ev0)
            if status != OK:
                return status
            continue
        # a firing
        rows = frames[f, F_ROWS]
        trigger = frames[f, F_TRIGGER]
        if frames[f, F_OPEN] == 0:  # starts now: the rows that act, the depth bound
            n = 0
            for r in range(rows, rows + frames[f, F_N]):
                card = arena[r, C_CARD]
                has = False
                for e in range(E):
                    if tbl[T_TRIGGER, card, e] == trigger:
                        has = True
                if not has:
                    continue
                if arena[r, C_SOURCE] >= 0 and is_quiet(st, g, b, arena[r, C_SOURCE], cols):
                    continue
                if rows + n != r:
                    for c in range(NCTX):
                        arena[rows + n, c] = arena[r, c]
                n += 1
            frames[f, F_N] = n
            if n == 0:
                nf -= 1
                top = frames[f, F_TOP]
                continue
            firings += 1
            frames[f, F_OPEN] = 1
            if firings > MAX_FIRINGS:
                m.info[I_CARD] = arena[rows, C_CARD]
                return TOO_DEEP
            frames[f, F_SLOT] = 0
            frames[f, F_LAST] = -1
            frames[f, F_AT] = 0
        nk = frames[f, F_N]
        h0 = frames[f, F_HITS]
        at = frames[f, F_AT]
        if at == 0:  # the next (slot, pair) group, or the end of the firing
            e = frames[f, F_SLOT]
            last = frames[f, F_LAST]
            best = -1
            while e < E:
                for r in range(rows, rows + nk):
                    card = arena[r, C_CARD]
                    if tbl[T_TRIGGER, card, e] != trigger:
                        continue
                    key = (tbl[T_OP, card, e] << 16) | (tbl[T_SELECT, card, e] + 1)
                    if key > last and (best < 0 or key < best):
                        best = key
                if best >= 0:
                    break
                e += 1
                last = -1
            if best < 0:
                nf -= 1
                firings -= 1
                top = frames[f, F_TOP]
                continue
            frames[f, F_SLOT] = e
            frames[f, F_LAST] = best
            op = best >> 16
            sel = (best & 0xFFFF) - 1
            g0 = rows + nk  # the group's rows, then the selector's pairs, made hits in place
            ng = 0
            for r in range(rows, rows + nk):
                card = arena[r, C_CARD]
                if tbl[T_TRIGGER, card, e] == trigger and ((tbl[T_OP, card, e] << 16) | (tbl[T_SELECT, card, e] + 1)) == best:
                    for c in range(NCTX):
                        arena[g0 + ng, c] = arena[r, c]
                    ng += 1
            h0 = g0 + ng
            room = arena.shape[0] - h0
            if room < CAPACITY:
                m.info[I_CARD] = arena[g0, C_CARD]
                return QUEUE_FULL
            out = arena[h0:]
            if sel < 0:  # no selector: one hit per row, no target
                nt = ng
                for i in range(ng):
                    out[i, 0] = i
                    out[i, 1] = -1
            else:
                if maps[1, sel] < 0:
                    m.info[I_CARD] = arena[g0, C_CARD]
                    return UNPORTED
                nt = run_selector(maps[1, sel], st, g, rng, b, arena[g0:h0], ng, tbl, e, cols, out)
                if nt > room:
                    m.info[I_CARD] = arena[g0, C_CARD]
                    return QUEUE_FULL
            if nt == 0:  # no target: numpy runs no kernel (the selector's draws are made)
                continue
            kop = maps[0, op]
            if kop < 0:
                m.info[I_CARD] = arena[g0, C_CARD]
                return UNPORTED
            for i in range(nt):
                r = g0 + out[i, 0]
                t = out[i, 1]
                card = arena[r, C_CARD]
                h = h0 + i
                arena[h, H_SOURCE] = arena[r, C_SOURCE]
                arena[h, H_CASTER] = arena[r, C_CASTER]
                arena[h, H_OWNER] = arena[r, C_OWNER]
                arena[h, H_LANE] = arena[r, C_LANE]
                arena[h, H_POS] = arena[r, C_POS]
                arena[h, H_CARD] = card
                arena[h, H_TARGET] = t
                arena[h, H_AMOUNT] = tbl[T_AMOUNT, card, e]
                arena[h, H_CHOSEN_LANE] = arena[r, C_CHOSEN_LANE]
                arena[h, H_OTHER] = arena[r, C_OTHER]
                arena[h, H_EFFECT] = e
                for c in range(H_EFFECT + 1, WIDTH):
                    arena[h, c] = 0
            frames[f, F_HITS] = h0
            frames[f, F_NH] = nt
            frames[f, F_OP] = kop
            frames[f, F_CARD] = arena[g0, C_CARD]
            top = h0 + nt
        pushed = qlen[b]
        ev0 = st.nevents[b]
        nh = frames[f, F_NH]
        status = run_opcode(frames[f, F_OP], st, g, rng, b, arena[h0:h0 + nh], nh, tbl, cols, queue, qlen, at)
        if status < 0:
            m.info[I_CARD] = frames[f, F_CARD]
            return status
        if m.info[I_EMIT] == EMITTING:  # the hits it was called with, then the call itself
            for i in range(h0, h0 + nh):
                emit(OPCODE_HIT, b, arena[i, H_OWNER], arena[i, H_AMOUNT], arena[i, H_TARGET], arena[i, H_CARD],
                     arena[i, H_SOURCE])
            emit(OPCODE_DONE, b, frames[f, F_OP], nh, 0, 0, 0)
        frames[f, F_AT] = status  # 0: done; else called again with it once what it pushed resolved
        nf, top, status = set_off(st, b, m, nf, top, pushed, ev0)
        if status != OK:
            m.info[I_CARD] = frames[f, F_CARD]
            return status
    return OK


@njit(inline="always", cache=True, _nrt=False)
def resolve_damage(st, g, rng, b, m, start):
    """Rows start..qlen[b] of game b's damage queue through every stage, reactions and the
    effects they trigger resolved where numpy resolves them. The rows stay in the queue (their
    amount, dealt and excess as the stages left them); nested levels give theirs back."""
    return resolve(st, g, rng, b, m, 0, start, -1, m.arena, 0)


@njit(inline="always", cache=True, _nrt=False)
def drain(st, g, rng, b, m):
    """Every pending event of game b (``st.events``), each run of one trigger fired as one
    firing, in queue order, with everything it sets off."""
    return resolve(st, g, rng, b, m, 1, 0, -1, m.arena, 0)


@njit(inline="always", cache=True, _nrt=False)
def fire(st, g, rng, b, m, trigger, ctx, nctx):
    """One firing of ``trigger`` over rows ctx[:nctx] (fields C_*: a spell's caster and chosen
    target, an improvement's lane), with everything it sets off."""
    return resolve(st, g, rng, b, m, 2, 0, trigger, ctx, nctx)
'''

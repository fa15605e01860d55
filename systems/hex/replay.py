"""``battlesim replay --ruleset hex``: one battle written action by action.

The compiled batch loop keeps no log, so a replay plays the game from Python one decision at a
time through the same compiled kernels in the same order as ``play.play_game`` (``setup_game``,
then ``agent_action`` and ``apply_action`` for the seat to act, ``between_turns`` when nobody
can act): the same game as that seed's row in any run. Each action says which unit did what to
which hex; then every damage instance (type, amount before and after the reductions, health
lost), deaths, counters that changed, the centre token; each round's end and start, and the
victory check.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from battlesim.systems.hex.battle import ABILITY_0, ATTACK, CHARGE, MOVE, SKIP, U, V, acting_slot
from battlesim.systems.hex.board import coords
from battlesim.systems.hex.damage_stages import MAGICAL, PHYSICAL, RETALIATION, RETURN, STATUS
from battlesim.systems.hex.game import MAX_STEPS, Armies, HexBatch, agent_codes
from battlesim.systems.hex.play import SETUP, STEP, play_batch
from battlesim.systems.hex.results import games_columns
from battlesim.systems.hex.state import (
    CENTRE_SHIELD,
    CONTROLLER,
    END_REASON,
    END_REASONS,
    FIRST_PLAYER,
    HEALTH,
    MANA,
    POS,
    ROUND,
    STATUS_NAMES,
    TO_ACT,
    WINNER,
    st,
)

LOG = 4096  # damage rows a replay can print per action (far more than one action deals)
WATCHED = tuple(n for n in STATUS_NAMES)


def replay_game(armies: Armies, seed: int, decks: Sequence[str], agents: Sequence[Any],
                write: Callable[[str], Any] = print) -> dict[str, Any]:
    """Play game ``seed`` alone, writing it; returns its games-table row."""
    hb = HexBatch(armies, np.array([seed], dtype=np.int64), log=LOG)
    bt = hb.bt
    w, cols, f, k = bt.st, bt.cols, bt.f, bt.k
    codes = agent_codes(agents)
    army = armies.army
    one = np.zeros(1, dtype=np.int64)

    def call(mode: int) -> int:
        play_batch(w, cols, f, k, hb.rng, one, codes, MAX_STEPS, False, mode, hb.out)
        return int(hb.out[0, 0])

    def at(h: int) -> str:
        c, r = coords(int(h))
        return f"({c},{r})"

    def unit(s: int) -> str:
        return f"{army.card.get(s, '?')} (side {s // 16}) at {at(w.i16[cols[POS], 0, s])}"

    def snapshot() -> dict[int, tuple]:
        return {int(s): (int(w.i16[cols[HEALTH], 0, s]), int(w.i16[cols[MANA], 0, s]),
                         tuple(int(w.i16[cols[st(n)], 0, s]) for n in WATCHED), unit(int(s)))
                for s in np.flatnonzero(w.alive[0])}

    def effects(before: dict[int, tuple]) -> None:
        damaged = {int(t) for t in k.log[:int(k.nlog[0]), 1]}
        for i in range(int(k.nlog[0])):
            src, tgt, kind, pushed, after, dealt = (int(x) for x in k.log[i])
            ty = "physical" if kind & PHYSICAL else ("magical" if kind & MAGICAL else "pure")
            what = ("status" if kind & STATUS else "returned" if kind & RETURN
                    else "retaliation" if kind & RETALIATION else "damage")
            by = before[src][3] if src in before else ("statuses" if src < 0 else f"slot {src}")
            red = f"{pushed} - {pushed - after} reduced = {after}" if pushed >= 0 else f"{after}"
            write(f"    {what} {ty} {red} from {by} to {before[tgt][3] if tgt in before else unit(tgt)}: health -{dealt}")
        k.nlog[0] = 0
        now = snapshot()
        for s, (hp, mana, counters, who) in before.items():
            if s not in now:
                write(f"    {who} dies")
                continue
            _, mana2, counters2, _ = now[s]
            changed = [f"{n} {a} -> {b}" for n, a, b in zip(WATCHED, counters, counters2) if a != b]
            if mana2 != mana:
                changed.append(f"mana {mana} -> {mana2}")
            if now[s][0] != hp and s not in damaged:
                changed.append(f"health {hp} -> {now[s][0]}")
            if changed:
                write(f"    {who}: {', '.join(changed)}")

    call(SETUP)
    first = int(f.g[0, FIRST_PLAYER])
    write(f"hex battle seed {seed}: {decks[0]} (side 0, {name_of(agents[0])}) vs {decks[1]} (side 1, "
          f"{name_of(agents[1])}); side {first} is the first player (it opens round 1 and wins iff it holds the "
          f"centre (4,3) after round 7)")
    write("round 1")
    n = 0
    shield = int(f.g[0, CENTRE_SHIELD])
    while f.g[0, WINNER] < 0 and n < MAX_STEPS:
        seat = int(f.g[0, TO_ACT])
        before = snapshot()
        if seat < 0:
            rnd = int(f.g[0, ROUND])
            write(f"round {rnd} ends: timed statuses and modifiers tick")
            call(STEP)
            if f.g[0, WINNER] < 0:
                write(f"round {int(f.g[0, ROUND])} starts: refresh, burn/poison/bleed, regen, fade")
                effects(before)
                write(f"  side {int(f.g[0, TO_ACT])} opens")
            continue
        slots = [int(acting_slot(w, cols, 0, seat, u)) for u in range(U)]  # before the step changes them
        a = call(STEP)
        write("  " + describe(a, slots, lambda s, snap=before: snap[s][3], at, army.abilities))
        n += 1
        effects(before)
        if shield and not f.g[0, CENTRE_SHIELD]:
            shield = 0
            holder = [s for s in np.flatnonzero(w.alive[0]) if w.i16[cols[POS], 0, s] == 29]
            write(f"    the centre's +1 Shield token goes to {unit(int(holder[0])) if holder else '?'}")
    hb.out[0, 0] = n
    winner = int(f.g[0, WINNER])
    reason = END_REASONS[int(f.g[0, END_REASON])]
    on = [s for s in np.flatnonzero(w.alive[0]) if w.i16[cols[POS], 0, s] == 29]
    if reason == "centre":
        held = f"{unit(int(on[0]))} (controlled by side {w.i16[cols[CONTROLLER], 0, on[0]]})" if on else "nobody"
        write(f"victory check after round 7: the centre holds {held}; side {winner} wins")
    else:
        write(f"early end: the first player (side {first}) has no unit left; side {winner} wins")
    cols_ = games_columns(hb, (decks[0], decks[1]), [name_of(a) for a in agents])
    return {key: v[0].item() if hasattr(v[0], "item") else v[0] for key, v in cols_.items()}


def name_of(agent: Any) -> str:
    return str(getattr(agent, "name", agent))


def describe(a: int, slots: list[int], unit: Callable[[int], str], at: Callable[[int], str],
             abilities: dict[int, list[str]]) -> str:
    """Battle-table entry ``a`` in words (before it is applied); ``slots[u]``: the unit block u
    named then (``battle.acting_slot``)."""
    h, uv = a % 59, a // 59
    v, s = uv % V, slots[uv // V]
    if v == SKIP:
        return f"{unit(s)} skips"
    if v == MOVE:
        return f"{unit(s)} moves to {at(h)}"
    if v == ATTACK:
        return f"{unit(s)} attacks {at(h)}"
    if v == CHARGE:
        return f"{unit(s)} charges {at(h)}"
    names = abilities.get(s, [])
    kk = v - ABILITY_0
    return f"{unit(s)} uses {names[kk] if kk < len(names) else f'ability {kk}'} on {at(h)}"

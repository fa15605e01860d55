"""One classes game replayed alone, each phase and step written as it happens (``battlesim replay
--ruleset classes --seed S``).

Why it walks ``loop.py``'s step functions from Python instead of logging inside the loop: the
steps are the compiled loop's own (``begin_step``, ``main_one``, ``act_one``, ``haste_step``,
``battle_step``) called in ``loop.play_game``'s order, so the replayed game *is* the run's game
(its games-table row equals the run's: tested) and the batch loop carries no logging cost. What
each step did is read off the state before and after it: mana refreshed and paid, enchantment
tokens spent, cards cast and prepared, units summoned, moved, damaged, defending and dead, life,
experience and levels, the Nether returning to the hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from battlesim.systems.classes import loop
from battlesim.systems.classes.acting import snapshot
from battlesim.systems.classes.actions import end_phase
from battlesim.systems.classes.agent import CANDIDATES, K_ABILITY, K_CAST, K_CAST_PREPARED, K_PREPARE, MAIN_ACTIONS
from battlesim.systems.classes.board import LANES
from battlesim.systems.classes.games import Batch, agent_codes, new_batch, scratch
from battlesim.systems.classes.rules import Compiled
from battlesim.systems.classes.state import (
    A_CARD,
    A_TOKENS,
    G_ACTIVE,
    G_ATTACKS,
    G_BASE_DEFENSE,
    G_ENDED,
    G_LOG,
    G_TURN,
    LOG_FIELDS,
    LOG_N,
    NCOL,
    P_CURRENT,
    P_EXP,
    P_LEVEL,
    P_LIFE,
    P_POOL,
    P_PREP,
    P_TRACK,
    T_INTERSECTION,
    T_LANE,
    T_NONE,
    T_PLAYER,
    U_ACTED,
    U_ATTACK,
    U_CARD,
    U_DEFENDING,
    U_HEALTH,
    U_PRESENT,
    U_SHIELD,
    U_SIDE,
    U_UID,
    W_ID,
    Game,
)
from battlesim.systems.classes.units import find_target, find_uid
from battlesim.systems.classes.vocabulary import COLOURS

KIND_WORDS = {K_CAST: "casts", K_PREPARE: "prepares", K_CAST_PREPARED: "casts its prepared", K_ABILITY: "uses"}


def _copy(G: Game) -> Game:
    return Game(*[a.copy() for a in G])


def _at(f: int) -> str:
    return f"[{f % LANES},{f // LANES}]"


class Narrator:
    """Names ids and words the difference between two states of game 0."""

    def __init__(self, compiled: Compiled, write: Callable[[str], Any]) -> None:
        self.c, self.write = compiled, write

    def card(self, c: int) -> str:
        return self.c.card_names[c] if c >= 0 else "(token)"

    def unit(self, G: Game, f: int) -> str:
        return f"{self.card(int(G.u[0, f, U_CARD]))} of P{int(G.u[0, f, U_SIDE])} at {_at(f)}"

    def target(self, G: Game, t: int) -> str:
        if t == T_NONE:
            return ""
        if t >= T_LANE:
            return f" on lane {t - T_LANE}"
        if t >= T_INTERSECTION:
            return f" on intersection {t - T_INTERSECTION}"
        if t >= T_PLAYER:
            return f" on player P{t - T_PLAYER}"
        return f" on {self.unit(G, t) if G.u[0, t, U_PRESENT] else 'field ' + _at(t)}"

    def action(self, G: Game, side: int, row: np.ndarray) -> None:
        kind, what, ab, t = (int(x) for x in row)
        if kind == K_ABILITY:
            pid = int(G.pw[0, side, what, W_ID])
            name = f"class power {self.c.power_names[pid]} ability {ab + 1}"
        else:
            name = self.card(what)
        self.write(f"  P{side} {KIND_WORDS[kind]} {name}{self.target(G, t)}")

    def changes(self, a: Game, z: Game) -> None:
        """Every difference between ``a`` (before) and ``z`` (after), one line each."""
        w = self.write
        for s in (0, 1):
            pool = [int(z.pl[0, s, P_POOL + c]) for c in range(NCOL)]
            mana = slice(P_POOL, P_CURRENT + 1)  # the pool, the cooldown track and its current slot
            if not np.array_equal(a.pl[0, s, mana], z.pl[0, s, mana]):
                track = [[int(z.pl[0, s, P_TRACK + k * NCOL + c]) for c in range(NCOL)] for k in range(3)]
                w(f"    P{s} mana pool {_colours(pool)}; cooldown track {' | '.join(_colours(t) for t in track)}"
                  f" (current slot {int(z.pl[0, s, P_CURRENT])})")
            ha, hz = _cards(a.hand[0, s]), _cards(z.hand[0, s])
            na, nz = _cards(a.nether[0, s]), _cards(z.nether[0, s])
            back = (na - nz) & (hz - ha)
            if back:
                w(f"    P{s} regains from the Nether: {self._list(back)}")
            if (hz - ha) - back:
                w(f"    P{s} takes into hand: {self._list((hz - ha) - back)}")
            if nz - na:
                w(f"    P{s} Nether receives: {self._list(nz - na)}")
            pa, pz = int(a.pl[0, s, P_PREP]), int(z.pl[0, s, P_PREP])
            if pa >= 0 and pz < 0:
                w(f"    P{s} casts its prepared {self.card(pa)}")
            elif pa != pz:
                w(f"    P{s} prepared spell: {self.card(pa) if pa >= 0 else 'none'} -> {self.card(pz)}")
            self._area(a, z, s)
            for name, col in (("life", P_LIFE), ("experience", P_EXP), ("level", P_LEVEL)):
                x, y = int(a.pl[0, s, col]), int(z.pl[0, s, col])
                if x != y:
                    w(f"    P{s} {name} {x} -> {y}" + ("  LEVEL UP" if col == P_LEVEL and y > x else ""))
        self._attacks(a, z)
        self._units(a, z)

    def _attacks(self, a: Game, z: Game) -> None:
        """Each attack made between ``a`` and ``z`` (the kernel's ring, ``state.G_LOG``): attacker,
        the target the search rule chose, its Attack, the defence (base + shields - flankers) if
        the target defended, and the damage."""
        n0, n1 = int(a.g[0, G_ATTACKS]), int(z.g[0, G_ATTACKS])
        for i in range(max(n0, n1 - LOG_N), n1):
            row = z.g[0, G_LOG + (i % LOG_N) * len(LOG_FIELDS):][:len(LOG_FIELDS)]
            f, t, atk, d, n, dmg = (int(x) for x in row)
            # attack first: it stood on f before the act; advance first: it stands there after
            who = self.unit(a, f) if a.u[0, f, U_PRESENT] else self.unit(z, f) if z.u[0, f, U_PRESENT] else _at(f)
            if t >= T_PLAYER:
                self.write(f"    {who} attacks player P{t - T_PLAYER} with Attack {atk}: damage {dmg}")
                continue
            g = a if a.u[0, t, U_PRESENT] else z
            target = self.unit(g, t)
            if d < 0:
                guard = "not defending, no defence"
            else:
                # classes.md: defence = base defense + shields, less one per flanking foe, at least 0
                guard = (f"defending, defence {d} = base {int(g.g[0, G_BASE_DEFENSE])} + shield "
                         f"{int(g.u[0, t, U_SHIELD])} - {n} flanker{'s' if n != 1 else ''}"
                         f"{' (flanked)' if n else ' (not flanked)'}")
            self.write(f"    {who} attacks {target} with Attack {atk}: {guard}; damage {dmg}")

    def _area(self, a: Game, z: Game, s: int) -> None:
        before = {int(a.area[0, s, k, A_CARD]): int(a.area[0, s, k, A_TOKENS]) for k in range(a.area.shape[2])}
        after = {int(z.area[0, s, k, A_CARD]): int(z.area[0, s, k, A_TOKENS]) for k in range(z.area.shape[2])}
        for c in sorted(set(before) | set(after)):
            if c < 0 or before.get(c) == after.get(c):
                continue
            if c not in before:
                self.write(f"    P{s} play area: {self.card(c)} placed (enchantment tokens {after[c]})")
            elif c not in after:
                self.write(f"    P{s} play area: {self.card(c)} leaves")
            else:
                self.write(f"    P{s} play area: {self.card(c)} unleashed, duration tokens {before[c]} -> {after[c]}")

    def _units(self, a: Game, z: Game) -> None:
        def units(G: Game) -> dict[int, int]:
            return {int(G.u[0, f, U_UID]): f for f in range(G.u.shape[1]) if G.u[0, f, U_PRESENT]}

        ua, uz = units(a), units(z)
        for uid, f in ua.items():
            if uid not in uz:
                self.write(f"    {self.unit(a, f)} dies")
        for uid, g in uz.items():
            if uid not in ua:
                self.write(f"    {self.unit(z, g)} summoned ({int(z.u[0, g, U_ATTACK])}/{int(z.u[0, g, U_HEALTH])})")
                continue
            f = ua[uid]
            name = self.unit(a, f)
            if f != g:
                self.write(f"    {name} advances to {_at(g)}")
            for word, col in (("Attack", U_ATTACK), ("HP", U_HEALTH)):
                x, y = int(a.u[0, f, col]), int(z.u[0, g, col])
                if x != y:
                    self.write(f"    {name}: {word} {x} -> {y}")
            if z.u[0, g, U_DEFENDING] and not a.u[0, f, U_DEFENDING]:
                self.write(f"    {name} defends")

    def _list(self, cards: Counter) -> str:
        return ", ".join(f"{self.card(c)}" + (f" x{n}" if n > 1 else "") for c, n in sorted(cards.items()))


def _cards(pile: np.ndarray) -> Counter:
    return Counter(int(c) for c in pile if c >= 0)


def _colours(v: list[int]) -> str:
    return " ".join(f"{COLOURS[c]} {n}" for c, n in enumerate(v) if n) or "empty"


def replay_game(game: Any, seed: int, decks: tuple[str, str], agents: Sequence[Any],
                write: Callable[[str], Any] = print) -> dict[str, Any]:
    """Game ``seed`` played alone through ``loop.py``'s steps in ``loop.play_game``'s order,
    each step's changes written; returns its games-table row."""
    from battlesim.systems.classes.results import games_columns

    names = [str(getattr(a, "name", a)) for a in agents]
    codes = np.asarray(agent_codes(names), dtype=np.int64)
    bt = new_batch(game, decks, np.array([seed], dtype=np.int64))
    write(f"classes game seed {seed}: P0 {decks[0]} ({names[0]}) vs P1 {decks[1]} ({names[1]}); "
          f"P{int(bt.G.g[0, G_ACTIVE])} begins (choice 25: the seed's parity)")
    play_narrated(bt, codes, scratch(game, bt.compiled.rules.cards.shape[0]), Narrator(bt.compiled, write), decks, names)
    cols = games_columns(bt, decks, names)
    return {k: (v[0].item() if hasattr(v[0], "item") else v[0]) for k, v in cols.items()}


def play_narrated(bt: Batch, codes: np.ndarray, S: Game, n: Narrator, decks: Sequence[str],
                  names: Sequence[str]) -> None:
    """``loop.play_game`` for game 0, step by step, each step's changes written."""
    G, R, rng, w = bt.G, bt.compiled.rules, bt.rng, n.write
    rows = np.empty((CANDIDATES, 4), np.int64)
    chosen = np.empty(4, np.int64)
    uids, first = np.empty(G.u.shape[1], np.int64), np.empty(G.u.shape[1], np.int64)
    args = (rng, rows, codes, S)

    def step(title: str, fn: Callable[[], int], always: bool = True) -> int:
        """One step; its title (if ``always`` or anything changed), then its changes."""
        before = _copy(G)
        v = int(fn())
        lines: list[str] = []
        n.write = lines.append
        n.changes(before, G)
        n.write = w
        if title and (always or lines):
            w(f"  {title}")
        for line in lines:
            w(line)
        if v and v != 1:
            raise RuntimeError(f"the game broke an invariant (code {v}) at {title or 'a step'}")
        return v

    while not G.g[0, G_ENDED]:
        p = int(G.g[0, G_ACTIVE])
        w(f"turn {int(G.g[0, G_TURN])}: P{p} ({decks[p]}, {names[p]})")
        step("Begin Phase (mana refreshed, enchantments unleashed)", lambda: loop.begin_step(G, R, 0, *args))
        if G.g[0, G_ENDED]:
            break
        w("  Main Phase")
        for _ in range(MAIN_ACTIONS):
            before = _copy(G)
            v = int(loop.main_one(G, R, 0, *args, chosen))
            if v == 0:
                w(f"  P{p} passes")
                break
            n.action(before, p, chosen)
            n.changes(before, G)
            if v != 1:
                raise RuntimeError(f"the game broke an invariant (code {v}) in the Main Phase")
            if G.g[0, G_ENDED]:
                break
        if G.g[0, G_ENDED]:
            break
        step("", lambda: loop.reaction(G, R, 0, rng, rows, codes, S))
        m = snapshot(G, R, 0, p, uids, first)
        w(f"  Battle Phase: {m} units act")
        for i in range(m):
            if G.g[0, G_ENDED]:
                break
            f = find_uid(G.u, 0, uids[i])
            if f < 0 or G.u[0, f, U_ACTED]:
                continue
            t = int(find_target(G.u, R, 0, f))
            seen = "no valid target" if t < 0 else "target" + n.target(G, t).replace(" on ", " ", 1)
            step(f"{n.unit(G, f)} acts (search rule: {seen})",
                 lambda uid=uids[i]: loop.act_one(G, R, 0, uid, *args))
        if G.g[0, G_ENDED]:
            break
        step("Haste", lambda: loop.haste_step(G, R, 0, rng, codes) or 0, always=False)
        step("end of the Battle Phase", lambda: loop.battle_step(G, R, 0, codes))
        if G.g[0, G_ENDED]:
            break
        step("End Phase (the Nether returns to the hand)", lambda: end_phase(G, 0) or 0)
    w("game over")

"""Applying hex battle actions and effects to one game: move, attack (melee, ranged, charge,
retreat), skip, ability, push, pull, damage, heal, round start and end.

Written in numba's subset around the compiled kernels (``battle``, ``turn``) with every damage
instance going through the compiled damage queue and the hex engine's ``run_damage``
(``ecs/compiled/engine.py build("hex")``). ``Battle.resolve`` is the one place damage is
resolved, so these sequences can be rebound onto ``@compiled_phase`` and ``resolve_damage``
(docs/compiled-core.md "How phases call the resolution machine") with little change.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from battlesim.ecs.compiled.damage_queue import OK, new_queue, push
from battlesim.ecs.compiled.engine import build
from battlesim.systems.hex import damage_stages  # noqa: F401  (declares hex's stages)
from battlesim.systems.hex.battle import (
    HexFields,
    has,
    legal_ability,
    legal_attack,
    legal_charge,
    legal_move,
    number,
    occupancy,
    passable,
    prop,
    reach,
)
from battlesim.systems.hex.board import AWAY, DIST, LINE, N_HEXES, TOWARD, coords
from battlesim.systems.hex.damage_stages import (
    ATTACK,
    COMBAT,
    MAGICAL,
    NONLETHAL,
    PHYSICAL,
    PURE,
    RANGED,
    RETALIATION,
)
from battlesim.systems.hex.state import (
    A_COMBINABLE,
    A_COST,
    A_EFFECTS,
    A_NEFFECTS,
    A_USED,
    ABILITIES,
    ACTIONS,
    BACKSTAB,
    CONTROLLER,
    COUNTERSTRIKE,
    DISARMED,
    E_AMOUNT,
    E_KEYWORD,
    E_NONLETHAL,
    E_ONLY,
    E_OP,
    E_ROUNDS,
    E_SET,
    E_STAT,
    E_STATUS,
    E_TYPE,
    FIRST_STATUS,
    FLYING,
    HEALTH,
    IMBUED,
    INTIMIDATE,
    M_AMOUNT,
    M_BY,
    M_KEYWORD,
    M_ONLY,
    M_SET,
    M_SLOT,
    M_SOURCE,
    M_STAT,
    M_UNTIL,
    MANA,
    MANABURN,
    MAX_HEALTH,
    NEF,
    NULL,
    OP_DAMAGE,
    OP_HEAL,
    OP_MANA,
    OP_MODIFIER,
    OP_PULL,
    OP_PUSH,
    OP_SHIELD,
    OP_STATUS,
    OPENER,
    OVERHEATED,
    OVERWATCH,
    PERMANENT,
    POS,
    RETREATING,
    ROOTED,
    ROUND,
    S_HEALTH,
    S_POWER,
    S_RANGE,
    SHIELD_C,
    SPELLPROOF,
    TO_ACT,
    TRAMPLE,
    VENGEANCE,
    WINNER,
    columns,
    view_of,
)
from battlesim.systems.hex.turn import (
    drop_modifier,
    end_turn,
    refresh,
    round_end,
    seat_can_act,
    settle,
    status_damage,
    status_tick,
    sync_modifiers,
)

QUEUE = 64
TYPE_BITS = (PHYSICAL, MAGICAL, PURE)  # the order of vocabulary.DAMAGE_TYPES


def at_(h: int) -> str:
    """A hex as scenarios write it, ``[col, row]``."""
    c, r = coords(h)
    return f"[{c}, {r}]"


class Illegal(ValueError):
    """A step the agent's mask would not allow (the scenario stops: exit 2)."""


class Battle:
    """One hex World with its compiled view, column table, damage queue and engine."""

    def __init__(self, world: Any) -> None:
        self.w = world
        self.view = view_of(world)
        self.st = self.view.state
        self.cols = columns(self.view)
        self.f = HexFields(world.g.hex, world.g.hex_mods, world.g.hex_abil)
        self.engine = build("hex")
        self.dcols = self.engine.columns(self.view.layout())
        self.queue, self.qlen, self.stack = new_queue(world.n_games, QUEUE)
        self.returned = np.zeros(world.n_slots, dtype=np.int64)
        self.occ = np.empty(N_HEXES, dtype=np.int64)
        self.steps = np.empty(N_HEXES, dtype=np.int64)
        self.prev = np.empty(N_HEXES, dtype=np.int64)

    # -- plumbing ---------------------------------------------------------------------------
    def i(self, k: int, b: int, s: int) -> int:
        return int(self.st.i16[self.cols[k], b, s])

    def put(self, k: int, b: int, s: int, v: int) -> None:
        self.st.i16[self.cols[k], b, s] = v

    def occupied(self, b: int) -> np.ndarray:
        occupancy(self.st, self.cols, b, self.occ)
        return self.occ

    def resolve(self, b: int, deaths: bool = True) -> None:
        """Every queued damage instance through hex's pipeline (``run_damage``), then deaths
        (hex.md "If a unit's health is reduced to below 1, the unit dies") unless ``deaths`` is
        False: a simultaneous instance still to come (Counterstrike) settles them."""
        status = self.engine.module.run_damage(self.st, b, self.queue, self.qlen, 0, self.dcols, self.stack)
        self.qlen[b] = 0
        if status != OK:
            raise RuntimeError(f"hex damage pipeline stopped ({status}) in game seed {self.w.seeds[b]}")
        if deaths:
            settle(self.st, self.cols, self.f, b, self.returned)

    def deal(self, b: int, source: int, target: int, amount: int, kind: int) -> None:
        push(self.queue, self.qlen, b, source, target, amount, kind)
        self.resolve(b)

    def alive(self, b: int, s: int) -> bool:
        return bool(self.st.alive[b, s])

    # -- movement ----------------------------------------------------------------------------
    def path_to(self, b: int, s: int, h: int) -> list[int]:
        """The hexes entered on a shortest path to h (lowest id at forks: I-23)."""
        reach(self.st, self.cols, self.f, b, s, self.occupied(b), self.steps, self.prev)
        out = []
        while h != self.i(POS, b, s) and h >= 0:
            out.append(h)
            h = int(self.prev[h])
        return out[::-1]

    def check_path(self, b: int, s: int, path: list[int], limit: int) -> None:
        """A given ``path``: adjacent steps through passable hexes, at most ``limit`` long."""
        occ = self.occupied(b)
        at = self.i(POS, b, s)
        if len(path) > limit:
            raise Illegal(f"path of {len(path)} hexes is longer than the movement {limit}")
        for h in path:
            if DIST[at, h] != 1:
                raise Illegal(f"path hex {at_(h)} is not adjacent to the one before")
            if occ[h] >= 0 and occ[h] != s and not passable(self.st, self.cols, self.f, b, s, occ[h]):
                raise Illegal("the path crosses a unit this unit cannot pass")
            at = h

    def walk(self, b: int, s: int, path: list[int]) -> None:
        """Move s along ``path``; each entry into an enemy's hex deals the trampler's X physical
        (hex.md "Trample X – ... deals X damage to each enemy unit in the hexes it moves through";
        I-23: the same hex again too; I-24: a flying unit moves over them and never tramples)."""
        x = 0 if has(self.st, self.cols, self.f, b, s, FLYING) else number(self.st, self.cols, b, s, TRAMPLE)
        for h in path:
            occ = self.occupied(b)
            o = int(occ[h])
            if x > 0 and o >= 0 and o != s and self.i(CONTROLLER, b, o) != self.i(CONTROLLER, b, s):
                self.deal(b, s, o, x, PHYSICAL)
            if not self.alive(b, s):
                return
        self.put(POS, b, s, path[-1] if path else self.i(POS, b, s))

    def spend(self, b: int, s: int) -> None:
        """hex.md "A unit that has no actions remaining is considered exhausted."."""
        self.put(ACTIONS, b, s, max(self.i(ACTIONS, b, s) - 1, 0))

    # -- actions -----------------------------------------------------------------------------
    def move(self, b: int, s: int, h: int, path: list[int] | None) -> None:
        """H10.3.1: a move action."""
        self.check_move(b, s, h)
        if path is not None:
            self.check_path(b, s, path, int(prop(self.st, self.cols, self.f, b, s, 2)))
        seat = self.i(CONTROLLER, b, s)
        self.walk(b, s, path if path is not None else self.path_to(b, s, h))
        self.spend(b, s)
        end_turn(self.st, self.cols, self.f, b, seat, True)

    def skip(self, b: int, s: int) -> None:
        """hex.md "Skipping consumes the unit's action, but does not count as taking an action"."""
        seat = self.i(CONTROLLER, b, s)
        self.spend(b, s)
        end_turn(self.st, self.cols, self.f, b, seat, False)

    def attack(self, b: int, s: int, t: int, approach: int | None, path: list[int] | None,
               retreat: int | None) -> None:
        """H10.3.2 / H11: an attack, a charge with ``approach`` (I-22), Retreating after it."""
        occ = self.occupied(b)
        seat = self.i(CONTROLLER, b, s)
        if approach is not None:
            if not legal_charge(self.st, self.cols, self.f, b, s, t, approach, occ, self.steps, self.prev):
                raise Illegal(f"unit cannot charge {at_(t)} from {at_(approach)}")
            self.walk(b, s, path if path is not None else self.path_to(b, s, approach))
        elif not legal_attack(self.st, self.cols, self.f, b, s, t, occ):
            raise Illegal(f"unit cannot attack {at_(t)} (no enemy there, out of range, disarmed, no power or rooted melee)")
        d = int(self.occupied(b)[t])
        if self.alive(b, s) and d >= 0:
            self.combat(b, s, d)
        if retreat is not None and self.alive(b, s):
            x = number(self.st, self.cols, b, s, RETREATING)
            here = self.i(POS, b, s)
            if x <= 0:
                raise Illegal("unit has no Retreating")
            if retreat != here:
                reach(self.st, self.cols, self.f, b, s, self.occupied(b), self.steps, self.prev)
                if self.occ[retreat] >= 0 or self.steps[retreat] > x or self.i(ROOTED, b, s) > 0:
                    raise Illegal(f"unit cannot retreat to {at_(retreat)}")
                self.walk(b, s, self.path_to(b, s, retreat))
        if self.alive(b, s):
            self.spend(b, s)
        end_turn(self.st, self.cols, self.f, b, seat, True)

    def retaliation_power(self, b: int, d: int, a: int) -> int:
        """hex-keywords.md "Vengeance X – This unit gets +X Power while retaliating."; "Intimidate X
        – ... the defender retaliates with -X Power." (I-21: floor 0)."""
        p = int(prop(self.st, self.cols, self.f, b, d, S_POWER))
        return max(p + number(self.st, self.cols, b, d, VENGEANCE) - number(self.st, self.cols, b, a, INTIMIDATE), 0)

    def can_retaliate(self, b: int, d: int, a: int) -> bool:
        """hex.md "A disarmed unit cannot attack or retaliate."; NULL power "cannot ... retaliate";
        "Backstab – When this unit attacks, the defender cannot retaliate."."""
        return (self.alive(b, d) and prop(self.st, self.cols, self.f, b, d, S_POWER) != NULL
                and self.i(DISARMED, b, d) == 0 and not has(self.st, self.cols, self.f, b, a, BACKSTAB))

    def combat_kind(self, b: int, s: int) -> int:
        """hex.md "Combat damage is physical"; "Imbued – This unit deals its combat damage as magic damage."."""
        return COMBAT | (MAGICAL if has(self.st, self.cols, self.f, b, s, IMBUED) else PHYSICAL)

    def combat(self, b: int, a: int, d: int) -> None:
        """Spec §2.8 (I-20): declaration (Manaburn), Overwatch, the attack (Counterstrike at the
        same instant), the kill-and-occupy or the push back and one retaliation; ranged: no
        retaliation (H11.4.2.3)."""
        st, cols, f = self.st, self.cols, self.f
        ranged = prop(st, cols, f, b, a, S_RANGE) != NULL
        from_hex = self.i(POS, b, a)
        target_hex = self.i(POS, b, d)
        mb = number(st, cols, b, a, MANABURN)
        if mb > 0 and self.i(MANA, b, d) != NULL:  # hex.md "Manaburn X – When this unit attacks, remove X mana"
            self.put(MANA, b, d, max(self.i(MANA, b, d) - mb, 0))
        retaliated = ranged
        if not ranged and has(st, cols, f, b, d, OVERWATCH) and self.can_retaliate(b, d, a):
            # hex-keywords.md "Overwatch – This unit retaliates before the attacker deals damage to it."
            self.deal(b, d, a, self.retaliation_power(b, d, a), self.combat_kind(b, d) | RETALIATION)
            retaliated = True
            if not self.alive(b, a):
                return
        power = int(prop(st, cols, f, b, a, S_POWER))
        counter = not retaliated and has(st, cols, f, b, d, COUNTERSTRIKE) and self.can_retaliate(b, d, a)
        back = self.retaliation_power(b, d, a) if counter else 0
        push(self.queue, self.qlen, b, a, d, power, self.combat_kind(b, a) | ATTACK | (RANGED if ranged else 0))
        # spec §2.8 (3): "Lifesteal heals before the counterstrike damage lands": the attack's
        # instance and its reactions first, deaths only after both (the two are simultaneous)
        self.resolve(b, deaths=not counter)
        if counter:
            # hex.md "Counterstrike – This unit retaliates at the same time that it is attacked."
            push(self.queue, self.qlen, b, d, a, back, self.combat_kind(b, d) | RETALIATION)
            self.resolve(b)
            retaliated = True
        if ranged or not self.alive(b, a):
            return
        if not self.alive(b, d):
            self.put(POS, b, a, target_hex)  # hex.md "the attacking unit moves into the defender's hex"
            return
        if self.returned[d]:
            return  # I-25: pushed back to its own hex; the returned unit does not retaliate
        self.put(POS, b, a, from_hex)
        if not retaliated and self.can_retaliate(b, d, a):
            self.deal(b, d, a, self.retaliation_power(b, d, a), self.combat_kind(b, d) | RETALIATION)

    def ability(self, b: int, s: int, k: int, t: int, move_to: int | None = None, move_first: bool = True) -> None:
        """H10.3.3: an ability action: "When paid, adjust the mana counter accordingly."; its
        effects on the target (hex.md "Spellproof – This unit is not affected by enemy active
        abilities.": cost paid, no effect, I-39). With ``move_to``: hex.md "Combinable – This unit
        may move and use this ability in a single action." (one move, before or after: "You may
        not split the movement"; the cost is paid after the move)."""
        st, cols, f = self.st, self.cols, self.f
        if move_to is not None:
            if not f.abil[b, s, k, A_COMBINABLE]:
                raise Illegal(f"ability {k} is not combinable")
            if move_first:
                self.check_move(b, s, move_to)
                self.walk(b, s, self.path_to(b, s, move_to))
                if not self.alive(b, s):
                    raise Illegal("the unit died on its way")
        if not legal_ability(st, cols, f, b, s, k, t, self.occupied(b)):
            raise Illegal(f"unit cannot use ability {k} on {at_(t)} (silenced, mana, range, target or once per round)")
        seat = self.i(CONTROLLER, b, s)
        cost = int(f.abil[b, s, k, A_COST])
        if cost > 0:
            self.put(MANA, b, s, self.i(MANA, b, s) - cost)
        f.abil[b, s, k, A_USED] = f.g[b, ROUND]
        o = int(self.occ[t])
        if o >= 0 and not (self.i(CONTROLLER, b, o) != seat and has(st, cols, f, b, o, SPELLPROOF)):
            for e in range(int(f.abil[b, s, k, A_NEFFECTS])):
                row = f.abil[b, s, k, A_EFFECTS + e * NEF: A_EFFECTS + (e + 1) * NEF]
                self.effect(b, s, o, row, s * ABILITIES + k)
        if move_to is not None and not move_first and self.alive(b, s):
            self.check_move(b, s, move_to)
            self.walk(b, s, self.path_to(b, s, move_to))
        if self.alive(b, s):
            self.spend(b, s)
        end_turn(st, cols, f, b, seat, True)

    def check_move(self, b: int, s: int, h: int) -> None:
        if not legal_move(self.st, self.cols, self.f, b, s, h, self.occupied(b), self.steps, self.prev):
            raise Illegal(f"unit cannot move to {at_(h)} (movement, root, the path or an occupied hex)")

    def effect(self, b: int, s: int, o: int, row: np.ndarray, source: int = -1) -> None:
        """One effect op of an inline ability (spec §5 ops: damage, heal, shield, status, mana)."""
        op, amount = int(row[E_OP]), int(row[E_AMOUNT])
        if not self.alive(b, o):
            return
        buff = self.i(CONTROLLER, b, o) == self.i(CONTROLLER, b, s)
        if buff and op in (OP_SHIELD, OP_STATUS, OP_MODIFIER) and self.i(OVERHEATED, b, o) > 0:
            return  # hex.md "Overheat – An overheated unit cannot be healed or buffed this round."
        if op == OP_DAMAGE:
            # hex.md "Magical damage is dealt by abilities unless otherwise specified."
            self.deal(b, s, o, amount, TYPE_BITS[int(row[E_TYPE])] | (NONLETHAL if row[E_NONLETHAL] else 0))
        elif op == OP_HEAL:
            self.heal(b, o, amount)
        elif op == OP_SHIELD:
            self.put(SHIELD_C, b, o, self.i(SHIELD_C, b, o) + amount)
        elif op == OP_STATUS:
            k = FIRST_STATUS + int(row[E_STATUS])
            value = amount if row[E_ROUNDS] <= 0 else int(row[E_ROUNDS])
            self.put(k, b, o, max(self.i(k, b, o), value))
        elif op == OP_MANA and self.i(MANA, b, o) != NULL:
            self.put(MANA, b, o, max(self.i(MANA, b, o) + amount, 0))
        elif op == OP_MODIFIER:
            self.add_modifier(b, s, o, row, source)
        elif op in (OP_PUSH, OP_PULL):
            # hex.md "Pushed X" / "Pulled X": from / toward the acting unit's hex
            self.displace(b, o, self.i(POS, b, s), amount, op == OP_PULL, None)

    def add_modifier(self, b: int, s: int, o: int, row: np.ndarray, source: int = -1) -> None:
        """hex.md "Some items and abilities modify the numerical value of properties." (I-35: an
        instance with the seat that applied it, H12.2 / H12.3 buff or debuff; ``rounds`` ->
        it expires at the end of round ``round + rounds - 1``, I-34). I-36: a non-stacking one
        ("Prop X", a granted keyword) from the same source (unit and ability) replaces the earlier
        instance (hex-keywords.md "if a buff does not stack, applying it again replaces it");
        "+X" ones add an instance each (hex.md "Numerical values stack")."""
        mods = self.f.mods[b]
        stacks = row[E_KEYWORD] < 0 and row[E_SET] < 0
        same = np.flatnonzero((mods[:, M_SLOT] == o) & (mods[:, M_SOURCE] == source) & (mods[:, M_STAT] == row[E_STAT])
                              & (mods[:, M_KEYWORD] == row[E_KEYWORD])) if not stacks and source >= 0 else []
        if len(same):
            drop_modifier(self.st, self.cols, self.f, b, int(same[0]))
        free = np.flatnonzero(mods[:, M_SLOT] < 0)
        if free.size == 0:
            raise RuntimeError(f"hex: more than {mods.shape[0]} modifiers in game seed {self.w.seeds[b]}")
        m = mods[free[0]]
        m[:] = -1
        m[M_SLOT] = o
        m[M_BY] = self.i(CONTROLLER, b, s)
        rounds = int(row[E_ROUNDS])
        m[M_UNTIL] = PERMANENT if rounds <= 0 else int(self.f.g[b, ROUND]) + rounds - 1
        m[M_ONLY] = row[E_ONLY]
        m[M_SOURCE] = source
        if row[E_KEYWORD] >= 0:
            m[M_KEYWORD] = row[E_KEYWORD]
            m[M_AMOUNT] = max(int(row[E_AMOUNT]), 1)
        else:
            m[M_STAT] = row[E_STAT]
            if row[E_SET] >= 0:
                m[M_SET] = row[E_SET]
            else:
                m[M_AMOUNT] = row[E_AMOUNT]
                if row[E_STAT] == S_HEALTH:  # I-35: "+X Health raises max and current"
                    self.put(MAX_HEALTH, b, o, max(self.i(MAX_HEALTH, b, o) + int(row[E_AMOUNT]), 1))
                    self.put(HEALTH, b, o, max(min(self.i(HEALTH, b, o) + int(row[E_AMOUNT]),
                                                   self.i(MAX_HEALTH, b, o)), 1))
        sync_modifiers(self.st, self.cols, self.f, b)

    # -- effects (not turns) -------------------------------------------------------------------
    def heal(self, b: int, s: int, amount: int) -> None:
        """hex.md "Heal – Refers to the removal of damage from a unit." (up to max health); "An
        overheated unit cannot be healed"."""
        if self.i(OVERHEATED, b, s) == 0:
            self.put(HEALTH, b, s, min(self.i(HEALTH, b, s) + amount, self.i(MAX_HEALTH, b, s)))

    def displace(self, b: int, s: int, source: int, amount: int, pull: bool, path: list[int] | None) -> None:
        """hex.md "Pushed X – A unit that is pushed moves X hexes along the direction it is being
        pushed." (adjacent source: the line behind, I-4; else each step away, "Away From X");
        "Pulled X" along a shortest path; off the map = destroyed; a unit in the way stops it;
        a rooted unit does not move."""
        if self.i(ROOTED, b, s) > 0:
            return
        steps = list(path) if path is not None else None
        at = self.i(POS, b, s)
        prev_hex = source
        for n in range(amount):
            if steps is not None:
                if n >= len(steps):
                    break
                nxt = steps[n]
            elif pull:
                nxt = int(TOWARD[source, at])
            elif DIST[prev_hex, at] == 1:
                nxt = int(LINE[prev_hex, at])
            else:
                nxt = int(AWAY[source, at])
            if nxt == source and pull:
                break
            if nxt == -1 and not pull:
                self.put(HEALTH, b, s, 0)  # pushed off the map: destroyed
                settle(self.st, self.cols, self.f, b, self.returned)
                return
            if nxt < 0 or self.occupied(b)[nxt] >= 0:
                break
            prev_hex, at = at, nxt
            self.put(POS, b, s, at)

    def round_start(self, b: int) -> None:
        """Spec §2.6 round start (I-10): refresh, the simultaneous status update, Fade, deaths, who opens."""
        refresh(self.st, self.cols, self.f, b)
        status_damage(self.st, self.cols, self.f, b, self.queue, self.qlen)
        self.engine.module.run_damage(self.st, b, self.queue, self.qlen, 0, self.dcols, self.stack)
        self.qlen[b] = 0
        status_tick(self.st, self.cols, self.f, b)
        settle(self.st, self.cols, self.f, b, self.returned)
        refresh_to_act(self, b)

    def round_end(self, b: int) -> None:
        round_end(self.st, self.cols, self.f, b)


def refresh_to_act(battle: Battle, b: int) -> None:
    """After the round start's deaths, who opens is decided again from the living units."""
    g = battle.f.g
    opener = int(g[b, OPENER])
    if g[b, WINNER] >= 0:
        g[b, TO_ACT] = -1
    elif seat_can_act(battle.st, battle.cols, b, opener):
        g[b, TO_ACT] = opener
    elif seat_can_act(battle.st, battle.cols, b, 1 - opener):
        g[b, TO_ACT] = 1 - opener
    else:
        g[b, TO_ACT] = -1


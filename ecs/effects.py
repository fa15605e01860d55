"""Effects: card text as data, executed in batches.

A card's effects compile to rows ``(trigger, opcode, selector, amount, params...)`` in an
``EffectTable`` of ``[cards, E]`` arrays (E = the most effects any card has). When a trigger
fires for many sources at once (across games), ``fire`` walks the effect slots in card
order; for each slot it groups the rows by opcode, lets the opcode's *selector* expand each
row into its targets, and runs the opcode's vectorized kernel on all of them together.

Triggers, opcodes and selectors are named, documented registrations: a ruleset (or a plugin)
declares its own, and card files may only name registered ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Callable

import numpy as np

from battlesim.ecs.datafiles import DataError


@dataclass(frozen=True)
class Trigger:
    name: str
    doc: str
    source: str = "built-in"


@dataclass(frozen=True)
class Selector:
    name: str
    fn: Callable | None  # (world, ctx: Ctx, table, e) -> (row_index int[m], target_slot int[m]); None: compiled only
    doc: str
    source: str = "built-in"


@dataclass(frozen=True)
class Opcode:
    name: str
    fn: Callable | None  # (world, hit: Hit) -> None; None: a plugin's, compiled only
    doc: str
    params: tuple[str, ...] = ()  # effect fields the opcode reads besides select/amount
    source: str = "built-in"


@dataclass
class Ctx:
    """Rows of a firing: one per (source, card) whose effects fire. ``source`` is the entity
    whose card it is (-1 for a spell, whose caster is ``caster``); ``lane``/``pos`` its origin;
    ``chosen`` the chosen target slot (-1 none); ``chosen_lane`` the chosen lane (-1 none);
    ``other`` the entity the event is about (the dying enemy, the attacker...), -1 if none."""

    game: np.ndarray
    card: np.ndarray
    owner: np.ndarray
    lane: np.ndarray
    pos: np.ndarray
    source: np.ndarray
    caster: np.ndarray
    chosen: np.ndarray
    chosen_lane: np.ndarray
    other: np.ndarray

    @staticmethod
    def make(game, card, owner, lane, pos=-1, source=-1, caster=None, chosen=-1, chosen_lane=-1, other=-1) -> "Ctx":
        game = np.asarray(game, dtype=np.intp)
        n = game.shape[0]
        source = _column(source, n)
        # rows are never written in place, so a spell-less firing's caster can share its source
        return Ctx(game, _column(card, n), _column(owner, n), _column(lane, n), _column(pos, n), source,
                   source if caster is None else _column(caster, n), _column(chosen, n),
                   _column(chosen_lane, n), _column(other, n))

    def __len__(self) -> int:
        return int(self.game.shape[0])

    def take(self, idx: np.ndarray) -> "Ctx":
        return Ctx(self.game[idx], self.card[idx], self.owner[idx], self.lane[idx], self.pos[idx],
                   self.source[idx], self.caster[idx], self.chosen[idx], self.chosen_lane[idx], self.other[idx])

    @staticmethod
    def concat(parts: list["Ctx"]) -> "Ctx":
        return Ctx(*(np.concatenate([getattr(p, name) for p in parts]) for name in _CTX_FIELDS))


_CTX_FIELDS = tuple(f.name for f in fields(Ctx))


def _column(x, n: int) -> np.ndarray:
    """One ``Ctx`` field as ``intp[n]``: an array of that kind is used as is (rows are never
    written in place), another 1-D array converted, a scalar repeated. Called ~10 times per
    firing, so the usual case (a 1-D array of n rows) is tested first."""
    if isinstance(x, np.ndarray) and x.ndim == 1 and x.shape[0] == n:
        return x.astype(np.intp, copy=False)
    if np.ndim(x) == 0:
        col = np.empty(n, dtype=np.intp)
        col.fill(x)  # np.full's value, without its Python wrapper
        return col
    return np.asarray(x, dtype=np.intp).reshape(n)


@dataclass
class Hit:
    """One row per (effect row, target): what an opcode kernel works on."""

    game: np.ndarray
    source: np.ndarray
    caster: np.ndarray
    owner: np.ndarray
    lane: np.ndarray
    pos: np.ndarray
    card: np.ndarray
    target: np.ndarray  # entity slot, or -1 for opcodes that need none (draw, gold...)
    amount: np.ndarray
    effect: int
    table: "EffectTable"
    chosen_lane: np.ndarray = field(default=None)  # type: ignore[assignment]

    def param(self, name: str) -> np.ndarray:
        """Per-row value of an effect parameter (a compiled ``[cards, E]`` column; its slot's
        column is read with a 1-D gather, cheaper than a 2-D one)."""
        return self.table.params[name][:, self.effect][self.card]

    def __len__(self) -> int:
        return int(self.game.shape[0])


class EffectTable:
    """Compiled effects: ``trigger/op/select/amount[card, e]`` plus parameter columns.
    ids are indexes into the executor's registries; -1 marks an empty effect slot."""

    def __init__(self, n_cards: int, n_effects: int, param_names: list[str]) -> None:
        shape = (n_cards, max(n_effects, 1))
        self.trigger = np.full(shape, -1, dtype=np.int16)
        self.op = np.full(shape, -1, dtype=np.int16)
        self.select = np.full(shape, -1, dtype=np.int16)
        self.amount = np.zeros(shape, dtype=np.int32)
        self.params = {p: np.full(shape, -1, dtype=np.int32) for p in param_names}
        self.n_effects = shape[1]
        self._has: dict[int, np.ndarray] = {}
        self._uses: dict[int, bool] = {}
        self._slots: dict[int, list[int]] = {}
        self._programs: dict[int, tuple] = {}

    def uses(self, trigger_id: int) -> bool:
        """Whether any card of the set has an effect on this trigger (cached): firing a trigger
        nobody uses costs one dict lookup."""
        u = self._uses.get(trigger_id)
        if u is None:
            u = self._uses[trigger_id] = bool(self.cards_with(trigger_id).any())
        return u

    def slots_with(self, trigger_id: int) -> list[int]:
        """Effect slots (columns) where some card has an effect on this trigger (cached)."""
        e = self._slots.get(trigger_id)
        if e is None:
            e = self._slots[trigger_id] = [int(i) for i in np.flatnonzero((self.trigger == trigger_id).any(axis=0))]
        return e

    def program(self, trigger_id: int) -> tuple[list[int], list[np.ndarray], list[tuple[int, int]], list[np.ndarray]]:
        """What ``fire`` needs of one trigger, compiled once (cached):

        - ``slots``: the effect slots where some card has an effect on it (``slots_with``);
        - ``groups``: per slot, ``intp[cards]``: which (opcode, selector) pair each card's effect
          in that slot uses, as an index into ``pairs``, -1 where the card has none on this
          trigger: one 1-D gather per slot tells which rows act and whether they share opcode
          and selector;
        - ``pairs``: the distinct (opcode id, selector id) pairs, sorted by opcode, then selector
          (the documented order in which the groups of one slot run);
        - the ``amount`` column of each slot as ``int64[cards]``."""
        r = self._programs.get(trigger_id)
        if r is None:
            slots = self.slots_with(trigger_id)
            on = self.trigger[:, slots] == trigger_id
            keys = (self.op[:, slots].astype(np.int64) << 16) | (self.select[:, slots].astype(np.int64) + 1)
            distinct = np.unique(keys[on])
            group = np.full(keys.shape, -1, dtype=np.intp)
            group[on] = np.searchsorted(distinct, keys[on])
            pairs = [(int(k) >> 16, (int(k) & 0xFFFF) - 1) for k in distinct]
            amounts = [np.ascontiguousarray(self.amount[:, e], dtype=np.int64) for e in slots]
            groups = [np.ascontiguousarray(group[:, j]) for j in range(len(slots))]
            r = self._programs[trigger_id] = (slots, groups, pairs, amounts)
        return r

    def cards_with(self, trigger_id: int) -> np.ndarray:
        """``bool[cards]``: cards having at least one effect on this trigger (cached)."""
        m = self._has.get(trigger_id)
        if m is None:
            m = (self.trigger == trigger_id).any(axis=1)
            self._has[trigger_id] = m
        return m


class EffectDepthError(DataError):
    """Effects that keep triggering each other (a card set whose chain never quiets): the card
    files are at fault, not the engine, so it is reported like bad data, in one line naming the
    game's seed and the card whose effect went one level too deep."""


class Executor:
    """Runs effects. ``triggers``/``opcodes``/``selectors`` are ordered registries; their order
    is the (documented, deterministic) order in which opcode groups of one effect slot run."""

    max_depth = 40

    def __init__(self) -> None:
        self.triggers: dict[str, Trigger] = {}
        self.opcodes: dict[str, Opcode] = {}
        self.selectors: dict[str, Selector] = {}
        self.depth = 0
        self._ids: dict[str, int] = {}
        self._index: dict[str, dict[str, int]] = {}
        self.silenced: Callable | None = None  # (world, games, slots) -> bool[n]: sources that cannot trigger

    def add_trigger(self, t: Trigger) -> None:
        self._add(self.triggers, t, "trigger")
        self.refresh()

    def refresh(self) -> None:
        """Recompute the name -> id maps (after registries were restored by ``plugin.isolated``)."""
        self._ids = {name: i for i, name in enumerate(self.triggers)}
        self._index = {}
        self.__dict__.pop("_lists_cache", None)

    def add_opcode(self, o: Opcode) -> None:
        self._add(self.opcodes, o, "opcode")

    def add_selector(self, s: Selector) -> None:
        self._add(self.selectors, s, "selector")

    @staticmethod
    def _add(reg: dict, item, what: str) -> None:
        old = reg.get(item.name)
        if old is not None and old != item:
            raise ValueError(f"{what} {item.name!r} is already registered by {old.source}")
        reg[item.name] = item

    def id(self, kind: str, name: str) -> int:
        """Index of a registered name (registries only grow, so an index never changes)."""
        ids = self._index.get(kind)
        reg = {"trigger": self.triggers, "opcode": self.opcodes, "selector": self.selectors}[kind]
        if ids is None or len(ids) != len(reg):
            ids = self._index[kind] = {n: i for i, n in enumerate(reg)}
        return ids[name]

    def listens(self, w, trigger: str) -> bool:
        """Whether any card in play's set reacts to ``trigger``; callers skip building a ``Ctx``
        otherwise."""
        return w.effects.uses(self._ids[trigger])

    def listening(self, w, trigger: str, card: np.ndarray) -> np.ndarray | None:
        """Rows (indexes into ``card``) whose card has an effect on ``trigger``, or None when
        there is none: callers keep only those rows before building a ``Ctx`` (``fire`` would
        drop the others anyway, in the same order), so a trigger few cards use costs little."""
        tid = self._ids[trigger]
        table: EffectTable = w.effects
        if card.size == 0:
            return None
        if not table.uses(tid):
            return None
        rows = table.cards_with(tid)[card].nonzero()[0]
        return rows if rows.size else None

    def fire(self, w, trigger: str, ctx: Ctx | Callable[[], Ctx]) -> None:
        """Run every effect on ``trigger`` of the cards in ``ctx`` (rows without one are skipped).
        ``ctx`` may be a function building it, called only if some card uses the trigger."""
        table: EffectTable = w.effects
        tid = self._ids[trigger]
        if not table.uses(tid):
            return
        if callable(ctx):
            ctx = ctx()
        if ctx.game.shape[0] == 0:
            return
        has = table.cards_with(tid)[ctx.card]
        if self.silenced is not None:
            src = ctx.source >= 0
            if np.count_nonzero(src) == src.size:  # unit triggers: every row has a source
                has &= ~self.silenced(w, ctx.game, ctx.source)
            elif src.any():
                quiet = np.zeros(len(ctx), dtype=bool)
                quiet[src] = self.silenced(w, ctx.game[src], ctx.source[src])
                has &= ~quiet
        keep = has.nonzero()[0]
        if keep.size == 0:
            return
        if keep.size < has.size:
            ctx = ctx.take(keep)
        self.depth += 1
        try:
            if self.depth > self.max_depth:
                names = getattr(getattr(w, "catalog", None), "names", None)
                card = int(ctx.card[0])
                what = repr(names[card]) if names is not None and 0 <= card < len(names) else f"#{card}"
                raise EffectDepthError(
                    f"game with seed {int(w.seeds[ctx.game[0]])}: card {what}: effects still triggering each "
                    f"other after {self.max_depth} levels (trigger {trigger!r}); a chain of effects must end"
                )
            ops, sels = self._lists()
            slots, groups, pairs, amounts = table.program(tid)
            for j, e in enumerate(slots):  # effect slots in card order
                col = groups[j][ctx.card]  # each row's (opcode, selector) pair, -1 none
                first = int(col[0])
                if np.count_nonzero(col == first) == col.size:  # the common case: every row, one pair
                    if first >= 0:
                        op_id, sel_id = pairs[first]
                        self._run(w, ops[op_id], sels, sel_id, ctx, e, amounts[j])
                    continue
                # pairs present, in pair order (by opcode, then selector), without np.unique's sort
                for g in np.bincount(col + 1)[1:].nonzero()[0]:
                    op_id, sel_id = pairs[g]
                    self._run(w, ops[op_id], sels, sel_id, ctx.take((col == g).nonzero()[0]), e, amounts[j])
        finally:
            self.depth -= 1

    def _lists(self) -> tuple[list[Opcode], list[Selector]]:
        """The opcode and selector registries as lists indexed by id (rebuilt when one grows)."""
        cached = self.__dict__.get("_lists_cache")
        if cached is None or len(cached[0]) != len(self.opcodes) or len(cached[1]) != len(self.selectors):
            cached = self._lists_cache = (list(self.opcodes.values()), list(self.selectors.values()))
        return cached

    def _run(self, w, op: Opcode, sels: list[Selector], sel_id: int, rows: Ctx, e: int, amount: np.ndarray) -> None:
        """One opcode over ``rows`` (all sharing ``sel_id``) of effect slot ``e``: the selector
        expands them into (row, target) pairs, the kernel gets them as one ``Hit``.
        ``amount`` is the slot's ``int64[cards]`` amount column."""
        n = rows.game.shape[0]
        if sel_id < 0:  # no selector: one hit per row, no target
            target = np.empty(n, dtype=np.intp)
            target.fill(-1)
            op.fn(w, _hit(w, rows, None, target, amount, e))
            return
        ri, tgt = sels[sel_id].fn(w, rows, w.effects, e)
        if ri.size == 0:
            return
        every_row = ri.size == n and np.count_nonzero(ri == np.arange(n)) == n  # in order: no gathers
        op.fn(w, _hit(w, rows, None if every_row else ri, np.asarray(tgt, dtype=np.intp), amount, e))


def _hit(w, rows: Ctx, ri: np.ndarray | None, target: np.ndarray, amount: np.ndarray, e: int) -> Hit:
    """The ``Hit`` of ``rows`` (of rows ``ri`` of them, one per target; None: each row once, in
    order) aimed at ``target``, with the slot's ``amount`` column read by card."""
    if ri is None:
        return Hit(game=rows.game, source=rows.source, caster=rows.caster, owner=rows.owner, lane=rows.lane,
                   pos=rows.pos, card=rows.card, target=target, amount=amount[rows.card], effect=e,
                   table=w.effects, chosen_lane=rows.chosen_lane)
    card = rows.card[ri]
    return Hit(game=rows.game[ri], source=rows.source[ri], caster=rows.caster[ri], owner=rows.owner[ri],
               lane=rows.lane[ri], pos=rows.pos[ri], card=card, target=target, amount=amount[card], effect=e,
               table=w.effects, chosen_lane=rows.chosen_lane[ri])

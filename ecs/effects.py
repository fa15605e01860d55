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


@dataclass(frozen=True)
class Trigger:
    name: str
    doc: str
    source: str = "built-in"


@dataclass(frozen=True)
class Selector:
    name: str
    fn: Callable  # (world, ctx: Ctx, table, e) -> (row_index int[m], target_slot int[m])
    doc: str
    source: str = "built-in"


@dataclass(frozen=True)
class Opcode:
    name: str
    fn: Callable  # (world, hit: Hit) -> None
    doc: str
    params: tuple[str, ...] = ()  # effect fields the opcode reads besides select/amount
    source: str = "built-in"


@dataclass(frozen=True)
class Handler:
    """Code run each time ``trigger`` fires, with the whole ``Ctx`` of the firing (every row,
    whether or not its card has an effect on it): how a plugin reacts to game events.
    Handlers of one trigger run before the cards' effects, built-ins first, then by source,
    then by name."""

    trigger: str
    name: str
    fn: Callable  # (world, ctx: Ctx) -> None
    doc: str
    source: str = "built-in"

    def order_key(self) -> tuple:
        return (self.source != "built-in", self.source, self.name)


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

        def arr(x):
            # rows are never written in place, so a matching array is used as is
            if isinstance(x, np.ndarray) and x.dtype == np.intp and x.shape == (n,):
                return x
            if np.ndim(x) == 0:
                return np.full(n, x, dtype=np.intp)
            return np.asarray(x, dtype=np.intp).reshape(n)

        source = arr(source)
        return Ctx(game, arr(card), arr(owner), arr(lane), arr(pos), source,
                   source.copy() if caster is None else arr(caster), arr(chosen), arr(chosen_lane), arr(other))

    def __len__(self) -> int:
        return int(self.game.shape[0])

    def take(self, idx: np.ndarray) -> "Ctx":
        return Ctx(*(getattr(self, name)[idx] for name in _CTX_FIELDS))

    @staticmethod
    def concat(parts: list["Ctx"]) -> "Ctx":
        return Ctx(*(np.concatenate([getattr(p, name) for p in parts]) for name in _CTX_FIELDS))


_CTX_FIELDS = tuple(f.name for f in fields(Ctx))


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
        """Per-row value of an effect parameter (a compiled ``[cards, E]`` column)."""
        return self.table.params[name][self.card, self.effect]

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
        self._on: dict[int, tuple[list[int], np.ndarray]] = {}

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

    def on_slots(self, trigger_id: int) -> tuple[list[int], np.ndarray]:
        """(``slots_with``, ``bool[cards, len(slots)]``: which card has its effect of each of
        those slots on this trigger), cached: one gather per firing instead of one per slot."""
        r = self._on.get(trigger_id)
        if r is None:
            slots = self.slots_with(trigger_id)
            r = self._on[trigger_id] = (slots, self.trigger[:, slots] == trigger_id)
        return r

    def cards_with(self, trigger_id: int) -> np.ndarray:
        """``bool[cards]``: cards having at least one effect on this trigger (cached)."""
        m = self._has.get(trigger_id)
        if m is None:
            m = (self.trigger == trigger_id).any(axis=1)
            self._has[trigger_id] = m
        return m


class EffectDepthError(RuntimeError):
    pass


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
        # trigger name -> handlers ``fn(world, ctx)`` that see every firing, card effects or not
        # (declared with ecs.plugin's ``extend(r).on(trigger)``; run in the documented order)
        self.handlers: dict[str, list[Handler]] = {}

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

    def add_handler(self, h: "Handler") -> None:
        if h.trigger not in self.triggers:
            raise ValueError(f"no trigger {h.trigger!r}; triggers: {', '.join(self.triggers)}")
        hs = self.handlers.setdefault(h.trigger, [])
        old = next((x for x in hs if x.name == h.name), None)
        if old is not None:
            if old != h:
                raise ValueError(f"handler {h.name!r} of {h.trigger!r} is already registered by {old.source}")
            return
        hs.append(h)
        hs.sort(key=Handler.order_key)

    def listens(self, w, trigger: str) -> bool:
        """Whether any card in play's set (or a handler) reacts to ``trigger``; callers skip
        building a ``Ctx`` otherwise."""
        return w.effects.uses(self._ids[trigger]) or trigger in self.handlers

    def listening(self, w, trigger: str, card: np.ndarray) -> np.ndarray | None:
        """Rows (indexes into ``card``) whose card has an effect on ``trigger``, or None when
        there is none: callers keep only those rows before building a ``Ctx`` (``fire`` would
        drop the others anyway, in the same order), so a trigger few cards use costs little."""
        tid = self._ids[trigger]
        table: EffectTable = w.effects
        if card.size == 0:
            return None
        if trigger in self.handlers:  # handlers see every row
            return np.arange(card.size)
        if not table.uses(tid):
            return None
        rows = np.flatnonzero(table.cards_with(tid)[card])
        return rows if rows.size else None

    def fire(self, w, trigger: str, ctx: Ctx | Callable[[], Ctx]) -> None:
        """Run every effect on ``trigger`` of the cards in ``ctx`` (rows without one are skipped).
        ``ctx`` may be a function building it, called only if some card uses the trigger."""
        table: EffectTable = w.effects
        tid = self._ids[trigger]
        handlers = self.handlers.get(trigger)
        if not table.uses(tid) and not handlers:
            return
        if callable(ctx):
            ctx = ctx()
        if len(ctx) == 0:
            return
        if handlers:
            for h in handlers:
                h.fn(w, ctx)
            if not table.uses(tid):
                return
        has = table.cards_with(tid)[ctx.card]
        if self.silenced is not None:
            src = ctx.source >= 0
            if src.any():
                quiet = np.zeros(len(ctx), dtype=bool)
                quiet[src] = self.silenced(w, ctx.game[src], ctx.source[src])
                has &= ~quiet
        keep = np.flatnonzero(has)
        if keep.size == 0:
            return
        if keep.size < has.size:
            ctx = ctx.take(keep)
        self.depth += 1
        try:
            if self.depth > self.max_depth:
                raise EffectDepthError(
                    f"effects still triggering each other after {self.max_depth} levels "
                    f"(trigger {trigger!r}, game with seed {int(w.seeds[ctx.game[0]])})"
                )
            ops, sels = self._lists()
            slots, on_tab = table.on_slots(tid)
            on_rows = on_tab[ctx.card]  # [n, slots]
            for j, e in enumerate(slots):  # effect slots in card order
                on = on_rows[:, j]
                k = np.flatnonzero(on)
                if k.size == 0:
                    continue
                rows = ctx if k.size == on.size else ctx.take(k)
                op_ids = table.op[rows.card, e]
                first = op_ids[0]
                if (op_ids == first).all():  # the common case: one opcode
                    self._run(w, ops[int(first)], sels, rows, e, table)
                    continue
                for op_id in np.unique(op_ids):
                    sub = rows.take(np.flatnonzero(op_ids == op_id))
                    self._run(w, ops[int(op_id)], sels, sub, e, table)
        finally:
            self.depth -= 1

    def _lists(self) -> tuple[list[Opcode], list[Selector]]:
        """The opcode and selector registries as lists indexed by id (rebuilt when one grows)."""
        cached = self.__dict__.get("_lists_cache")
        if cached is None or len(cached[0]) != len(self.opcodes) or len(cached[1]) != len(self.selectors):
            cached = self._lists_cache = (list(self.opcodes.values()), list(self.selectors.values()))
        return cached

    def _run(self, w, op: Opcode, sels: list[Selector], rows: Ctx, e: int, table: EffectTable) -> None:
        sel_ids = table.select[rows.card, e]
        groups = [sel_ids[0]] if (sel_ids == sel_ids[0]).all() else np.unique(sel_ids)
        for sel_id in groups:
            sub = rows if len(groups) == 1 else rows.take(np.flatnonzero(sel_ids == sel_id))
            if sel_id < 0:
                ri, tgt = np.arange(len(sub)), np.full(len(sub), -1, dtype=np.intp)
            else:
                ri, tgt = sels[int(sel_id)].fn(w, sub, table, e)
            if ri.size == 0:
                continue
            if ri.size == len(sub) and (sel_id < 0 or bool((ri == np.arange(ri.size)).all())):
                # every row, in order: no gathers
                hit = Hit(
                    game=sub.game, source=sub.source, caster=sub.caster, owner=sub.owner, lane=sub.lane,
                    pos=sub.pos, card=sub.card, target=np.asarray(tgt, dtype=np.intp),
                    amount=table.amount[sub.card, e].astype(np.int64), effect=e, table=table,
                    chosen_lane=sub.chosen_lane,
                )
                op.fn(w, hit)
                continue
            hit = Hit(
                game=sub.game[ri], source=sub.source[ri], caster=sub.caster[ri], owner=sub.owner[ri],
                lane=sub.lane[ri], pos=sub.pos[ri], card=sub.card[ri], target=np.asarray(tgt, dtype=np.intp),
                amount=table.amount[sub.card[ri], e].astype(np.int64), effect=e, table=table,
                chosen_lane=sub.chosen_lane[ri],
            )
            op.fn(w, hit)

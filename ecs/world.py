"""The batched World: B games x S entity slots, components as ``[B, S]`` numpy arrays.

An entity is a pair ``(game b, slot s)``. Everything a system does is a mask or an index
array over those two axes, so one numpy call advances every game of the batch at once.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Iterable

import numpy as np

from battlesim.ecs.registry import Component, get_component
from battlesim.ecs.rng import CounterRng

if TYPE_CHECKING:
    from battlesim.ecs.decisions import Agent


@dataclass(frozen=True)
class StateField:
    """A per-game array that is not an entity (round, gold, initiative, winner...)."""

    name: str
    dtype: type | np.dtype
    shape: tuple[int, ...] = ()
    default: int | float | bool = 0
    doc: str = ""


# ``release`` of at most this many entities resets a buffer of arrays in one call (measured:
# 14 entities 24 -> 13 us; at a few hundred the K separate writes are faster)
_FEW_RELEASED = 64


class SlotsExhausted(RuntimeError):
    pass


class Catalog:
    """Static card data compiled once from ``data/``: numpy arrays indexed by card id."""

    def __init__(self, names: list[str], arrays: dict[str, np.ndarray], records: list[Any] | None = None):
        self.names = list(names)
        self.index = {n: i for i, n in enumerate(self.names)}
        self.arrays = SimpleNamespace(**arrays)
        self.records = records or []
        for key, arr in arrays.items():
            if len(arr) != len(self.names):
                raise ValueError(f"catalog array {key!r} has {len(arr)} rows for {len(self.names)} cards")

    def __len__(self) -> int:
        return len(self.names)

    def id(self, name: str) -> int:
        try:
            return self.index[name]
        except KeyError:
            raise KeyError(f"unknown card {name!r}") from None


class World:
    """B games of S slots each.

    ``c``: component arrays by name (``w.c.health[b, s]``); ``g``: per-game state
    (``w.g.round[b]``); ``alive[b, s]``: slot in use; ``active[b]``: game unfinished.
    """

    def __init__(
        self,
        n_games: int,
        n_slots: int,
        components: Iterable[str | Component],
        state: Iterable[StateField] = (),
        seeds: np.ndarray | None = None,
        catalog: Catalog | None = None,
        params: Any = None,
    ) -> None:
        self.n_games = int(n_games)
        self.n_slots = int(n_slots)
        B, S = self.n_games, self.n_slots
        self.components: dict[str, Component] = {}
        self.c = SimpleNamespace()
        self.present: dict[str, np.ndarray] = {}
        for comp in components:
            comp = get_component(comp) if isinstance(comp, str) else comp
            self.components[comp.name] = comp
        # Arrays of one dtype and entry shape are the rows of one buffer (``buf[k]``: each still a
        # contiguous [B, S, ...] array), so ``release`` can reset a group in one call.
        groups: dict[tuple, list[tuple[str, str, Any]]] = {}
        for comp in self.components.values():
            groups.setdefault((np.dtype(comp.dtype), comp.shape), []).append(("c", comp.name, comp.default))
        groups.setdefault((np.dtype(np.bool_), ()), []).extend(
            ("present", name, False) for name, comp in self.components.items() if comp.presence == "mask")
        # (where, name) -> (the array, its row k in its buffer): a compiled view finds each row by
        # identity instead of by address (``world_view``: it is built for every World)
        self.rows: dict[tuple[str, str], tuple[np.ndarray, int]] = {}
        for (dtype, shape), members in groups.items():
            buf = np.empty((len(members), B, S, *shape), dtype=dtype)
            for k, (where, name, default) in enumerate(members):
                buf[k] = default
                view = buf[k]
                self.rows[where, name] = (view, k)
                if where == "c":
                    setattr(self.c, name, view)
                else:
                    self.present[name] = view
        self.state_fields: dict[str, StateField] = {}
        self.g = SimpleNamespace()
        for f in state:
            self.state_fields[f.name] = f
            setattr(self.g, f.name, np.full((B, *f.shape), f.default, dtype=f.dtype))
        self.alive = np.zeros((B, S), dtype=bool)
        # serial[b, s]: which entity holds the slot (slots are reused; serials never are)
        self.serial = np.zeros((B, S), dtype=np.int32)
        self._next_serial = np.ones(B, dtype=np.int32)
        # bumped whenever an entity is created or destroyed: caches keyed on it stay exact
        self.version = 0
        # per tracked component (``track``): bumped by every ``add`` of it and every ``release``
        # of an entity holding a non-default value, so a cache of who holds it can be checked in O(1)
        self.changes: dict[str, int] = {}
        self.active = np.ones(B, dtype=bool)
        # a copy: ``restart`` rewrites it in place (compiled views of it stay valid), never the caller's
        self.seeds = np.arange(B, dtype=np.int64) if seeds is None else np.array(seeds, dtype=np.int64)
        if self.seeds.shape != (B,):
            raise ValueError(f"need {B} seeds, got shape {self.seeds.shape}")
        self.rng = CounterRng(self.seeds)
        self.catalog = catalog
        self.params = params
        self.agents: list[Agent] = []
        self.games = np.arange(B)

    # -- components --------------------------------------------------------------------
    def has(self, name: str) -> np.ndarray:
        """``bool[B, S]``: entities that have the component, by its presence rule."""
        comp = self.components[name]
        arr = getattr(self.c, name)
        if comp.presence == "tag":
            out = arr
        elif comp.presence == "mask":
            out = self.present[name]
        else:
            out = arr != comp.default
            if comp.shape:
                out = out.reshape(self.n_games, self.n_slots, -1).any(axis=2)
        return out & self.alive

    def take(self, name: str, games: np.ndarray, slots: np.ndarray | None = None) -> np.ndarray:
        """``component[games, slots]`` for index arrays of any (broadcastable) shape, read
        through flat indices (markedly faster than two-array fancy indexing). With ``slots``
        None, ``games`` is such a flat index already (``flat(games, slots)``, computed once
        for several reads)."""
        return self._flat_views()[1][name][games if slots is None else games * self.n_slots + slots]

    def flat(self, games: np.ndarray, slots: np.ndarray) -> np.ndarray:
        """Flat entity index ``games * S + slots`` (broadcast), for ``take(name, flat)``."""
        return games * self.n_slots + slots

    def track(self, name: str) -> int:
        """Start (or keep) counting the changes of component ``name``; returns the count. The
        count moves whenever ``add`` or ``remove`` writes the component or ``release`` frees an
        entity holding a non-default value, so a cache built from the component stays exact while
        the count is unchanged, provided the component is only ever written through those."""
        return self.changes.setdefault(name, 0)

    def add(self, games: np.ndarray, slots: np.ndarray, **values: Any) -> None:
        """Give components to entities (values broadcast over the listed pairs)."""
        flat = np.asarray(games, dtype=np.intp) * self.n_slots + np.asarray(slots, dtype=np.intp)
        changes = self.changes
        _, views, present = self._flat_views()
        for name, value in values.items():
            if name in changes:
                changes[name] += 1
            views[name][flat] = value
            if name in present:
                present[name][flat] = True

    def remove(self, name: str, games: np.ndarray, slots: np.ndarray) -> None:
        comp = self.components[name]
        if name in self.changes:
            self.changes[name] += 1
        getattr(self.c, name)[games, slots] = comp.default
        if name in self.present:
            self.present[name][games, slots] = False

    # -- entities ----------------------------------------------------------------------
    def allocate(self, games: np.ndarray) -> np.ndarray:
        """One fresh slot in each listed game (games must be distinct). Vectorized:
        the first free slot of each game is ``argmax`` over ``~alive``."""
        games = np.asarray(games, dtype=np.intp)
        free = ~self.alive.take(games, axis=0)  # a row gather: ``take`` is ~3x faster than indexing
        slots = np.argmax(free, axis=1)
        full = ~free[np.arange(games.size), slots]
        if full.any():
            b = int(games[np.argmax(full)])
            raise SlotsExhausted(
                f"game with seed {int(self.seeds[b])} has no free entity slot (S={self.n_slots})"
            )
        self.alive[games, slots] = True
        self.serial[games, slots] = self._next_serial[games]
        self._next_serial[games] += 1
        self.version += 1
        return slots

    def release(self, games: np.ndarray, slots: np.ndarray) -> None:
        """Free slots and reset every component there to its default."""
        flat = np.asarray(games, dtype=np.intp) * self.n_slots + np.asarray(slots, dtype=np.intp)
        self.version += 1
        buffers, views, _ = self._flat_views()
        for name in self.changes:
            if (views[name][flat] != self.components[name].default).any():
                self.changes[name] += 1
        self.alive.reshape(-1)[flat] = False
        # a few entities: one call per buffer of arrays (~4 calls, not ~60); many: array by array,
        # as the [K, n] write is then slower than K writes of n (it is memory-bound either way)
        by_group = flat.size <= _FEW_RELEASED
        for buffer, defaults, rows in buffers:
            if by_group and len(rows) > 1:
                buffer[:, flat] = defaults
            else:
                for view, default in rows:
                    view[flat] = default

    def _flat_views(self) -> tuple[list, dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Entity-flat views (``[B*S, ...]``), built once per component namespace (a world whose
        ``c`` is replaced, e.g. a subset copy, rebuilds them): per component, per presence mask,
        and per buffer of component arrays and masks ``(buffer [K, B*S, ...], defaults
        [K, 1, ...], [(entity-flat view, default)] of its K arrays)`` for ``release``. Arrays that
        are not together all the rows of one buffer (e.g. after a deep copy, which copies each
        array apart) come alone, as a buffer of one."""
        cached = self.__dict__.get("_flat_cache")
        if cached is not None and cached[0] is self.c and cached[1] is self.present:
            return cached[2]
        arrays = [(getattr(self.c, name), comp.default) for name, comp in self.components.items()]
        arrays += [(mask, False) for mask in self.present.values()]
        by_base: dict[int, list] = {}
        for arr, default in arrays:
            by_base.setdefault(id(arr if arr.base is None else arr.base), []).append((arr, default))
        out = []
        for members in by_base.values():
            arr0 = members[0][0]
            base = arr0.base
            rows = None
            if (base is not None and base.flags.c_contiguous and base.shape[1:] == arr0.shape
                    and base.dtype == arr0.dtype and len(members) == base.shape[0]):
                at = {base[k].__array_interface__["data"][0]: k for k in range(len(members))}
                ks = [at.get(arr.__array_interface__["data"][0]) for arr, _ in members]
                if sorted(k for k in ks if k is not None) == list(range(len(members))):
                    rows = [None] * len(members)
                    for k, (arr, d) in zip(ks, members):
                        rows[k] = (arr, d)
            if rows is None:  # not one buffer's rows: each array alone
                out += [(arr.reshape(1, -1, *arr.shape[2:]), np.full((1, 1, *arr.shape[2:]), d, dtype=arr.dtype),
                         [(arr.reshape(-1, *arr.shape[2:]), d)]) for arr, d in members]
                continue
            shape = arr0.shape[2:]
            defaults = np.empty((len(rows), 1, *shape), dtype=base.dtype)
            for k, (_, d) in enumerate(rows):
                defaults[k] = d
            out.append((base.reshape(len(rows), -1, *shape), defaults,
                        [(arr.reshape(-1, *shape), d) for arr, d in rows]))
        views = {name: getattr(self.c, name).reshape(-1, *comp.shape) for name, comp in self.components.items()}
        present = {name: mask.reshape(-1) for name, mask in self.present.items()}
        self._flat_cache = (self.c, self.present, (out, views, present))
        return self._flat_cache[2]

    def restart(self, seeds: np.ndarray) -> None:
        """Empty this World for a new batch of as many games, seeded ``seeds``: every component,
        mask and per-game field back to its default, no entity, every game active, a fresh RNG
        (the same state ``__init__`` leaves, in the same arrays). Why in place: a one-game
        ``play`` spent more time allocating a World and the compiled views of it than playing;
        a World restarted keeps its arrays, so every view and table built over them stays valid
        (``version`` and every ``changes`` count move, so a cache keyed on them is rebuilt)."""
        seeds = np.asarray(seeds, dtype=np.int64)
        if seeds.shape != (self.n_games,):
            raise ValueError(f"need {self.n_games} seeds, got shape {seeds.shape}")
        buffers, _, _ = self._flat_views()
        for buffer, defaults, _ in buffers:
            buffer[...] = defaults
        for name, f in self.state_fields.items():
            getattr(self.g, name)[...] = f.default
        self.alive[...] = False
        self.serial[...] = 0
        self._next_serial[...] = 1
        self.version += 1
        for name in self.changes:
            self.changes[name] += 1
        self.active[...] = True
        self.seeds[...] = seeds
        self.rng.restart(seeds)

    # -- decisions ---------------------------------------------------------------------
    def decide(self, games: np.ndarray, actor: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """Ask each seat's agent for the games where that seat acts; returns ``int[n]``."""
        n = games.shape[0]
        first = int(actor[0]) if n else -1
        if 0 <= first < len(self.agents) and (actor == first).all():  # one seat acts everywhere (always at B = 1): no row copies
            actions = np.asarray(self.agents[first].act(self, games, first, legal), dtype=np.int64)
        else:
            actions = np.zeros(n, dtype=np.int64)
            for seat, agent in enumerate(self.agents):
                sel = actor == seat
                if sel.any():
                    actions[sel] = agent.act(self, games[sel], seat, legal[sel])
        chosen = legal[np.arange(n), actions]
        if not chosen.all():
            i = int(np.argmin(chosen))
            raise RuntimeError(
                f"agent {self.agents[int(actor[i])].name!r} chose illegal action {int(actions[i])} "
                f"in game with seed {int(self.seeds[games[i]])}"
            )
        return actions

    def copy(self) -> "World":
        """A deep copy of every array (used by lookahead agents). Agents are shared."""
        agents, self.agents = self.agents, []
        flat_cache = self.__dict__.pop("_flat_cache", None)  # views of this world's arrays: not copied
        try:
            dup = copy.deepcopy(self)
        finally:
            self.agents = agents
            if flat_cache is not None:
                self._flat_cache = flat_cache
        dup.agents = agents
        return dup

"""How compiled code sees a World: the World's own buffers, no copy.

The numpy World already keeps the components of one (dtype, entry shape) as the rows of one
buffer (``ecs/world.py``: ``buf[k]`` is ``w.c.<name>``, a contiguous ``[B, S, ...]`` array). A
kernel receives those buffers and indexes them ``i16[K_HEALTH, b, s]``, the column id ``K_HEALTH``
coming from an argument array (DESIGN.md "Rules of the road": never a module global, since the
registry may give a component another row when another plugin set is loaded). A kernel writing
``i16[k, b, s]`` writes ``w.c.<name>[b, s]``: the same memory, so scenarios, the esper bridge,
statistics and the numpy systems see compiled writes at once and the reverse.

What the view holds (``WorldState``, one NamedTuple argument: adding a field later changes no
stage's signature):

- ``i16`` ``int16[K, B, S]``, ``i8`` ``int8[K, B, S]``, ``flags`` ``bool[K, B, S]`` (tags, then
  the presence masks of "mask" components), ``i16x2`` ``int16[K, B, S, 2]`` (temporary buffs):
  the World's buffers themselves;
- ``alive`` ``bool[B, S]`` and ``serial`` ``int32[B, S]``: the World's arrays themselves;
- ``cat`` ``int64[NCAT, N + 1]``: the catalog by card id, one row per column (built once; column
  ``N`` is 0 so a card id of -1, "none", reads 0 through numba's wrap-around, as
  ``stats._by_item`` does), plus the ruleset's derived per-card rows (``extra_cards``);
- ``params`` ``int64[NP]``: the ruleset's numeric parameters (essence HP...);
- ``events`` ``int64[B, QE, NEV]``, ``nevents`` ``int64[B]``: the per-game trigger queue
  (``ecs/compiled/events.py``), filled by the compiled stages for the effect interpreter.

Per-game state (``w.g.*``) is NOT grouped: the view hands out the World's arrays by name
(``WorldView.g``), and a kernel takes the few it needs as arguments. Why: the per-game fields
come in a dozen (dtype, shape) combinations whose shapes depend on the parameters (deck size,
hand limit), so grouping by dtype would need one flat ``[B, N]`` buffer per dtype, making each
``w.g.<name>`` a strided view, and the numpy engine's ``reshape(-1)`` writes would then go to a
silent copy; grouping by (dtype, shape), as components are, keeps contiguity but gives about as
many groups as a kernel needs fields. The damage pipeline needs none. When the numpy engine goes
(issue 13, "One engine"), the World can allocate its scalar per-game fields by dtype.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Mapping, NamedTuple

import numpy as np

from battlesim.ecs.compiled.events import new_events

# (dtype, entry shape) -> group name: the component buffers compiled code receives
GROUPS: dict[tuple[np.dtype, tuple[int, ...]], str] = {
    (np.dtype(np.int16), ()): "i16",
    (np.dtype(np.int8), ()): "i8",
    (np.dtype(np.bool_), ()): "flags",
    (np.dtype(np.int16), (2,)): "i16x2",
}
_EMPTY_SHAPES = {"i16": (), "i8": (), "flags": (), "i16x2": (2,)}
EVENT_CAPACITY = 64  # trigger events per game between two drains of the interpreter


class WorldState(NamedTuple):
    """What a kernel receives: arrays only (numba types a NamedTuple of arrays field by field)."""

    i16: np.ndarray
    i8: np.ndarray
    flags: np.ndarray
    i16x2: np.ndarray
    alive: np.ndarray
    serial: np.ndarray
    cat: np.ndarray
    params: np.ndarray
    events: np.ndarray
    nevents: np.ndarray


class ViewError(ValueError):
    pass


@dataclass
class WorldView:
    """A World as compiled code sees it: ``state`` for kernels, and the tables that turn names
    into the integers kernels index with."""

    state: WorldState
    columns: dict[str, tuple[str, int]]  # component -> (group, row in that group's buffer)
    presence: dict[str, int]  # "mask" component -> row of its presence mask in ``flags``
    cat_rows: dict[str, int]  # catalog column (or derived per-card row) -> row of ``cat``
    param_index: dict[str, int]  # parameter -> index in ``params``
    g: Mapping[str, np.ndarray] = field(default_factory=dict)  # per-game fields, the World's own arrays

    def layout(self) -> dict[str, int]:
        """Every name a kernel may ask a column id for: components by name, catalog rows as
        ``card.<column>``, parameters as ``param.<name>``, presence masks as ``present.<name>``
        (the ``layout`` of ``Engine.columns``)."""
        return dict(self._layout())

    def _layout(self) -> dict[str, int]:
        got = self.__dict__.get("_layout_cache")
        if got is None:  # once per view: every table of a chunk's kernels asks for it
            got = {name: k for name, (_, k) in self.columns.items()}
            got.update({f"present.{name}": k for name, k in self.presence.items()})
            got.update({f"card.{name}": k for name, k in self.cat_rows.items()})
            got.update({f"param.{name}": k for name, k in self.param_index.items()})
            self.__dict__["_layout_cache"] = got
        return got

    def cols(self, names: tuple[str, ...] | list[str]) -> np.ndarray:
        """``int64[len(names)]``: the column ids of ``names`` (``layout``), for a kernel's argument."""
        layout = self._layout()
        missing = [n for n in names if n not in layout]
        if missing:
            raise ViewError(f"the world has no column {missing[0]!r}")
        return np.array([layout[n] for n in names], dtype=np.int64)


def world_view(w: Any, extra_cards: Mapping[str, np.ndarray] | None = None,
               extra_params: Mapping[str, int] | None = None, event_capacity: int = EVENT_CAPACITY) -> WorldView:
    """The view of World ``w`` (its component buffers, ``alive``, ``serial``: no copy), with the
    catalog as rows by card id (plus ``extra_cards``, per-card rows a ruleset derives) and the
    parameters as an array (plus ``extra_params``, numbers a ruleset derives from its data). A World whose arrays are no longer one buffer per group (a deep copy
    copies each array apart) must be ``regroup``-ed first: it is an error here, not a silent copy
    whose writes would be lost."""
    buffers: dict[str, np.ndarray] = {}
    columns: dict[str, tuple[str, int]] = {}
    presence: dict[str, int] = {}
    members = [(name, getattr(w.c, name), "c") for name in w.components]
    members += [(name, mask, "present") for name, mask in w.present.items()]
    rows = getattr(w, "rows", {})
    for name, arr, where in members:
        group = _group_of(name, arr)
        buf = arr.base
        known = rows.get((where, name))
        k = known[1] if known is not None and known[0] is arr and buf is not None else _row_in(buf, arr)
        if k is None:
            raise ViewError(f"component {name!r} is not a row of its group's buffer (a deep copy?); "
                            f"call battlesim.ecs.compiled.world_view.regroup(world) first")
        if group in buffers and buffers[group] is not buf:
            raise ViewError(f"group {group}: components {name!r} and others live in different buffers; "
                            f"call regroup(world) first")
        buffers[group] = buf
        if where == "c":
            columns[name] = (group, k)
        else:
            presence[name] = k
    B, S = w.n_games, w.n_slots
    for group, shape in _EMPTY_SHAPES.items():
        if group not in buffers:  # no component of that kind: an empty buffer keeps the types fixed
            dtype = next(dt for (dt, sh), g in GROUPS.items() if g == group)
            buffers[group] = np.zeros((0, B, S, *shape), dtype=dtype)
    cat, cat_rows = catalog_rows(w.catalog, extra_cards)
    params, param_index = param_array(w.params, extra_params)
    events, nevents = new_events(B, event_capacity)
    state = WorldState(buffers["i16"], buffers["i8"], buffers["flags"], buffers["i16x2"], w.alive, w.serial,
                       cat, params, events, nevents)
    return WorldView(state, columns, presence, cat_rows, param_index, {n: getattr(w.g, n) for n in w.state_fields})


def state_type() -> Any:
    """numba's type of a ``WorldState`` (every array C-contiguous), for compiling eagerly."""
    import numba  # here: the view itself needs no numba

    def z(dtype: Any, ndim: int) -> np.ndarray:
        return np.zeros((0,) * ndim, dtype=dtype)

    return numba.typeof(WorldState(z(np.int16, 3), z(np.int8, 3), z(np.bool_, 3), z(np.int16, 4),
                                   z(np.bool_, 2), z(np.int32, 2), z(np.int64, 2), z(np.int64, 1),
                                   z(np.int64, 3), z(np.int64, 1)))


def toy_state(n_games: int, n_slots: int, i16_rows: int = 0, i8_rows: int = 0, flag_rows: int = 0,
              event_capacity: int = EVENT_CAPACITY) -> WorldState:
    """A ``WorldState`` of zeros with no World behind it (every slot alive): for stages tested
    alone and benches."""
    events, nevents = new_events(n_games, event_capacity)
    return WorldState(np.zeros((i16_rows, n_games, n_slots), np.int16), np.zeros((i8_rows, n_games, n_slots), np.int8),
                      np.zeros((flag_rows, n_games, n_slots), np.bool_), np.zeros((0, n_games, n_slots, 2), np.int16),
                      np.ones((n_games, n_slots), np.bool_), np.zeros((n_games, n_slots), np.int32),
                      np.zeros((0, 1), np.int64), np.zeros(0, np.int64), events, nevents)


def regroup(w: Any) -> None:
    """Put a World's component arrays back into one buffer per group (a deep copy, e.g.
    ``World.copy()``, copies each array apart). Replaces ``w.c`` and ``w.present`` with fresh
    namespaces of views of the new buffers (``World._flat_views`` then rebuilds its flat views);
    the values are unchanged. Hold no component array across this call."""
    groups: dict[tuple, list[tuple[str, str, np.ndarray]]] = {}
    for name in w.components:
        arr = getattr(w.c, name)
        groups.setdefault((arr.dtype, arr.shape[2:]), []).append(("c", name, arr))
    for name, mask in w.present.items():
        groups.setdefault((mask.dtype, mask.shape[2:]), []).append(("present", name, mask))
    c, present, known = SimpleNamespace(), {}, {}
    for (dtype, shape), rows in groups.items():
        buf = np.empty((len(rows), w.n_games, w.n_slots, *shape), dtype=dtype)
        for k, (where, name, arr) in enumerate(rows):
            buf[k] = arr
            view = buf[k]
            known[where, name] = (view, k)  # as ``World.rows``: the row is known here, not searched for
            if where == "c":
                setattr(c, name, view)
            else:
                present[name] = view
    w.c, w.present, w.rows = c, present, known
    w.__dict__.pop("_flat_cache", None)


def catalog_rows(catalog: Any, extra: Mapping[str, np.ndarray] | None = None) -> tuple[np.ndarray, dict[str, int]]:
    """``(int64[NCAT, N + 1], name -> row)``: every catalog column by card id (bools as 0/1),
    then the ``extra`` per-card rows, each with a 0 at index N for card id -1 ("none")."""
    cols: dict[str, np.ndarray] = {}
    n = 0
    if catalog is not None:
        n = len(catalog)
        cols.update(vars(catalog.arrays))
    for name, arr in (extra or {}).items():
        if name in cols:
            raise ViewError(f"per-card row {name!r} is already a catalog column")
        cols[name] = arr
    out = np.zeros((len(cols), n + 1), dtype=np.int64)
    rows = {}
    for k, (name, arr) in enumerate(cols.items()):
        arr = np.asarray(arr)
        if arr.shape != (n,):
            raise ViewError(f"per-card row {name!r} has shape {arr.shape}, not ({n},)")
        out[k, :n] = arr
        rows[name] = k
    return out, rows


def param_array(params: Any, extra: Mapping[str, int] | None = None) -> tuple[np.ndarray, dict[str, int]]:
    """``(int64[NP], name -> index)``: the integer (and bool) parameters of a ruleset, then ``extra``."""
    if params is None:
        values: dict[str, Any] = {}
    elif hasattr(params, "model_dump"):  # pydantic
        values = params.model_dump()
    else:
        values = dict(vars(params))
    ints = {k: int(v) for k, v in values.items() if isinstance(v, (bool, int, np.integer))}
    for k, v in (extra or {}).items():
        if k in ints:
            raise ViewError(f"parameter {k!r} is already a parameter of the ruleset")
        ints[k] = int(v)
    return np.array(list(ints.values()), dtype=np.int64), {k: i for i, k in enumerate(ints)}


def _group_of(name: str, arr: np.ndarray) -> str:
    group = GROUPS.get((arr.dtype, arr.shape[2:]))
    if group is None:
        raise ViewError(f"component {name!r} is {arr.dtype} with entries of shape {arr.shape[2:]}, which "
                        f"compiled code has no group for ({', '.join(GROUPS.values())})")
    return group


def _row_in(buf: np.ndarray | None, arr: np.ndarray) -> int | None:
    """k such that ``arr`` is ``buf[k]`` (same memory), else None."""
    if buf is None or not buf.flags.c_contiguous or buf.shape[1:] != arr.shape or buf.dtype != arr.dtype:
        return None
    start = buf.__array_interface__["data"][0]
    offset = arr.__array_interface__["data"][0] - start
    step = buf.strides[0]
    if offset < 0 or offset % step or offset // step >= buf.shape[0] or not arr.flags.c_contiguous:
        return None
    return offset // step

"""esper bridge: one game of a batched World as an esper world of dataclass components.

Arrays are how the engine runs; objects are how people read and author boards. ``snapshot``
turns game ``b`` into an esper world (one entity per live slot, one dataclass instance per
component it has, classes generated from the registry); ``load`` writes such a world back
into game ``b``. Tests and scenario files build boards this way, so a board reads as ECS code::

    name = new_esper_world()
    esper.create_entity(C.CardId(3), C.Owner(0), C.Lane(1), C.Pos(2), C.Attack(3), C.Health(4))
    load(world, 0, name)
"""

from __future__ import annotations

import itertools
from dataclasses import make_dataclass
from types import SimpleNamespace
from typing import Any, Callable

import esper
import numpy as np

from battlesim.ecs.registry import Component, get_component, registered_components

_CLASSES: dict[str, type] = {}
_names = itertools.count()


def component_class(comp: Component | str) -> type:
    """The dataclass for a registered component: tags have no field, others one ``value``."""
    comp = get_component(comp) if isinstance(comp, str) else comp
    cls = _CLASSES.get(comp.name)
    if cls is None:
        if comp.presence == "tag":
            cls = make_dataclass(comp.class_name, [], frozen=False)
        else:
            kind = np.dtype(comp.dtype).kind
            pytype: Any = bool if kind == "b" else float if kind == "f" else int
            if comp.shape:
                pytype = tuple
            cls = make_dataclass(comp.class_name, [("value", pytype)])
        cls.__doc__ = comp.doc
        cls.component = comp  # type: ignore[attr-defined]
        _CLASSES[comp.name] = cls
    return cls


class _ClassNamespace(SimpleNamespace):
    """``C.Health`` -> the dataclass of component ``health`` (looked up lazily)."""

    def __getattr__(self, item: str) -> type:
        for name, comp in registered_components().items():
            if comp.class_name == item:
                return component_class(comp)
        raise AttributeError(f"no registered component with class name {item!r}")


C = _ClassNamespace()

# Hooks a ruleset registers to rebuild derived indexes (its board) after a load.
LoadHook = Callable[[Any, int], None]


def new_esper_world(prefix: str = "battlesim") -> str:
    """Create and switch to a fresh esper world context; returns its name."""
    name = f"{prefix}-{next(_names)}"
    esper.switch_world(name)
    return name


def snapshot(world, b: int, name: str | None = None) -> str:
    """Build an esper world holding game ``b``; returns its context name (and switches to it)."""
    name = name or new_esper_world("snapshot")
    esper.switch_world(name)
    esper.clear_database()
    for s in np.flatnonzero(world.alive[b]):
        comps = []
        for cname, comp in world.components.items():
            arr = getattr(world.c, cname)
            if comp.presence == "tag":
                if arr[b, s]:
                    comps.append(component_class(comp)())
                continue
            if comp.presence == "mask":
                if not world.present[cname][b, s]:
                    continue
            elif not np.any(arr[b, s] != comp.default):
                continue
            value = arr[b, s]
            comps.append(component_class(comp)(tuple(value.tolist()) if comp.shape else value.item()))
        esper.create_entity(*comps)
    return name


def entities_of(name: str) -> list[dict[str, Any]]:
    """The entities of an esper world as plain dicts ``{component name: value}`` (tags: True)."""
    esper.switch_world(name)
    out = []
    for ent in sorted(esper._entities):  # esper keeps no public "all entities" query
        row: dict[str, Any] = {}
        for obj in esper.components_for_entity(ent):
            comp = type(obj).component
            row[comp.name] = True if comp.presence == "tag" else obj.value
        out.append(row)
    return out


def load(world, b: int, name: str) -> np.ndarray:
    """Replace game ``b``'s entities with those of esper world ``name``; returns their slots.

    Components the World does not allocate are an error (a board must not silently lose a
    keyword). Afterwards every hook in ``world.load_hooks`` rebuilds its derived indexes.
    """
    live = np.flatnonzero(world.alive[b])
    if live.size:
        world.release(np.full(live.size, b), live)
    slots = []
    for row in entities_of(name):
        missing = [k for k in row if k not in world.components]
        if missing:
            raise KeyError(f"component(s) {missing} are not allocated in this world")
        s = int(world.allocate(np.array([b]))[0])
        world.add(np.array([b]), np.array([s]), **row)
        slots.append(s)
    for hook in getattr(world, "load_hooks", []):
        hook(world, b)
    return np.array(slots, dtype=np.intp)

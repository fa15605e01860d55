"""The component registry: every component is declared once, here or by a plugin.

A declaration says what a World must allocate (dtype, default, per-slot shape) and how
to tell whether an entity *has* the component (its presence rule). Systems never build
component arrays themselves; they ask the World, which allocates exactly the components
its ruleset lists. Keeping the declaration in one place is what lets a new keyword plug
in as "a component plus the system code that reads it" without touching the core.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

Presence = Literal["tag", "nonzero", "mask"]


@dataclass(frozen=True)
class Component:
    """A declared component.

    presence:
      - "tag": a bool array; present where True.
      - "nonzero": a counter or value; present where != default (e.g. a status with stacks).
      - "mask": 0 is a meaningful value (a position, an owner), so presence is the slot being
        alive; such components are present on every live entity that was given them.
    """

    name: str
    dtype: np.dtype
    default: int | float | bool = 0
    presence: Presence = "nonzero"
    shape: tuple[int, ...] = ()
    doc: str = ""
    source: str = "built-in"

    @property
    def class_name(self) -> str:
        """CamelCase name used for the generated esper dataclass (`max_health` -> `MaxHealth`)."""
        return "".join(part.capitalize() for part in self.name.split("_"))


class ComponentRegistryError(ValueError):
    pass


_REGISTRY: dict[str, Component] = {}


def register_component(
    name: str,
    dtype: type | np.dtype,
    default: int | float | bool = 0,
    presence: Presence = "nonzero",
    shape: tuple[int, ...] = (),
    doc: str = "",
    source: str = "built-in",
) -> Component:
    """Declare a component. Declaring the same name twice with a different spec is an error,
    because two systems would then disagree about what the array means."""
    if not name.isidentifier() or name != name.lower():
        raise ComponentRegistryError(f"component name {name!r} must be a snake_case identifier")
    if presence not in ("tag", "nonzero", "mask"):
        raise ComponentRegistryError(f"component {name!r}: unknown presence rule {presence!r}")
    dt = np.dtype(dtype)
    if presence == "tag" and dt != np.bool_:
        raise ComponentRegistryError(f"component {name!r}: a tag must have dtype bool")
    comp = Component(name, dt, default, presence, tuple(shape), doc, source)
    existing = _REGISTRY.get(name)
    if existing is not None:
        if existing == comp:
            return existing
        raise ComponentRegistryError(
            f"component {name!r} is already registered by {existing.source} with a different declaration"
        )
    _REGISTRY[name] = comp
    return comp


def get_component(name: str) -> Component:
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY)) or "(none)"
        raise ComponentRegistryError(f"unknown component {name!r}; registered: {known}") from None


def registered_components() -> dict[str, Component]:
    return dict(_REGISTRY)

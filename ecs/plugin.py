"""battlesim's public extension API: every declaration a ruleset or a plugin makes.

One module, so a designer's keyword and the built-in ones are declared the same way (the
built-ins in ``components/keywords.py`` and ``systems/lanes/`` use exactly these functions,
so they are the examples)::

    from battlesim.ecs.plugin import component, agent, damage_kind, extend

    lanes = extend("lanes")                      # what lanes offers to extend
    lanes.keyword("thorns", value="number", doc="Thorns X: ...")

    @lanes.damage_stage("thorns", priority=REACTIONS + 15)
    def thorns(world, batch): ...

What can be declared:

- ``component``: a component array (name, dtype, default, presence, doc), any ruleset.
- ``extend(ruleset).keyword`` / ``.status``: a component that card files may name.
- ``extend(ruleset).damage_stage``: a stage of the damage pipeline at a priority.
- ``extend(ruleset).trigger`` / ``.opcode`` / ``.selector``: the effect vocabulary.
- ``extend(ruleset).on(trigger)``: a trigger handler, code run each time a trigger fires.
- ``extend(ruleset).system``: a system in a phase of the schedule, at a priority.
- ``extend(ruleset).card_files``: card and deck files a plugin ships.
- ``agent``: a named agent for ``--agents``.
- ``damage_kind``: a new flag bit for ``DamageBatch.kind``.

Discovery: installed packages declare the entry point group ``battlesim.plugins`` (the
entry point names a module, imported, or a function, called); ``load_plugins(["mod"])``
(the command line's ``--plugin mod``) imports one by import path without installing it.
Every declaration records its *source*: ``built-in``, or the plugin's name.

Ordering is explicit, so results never depend on import or discovery order:
plugins load sorted by name; damage stages run by ascending priority, then name, then
source; systems of a phase by descending priority (esper's convention), then built-ins
before plugins, then source, then name. Registries only grow, so an id never changes.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Callable, Iterator, Literal, TypeVar

import numpy as np

from battlesim.ecs import damage as _damage
from battlesim.ecs.damage import DamagePipeline, Stage, StageSpec
from battlesim.ecs.datafiles import DataError
from battlesim.ecs.decisions import AgentFactory, register_agent
from battlesim.ecs.effects import Executor, Handler, Opcode, Selector, Trigger
from battlesim.ecs.module_files import NotAModule, exec_file
from battlesim.ecs.registry import Component, Presence, register_component

__all__ = [
    "BUILT_IN", "ENTRY_POINT_GROUP", "Keyword", "Status", "SystemSpec", "PluginInfo", "PluginError",
    "RulesetExtension", "component", "agent", "damage_kind", "extend", "load_plugins", "loaded_plugins",
    "installed_plugins", "plugins_summary", "isolated", "fingerprint", "Stage", "CardFiles", "current_source",
]

BUILT_IN = "built-in"
ENTRY_POINT_GROUP = "battlesim.plugins"
_source: ContextVar[str] = ContextVar("battlesim_plugin_source", default=BUILT_IN)

F = TypeVar("F", bound=Callable)


class PluginError(DataError):
    """A plugin could not be found, imported or registered; the message says which and why.
    (A ``DataError``: the command line reports it in one line, like a bad card file.)"""


def current_source() -> str:
    """Who is declaring right now: ``built-in``, or the plugin being loaded."""
    return _source.get()


# --------------------------------------------------------------------------- declarations

@dataclass(frozen=True)
class Keyword:
    """A keyword card files may name: a component whose value is a tag (true/false) or a
    number X ("Retaliate X"); 0/false means absent."""

    name: str
    value: Literal["tag", "number"]
    doc: str
    source: str = BUILT_IN

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(np.bool_ if self.value == "tag" else np.int16)

    @property
    def presence(self) -> Presence:
        return "tag" if self.value == "tag" else "nonzero"

    @property
    def default(self) -> bool | int:
        return False if self.value == "tag" else 0

    @property
    def value_type(self) -> str:
        return "bool" if self.value == "tag" else "int"


@dataclass(frozen=True)
class Status:
    """A status: stacks (int16, 0 = absent) that effects apply; ``decays``: loses a stack at
    the end of each round; ``purgeable``: removed by purge."""

    name: str
    doc: str
    decays: bool = False
    purgeable: bool = False
    source: str = BUILT_IN


@dataclass(frozen=True)
class SystemSpec:
    """A system of a phase. ``factory(game)`` builds the processor for one loaded game (it
    gets the game so it can read its parameters and action table)."""

    phase: str
    priority: int
    name: str
    factory: Callable[[Any], Any]
    source: str = BUILT_IN
    doc: str = ""

    def order_key(self) -> tuple:
        return (-self.priority, self.source != BUILT_IN, self.source, self.name)


@dataclass(frozen=True)
class CardFiles:
    cards: Path | None
    decks: Path | None
    source: str = BUILT_IN


def component(name: str, dtype: type | np.dtype, default: int | float | bool = 0,
              presence: Presence = "nonzero", doc: str = "", shape: tuple[int, ...] = ()) -> Component:
    """Declare a component: one array per world, ``[B, S, *shape]`` of ``dtype``. Presence:
    ``tag`` (bool, present where True), ``nonzero`` (present where != default) or ``mask``
    (0 is meaningful: present on every live entity given it)."""
    return register_component(name, dtype, default, presence, shape, doc, source=current_source())


def agent(name: str) -> Callable[[AgentFactory], AgentFactory]:
    """Decorator: a factory of agents, selectable as ``--agents NAME``. The factory takes no
    argument and returns an object with ``act(world, games, seat, legal) -> actions``."""

    def deco(factory: AgentFactory) -> AgentFactory:
        register_agent(name, factory)
        return factory

    return deco


def damage_kind(name: str) -> int:
    """A new flag bit for ``DamageBatch.kind`` (the built-ins are COMBAT, ATTACK, SPELL,
    BATTLE, RETALIATE, OVERFLOW, STATUS). Declaring the same name again returns its bit."""
    kinds = _damage.KINDS
    if name in kinds:
        return kinds[name]
    bit = 1 << len(kinds)
    if len(kinds) >= 62:
        raise PluginError(f"damage kind {name!r}: no free flag bit left")
    kinds[name] = bit
    return bit


class RulesetExtension:
    """What one ruleset lets you declare. Get it with ``extend("lanes")``; the ruleset reads
    the same object when it builds a game, so declarations made before a game is loaded are
    part of it."""

    def __init__(self, ruleset: str) -> None:
        self.ruleset = ruleset
        self.keywords: dict[str, Keyword] = {}
        self.statuses: dict[str, Status] = {}
        self.executor = Executor()
        self.stages: dict[str, StageSpec] = {}
        self.phases: tuple[str, ...] = ()
        self.systems: dict[str, SystemSpec] = {}
        self.card_dirs: list[CardFiles] = []

    # -- keywords and statuses ------------------------------------------------------------
    def keyword(self, name: str, value: Literal["tag", "number"] = "number", doc: str = "") -> Keyword:
        """A keyword card files may name (``keywords = { thorns = 2 }``) and effects may grant.
        ``tag``: true/false (bool component); ``number``: X (int16, 0 = absent)."""
        if value not in ("tag", "number"):
            raise PluginError(f"keyword {name!r}: value must be 'tag' or 'number' (got {value!r})")
        self._free(name, "keyword")
        kw = Keyword(name, value, _one_line(doc, name), current_source())
        component(name, kw.dtype, kw.default, kw.presence, kw.doc)
        self.keywords[name] = kw
        return kw

    def status(self, name: str, doc: str = "", decays: bool = False, purgeable: bool = False) -> Status:
        """A status (stacks, int16) that ``apply_status`` effects may name."""
        self._free(name, "status")
        st = Status(name, _one_line(doc, name), decays, purgeable, current_source())
        component(name, np.int16, 0, "nonzero", st.doc)
        self.statuses[name] = st
        return st

    def _free(self, name: str, what: str) -> None:
        for reg, kind in ((self.keywords, "keyword"), (self.statuses, "status")):
            if name in reg:
                raise PluginError(f"{self.ruleset} {what} {name!r} is already declared (a {kind}, by {reg[name].source})")

    def decaying(self) -> list[str]:
        return [s.name for s in self.statuses.values() if s.decays]

    def purgeable(self) -> list[str]:
        return [s.name for s in self.statuses.values() if s.purgeable]

    # -- damage pipeline -------------------------------------------------------------------
    def damage_stage(self, name: str, priority: int) -> Callable[[F], F]:
        """Decorator: ``fn(world, batch)`` runs on every ``DamageBatch`` at ``priority``
        (see ``battlesim.ecs.damage``: PREVENTION, MITIGATION, APPLICATION, REACTIONS, DEATH). It may
        change ``batch.amount`` (before application) or start new damage through
        ``world.pipeline.run`` (reactions)."""

        def deco(fn: F) -> F:
            self.add_stage(StageSpec(name, int(priority), fn, current_source()))
            return fn

        return deco

    def add_stage(self, spec: StageSpec) -> None:
        old = self.stages.get(spec.name)
        if old is not None and old != spec:
            raise PluginError(f"{self.ruleset} damage stage {spec.name!r} is already declared by {old.source}")
        self.stages[spec.name] = spec

    def pipeline(self) -> DamagePipeline:
        """A damage pipeline with every declared stage, in the documented order."""
        return DamagePipeline(list(self.stages.values()))

    # -- effects vocabulary ----------------------------------------------------------------
    def trigger(self, name: str, doc: str) -> Trigger:
        """An effect timing card files may name (``trigger = "on_freeze"``); systems fire it
        with ``executor.fire(world, name, ctx)``."""
        t = Trigger(name, _one_line(doc, name), current_source())
        self._declare(self.executor.add_trigger, t)
        return t

    def on(self, trigger: str, name: str | None = None, doc: str | None = None) -> Callable[[F], F]:
        """Decorator: a trigger handler ``fn(world, ctx)`` run every time ``trigger`` fires, with
        every row of the firing (``ctx.game``, ``ctx.source``, ``ctx.other``...), before the
        cards' own effects on it. Vectorized like everything else: one call per firing."""

        def deco(fn: F) -> F:
            label = name or getattr(fn, "__name__", repr(fn))
            text = _one_line(doc if doc is not None else (fn.__doc__ or ""), label)
            self._declare(self.executor.add_handler, Handler(trigger, label, fn, text, current_source()))
            return fn

        return deco

    def opcode(self, name: str, doc: str, params: tuple[str, ...] = ()) -> Callable[[F], F]:
        """Decorator: ``fn(world, hit)`` is the vectorized kernel of effect ``op = name``;
        ``params`` are the effect fields it reads besides ``select`` and ``amount``."""

        def deco(fn: F) -> F:
            self._declare(self.executor.add_opcode, Opcode(name, fn, _one_line(doc, name), tuple(params), current_source()))
            return fn

        return deco

    def selector(self, name: str, doc: str) -> Callable[[F], F]:
        """Decorator: ``fn(world, ctx, table, e) -> (row_index, target_slot)`` expands each
        firing row into its targets (``select = name``)."""

        def deco(fn: F) -> F:
            self._declare(self.executor.add_selector, Selector(name, fn, _one_line(doc, name), current_source()))
            return fn

        return deco

    def _declare(self, add: Callable[[Any], None], item: Any) -> None:
        try:
            add(item)
        except ValueError as e:
            raise PluginError(f"{self.ruleset}: {e}") from None

    # -- schedule --------------------------------------------------------------------------
    def declare_phases(self, names: list[str] | tuple[str, ...]) -> None:
        """The ruleset's phases, in order (the ruleset declares them; plugins add systems)."""
        if self.phases and tuple(names) != self.phases:
            raise PluginError(f"{self.ruleset}: phases are already declared as {list(self.phases)}")
        self.phases = tuple(names)

    def system(self, phase: str, priority: int = 0, name: str | None = None, doc: str | None = None) -> Callable[[F], F]:
        """Decorator on a processor class (built with no argument) or a ``factory(game) ->
        processor``: run it in ``phase`` each round, every active game of the batch at once.
        Higher priority runs first; ``name`` defaults to the class's or function's name."""

        def deco(factory: F) -> F:
            if self.phases and phase not in self.phases:
                raise PluginError(f"{self.ruleset}: no phase {phase!r}; phases: {', '.join(self.phases)}")
            label = name or getattr(factory, "__name__", repr(factory))
            make = factory
            if isinstance(factory, type):
                make = lambda game, cls=factory: cls()  # noqa: E731  (a processor needing nothing)
            text = _one_line(doc if doc is not None else (factory.__doc__ or ""), label)
            spec = SystemSpec(phase, int(priority), label, make, current_source(), text)
            old = self.systems.get(label)
            if old is not None and old.source != spec.source:
                raise PluginError(f"{self.ruleset}: system {label!r} is already declared by {old.source}")
            self.systems[label] = spec
            return factory

        return deco

    def schedule_specs(self) -> list[tuple[str, list[SystemSpec]]]:
        """Each phase with its systems in run order."""
        out = []
        for ph in self.phases:
            specs = sorted((s for s in self.systems.values() if s.phase == ph), key=SystemSpec.order_key)
            out.append((ph, specs))
        return out

    # -- data ------------------------------------------------------------------------------
    def card_files(self, cards: str | Path | None = None, decks: str | Path | None = None) -> None:
        """Card and deck directories a plugin ships: loaded after the ruleset's own (or after
        ``--cards``); their names must not collide with those."""
        entry = CardFiles(Path(cards) if cards else None, Path(decks) if decks else None, current_source())
        if entry not in self.card_dirs:
            self.card_dirs.append(entry)

    # -- listing ---------------------------------------------------------------------------
    def vocabulary(self) -> list[dict[str, str]]:
        """Every keyword, status, trigger, opcode, selector, damage stage and system: one row
        each with ``kind, name, value_type, source, doc``."""
        rows = []
        for k in self.keywords.values():
            rows.append(dict(kind="keyword", name=k.name, value_type=k.value_type, source=k.source, doc=k.doc))
        for s in self.statuses.values():
            rows.append(dict(kind="status", name=s.name, value_type="int (stacks)", source=s.source, doc=s.doc))
        ex = self.executor
        for t in ex.triggers.values():
            rows.append(dict(kind="trigger", name=t.name, value_type="-", source=t.source, doc=t.doc))
        for o in ex.opcodes.values():
            vt = ", ".join(["amount: int", *o.params])
            rows.append(dict(kind="opcode", name=o.name, value_type=vt, source=o.source, doc=o.doc))
        for s in ex.selectors.values():
            rows.append(dict(kind="selector", name=s.name, value_type="targets", source=s.source, doc=s.doc))
        for hs in ex.handlers.values():
            for h in hs:
                rows.append(dict(kind="handler", name=h.name, value_type=f"on {h.trigger}", source=h.source, doc=h.doc))
        for st in self.pipeline().stages:
            rows.append(dict(kind="damage_stage", name=st.name, value_type=f"priority {st.priority}",
                             source=st.source, doc=_one_line(st.fn.__doc__ or "", st.name)))
        for ph, specs in self.schedule_specs():
            for s in specs:
                rows.append(dict(kind="system", name=s.name, value_type=f"{ph}, priority {s.priority}",
                                 source=s.source, doc=s.doc))
        return rows


def _one_line(doc: str, name: str) -> str:
    """The first paragraph of a doc, on one line (listings show one line per entry)."""
    first = (doc or "").strip().split("\n\n")[0]
    return " ".join(first.split()) or name


_EXTENSIONS: dict[str, RulesetExtension] = {}


def fingerprint() -> str:
    """What is declared right now, as a short string: a loaded game is valid only while the
    declarations it was built from are (caches of loaded games key on it)."""
    from battlesim.ecs import registry

    parts = [",".join(registry._REGISTRY), ",".join(_damage.KINDS)]
    for name in sorted(_EXTENSIONS):
        ext = _EXTENSIONS[name]
        ex = ext.executor
        parts += [name, ",".join(ext.keywords), ",".join(ext.statuses), ",".join(ext.stages), ",".join(ext.systems),
                  ",".join(ex.triggers), ",".join(ex.opcodes), ",".join(ex.selectors),
                  ",".join(f"{t}:{h.name}" for t, hs in ex.handlers.items() for h in hs),
                  ",".join(f"{c.cards}|{c.decks}" for c in ext.card_dirs)]
    return str(hash("\n".join(parts)))


def extend(ruleset: str) -> RulesetExtension:
    """The declarations of ``ruleset`` (created empty on first use)."""
    ext = _EXTENSIONS.get(ruleset)
    if ext is None:
        ext = _EXTENSIONS[ruleset] = RulesetExtension(ruleset)
    return ext


# --------------------------------------------------------------------------- discovery

@dataclass(frozen=True)
class PluginInfo:
    name: str  # the source recorded on its declarations
    module: str  # what was imported
    how: Literal["entry point", "--plugin"]
    dist: str = ""  # the installed distribution (entry points)


_LOADED: dict[str, PluginInfo] = {}
_ENTRY_POINTS_DONE: list[bool] = [False]


def installed_plugins() -> list[str]:
    """Names of the plugins installed in this environment (entry point group
    ``battlesim.plugins``), sorted."""
    return sorted({ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})


def loaded_plugins() -> dict[str, PluginInfo]:
    return dict(_LOADED)


def plugins_summary() -> str:
    """For error messages: what is installed and what is loaded."""
    inst = installed_plugins()
    extra = sorted(n for n, p in _LOADED.items() if p.how == "--plugin")
    text = f"installed plugins: {', '.join(inst) if inst else 'none'}"
    if extra:
        text += f"; loaded with --plugin: {', '.join(extra)}"
    return text


def load_plugins(modules: list[str] | tuple[str, ...] = (), entry_points_too: bool = True) -> list[PluginInfo]:
    """Load the installed plugins (once per process) and the ``modules`` named by import path
    (``pkg.module``; a ``path/to/file.py`` or package directory also works). Loading is
    idempotent and ordered by name, so declaration order (and every id) is the same in every
    process: a worker that loads the same plugins plays the same games."""
    infos: list[PluginInfo] = []
    if entry_points_too and not _ENTRY_POINTS_DONE[0]:
        _ENTRY_POINTS_DONE[0] = True
        eps = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: (ep.name, ep.value))
        for ep in eps:
            if ep.name in _LOADED:
                continue
            dist = getattr(getattr(ep, "dist", None), "name", "") or ""
            with _declaring(ep.name):
                try:
                    obj = ep.load()
                except Exception as e:  # noqa: BLE001  (say which plugin broke, never a bare traceback)
                    raise PluginError(f"plugin {ep.name!r} (entry point {ep.value}, {dist or 'unknown package'}) "
                                      f"failed to load: {type(e).__name__}: {e}") from e
                if callable(obj) and not isinstance(obj, type):
                    obj()
            _LOADED[ep.name] = info = PluginInfo(ep.name, ep.module, "entry point", dist)
            infos.append(info)
    for mod in sorted(set(modules)):
        info = _load_module(mod)
        if info is not None:
            infos.append(info)
    return infos


def _load_module(spec: str) -> PluginInfo | None:
    """Import one ``--plugin``: a module by import path, or a ``.py`` file or package folder by
    its path. A path's folder goes at the *end* of ``sys.path`` (for the plugin's own sibling
    imports) and the plugin itself is loaded from its file: a folder put first would let any
    stray file in it (a ``matplotlib.py`` next to the plugin) shadow an installed module."""
    name, path = _module_name(spec)
    if name in _LOADED:
        return None
    where = str(path.parent) if path is not None else str(Path.cwd())
    if where not in sys.path and (path is not None or "" not in sys.path):
        sys.path.append(where)  # console scripts do not put the working directory there
    with _declaring(name):
        try:
            if path is not None:
                _import_file(name, path)
            else:
                if importlib.util.find_spec(name) is None:
                    raise PluginError(f"--plugin {spec}: no module {name!r} on the import path (sys.path); "
                                      f"give an importable module name or a path to a .py file")
                importlib.import_module(name)
        except PluginError:
            raise
        except Exception as e:  # noqa: BLE001
            raise PluginError(f"--plugin {spec}: importing {name!r} failed: {type(e).__name__}: {e}") from e
    _LOADED[name] = info = PluginInfo(name, name, "--plugin")
    return info


def _import_file(name: str, path: Path) -> None:
    """Import the module or package at ``path`` as ``name``, whatever ``sys.path`` holds."""
    init = path / "__init__.py" if path.is_dir() else path
    have = sys.modules.get(name)
    if have is not None:
        if Path(getattr(have, "__file__", "") or "").resolve() == init.resolve():
            return
        raise PluginError(f"--plugin {path}: a module named {name!r} is already imported "
                          f"({getattr(have, '__file__', None) or 'built in'}); rename the plugin file")
    try:
        exec_file(name, init, path if path.is_dir() else None)
    except NotAModule:
        raise PluginError(f"--plugin {path}: cannot be imported as a module") from None


def _module_name(spec: str) -> tuple[str, Path | None]:
    """``pkg.mod`` -> (``pkg.mod``, None); ``dir/mod.py`` or ``dir/pkg`` -> (``mod``, its resolved path)."""
    p = Path(spec)
    if spec.endswith(".py") or (p.is_dir() and (p / "__init__.py").exists()):
        if not p.is_file() and not p.is_dir():
            raise PluginError(f"--plugin {spec}: no such file")
        return (p.stem if p.suffix == ".py" else p.name), p.resolve()
    return spec, None


@contextmanager
def _declaring(source: str) -> Iterator[None]:
    token = _source.set(source)
    try:
        yield
    finally:
        _source.reset(token)


@contextmanager
def isolated() -> Iterator[None]:
    """Declarations made inside are forgotten on exit (and plugins loaded inside are
    unloaded): tests and tutorials declare keywords without leaking them into each other."""
    from battlesim.ecs import decisions, registry

    # declare the built-ins (and installed plugins) first: what is declared inside is forgotten,
    # and a module imported for the first time inside would not declare again
    for ep in entry_points(group="battlesim.rulesets"):
        ep.load()
    load_plugins()
    saved_components = dict(registry._REGISTRY)
    saved_agents = dict(decisions._AGENTS)
    saved_kinds = dict(_damage.KINDS)
    saved_loaded = dict(_LOADED)
    saved_ep = list(_ENTRY_POINTS_DONE)
    saved_ext = {name: _snapshot(ext) for name, ext in _EXTENSIONS.items()}
    path = list(sys.path)
    try:
        yield
    finally:
        # unload the plugins loaded inside (and their submodules), so loading one again
        # declares again; other modules stay (re-importing a built-in would re-declare it)
        for info in set(_LOADED.values()) - set(saved_loaded.values()):
            for name in [m for m in sys.modules if m == info.module or m.startswith(info.module + ".")]:
                del sys.modules[name]
        sys.path[:] = path
        _restore(registry._REGISTRY, saved_components)
        _restore(decisions._AGENTS, saved_agents)
        _restore(_damage.KINDS, saved_kinds)
        _restore(_LOADED, saved_loaded)
        _ENTRY_POINTS_DONE[:] = saved_ep
        for name in list(_EXTENSIONS):
            if name not in saved_ext:
                del _EXTENSIONS[name]
        for name, snap in saved_ext.items():
            _unsnapshot(_EXTENSIONS[name], snap)


def _snapshot(ext: RulesetExtension) -> dict[str, Any]:
    ex = ext.executor
    return dict(keywords=dict(ext.keywords), statuses=dict(ext.statuses), stages=dict(ext.stages),
                systems=dict(ext.systems), card_dirs=list(ext.card_dirs), phases=ext.phases,
                triggers=dict(ex.triggers), opcodes=dict(ex.opcodes), selectors=dict(ex.selectors),
                handlers={k: list(v) for k, v in ex.handlers.items()})


def _unsnapshot(ext: RulesetExtension, snap: dict[str, Any]) -> None:
    # in place: modules hold references to these very dicts (KEYWORDS is ext.keywords)
    ex = ext.executor
    for attr, target in (("keywords", ext.keywords), ("statuses", ext.statuses), ("stages", ext.stages),
                         ("systems", ext.systems), ("triggers", ex.triggers), ("opcodes", ex.opcodes),
                         ("selectors", ex.selectors)):
        _restore(target, snap[attr])
    _restore(ex.handlers, snap["handlers"])
    ext.card_dirs[:] = snap["card_dirs"]
    ext.phases = snap["phases"]
    ex.refresh()


def _restore(target: dict, saved: dict) -> None:
    target.clear()
    target.update(saved)


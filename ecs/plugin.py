"""battlesim's public extension API: every declaration a ruleset or a plugin makes.

Declarations live in ``ecs/extension.py`` (``RulesetExtension``); this module is the entry
point and the discovery. One API, so a designer's keyword and the built-in ones are declared the same way (the
built-ins in ``components/keywords.py`` and ``systems/lanes/`` use exactly these functions,
so they are the examples)::

    from battlesim.ecs.plugin import component, agent, damage_kind, extend

    lanes = extend("lanes")                      # what lanes offers to extend
    lanes.keyword("thorns", value="number", doc="Thorns X: ...")

    @lanes.compiled_damage_stage("thorns", REACTIONS + 15, reads=("thorns",))
    def thorns(w, b, queue, qlen, i, cols): ...

What can be declared:

- ``component``: a component array (name, dtype, default, presence, doc), any ruleset.
- ``extend(ruleset).keyword`` / ``.status``: a component that card files may name.
- ``extend(ruleset).trigger``: an effect timing card files may name.
- ``extend(ruleset).card_files``: card and deck files a plugin ships.
- ``agent``: a named agent for ``--agents``.
- ``damage_kind``: a new flag bit for ``DamageBatch.kind``.
- ``extend(ruleset).compiled_damage_stage`` / ``.compiled_opcode`` / ``.compiled_selector`` /
  ``.compiled_quiet`` / ``.compiled_system`` / ``.compiled_agent``: the compiled parts, plain
  Python in numba's subset with one signature per kind (``ecs/compiled_declarations.py``); the
  engine generates one module per (ruleset, plugin set) from them. The numpy parts
  (``damage_stage``, ``opcode``, ``selector``, ``system``) are battlesim's own twins of its
  compiled systems, kept as their reference until they go: declared from anywhere else they are
  refused in one line naming the compiled declaration to use.

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
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Callable, Iterator, Literal

from battlesim.ecs import damage as _damage
from battlesim.ecs.damage import Stage
from battlesim.ecs.decisions import AgentFactory, register_agent
from battlesim.ecs.extension import (
    BUILT_IN,
    CardFiles,
    Keyword,
    PluginError,
    RulesetExtension,
    Status,
    SystemSpec,
    component,
    current_source,
    declaring,
)
from battlesim.ecs.module_files import NotAModule, exec_file

__all__ = [
    "BUILT_IN", "ENTRY_POINT_GROUP", "Keyword", "Status", "SystemSpec", "PluginInfo", "PluginError",
    "RulesetExtension", "component", "agent", "damage_kind", "extend", "load_plugins", "loaded_plugins",
    "installed_plugins", "plugins_summary", "isolated", "fingerprint", "Stage", "CardFiles", "current_source",
]

ENTRY_POINT_GROUP = "battlesim.plugins"


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
                  ",".join(f"{c.cards}|{c.decks}" for c in ext.card_dirs),
                  ",".join(f"{k}:{','.join(map(str, v))}" for k, v in ext.compiled_registries().items())]
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
            with declaring(ep.name):
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
    with declaring(name):
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
                compiled={k: dict(v) for k, v in ext.compiled_registries().items()})


def _unsnapshot(ext: RulesetExtension, snap: dict[str, Any]) -> None:
    # in place: modules hold references to these very dicts (KEYWORDS is ext.keywords)
    ex = ext.executor
    for attr, target in (("keywords", ext.keywords), ("statuses", ext.statuses), ("stages", ext.stages),
                         ("systems", ext.systems), ("triggers", ex.triggers), ("opcodes", ex.opcodes),
                         ("selectors", ex.selectors)):
        _restore(target, snap[attr])
    for attr, target in ext.compiled_registries().items():
        _restore(target, snap["compiled"][attr])
    ext.card_dirs[:] = snap["card_dirs"]
    ext.phases = snap["phases"]
    ex.refresh()


def _restore(target: dict, saved: dict) -> None:
    target.clear()
    target.update(saved)


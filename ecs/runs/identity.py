"""What makes a run the run it is: its options, the content of every file it reads, the version.

A run directory records this and a resume compares it, so a run can never mix games played
under different rules. Files count by content (a SHA-256 of their bytes), not by path: moving
the card folder is the same run, editing one card is not. Parameters count by their effective
values, so an explicit ``--param NAME=V`` equal to the default is the same run.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from battlesim.ecs.plugin import loaded_plugins


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes, read in blocks (shards of big runs are hundreds of MB)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def battlesim_version() -> str:
    from battlesim import __version__

    return __version__


@dataclass
class RunIdentity:
    """``options``: what the user chose; ``files``: name -> SHA-256 of every file read;
    ``paths``: name -> where that file was; ``load``: the card and deck folders and plugins
    to load the run again (``replay RUNDIR``). Paths are recorded, never compared."""

    options: dict[str, Any]
    files: dict[str, str]
    version: str
    paths: dict[str, str] = field(default_factory=dict)
    load: dict[str, Any] = field(default_factory=dict)

    def key(self) -> str:
        """A short digest of what is compared: every manifest line carries it, so shards and
        manifest lines brought over from another run are not vouched for."""
        text = json.dumps({"options": self.options, "files": self.files, "version": self.version}, sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    def record(self) -> dict[str, Any]:
        return {"options": self.options, "files": self.files, "version": self.version, "paths": self.paths,
                "load": self.load}

    def difference(self, recorded: dict[str, Any]) -> str | None:
        """What differs from the ``recorded`` identity, in one phrase (None: the same run)."""
        old_version = recorded.get("version")
        if old_version != self.version:
            return f"battlesim version changed ({old_version} there, {self.version} now)"
        old_files: dict[str, str] = recorded.get("files") or {}
        old_paths: dict[str, str] = recorded.get("paths") or {}
        for name in sorted(set(old_files) | set(self.files)):
            if old_files.get(name) == self.files.get(name):
                continue
            if name not in self.files:
                return f"{name} ({old_paths.get(name, '?')}) was used by the run and is not used now"
            if name not in old_files:
                return f"{name} ({self.paths.get(name)}) is used now and was not used by the run"
            return f"{name} ({self.paths.get(name)}) changed since the run started"
        old = _flat(recorded.get("options") or {})
        new = _flat(self.options)
        keys = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
        if keys:
            return "; ".join(f"{k}: {old.get(k)!r} there, {new.get(k)!r} now" for k in keys)
        return None


def _flat(options: dict[str, Any]) -> dict[str, Any]:
    """Options with each parameter on its own (a message names the one that differs)."""
    out = {k: v for k, v in options.items() if k != "params"}
    params = options.get("params")
    if isinstance(params, dict):
        out.update({f"--param {k}": v for k, v in params.items()})
    elif params is not None:
        out["params"] = params
    return out


def plugin_files(specs: Sequence[str] = ()) -> dict[str, Path]:
    """The source files of the run's plugins: every installed one (they always load) and the
    ``--plugin`` ones named by ``specs`` (a process may hold others, loaded for other runs).
    A package counts with all its ``.py`` files: any of them may change what the games do."""
    names = {Path(s).stem if s.endswith(".py") else Path(s).name if Path(s).is_dir() else s for s in specs}
    files: dict[str, Path] = {}
    for info in sorted(loaded_plugins().values(), key=lambda i: i.name):
        if info.how == "--plugin" and info.module not in names:
            continue
        mod = sys.modules.get(info.module)
        src = getattr(mod, "__file__", None)
        if not src:
            continue
        src_path = Path(src)
        if src_path.name == "__init__.py":
            for p in sorted(src_path.parent.rglob("*.py")):
                files[f"plugin {info.name} {p.relative_to(src_path.parent)}"] = p
        else:
            files[f"plugin {info.name}"] = src_path
    return files


def effective_params(game: Any, overrides: dict[str, Any]) -> dict[str, Any]:
    """Every parameter's value as the game plays it (overrides applied), so an explicit
    ``--param`` equal to its default is the same run; a ruleset without a parameter model
    counts by its overrides."""
    dump = getattr(getattr(game, "params", None), "model_dump", None)
    return dict(sorted(dump().items())) if dump is not None else dict(sorted(overrides.items()))


def run_identity(game: Any, *, ruleset: str, seed: int, decks: tuple[str, str], agents: tuple[str, str],
                 params: dict[str, Any], cards_dir: str | None = None, decks_dir: str | None = None,
                 plugins: Sequence[str] = ()) -> RunIdentity:
    """The identity of the run of ``decks`` on the loaded ``game`` (its plugins loaded)."""
    sources: dict[str, Path] = {}
    if hasattr(game, "source_files"):
        sources.update(game.source_files(decks))
    sources.update(plugin_files(plugins))
    options = {"ruleset": ruleset, "seed": seed, "decks": list(decks), "agents": list(agents),
               "params": effective_params(game, params)}
    return RunIdentity(
        options=options,
        files={name: file_sha256(p) for name, p in sources.items()},
        version=battlesim_version(),
        paths={name: str(Path(p).resolve()) for name, p in sources.items()},
        load={"cards_dir": _absolute(cards_dir), "decks_dir": _absolute(decks_dir),
              "plugins": sorted(_plugin_spec(p) for p in plugins)},
    )


def _absolute(path: str | None) -> str | None:
    return str(Path(path).resolve()) if path else None


def _plugin_spec(spec: str) -> str:
    """A ``--plugin`` given as a path, made absolute (a module name stays a name)."""
    p = Path(spec)
    return str(p.resolve()) if spec.endswith(".py") or p.is_dir() else spec

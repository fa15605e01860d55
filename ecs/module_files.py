"""Importing a Python file by its path, whatever ``sys.path`` holds (plugins given as files, the
generated engine module): the module is registered under ``name`` and removed again if running it
fails, so a broken file never leaves a half-imported module behind."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


class NotAModule(ImportError):
    """The file cannot be imported as a Python module at all (not a failure of its own code)."""


def exec_file(name: str, path: Path, package_dir: Path | None = None) -> ModuleType:
    """Import ``path`` (a module file, or a package's ``__init__.py`` with ``package_dir``) as ``name``."""
    locations = [str(package_dir)] if package_dir is not None else None
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=locations)
    if spec is None or spec.loader is None:
        raise NotAModule(f"{path} cannot be imported as a module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module

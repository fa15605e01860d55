"""Reading and validating TOML data files, with errors that name file, line, item and field.

Every ruleset's cards, decks and parameters are TOML validated with pydantic. A designer who
mistypes a field must be told where, in one line, not handed a traceback.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)


class DataError(ValueError):
    """A data file is unreadable or invalid. ``str()`` is a one-line message for the user."""


def read_toml(path: Path) -> tuple[dict[str, Any], str]:
    """Parse a TOML file; returns (data, text). Syntax errors name the file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise DataError(f"{path}: cannot read file: {e.strerror or e}") from None
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as e:
        raise DataError(f"{path}: invalid TOML: {e}") from None


def line_of(text: str, name: str, key: str = "name") -> int | None:
    """1-based line where ``key = "name"`` appears in ``text`` (None if not found)."""
    pat = re.compile(rf'^\s*{re.escape(key)}\s*=\s*["\']{re.escape(name)}["\']', re.M)
    m = pat.search(text)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _where(path: Path, line: int | None) -> str:
    return f"{path}:{line}" if line else str(path)


def validate(model: type[M], raw: Any, path: Path, text: str = "", item: str | None = None) -> M:
    """Validate one item (a card, a deck, a parameter table) with pydantic; errors name it."""
    try:
        return model.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "(item)"
        line = line_of(text, item) if item and text else None
        if line is None and err["loc"] and text:
            line = key_line(text, str(err["loc"][0]))
        what = f"{item!r}: " if item else ""
        more = f" (+{len(e.errors()) - 1} more)" if len(e.errors()) > 1 else ""
        raise DataError(f"{_where(path, line)}: {what}field {field!r}: {err['msg']}{more}") from None


def key_line(text: str, key: str) -> int | None:
    """1-based line where ``key = ...`` is set (the key bare or quoted), None if absent."""
    m = re.search(rf'^\s*["\']?{re.escape(key)}["\']?\s*=', text, re.M)
    return text.count("\n", 0, m.start()) + 1 if m else None


def fail(path: Path, text: str, item: str | None, message: str, key: str = "name") -> DataError:
    """A DataError located at ``item``'s line in ``path``."""
    line = line_of(text, item, key) if item else None
    what = f"{item!r}: " if item else ""
    return DataError(f"{_where(path, line)}: {what}{message}")

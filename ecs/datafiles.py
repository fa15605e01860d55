"""Reading and validating TOML data files, with errors that name file, line, item and field.

Every ruleset's cards, decks, parameters and scenarios are TOML validated with pydantic. A
designer who mistypes a field must be told where, in one line and in the project's words (not
pydantic's), not handed a traceback; a file that is not text, is nested absurdly deep, or is not
a regular file at all (a FIFO would block the read forever) is refused before it is parsed.
"""

from __future__ import annotations

import difflib
import re
import stat
import tomllib
from pathlib import Path
from typing import Any, Iterable, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

# Far beyond any real card or scenario file, far below what would exhaust the interpreter's stack.
MAX_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 24


class DataError(ValueError):
    """A data file is unreadable or invalid. ``str()`` is a one-line message for the user."""


def read_toml(path: Path) -> tuple[dict[str, Any], str]:
    """Parse a TOML file; returns (data, text). Every way it can fail names the file (and line)."""
    path = Path(path)
    try:
        st = path.stat()
    except OSError as e:
        raise DataError(f"{path}: cannot read file: {e.strerror or e}") from None
    if stat.S_ISDIR(st.st_mode):
        raise DataError(f"{path}: is a directory, expected a TOML file")
    if not stat.S_ISREG(st.st_mode):
        # reading a FIFO blocks until a writer comes, a device may never end: refuse both
        raise DataError(f"{path}: not a regular file (a FIFO, device or socket), expected a TOML file")
    if st.st_size > MAX_BYTES:
        raise DataError(f"{path}: {st.st_size:,} bytes, more than a data file may have ({MAX_BYTES:,})")
    try:
        data = path.read_bytes()
    except OSError as e:
        raise DataError(f"{path}: cannot read file: {e.strerror or e}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise DataError(f"{path}:{line}: not UTF-8 text (byte {e.start}: 0x{data[e.start]:02x}); "
                        f"card and scenario files must be UTF-8 TOML") from None
    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise DataError(f"{path}: invalid TOML: {printable(str(e))}") from None
    except RecursionError:
        raise DataError(f"{path}: invalid TOML: arrays or tables nested too deeply") from None
    if _depth(parsed) > MAX_DEPTH:
        raise DataError(f"{path}: arrays or tables nested more than {MAX_DEPTH} levels deep")
    return parsed, text


def _depth(value: Any, limit: int = MAX_DEPTH + 1) -> int:
    """Nesting depth of parsed TOML, counted no further than ``limit`` (no recursion)."""
    deepest, todo = 0, [(value, 0)]
    while todo:
        v, d = todo.pop()
        deepest = max(deepest, d)
        if deepest >= limit:
            return deepest
        if isinstance(v, dict):
            todo += [(x, d + 1) for x in v.values()]
        elif isinstance(v, list):
            todo += [(x, d + 1) for x in v]
    return deepest


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(text: str) -> str:
    """``text`` with control characters written as escapes (``\\x1b``, ``\\n``): a card name
    or a user's argument must never move the cursor, clear the screen or split a line."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


def did_you_mean(name: object, known: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` when ``name`` is close to one of ``known``, else ``""``."""
    if not isinstance(name, str):
        return ""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def a_or_an(word: str) -> str:
    """``"a unit"``, ``"an improvement"``: messages read as sentences."""
    return f"{'an' if word[:1].lower() in 'aeio' else 'a'} {word}"  # (u: "a unit", "a unique card")


def line_of(text: str, name: str, key: str = "name") -> int | None:
    """1-based line where ``key = "name"`` appears in ``text`` (None if not found)."""
    pat = re.compile(rf'^[ \t]*{re.escape(key)}\s*=\s*["\']{re.escape(name)}["\']', re.M)
    m = pat.search(text)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _where(path: Path, line: int | None) -> str:
    return f"{path}:{line}" if line else str(path)


def validate(model: type[M], raw: Any, path: Path, text: str = "", item: str | None = None) -> M:
    """Validate one item (a card, a deck, a parameter table) with pydantic, strictly (``health =
    true`` or ``cost = "3"`` is refused, not converted); errors name the item and the field."""
    try:
        return model.model_validate(raw, strict=True)
    except ValidationError as e:
        # a misspelled field shows up twice, as unknown and as missing: name the misspelling
        errors = sorted(e.errors(), key=lambda x: x["type"] != "extra_forbidden")
        err = errors[0]
        loc = [p for p in err["loc"] if not _is_arm(p)]
        field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
        line = line_of(text, item) if item and text else None
        if line is not None and loc:
            line = _line_in_item(text, line, loc)
        elif line is None and loc and text:
            line = locate(text, loc)
        what = f"{printable(item)!r}: " if item else ""
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        message = explain(err, _fields_at(model, err["loc"][:-1]))
        where = f"field {printable(field)!r}: " if field else ""  # (a rule over several fields has none)
        raise DataError(f"{_where(path, line)}: {what}{where}{message}{more}") from None


# pydantic names the arm of a union it tried ("int", "bool", "list[str]") in an error's location
_UNION_ARMS = {"int", "bool", "str", "float"}
_ARM = re.compile(r"^(function-[a-z-]+|literal|list|dict|tuple|set|constrained-[a-z]+)\[")


def _is_arm(part: object) -> bool:
    return isinstance(part, str) and (part in _UNION_ARMS or bool(_ARM.match(part)))


def _line_in_item(text: str, line: int, loc: list) -> int:
    """The line of field ``loc`` inside the table whose ``name = ...`` is on ``line`` (that line
    when the field is not written there: a missing field)."""
    lines = text.split("\n")
    first = next((i for i in range(line - 1, -1, -1) if lines[i].lstrip().startswith("[")), line - 1)
    last = next((i for i in range(line, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
    inner = locate("\n".join(lines[first + 1:last]), loc)
    return first + 1 + inner if inner is not None else line


def locate(text: str, loc: list) -> int | None:
    """1-based line of the value at ``loc`` (``["units", 3, "health"]``) in TOML ``text``:
    the 4th ``[[units]]`` table, then its ``health = ...`` line; as deep as can be found."""
    start, line = 0, None
    for k, part in enumerate(loc):
        if not isinstance(part, str):
            continue
        key = re.escape(part)
        nxt = loc[k + 1] if k + 1 < len(loc) else None
        if isinstance(nxt, int):  # an array of tables: its (nxt+1)-th header
            heads = list(re.finditer(rf"^[ \t]*\[\[\s*([\w.-]+\.)?{key}\s*\]\]", text[start:], re.M))
            if len(heads) > nxt:
                start += heads[nxt].start()
                line = text.count("\n", 0, start) + 1
                continue
            if heads:
                break
        m = re.search(rf'^[ \t]*(\[\s*([\w.-]+\.)?{key}\s*\]|["\']?{key}["\']?\s*=)', text[start:], re.M)
        if m is None:
            break
        start += m.start()
        line = text.count("\n", 0, start) + 1
    return line

_EXPECTED = {
    "int_type": "a whole number", "int_parsing": "a whole number", "int_from_float": "a whole number",
    "bool_type": "true or false", "bool_parsing": "true or false",
    "string_type": "text in quotes", "list_type": "a list [...]", "tuple_type": "a list [...]",
    "dict_type": "a table", "model_type": "a table", "model_attributes_type": "a table",
    "float_type": "a number", "float_parsing": "a number",
}


def explain(err: dict[str, Any], known_fields: Iterable[str] = ()) -> str:
    """One pydantic error in the project's words: what was expected, what was given."""
    kind, ctx, got = err["type"], err.get("ctx") or {}, err.get("input")
    shown = printable(_toml(got))
    if kind == "missing":
        return "missing (required)"
    if kind == "extra_forbidden":
        name = str(err["loc"][-1]) if err["loc"] else ""
        known = sorted(known_fields)
        hint = did_you_mean(name, known) or (f"; fields here: {', '.join(known)}" if known else "")
        return f"unknown field{hint}"
    if kind in _EXPECTED:
        return f"expected {_EXPECTED[kind]}, got {shown}"
    if kind == "literal_error":
        options = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        return f"expected one of {ctx.get('expected', '?')}, got {shown}{did_you_mean(got, options)}"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        sign = {"greater_than_equal": ">=", "greater_than": ">", "less_than_equal": "<=", "less_than": "<"}[kind]
        bound = next(iter(ctx.values()), "?")
        return f"must be {sign} {bound}, got {shown}"
    if kind == "string_pattern_mismatch":
        return f"expected a name without control characters (tabs, newlines, escapes), got {shown}"
    if kind in ("string_too_short", "string_too_long"):
        n = ctx.get("min_length") if kind == "string_too_short" else ctx.get("max_length")
        return f"expected {'at least' if kind == 'string_too_short' else 'at most'} {n} characters"
    if kind in ("too_short", "too_long"):
        lo, hi = ctx.get("min_length"), ctx.get("max_length")
        want = f"{'at least ' + str(lo) if kind == 'too_short' else 'at most ' + str(hi)}"
        return f"expected {want} items, got {ctx.get('actual_length', '?')}"
    if kind == "value_error":
        return printable(str(ctx.get("error", err["msg"])))
    return printable(str(err["msg"]))


def _toml(value: Any) -> str:
    """A value as it would be written in TOML (``true``, ``"3"``), short."""
    if value is True or value is False:
        text = str(value).lower()
    elif isinstance(value, str):
        text = '"' + value + '"'
    elif isinstance(value, dict):
        text = "a table"
    elif isinstance(value, list):
        text = "a list"
    else:
        text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _fields_at(model: type[BaseModel], loc: tuple) -> list[str]:
    """The field names of the (sub)model at ``loc`` (for "did you mean"), [] when unknown."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        fields = getattr(current, "model_fields", None)
        if not fields or part not in fields:
            return []
        current = _model_in(fields[part].annotation)
    return list(getattr(current, "model_fields", {}) or [])


def _model_in(annotation: Any) -> Any:
    """The BaseModel class inside ``X``, ``X | None`` or ``list[X]``, else ``annotation``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _model_in(arg)
        if isinstance(found, type) and issubclass(found, BaseModel):
            return found
    return annotation


def key_line(text: str, key: str) -> int | None:
    """1-based line where ``key = ...`` is set (the key bare or quoted), None if absent."""
    m = re.search(rf'^[ \t]*["\']?{re.escape(key)}["\']?\s*=', text, re.M)
    return text.count("\n", 0, m.start()) + 1 if m else None


def fail(path: Path, text: str, item: str | None, message: str, key: str = "name") -> DataError:
    """A DataError located at ``item``'s line in ``path``."""
    line = line_of(text, item, key) if item else None
    what = f"{printable(item)!r}: " if item else ""
    return DataError(f"{_where(path, line)}: {what}{message}")


def load_parameters(model: type[M], ruleset: str, path: Path, overrides: dict[str, Any] | None = None) -> M:
    """A ruleset's parameter file (``data/rulesets/<ruleset>.toml``) validated by ``model``, then
    ``overrides`` (``--param``) applied. Every ruleset loads its parameters here, so an unknown
    or out-of-range ``--param`` reads the same in each: the file is checked first, and once it is
    valid an error names ``--param``, not the file."""
    raw, text = read_toml(path)
    params = validate(model, raw, path, text)
    if not overrides:
        return params
    fields = model.model_fields
    unknown = sorted(set(overrides) - set(fields))
    if unknown:
        raise DataError(f"--param {unknown[0]}: unknown {ruleset} parameter{did_you_mean(unknown[0], fields)}; "
                        f"valid: {', '.join(fields)}")
    for name, value in overrides.items():
        default = fields[name].default
        if isinstance(value, str) and isinstance(default, (int, float)) and not isinstance(default, bool):
            raise DataError(f"--param {name}: {value!r} is not a number")
    return validate(model, {**raw, **overrides}, Path("--param"))

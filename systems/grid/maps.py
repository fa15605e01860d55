"""Map files (data/maps/grid/<name>.toml): the walls, webs and mana pools of a board.

The excerpt has walls (4.2.7), webs (4.2.8-4.2.10) and a mana pool space (4.1.1's example) but no
map; spec §2 "Map" makes them files. A map is checked at load, each error one line naming the
file, the line and the field: coordinates on the board, no cell listed twice or given two
features, 180° symmetry (neither side starts on the better half), and room for both sides'
starting heroes and hires.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from battlesim.data import data_dir
from battlesim.ecs.datafiles import DataError, did_you_mean, locate, printable, read_toml, validate
from battlesim.systems.grid.board import Board, cell_id, home_cells, make_board, rotate180
from battlesim.systems.grid.params import MAX_SIDE, MIN_SIDE
from battlesim.systems.grid.vocabulary import MAP_FEATURES

Cell = list[int]


class MapSpec(BaseModel):
    """One map file as written."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=80, pattern=r"^[^\x00-\x1f\x7f-\x9f]+$")
    description: str = ""
    width: int = Field(8, ge=MIN_SIDE, le=MAX_SIDE)
    height: int = Field(8, ge=MIN_SIDE, le=MAX_SIDE)
    walls: list[list[int]] = Field(default_factory=list)
    webs: list[list[int]] = Field(default_factory=list)
    mana_pools: list[list[int]] = Field(default_factory=list)


@dataclass(frozen=True)
class GridMap:
    """A valid map: its spec, its board tables and the file it came from."""

    id: str
    spec: MapSpec
    board: Board
    path: Path


def hero_start(side: int, width: int, height: int) -> int:
    """The starting hero's cell (spec §2 "Setup": own back row, x = width/2 - 1 for side 0,
    mirrored for side 1)."""
    c0 = cell_id(width // 2 - 1, 0, width)
    return c0 if side == 0 else rotate180(c0, width, height)


def cells_problem(features: dict[str, list[list[int]]], w: int, h: int) -> tuple[str, str] | None:
    """(field, what is wrong) for the first feature cell off the ``w`` x ``h`` board, listed
    twice, or given two features (a cell is a wall, a web or a mana pool); None if all are fine."""
    seen: dict[tuple[int, int], str] = {}
    for feature, cells in features.items():
        for i, xy in enumerate(cells):
            field = f"{feature}[{i}]"
            if len(xy) != 2:
                return field, f"expected a cell [x, y], got {xy}"
            x, y = xy
            if not (0 <= x < w and 0 <= y < h):
                return field, f"cell [{x}, {y}] is off the {w}x{h} board (0 <= x < {w}, 0 <= y < {h})"
            if (x, y) in seen:
                other = seen[(x, y)]
                what = "listed twice" if other == feature else f"is also in {other} (one feature per cell)"
                return field, f"cell [{x}, {y}] {what}"
            seen[(x, y)] = feature
    return None


def check_features(spec: MapSpec, path: Path, text: str, deploy_rows: int = 2) -> None:
    """Every rule a map's cells must follow; the first broken one as a one-line DataError."""
    w, h = spec.width, spec.height

    def bad(field: str, msg: str) -> DataError:
        line = locate(text, [field.split("[")[0]]) if text else None
        where = f"{path}:{line}" if line else str(path)
        return DataError(f"{where}: map {printable(spec.name)!r}: field {field!r}: {msg}")

    problem = cells_problem({f: getattr(spec, f) for f in MAP_FEATURES}, w, h)
    if problem:
        raise bad(*problem)
    for feature in MAP_FEATURES:
        cells = {tuple(xy) for xy in getattr(spec, feature)}
        for i, (x, y) in enumerate(getattr(spec, feature)):
            mx, my = w - 1 - x, h - 1 - y
            if (mx, my) not in cells:
                raise bad(f"{feature}[{i}]", f"cell [{x}, {y}] has no mirror [{mx}, {my}]: maps are 180° "
                                             f"symmetric so that neither side starts on the better half")
    walls = {tuple(xy) for xy in spec.walls}
    for side in (0, 1):
        c = hero_start(side, w, h)
        if (c % w, c // w) in walls:
            raise bad("walls", f"cell [{c % w}, {c // w}] is side {side}'s starting hero cell, it cannot be a wall")
        home = home_cells(side, w, h, deploy_rows)
        free = [c for c in range(w * h) if home[c] and (c % w, c // w) not in walls and c != hero_start(side, w, h)]
        if not free:
            raise bad("walls", f"side {side}'s {deploy_rows} home rows are all walls: nowhere to hire")


def load_map_file(path: Path, deploy_rows: int = 2) -> GridMap:
    """Read and check one map file."""
    raw, text = read_toml(path)
    spec = validate(MapSpec, raw, path, text)
    check_features(spec, path, text, deploy_rows)
    board = make_board(spec.width, spec.height, spec.walls, spec.webs, spec.mana_pools)
    return GridMap(path.stem, spec, board, path)


def maps_dir() -> Path:
    return data_dir() / "maps" / "grid"


def load_map(name: str, directory: Path | None = None, width: int | None = None, height: int | None = None,
             deploy_rows: int = 2) -> GridMap:
    """The map ``name`` from ``directory`` (default: the shipped maps) on a ``width`` x ``height``
    board (the parameters; default: the map's own size): a map of another size is centred on a
    larger board (``centred``)."""
    directory = directory or maps_dir()
    path = directory / f"{name}.toml"
    if not path.is_file():
        known = sorted(p.stem for p in directory.glob("*.toml"))
        raise DataError(f"map {printable(name)!r}: no file {path}{did_you_mean(name, known)}; "
                        f"available: {', '.join(known) or '(none)'}")
    m = load_map_file(path, deploy_rows)
    w, h = width or m.spec.width, height or m.spec.height
    if (w, h) == (m.spec.width, m.spec.height):
        return m
    return centred(m, w, h, deploy_rows)


def centred(m: GridMap, w: int, h: int, deploy_rows: int = 2) -> GridMap:
    """Map ``m`` in the middle of a larger ``w`` x ``h`` board, the border around it open (a
    board-size sweep keeps the map's layout and adds room): each side must grow by an even number
    of cells so that the board stays 180° symmetric; a board smaller than the map is refused."""
    mw, mh = m.spec.width, m.spec.height
    asked = f"{m.path}: map {m.spec.name!r} is {mw}x{mh}, the board parameters ask for {w}x{h}"
    if w < mw or h < mh:
        raise DataError(f"{asked}: a map is never cut down; choose a map of that size or a larger board")
    if (w - mw) % 2 or (h - mh) % 2:
        raise DataError(f"{asked}: a map is centred on a larger board only if width and height each grow by an "
                        f"even number of cells (180° symmetry); choose a map of that size")
    dx, dy = (w - mw) // 2, (h - mh) // 2
    moved = {f: [[x + dx, y + dy] for x, y in getattr(m.spec, f)] for f in MAP_FEATURES}
    spec = m.spec.model_copy(update={"width": w, "height": h, **moved})
    try:
        check_features(spec, m.path, "", deploy_rows)
    except DataError as e:
        raise DataError(f"{asked}, centred on it: {str(e).split(': ', 1)[1]}") from None
    board = make_board(w, h, spec.walls, spec.webs, spec.mana_pools)
    return GridMap(m.id, spec, board, m.path)


def available_maps(directory: Path | None = None) -> list[str]:
    return sorted(p.stem for p in (directory or maps_dir()).glob("*.toml"))

"""Map files (spec §2 "Map"): the shipped maps load; a bad map is one line naming file, line, field."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from battlesim.ecs.datafiles import DataError
from battlesim.systems.grid.maps import available_maps, load_map, load_map_file
from battlesim.systems.grid.params import load_params

GOOD = """name = "Test"
width = 8
height = 8
walls = [[2, 3], [5, 4]]
webs = [[3, 2], [4, 5]]
mana_pools = [[3, 4], [4, 3]]
"""


def write(tmp_path: Path, text: str, name: str = "m") -> Path:
    p = tmp_path / f"{name}.toml"
    p.write_text(text, encoding="utf-8")
    return p


def refused(path: Path) -> str:
    with pytest.raises(DataError) as e:
        load_map_file(path)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(str(path))
    return msg


def test_at_least_two_shipped_maps_load():
    names = available_maps()
    assert len(names) >= 2 and "crossroads" in names
    for n in names:
        m = load_map(n)
        assert m.board.cells == m.spec.width * m.spec.height


def test_the_default_map_is_the_spec_crossroads():
    # spec §2 "Map": walls (2,3) (2,4) (5,3) (5,4), webs (3,2) (4,5), mana pools (3,4) (4,3)
    params = load_params()
    m = load_map(params.map, width=params.width, height=params.height)
    b = m.board
    assert sorted(b.xy(c) for c in range(b.cells) if b.wall[c]) == [(2, 3), (2, 4), (5, 3), (5, 4)]
    assert sorted(b.xy(c) for c in range(b.cells) if b.web[c]) == [(3, 2), (4, 5)]
    assert sorted(b.xy(c) for c in range(b.cells) if b.mana[c]) == [(3, 4), (4, 3)]


def test_a_good_map_loads(tmp_path):
    assert load_map_file(write(tmp_path, GOOD)).board.wall.sum() == 2


@pytest.mark.parametrize("change,line,words", [
    (("walls = [[2, 3], [5, 4]]", "walls = [[2, 3], [5, 4], [8, 0]]"), 4, "field 'walls[2]': cell [8, 0] is off the 8x8 board"),
    (("webs = [[3, 2], [4, 5]]", "webs = [[3, 2], [4, 5], [3, 2]]"), 5, "field 'webs[2]': cell [3, 2] listed twice"),
    (("mana_pools = [[3, 4], [4, 3]]", "mana_pools = [[2, 3], [5, 4]]"), 6,
     "field 'mana_pools[0]': cell [2, 3] is also in walls"),
    (("walls = [[2, 3], [5, 4]]", "walls = [[2, 3]]"), 4, "field 'walls[0]': cell [2, 3] has no mirror [5, 4]"),
    (("walls = [[2, 3], [5, 4]]", "walls = [[3, 0], [4, 7]]"), 4, "side 0's starting hero cell"),
    (("walls = [[2, 3], [5, 4]]", "walls = [[2, 3], [5, 4], [1]]"), 4, "field 'walls[2]': expected a cell [x, y]"),
    (("width = 8", "width = 3"), 2, "field 'width': must be >= 4"),
    (("width = 8", "widht = 8"), 2, "unknown field; did you mean 'width'"),
    (("walls = [[2, 3], [5, 4]]", 'walls = "none"'), 4, "field 'walls': expected a list"),
])
def test_each_kind_of_bad_map_is_one_line_naming_line_and_field(tmp_path, change, line, words):
    msg = refused(write(tmp_path, GOOD.replace(*change)))
    assert re.match(rf"^{re.escape(str(tmp_path))}/m\.toml:{line}: ", msg), msg
    assert words in msg, msg


def test_home_rows_of_walls_leave_nowhere_to_hire(tmp_path):
    rows = [[x, y] for y in (0, 1) for x in range(8) if (x, y) != (3, 0)]
    mirror = [[7 - x, 7 - y] for x, y in rows]
    msg = refused(write(tmp_path, GOOD.replace("walls = [[2, 3], [5, 4]]", f"walls = {rows + mirror}")))
    assert "home rows are all walls" in msg


def test_an_unknown_map_name_suggests_the_close_one():
    with pytest.raises(DataError, match=r"map 'crossroad': no file .*did you mean 'crossroads'"):
        load_map("crossroad")


def test_a_map_is_never_cut_down_to_a_smaller_board():
    with pytest.raises(DataError, match=r"is 8x8, the board parameters ask for 6x6: a map is never cut down"):
        load_map("crossroads", width=6, height=6)


def test_a_map_is_centred_on_a_larger_board():
    # ledger "Board size": a board-size sweep keeps the map's layout in the middle, the border open
    small = load_map("crossroads")
    big = load_map("crossroads", width=12, height=10)
    assert (big.board.width, big.board.height) == (12, 10) and big.spec.width == 12
    for feature in ("walls", "webs", "mana_pools"):
        assert getattr(big.spec, feature) == [[x + 2, y + 1] for x, y in getattr(small.spec, feature)]
    assert int(big.board.wall.sum()) == int(small.board.wall.sum()) and big.board.wall[big.board.cell(2 + 2, 3 + 1)]
    assert load_map("crossroads", width=8, height=8).spec == small.spec


def test_an_odd_growth_would_break_the_symmetry_and_is_refused():
    with pytest.raises(DataError, match=r"ask for 9x9: .*even number of cells \(180° symmetry\)"):
        load_map("crossroads", width=9, height=9)


def test_board_size_sets_a_square_board():
    p = load_params(overrides={"board_size": 12})
    assert (p.width, p.height, p.board_size) == (12, 12, 12)
    assert (load_params().width, load_params().board_size) == (8, 0)
    with pytest.raises(DataError, match=r"board_size 3: a board is at least 4x4"):
        load_params(overrides={"board_size": 3})

"""Keywords a plugin adds to grid (issue 16 "a plugin can add a keyword").

Grid's game loop is compiled against a fixed set of unit columns (``state.py``), so a plugin
keyword is a passive (grid.md 4.3.13: "The lemniscate (infinity) symbol next to the ability text
indicates that this ability is always in effect") defined as stat bonuses the card gets while it
carries the keyword: MV, damage, range, HP, resistances, per unit of its value (a ``tag`` counts
1, a ``number`` X counts X). The card set applies them when it loads (``card_set.py``), so a card
file may name the keyword, the compiled loop plays the changed stats, and no kernel recompiles.

```python
from battlesim.systems.grid.keywords import grid_keyword

grid_keyword("swift", "tag", "Swift: +1 MV.", mv=1)
grid_keyword("armored", "number", "Armored X: +X physical resistance.", resist=(1, 0, 0))
```

The keyword is also declared on ``extend("grid")`` (``ecs/plugin.py``), so names stay unique,
``battlesim keywords --ruleset grid`` lists it with its plugin as source, and ``isolated()``
forgets it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from battlesim.ecs.declaring import check_keyword_value
from battlesim.ecs.extension import PluginError
from battlesim.ecs.plugin import extend
from battlesim.systems.grid.vocabulary import KEYWORDS

NUMBER_MAX = 99  # a number keyword's X (the card stats' own bounds are the loader's)


@dataclass(frozen=True)
class GridKeyword:
    """A plugin keyword: its value kind and what one unit of its value adds to a card."""

    name: str
    value: Literal["tag", "number"]
    doc: str
    mv: int = 0
    damage: int = 0
    range: int = 0
    hp: int = 0
    resist: tuple[int, int, int] = (0, 0, 0)


_DECLARED: dict[str, GridKeyword] = {}


def grid_keyword(name: str, value: Literal["tag", "number"] = "tag", doc: str = "", *, mv: int = 0,
                 damage: int = 0, range: int = 0, hp: int = 0,
                 resist: tuple[int, int, int] = (0, 0, 0)) -> GridKeyword:
    """Declare a grid keyword that card files may name (``keywords = { swift = true }``) and what
    it adds to the card per unit of its value. A built-in keyword's name is refused."""
    if name in KEYWORDS:
        raise PluginError(f"grid keyword {name!r} is built in")
    if len(resist) != 3:
        raise PluginError(f"grid keyword {name!r}: resist is (physical, magic, poison)")
    extend("grid").keyword(name, value, doc)
    kw = GridKeyword(name, value, doc, mv, damage, range, hp, tuple(int(r) for r in resist))  # type: ignore[arg-type]
    _DECLARED[name] = kw
    return kw


def plugin_keywords() -> dict[str, GridKeyword]:
    """The plugin keywords declared now (one forgotten by ``isolated()`` is gone from ``extend``)."""
    declared = extend("grid").keywords
    return {n: k for n, k in _DECLARED.items() if n in declared}


def check_plugin_keyword(name: str, value: bool | int) -> bool:
    """True if ``name`` is a plugin keyword and ``value`` fits its kind; a misfit is an error."""
    kw = plugin_keywords().get(name)
    if kw is None:
        return False
    check_keyword_value(name, kw.value, value, 0, NUMBER_MAX)
    return True


def keyword_bonus(keywords: dict[str, bool | int]) -> dict[str, int]:
    """What a card's plugin keywords add: ``mv, damage, range, hp, physical, magic, poison``."""
    out = dict.fromkeys(("mv", "damage", "range", "hp", "physical", "magic", "poison"), 0)
    for name, kw in plugin_keywords().items():
        n = int(keywords.get(name, 0))
        if n <= 0:
            continue
        for f in ("mv", "damage", "range", "hp"):
            out[f] += n * getattr(kw, f)
        for f, r in zip(("physical", "magic", "poison"), kw.resist):
            out[f] += n * r
    return out


def plugin_only(keywords: dict[str, bool | int]) -> dict[str, bool | int]:
    """The plugin keywords among ``keywords`` that are set (a scenario's ``--json`` lists them with
    the built-in ones the compiled state holds)."""
    declared = plugin_keywords()
    return {k: v for k, v in keywords.items() if k in declared and v}

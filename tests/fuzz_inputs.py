"""The mutations of the input fuzz test (tests/test_fuzz_inputs.py): each takes a random source
and a scratch folder and returns one malformed input, with what to run on it.

Every mutation makes an input that is wrong for *every* card, deck or scenario it is applied to
(a string where a number goes, a number outside its range, a field that does not exist...), so
the test may demand exit status 2 of each one. Kept apart from the test so the test reads as
what it asserts.
"""

from __future__ import annotations

import json
import os
import random
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from battlesim.components.keywords import KEYWORDS
from battlesim.data import data_dir

CARDS = data_dir() / "cards" / "lanes"
DECKS = data_dir() / "decks" / "lanes"
PARAMS = data_dir() / "rulesets" / "lanes.toml"
SCENARIOS = Path(__file__).parent / "scenarios" / "lanes"


@dataclass
class Case:
    """One malformed input: the class it belongs to, what was done, and how to run it: ``argv``
    for the command line, or ``call`` (a loader that must raise a one-line DataError)."""

    kind: str
    what: str
    argv: list[str] | None = None
    call: Callable[[], Any] | None = None
    hint: str | None = None  # text the one-line message must contain ("did you mean 'x'?")
    extra: dict[str, Any] = field(default_factory=dict)


# ----------------------------------------------------------------------------- TOML writing

def _key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def _val(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_val(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_val(x)}" for k, x in v.items()) + " }" if v else "{}"
    raise TypeError(type(v))


def dumps(doc: dict[str, Any]) -> str:
    """``doc`` as TOML: scalars first, then ``[table]``s and ``[[array of tables]]``."""
    def is_tables(v: Any) -> bool:
        return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)

    lines = [f"{_key(k)} = {_val(v)}" for k, v in doc.items() if not isinstance(v, dict) and not is_tables(v)]
    for k, v in doc.items():
        if isinstance(v, dict):
            lines += ["", f"[{_key(k)}]"] + [f"{_key(a)} = {_val(b)}" for a, b in v.items()]
        elif is_tables(v):
            for item in v:
                lines += ["", f"[[{_key(k)}]]"] + [f"{_key(a)} = {_val(b)}" for a, b in item.items()]
    return "\n".join(lines) + "\n"


def misspell(rng: random.Random, word: str) -> str:
    """``word`` with two neighbouring letters swapped or one dropped (still close to it)."""
    for _ in range(20):
        i = rng.randrange(len(word) - 1)
        out = word[:i] + word[i + 1] + word[i] + word[i + 2:] if rng.random() < 0.5 else word[:i] + word[i + 1:]
        if out != word:
            return out
    return word + "x"


# ----------------------------------------------------------------------------- card files

def _card_files() -> dict[str, dict[str, Any]]:
    return {p.name: tomllib.loads(p.read_text()) for p in sorted(CARDS.glob("*.toml"))}


def names_by_type() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for doc in _card_files().values():
        for c in doc["cards"]:
            out.setdefault(c["type"], []).append(c["name"])
    return out


CARD_FIELDS = ("name", "type", "faction", "rarity", "unique", "tier", "cost", "gold", "attack", "health",
               "signature", "keywords", "keep_initiative", "quickcast", "target", "range", "duration",
               "effects", "ability", "text")
TAGS = [k for k, v in KEYWORDS.items() if v.value == "tag"]
NUMBERS = [k for k, v in KEYWORDS.items() if v.value == "number"]


def _mutate_card(rng: random.Random, card: dict[str, Any]) -> tuple[str, str | None]:
    """Break ``card`` in place; returns (what was done, text the message must contain)."""
    op = rng.choice(["wrong_type", "out_of_range", "misspelled_field", "missing", "bad_word", "flag_number",
                     "number_flag", "unknown_keyword", "control_name", "bad_effect", "health_true",
                     "bad_ability"])
    if op == "wrong_type":
        f = rng.choice(["cost", "attack", "health", "tier", "gold", "duration"])
        card[f] = rng.choice(["3", 1.5, [1], {"a": 1}, True])
        return f"{f} = {card[f]!r}", None
    if op == "out_of_range":
        f = rng.choice(["cost", "attack", "health", "tier", "gold", "duration"])
        card[f] = rng.choice([-5000, 40000, 2**40])
        return f"{f} = {card[f]}", None
    if op == "misspelled_field":
        f = rng.choice([k for k in card if len(k) >= 4])
        bad = misspell(rng, f)
        if bad in CARD_FIELDS:
            bad = f + "_"
        card[bad] = card.pop(f)
        return f"field {f!r} spelled {bad!r}", "did you mean"
    if op == "missing":
        f = rng.choice(["name", "type"])
        del card[f]
        return f"no {f}", None
    if op == "bad_word":
        f = rng.choice(["type", "rarity", "target"])
        word = card.get(f, {"type": "unit", "rarity": "Common", "target": "enemy_unit"}[f])
        card[f] = misspell(rng, word)
        return f"{f} = {card[f]!r}", "did you mean"
    if op == "flag_number":
        k = rng.choice(TAGS)
        card["keywords"] = {**card.get("keywords", {}), k: rng.choice([5, 0, -1])}
        return f"keyword {k} = number", "takes true/false"
    if op == "number_flag":
        k = rng.choice(NUMBERS)
        card["keywords"] = {**card.get("keywords", {}), k: True}
        return f"keyword {k} = true", "takes a number"
    if op == "unknown_keyword":
        k = misspell(rng, rng.choice([t for t in TAGS if len(t) >= 5]))
        card["keywords"] = {**card.get("keywords", {}), k: True}
        return f"keyword {k!r}", "did you mean"
    if op == "control_name":
        card["name"] = rng.choice(["Bad\x1b[2JName", "Two\nLines", "Tab\tName", "Bell\x07"])
        return f"name {card['name']!r}", None
    if op == "bad_effect":
        eff = {"trigger": misspell(rng, "on_play"), "op": "damage", "select": "chosen", "amount": 1}
        if rng.random() < 0.5:
            eff = {"trigger": "on_play", "op": misspell(rng, "damage"), "select": "chosen", "amount": 1}
        card["effects"] = [*card.get("effects", []), eff]
        return f"effect {eff}", "did you mean"
    if op == "bad_ability":
        eff = rng.choice([{"op": misspell(rng, "summon"), "card": "Restless Bones"},
                          {"op": "damage", "select": misspell(rng, "all_enemies"), "amount": 1},
                          {"op": "damage", "select": "chosen", "amount": "2"}])
        card["ability"] = {"cooldown": 1, "effects": [eff]}
        return f"ability effect {eff}", None
    card["health"] = True
    return "health = true", "true"


def card_case(rng: random.Random, tmp: Path, i: int) -> Case:
    """A copy of the shipped card files with one card broken, played by ``simulate --cards``."""
    files = _card_files()
    name = rng.choice(sorted(files))
    doc = files[name]
    k = rng.randrange(len(doc["cards"]))
    what, hint = _mutate_card(rng, doc["cards"][k])
    d = tmp / f"cards{i}"
    d.mkdir()
    for fname, content in files.items():
        if fname == name:
            (d / fname).write_text(dumps(content), encoding="utf-8")
        else:
            (d / fname).write_text((CARDS / fname).read_text(encoding="utf-8"), encoding="utf-8")
    argv = ["simulate", "--cards", str(d), "--games", "1", "--quiet"]
    return Case("card file", f"{name} card {k}: {what}", argv=argv, hint=hint)


# ----------------------------------------------------------------------------- whole files

def file_case(rng: random.Random, tmp: Path, i: int) -> Case:
    """A card or scenario file that is not TOML text at all: binary, not UTF-8, cut inside a
    string, nested past any sense, a FIFO, a folder or a device."""
    op = rng.choice(["not_utf8", "binary", "cut", "deep", "nested", "nul", "fifo", "folder", "device"])
    target = rng.choice(["cards", "scenario"])
    d = tmp / f"files{i}"
    d.mkdir()
    if target == "cards":
        for p in CARDS.glob("*.toml"):
            (d / p.name).write_bytes(p.read_bytes())
        victim = d / rng.choice(sorted(p.name for p in CARDS.glob("*.toml")))
        argv = ["simulate", "--cards", str(d), "--games", "1", "--quiet"]
    else:
        src = rng.choice(sorted(SCENARIOS.glob("*.toml")))
        victim = d / src.name
        victim.write_bytes(src.read_bytes())
        argv = ["scenario", str(victim)]
    data = victim.read_bytes()
    if op == "not_utf8":
        at = rng.randrange(len(data))
        victim.write_bytes(data[:at] + bytes([rng.choice([0xff, 0xfe, 0xc3, 0x80])]) + data[at:])
    elif op == "binary":
        victim.write_bytes(bytes(rng.randrange(256) for _ in range(400)))
    elif op == "cut":
        quotes = [m.end() for m in re.finditer(rb'= "', data)]
        victim.write_bytes(data[:rng.choice(quotes)])
    elif op == "deep":
        n = rng.choice([2000, 5000])
        victim.write_bytes(data + b"\nzz = " + b"[" * n + b"]" * n + b"\n")
    elif op == "nested":
        n = rng.choice([40, 100])
        victim.write_bytes(data + b"\nzz = " + b"[" * n + b"1" + b"]" * n + b"\n")
    elif op == "nul":
        at = rng.randrange(len(data))
        victim.write_bytes(data[:at] + b"\x00" + data[at:])
    elif op == "fifo":
        victim.unlink()
        os.mkfifo(victim)
    elif op == "folder":
        victim.unlink()
        victim.mkdir()
    else:  # a device where a file should be
        if target == "cards":
            victim.unlink()
            victim.symlink_to("/dev/zero")
        else:
            argv = ["scenario", "/dev/null"]
    return Case("file", f"{target} {victim.name}: {op}", argv=argv)


# ----------------------------------------------------------------------------- decks

def deck_case(rng: random.Random, tmp: Path, i: int, game: Any) -> Case:
    """A shipped deck with one thing wrong, loaded against the shipped cards."""
    from battlesim.systems.lanes.cards import load_deck

    src = rng.choice(sorted(DECKS.glob("*.toml")))
    deck = tomllib.loads(src.read_text())
    types = names_by_type()
    op = rng.choice(["four_heroes", "twice_hero", "unknown_hero", "count", "unknown_card", "creep_unit",
                     "equipment_unit", "hero_in_cards", "misspelled_field", "no_name", "control_name", "too_small",
                     "too_many"])
    hint = None
    if op == "four_heroes":
        deck["heroes"] = deck["heroes"][:4]
    elif op == "twice_hero":
        deck["heroes"] = deck["heroes"][:4] + deck["heroes"][:1]
    elif op == "unknown_hero":
        deck["heroes"][0] = misspell(rng, deck["heroes"][0])
        hint = "did you mean"
    elif op == "count":
        name = rng.choice(sorted(deck["cards"]))
        deck["cards"][name] = rng.choice([0, -1, "2", True, 1.5])
    elif op == "unknown_card":
        name = rng.choice(sorted(deck["cards"]))
        deck["cards"][misspell(rng, name)] = deck["cards"].pop(name)
        hint = "did you mean"
    elif op == "creep_unit":
        deck["creep"] = rng.choice(types["unit"])
    elif op == "equipment_unit":
        deck["equipment"] = {**deck.get("equipment", {}), rng.choice(types["unit"]): 1}
    elif op == "hero_in_cards":
        deck["cards"][rng.choice(types["hero"])] = 1
    elif op == "misspelled_field":
        deck[misspell(rng, "heroes")] = deck.pop("heroes")
        hint = "did you mean"
    elif op == "no_name":
        del deck["name"]
    elif op == "control_name":
        deck["name"] = "Deck\x1b[31m"
    elif op == "too_small":
        deck["cards"] = dict(list(deck["cards"].items())[:3])
    else:
        deck["cards"][rng.choice(types["unit"])] = rng.choice([4, 99, 10**9])
    path = tmp / f"deck{i}.toml"
    path.write_text(dumps(deck), encoding="utf-8")
    return Case("deck file", f"{src.name}: {op}", call=lambda: load_deck(path, game.cards.specs, game.cards.catalog,
                                                                        game.params), hint=hint, extra={"path": path})


# ----------------------------------------------------------------------------- ruleset files

def ruleset_case(rng: random.Random, tmp: Path, i: int) -> Case:
    """The parameter file with one value wrong (a file), or a wrong ``--param`` (the command line)."""
    from battlesim.systems.lanes.params import load_params

    raw = tomllib.loads(PARAMS.read_text())
    key = rng.choice(sorted(raw))
    if rng.random() < 0.5:
        op = rng.choice(["string", "bool", "float", "negative", "huge", "misspelled", "table"])
        if op == "misspelled":
            raw[misspell(rng, key)] = raw.pop(key)
        else:
            raw[key] = {"string": "3", "bool": True, "float": 2.5, "negative": -1, "huge": 10**9, "table": {"a": 1}}[op]
        path = tmp / f"lanes{i}.toml"
        path.write_text(dumps(raw), encoding="utf-8")
        return Case("ruleset file", f"{key}: {op}", call=lambda: load_params(path),
                    hint="did you mean" if op == "misspelled" else None, extra={"path": path})
    value = rng.choice([f"{key}=abc", f"{key}=2.5", f"{key}=-1", f"{key}=1e400", f"{key}", f"={rng.randrange(9)}",
                        f"{misspell(rng, key)}=3", f"{key}=99999999999"])
    return Case("ruleset --param", value, argv=["simulate", "--games", "1", "--quiet", "--param", value])


# ----------------------------------------------------------------------------- scenarios

CHAIN_CARD = {"name": "Echo Drum", "type": "unit", "faction": "Red", "cost": 1, "attack": 1, "health": 1000,
              "effects": [{"trigger": "on_damage_taken", "op": "damage", "select": "enemies_in_lane", "amount": 1}]}


def _free_cell(sc: dict[str, Any], rng: random.Random) -> tuple[int, int, int]:
    taken = {(u["side"], u["lane"], u["pos"]) for u in sc.get("units", [])}
    free = [(s, l, p) for s in (0, 1) for l in range(3) for p in range(5) if (s, l, p) not in taken]
    return rng.choice(free)


def _inline(cell: tuple[int, int, int], **more: Any) -> dict[str, Any]:
    return {"side": cell[0], "lane": cell[1], "pos": cell[2], "attack": 1, "health": 2, **more}


def scenario_case(rng: random.Random, tmp: Path, i: int) -> Case:
    """A shipped scenario with one thing a real game could not hold, run by ``scenario``."""
    src = rng.choice(sorted(SCENARIOS.glob("*.toml")))
    sc = tomllib.loads(src.read_text())
    types = names_by_type()
    units, players = sc.setdefault("units", []), sc.setdefault("players", {})
    ops = ["same_cell", "fourth_improvement", "unit_as_improvement", "spell_as_unit", "unit_as_equipment",
           "big_hand", "hero_in_hand", "negative_gold", "negative_stacks", "negative_timer", "shop_tier_0",
           "lane_mana_shape", "missing_deck", "one_deck", "expect_shape", "bad_buy", "bad_target", "flag_number",
           "health_true", "six_heroes", "misspelled_key", "misspelled_step", "unknown_card", "off_board", "chain",
           "above_max_health"]
    op = rng.choice(ops)
    hint = None
    if op == "same_cell":
        cell = _free_cell(sc, rng)
        units += [_inline(cell), _inline(cell)]
    elif op == "fourth_improvement":
        side, lane = rng.randrange(2), rng.randrange(3)
        four = [{"side": side, "lane": lane, "card": rng.choice(types["improvement"])} for _ in range(4)]
        sc["improvements"] = [*sc.get("improvements", []), *four]
    elif op == "unit_as_improvement":
        sc["improvements"] = [*sc.get("improvements", []), {"side": 0, "lane": 0, "card": rng.choice(types["unit"])}]
    elif op == "spell_as_unit":
        cell = _free_cell(sc, rng)
        units.append({"side": cell[0], "lane": cell[1], "pos": cell[2], "card": rng.choice(types["spell"])})
    elif op == "unit_as_equipment":
        units.append(_inline(_free_cell(sc, rng), equipment=rng.choice(types["unit"] + types["spell"])))
    elif op == "big_hand":
        players["hand"] = [[rng.choice(types["unit"])] * rng.choice([11, 50]), []]
    elif op == "hero_in_hand":
        players["hand"] = [[rng.choice(types["hero"] + types["creep"])], []]
    elif op == "negative_gold":
        players["gold"] = [-rng.randrange(1, 100), 0]
    elif op == "negative_stacks":
        units.append(_inline(_free_cell(sc, rng), statuses={"stunned": -rng.randrange(1, 5)}))
    elif op == "negative_timer":
        sc["improvements"] = [{"side": 1, "lane": 2, "card": rng.choice(types["improvement"]), "timer": -1}]
    elif op == "shop_tier_0":
        players["shop_tier"] = [0, 1]
    elif op == "lane_mana_shape":
        players["lane_mana"] = rng.choice([[[1, 2], [1, 2, 3]], [[1, 2, 3]], [[1, 2, 3, 4], [1, 2, 3, 4]], [1, 2]])
    elif op == "missing_deck":
        sc["decks"] = [misspell(rng, "red_vanguard"), "blue_tide"]
        hint = "did you mean 'red_vanguard'"
    elif op == "one_deck":
        sc["decks"] = ["red_vanguard"]
    elif op == "expect_shape":
        sc.pop("expect_error", None)
        sc["expect"] = rng.choice([{"units": 5}, {"units": [{"side": 0}]}, {"gold": [1]}, {"unitz": 1},
                                   {"anchors": [{"side": 0, "lane": 9}]}, {"hand": "x"}])
    elif op == "bad_buy":
        sc["steps"] = [{"do": "shop", "buy": [[rng.choice([3, 7, -1])], []]}]
    elif op == "bad_target":
        sc["steps"] = [{"do": "play", "side": 0, "card": rng.choice(types["spell"]), "lane": 0,
                        "target": [rng.choice([0, 2]), 9, 9]}]
    elif op == "flag_number":
        units.append(_inline(_free_cell(sc, rng), keywords={rng.choice(TAGS): 5}))
        hint = "takes true/false"
    elif op == "health_true":
        units.append(_inline(_free_cell(sc, rng), health=True))
    elif op == "above_max_health":
        units.append(_inline(_free_cell(sc, rng), max_health=1))
    elif op == "six_heroes":
        heroes = rng.sample(types["hero"], 6)
        sc["units"] = [{"side": 0, "lane": k % 3, "pos": k // 3, "card": h} for k, h in enumerate(heroes)]
        sc.pop("improvements", None)
    elif op == "misspelled_key":
        sc[misspell(rng, "units")] = sc.pop("units")
        hint = "did you mean"
    elif op == "misspelled_step":
        sc["steps"] = [{"do": misspell(rng, "combat")}]
        hint = "did you mean 'combat'"
    elif op == "unknown_card":
        units.append({"side": 0, "lane": 0, "pos": 4, "card": misspell(rng, rng.choice(types["unit"]))})
        sc["units"] = [u for u in units[:-1] if (u["side"], u["lane"], u["pos"]) != (0, 0, 4)] + units[-1:]
        hint = "did you mean"
    elif op == "off_board":
        f, v = rng.choice([("side", 2), ("lane", 3), ("pos", -1), ("pos", 5)])
        units.append({**_inline(_free_cell(sc, rng)), f: v})
    else:  # effects that trigger each other for ever
        sc = {"ruleset": "lanes", "rule": "chain", "cards": [CHAIN_CARD],
              "units": [{"side": s, "lane": 0, "pos": 0, "card": "Echo Drum"} for s in (0, 1)],
              "steps": [{"do": "combat"}], "expect": {"units_count": 2}}
        hint = "Echo Drum"
    path = tmp / f"scenario{i}.toml"
    path.write_text(dumps(sc), encoding="utf-8")
    return Case("scenario file", f"{src.name}: {op}", argv=["scenario", str(path)], hint=hint)


JUNK = [True, False, -1, 0, 7, 40000, -2**63, 2**63 - 1, 1.5, 1e308, "", "x", "[/x]", "\x1b[2J", [], [1], [[]], {},
        {"a": 1}, "red_vanguard", "Normark Spearman", "combat"]


def _leaves(v: Any, path: tuple = ()) -> list[tuple]:
    out = [path] if path else []
    if isinstance(v, dict):
        for k, x in v.items():
            out += _leaves(x, (*path, k))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out += _leaves(x, (*path, i))
    return out


def any_value_case(rng: random.Random, tmp: Path, i: int) -> Case:
    """A shipped scenario with any one value replaced by any junk: it may happen to make sense
    (exit 0), but it never gives a traceback, and when refused, one line."""
    src = rng.choice(sorted(SCENARIOS.glob("*.toml")))
    sc = tomllib.loads(src.read_text())
    path = rng.choice(_leaves(sc))
    value = rng.choice(JUNK)
    node = sc
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    f = tmp / f"junk{i}.toml"
    f.write_text(dumps(sc), encoding="utf-8")
    return Case("scenario value", f"{src.name}: {'.'.join(map(str, path))} = {value!r}", argv=["scenario", str(f)],
                extra={"may_pass": True})


# ----------------------------------------------------------------------------- the command line

def cli_case(rng: random.Random, tmp: Path, i: int) -> Case:
    """One command with one bad argument (markup, control characters, unknown names, bad numbers,
    missing or odd paths, broken plugins)."""
    bad_plugin = tmp / f"broken_plugin{i}.py"
    bad_plugin.write_text(rng.choice(["raise RuntimeError('boom')\n", "def (:\n", "import no_such_module_xyz\n"]))
    names = ["[/x]", "battlesim[ray]", "red_vangard", "\x1b[31mred", "a\nb", "[bold]deck[/bold]", ":smile:"]
    choices = [
        (["simulate", "--games", "1", "--quiet", "--deck", rng.choice(names)], None),
        (["simulate", "--games", "1", "--quiet", "--vs", rng.choice(names)], None),
        (["simulate", "--games", "1", "--quiet", "--agents", rng.choice(["random,random,random", "randm,random",
                                                                          ",", "[b]x", "nosuch"])], None),
        (["simulate", "--quiet", "--games", rng.choice(["-1", "0", "abc", "1e3", ""])], None),
        (["simulate", "--quiet", "--games", "1", "--seed", rng.choice(["abc", "1.5", ""])], None),
        (["simulate", "--quiet", "--games", "1", "--chunk", rng.choice(["0", "-5", "x"])], None),
        (["simulate", "--quiet", "--games", "1", "--backend", rng.choice(["nosuch", "[/x]", "locl"])], None),
        (["simulate", "--quiet", "--games", "1", "--ruleset", rng.choice(["nosuch", "lanez", "[/x]"])], None),
        (["simulate", "--quiet", "--games", "1", "--cards", rng.choice(["/nonexistent/dir", str(bad_plugin),
                                                                         "/dev/null", str(tmp)])], None),
        (["simulate", "--quiet", "--games", "1", "--plugin", rng.choice(["no_such_plugin_xyz", "missing.py",
                                                                          str(bad_plugin), "[/x].py"])], None),
        (["replay", "--seed", rng.choice(["abc", ""])], None),
        (["replay", "--seed", "0", "--deck", rng.choice(names)], None),
        (["keywords", "--kind", rng.choice(["nosuch", "[/x]", "keywrd"])], None),
        (["decks", "--ruleset", rng.choice(["nosuch", "[/x]"])], None),
        (["scenario", rng.choice(["/nonexistent.toml", str(tmp), "/dev/null"])], None),
        (["balance", "--games-per-pairing", rng.choice(["0", "-3", "x"]), "--quiet"], None),
        (["balance", "--decks", rng.choice(["nosuch,red_vanguard", "[/x]"]), "--games-per-pairing", "1", "--quiet"],
         None),
        ([rng.choice(["simulat", "[/x]", "nosuch"])], None),
        (["simulate", rng.choice(["--gmaes", "--[/x]", "--bogus"]), "1"], None),
    ]
    argv, hint = rng.choice(choices)
    return Case("command line", " ".join(repr(a) if not a.isprintable() or not a else a for a in argv), argv=argv,
                hint=hint)

"""Bad input gets one line, never a traceback; nonsense is refused (issue 12, part B).

Each test quotes the issue's sentence it checks. tests/test_fuzz_inputs.py throws a few hundred
random inputs of the same classes at the command line; these pin each class down by hand.
"""

from __future__ import annotations

import importlib.util
import io
import os
import shutil
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from battlesim.data import data_dir
from battlesim.ecs.cli import run
from battlesim.ecs.cli.app import warn
from battlesim.ecs.datafiles import MAX_DEPTH, DataError, printable, read_toml
from battlesim.ecs.plugin import isolated, load_plugins
from battlesim.systems.lanes import cards as lanes_cards
from battlesim.systems.lanes.cards import load_cards
from battlesim.systems.lanes.params import load_params

CARDS = data_dir() / "cards" / "lanes"


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = run(list(argv))
    return status, out.getvalue(), err.getvalue()


def one_line(err: str) -> str:
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


UNIT = '''
[[cards]]
name = "Test Pikeman"
type = "unit"
faction = "Red"
cost = 2
attack = 2
health = 3
'''


def card_dir(tmp_path: Path, extra: str) -> Path:
    d = tmp_path / f"cards{len(list(tmp_path.glob('cards*')))}"
    shutil.copytree(CARDS, d)
    (d / "zz_test.toml").write_text(extra, encoding="utf-8")
    return d


def card_error(tmp_path: Path, extra: str) -> str:
    d = card_dir(tmp_path, extra)
    with pytest.raises(DataError) as e:
        load_cards(d)
    message = str(e.value)
    assert "\n" not in message and str(d / "zz_test.toml") in message, message
    return message


# -- files ----------------------------------------------------------------------------------

def test_non_utf8_file_names_file_and_line(tmp_path):
    # issue 12: "files: non-UTF-8 or binary"
    f = tmp_path / "x.toml"
    f.write_bytes(b'a = 1\nb = "caf\xe9"\n')
    with pytest.raises(DataError, match=r"x\.toml:2: not UTF-8 text"):
        read_toml(f)


def test_binary_file_is_refused(tmp_path):
    # issue 12: "files: non-UTF-8 or binary"
    f = tmp_path / "x.toml"
    f.write_bytes(bytes(range(256)))
    with pytest.raises(DataError, match=r"x\.toml"):
        read_toml(f)


def test_deeply_nested_toml_is_refused(tmp_path):
    # issue 12: "deeply nested TOML"
    f = tmp_path / "x.toml"
    f.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(DataError, match="nested too deeply"):
        read_toml(f)
    n = MAX_DEPTH + 1
    f.write_text("a = " + "[" * n + "1" + "]" * n + "\n")
    with pytest.raises(DataError, match=f"nested more than {MAX_DEPTH} levels"):
        read_toml(f)
    n = MAX_DEPTH - 1
    f.write_text("a = " + "[" * n + "1" + "]" * n + "\n")
    assert read_toml(f)[0]["a"]


@pytest.mark.parametrize("make", ["fifo", "directory", "device"])
def test_a_non_regular_file_is_refused_without_reading_it(tmp_path, make):
    # issue 12: "a FIFO or other non-regular file"; "a FIFO named as an input hangs forever"
    f = tmp_path / "x.toml"
    if make == "fifo":
        os.mkfifo(f)
    elif make == "directory":
        f.mkdir()
    else:
        f.symlink_to("/dev/zero")  # read to the end, it never ends
    with pytest.raises(DataError, match="not a regular file|is a directory"):
        read_toml(f)


def test_an_oversized_file_is_refused_before_it_is_read(tmp_path):
    # issue 12: "files: ..." (a data file is small; a huge one is a mistake, not a card set)
    f = tmp_path / "x.toml"
    with open(f, "wb") as fh:
        fh.truncate(17 * 1024 * 1024)  # sparse: costs no disk
    with pytest.raises(DataError, match="more than a data file may have"):
        read_toml(f)


def test_numbers_outside_their_dtype_are_refused_at_load(tmp_path):
    # issue 12: "numbers outside the dtype they are stored in (validate ranges at load)"
    msg = card_error(tmp_path, UNIT.replace("health = 3", "health = 3\nkeywords = { armor = 40000 }"))
    assert "'Test Pikeman'" in msg and "armor" in msg and "1000" in msg
    msg = card_error(tmp_path, UNIT.replace("attack = 2", "attack = 40000"))
    assert "field 'attack'" in msg and "must be <= 100" in msg


def test_more_cards_than_ids_allow(tmp_path, monkeypatch):
    # issue 12: "more cards than ids allow" (catalog ids are int16: the limit is 32766 cards; made
    # small here so the test stays fast, the check is the same)
    shipped = len(load_cards(CARDS)[0])
    monkeypatch.setattr(lanes_cards, "MAX_CARDS", shipped + 1)  # room for the shipped cards only
    msg = card_error(tmp_path, UNIT)
    assert f"more than {shipped} cards" in msg and "'Test Pikeman'" in msg and "16-bit" in msg


def test_every_shipped_deck_loads(lanes):
    # issue 12: "One bad deck file must not block commands that do not use it." A broken deck is
    # only reported when used, so the shipped ones are checked here, all of them, at once
    assert lanes.cards.broken == {}
    assert set(lanes.deck_ids()) == {p.stem for p in (data_dir() / "decks" / "lanes").glob("*.toml")}


def test_decks_names_a_broken_deck_file(tmp_path, monkeypatch, lanes):
    # issue 12: "One bad deck file must not block commands that do not use it."
    monkeypatch.setattr(lanes.cards, "broken", {"zz_bad": DataError("zz_bad.toml: deck 'Bad': needs 5 heroes")})
    from battlesim.ecs.cli import catalog

    monkeypatch.setattr(catalog, "load_game", lambda config: lanes)
    status, out, err = cli("decks")
    assert status == 0 and "red_vanguard" in out.split()
    assert one_line(err) == "warning: deck 'zz_bad' cannot be used: zz_bad.toml: deck 'Bad': needs 5 heroes"


# -- nonsense -------------------------------------------------------------------------------

@pytest.mark.parametrize("change, words", [
    # issue 12: "a number for a flag keyword (`taunt = 5`)"
    (("health = 3", "health = 3\nkeywords = { taunt = 5 }"), ["'taunt' takes true/false", "got 5"]),
    # issue 12: "`health = true`"
    (("health = 3", "health = true"), ["field 'health'", "expected a whole number, got true"]),
    (("cost = 2", 'cost = "2"'), ["field 'cost'", 'got "2"']),
    (("health = 3", "health = 3\nkeywords = { armor = true }"), ["'armor' takes a number"]),
])
def test_nonsense_values_are_refused(tmp_path, change, words):
    msg = card_error(tmp_path, UNIT.replace(*change))
    assert "'Test Pikeman'" in msg
    for w in words:
        assert w in msg, msg


def test_messages_name_file_line_card_field_and_suggest(tmp_path):
    # issue 12: "Messages: file and line, the card, the field, what was expected, in the project's
    # words (not pydantic's), with a "did you mean" for misspelled names."
    text = UNIT.replace("health = 3", "helth = 3")
    msg = card_error(tmp_path, text)
    line = text.split("\n").index("helth = 3") + 1  # the field's own line
    assert f"zz_test.toml:{line}:" in msg and "'Test Pikeman'" in msg and "field 'helth'" in msg
    assert "did you mean 'health'?" in msg and "Extra inputs" not in msg
    msg = card_error(tmp_path, UNIT.replace("health = 3", "health = 3\nkeywords = { tuant = true }"))
    assert "did you mean 'taunt'?" in msg
    msg = card_error(tmp_path, UNIT.replace('type = "unit"', 'type = "unti"'))
    assert "did you mean 'unit'?" in msg and "expected one of" in msg


def test_control_characters_in_a_name_are_refused(tmp_path):
    # issue 12: "control characters in card names never reach the terminal raw"
    msg = card_error(tmp_path, UNIT.replace("Test Pikeman", "Test\\u001b[2JPikeman"))
    assert "control characters" in msg and "\x1b" not in msg


def test_replay_escapes_control_characters(lanes, monkeypatch):
    # issue 12: "control characters in card names never reach the terminal raw (`replay`)"
    names = list(lanes.cards.catalog.names)
    monkeypatch.setattr(lanes.cards.catalog, "names", [n + "\x1b[2J\x07" for n in names])
    from battlesim.ecs.decisions import make_agent

    lines: list[str] = []
    lanes.replay(0, ("red_vanguard", "blue_tide"), [make_agent("random"), make_agent("random")], write=lines.append)
    text = "\n".join(lines)
    assert "\\x1b[2J\\x07" in text  # the names are there, shown escaped
    assert "\x1b" not in text and "\x07" not in text


def test_printable_escapes_every_control_character():
    assert printable("a\x1b[31mb\nc\td\x7fe\x9bf") == "a\\x1b[31mb\\nc\\td\\x7fe\\x9bf"
    assert printable("Ærø — ok [x]") == "Ærø — ok [x]"


# -- scenarios ------------------------------------------------------------------------------

def _unit(side: int, lane: int, pos: int, more: str = "") -> str:
    return f"[[units]]\nside = {side}\nlane = {lane}\npos = {pos}\nattack = 1\nhealth = 2\n{more}\n"


def _improvement(card: str, more: str = "") -> str:
    return f'[[improvements]]\nside = 0\nlane = 1\ncard = "{card}"\n{more}\n'


SCENARIOS = [
    # issue 12: "scenarios: two units in one cell"
    (_unit(0, 1, 2) + _unit(0, 1, 2), "units[0] and units[1] both stand at side 0 lane 1 pos 2"),
    # issue 12: "more units or heroes than slots"
    ("".join(f'[[units]]\nside = 0\nlane = {k % 3}\npos = {k // 3}\ncard = "{h}"\n' for k, h in enumerate(
        ["Morvane the Pale", "Lysandra Nightveil", "Draven Hollowcrown", "Ysolde Gravesinger", "Kethric Blackthorn",
         "Ithra Tidecaller"])), "more than 5 heroes on side 0"),
    (_unit(0, 3, 0), "field 'units[0].lane': must be <= 2, got 3"),
    # issue 12: "an oversized hand"
    ("[players]\nhand = [[" + ", ".join(['"Pale Acolyte"'] * 11) + "], []]\n", "11 cards, a hand holds at most 10"),
    # issue 12: "missing decks"
    ('decks = ["red_vangard", "blue_tide"]\n', "unknown deck 'red_vangard'; did you mean 'red_vanguard'?"),
    ('decks = ["red_vanguard"]\n', "field 'decks': expected at least 2 items, got 1"),
    # issue 12: "bad shop indices"
    ('[[steps]]\ndo = "shop"\nbuy = [[3], []]\n', "field 'steps[0].buy[0][0]': must be <= 2, got 3"),
    # issue 12: "an `[expect]` of the wrong shape"
    ("[expect]\nunits = 5\n", "field 'expect.units': expected a list"),
    ("[expect]\nunitz = 5\n", "field 'expect.unitz': unknown field; did you mean 'units'?"),
    ("[[expect.units]]\nside = 0\n", "field 'expect.units[0].lane': missing"),
    # issue 12: "a 4th improvement in a lane"
    (_improvement("Altar of Bones") * 4, "improvements: 4 in side 0 lane 1, at most 3 per lane per player"),
    # issue 12: "a lane mana table of the wrong shape"
    ("[players]\nlane_mana = [[1, 2], [1, 2, 3]]\n", "field 'players.lane_mana[0]': expected at least 3 items"),
    # issue 12: "nonsense: a unit or spell held as equipment or placed as an improvement"
    (_unit(0, 0, 0, 'equipment = "Pale Acolyte"'), "'Pale Acolyte' is a unit, it cannot be held as equipment"),
    (_unit(0, 0, 0, 'equipment = "Murder"'), "'Murder' is a spell, it cannot be held as equipment"),
    (_improvement("Murder"), "'Murder' is a spell, it cannot be placed as an improvement"),
    (_improvement("Pale Acolyte"), "'Pale Acolyte' is a unit, it cannot be placed as an improvement"),
    # issue 12: "negative gold, stacks or timers"
    ("[players]\ngold = [-5, 0]\n", "field 'players.gold[0]': must be >= 0, got -5"),
    (_unit(0, 0, 0, "statuses = { stunned = -1 }"), "field 'units[0].statuses.stunned': must be >= 0, got -1"),
    (_improvement("Altar of Bones", "timer = -2"), "field 'improvements[0].timer': must be >= 0, got -2"),
    # issue 12: "a number for a flag keyword (`taunt = 5`), `health = true`, shop tier 0"
    (_unit(0, 0, 0, "keywords = { taunt = 5 }"), "keyword 'taunt' takes true/false, got 5"),
    (_unit(0, 0, 0).replace("health = 2", "health = true"), "field 'units[0].health': expected a whole number"),
    ("[players]\nshop_tier = [0, 1]\n", "field 'players.shop_tier[0]': must be >= 1, got 0"),
    (_unit(0, 0, 0, "max_health = 1"), "health 2 is above max_health 1"),
]


@pytest.mark.parametrize("body, words", SCENARIOS, ids=[w[:40] for _, w in SCENARIOS])
def test_a_scenario_no_game_could_hold_is_refused(tmp_path, body, words):
    f = tmp_path / "s.toml"
    f.write_text('ruleset = "lanes"\nrule = "issue 12"\n' + body)
    status, _, err = cli("scenario", str(f))
    line = one_line(err)
    assert status == 2 and str(f) in line
    assert words in line, line


def test_a_scenario_error_names_the_line_of_the_value(tmp_path):
    # issue 12: "Messages: file and line, ..., the field"
    f = tmp_path / "s.toml"
    second = _unit(0, 0, 1).replace("health = 2", "health = true")
    text = ('ruleset = "lanes"\nrule = "issue 12"\n' + _unit(0, 0, 0) + second
            + "[expect]\nunits = [{ side = 0, lane = 0, pos = 0, health = 2 }]\n")
    f.write_text(text)
    line = text.split("\n").index("health = true") + 1
    status, _, err = cli("scenario", str(f))
    assert status == 2 and f"{f}:{line}: field 'units[1].health'" in one_line(err)


# -- the command line -----------------------------------------------------------------------

@pytest.mark.parametrize("deck", ["[/x]", "battlesim[ray]", "[bold]red[/bold]"])
def test_user_text_is_never_read_as_markup(deck):
    # issue 12: "User text is never read as rich markup (`--deck '[/x]'` crashes today;
    # `battlesim[ray]` prints as `battlesim`)"
    status, _, err = cli("simulate", "--games", "1", "--quiet", "--deck", deck)
    assert status == 2
    assert f"unknown deck {deck!r}" in one_line(err)


def test_warnings_print_user_text_as_is():
    # issue 12: "`battlesim[ray]` prints as `battlesim`"
    err = io.StringIO()
    with redirect_stderr(err):
        warn("pip install 'battlesim[ray]' [/x]")
    assert one_line(err.getvalue()) == "warning: pip install 'battlesim[ray]' [/x]"


@pytest.mark.parametrize("command, text", [("simulate", "'battlesim[ray]'"), ("scenario", "the file's [expect]")])
def test_help_prints_brackets_as_written(command, text):
    # issue 12: "`battlesim[ray]` prints as `battlesim`"
    status, out, _ = cli(command, "--help")
    assert status == 0 and text in " ".join(out.replace("│", " ").split())


@pytest.mark.parametrize("argv, words", [
    (["simulate", "--games", "abc"], ["'--games'", "battlesim simulate --help"]),
    (["simulate", "--bogus"], ["--bogus"]),
    (["simulat"], ["simulate"]),
])
def test_usage_errors_are_one_line(argv, words):
    # issue 12: "Bad input gets one line, never a traceback"
    status, _, err = cli(*argv)
    line = one_line(err)
    assert status == 2 and line.startswith("error: ")
    for w in words:
        assert w in line


def test_param_errors_name_the_option_not_the_shipped_file():
    # issue 12: "Messages: ... the field, what was expected ... with a "did you mean""
    with pytest.raises(DataError) as e:
        load_params(overrides={"anchor_hp": -1})
    assert str(e.value).startswith("--param: field 'anchor_hp': must be >= 1")
    with pytest.raises(DataError, match="did you mean 'anchor_hp'"):
        load_params(overrides={"ancor_hp": 3})


# -- plugins --------------------------------------------------------------------------------

def test_a_plugin_path_does_not_put_its_folder_first_on_sys_path(tmp_path, monkeypatch):
    # issue 12: "`--plugin dir/p.py` puts `dir` (or the current directory) first on `sys.path`:
    # a stray `matplotlib.py` there was executed during `balance`."
    d = tmp_path / "plugins"
    d.mkdir()
    (d / "stray_plugin_helper.py").write_text("VALUE = 7\n")
    (d / "issue12_plugin.py").write_text("import stray_plugin_helper\nassert stray_plugin_helper.VALUE == 7\n")
    (d / "numpy.py").write_text("raise SystemExit('the stray numpy.py ran')\n")
    monkeypatch.chdir(d)
    with isolated():
        load_plugins([str(d / "issue12_plugin.py")], entry_points_too=False)
        assert str(d) not in sys.path[:-1]  # at the end at most: siblings import, nothing is shadowed
        assert str(d) in sys.path
        origin = importlib.util.find_spec("numpy").origin
        assert origin and not origin.startswith(str(d))
        assert sys.modules["issue12_plugin"].__file__ == str(d / "issue12_plugin.py")


def test_a_plugin_named_like_an_imported_module_is_refused(tmp_path):
    # the plugin file itself must never be mistaken for (or replace) an installed module
    f = tmp_path / "json.py"
    f.write_text("X = 1\n")
    with isolated(), pytest.raises(DataError, match="already imported"):
        load_plugins([str(f)], entry_points_too=False)


# -- effect chains --------------------------------------------------------------------------

CHAIN = '''
ruleset = "lanes"
rule = "issue 12"

[[cards]]
name = "Echo Drum"
type = "unit"
faction = "Red"
cost = 1
attack = 1
health = 1000
effects = [{ trigger = "on_damage_taken", op = "damage", select = "enemies_in_lane", amount = 1 }]

[[units]]
side = 0
lane = 0
pos = 0
card = "Echo Drum"

[[units]]
side = 1
lane = 0
pos = 0
card = "Echo Drum"

[[steps]]
do = "combat"
'''


def test_an_effect_chain_that_never_quiets_is_one_line_in_scenario(tmp_path):
    # issue 12: "effect chains that never quiet: one line naming the seed and the card, in
    # `scenario` and `simulate`"
    f = tmp_path / "chain.toml"
    f.write_text(CHAIN.replace('rule = "issue 12"', 'rule = "issue 12"\nseed = 7'))
    status, _, err = cli("scenario", str(f))
    line = one_line(err)
    assert status == 2 and "seed 7" in line and "'Echo Drum'" in line


@pytest.mark.parametrize("workers", ["1", "2"])
def test_an_effect_chain_that_never_quiets_names_seed_and_card_in_simulate(tmp_path, workers):
    # issue 12: "effect chains that never quiet: one line naming the seed and the card, in
    # `scenario` and `simulate`" (every hero answers damage with damage: the heroes facing each
    # other in a lane trade blows for ever)
    d = tmp_path / "cards"
    shutil.copytree(CARDS, d)
    echo = '{ trigger = "on_damage_taken", op = "damage", select = "enemies_in_lane", amount = 1 }'
    for p in d.glob("*.toml"):
        blocks = p.read_text().split("[[cards]]")
        for i, b in enumerate(blocks):
            if 'type = "hero"' in b:
                b = "\n".join("health = 1000" if ln.startswith("health =") else ln for ln in b.split("\n"))
                b = b.replace("\neffects = [", f"\neffects = [{echo}, ", 1) if "\neffects = [" in b \
                    else b.rstrip("\n") + f"\neffects = [{echo}]\n\n"
                blocks[i] = b
        p.write_text("[[cards]]".join(blocks))
    status, _, err = cli("simulate", "--cards", str(d), "--games", "4", "--quiet", "--workers", workers)
    line = one_line(err)  # bad card data is the same on every try: not retried, no warnings
    assert status == 2 and "effects still triggering each other" in line
    assert "game with seed " in line and "card '" in line


@pytest.mark.parametrize("blank", ["\n", "\n\n", "\n   \n"])
def test_a_blank_line_before_a_table_does_not_move_the_reported_line(blank):
    """The line reported is the header's or the key's own, not the blank line above it (a
    pattern starting ``^\\s*`` would match from the blank line: ``\\s`` takes the newline)."""
    from battlesim.ecs.datafiles import key_line, line_of, locate

    text = f'title = "x"\n{blank}[[units]]\nname = "A"\n{blank}[[units]]\n{blank}name = "B"\nhealth = 3\n'
    lines = text.splitlines()
    assert locate(text, ["units", 1, "health"]) == lines.index("health = 3") + 1
    assert locate(text, ["units", 1]) == len(lines) - lines[::-1].index("[[units]]")
    assert line_of(text, "B") == lines.index('name = "B"') + 1
    assert key_line(text, "health") == lines.index("health = 3") + 1

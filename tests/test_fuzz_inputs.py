"""Malformed inputs get one line on stderr and exit status 2, never a traceback.

issue 12: "A fuzz test in the suite mutates card, deck, ruleset and scenario files and CLI
arguments (a few hundred inputs per run, about a minute) and asserts: no traceback, exit status
2, one line." The mutations (tests/fuzz_inputs.py) are drawn from a fixed seed, so a failure
names an input that the next run makes again. The command line is driven in-process through
the same ``run`` the ``battlesim`` script calls, plus a few real subprocesses.
"""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
import traceback
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout

import fuzz_inputs as fz
import pytest

from battlesim.ecs.cli import run
from battlesim.ecs.datafiles import DataError

SEED = 20261125
# inputs per class: a few hundred in all
PLAN = {"card file": 60, "file": 45, "deck file": 45, "ruleset": 40, "scenario file": 90, "scenario value": 60,
        "command line": 70}


def cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = run(argv)
    return status, out.getvalue(), err.getvalue()


def _problem(case: fz.Case, message: str, status: int | None) -> str | None:
    """What is wrong with how ``case`` was refused (None: one line, exit 2, as it should be)."""
    if status == 0 and case.extra.get("may_pass"):
        return None
    if status != 2:
        return f"exit status {status}, expected 2"
    lines = message.strip("\n").split("\n")
    if len(lines) != 1 or not lines[0].strip():
        return f"{len(lines)} lines on stderr, expected one: {message[:300]!r}"
    if "Traceback" in message or any(c in message for c in "\x1b\x07\x00"):
        return f"a traceback or a raw control character: {message!r}"
    if case.hint and case.hint not in message:
        return f"the message lacks {case.hint!r}: {message!r}"
    return None


def _outcome(case: fz.Case) -> tuple[str, str | None]:
    """(outcome, problem): outcome is 'refused', 'accepted' or 'traceback'."""
    try:
        if case.argv is not None:
            status, _, err = cli(case.argv)
            problem = _problem(case, err, status)
            return ("refused" if status == 2 else "accepted"), problem
        try:
            case.call()
        except DataError as e:
            message = str(e)
            problem = _problem(case, message, 2)
            if problem is None and str(case.extra["path"]) not in message:
                problem = f"the message does not name the file: {message!r}"
            return "refused", problem
        return "accepted", "accepted although it makes no sense"
    except Exception:  # noqa: BLE001  (the very thing this test looks for)
        return "traceback", traceback.format_exc(limit=-3)


@pytest.fixture(scope="module")
def cases(tmp_path_factory, lanes) -> list[fz.Case]:
    rng = random.Random(SEED)
    tmp = tmp_path_factory.mktemp("fuzz")
    out: list[fz.Case] = []
    for kind, n in PLAN.items():
        for i in range(n):
            j = len(out)
            if kind == "card file":
                out.append(fz.card_case(rng, tmp, j))
            elif kind == "file":
                out.append(fz.file_case(rng, tmp, j))
            elif kind == "deck file":
                out.append(fz.deck_case(rng, tmp, j, lanes))
            elif kind == "ruleset":
                out.append(fz.ruleset_case(rng, tmp, j))
            elif kind == "scenario file":
                out.append(fz.scenario_case(rng, tmp, j))
            elif kind == "scenario value":
                out.append(fz.any_value_case(rng, tmp, j))
            else:
                out.append(fz.cli_case(rng, tmp, j))
    return out


def test_every_malformed_input_gets_one_line_and_exit_2(cases):
    # issue 12: "asserts: no traceback, exit status 2, one line" (a "scenario value" input may
    # happen to be a sensible scenario: exit 0 is allowed there, a traceback never)
    tally: Counter = Counter()
    problems = []
    for case in cases:
        outcome, problem = _outcome(case)
        tally[case.kind, outcome] += 1
        if problem:
            problems.append(f"[{case.kind}] {case.what}: {problem}")
    kinds = sorted({k for k, _ in tally})
    print(f"\nfuzz (seed {SEED}): " + "; ".join(
        f"{k}: " + ", ".join(f"{o} {tally[k, o]}" for o in ("refused", "accepted", "traceback") if tally[k, o])
        for k in kinds))
    assert len(cases) >= 300
    assert not problems, f"{len(problems)} of {len(cases)} inputs mishandled:\n" + "\n".join(problems[:25])


def test_the_mutations_cover_every_class(cases):
    # the plan is what runs: a class that produced no input would pass silently
    kinds = Counter(c.kind for c in cases)
    assert set(kinds) == {"card file", "file", "deck file", "ruleset file", "ruleset --param", "scenario file",
                          "scenario value", "command line"}
    assert len(cases) == sum(PLAN.values())


def test_the_same_seed_makes_the_same_inputs(tmp_path, lanes):
    # reproducible: a failure names an input that the next run makes again
    a = [fz.scenario_case(random.Random(SEED), tmp_path, 0).what, fz.card_case(random.Random(SEED), tmp_path, 1).what]
    b = [fz.scenario_case(random.Random(SEED), tmp_path, 2).what, fz.card_case(random.Random(SEED), tmp_path, 3).what]
    assert a == b


@pytest.mark.parametrize("argv", [
    ["simulate", "--games", "1", "--deck", "[/x]"],
    ["simulate", "--games", "abc"],
    ["scenario", "/dev/null"],
    ["simulate", "--games", "1", "--plugin", "no_such_plugin_xyz"],
])
def test_the_installed_command_prints_one_line(argv, tmp_path):
    # the real script, in a real process: stderr is one line, exit status 2
    env = {**os.environ, "COLUMNS": "80"}
    p = subprocess.run([sys.executable, "-m", "battlesim.ecs.cli", *argv], capture_output=True, text=True,
                       timeout=120, check=False, cwd=tmp_path, env=env)
    assert p.returncode == 2, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert p.stderr.startswith("error: ") and "Traceback" not in p.stderr


def test_a_fifo_named_as_input_is_refused_at_once(tmp_path):
    # issue 12: "a FIFO named as an input hangs forever"
    fifo = tmp_path / "scenario.toml"
    os.mkfifo(fifo)
    status, _, err = cli(["scenario", str(fifo)])
    assert status == 2 and "not a regular file" in err and str(fifo) in err

"""Golden replays: the text of ``battlesim replay`` for fixed seeds, decks and agents, and compare.

The golden games (``bench/golden.py``) hold what a game ends with; the replay text holds what
happened in it, in order: every play, target, damage instance (its source, amount and the health
left), death, gold change and anchor. The replay reads the compiled game's own events
(``systems/lanes/compiled/event_stream.py``), so a change to where or when the compiled code
acts shows here even when the end of the game is the same.

    python bench/golden_replay.py record /tmp/replay-before   # plays the set, writes texts + hashes
    python bench/golden_replay.py compare /tmp/replay-before  # plays it again, prints the first diffs
    python bench/golden_replay.py verify [--quick]            # checks bench/golden_replay_hashes.json

``bench/golden_replay_hashes.json`` holds one hash per game. They were recorded from the numpy
twins' events (commit 7cbb605, before the replay moved to the compiled game's events): the compiled
replay reproduces them line for line. The set: three deck pairs, random vs random, greedy vs
random and greedy vs greedy (40 seeds each), lookahead vs greedy (5 seeds each). ``--quick``
plays the first ``QUICK`` seeds of each (``tests/test_replay.py`` does).
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import sys
from pathlib import Path

PAIRS = [("red_vanguard", "blue_tide"), ("green_grove", "black_covenant"), ("red_blue_tempest", "green_black_rot")]
AGENTS = [("random", "random"), ("greedy", "random"), ("greedy", "greedy"), ("lookahead", "greedy")]
SEEDS = 40
QUICK = 2
HASHES = Path(__file__).resolve().with_name("golden_replay_hashes.json")


def games(quick: bool = False) -> list[str]:
    """The set's keys, ``pair/agents/seed``, in play order."""
    out = []
    for p in range(len(PAIRS)):
        for a, pair in enumerate(AGENTS):
            n = SEEDS if pair[0] != "lookahead" else SEEDS // 8
            out += [f"{p}/{a}/{s}" for s in range(min(n, QUICK) if quick else n)]
    return out


def replay_text(key: str, game=None) -> list[str]:
    """The replay's lines of game ``key``."""
    from battlesim.ecs.decisions import make_agent
    from battlesim.systems.lanes.ruleset import RULESET

    game = game or RULESET.load()
    p, a, seed = (int(x) for x in key.split("/"))
    lines: list[str] = []
    game.replay(seed, PAIRS[p], [make_agent(x) for x in AGENTS[a]], write=lines.append)
    return lines


def digest(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def _play(keys: list[str]) -> dict[str, list[str]]:
    from battlesim.systems.lanes.ruleset import RULESET

    game = RULESET.load()
    return {k: replay_text(k, game) for k in keys}


def record(out: Path) -> None:
    texts = _play(games())
    out.mkdir(parents=True, exist_ok=True)
    (out / "replays.json").write_text(json.dumps(texts))
    (out / "hashes.json").write_text(json.dumps({k: digest(v) for k, v in texts.items()}, indent=0))
    print(f"{len(texts)} replays recorded in {out}")


def verify(quick: bool = False, hashes: Path = HASHES) -> int:
    """Play the set and check its hashes; returns the number of replays that differ."""
    want = json.loads(hashes.read_text())
    keys = games(quick)
    bad = [k for k, lines in _play(keys).items() if digest(lines) != want[k]]
    for k in bad:
        print(f"replay {k} differs from its golden text")
    print(f"{len(keys) - len(bad)} of {len(keys)} replays identical")
    return len(bad)


def compare(recorded: Path, shown: int = 3) -> int:
    want = json.loads((recorded / "replays.json").read_text())
    bad = 0
    for k, lines in _play(list(want)).items():
        if lines != want[k]:
            bad += 1
            if bad <= shown:
                print(f"=== replay {k}")
                print("\n".join(list(difflib.unified_diff(want[k], lines, "golden", "now", n=3, lineterm=""))[:60]))
    print(f"{len(want) - bad} of {len(want)} replays identical")
    return bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("record").add_argument("dir", type=Path)
    sub.add_parser("compare").add_argument("dir", type=Path)
    sub.add_parser("verify").add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    if args.cmd == "record":
        record(args.dir)
        return 0
    if args.cmd == "compare":
        return 1 if compare(args.dir) else 0
    return 1 if verify(args.quick) else 0


if __name__ == "__main__":
    sys.exit(main())

"""docs/architecture.md "debugging a game": under ``NUMBA_DISABLE_JIT=1`` the compiled game loop
runs as plain Python (a debugger steps through every system), and plays the very game the
machine code plays for the same seed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

from battlesim.ecs.decisions import make_agent

GAME = '''
import json, sys
import numpy as np
from battlesim.ecs.decisions import make_agent
from battlesim.ecs.ruleset import get_ruleset
game = get_ruleset("lanes").load()
seeds = np.array(json.loads(sys.argv[1]), dtype=np.int64)
g = game.play_tables(seeds, game.default_decks(), [make_agent("random"), make_agent("random")], cards=False)["games"]
print(json.dumps({k: np.asarray(g[k]).tolist() for k in ("seed", "winner", "rounds", "end_reason")}))
'''


def test_the_loop_without_jit_plays_the_compiled_loops_games(lanes) -> None:
    seeds = [3, 11]
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    r = subprocess.run([sys.executable, "-c", GAME, json.dumps(seeds)], capture_output=True, text=True, env=env,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    plain = json.loads(r.stdout)
    g = lanes.play_tables(np.array(seeds, dtype=np.int64), lanes.default_decks(),
                          [make_agent("random"), make_agent("random")], cards=False)["games"]
    compiled = {k: np.asarray(g[k]).tolist() for k in ("seed", "winner", "rounds", "end_reason")}
    assert plain == compiled

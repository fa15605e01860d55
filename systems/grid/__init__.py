"""The grid ruleset (shared/rules/grid.md, reading in shared/specs/grid.md): a square-grid
skirmish with MV and SE points, walls, webs, line of sight and hiding.

The data side: the board and its geometry (board.py), the vocabulary, the card, deck and map
files, the scenario format (scenario_spec.py, scenario_check.py). The compiled engine: the state
(state.py), the legal mask (rules.py), every action applied (apply.py), setup, the random agent
and a whole game (play.py, game.py); ``battlesim scenario`` for grid files (scenario.py). The
ledger is docs/rules/grid.md.
"""

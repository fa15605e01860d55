"""The grid ruleset (shared/rules/grid.md, reading in shared/specs/grid.md): a square-grid
skirmish with MV and SE points, walls, webs, line of sight and hiding.

This package holds what does not depend on the engine: the board and its geometry, the
vocabulary, the card, deck and map files, and the scenario format. The ledger is
docs/rules/grid.md.
"""

"""The compiled per-game core (numba): what runs inside one game's loop.

DESIGN.md "Execution model": the batch axis is where the data lives, the per-game loop is
compiled. This package holds the pieces that do not depend on a ruleset's rules:

- ``world_view``: how compiled code sees a World: its component buffers, ``alive``, ``serial``,
  the catalog by card id and the parameters, without copying (``WorldState``);
- ``rng``: the counter RNG of ``battlesim.ecs.rng`` as ``@njit`` functions over one game, bit
  for bit (the contract that lets the compiled engine replay today's golden games);
- ``stages``: compiled damage stages, declared with a priority and one fixed signature;
- ``reads``: a stage's column reads checked against the buffer each declared name lives in;
- ``damage_queue``: the per-game damage queue the stages read and write;
- ``events``: the per-game trigger queue compiled rules hand fired triggers to the interpreter by;
- ``application``: the engine's own damage stage, health loss;
- ``codegen``: writes the one engine module of a (ruleset, plugin set) from the registered pieces;
- ``cache``: where engine modules live, their hash names, pruning, the first-run message.

docs/compiled-core.md explains how they fit and what issue 13 builds on them.
"""

"""The classes ruleset (issue 15): Paladin and Warlock on a 5 x 6 battlefield.

Groundwork only, so far: the board and its geometry (``board.py``), the vocabulary
(``vocabulary.py``) and its components (``components.py``), the card, class-board and deck
loaders (``cards.py``, ``powers.py``, ``decks.py``) and the scenario format (``scenario_spec.py``).
The engine (phases, acting, the compiled core) is not built yet; the ruleset is not registered.
"""

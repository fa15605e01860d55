"""The classes ruleset (issue 15): Paladin and Warlock on a 5 x 6 battlefield.

The data and its checks (``board``, ``vocabulary``, ``components``, ``cards``, ``powers``,
``decks``, ``catalog``, ``params``, the scenario format ``scenario_spec`` / ``scenario_check``);
the compiled engine over grouped per-game arrays (``state``, ``rules``, ``mana``, ``progress``,
``units``, ``effects`` + ``jobs``, ``legal``, ``acting``, ``actions``, ``invariants``); the
random agent and whole games (``agent``, ``games``); ``battlesim scenario`` for classes files
(``scenario``, ``scenario_state``); the ruleset object (``ruleset``). docs/rules/classes.md is
the ledger.
"""

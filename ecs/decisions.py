"""Decisions and agents (Pgx style).

At a decision point a ruleset gives, for the games that must decide now, ``legal: bool[n, A]``
over its fixed flat action table and ``actor: int[n]``. An agent maps the listed games and
their legal masks to ``int[n]`` actions, vectorized over the batch. Action 0 is always
"pass" in every ruleset's table (it may be illegal where a choice is mandatory).

A decision phase is a system that loops "ask, apply" until no game is pending; the loop is
over decision steps, never over games.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable, Protocol

import esper
import numpy as np

from battlesim.ecs.datafiles import DataError
from battlesim.ecs.rng import Stream


class Agent(Protocol):
    name: str

    def act(self, world, games: np.ndarray, seat: int, legal: np.ndarray) -> np.ndarray:
        """Return one legal action index per listed game."""
        ...


class RandomAgent:
    """Uniform over the legal actions; draws from each game's own counter-based RNG."""

    name = "random"

    def act(self, world, games: np.ndarray, seat: int, legal: np.ndarray) -> np.ndarray:
        return world.rng.choice(games, legal, Stream.AGENT)


class PassAgent:
    """Passes whenever passing is legal; otherwise takes the first legal action.

    Useful as a baseline and for tests: it never plays a card, but it still completes the
    mandatory choices (hero deployment), so a game against it is a real game.
    """

    name = "pass"

    def act(self, world, games: np.ndarray, seat: int, legal: np.ndarray) -> np.ndarray:
        return np.where(legal[:, 0], 0, np.argmax(legal, axis=1))


AgentFactory = Callable[[], Agent]
_AGENTS: dict[str, AgentFactory] = {}


def register_agent(name: str, factory: AgentFactory) -> None:
    old = _AGENTS.get(name)
    if old is not None and old is not factory and not isinstance(old, CompiledOnly):
        if isinstance(factory, CompiledOnly):
            return  # the name is already selectable; a compiled loop reads only the name
        raise ValueError(f"agent {name!r} is already registered")
    _AGENTS[name] = factory


class CompiledOnly:
    """The factory of an agent that exists only inside a ruleset's compiled game loop (no step
    API): ``--agents NAME`` selects it by name. Another ruleset may register a full agent under
    the same name (lanes' ``greedy``): either order works, the full one is kept, and the compiled
    loop still reads only ``name``."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self) -> CompiledOnly:
        return self


def compiled_agent(name: str) -> None:
    """Make ``name`` selectable with ``--agents`` for a ruleset that plays it in compiled code."""
    register_agent(name, CompiledOnly(name))


def compiled_agent_codes(agents: Sequence[Any], ruleset: str, names: Sequence[str]) -> np.ndarray:
    """Each seat's code among a ruleset's compiled agents ``names`` (its loop's order), from agents
    or their names; an agent the ruleset has no compiled twin of is a one-line error naming the
    ones it has (grid, hex and classes have no step API for Python agents)."""
    codes = []
    for a in agents:
        name = getattr(a, "name", a)
        if name not in names:
            raise DataError(f"agent {name!r} does not play {ruleset}; {ruleset} agents: {', '.join(names)}")
        codes.append(list(names).index(name))
    return np.array(codes, dtype=np.int64)


def make_agent(name: str) -> Agent:
    try:
        return _AGENTS[name]()
    except KeyError:
        raise KeyError(f"unknown agent {name!r}; available: {', '.join(sorted(_AGENTS))}") from None


def agent_names() -> list[str]:
    return sorted(_AGENTS)


register_agent("random", RandomAgent)
register_agent("pass", PassAgent)


class DecisionSystem(esper.Processor):
    """A system that asks agents until no active game is pending.

    Subclasses say which games are pending, what is legal and who acts (``request``), and
    how an action changes the world (``apply``); this loop is shared by every decision phase.
    """

    max_steps = 10_000

    def pending(self, world) -> np.ndarray:  # bool[B]
        raise NotImplementedError

    def request(self, world, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """-> (actor int[n], legal bool[n, A])"""
        raise NotImplementedError

    def apply(self, world, games: np.ndarray, actor: np.ndarray, actions: np.ndarray) -> None:
        raise NotImplementedError

    def begin(self, world) -> None:
        pass

    def end(self, world) -> None:
        pass

    def process(self, world) -> None:
        self.begin(world)
        for _ in range(self.max_steps):
            games = np.flatnonzero(self.pending(world) & world.active)
            if games.size == 0:
                break
            actor, legal = self.request(world, games)
            actions = world.decide(games, actor, legal)
            self.apply(world, games, actor, actions)
        else:
            b = int(np.flatnonzero(self.pending(world) & world.active)[0])
            raise RuntimeError(
                f"{type(self).__name__} did not settle after {self.max_steps} decisions "
                f"(game with seed {int(world.seeds[b])})"
            )
        self.end(world)

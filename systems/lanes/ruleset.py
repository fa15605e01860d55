"""The lanes ruleset: its schedule, and how a batch of games is played and reported."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from battlesim.ecs.datafiles import DataError
from battlesim.ecs.npx import nonzero
from battlesim.ecs.plugin import extend
from battlesim.ecs.schedule import Phase, Schedule
from battlesim.systems.lanes import agents as _agents  # noqa: F401  (registers greedy and lookahead)
from battlesim.systems.lanes import combat, deploy, play, round_end, round_start
from battlesim.systems.lanes.actions import ActionTable
from battlesim.systems.lanes.cards import CardSet, load_card_set
from battlesim.systems.lanes.compiled.processors import (
    Combat,
    CreepSpawn,
    DrawPhase,
    EndOfRound,
    HeroAvailability,
    HeroDeployment,
    ObjectiveSnapshot,
    PlayPhase,
    RefreshResources,
    RoundEnd,
    ShopPhase,
    StartOfRound,
    VictoryCheck,
    setup_world,
)
from battlesim.systems.lanes.measures import snapshot_columns
from battlesim.systems.lanes.params import LanesParams, load_params
from battlesim.systems.lanes.state import END_REASONS, MAX_IMPROVEMENTS, new_world, restart_world

DEFAULT_DECKS = ("red_vanguard", "blue_tide")


PHASES = ("creep_spawn", "start_of_round", "hero_deployment", "draw", "resources", "play", "combat", "shop",
          "round_end")
lanes = extend("lanes")
lanes.declare_phases(PHASES)

# The built-in systems, declared through the public API as a plugin declares its own
# (``factory(game) -> processor``; higher priority runs first inside a phase). Every one runs
# compiled code (``compiled.processors``; issue 13, docs/compiled-core.md "Wiring"): a batch
# driver, or, for the systems that fire card effects, the game loop's own step.
_BUILT_IN_SYSTEMS = [
    ("creep_spawn", 0, CreepSpawn, None),
    ("start_of_round", 0, StartOfRound, None),
    ("hero_deployment", 10, HeroAvailability, None),
    ("hero_deployment", 0, HeroDeployment, lambda game: HeroDeployment(game.actions)),
    ("draw", 0, DrawPhase, None),
    ("resources", 0, RefreshResources, None),
    ("play", 0, PlayPhase, lambda game: PlayPhase(game.actions)),
    ("combat", 0, Combat, None),
    ("combat", -10, VictoryCheck, None),
    ("shop", 0, ShopPhase, lambda game: ShopPhase(game.actions)),
    ("round_end", 10, EndOfRound, None),
    ("round_end", 5, ObjectiveSnapshot, None),
    ("round_end", 0, RoundEnd, None),
]
for _phase, _priority, _cls, _factory in _BUILT_IN_SYSTEMS:
    lanes.system(_phase, _priority, name=_cls.__name__, doc=_cls.__doc__ or "")(_factory or _cls)


# The numpy twins of the systems that fire card effects: the reference schedule
# (``make_schedule(game, reference=True)``) the compiled systems were proved against, still played
# by the differential tests (issue 13's "One engine": what is left of numpy; a plugin declares
# compiled parts only, ``ecs/extension.py``'s ``_numpy_part``).
REFERENCE_SYSTEMS = {
    "StartOfRound": lambda game: round_start.StartOfRound(),
    "HeroDeployment": lambda game: deploy.HeroDeployment(game.actions),
    "PlayPhase": lambda game: play.PlayPhase(game.actions),
    "Combat": lambda game: combat.Combat(),
    "EndOfRound": lambda game: round_end.EndOfRound(),
}


def make_schedule(game: "LanesGame", reference: bool = False) -> Schedule:
    """lanes.md "Game Phases": creep spawn, start of round (status tick, start-of-round effects),
    hero deployment, draw, resources, play, combat (win check), shop, end of round; with every
    system a plugin declared, in the documented order (ecs/plugin.py). ``reference``: the systems
    that fire card effects are their numpy twins (``REFERENCE_SYSTEMS``)."""
    phases = []
    for name, specs in lanes.schedule_specs():
        systems = []
        for spec in specs:
            twin = REFERENCE_SYSTEMS.get(spec.name) if reference else None
            proc = (twin or spec.factory)(game)
            proc.priority = spec.priority
            systems.append(proc)
        phases.append(Phase(name, systems))
    return Schedule(phases)


# Worlds kept for restarting (``LanesGame._batch_world``): one per batch shape, the newest two (a
# World of 4,096 games holds ~100 MB; consecutive batches of a run share one shape)
SPARE_WORLDS = 2
SEAT_DECKS = np.array([0, 1])  # ``new_world``'s deck index: seat s plays the pair's deck s


@dataclass
class LanesGame:
    params: LanesParams
    cards: CardSet
    ruleset: str = "lanes"
    python_agents = True  # the step API: an agent without a compiled twin decides in Python (DESIGN.md)
    _spare: dict = field(default_factory=dict, init=False, repr=False, compare=False)  # ``_batch_world``

    def __post_init__(self) -> None:
        p = self.params
        self.actions = ActionTable(p.hand_limit, p.lanes, p.positions, p.heroes, MAX_IMPROVEMENTS, p.shop_offers)
        self.schedule = make_schedule(self)
        self.reference = make_schedule(self, reference=True)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_spare": {}}  # a copy or a pickle carries no spare World

    def deck_ids(self) -> list[str]:
        return sorted(self.cards.decks)

    def play_reference(self, seeds: np.ndarray, decks: tuple[str, str], agents: Sequence[Any]) -> dict[str, np.ndarray]:
        """One batch played by the numpy schedule (the Processors of ``systems/lanes/*.py``): the
        reference every compiled system was proved against. The differential tests capture its
        calls; runs play the compiled loop (``play``)."""
        w = self.new_world(np.asarray(seeds, dtype=np.int64), decks, agents)
        self.run_reference(w)
        return self.results(w, decks, agents)

    def system_split(self, seeds: np.ndarray, decks: tuple[str, str], agents: Sequence[Any]) -> dict[str, float]:
        """Seconds each ``phase/System`` took over one batch played to the end through the
        compiled loop, system by system (``bench``'s phase split)."""
        from battlesim.systems.lanes.compiled import loop as compiled_loop

        w = self.new_world(np.asarray(seeds, dtype=np.int64), decks, agents)
        timings: dict[str, float] = {}
        compiled_loop.play_by_system(self, w, timings)
        return timings

    def compiled_agents(self) -> set[str]:
        """The agents with a compiled twin: they decide inside the game loop (the others are
        asked through the step API, once per batch of pending games)."""
        from battlesim.systems.lanes.compiled.game import AGENT_CODES

        return set(AGENT_CODES)

    def default_decks(self) -> tuple[str, str]:
        return DEFAULT_DECKS

    def new_world(self, seeds: np.ndarray, decks: tuple[str, str], agents: Sequence[Any]):
        w = new_world(self.cards, self.params, seeds, self._pair(decks), SEAT_DECKS, setup=setup_world)
        w.agents = list(agents)
        w.schedule = self.schedule
        w.actions = self.actions
        return w

    def _pair(self, decks: tuple[str, str]) -> list:
        """The two seats' decks, seat 0 playing ``decks[0]`` (``SEAT_DECKS``)."""
        return [self.cards.deck(d) for d in decks]

    def run(self, w) -> None:
        """Play rounds until every game of the batch has ended, system by system through the
        Processors of the World's schedule (``w.schedule``: the game's own, set by ``new_world``)."""
        for _ in range(self.params.round_limit + 1):
            if not w.active.any():
                return
            w.schedule.run(w)
        raise RuntimeError("games still running past the round limit")  # pragma: no cover

    def run_reference(self, w) -> None:
        """``run`` through the reference schedule (``make_schedule(reference=True)``)."""
        w.schedule = self.reference
        self.run(w)

    def play(self, seeds: np.ndarray, decks: tuple[str, str], agents: Sequence[Any]) -> dict[str, np.ndarray]:
        """Play one batch; the games-table columns."""
        return self.play_tables(seeds, decks, agents, cards=False)["games"]

    def play_tables(self, seeds: np.ndarray, decks: tuple[str, str], agents: Sequence[Any],
                    cards: bool = True) -> dict[str, dict[str, np.ndarray]]:
        """Play one batch; ``{"games": columns, "cards": columns}`` (cards only if asked)."""
        from battlesim.ecs.plugin import loaded_plugins
        from battlesim.systems.lanes.compiled import loop as compiled_loop

        seeds = np.asarray(seeds, dtype=np.int64)
        key, w = self._batch_world(seeds, decks, agents, loaded_plugins())
        compiled_loop.play_batch(self, w)  # every system compiled; Python agents through the step API
        out = {"games": self.results(w, decks, agents)}
        if cards:
            out["cards"] = self.card_rows(w)
        # played to its end without an error: the next batch of its shape restarts it
        self._spare.pop(key, None)
        self._spare[key] = w
        while len(self._spare) > SPARE_WORLDS:
            self._spare.pop(next(iter(self._spare)))
        return out

    def _batch_world(self, seeds: np.ndarray, decks: tuple[str, str], agents: Sequence[Any],
                     plugins: dict[str, Any]) -> tuple[tuple, Any]:
        """A World for a batch the compiled loop plays, and its key: the last one of the same
        decks, size and plugins restarted in place (``restart_world``, ``loop.restart``), else a
        new one. Why: a one-game ``play`` spent ~2 ms building a World and the compiled views
        and tables of it (``loop_args``), more than the game itself; a restarted World keeps
        them. The tables read it after the game: ``results`` and ``card_rows`` copy out."""
        from battlesim.systems.lanes.compiled import loop as compiled_loop

        key = (tuple(decks), int(seeds.shape[0]), tuple(sorted(plugins)))
        w = self._spare.pop(key, None)  # taken out while it plays: a failed batch leaves nothing half-played
        if w is None:
            return key, self.new_world(seeds, decks, agents)
        restart_world(w, seeds, self._pair(decks), SEAT_DECKS, setup=setup_world)
        compiled_loop.restart(w)
        w.agents = list(agents)
        return key, w

    def card_rows(self, w) -> dict[str, np.ndarray]:
        """The cards table: one row per card instance of each main deck per game, with the round
        it was drawn, played and died in (0 when it did not happen; the runner writes nulls).
        ``card`` holds catalog ids; ``card_names`` (below) decodes them."""
        b, seat, pos = nonzero(np.arange(w.g.deck.shape[2])[None, None, :] < w.g.deck_size[:, :, None])
        return {
            "seed": w.seeds[b].astype(np.int64),
            "player": seat.astype(np.int8),
            "card": w.g.deck[b, seat, pos].astype(np.int16),
            "drawn_round": w.g.card_drawn[b, seat, pos],
            "played_round": w.g.card_played[b, seat, pos],
            "died_round": w.g.card_died[b, seat, pos],
        }

    def source_files(self, decks: Sequence[str]) -> dict[str, Path]:
        """Every data file a run of ``decks`` rests on, by a name that does not depend on where
        the folders are (a run directory's identity hashes their contents): the parameter file,
        every card file (the plugins' too: they share one catalog) and the two decks' files."""
        from battlesim.data import data_dir

        files = {"ruleset lanes.toml": data_dir() / "rulesets" / "lanes.toml"}
        for p in sorted(self.cards.cards_dir.glob("*.toml")):
            files[f"card file {p.name}"] = p
        for f in extend("lanes").card_dirs:
            for p in sorted(f.cards.glob("*.toml")) if f.cards else []:
                files[f"card file {p.name} (plugin {f.source})"] = p
        for d in decks:
            files[f"deck {d}"] = self.cards.deck(d).path
        return files

    def scenario(self, path: Path):
        """A scenario file loaded against this game (docs/scenarios.md)."""
        from battlesim.systems.lanes.scenario import load_scenario

        return load_scenario(Path(path), game=self)

    @property
    def card_names(self) -> list[str]:
        return list(self.cards.catalog.names)

    def results(self, w, decks: tuple[str, str], agents: Sequence[Any]) -> dict[str, np.ndarray]:
        """The games-table columns (one row per game)."""
        n = w.n_games
        cols: dict[str, np.ndarray] = {
            "seed": w.seeds.astype(np.int64),
            "winner": w.g.winner.astype(np.int8),
            "rounds": w.g.rounds.astype(np.int16),
            "first_player": w.g.first_player.astype(np.int8),
            "end_reason": np.array(END_REASONS, dtype=object)[w.g.end_reason],
            "deck_0": np.full(n, decks[0], dtype=object),
            "deck_1": np.full(n, decks[1], dtype=object),
            "agent_0": np.full(n, agents[0].name, dtype=object),
            "agent_1": np.full(n, agents[1].name, dtype=object),
        }
        L = self.params.lanes
        for side in range(2):
            for lane in range(L):
                s = side * L + lane
                ess = w.c.essence[:, s]
                hp = w.c.health[:, s].astype(np.int16)
                cols[f"anchor_hp_{side}_{lane}"] = np.where(ess, 0, hp).astype(np.int16)
                cols[f"essence_hp_{side}_{lane}"] = np.where(ess, hp, self.params.essence_hp).astype(np.int16)
        for side in range(2):
            cols[f"gold_{side}"] = w.g.gold[:, side].astype(np.int32)
        cols.update(snapshot_columns(w))
        return cols


    def replay(self, seed: int, decks: tuple[str, str], agents: Sequence[Any], write=print) -> dict[str, Any]:
        """Play game ``seed`` alone (a batch of one), writing its turn-by-turn log line by line
        (``systems/lanes/replay.py``); returns its games-table row, the same as in any run."""
        from battlesim.systems.lanes.replay import replay_game

        return replay_game(self, seed, decks, agents, write)


class LanesRuleset:
    name = "lanes"

    def load(self, params: dict[str, Any] | None = None, cards_dir: Path | None = None,
             decks_dir: Path | None = None) -> LanesGame:
        p = load_params(overrides=params)
        if p.resources_cap < p.resources_start:
            raise DataError("lanes parameters: resources_cap must be >= resources_start")
        return LanesGame(p, load_card_set(p, cards_dir, decks_dir))


RULESET = LanesRuleset()

"""The lanes systems that run compiled: each an ``esper.Processor`` stepping the batch through the
compiled kernels (DESIGN.md "esper's part": "each phase is also an esper.Processor that steps the
batch through the same functions"; issue 13, docs/compiled-core.md "Wiring").

Each class cites the rule it runs and has its numpy twin's name (``systems/lanes/*.py``: the
reference the compiled kernels were proved against, played only by the opt-in differential tests,
``reference_twins``). What the numpy system did on the Python side is done here from the kernels'
returns:

- the replay log's esper events (``lanes.game_over``, ``lanes.shop_skip``, ``lanes.buy``,
  ``lanes.upgrade``), with the arguments and in the order numpy dispatched them;
- the World's bookkeeping where a kernel creates entities (``World.version``, and the
  ``World.changes`` counter of a tracked component it writes, as ``World.allocate``/``add`` do);
- ``SlotsExhausted`` naming the seed of a game with no free slot.

The arguments come from ``bundle(w)`` (bundle.py), built once per World. The systems that fire card
effects (start and end of round, hero deployment, the play phase, combat) have no batch driver:
only the engine module's ``advance`` reaches the resolution machine, so their Processors run the
game loop's own step over the batch (``InLoop``: ``loop.run_system``), and the play phase's
``apply`` is the loop's (``loop.apply_answers``). Their esper events (``lanes.combat``,
``lanes.deaths``, ``lanes.play``...) are told by compiled code while a listener asks
(``event_stream.events_of``: ``battlesim replay``, the rules tests that read events).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import esper
import numpy as np

from battlesim.ecs.decisions import DecisionSystem
from battlesim.ecs.npx import any_axis
from battlesim.ecs.world import SlotsExhausted
from battlesim.systems.lanes import combat, deploy, play, round_end, round_start  # the twins (``reference_twins``)
from battlesim.systems.lanes.compiled import drivers
from battlesim.systems.lanes.compiled import loop as compiled_loop
from battlesim.systems.lanes.compiled.bundle import bundle
from battlesim.systems.lanes.compiled.legal import legal_rows
from battlesim.systems.lanes.compiled.setup import setup_tables
from battlesim.systems.lanes.compiled.shop import BUY, SKIP, UPGRADED

# what a spawned creep is given through ``World.add`` in numpy (``board.spawn``)
CREEP_COMPONENTS = ("card_id", "owner", "faction", "attack", "health", "max_health")


def entities_made(w, components: tuple[str, ...]) -> None:
    """The bookkeeping ``World.allocate`` and ``World.add`` keep, after a kernel made entities:
    caches keyed on ``version`` or on a tracked component's count see the change."""
    w.version += 1
    for name in components:
        if name in w.changes:
            w.changes[name] += 1


def setup_world(w, decks, deck_index: np.ndarray, D: int, M: int) -> None:
    """``state.new_world``'s per-game setup, compiled: ``setup_game`` over every game (anchors,
    decks, the shuffle, initiative), with numpy's draws."""
    k = bundle(w)
    f, cols = k.setup
    drivers.cached().setup_games(k.st, f, cols, setup_tables(decks, D, M), deck_index, k.rng)
    entities_made(w, ("owner", "lane", "pos", "health", "max_health"))  # the anchors, through ``World.add`` in numpy


class CreepSpawn(esper.Processor):
    """lanes.md "Creep Spawning": "Each player spawns 1 creep per lane (3 total per player)";
    "Creeps spawn at the leftmost empty position in each lane"; "If a lane is full, the
    creep for that lane is skipped". Both players' creeps spawn simultaneously (they stand
    on different sides, so the order of the two sides cannot matter)."""

    def process(self, w) -> None:
        k = bundle(w)
        f, cols = k.round
        made = drivers.cached().spawn_creeps(k.st, f, cols)
        if made < 0:
            b = -1 - made
            raise SlotsExhausted(f"game with seed {int(w.seeds[b])} has no free entity slot (S={w.n_slots})")
        if made:
            entities_made(w, CREEP_COMPONENTS + ("lane", "pos"))


class HeroAvailability(esper.Processor):
    """Heroes become READY: new deck slots by round, and dead heroes whose timer ran out
    (lanes.md: "At the start of the following round, the hero becomes available for
    redeployment")."""

    def process(self, w) -> None:
        k = bundle(w)
        drivers.cached().ready_heroes(k.st, *k.round)


class DrawPhase(esper.Processor):
    """lanes.md: "Draw Phase - Draw 1 card"; in round 1, "After hero deployment, players draw
    their starting hand of 5 cards" (ledger: the starting hand replaces round 1's draw)."""

    def process(self, w) -> None:
        k = bundle(w)
        drivers.cached().draw_all(k.st, *k.round)


class RefreshResources(esper.Processor):
    """lanes.md "Resource System": round 1 has 3, +1 per round, cap 10; "Resources fully refill
    at round start"; "Unspent resources are lost at round end"."""

    def process(self, w) -> None:
        k = bundle(w)
        drivers.cached().refresh_all(k.st, *k.round)


def games_over(w, ended: np.ndarray) -> None:
    """``lanes.game_over`` for the games a kernel ended, as ``victory.finish`` dispatches it: the
    decided games, then the draws (VictoryCheck's two calls; one of them at the round limit)."""
    g = np.flatnonzero(ended)
    decided = w.g.winner[g] >= 0
    for games in (g[decided], g[~decided]):
        if games.size:
            esper.dispatch_event("lanes.game_over", w, games)


class VictoryCheck(esper.Processor):
    """lanes.md "Win Conditions": two anchors destroyed, or a lane's essence destroyed, ends the game after combat."""

    def process(self, w) -> None:
        k = bundle(w)
        f, cols = k.round
        ended = np.zeros(w.n_games, dtype=np.bool_)
        if drivers.cached().check_victories(k.st, f, cols, ended):
            games_over(w, ended)


class ObjectiveSnapshot(esper.Processor):
    """At the end of round ``SNAPSHOT_ROUND`` (after end-of-round effects, before the round
    limit closes any game), record ``g.objective_hp_snapshot`` for every game still running."""

    def process(self, w) -> None:
        k = bundle(w)
        drivers.cached().snapshot_all(k.st, *k.round)


class RoundEnd(esper.Processor):
    """Closes the round: the round limit, then the round counter."""

    def process(self, w) -> None:
        k = bundle(w)
        f, cols = k.round
        ended = np.zeros(w.n_games, dtype=np.bool_)
        if drivers.cached().end_rounds(k.st, f, cols, ended):
            games_over(w, ended)


class ShopPhase(DecisionSystem):
    """lanes.md "Shop Phase": each player may buy one of the offered equipment or upgrade, paying gold."""

    def __init__(self, actions) -> None:
        self.actions = actions

    def pending(self, w) -> np.ndarray:
        return any_axis(~w.g.shop_done, 1)  # a seat not done yet

    def begin(self, w) -> None:
        k = bundle(w)
        cols, _ = k.columns_for(self.actions)
        drivers.cached().open_shops(k.st, k.shop_fields, cols, k.rng)

    def request(self, w, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k = bundle(w)
        cols, _ = k.columns_for(self.actions)
        games = np.asarray(games, dtype=np.int64)
        actor = np.empty(games.size, dtype=np.int64)
        legal = np.empty((games.size, self.actions.size), dtype=np.bool_)
        drivers.cached().shop_requests(k.st, k.shop_fields, cols, games, actor, legal)
        return actor, legal

    def apply(self, w, games, actor, actions) -> None:
        """The kernels' report, dispatched as numpy's ``apply`` does: every skip, then every buy,
        then every upgrade (one event each, the games in order)."""
        k = bundle(w)
        cols, _ = k.columns_for(self.actions)
        games = np.asarray(games, dtype=np.int64)
        n = games.size
        what = np.empty(n, dtype=np.int64)
        value = np.empty(n, dtype=np.int64)
        drivers.cached().apply_shops(k.st, k.shop_fields, cols, k.rng, games, np.asarray(actor, dtype=np.int64),
                            np.asarray(actions, dtype=np.int64), what, value)
        seat = np.asarray(actor)
        sel = what == SKIP
        if sel.any():
            esper.dispatch_event("lanes.shop_skip", w, games[sel], seat[sel])
        sel = what == BUY
        if sel.any():
            esper.dispatch_event("lanes.buy", w, games[sel], seat[sel], value[sel].astype(np.int16))
        sel = what == UPGRADED
        if sel.any():
            esper.dispatch_event("lanes.upgrade", w, games[sel], seat[sel], value[sel].astype(np.int8))


_TWINS = [False]  # ``reference_twins`` is open


@contextmanager
def reference_twins() -> Iterator[None]:
    """Inside, the ``InLoop`` Processors play their numpy twins: what the differential tests
    capture of a scenario (the twins' calls, replayed by the compiled kernels)."""
    before = _TWINS[0]
    _TWINS[0] = True
    try:
        yield
    finally:
        _TWINS[0] = before


def twins_play() -> bool:
    """The numpy twins play: only inside ``reference_twins`` (a plugin has compiled parts only)."""
    return _TWINS[0]


class InLoop:
    """A system that fires card effects, run by the game loop itself: ``process`` is the loop's
    system k over the batch (``loop.run_system``; Python agents asked through the step API), k
    found by the system's name in the schedule. Only the engine module's ``advance`` reaches the
    resolution machine, so these systems have no batch driver of their own. Inside
    ``reference_twins`` (the differential tests) the numpy twin runs instead."""

    twin: type  # the numpy twin: what plays inside ``reference_twins`` (the differential tests)

    def reference(self):
        """The numpy twin of this system, built as the reference schedule builds it."""
        actions = getattr(self, "actions", None)
        return self.twin(actions) if actions is not None else self.twin()

    def process(self, w) -> None:
        if twins_play():
            self.reference().process(w)
            return
        compiled_loop.run_system(w, compiled_loop.system_index(type(self).__name__))


class StartOfRound(InLoop):
    """lanes.md "Start of Round - Triggers at the beginning of each round (after creep spawn,
    before play phase)". First the status tick, computed from the state at its start and applied
    together (DESIGN.md "Status tick"): "Decay (Poison) - Deals 1 damage per stack at the start of
    each round" and "Regeneration X - Heals X health at the start of each round" (so Regeneration 1
    and Decay 1 cancel, even on a unit with 1 health left); anchors enchanted with Regeneration
    heal too. Then each lane's mana pool grows (ledger: hero abilities' "lane's mana pool"), then
    start-of-round effects fire."""

    twin = round_start.StartOfRound


class HeroDeployment(InLoop):
    """lanes.md "Hero Deployment": players choose lanes for their READY heroes, revealed together."""

    twin = deploy.HeroDeployment

    def __init__(self, actions) -> None:
        self.actions = actions


class Combat(InLoop):
    """lanes.md "Combat Phase": every lane fights at once, first strikers first; units attack the unit opposite, taunts or the anchor, through the damage pipeline."""

    twin = combat.Combat


class EndOfRound(InLoop):
    """lanes.md "End of Round": end-of-round effects, status stacks decay, round buffs end, cooldowns tick."""

    twin = round_end.EndOfRound


class PlayPhase(InLoop, DecisionSystem):
    """lanes.md "Play Phase": players alternate actions (play a card, use an ability, pass), the initiative holder first, until both pass."""

    twin = play.PlayPhase

    def __init__(self, actions) -> None:
        self.actions = actions

    def pending(self, w) -> np.ndarray:
        return w.g.in_play

    def apply(self, w, games: np.ndarray, actor: np.ndarray, actions: np.ndarray) -> None:
        """Each game's answer applied by the loop's own ``apply`` step (``loop.apply_answers``):
        a scenario's or a test's single action, played as in a game (the numpy twin's while the
        twins play, ``twins_play``: it settles deaths itself)."""
        if twins_play():
            self.reference().apply(w, games, actor, actions)
            return
        compiled_loop.apply_answers(w, compiled_loop.system_index("PlayPhase"), games, actor, actions)

    def request(self, w, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The legal rows from the compiled request (``legal_rows``)."""
        k = bundle(w)
        _, cols = k.columns_for(self.actions)
        games = np.asarray(games, dtype=np.int64)
        actor = w.g.to_act[games].astype(np.int64)
        legal = np.empty((games.size, self.actions.size), dtype=np.bool_)
        legal_rows(k.st, k.play_fields, cols, games, actor, legal)
        return actor, legal

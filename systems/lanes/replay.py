"""A readable turn-by-turn log of one lanes game, built from the systems' esper events.

Rules never depend on it: the log only listens. ``replay_game`` plays one game alone (a batch
of one) with the ruleset's own schedule, the compiled systems every run plays, with their events
on (``compiled/event_stream.py``); a marker opens each phase of the schedule (round header,
resources and hands before the play phase, the board before combat), and every event named in
``FORMATTERS`` (a table: event name -> function turning the event's arrays into log lines) is
written as it happens, followed by the gold and objectives it changed. Every damage instance
(combat, spells, battles, retaliation, overflow, decay) is written as it resolves (the
pipeline's ``damage.open`` and ``damage.resolved``), and a run's lines take their place before
those of the damage it causes, so an attack is written before the retaliation it provokes.
Attack is written as the rules read it (own, equipment and auras: ``stats.attack``). A new
event needs one formatter and nothing else::

    @formatter("lanes.buy")
    def _buy(log, w, games, seat, card):
        return [f"   buy     s{s} {log.card(c)}" for s, c in log.mine(games, seat, card)]
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence

import esper
import numpy as np

from battlesim.ecs.damage import ATTACK, COMBAT, OVERFLOW, RETALIATE, SPELL, STATUS, DamageBatch
from battlesim.ecs.datafiles import printable
from battlesim.ecs.schedule import Phase, Schedule
from battlesim.systems.lanes import stats as unit_stats
from battlesim.systems.lanes.cards import FACTIONS

Formatter = Callable[..., list[str]]
FORMATTERS: dict[str, Formatter] = {}
PHASE_HEADERS: dict[str, Callable[["ReplayLog"], list[str]]] = {}  # phase name -> lines opening it


def formatter(event: str) -> Callable[[Formatter], Formatter]:
    """Register the formatter of ``event``: ``fn(log, world, *event args) -> lines``."""

    def register(fn: Formatter) -> Formatter:
        FORMATTERS[event] = fn
        return fn

    return register


def phase_header(phase: str) -> Callable:
    """Register what is written when ``phase`` starts (phases without one get a plain header
    before their first event, none if nothing happens in them)."""

    def register(fn: Callable[["ReplayLog"], list[str]]) -> Callable:
        PHASE_HEADERS[phase] = fn
        return fn

    return register


def replay_game(game: Any, seed: int, decks: Sequence[str], agents: Sequence[Any],
                write: Callable[[str], Any] = print) -> dict[str, Any]:
    """Play game ``seed`` alone with the log open; returns its games-table row.

    The game runs through ``game.run`` with a copy of its schedule in which each phase starts
    with a marker that only writes, its compiled systems emitting their events (``events_of``):
    the game any run plays for this seed, the same code."""
    from battlesim.systems.lanes.compiled.event_stream import events_of

    w = game.new_world(np.array([seed], dtype=np.int64), tuple(decks), list(agents))
    log = ReplayLog(w, decks, agents, write)
    marked = Schedule([Phase(p.name, [_PhaseMarker(p.name, log), *p.systems]) for p in w.schedule.phases])
    w.schedule = marked
    with events_of(w), log:
        game.run(w)
    cols = game.results(w, tuple(decks), list(agents))
    return {k: v[:1].tolist()[0] for k, v in cols.items()}  # plain Python values; a masked one is None, as in Parquet


class _PhaseMarker(esper.Processor):
    priority = 10**9  # first in its phase

    def __init__(self, phase: str, log: "ReplayLog") -> None:
        self.phase, self.log = phase, log

    def process(self, w) -> None:
        self.log.phase_start(self.phase)


class ReplayLog:
    """Listens to the events of game ``b`` of world ``w`` and writes log lines to ``write``."""

    def __init__(self, w: Any, decks: Sequence[str], agents: Sequence[Any],
                 write: Callable[[str], Any] = print, b: int = 0) -> None:
        self.w, self.b, self.write = w, b, write
        self.decks, self.agents = list(decks), [getattr(a, "name", str(a)) for a in agents]
        self.names = [printable(n) for n in w.catalog.names]  # a name must not drive the terminal
        self.round = 0
        self.phase, self.phase_shown = "", True
        self.bounced: dict[int, str] = {}  # slot -> name of a unit being bounced (its removal is no kill)
        self.gold = w.g.gold[b].copy()
        self.anchors = self.anchor_state()
        self._handlers: list[tuple[str, Callable]] = []
        self._damage: list[list[str] | None] = []  # lines of the damage runs under way, in order
        self._open: list[int] = []  # where the runs open now write theirs, innermost last

    def __enter__(self) -> "ReplayLog":
        w, b = self.w, self.b
        self.write(f"seed {int(w.seeds[b])}: seat 0 {self.decks[0]} ({self.agents[0]}) vs seat 1 {self.decks[1]} ({self.agents[1]})")
        self.write(f"seat {int(w.g.first_player[b])} holds the initiative first; * hero, ~ creep, A anchor HP, E essence HP")
        listeners = [(event, self._handler(event)) for event in FORMATTERS]
        # functions, not bound methods: esper's ``remove_handler`` does not find a method again
        listeners += [("damage.open", lambda w: self._damage_open(w)),
                      ("damage.resolved", lambda w, batch: self._damage_resolved(w, batch))]
        for event, handler in listeners:
            esper.set_handler(event, handler)  # esper keeps a weak reference: self._handlers holds it
            self._handlers.append((event, handler))
        return self

    def __exit__(self, *exc: Any) -> None:
        for event, handler in self._handlers:
            esper.remove_handler(event, handler)
        self._handlers.clear()

    def _handler(self, event: str) -> Callable:
        def handle(w, *args: Any) -> None:
            if w is not self.w:
                return
            self._write_lines(FORMATTERS[event](self, w, *args))
        return handle

    def _damage_open(self, w: Any) -> None:
        """A run of the damage pipeline starts: its lines will take their place before those of
        the runs it starts (retaliation, overflow)."""
        if w is self.w:
            self._open.append(len(self._damage))
            self._damage.append(None)

    def _damage_resolved(self, w: Any, batch: DamageBatch) -> None:
        """The run on top resolved (and every run it started): its instances' lines; all are
        written when the outermost run ends, then the objectives it changed (anchors have fallen
        by then)."""
        if w is not self.w:
            return
        at = self._open.pop()
        self._damage[at] = _damage_lines(self, batch)
        if at:
            return
        lines = [line for block in self._damage for line in block or ()]
        self._damage.clear()
        self._write_lines(lines)

    def _write_lines(self, lines: list[str]) -> None:
        """Write an event's lines under its phase's header (written before the phase's first
        line only), then the objectives the event changed."""
        if lines and not self.phase_shown:
            self.write(f"-- {self.phase} --")
            self.phase_shown = True
        for line in lines:
            self.write(line)
        self._changes()

    def phase_start(self, phase: str) -> None:
        w, b = self.w, self.b
        if not w.active[b]:
            return
        rnd = int(w.g.round[b])
        if rnd != self.round:
            self.round = rnd
            g0, g1 = (int(x) for x in w.g.gold[b])
            self.write("")
            self.write(f"== round {rnd} ==  gold {g0} / {g1}, initiative: seat {int(w.g.initiative[b])}")
        self.phase, self.phase_shown = phase, False
        header = PHASE_HEADERS.get(phase)
        if header:
            self.write(f"-- {phase} --")
            self.phase_shown = True
            for line in header(self):
                self.write(line)

    def _changes(self) -> None:
        """Gold and objectives that changed since the last line (whatever changed them)."""
        w, b = self.w, self.b
        gold = w.g.gold[b]
        if (gold != self.gold).any():
            parts = [f"s{s} {int(gold[s])} ({int(gold[s]) - int(self.gold[s]):+d})" for s in range(2) if gold[s] != self.gold[s]]
            self.write(f"   gold    {', '.join(parts)}")
            self.gold = gold.copy()
        anchors = self.anchor_state()
        for key, now in anchors.items():
            if now != self.anchors[key]:
                side, lane = key
                self.write(f"   anchor  s{side} lane {lane}: {_hp(self.anchors[key])} -> {_hp(now)}")
        self.anchors = anchors

    # -- helpers for formatters and headers ------------------------------------------------------

    def mine(self, games: np.ndarray, *cols: Any) -> Iterator[tuple]:
        """The rows of an event that concern this log's game: ``(col0[i], col1[i], ...)``."""
        games = np.asarray(games)
        arrays = [np.broadcast_to(np.asarray(c), games.shape) for c in cols]
        for i in np.flatnonzero(games == self.b):
            yield tuple(a[i].item() for a in arrays)

    def anchor_state(self) -> dict[tuple[int, int], tuple[str, int]]:
        """``(side, lane) -> ("anchor" | "essence" | "ruined", HP)``."""
        w, b = self.w, self.b
        L = w.g.board.shape[2]
        out = {}
        for side in range(2):
            for lane in range(L):
                s = side * L + lane
                kind = "ruined" if w.c.ruined[b, s] else "essence" if w.c.essence[b, s] else "anchor"
                out[(side, lane)] = (kind, int(w.c.health[b, s]))
        return out

    def card(self, card_id: int) -> str:
        return self.names[int(card_id)] if 0 <= int(card_id) < len(self.names) else f"card#{int(card_id)}"

    def unit_name(self, slot: int) -> str:
        """A board entity's card name; heroes are marked ``*``, creeps ``~``."""
        w, b = self.w, self.b
        mark = "*" if w.c.hero[b, slot] else "~" if w.c.creep[b, slot] else ""
        return mark + self.card(w.c.card_id[b, slot])

    def stats(self, slot: int) -> str:
        """``attack/health``, attack as the rules read it (equipment and auras included)."""
        b = np.array([self.b])
        attack = int(unit_stats.attack(self.w, b, np.array([slot]))[0])
        return f"{attack}/{int(self.w.c.health[self.b, slot])}"

    def unit(self, slot: int) -> str:
        return f"{self.unit_name(slot)} {self.stats(slot)}"

    def where(self, slot: int) -> str:
        """``s1 *Name (lane 0 pos 2)`` for a unit, ``s1 lane 0 anchor`` for an objective."""
        w, b = self.w, self.b
        side, lane = int(w.c.owner[b, slot]), int(w.c.lane[b, slot])
        if w.c.anchor[b, slot]:  # named as it stood before the event (it may have fallen since)
            return f"s{side} lane {lane} {self.anchors[(side, lane)][0]}"
        return f"s{side} {self.unit_name(slot)} (lane {lane} pos {int(w.c.pos[b, slot])})"


def _hp(state: tuple[str, int]) -> str:
    kind, hp = state
    return "ruined" if kind == "ruined" else f"{kind} {hp}"


# ---- phase headers ------------------------------------------------------------------------------


@phase_header("play")
def _play_header(log: ReplayLog) -> list[str]:
    w, b = log.w, log.b
    out = []
    for seat in range(2):
        hand = [log.card(c) for c in w.g.hand[b, seat] if c >= 0]
        out.append(f"   s{seat}: {int(w.g.resources[b, seat])} resources; hand: {', '.join(hand) or '(empty)'}")
    return out


@phase_header("combat")
def _board(log: ReplayLog) -> list[str]:
    w, b = log.w, log.b
    out = []
    for lane in range(w.g.board.shape[2]):
        sides = []
        for side in range(2):
            kind, hp = log.anchors[(side, lane)]
            obj = {"anchor": f"A{hp}", "essence": f"E{hp}", "ruined": "ruined"}[kind]
            cells = [log.unit(int(s)) if s >= 0 else "." for s in w.g.board[b, side, lane]]
            sides.append(f"s{side} {obj} [{', '.join(cells)}]")
        out.append(f"   board   lane {lane}: {'  |  '.join(sides)}")
    return out


# ---- the events of the lanes systems ------------------------------------------------------------


@formatter("lanes.deploy")
def _deploy(log: ReplayLog, w, games, side, hero_k, lane, pos) -> list[str]:
    out = []
    for s, k, l, p in log.mine(games, side, hero_k, lane, pos):
        card = int(w.g.hero_card[log.b, s, k])
        faction = FACTIONS[int(w.catalog.arrays.faction[card])]
        out.append(f"   deploy  s{s} *{log.card(card)} ({faction}) -> lane {l} pos {p}")
    return out


@formatter("lanes.bounce")
def _bounce(log: ReplayLog, w, games, slots) -> list[str]:
    for (s,) in log.mine(games, slots):
        log.bounced[s] = log.unit_name(s)
    return []  # said by the play that bounces it


@formatter("lanes.play")
def _play(log: ReplayLog, w, games, seat, card, lane, pos, slots) -> list[str]:
    cost = w.catalog.arrays.cost
    out = []
    for s, c, l, p, sl in log.mine(games, seat, card, lane, pos, slots):
        line = f"   play    s{s} {log.card(c)} {log.stats(sl)} (cost {int(cost[c])}) -> lane {l} pos {p}"
        gone = [name for name in log.bounced.values()]
        if gone:
            line += f", bouncing {', '.join(gone)}"
        log.bounced.clear()
        out.append(line)
    return out


@formatter("lanes.cast")
def _cast(log: ReplayLog, w, games, seat, card, lane, caster) -> list[str]:
    cost = w.catalog.arrays.cost
    out = []
    for s, c, l, k in log.mine(games, seat, card, lane, caster):
        by = f", cast by {log.unit_name(k)}" if k >= 0 else ""
        out.append(f"   cast    s{s} {log.card(c)} (cost {int(cost[c])}) in lane {l}{by}")
    return out


@formatter("lanes.improvement")
def _improvement(log: ReplayLog, w, games, seat, card, lane, slots) -> list[str]:
    cost = w.catalog.arrays.cost
    return [f"   build   s{s} {log.card(c)} (cost {int(cost[c])}) in lane {l}"
            for s, c, l in log.mine(games, seat, card, lane)]


@formatter("lanes.equip")
def _equip(log: ReplayLog, w, games, seat, card, holder) -> list[str]:
    cost = w.catalog.arrays.cost
    return [f"   equip   s{s} {log.card(c)} (cost {int(cost[c])}) on {log.where(h)}, now {log.stats(h)}"
            for s, c, h in log.mine(games, seat, card, holder)]


@formatter("lanes.ability")
def _ability(log: ReplayLog, w, games, seat, card, src) -> list[str]:
    return [f"   ability {log.where(k)} uses its ability" if log.card(c) == log.unit_name(k).lstrip("*~")
            else f"   ability {log.where(k)} uses {log.card(c)}" for s, c, k in log.mine(games, seat, card, src)]


@formatter("lanes.target")
def _target(log: ReplayLog, w, games, seat, card, chosen) -> list[str]:
    return [f"   target  s{s} {log.card(c)} -> {log.where(t)}" for s, c, t in log.mine(games, seat, card, chosen)]


@formatter("lanes.expired")
def _expired(log: ReplayLog, w, games, slots) -> list[str]:
    return [f"   expires {log.where(s)}" for (s,) in log.mine(games, slots)]


@formatter("lanes.gold")
def _gold(log: ReplayLog, w, games, owner, amount) -> list[str]:
    return []  # the gold line that follows every event says it


@formatter("lanes.shop_skip")
def _shop_skip(log: ReplayLog, w, games, seat) -> list[str]:
    return [f"   shop    s{s} buys nothing" for (s,) in log.mine(games, seat)]


@formatter("lanes.buy")
def _buy(log: ReplayLog, w, games, seat, card) -> list[str]:
    price = getattr(w.catalog.arrays, "gold", None)
    return [f"   buy     s{s} {log.card(c)}" + (f" for {int(price[c])} gold" if price is not None else "")
            for s, c in log.mine(games, seat, card)]


@formatter("lanes.upgrade")
def _upgrade(log: ReplayLog, w, games, seat, tier) -> list[str]:
    return [f"   upgrade s{s} shop to tier {t}" for s, t in log.mine(games, seat, tier)]


@formatter("lanes.combat")
def _combat(log: ReplayLog, w, lane, batch) -> list[str]:
    """A lane's attack step: its hits were written by the damage stage as they landed."""
    if any(True for _ in log.mine(batch.game)):
        return []
    return [f"   lane {lane}  no attacks"]


def _damage_lines(log: ReplayLog, batch: DamageBatch) -> list[str]:
    """One line per damage instance of the log's game in ``batch`` (just applied). A combat
    step's attacks (and cleaves) open with their lane; other damage says what dealt it."""
    w = log.w
    rows = list(log.mine(batch.game, batch.source, batch.target, batch.dealt, batch.kind))
    out = []
    for i, (src, tgt, dealt, kind) in enumerate(rows):
        if kind & COMBAT:
            lane = int(w.c.lane[log.b, tgt])
            head = f"   lane {lane}  " if i == 0 else " " * 11
            verb = "hits" if kind & ATTACK else "cleaves"
        else:
            head = "   damage  "
            verb = ("retaliates on" if kind & RETALIATE else "overflows to" if kind & OVERFLOW
                    else "hits" if kind & ATTACK else "deals effect damage to" if kind & SPELL else "damages")
        who = "decay" if kind & STATUS or src < 0 else log.where(src)
        hit = f"{who} {verb} {log.where(tgt)} for {dealt}"
        if not w.c.anchor[log.b, tgt]:
            hp = int(w.c.health[log.b, tgt])
            hit += ": destroyed" if hp <= 0 else f": {hp} HP left"
        out.append(head + hit)
    return out


@formatter("lanes.deaths")
def _deaths(log: ReplayLog, w, games, slots, card_ids) -> list[str]:
    out = []
    for s, c in log.mine(games, slots, card_ids):
        if s in log.bounced:  # a bounce, not a kill: the play line says it
            continue
        out.append(f"   dies    {log.where(s)}")
    return out


@formatter("lanes.game_over")
def _game_over(log: ReplayLog, w, games) -> list[str]:
    from battlesim.systems.lanes.state import END_REASONS

    out = []
    for _ in log.mine(games):
        b = log.b
        winner = int(w.g.winner[b])
        result = f"seat {winner} ({log.decks[winner]}) wins" if winner >= 0 else "draw"
        out += ["", f"== game over after round {int(w.g.rounds[b])}: {result} ({END_REASONS[int(w.g.end_reason[b])]}) =="]
    return out

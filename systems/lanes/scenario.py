"""Scenarios: check any rule by hand.

A scenario file sets up one lanes game (a board, anchors, players' resources), runs steps
(combat, round start or end, shop, plays, abilities) and reports the resulting state. The board
is built through the esper bridge (DESIGN.md "esper's part"): every unit becomes an esper entity
with dataclass components, then the game is loaded from it. See docs/scenarios.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import esper
import numpy as np
from pydantic import BaseModel

from battlesim.components.keywords import KEYWORDS, STATUSES
from battlesim.ecs.datafiles import a_or_an, did_you_mean, printable, read_toml, validate
from battlesim.ecs.decisions import PassAgent
from battlesim.ecs.esper_bridge import component_class, load, snapshot
from battlesim.ecs.plugin import plugins_summary
from battlesim.systems.lanes import board
from battlesim.systems.lanes.cards import BOARD_TYPES, HERO, INLINE_CARD
from battlesim.systems.lanes.scenario_error import ScenarioError
from battlesim.systems.lanes.scenario_spec import (  # noqa: F401  (Step: tests build steps)
    ExpectSpec,
    ScenarioSpec,
    Step,
)
from battlesim.systems.lanes.scenario_steps import run_step
from battlesim.systems.lanes.state import ON_BOARD

G = np.array([0])
# what a hand may hold: the main deck's cards, and equipment bought in the shop
HAND_TYPES = ("unit", "spell", "improvement", "equipment")


class Scenario:
    """A loaded scenario: its world (one game) and the display names of its inline units."""

    def __init__(self, game, spec: ScenarioSpec, path: Path) -> None:
        self.game, self.spec, self.path = game, spec, path
        self.names: dict[int, str] = {}
        self.w = self._build()

    def _card(self, name: str, where: str, types: tuple[str, ...] = (), as_what: str = "") -> int:
        """The catalog id of card ``name``; with ``types``, it must be one of them (a spell is
        not placed as a unit, a unit is not held as equipment)."""
        cat = self.game.cards.catalog
        if name not in cat.index or name == INLINE_CARD:
            raise ScenarioError(f"{self.path}: {where}: unknown card {printable(name)!r}"
                                f"{did_you_mean(name, (n for n in cat.names if n != INLINE_CARD))}")
        kind = self.game.cards.specs[name].type
        if types and kind not in types:
            raise ScenarioError(f"{self.path}: {where}: {printable(name)!r} is {a_or_an(kind)}, it cannot be {as_what} "
                                f"(expected {' or '.join(a_or_an(t) for t in types)})")
        return cat.index[name]

    def _decks(self) -> tuple[str, str]:
        known = self.game.deck_ids()
        for d in self.spec.decks or ():
            if d in self.game.cards.broken:
                raise self.game.cards.broken[d]
            if d not in known:
                raise ScenarioError(f"{self.path}: decks: unknown deck {printable(d)!r}{did_you_mean(d, known)}; "
                                    f"available: {', '.join(known)}")
        return tuple(self.spec.decks) if self.spec.decks else self.game.default_decks()

    def _build(self):
        spec, game = self.spec, self.game
        w = game.new_world(np.array([spec.seed]), self._decks(), [PassAgent(), PassAgent()])
        g = w.g
        g.round[0] = spec.round
        p = spec.players
        g.gold[0] = p.gold
        g.resources[0] = p.resources
        g.max_resources[0] = np.maximum(p.resources, g.max_resources[0])
        g.initiative[0] = p.initiative
        g.lane_mana[0] = np.array(p.lane_mana)
        g.shop_tier[0] = p.shop_tier
        g.hand[0] = -1
        g.hero_status[0] = 0
        for seat in range(2):
            if len(p.hand[seat]) > g.hand.shape[2]:
                # the ruleset's hand_limit (not in the rules text; docs/rules/lanes.md: a full hand burns draws)
                raise ScenarioError(f"{self.path}: players.hand[{seat}]: {len(p.hand[seat])} cards, a hand holds at "
                                    f"most {g.hand.shape[2]}")
            for h, name in enumerate(p.hand[seat]):
                g.hand[0, seat, h] = self._card(name, f"players.hand[{seat}]", HAND_TYPES, "held in a hand")
        if p.equipment is not None:
            g.equip_pool[0] = -1
            for seat in range(2):
                if len(p.equipment[seat]) > g.equip_pool.shape[2]:
                    raise ScenarioError(f"{self.path}: players.equipment[{seat}]: at most {g.equip_pool.shape[2]} items")
                for i, name in enumerate(p.equipment[seat]):
                    g.equip_pool[0, seat, i] = self._card(name, f"players.equipment[{seat}]", ("equipment",),
                                                          "in an equipment deck")
        self._place_units(w)
        self._set_anchors(w)
        for i, imp in enumerate(spec.improvements):
            card = self._card(imp.card, f"improvements[{i}]", ("improvement",), "placed as an improvement")
            s = board.add_improvement(w, np.array([0]), np.array([imp.side]), np.array([imp.lane]), np.array([card]))
            if imp.timer is not None:
                w.c.timer[0, s] = imp.timer
            if w.cache["aura_cards"][card]:
                w.add(np.array([0]), s, aura=True)  # through add: the aura source cache counts it
        return w

    def _place_units(self, w) -> None:
        """Author the board as esper entities, then load game 0 from them."""
        cat = self.game.cards.catalog
        arr = cat.arrays
        name = snapshot(w, 0)  # anchors come along
        C = component_class
        next_hero = [0, 0]  # each side's roster slots, in file order
        entities = []
        for i, u in enumerate(self.spec.units):
            where = f"units[{i}]"
            card = self._card(u.card, where, BOARD_TYPES, "placed as a unit") if u.card else cat.index[INLINE_CARD]
            hero = bool(arr.kind[card] == HERO) if u.hero is None else u.hero
            attack = int(arr.attack[card]) if u.attack is None else u.attack
            health = int(arr.health[card]) if u.health is None else u.health
            faction = u.faction if u.faction is not None else None
            fac = ["Red", "Blue", "Green", "Black"].index(faction) if faction else int(arr.faction[card])
            comps = [C("card_id")(card), C("owner")(u.side), C("lane")(u.lane), C("pos")(u.pos),
                     C("attack")(attack), C("health")(health), C("max_health")(u.max_health or health),
                     C("faction")(fac)]
            kws = {k: getattr(arr, f"kw_{k}")[card].item() for k in KEYWORDS if getattr(arr, f"kw_{k}")[card]}
            kws.update(u.keywords)
            for k, v in kws.items():
                if k not in KEYWORDS:
                    raise ScenarioError(f"{self.path}: {where}: unknown keyword {printable(k)!r}{did_you_mean(k, KEYWORDS)}; "
                                        f"known: {', '.join(KEYWORDS)}; {plugins_summary()}")
                if isinstance(v, (bool, np.bool_)) != (KEYWORDS[k].value == "tag"):
                    kind = "true/false" if KEYWORDS[k].value == "tag" else "a number"
                    raise ScenarioError(f"{self.path}: {where}: keyword {k!r} takes {kind}, got {v!r}")
                comps.append(C(k)() if KEYWORDS[k].value == "tag" else C(k)(int(v)))
            for k, v in u.statuses.items():
                if k not in STATUSES:
                    raise ScenarioError(f"{self.path}: {where}: unknown status {printable(k)!r}{did_you_mean(k, STATUSES)}; "
                                        f"known: {', '.join(STATUSES)}")
                comps.append(C(k)(int(v)))
            if hero:
                k = next_hero[u.side]
                if k >= w.g.hero_card.shape[2]:
                    # lanes.md: "Each deck must include exactly 5 Hero cards"
                    raise ScenarioError(f"{self.path}: {where}: more than {w.g.hero_card.shape[2]} heroes on side {u.side}")
                comps += [C("hero")(), C("hero_index")(k)]
                if arr.has_ability[card]:
                    comps.append(C("charges")(int(arr.ability_charges[card])))
                w.g.hero_card[0, u.side, k] = card
                w.g.hero_status[0, u.side, k] = ON_BOARD
                next_hero[u.side] += 1
            if u.creep:
                comps.append(C("creep")())
            if u.equipment:
                eq = self._card(u.equipment, f"{where}.equipment", ("equipment",), "held as equipment")
                comps.append(C("equipment")(eq))
            if u.bounty:
                comps.append(C("bounty")(u.bounty))
            if w.cache["aura_cards"][card]:
                comps.append(C("aura")())
                w.cache["auras_possible"] = True
            entities.append((u, esper.create_entity(*comps)))
        slots = load(w, 0, name)
        # entities come back in creation order: anchors first, then the units in file order
        for (u, _), s in zip(entities, slots[-len(entities):] if entities else []):
            self.names[int(w.serial[0, s])] = u.name or (u.card if u.card else "unit")
            eq = w.c.equipment[0, s]
            if eq >= 0:  # the equipment's health bonus, as if it had been equipped
                w.c.max_health[0, s] += arr.health[eq]
                w.c.health[0, s] += arr.health[eq]

    def _set_anchors(self, w) -> None:
        for a in self.spec.anchors:
            s = board.anchor_slot(a.side, a.lane)
            if a.hp > 0:
                w.c.health[0, s], w.c.max_health[0, s] = a.hp, max(a.hp, self.game.params.anchor_hp)
            elif a.essence > 0:
                w.c.essence[0, s] = True
                w.c.health[0, s], w.c.max_health[0, s] = a.essence, max(a.essence, self.game.params.essence_hp)
            else:
                w.c.essence[0, s] = w.c.ruined[0, s] = True
                w.c.health[0, s] = 0
            for k, v in a.keywords.items():
                if k not in ("armor", "retaliate", "regeneration"):
                    raise ScenarioError(f"{self.path}: anchors: an anchor can be enchanted with armor, retaliate or regeneration, not {k!r}")
                getattr(w.c, k)[0, s] = v
            w.c.anchor_aura[0, s] = a.aura
            if a.aura:
                w.cache["auras_possible"] = True

    # -- steps ---------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        for i, step in enumerate(self.spec.steps):
            run_step(self, i, step)
        return self.state()

    def check(self, state: dict[str, Any]) -> list[str]:
        """Mismatches between the file's ``[expect]`` table and ``state`` (empty: all match)."""
        return compare(self.spec.expect or {}, state)

    def state(self) -> dict[str, Any]:
        w, cat = self.w, self.game.cards.catalog
        L = self.game.params.lanes
        anchors = []
        for side in range(2):
            row = []
            for lane in range(L):
                s = board.anchor_slot(side, lane)
                ess = bool(w.c.essence[0, s])
                hp = int(w.c.health[0, s])
                row.append({"lane": lane, "hp": 0 if ess else hp,
                            "essence": hp if ess else self.game.params.essence_hp,
                            "destroyed": bool(w.c.ruined[0, s])})
            anchors.append(row)
        from battlesim.systems.lanes import stats

        units = []
        for side in range(2):
            for lane in range(L):
                for pos in range(self.game.params.positions):
                    s = int(w.g.board[0, side, lane, pos])
                    if s < 0:
                        continue
                    card = int(w.c.card_id[0, s])
                    kws = {}  # as the rules see them: own + equipment
                    for k, spec in KEYWORDS.items():
                        if k in STATUSES:  # a keyword that is a status (damage immunity): listed once, as a status
                            continue
                        v = stats.keyword(w, k, G, np.array([s]))[0]
                        if v:
                            kws[k] = True if spec.value == "tag" else int(v)
                    sts = {k: int(getattr(w.c, k)[0, s]) for k in STATUSES if getattr(w.c, k)[0, s]}
                    unit = {
                        "side": side, "lane": lane, "pos": pos,
                        "name": self.names.get(int(w.serial[0, s]), cat.names[card]),
                        "attack": int(stats.attack(w, G, np.array([s]))[0]),
                        "health": int(w.c.health[0, s]), "max_health": int(w.c.max_health[0, s]),
                        "keywords": kws, "statuses": sts,
                    }
                    if w.c.hero[0, s]:
                        unit["hero"] = True
                    if w.c.equipment[0, s] >= 0:
                        unit["equipment"] = cat.names[int(w.c.equipment[0, s])]
                    units.append(unit)
        winner = int(w.g.winner[0])
        improvements = []
        for side in range(2):
            for lane in range(L):
                for s in w.g.improvements[0, side, lane]:
                    if s >= 0:
                        improvements.append({"side": side, "lane": lane, "name": cat.names[int(w.c.card_id[0, s])],
                                             "timer": int(w.c.timer[0, s])})
        return {
            "round": int(w.g.round[0]),
            "winner": winner if winner >= 0 else None,
            "draw": winner == -1,
            "gold": [int(x) for x in w.g.gold[0]],
            "resources": [int(x) for x in w.g.resources[0]],
            "hand": [[cat.names[int(c)] for c in w.g.hand[0, seat] if c >= 0] for seat in range(2)],
            "shop_tier": [int(x) for x in w.g.shop_tier[0]],
            "anchors": anchors,
            "units": units,
            "improvements": improvements,
        }


def load_scenario(path: Path, game=None) -> Scenario:
    from battlesim.ecs.ruleset import get_ruleset

    raw, text = read_toml(path)
    spec = validate(ScenarioSpec, raw, path, text)
    if spec.expect is not None:
        validate(_ExpectTable, {"expect": spec.expect}, path, text)
    game = game or get_ruleset(spec.ruleset).load()
    if spec.cards:
        game = with_cards(game, spec.cards, path, text)
    return Scenario(game, spec, path)


class _ExpectTable(BaseModel):
    """``[expect]`` under its own name, so an error's field reads ``expect.units.0.pos``."""

    expect: ExpectSpec


def with_cards(game, cards: list[dict], path: Path, text: str):
    """The game with extra cards (validated like a card file), for trying a card in a scenario
    before it joins the set."""
    from battlesim.systems.lanes.cards import CardSet, CardSpec, compile_catalog

    specs = dict(game.cards.specs)
    for i, item in enumerate(cards):
        label = item.get("name") if isinstance(item.get("name"), str) else f"cards[{i}]"
        spec = validate(CardSpec, item, path, text, item=label)
        if spec.name in specs:
            raise ScenarioError(f"{path}: cards[{i}]: {spec.name!r} already exists in the card set")
        specs[spec.name] = spec
    for spec in specs.values():
        for eff, _ in spec.all_effects():
            if eff.card is not None and eff.card not in specs:
                raise ScenarioError(f"{path}: {spec.name!r}: effect {eff.op!r} names unknown card {eff.card!r}")
    catalog = compile_catalog(specs)
    old = game.cards
    # decks keep their cards by name: recompile their ids against the new catalog
    decks = {k: _reindex(d, old.catalog, catalog) for k, d in old.decks.items()}
    return type(game)(game.params, CardSet(catalog, specs, decks, old.cards_dir, old.decks_dir, old.broken))


def _reindex(deck, old, new):
    from dataclasses import replace

    remap = lambda ids: np.array([new.index[old.names[i]] for i in ids], dtype=np.int16)  # noqa: E731
    return replace(deck, main=remap(deck.main), heroes=remap(deck.heroes), creep=int(new.index[old.names[deck.creep]]),
                   equipment=remap(deck.equipment))


def compare(expected: dict[str, Any], actual: dict[str, Any], where: str = "") -> list[str]:
    """Differences between an ``[expect]`` table and a state: only the keys it names count.
    ``units`` / ``anchors`` lists match items by position for anchors and by (side, lane, pos)
    for units; ``units_count`` checks how many units stand."""
    out = []
    for key, want in expected.items():
        path = f"{where}.{key}" if where else key
        if key not in actual and key not in ("units", "units_count", "anchors", "absent"):
            out.append(f"{path}: no such field in the state (fields: {', '.join(actual)})")
            continue
        if key == "units":
            have = {(u["side"], u["lane"], u["pos"]): u for u in actual["units"]}
            for u in want:
                cell = (u["side"], u["lane"], u["pos"])
                if u.get("absent"):
                    if cell in have:
                        out.append(f"units{list(cell)}: expected empty, found {have[cell]['name']!r}")
                    continue
                if cell not in have:
                    out.append(f"units{list(cell)}: expected a unit, found none")
                    continue
                out += compare({k: v for k, v in u.items() if k not in ("side", "lane", "pos")}, have[cell],
                               f"units{list(cell)}")
        elif key == "units_count":
            if len(actual["units"]) != want:
                out.append(f"units_count: expected {want}, got {len(actual['units'])}")
        elif key == "anchors":
            for a in want:
                have = actual["anchors"][a["side"]][a["lane"]]
                out += compare({k: v for k, v in a.items() if k not in ("side", "lane")}, have,
                               f"anchors[{a['side']}][{a['lane']}]")
        elif key == "hand":  # a hand is a set of cards: slot order is not a rule
            if [sorted(h) for h in want] != [sorted(h) for h in actual["hand"]]:
                out.append(f"hand: expected {want}, got {actual['hand']}")
        elif isinstance(want, dict) and isinstance(actual.get(key), dict):
            if key in ("keywords", "statuses"):
                if actual[key] != want:
                    out.append(f"{path}: expected {want}, got {actual[key]}")
            else:
                out += compare(want, actual[key], path)
        elif actual.get(key) != want:
            out.append(f"{path}: expected {want!r}, got {actual.get(key)!r}")
    return out

"""The effect interpreter (compiled): runs the worklist of ``jobs.py``, each job an effect list of
the table ``Rules.effects``, op by op with its selector (spec §14 "Selectors", "Ops"); the play
area and enchantments (classes.md "Enchantments"); summoning (classes.md "Summoning").
"""

from __future__ import annotations

from numba import njit

from battlesim.systems.classes.board import LANES
from battlesim.systems.classes.jobs import push
from battlesim.systems.classes.legal import first_row
from battlesim.systems.classes.mana import gain_mana, tick
from battlesim.systems.classes.progress import gain_experience
from battlesim.systems.classes.rules import (
    C_ATTACK,
    C_DURATION,
    C_EFF_N,
    C_EFF_START,
    C_HAS_ATTACK,
    C_HEALTH,
    C_KEYWORD,
    C_RANGE,
    CD_DISCARD,
    CD_N,
    CD_START,
    DISCARD_ALL,
    DISCARD_ONE,
    F_AMOUNT,
    F_CARD,
    F_CARD_TYPE,
    F_COLOUR,
    F_CONDITION,
    F_OP,
    F_PER_TOKEN,
    F_RANGE,
    F_SELECT,
    F_STAT,
    F_STEPS,
    F_TRIGGER,
    OP,
    PW_SLOTS,
    SEL,
    ST_ATTACK,
    TR_CAST,
    TR_SUMMON,
    TR_UNLEASH,
)
from battlesim.systems.classes.state import (
    A_CARD,
    A_SHAPE,
    A_TOKENS,
    AFTER_NOTHING,
    AFTER_UNLEASH,
    AREA,
    FIELDS_MAX,
    G_ENDED,
    G_NEXT_UID,
    G_NJOBS,
    J_AFTER,
    J_BY_CARD,
    J_CARD,
    J_CHOICE,
    J_N,
    J_OWNER,
    J_POWER,
    J_SHAPE,
    J_SPELL,
    J_SRC,
    J_START,
    J_TARGET,
    J_TRIGGER,
    LC_SUMMONED,
    NA,
    NONE,
    NSHAPES,
    P_SUMMONED,
    SC_SELECTED,
    T_INTERSECTION,
    T_LANE,
    T_NONE,
    T_PLAYER,
    U_ANTIMAGIC,
    U_ATTACK,
    U_AURA_HEALTH,
    U_BASE_ATTACK,
    U_BASE_HEALTH,
    U_CARD,
    U_CONDITION,
    U_ENCH,
    U_HAS_ATTACK,
    U_HEALTH,
    U_KEYWORD,
    U_PLUGIN_CONDITION,
    U_PRESENT,
    U_RANGE,
    U_SIDE,
    U_UID,
    W_ID,
    W_TOKENS,
)
from battlesim.systems.classes.units import (
    add_card,
    clear,
    damage_player,
    damage_unit,
    find_uid,
    first_of_type,
    is_empty,
    kill,
    selects,
    sync_health_auras,
    take_card,
    team,
)
from battlesim.systems.classes.vocabulary import KEYWORDS

(OP_DAMAGE, OP_HEAL, OP_GAIN, OP_CONDITION, OP_ENCHANT, OP_UNENCHANT, OP_END, OP_SUMMON, OP_GAIN_MANA, OP_ADD_CARD,
 OP_REMOVE, OP_TICK, OP_UNLEASH, OP_KILL, OP_ADD_TOKEN) = (OP[n] for n in (
    "damage", "heal", "gain", "condition", "enchant", "unenchant", "end_enchantment", "summon", "gain_mana", "add_card",
    "remove", "tick_cooldown", "unleash", "kill", "add_token"))
SEL_CHOSEN, SEL_ENEMY_PLAYER, SEL_OWN_PLAYER, SEL_IN_RANGE = (SEL["chosen"], SEL["enemy_player"], SEL["own_player"],
                                                              SEL["enemies_in_range"])
NKW = len(KEYWORDS)


@njit(cache=True, _nrt=False)
def run_jobs(G, R, b):
    """Resolve every queued job, first in first out, until none is left or the game has ended
    (choice 21: "The game ends at once")."""
    k = 0
    while k < G.g[b, G_NJOBS]:
        if G.g[b, G_ENDED]:
            break
        run_job(G, R, b, k)
        k += 1
    G.g[b, G_NJOBS] = 0
    sync_health_auras(G, R, b)


@njit(cache=True, _nrt=False)
def run_job(G, R, b, k):
    """Resolve job ``k``: its effects with its trigger, in the card's order (classes.md "resolve
    its text"), then, after an unleash, the duration token."""
    job = G.jobs[b, k]  # a later push writes a later row: this one stays as queued
    for e in range(job[J_START], job[J_START] + job[J_N]):
        if G.g[b, G_ENDED]:
            return
        if R.effects[e, F_TRIGGER] == job[J_TRIGGER]:
            apply(G, R, b, job, e)
    if job[J_AFTER] == AFTER_UNLEASH:
        after_unleash(G, R, b, job[J_OWNER], job[J_CARD], job[J_SHAPE])


@njit(cache=True, _nrt=False)
def in_range(R, f, target, reach):
    """spec §14 ``enemies_in_range``: within ``range`` of the chosen field or intersection
    (classes.md "Range": "When the origin is an intersection, all fields whose corners are part of
    that intersection count as being at range 1"; choice 19: the origin field itself counts)."""
    if 0 <= target < R.distance.shape[0]:
        return R.distance[target, f] <= reach
    if T_INTERSECTION <= target < T_LANE:
        return R.intersection_distance[target - T_INTERSECTION, f] <= reach
    return False


@njit(cache=True, _nrt=False)
def targets(G, R, b, job, sel, reach, out):
    """The units an effect acts on, in the owner's acting order (classes.md: "whenever an a text
    affects multiple units on the battleground, always resolve them row by row, left to right")."""
    owner = job[J_OWNER]
    n = 0
    if sel == SEL_CHOSEN:
        t = job[J_TARGET]
        if t == T_NONE and job[J_TRIGGER] == TR_SUMMON:
            t = summon_target(G, R, b, owner)
        if 0 <= t < G.u.shape[1] and G.u[b, t, U_PRESENT]:
            out[0] = t
            n = 1
        return n
    for i in range(G.u.shape[1]):
        f = R.acting_order[owner, i]
        if not G.u[b, f, U_PRESENT]:
            continue
        if sel == SEL_IN_RANGE:
            ok = team(G.u, b, f) != owner and in_range(R, f, job[J_TARGET], reach)
        else:
            ok = selects(G, b, f, sel, owner, job[J_SRC], job[J_SHAPE])
        if ok:
            out[n] = f
            n += 1
    return n


@njit(cache=True, _nrt=False)
def summon_target(G, R, b, owner):
    """The target of a unit's "When summoned" text that names one (Warlock: "kill an enemy
    unit"): a summon step names the card and the lane, not a second target, so the engine takes
    the first foe in the owner's acting order that cards may target (ledger E3)."""
    for i in range(G.u.shape[1]):
        f = R.acting_order[owner, i]
        if G.u[b, f, U_PRESENT] and team(G.u, b, f) != owner and G.u[b, f, U_ANTIMAGIC] == 0:
            return f
    return T_NONE


@njit(cache=True, _nrt=False)
def apply(G, R, b, job, e):
    """One effect (spec §14 "Ops")."""
    ef = R.effects[e]
    op, owner = ef[F_OP], job[J_OWNER]
    amount = 1 if ef[F_AMOUNT] < 0 else ef[F_AMOUNT]
    spell, by_card = job[J_SPELL] == 1, job[J_BY_CARD] == 1
    if op == OP_DAMAGE and (ef[F_SELECT] in (SEL_ENEMY_PLAYER, SEL_OWN_PLAYER) or
                            (ef[F_SELECT] == SEL_CHOSEN and T_PLAYER <= job[J_TARGET] < T_INTERSECTION)):
        # classes.md: "Attacks on a player and spell damage to a player lower it" (spec §11)
        if ef[F_SELECT] == SEL_CHOSEN:
            side = job[J_TARGET] - T_PLAYER
        else:
            side = 1 - owner if ef[F_SELECT] == SEL_ENEMY_PLAYER else owner
        damage_player(G, b, side, amount)
        return
    if op == OP_GAIN_MANA:
        gain_mana(G, b, owner, ef[F_COLOUR], amount)
        return
    if op == OP_ADD_CARD:
        # "take Rejuvenate spell from the upgrade deck and add it to his hand"; a side without an
        # upgrade deck (a scenario) takes it from the supply
        if take_card(G.upgrade, b, owner, ef[F_CARD]) or is_empty(G.upgrade, b, owner):
            add_card(G.hand, b, owner, ef[F_CARD])
        return
    if op == OP_TICK:
        n = amount
        if ef[F_PER_TOKEN] == 1 and job[J_POWER] >= 0:
            n = G.pw[b, owner, job[J_POWER], W_TOKENS]
        tick(G, b, owner, ef[F_COLOUR], ef[F_STEPS], n)
        return
    if op == OP_ADD_TOKEN:
        p = job[J_POWER]
        if p >= 0:
            G.pw[b, owner, p, W_TOKENS] = min(G.pw[b, owner, p, W_TOKENS] + amount, R.powers[G.pw[b, owner, p, W_ID], PW_SLOTS])
        return
    if op == OP_END:
        end_enchantment(G, b, owner, job[J_SHAPE])
        return
    if op == OP_REMOVE:
        k = area_find(G, b, owner, job[J_CARD], job[J_SHAPE])
        if k >= 0:
            if job[J_SHAPE] >= 0:
                end_enchantment(G, b, owner, job[J_SHAPE])
            k = area_find(G, b, owner, job[J_CARD], job[J_SHAPE])
            if k >= 0:
                area_remove(G, b, owner, k)
        return
    if op == OP_UNLEASH:
        c = job[J_CARD]
        push(G, b, R.cards[c, C_EFF_START], R.cards[c, C_EFF_N], TR_UNLEASH, owner, c, job[J_SRC], job[J_SHAPE],
             job[J_TARGET], NONE, job[J_SPELL], job[J_BY_CARD], NONE, AFTER_UNLEASH)
        return
    if op == OP_SUMMON:
        summon(G, R, b, owner, job[J_CHOICE], ef[F_CARD_TYPE], job[J_TARGET])
        return
    out = G.scr[b, SC_SELECTED:SC_SELECTED + FIELDS_MAX]
    n = targets(G, R, b, job, ef[F_SELECT], ef[F_RANGE], out)
    for i in range(n):
        f = out[i]
        if not G.u[b, f, U_PRESENT]:
            continue  # died to an earlier unit of this effect's text
        warded = G.u[b, f, U_ANTIMAGIC] > 0
        if op == OP_DAMAGE:
            # Antimagic: "any damage dealt by Spells becomes 0"; direct damage "is not reduced by defense value"
            damage_unit(G, R, b, f, 0 if (spell and warded) else amount, owner)
        elif op == OP_KILL:
            # "Kill (a unit) – Reduce its HP to 0. Take credit for its death."
            kill(G, R, b, f, owner)
        elif op == OP_HEAL:
            # "To heal – ... only up to its base HP. Healing a unit that has equal or more HP than its base HP value has no effect."
            base = G.u[b, f, U_BASE_HEALTH] + G.u[b, f, U_AURA_HEALTH]  # choice 20: an HP aura raises the maximum
            if G.u[b, f, U_HEALTH] < base:
                G.u[b, f, U_HEALTH] = min(G.u[b, f, U_HEALTH] + amount, base)
        elif op == OP_GAIN:
            # "Gain (Attack or HP) – Increase the value on the appropriate die without limit."
            G.u[b, f, U_ATTACK if ef[F_STAT] == ST_ATTACK else U_HEALTH] += amount
        elif op == OP_CONDITION:
            # Antimagic: "Spells that are cast cannot place any conditions onto them."
            if not (spell and warded):
                G.u[b, f, U_CONDITION + ef[F_CONDITION]] += amount
        elif op == OP_ENCHANT:
            # "To enchant – Place a new enchantment token on the entity"; Antimagic: "cannot be ... enchanted by cards"
            if job[J_SHAPE] >= 0 and not (by_card and warded):
                G.u[b, f, U_ENCH + owner * NSHAPES + job[J_SHAPE]] += amount
        elif op == OP_UNENCHANT and job[J_SHAPE] >= 0:
            # "To unenchant – Remove all enchantment tokens matching this enchantment's token shape"
            G.u[b, f, U_ENCH + owner * NSHAPES + job[J_SHAPE]] = 0


@njit(cache=True, _nrt=False)
def summon(G, R, b, owner, card, mask, target):
    """classes.md "Summoning Units": "place its card on an empty spot in the front row on your side
    of the battlefield"; "Setting Up Unit Stats" (HP, 1 if none; Attack or none); "After you summon
    a card, you gain 1 exp." ``card`` NONE: the first of the type in hand."""
    if card < 0:
        card = first_of_type(G.hand, R.cards, b, owner, mask)
    lane = target - T_LANE
    if card < 0 or not 0 <= lane < LANES:
        return
    f = first_row(G.u, owner) * LANES + lane
    if G.u[b, f, U_PRESENT] or not take_card(G.hand, b, owner, card):
        return
    place_unit(G, R, b, f, owner, card)
    G.pl[b, owner, P_SUMMONED] += 1
    G.tally[b, owner, card, LC_SUMMONED] += 1
    gain_experience(G, R, b, owner, 1)
    push(G, b, R.cards[card, C_EFF_START], R.cards[card, C_EFF_N], TR_SUMMON, owner, card, G.u[b, f, U_UID], NONE,
         NONE, NONE, 0, 1, NONE, AFTER_NOTHING)


@njit(cache=True, _nrt=False)
def place_unit(G, R, b, f, owner, card):
    """A unit of ``card`` on field ``f`` with the card's stats (classes.md "Setting Up Unit Stats")."""
    clear(G.u, b, f)
    G.u[b, f, U_PRESENT] = 1
    G.u[b, f, U_SIDE] = owner
    G.u[b, f, U_CARD] = card
    G.u[b, f, U_UID] = G.g[b, G_NEXT_UID]
    G.g[b, G_NEXT_UID] += 1
    G.u[b, f, U_HEALTH] = G.u[b, f, U_BASE_HEALTH] = R.cards[card, C_HEALTH]
    G.u[b, f, U_ATTACK] = G.u[b, f, U_BASE_ATTACK] = R.cards[card, C_ATTACK]
    G.u[b, f, U_HAS_ATTACK] = R.cards[card, C_HAS_ATTACK]
    G.u[b, f, U_RANGE] = R.cards[card, C_RANGE]
    for k in range(NKW):
        G.u[b, f, U_KEYWORD + k] = R.cards[card, C_KEYWORD + k]


# -- the play area and enchantments -------------------------------------------------------
@njit(cache=True, _nrt=False)
def area_find(G, b, side, card, shape):
    """The play-area entry of ``card`` (with ``shape`` when one is given), NONE if none."""
    for k in range(AREA):
        c = G.area[b, side, k, A_CARD]
        if c >= 0 and (shape >= 0 and G.area[b, side, k, A_SHAPE] == shape or shape < 0 and c == card):
            return k
    return NONE


@njit(cache=True, _nrt=False)
def area_add(G, b, side, card, shape, tokens):
    """classes.md "Then, place that spell in your play area"; the entry goes last (oldest first)."""
    for k in range(AREA):
        if G.area[b, side, k, A_CARD] < 0:
            G.area[b, side, k, A_CARD] = card
            G.area[b, side, k, A_SHAPE] = shape
            G.area[b, side, k, A_TOKENS] = tokens
            return k
    return NONE


@njit(cache=True, _nrt=False)
def area_remove(G, b, side, k):
    """The entry leaves the play area for its owner's Nether (classes.md "move it into that
    player's Nether"); later entries move up (the area stays oldest first)."""
    add_card(G.nether, b, side, G.area[b, side, k, A_CARD])
    for j in range(k, AREA - 1):
        for x in range(NA):
            G.area[b, side, j, x] = G.area[b, side, j + 1, x]
    for x in range(NA):
        G.area[b, side, AREA - 1, x] = NONE


@njit(cache=True, _nrt=False, inline="always")
def free_shape(area, b, side):
    """classes.md "Enchantment Identity": "making sure that its shape isn't already used for another
    one of your active enchantments" (choice 18: the first free of 5; NONE: none free). Reads the
    play area alone (``G.area``): ``actions.cast_error`` asks it in every listing."""
    for s in range(NSHAPES):
        used = False
        for k in range(AREA):
            if area[b, side, k, A_CARD] >= 0 and area[b, side, k, A_SHAPE] == s:
                used = True
        if not used:
            return s
    return NONE


@njit(cache=True, _nrt=False)
def end_enchantment(G, b, side, shape):
    """classes.md "Ending an enchantment": "remove all matching enchantment tokens from units,
    battleground and play area. If the card with the enchantment was in a player's play area and it
    has no enchantment tokens on it, move it into that player's Nether." """
    if shape < 0:
        return
    for f in range(G.u.shape[1]):
        G.u[b, f, U_ENCH + side * NSHAPES + shape] = 0
    k = area_find(G, b, side, NONE, shape)
    if k >= 0:
        area_remove(G, b, side, k)


@njit(cache=True, _nrt=False)
def after_unleash(G, R, b, side, card, shape):
    """classes.md "Unleashing an enchantment": "After resolving the effect, check if the enchantment
    has a duration. If it does, remove one token from it ... If an enchantment with a specified
    duration has its last token removed from the card, proceed to end the enchantment." """
    k = area_find(G, b, side, card, shape)
    if k < 0 or card < 0 or R.cards[card, C_DURATION] <= 0:
        return
    G.area[b, side, k, A_TOKENS] -= 1
    if G.area[b, side, k, A_TOKENS] <= 0:
        end_enchantment(G, b, side, shape)


@njit(cache=True, _nrt=False)
def unleash(G, R, b, side, k):
    """Unleash play-area entry ``k`` of ``side`` now: its Enchantment clause (the card's ``unleash``
    effects), then a duration token goes."""
    c = G.area[b, side, k, A_CARD]
    push(G, b, R.cards[c, C_EFF_START], R.cards[c, C_EFF_N], TR_UNLEASH, side, c, NONE, G.area[b, side, k, A_SHAPE],
         NONE, NONE, 1, 1, NONE, AFTER_UNLEASH)
    run_jobs(G, R, b)


@njit(cache=True, _nrt=False)
def tick_conditions(G, R, b, p):
    """Plugin conditions (``plugin.classes_condition``) tick at their unit's owner's Enchantments
    Step: condition by condition in declaration order, unit by unit in field order, the
    condition's effects resolve once per token the unit holds as the tick starts (the unit their
    chosen target, its owner theirs), then the unit, if it still stands, discards what the
    condition says. A unit its own condition kills credits nobody (``units.kill`` credits another
    side only). No plugin condition: no loop at all."""
    for k in range(R.conditions.shape[0]):
        col = U_PLUGIN_CONDITION + k
        for f in range(G.u.shape[1]):
            if G.g[b, G_ENDED]:
                return
            if not G.u[b, f, U_PRESENT] or G.u[b, f, U_SIDE] != p or G.u[b, f, col] <= 0:
                continue
            uid = G.u[b, f, U_UID]
            for _ in range(G.u[b, f, col]):
                push(G, b, R.conditions[k, CD_START], R.conditions[k, CD_N], TR_CAST, p, G.u[b, f, U_CARD], uid,
                     NONE, f, NONE, 0, 0, NONE, AFTER_NOTHING)
                run_jobs(G, R, b)
                if G.g[b, G_ENDED] or find_uid(G.u, b, uid) != f:
                    break
            g = find_uid(G.u, b, uid)
            if g >= 0 and R.conditions[k, CD_DISCARD] == DISCARD_ONE:
                G.u[b, g, col] = max(G.u[b, g, col] - 1, 0)
            elif g >= 0 and R.conditions[k, CD_DISCARD] == DISCARD_ALL:
                G.u[b, g, col] = 0

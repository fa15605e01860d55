"""Units on the battlefield, read and changed over one game (compiled): who is a foe, Attack with
auras and Momentum, the valid-target search, moving, damage, death, the cards in hand, Nether
and play area. Every function takes the ``Game`` (``G``), the ``Rules`` (``R``) where it reads
cards, and the game ``b``, except the small inlined readers (``team``, ``hostile``, ``find_uid``,
``find_target``), which take the unit array ``G.u``; a unit is named by its field (one unit per
field).
"""

from __future__ import annotations

from numba import njit

from battlesim.systems.classes.jobs import push_simple
from battlesim.systems.classes.progress import gain_experience
from battlesim.systems.classes.rules import (
    C_AURA,
    C_DEATH,
    C_EFF_N,
    C_EFF_START,
    C_HP_AURA,
    C_SPELL,
    C_TYPE_BITS,
    F_AMOUNT,
    F_OP,
    F_SELECT,
    F_STAT,
    F_TRIGGER,
    OP,
    SEL,
    ST_ATTACK,
    ST_HEALTH,
    TR_AURA,
    TR_DEATH,
)
from battlesim.systems.classes.state import (
    A_CARD,
    A_SHAPE,
    AREA,
    END_REASONS,
    G_DRAW,
    G_END_REASON,
    G_ENDED,
    G_TURN,
    G_WINNER,
    HAND,
    LC_DIED,
    NONE,
    NSHAPES,
    NU,
    P_KILLS,
    P_LIFE,
    T_PLAYER,
    U_ATTACK,
    U_AURA_HEALTH,
    U_BASE_HEALTH,
    U_CARD,
    U_ENCH,
    U_GROUNDED,
    U_HAS_ATTACK,
    U_HEALTH,
    U_MOMENTUM,
    U_MOVES,
    U_PRESENT,
    U_RANGE,
    U_SIDE,
    U_SNARE,
    U_TURNOVER,
    U_UID,
)

OP_GAIN = OP["gain"]
SEL_ALL, SEL_ENEMY, SEL_ALLIED, SEL_OTHER, SEL_ENCHANTED = (SEL["all_units"], SEL["enemy_units"], SEL["allied_units"],
                                                           SEL["other_allied_units"], SEL["enchanted"])
END_LIFE = END_REASONS.index("life")


@njit(cache=True, _nrt=False, inline="always")
def team(u, b, f):
    """The side a unit fights for: its owner, or the opponent while it has Turnover (classes.md
    "A unit with a Turnover is considered a foe to its owner and an ally to its owner's
    opponents"). Also its facing index (board.facing_of: "it moves towards its owner").

    This and the other small helpers read the unit array ``u`` (``G.u``), not all of ``Game``,
    and are inlined: a call costs more than their work."""
    return u[b, f, U_SIDE] ^ (1 if u[b, f, U_TURNOVER] > 0 else 0)


@njit(cache=True, _nrt=False, inline="always")
def hostile(u, b, f, g):
    """Two units are foes."""
    return team(u, b, f) != team(u, b, g)


@njit(cache=True, _nrt=False, inline="always")
def find_uid(u, b, uid):
    """The field of the unit ``uid``, NONE if it is gone."""
    for f in range(u.shape[1]):
        if u[b, f, U_PRESENT] and u[b, f, U_UID] == uid:
            return f
    return NONE


@njit(cache=True, _nrt=False)
def selects(G, b, f, sel, owner, src_uid, shape):
    """Whether unit ``f`` is one a selector of a card owned by ``owner`` takes (spec §14:
    "Enemy"/"allied" are relative to the card's owner, Turnover aware)."""
    if sel == SEL_ALL:
        return True
    if sel == SEL_ENEMY:
        return team(G.u, b, f) != owner
    if sel == SEL_ALLIED:
        return team(G.u, b, f) == owner
    if sel == SEL_OTHER:
        return team(G.u, b, f) == owner and G.u[b, f, U_UID] != src_uid
    if sel == SEL_ENCHANTED:
        return shape >= 0 and G.u[b, f, U_ENCH + owner * NSHAPES + shape] > 0
    return False


@njit(cache=True, _nrt=False)
def aura_gain(G, R, b, f, stat):
    """What the auras in play add to unit ``f``'s ``stat``: derived each time it is read, never
    stored (spec §8). classes.md "Auras": "always active for as long as the card is in play
    (battleground for units and play area for spells)"."""
    total = 0
    for s in range(G.u.shape[1]):
        if G.u[b, s, U_PRESENT] and G.u[b, s, U_CARD] >= 0 and R.cards[G.u[b, s, U_CARD], C_AURA] == 1:
            total += _aura_of(G, R, b, G.u[b, s, U_CARD], f, stat, G.u[b, s, U_SIDE], G.u[b, s, U_UID], NONE)
    for side in range(2):
        for k in range(AREA):
            c = G.area[b, side, k, A_CARD]
            if c >= 0 and R.cards[c, C_AURA] == 1:
                total += _aura_of(G, R, b, c, f, stat, side, NONE, G.area[b, side, k, A_SHAPE])
    return total


@njit(cache=True, _nrt=False)
def _aura_of(G, R, b, card, f, stat, owner, src_uid, shape):
    """What one aura card gives unit ``f`` (its ``aura`` gains whose selector takes ``f``)."""
    total = 0
    start = R.cards[card, C_EFF_START]
    for e in range(start, start + R.cards[card, C_EFF_N]):
        ef = R.effects[e]
        if ef[F_TRIGGER] == TR_AURA and ef[F_OP] == OP_GAIN and ef[F_STAT] == stat and \
                selects(G, b, f, ef[F_SELECT], owner, src_uid, shape):
            total += ef[F_AMOUNT]
    return total


@njit(cache=True, _nrt=False)
def sync_health_auras(G, R, b):
    """Spec choice 20: "an HP aura raises current and maximum HP; when it ends HP drops to at most
    the new maximum but not below 1" (an aura ending is not damage: it never kills). Each unit's
    applied HP aura (``classes_aura_health``) is brought to what the auras in play give now;
    called after every effect list and every change of allegiance."""
    any_aura = False
    for f in range(G.u.shape[1]):
        if G.u[b, f, U_PRESENT] and (G.u[b, f, U_AURA_HEALTH] != 0 or
                                     (G.u[b, f, U_CARD] >= 0 and R.cards[G.u[b, f, U_CARD], C_HP_AURA] == 1)):
            any_aura = True
    for side in range(2):
        for k in range(AREA):
            c = G.area[b, side, k, A_CARD]
            if c >= 0 and R.cards[c, C_HP_AURA] == 1:
                any_aura = True
    if not any_aura:
        return
    for f in range(G.u.shape[1]):
        if not G.u[b, f, U_PRESENT]:
            continue
        now = aura_gain(G, R, b, f, ST_HEALTH)
        was = G.u[b, f, U_AURA_HEALTH]
        if now > was:
            G.u[b, f, U_HEALTH] += now - was
        elif now < was:
            G.u[b, f, U_HEALTH] = max(1, min(G.u[b, f, U_HEALTH], G.u[b, f, U_BASE_HEALTH] + now))
        G.u[b, f, U_AURA_HEALTH] = now


@njit(cache=True, _nrt=False)
def attack_value(G, R, b, f):
    """classes.md "Apply Modifiers – adjust the attacking unit's Attack value by applying any active
    effects and modifiers": its Attack, +1 per move while acting (Momentum), the auras."""
    return G.u[b, f, U_ATTACK] + G.u[b, f, U_MOVES] + aura_gain(G, R, b, f, ST_ATTACK)


@njit(cache=True, _nrt=False, inline="always")
def find_target(u, R, b, f):
    """The unit's valid Attack target now: a field, ``T_PLAYER + side``, or NONE.

    classes.md "Finding a Valid Attack Target": "Start searching for the closest enemy in the same
    lane as the attacking unit. If none are found within range, expand the search to the adjacent
    lanes, first to the right and then to the left"; "Units cannot attack enemies behind them";
    "If a unit attacks the far edge of its lane ... the attack targets the enemy player directly";
    "A unit can only attack if it has an Attack value". The order is ``R.search``, the board's
    (``board.geometry(rows).search``: spec choices 3, 4, 28); the first foe within range wins."""
    if not u[b, f, U_HAS_ATTACK]:
        return NONE
    k = team(u, b, f)
    reach = u[b, f, U_RANGE]
    player = u.shape[1]  # board.Geometry.player: the enemy player's candidate id
    order, distance = R.search[k, f], R.search_distance[k, f]  # the unit's row of each, read once
    for i in range(order.shape[0]):
        c = order[i]
        if c < 0:
            break
        if distance[i] > reach:
            continue
        if c == player:
            return T_PLAYER + (1 - k)
        if u[b, c, U_PRESENT] and team(u, b, c) != k:
            return c
    return NONE


@njit(cache=True, _nrt=False, inline="always")
def move(u, b, f, to):
    """The unit on ``f`` now stands on ``to`` (its row of the unit array ``G.u`` copied; ``f``
    emptied)."""
    for k in range(NU):
        u[b, to, k] = u[b, f, k]
    clear(u, b, f)


@njit(cache=True, _nrt=False, inline="always")
def clear(u, b, f):
    """Field ``f`` of the unit array ``G.u`` holds no unit (classes.md "it is removed from the
    battlefield")."""
    for k in range(NU):
        u[b, f, k] = 0
    u[b, f, U_CARD] = NONE


@njit(cache=True, _nrt=False)
def advance(u, R, b, f):
    """classes.md "Advance": "When a unit advances, it attempts to move into the field in front of
    it. A unit does not move if it has a valid target for Attack and it only moves if the field in
    front of the unit is unoccupied." Snare: "skips its next Advance that it would execute, then
    discards one Snare token" (choice 13: even one that would not move); Grounded "does not move
    when Advancing"; Momentum "gains +1 Attack each time it moves". Returns the unit's field. It
    reads and moves the unit array alone (``G.u``): it needs nothing else of ``Game``."""
    if u[b, f, U_SNARE] > 0:
        u[b, f, U_SNARE] -= 1
        return f
    if u[b, f, U_GROUNDED] or find_target(u, R, b, f) != NONE:
        return f
    to = R.front[team(u, b, f), f]
    if to < 0 or u[b, to, U_PRESENT]:
        return f
    if u[b, f, U_MOMENTUM]:
        u[b, f, U_MOVES] += 1
    move(u, b, f, to)
    return to


@njit(cache=True, _nrt=False)
def damage_player(G, b, side, amount):
    """classes.md "Attacking Enemy Players": "their attack reduces the enemy player's life points";
    the goal: "bring the enemy player life points to zero" (choice 21: the game ends at once;
    both at once = a draw)."""
    if amount <= 0:
        return
    G.pl[b, side, P_LIFE] -= amount
    check_end(G, b)


@njit(cache=True, _nrt=False)
def check_end(G, b):
    """Choice 21: "The game ends at once when a player's life is <= 0: the other player wins";
    both at once: a draw."""
    if G.g[b, G_ENDED]:
        return
    dead0, dead1 = G.pl[b, 0, P_LIFE] <= 0, G.pl[b, 1, P_LIFE] <= 0
    if dead0 or dead1:
        G.g[b, G_ENDED] = 1
        G.g[b, G_END_REASON] = END_LIFE
        if dead0 and dead1:
            G.g[b, G_DRAW] = 1
        else:
            G.g[b, G_WINNER] = 1 if dead0 else 0


@njit(cache=True, _nrt=False)
def damage_unit(G, R, b, f, amount, credit):
    """classes.md "Deal damage (to a unit) – Reduce its HP die by the listed amount. If unable to
    do so, that unit is defeated."; "Check for Defeat – if the attacked unit's HP drops to 0 or
    below, it dies." ``credit``: the player whose unit or card dealt it (NONE: nobody)."""
    if amount <= 0:
        return
    G.u[b, f, U_HEALTH] -= amount
    if G.u[b, f, U_HEALTH] <= 0:
        kill(G, R, b, f, credit)


@njit(cache=True, _nrt=False)
def kill(G, R, b, f, credit):
    """classes.md "When a Unit Dies": "it is removed from the battlefield and placed in the owning
    player's Nether"; "the player whose unit or spell dealt the fatal blow earns 1 experience
    point (exp). However, experience is only awarded if the destroyed unit belonged to the
    opposing player (auto-kills or denials do not reward exp)". Its on_death text is queued; the
    cards table keeps the turn its card's unit died."""
    side = G.u[b, f, U_SIDE]
    card = G.u[b, f, U_CARD]
    clear(G.u, b, f)
    if card >= 0:
        add_card(G.nether, b, side, card)
        G.tally[b, side, card, LC_DIED] = G.g[b, G_TURN]
    if credit >= 0 and credit != side:
        G.pl[b, credit, P_KILLS] += 1
        gain_experience(G, R, b, credit, 1)
    if card >= 0 and R.cards[card, C_DEATH] == 1:
        push_simple(G, b, R.cards[card, C_EFF_START], R.cards[card, C_EFF_N], TR_DEATH, side, card, NONE)


@njit(cache=True, _nrt=False)
def add_card(pile, b, side, card):
    """Put ``card`` in the first free place of a hand, Nether or upgrade deck; False if full."""
    for k in range(HAND):
        if pile[b, side, k] < 0:
            pile[b, side, k] = card
            return True
    return False


@njit(cache=True, _nrt=False)
def take_card(pile, b, side, card):
    """Take one ``card`` out of a pile (the last copy); False if it is not there."""
    for k in range(HAND - 1, -1, -1):
        if pile[b, side, k] == card:
            pile[b, side, k] = NONE
            return True
    return False


@njit(cache=True, _nrt=False)
def is_empty(pile, b, side):
    """No card in the pile (a loop, not ``pile[b, side].max()``: numpy's reductions allocate)."""
    for k in range(HAND):
        if pile[b, side, k] >= 0:
            return False
    return True


@njit(cache=True, _nrt=False)
def holds(pile, b, side, card):
    """``card`` is in the pile (classes.md "You can only cast a spell that is either prepared or in your hand")."""
    for k in range(HAND):
        if pile[b, side, k] == card:
            return True
    return False


@njit(cache=True, _nrt=False)
def first_of_type(hand, cards, b, side, mask):
    """The first unit card in ``side``'s hand (``G.hand``) whose type has a word of ``mask`` (0:
    any unit)."""
    for k in range(HAND):
        c = hand[b, side, k]
        if c >= 0 and cards[c, C_SPELL] == 0 and (mask == 0 or (cards[c, C_TYPE_BITS] & mask) != 0):
            return c
    return NONE


@njit(cache=True, _nrt=False, inline="always")
def units_in_order(u, R, b, side, out):
    """Fields holding units (``u``: ``G.u``) in ``side``'s acting order (classes.md "Unit Acting
    Order": "row by row, left to right, starting from the row that is most further from you");
    returns the count."""
    n = 0
    for i in range(u.shape[1]):
        f = R.acting_order[side, i]
        if u[b, f, U_PRESENT]:
            out[n] = f
            n += 1
    return n

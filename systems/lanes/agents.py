"""Heuristic agents for lanes (issue 4 "Agents").

``greedy`` scores every action of the flat table (systems/lanes/actions.py) from the state and
takes the best legal one; ties are broken by a tiny uniform noise drawn from each game's own
counter-based RNG (``Stream.AGENT``), so results depend only on the seed, never on the batch.
Everything is vectorized over the listed games; the only Python loops are over the few action
blocks. Only the legal entries of a decision are scored (a flat list of (row, action) pairs),
a unit's attack is read only on the cells some legal action looks at, and the noise is hashed
only for the legal entries (the same bits as the full draw; counters advance as for it).

Heuristics (deliberately simple and fast):
- units and heroes: stats and cost (mana efficiency), plus the trade they take at their cell:
  killing and/or surviving the enemy opposite, blocking its attack, or hitting an open anchor
  (a lethal hit on a low anchor scores very high); bouncing an own unit is penalised;
- spells, improvements, abilities: a flat positive value (cost-weighted); their target is a
  second decision, scored separately: hostile effects aim at the enemy with the highest
  attack + health that the card's damage can kill (else the highest value), friendly ones at
  the strongest own unit; a spell's caster, when several heroes may cast it, is the one with the
  highest attack;
- equipment: onto the strongest own unit;
- shop: buy the best affordable offer (tier, price); upgrade when nothing is affordable;
- pass only when no legal action scores above 0.
"""

from __future__ import annotations

import copy

import numpy as np

from battlesim.ecs import rng as _rng
from battlesim.ecs.npx import nonzero
from battlesim.ecs.plugin import agent
from battlesim.ecs.rng import Stream
from battlesim.systems.lanes import stats
from battlesim.systems.lanes.cards import EQUIPMENT, IMPROVEMENT, SPELL, UNIT
from battlesim.systems.lanes.play import PENDING_CASTER
from battlesim.systems.lanes.vocabulary import EXECUTOR

NOISE = 1e-3
LETHAL = 60.0  # a hit that destroys an anchor
KILLABLE = 20.0  # a hostile target the card's damage destroys
BIG = 99


def _card_tables(w) -> dict[str, np.ndarray]:
    """Per-card effect summaries, computed once per catalog and cached on the World."""
    cache = getattr(w, "cache", None)
    if cache is not None and "greedy_cards" in cache:
        return cache["greedy_cards"]
    fx = w.effects
    op = fx.op
    ids = {name: EXECUTOR.id("opcode", name) for name in EXECUTOR.opcodes}
    dmg = np.where(op == ids["damage"], fx.amount, 0).sum(axis=1)
    kill = (op == ids["destroy"]).any(axis=1)
    hostile_ops = [ids[n] for n in ("damage", "destroy", "apply_status", "bounce", "battle", "strike",
                                    "caster_strike", "battle_blocker", "push", "purge") if n in ids]
    friendly_ops = [ids[n] for n in ("heal", "buff", "grant_keyword") if n in ids]
    hostile = np.isin(op, hostile_ops).any(axis=1)
    friendly = np.isin(op, friendly_ops).any(axis=1)
    tables = {
        "damage": np.where(kill, BIG, dmg).astype(np.int32),
        "hostile": hostile | ~friendly,  # unknown effects: aim at the enemy
    }
    if cache is not None:
        cache["greedy_cards"] = tables
    return tables


_BLOCKS = ("play", "deploy", "target", "ability", "activate", "buy", "upgrade")


class _Layout:
    """What every column of an action table means, as arrays indexed by action (built once per
    table): ``code`` (0 pass, then 1 + the index of its block in ``_BLOCKS``), ``idx`` (hand
    card h, hero k, target side or offer k), ``lane`` and ``pos``."""

    _cache: dict = {}

    def __init__(self, A) -> None:
        self.code = np.zeros(A.size, dtype=np.int8)
        self.idx = np.zeros(A.size, dtype=np.intp)
        self.lane = np.zeros(A.size, dtype=np.intp)
        self.pos = np.zeros(A.size, dtype=np.intp)
        for j, name in enumerate(_BLOCKS, 1):
            self.code[A.slices[name]] = j
        for name, decode in (("play", A.decode_play), ("deploy", A.decode_deploy), ("target", A.decode_target)):
            a = np.arange(A.slices[name].start, A.slices[name].stop)
            self.idx[a], self.lane[a], self.pos[a] = decode(a)
        a = np.arange(A.ability_slice.start, A.ability_slice.stop)
        self.lane[a], self.pos[a] = A.decode_ability(a)
        a = np.arange(A.activate_slice.start, A.activate_slice.stop)
        self.lane[a], self.idx[a] = A.decode_activate(a)
        a = np.arange(A.buy_slice.start, A.buy_slice.stop)
        self.idx[a] = a - A.buy_base

    @classmethod
    def of(cls, A) -> "_Layout":
        key = (A.H, A.L, A.P, A.K, A.I, A.O, A.size)
        lay = cls._cache.get(key)
        if lay is None:
            lay = cls._cache[key] = cls(A)
        return lay


def _noise(rng, games: np.ndarray, n: int, r: np.ndarray, a: np.ndarray, stream: int) -> np.ndarray:
    """``rng.uniform(games, n, stream)[r, a]`` computed for the listed entries only (the
    counters of ``games`` advance by ``n``, exactly as the full draw does). ``games`` must be
    strictly increasing (it is: a decision lists its games in order); otherwise the full draw."""
    if games.size > 1 and not np.all(games[1:] > games[:-1]):
        return rng.uniform(games, n, stream)[r, a]
    base = rng.counter[games]
    rng.counter[games] = base + np.uint64(n)
    with np.errstate(over="ignore"):
        x = base[r] + a.astype(np.uint64)
        x *= _rng._GOLDEN
        x ^= rng._keys[games][r]
        x += np.uint64((int(stream) * 0xD1B54A32D192ED03) & 0xFFFFFFFFFFFFFFFF)
    x = _rng.mix64(x, inplace=True)
    out = np.right_shift(x, np.uint64(11), out=x).astype(np.float64)
    out *= _rng._TO_UNIT
    return out


def _unit_value(ua, uh, eo, ea, eh, ahp, ruined):
    """Trade value of a unit with stats (ua, uh) placed on a cell facing an enemy (``eo``:
    occupied, its attack ``ea`` and health ``eh``) or the enemy anchor (health ``ahp`` >= 1)."""
    kills = ua >= eh
    survives = ea < uh
    fight = (np.where(kills, 2.0 + ea + eh, 0.0) + np.where(survives, 2.0 + ea, 0.0)
             - np.where(~kills & ~survives, 0.5 * (ua + uh), 0.0))
    open_hit = np.where(ruined, -1.0, ua * (1.0 + 10.0 / ahp) + np.where(ua >= ahp, LETHAL, 0.0))
    return np.where(eo, fight, open_hit)


class GreedyAgent:
    """Scores every legal action and takes the best (see the module docstring)."""

    name = "greedy"

    def act(self, world, games: np.ndarray, seat, legal: np.ndarray) -> np.ndarray:
        r, a, s = self.noisy_scores(world, games, seat, legal)
        return _row_argmax(r, a, s, games.size)

    def noisy_scores(self, w, games, seat, legal):
        """``(r, a, s)``: every legal entry (row-major) and its score plus the tie-breaking noise
        (drawn from each game's RNG: every listed game's counter advances by the table size)."""
        r, a, s = self.legal_scores(w, games, seat, legal)
        s += NOISE * _noise(w.rng, games, legal.shape[1], r, a, Stream.AGENT)
        return r, a, s

    # -- scoring --------------------------------------------------------------------------
    def scores(self, w, games: np.ndarray, seat, legal: np.ndarray) -> np.ndarray:
        """``float[n, A]`` heuristic value of every legal action (illegal ones: 0; the caller
        masks)."""
        out = np.zeros(legal.shape, dtype=np.float64)
        r, a, s = self.legal_scores(w, games, seat, legal)
        out[r, a] = s
        return out

    def legal_scores(self, w, games: np.ndarray, seat, legal: np.ndarray):
        """``(r, a, s)``: row, action and heuristic value of every legal entry of ``legal``
        (row-major). ``seat``: the actor, one for all rows or one per row. Only the legal
        entries are scored, and a unit's attack is read only on the cells some legal action
        looks at."""
        A = w.actions
        lay = _Layout.of(A)
        r, a = nonzero(legal)
        s = np.zeros(a.size, dtype=np.float64)  # pass = 0
        if a.size == 0:
            return r, a, s
        n = games.size
        cat = w.catalog.arrays
        g = w.g
        L, P = A.L, A.P
        seat = np.broadcast_to(np.asarray(seat, dtype=np.intp), (n,))
        code = lay.code[a]
        ip, idp, it = (np.flatnonzero(code == j) for j in (1, 2, 3))

        def cell(e, side):  # flat index of cell (side, lane, pos) of entries e into [n, 2, L, P]
            return ((r[e] * 2 + side) * L + lay.lane[a[e]]) * P + lay.pos[a[e]]

        # play entries: the card, its kind and stats
        if ip.size:
            rp, sp = r[ip], seat[r[ip]]
            hand = g.hand[games[rp], sp, lay.idx[a[ip]]]
            card = np.maximum(hand, 0)
            kind = np.where(hand >= 0, cat.kind[card], -1)
            cost = cat.cost[card].astype(np.float64)
            ua = cat.attack[card].astype(np.int32)
            uh = cat.health[card].astype(np.int32)
            pu, pe = np.flatnonzero(kind == UNIT), np.flatnonzero(kind == EQUIPMENT)
            own_p = cell(ip, sp)
            opp_p = cell(ip, 1 - sp)
        if idp.size:
            rd, sd = r[idp], seat[r[idp]]
            hc = np.maximum(g.hero_card[games[rd], sd, lay.idx[a[idp]]], 0)
            ha = cat.attack[hc].astype(np.int32)
            hh = cat.health[hc].astype(np.int32)
            opp_d = cell(idp, 1 - sd)
        if it.size:
            tgt = cell(it, lay.idx[a[it]])

        # the board, read where some legal entry looks: attack and health of those units
        if ip.size or idp.size or it.size:
            need = np.zeros(n * 2 * L * P, dtype=bool)
            if ip.size:
                need[opp_p[pu]] = True
                need[own_p[pu]] = True
                need[own_p[pe]] = True
            if idp.size:
                need[opp_d] = True
            if it.size:
                need[tgt] = True
            cells = g.board[games].reshape(-1)
            occ = cells >= 0
            q = np.flatnonzero(need & occ)
            atk = np.zeros(need.size, dtype=np.int32)
            hp = np.zeros(need.size, dtype=np.int32)
            if q.size:
                ob, os_ = games[q // (2 * L * P)], cells[q]
                atk[q] = stats.attack(w, ob, os_)
                hp[q] = w.c.health[ob, os_]
            val = (atk + hp).astype(np.float64)

        def anchor(rows, opp, lane):  # the enemy anchor of each entry's lane: health (>= 1), ruined
            slot = opp * 3 + lane
            a_hp = w.c.health[games[rows], slot].astype(np.int32)
            return np.maximum(a_hp, 1), w.c.ruined[games[rows], slot].astype(bool)

        # play: hand card h at lane l, position p
        if ip.size:
            sc = np.zeros(ip.size, dtype=np.float64)
            if pu.size:
                e = opp_p[pu]
                ahp, ruined = anchor(rp[pu], 1 - sp[pu], lay.lane[a[ip[pu]]])
                u_a, u_h = ua[pu], uh[pu]
                own = own_p[pu]
                sc[pu] = (1.0 + u_a + u_h + 0.5 * cost[pu]
                          + _unit_value(u_a, u_h, occ[e], atk[e], hp[e], ahp, ruined)
                          - np.where(occ[own], 5.0 + 2.0 * val[own], 0.0))
            spell = np.flatnonzero((kind == SPELL) | (kind == IMPROVEMENT))
            sc[spell] = 2.0 + cost[spell]
            if pe.size:
                sc[pe] = 2.0 + ua[pe] + uh[pe] + 0.5 * val[own_p[pe]]
            s[ip] = sc

        # deploy: roster hero k at lane l, position p
        if idp.size:
            ahp, ruined = anchor(rd, 1 - sd, lay.lane[a[idp]])
            s[idp] = 1.0 + ha + hh + _unit_value(ha, hh, occ[opp_d], atk[opp_d], hp[opp_d], ahp, ruined)

        # target: the cell (side, lane, pos) a pending card or ability aims at
        if it.size:
            t = _card_tables(w)
            rt = r[it]
            pc = np.maximum(g.pending_card[games[rt]], 0)
            dmg = t["damage"][pc]
            hostile = t["hostile"][pc]
            enemy = lay.idx[a[it]] == 1 - seat[rt]
            kill_bonus = np.where(hp[tgt] <= dmg, KILLABLE, 0.0)
            enemy_score = 1.0 + val[tgt] + kill_bonus
            ally_score = 1.0 + val[tgt]
            good = np.where(hostile, enemy, ~enemy)
            s[it] = np.where(good, np.where(enemy, enemy_score, ally_score), 0.05)
            # a caster choice (same cells, own heroes): the hero that hits hardest (battle, caster_strike)
            casting = g.pending_kind[games[rt]] == PENDING_CASTER
            s[it[casting]] = 1.0 + atk[tgt[casting]] + 0.1 * hp[tgt[casting]]

        s[(code == 4) | (code == 5)] = 4.0  # ability, activate

        # shop
        ib = np.flatnonzero(code == 6)
        if ib.size:
            rb, sb = r[ib], seat[r[ib]]
            offers = g.offers[games[rb], sb, lay.idx[a[ib]]]
            oc = np.where(offers >= 0, g.equip_pool[games[rb], sb, np.maximum(offers, 0)], 0)
            price = cat.gold[oc].astype(np.float64)
            s[ib] = 10.0 + 3.0 * cat.tier[oc] + price
        iu = np.flatnonzero(code == 7)
        if iu.size:
            affordable = legal[r[iu], A.buy_slice].any(axis=1)
            s[iu] = np.where(affordable, -1.0, 3.0)
        return r, a, s


def _row_argmax(r: np.ndarray, a: np.ndarray, s: np.ndarray, n: int) -> np.ndarray:
    """Per row, the first action (lowest column) of highest score among the row's entries;
    ``np.argmax`` of the dense scores with -inf off the entries. Rows without entries: 0."""
    dense = np.full((n, int(a.max(initial=0)) + 1), -np.inf)
    dense[r, a] = s
    return np.argmax(dense, axis=1)


def subset_world(w, rows: np.ndarray):
    """A new World holding copies of games ``rows`` of ``w`` (rows may repeat), sharing the
    catalog, effects and pipeline. Much cheaper than ``w.copy()`` (a deep copy of everything)."""
    from types import SimpleNamespace

    rows = np.asarray(rows, dtype=np.intp)
    s = copy.copy(w)
    s.c = SimpleNamespace(**{k: v[rows] for k, v in vars(w.c).items()})
    s.g = SimpleNamespace(**{k: v[rows] for k, v in vars(w.g).items()})
    s.present = {k: v[rows] for k, v in w.present.items()}
    for name in ("alive", "serial", "_next_serial", "active", "seeds"):
        setattr(s, name, getattr(w, name)[rows])
    s.rng = w.rng.subset(rows)
    s.n_games = rows.size
    s.games = np.arange(rows.size)
    s.cache = {k: v for k, v in w.cache.items()  # per-game caches go
               if k != "aura_sources" and not (isinstance(k, tuple) and k[0] == "lookahead_memo")}
    s.version = w.version + 1
    s.agents = []
    return s


def position_value(w, games: np.ndarray, seat: int) -> np.ndarray:
    """``float[n]``: the seat's board (attack + health), anchors and hand minus the opponent's."""
    cells = w.g.board[games]
    occ = cells >= 0
    gi = np.broadcast_to(games[:, None, None, None], cells.shape)
    val = np.zeros(cells.shape)
    ob, os_ = gi[occ], cells[occ]
    val[occ] = stats.attack(w, ob, os_) + w.c.health[ob, os_]
    side = val.sum(axis=(2, 3))  # [n, 2]
    L = cells.shape[2]
    anchors = w.c.health[games[:, None], np.arange(2 * L)[None, :]].reshape(-1, 2, L).astype(np.float64)
    ruined = w.c.ruined[games[:, None], np.arange(2 * L)[None, :]].reshape(-1, 2, L)
    anchor = np.where(ruined, -30.0, np.maximum(anchors, 0)).sum(axis=2)
    hand = (w.g.hand[games] >= 0).sum(axis=2)
    total = side + 2.0 * anchor + 1.0 * hand
    won = w.g.winner[games]
    return np.where(won == seat, 1e4, np.where(won == 1 - seat, -1e4, total[:, seat] - total[:, 1 - seat]))


class _Memo:
    """What a lookahead seat remembers of each game's last rollout (see ``LookaheadAgent``):
    the end value of the candidate it took, and the RNG counter its seat had at each later
    choice point of that rollout (``caps``; ``ptr``: the next one to meet)."""

    C = 32  # choice points remembered per rollout

    def __init__(self, B: int) -> None:
        self.valid = np.zeros(B, dtype=bool)
        self.round = np.zeros(B, dtype=np.int64)
        self.value = np.zeros(B, dtype=np.float64)
        self.caps = np.zeros((B, self.C), dtype=np.uint64)
        self.ncap = np.zeros(B, dtype=np.intp)
        self.ptr = np.zeros(B, dtype=np.intp)


class LookaheadAgent:
    """Greedy, refined in the play phase: for each game the ``k`` best greedy candidates are
    applied on a copy of the game, the rest of the play phase is played greedily by both
    seats, and the candidate whose end position scores best is taken (other decisions:
    greedy).

    All candidates of all deciding games are played out together in one sub-world. Against a
    greedy opponent, the game itself follows the rollout of the candidate taken up to the
    seat's next choice, where the best greedy candidate is the move that rollout made: its
    value is known, and that candidate is not played out again (same values, one rollout in
    ``k`` fewer). The reuse holds only while the game is in the same play phase, the rollout
    finished, and the seat's RNG counter is the one the rollout had at that point."""

    name = "lookahead"
    max_steps = 200

    def __init__(self, k: int = 4) -> None:
        self.k = k
        self.greedy = GreedyAgent()

    def _memo(self, world, seat: int):
        """This seat's memo for ``world`` when reuse is sound (a plain greedy opponent), else None."""
        agents = getattr(world, "agents", None) or []
        if len(agents) != 2 or type(agents[1 - seat]) is not GreedyAgent:
            return None
        key = ("lookahead_memo", id(self), seat)
        memo = world.cache.get(key)
        if memo is None or memo.valid.size != world.n_games:
            memo = world.cache[key] = _Memo(world.n_games)
        return memo

    def act(self, world, games: np.ndarray, seat: int, legal: np.ndarray) -> np.ndarray:
        from battlesim.systems.lanes.play import PlayPhase

        counter0 = world.rng.counter[games]  # before the noise draw: what a rollout recorded
        r, a, s = self.greedy.noisy_scores(world, games, seat, legal)
        scores = np.full(legal.shape, -np.inf)
        scores[r, a] = s
        best = np.argmax(scores, axis=1)
        A = world.actions
        # play-phase decisions with a real choice (not a pending target, not the shop, not deploy)
        play_phase = world.g.in_play[games] & (world.g.pending_kind[games] == 0) & legal[:, 0]
        choice = play_phase & (legal.sum(axis=1) > 1)
        rows = np.flatnonzero(choice)
        if rows.size == 0 or self.k <= 1:
            return best
        k = min(self.k, legal.shape[1])
        top = np.argsort(-scores[rows], axis=1, kind="stable")[:, :k]  # [m, k]
        ok = np.isfinite(np.take_along_axis(scores[rows], top, axis=1))
        gr = games[rows]
        rnd = world.g.round[gr]
        memo = self._memo(world, seat)
        if memo is not None:
            p = memo.ptr[gr]
            reuse = (memo.valid[gr] & (memo.round[gr] == rnd) & (p < memo.ncap[gr])
                     & (memo.caps[gr, np.minimum(p, _Memo.C - 1)] == counter0[rows]))
            ok[:, 0] &= ~reuse
        r_idx, c_idx = nonzero(ok)
        cand = top[r_idx, c_idx]
        sub = subset_world(world, games[rows][r_idx])
        sub.agents = [self.greedy, self.greedy]
        phase = PlayPhase(A)
        idx = sub.games
        ns = idx.size
        phase.apply(sub, idx, np.full(ns, seat, dtype=np.intp), cand)
        caps = np.zeros((ns, _Memo.C), dtype=np.uint64)
        ncap = np.zeros(ns, dtype=np.intp)
        for _ in range(self.max_steps):
            pend = np.flatnonzero(phase.pending(sub) & sub.active)
            if pend.size == 0:
                break
            actor, leg = phase.request(sub, pend)
            if memo is not None:  # the seat's choice points along each rollout: its RNG counter there
                at = np.flatnonzero((actor == seat) & (sub.g.pending_kind[pend] == 0) & leg[:, 0]
                                    & (leg.sum(axis=1) > 1))
                if at.size:
                    pa = pend[at]
                    caps[pa, np.minimum(ncap[pa], _Memo.C - 1)] = sub.rng.counter[pa]
                    ncap[pa] += 1
            # both seats are greedy: one call for all rows (the same actions as asking each seat)
            phase.apply(sub, pend, actor, self.greedy.act(sub, pend, actor, leg))
        finished = ~(phase.pending(sub) & sub.active)
        end_value = position_value(sub, idx, seat)
        value = np.full(top.shape, -np.inf)
        value[r_idx, c_idx] = end_value
        if memo is not None:
            value[reuse, 0] = memo.value[gr[reuse]]
        pick = np.argmax(value, axis=1)
        out = best.copy()
        out[rows] = top[np.arange(rows.size), pick]
        if memo is not None:
            kept = reuse & (pick == 0)  # the same rollout goes on: its next choice point
            memo.ptr[gr[kept]] += 1
            new = ~kept
            j = np.full(top.shape, -1, dtype=np.intp)
            j[r_idx, c_idx] = np.arange(ns)
            j = j[np.arange(rows.size), pick][new]
            gn = gr[new]
            memo.valid[gn] = finished[j] & (ncap[j] <= _Memo.C)
            memo.round[gn] = rnd[new]
            memo.value[gn] = end_value[j]
            memo.caps[gn] = caps[j]
            memo.ncap[gn] = ncap[j]
            memo.ptr[gn] = 0
        return out


agent("greedy")(GreedyAgent)  # the public API (ecs/plugin.py), as a plugin would
agent("lookahead")(LookaheadAgent)

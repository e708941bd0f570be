"""The oracle the heuristic bot's C rules are checked against: the rules of
``bots.heuristic`` (described there) written rule by rule in Python, as the
bot was before it chose through its C port ``bots._policy``.

``HeuristicOracle`` scores every legal action with the rules, in plain
Python over ``Core.fields()``, and keeps the tied-best actions in the order
it scored them: ``analyse(...)["best"]``, which ``tests/test_policy.py``
holds equal to ``bots._policy.heuristic_best`` (the C port's) on thousands
of positions; exact ties are broken with ``random.Random(seed)`` as the
bot does, so an oracle and a bot of the same seed play the same games.

Slow (tens of microseconds a decision) and for tests only: the bot that
plays is ``bots.heuristic.HeuristicBot``.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from bots.base import _core_of
from bots.heuristic import HeuristicBot
from solver._core import CARDS_PER_SIDE, Core, NUM_DISTINCT_ACTIONS, decode_action, encode_action
from solver.vocabulary import HOMES, ZONES

__all__ = ["HeuristicOracle", "play", "win_probability"]

_DECODE = tuple(decode_action(a) for a in range(NUM_DISTINCT_ACTIONS))
_TABLE = frozenset(ZONES)
_ZONE_ACTION = {z: encode_action("ZONE", k) for k, z in enumerate(ZONES)}
_DECLINE = encode_action("DECLINE")
_REDRAW = encode_action("REDRAW")


@lru_cache(maxsize=None)
def win_probability(attack_bullets: int, defence_bullets: int, sides: int = 6,
                    attack_mod: int = 0, defence_mod: int = 0) -> float:
    """P(attacker's die + bullets > defender's die + bullets), R15f."""
    wins = 0
    for a in range(1, sides + 1):
        for d in range(1, sides + 1):
            if a + attack_bullets + attack_mod > d + defence_bullets + defence_mod:
                wins += 1
    return wins / (sides * sides)


class _Cards:
    """Per-card data indexed by global index, read from the card set."""

    def __init__(self, card_set):
        n = 2 * CARDS_PER_SIDE
        self.kind = [None] * n
        self.bullets = [0] * n
        self.search = [0] * n
        self.steal = [0] * n
        self.move = [False] * n
        self.attack = [False] * n
        self.command = [False] * n
        self.volunteers = [False] * n
        self.assistance = [False] * n
        self.escort = [False] * n
        self.effect = [None] * n
        self.type_key = [None] * n
        for card in card_set.cards:
            g = card.global_index
            t = card.type
            ab = t.abilities
            self.kind[g] = t.kind
            self.bullets[g] = t.bullets
            self.search[g] = int(ab.get("search", 0) or 0)
            self.steal[g] = int(ab.get("spy", 0) or ab.get("sturmwind", 0) or 0)
            self.move[g] = bool(ab.get("movement"))
            self.attack[g] = bool(ab.get("attack"))
            self.command[g] = bool(ab.get("command"))
            self.volunteers[g] = bool(ab.get("volunteers"))
            self.assistance[g] = bool(ab.get("assistance"))
            self.escort[g] = bool(ab.get("escort"))
            self.effect[g] = t.effect
            self.type_key[g] = t.key


_CARD_DATA: dict[int, tuple[Any, _Cards]] = {}


def _cards_of(core) -> _Cards:
    cs = core.config.card_set
    hit = _CARD_DATA.get(id(cs))
    if hit is None or hit[0] is not cs:
        hit = (cs, _Cards(cs))
        _CARD_DATA[id(cs)] = hit
    return hit[1]


class _View:
    """The position as the player to move sees it, with the bot's judgements."""

    def __init__(self, core):
        self.core = core
        self.d = d = _cards_of(core)
        f = core.fields()
        self.f = f
        self.me = me = f["player"]
        self.opp = opp = 1 - me
        self.loc = loc = f["loc"]
        self.exh = f["exhausted"]
        fr = f["fragments"]
        self.P = fr["periphery"]
        self.home = HOMES[me]
        self.ehome = HOMES[opp]
        # What a thief can take (R17: never the Operation Wildhorn III card).
        self.home_frag = fr["forest"] if me == 0 else fr["base"]
        self.enemy_frag = fr["base"] if me == 0 else fr["forest"]
        self.fr = fr
        self.turn = f["turn"]
        self.last = f["turn"] >= core.config.turns
        self.sides = core.config.dice_sides
        self.base = me * CARDS_PER_SIDE
        mine = range(me * CARDS_PER_SIDE, me * CARDS_PER_SIDE + CARDS_PER_SIDE)
        theirs = range(opp * CARDS_PER_SIDE, opp * CARDS_PER_SIDE + CARDS_PER_SIDE)
        self.mine = [g for g in mine if loc[g] in _TABLE]
        self.theirs = [g for g in theirs if loc[g] in _TABLE]
        self.hand = [g for g in mine if loc[g] == "hand"]
        self.hand_effects = [d.effect[g] for g in self.hand]
        self._memo: dict[Any, Any] = {}

    # ---- small facts -------------------------------------------------------
    def fresh(self, g: int) -> bool:
        return not self.exh[g]

    def mine_at(self, zone: str) -> list[int]:
        return [g for g in self.mine if self.loc[g] == zone]

    def theirs_at(self, zone: str) -> list[int]:
        return [g for g in self.theirs if self.loc[g] == zone]

    def is_unit(self, g: int) -> bool:
        return self.d.kind[g] == "unit"

    def has_in_hand(self, effect: str) -> int:
        return self.hand_effects.count(effect)

    def own_cards_at_home(self) -> int:
        return len(self.mine_at(self.home))

    def copies(self, g: int) -> int:
        """How many of my cards are interchangeable with g (same type, place
        and side up, R27)."""
        t, place, ex = self.d.type_key[g], self.loc[g], self.exh[g]
        return sum(1 for x in range(self.base, self.base + CARDS_PER_SIDE)
                   if self.d.type_key[x] == t and self.loc[x] == place and self.exh[x] == ex)

    def hand_has_table_card(self) -> bool:
        return any(self.d.kind[g] in ("unit", "support") for g in self.hand)

    # ---- fighting ----------------------------------------------------------
    def valuable(self, g: int) -> bool:
        d = self.d
        return bool(d.search[g] or d.steal[g] or d.kind[g] == "support")

    def defence_bullets(self, target: int) -> int:
        """The bullets that will defend ``target``: a sensible defender escorts
        a valuable card with a fresh unit carrying more bullets (R15b)."""
        d = self.d
        b = d.bullets[target]
        if self.valuable(target):
            side_cards = self.theirs if target in self.theirs else self.mine
            zone = self.loc[target]
            for e in side_cards:
                if (e != target and self.loc[e] == zone and not self.exh[e]
                        and d.escort[e] and d.bullets[e] > b):
                    b = d.bullets[e]
        return b

    def threat(self, e: int) -> float:
        """How much an enemy card on the table matters as a target."""
        key = ("threat", e)
        if key in self._memo:
            return self._memo[key]
        d = self.d
        zone = self.loc[e]
        if d.search[e]:
            v = 3.0 if zone == "periphery" and (self.P > 0 or not self.last) else 2.0
        elif d.steal[e]:
            if zone == self.home and self.home_frag > 0:
                v = 3.0
            elif zone in ("periphery", self.home):
                v = 2.5
            else:
                v = 2.0
        elif d.kind[e] == "unit":
            guards = any(x != e and self.loc[x] == zone and (d.search[x] or d.steal[x])
                         for x in self.theirs)
            v = 1.5 if guards else 1.0
        else:
            v = 0.8
        self._memo[key] = v
        return v

    def attack_odds(self, attacker: int, e: int) -> float:
        v = self.threat(e)
        if v >= 2 and self.has_in_hand("ambush"):
            return 1.0
        return win_probability(self.d.bullets[attacker], self.defence_bullets(e), self.sides)

    def attack_score(self, attacker: int, e: int) -> float:
        """Score of attacking enemy card e with ``attacker`` (0: not worth it)."""
        v = self.threat(e)
        p = self.attack_odds(attacker, e)
        if p > 0.5:
            if v >= 2:
                return 60 + 6 * v + p
            if v >= 1.5:
                return 50 + p
            return (38 if self.is_unit(e) else 36) + p
        if self.d.steal[e] and v >= 3 and p >= 0.25:
            return 56 + p  # a thief in our home with fragments there: try anyway
        return 0.0

    def best_attack(self, attacker: int, zone: str | None = None) -> float:
        zone = zone or self.loc[attacker]
        best = 0.0
        for e in self.theirs:
            if self.loc[e] == zone:
                best = max(best, self.attack_score(attacker, e))
        return best

    # ---- usefulness of units ----------------------------------------------
    def can_act_at(self, g: int, zone: str) -> bool:
        """Could unit g, fresh in ``zone``, do something useful right now?"""
        d = self.d
        if d.search[g] and zone == "periphery" and self.P > 0:
            return True
        if d.steal[g] and zone == self.ehome and self.enemy_frag > 0:
            return True
        if d.attack[g] and self.best_attack(g, zone) >= 56:
            return True
        if d.escort[g] and any(self.d.search[x] or self.d.steal[x] for x in self.mine_at(zone)) \
                and any(self.d.attack[e] for e in self.theirs_at(zone)):
            return True
        return False

    def refresh_value(self, g: int) -> float:
        """How useful refreshing my exhausted unit g is now."""
        d = self.d
        zone = self.loc[g]
        if d.steal[g] and zone == self.ehome and self.enemy_frag > 0:
            return 11.0
        if d.search[g] and zone == "periphery" and self.P > 0:
            return 10.0
        if d.attack[g] and self.best_attack(g, zone) >= 56:
            return 7.0
        if d.escort[g] and any(d.search[x] or d.steal[x] for x in self.mine_at(zone)) \
                and any(d.attack[e] for e in self.theirs_at(zone)):
            return 5.0
        if d.move[g] and self.move_plan(g)[0] >= 45:
            return 4.0
        return 1.0 + 0.1 * d.bullets[g]

    def best_refresh(self) -> float:
        vals = [self.refresh_value(g) for g in self.mine
                if self.exh[g] and self.is_unit(g)]
        return max(vals, default=0.0)

    def move_plan(self, g: int) -> tuple[float, str | None]:
        """(score, destination) of moving unit g (R14); score <= 0: stay."""
        key = ("move", g)
        if key in self._memo:
            return self._memo[key]
        zone = self.loc[g]
        dests = ["periphery"] if zone != "periphery" else [self.home, self.ehome]
        best: tuple[float, str | None] = (0.0, None)
        for dest in dests:
            s = self._move_score(g, zone, dest)
            if s > best[0]:
                best = (s, dest)
        if best[1] is not None and zone == self.home and self.own_cards_at_home() <= 1 \
                and not self.hand_has_table_card():
            # R23: never leave the home zone without a card of our own.
            best = (best[0] - (100 if self.last else 30), best[1])
        self._memo[key] = best
        return best

    def _move_score(self, g: int, zone: str, dest: str) -> float:
        d = self.d
        s = 0.0
        # R23: at the end, an enemy home with no enemy card loses to our Unit.
        if self.last and dest == self.ehome and not self.theirs_at(self.ehome):
            s = max(s, 60.0)
        if d.search[g]:
            if dest == "periphery":
                if self.P > 0:
                    s = max(s, 55.0)
                elif not self.last:
                    s = max(s, 35.0)
            return s
        if d.steal[g]:
            if dest == self.ehome:
                if self.enemy_frag > 0:
                    s = max(s, 50.0)
                elif not self.last:
                    s = max(s, 35.0)
            elif dest == "periphery" and zone == self.home:
                s = max(s, 45.0 if not self.last else (15.0 if self.enemy_frag > 0 else 0.0))
            elif dest == self.home:
                if d.attack[g] and self.best_attack(g, self.home) >= 56:
                    s = max(s, 40.0)
        if d.attack[g] or d.escort[g]:
            if d.escort[g] and dest == "periphery":
                searchers = [x for x in self.mine_at("periphery") if d.search[x]]
                escorts = [x for x in self.mine_at("periphery") if d.escort[x] and x != g]
                if searchers and len(escorts) < len(searchers):
                    s = max(s, 40.0)
            if d.attack[g]:
                a = self.best_attack(g, dest)
                if a >= 56:
                    s = max(s, 30.0 + (10.0 if dest == self.home else 0.0))
            if dest == "periphery" and zone == self.home and not self.last and s <= 0 \
                    and any(d.search[x] for x in self.mine):
                s = max(s, 20.0)
        return s

    def place_score(self, g: int) -> float:
        d = self.d
        k = d.kind[g]
        if k == "unit":
            if d.search[g]:
                s = 50.0
            elif d.steal[g]:
                s = 45.0 if not self.last else 30.0
            elif d.attack[g] or d.escort[g]:
                s = 44.0
            else:
                s = 42.0
        else:
            if d.command[g] and any(self.refresh_value(x) >= 10 for x in self.mine
                                    if self.exh[x] and self.is_unit(x)):
                s = 52.0
            elif d.command[g] or d.volunteers[g]:
                s = 40.0
            else:
                s = 38.0
        if self.own_cards_at_home() == 0:
            s += 20.0  # R23: keep a card of our own at home
            if any(self.is_unit(e) for e in self.theirs_at(self.home)):
                s = 95.0  # R23: an enemy Unit stands in our empty home zone
        return s


class HeuristicOracle(HeuristicBot):
    """The heuristic bot with its rules in Python, one method per kind of
    decision (its seeded tie-break stream is the bot's)."""

    name = "heuristic-oracle"

    # ---- the interface -------------------------------------------------------
    def analyse(self, state: Any) -> dict[str, Any]:
        core = _core_of(state)
        legal = core.legal_actions()
        if not legal:
            raise ValueError(f"no decision to take at a {core.phase} node")
        self._tied: list[int] | None = None
        if len(legal) == 1:
            action = legal[0]
        else:
            view = _View(core)
            handler = getattr(self, "_" + core.phase)
            action = handler(view, legal)
        assert action in legal, (core.phase, action, legal)
        # "best": every action the rules score best, in the order scored (the
        # seeded stream chose "action" among them); one unless exact ties.
        best = list(self._tied) if self._tied else [action]
        return {"action": action, "policy": {action: 1.0}, "value": None, "best": best,
                "tied": sorted(best)}

    def _pick(self, scored: list[tuple[float, int]]) -> int:
        """The best-scored action; exact ties broken by the seeded stream."""
        top = max(s for s, _ in scored)
        best = [a for s, a in scored if s == top]
        self._tied = best
        return best[0] if len(best) == 1 else self._rng.choice(best)

    # ---- the main step ------------------------------------------------------------
    def _actions(self, v: _View, legal: list[int]) -> int:
        d = v.d
        scored: list[tuple[float, int]] = []
        chainers: list[tuple[int, int]] = []
        useful = 0
        for a in legal:
            name, i = _DECODE[a]
            g = v.base + i
            if name == "PASS":
                s = 0.0
            elif name == "STEAL":
                s = 100.0
            elif name == "SEARCH":
                s = 90.0
            elif name == "PLACE":
                s = v.place_score(g)
            elif name == "MOVE":
                s = v.move_plan(g)[0]
            elif name == "ATTACK":
                s = v.best_attack(g)
            elif name == "COMMAND":
                r = v.best_refresh()
                s = 75.0 if r >= 10 else 50.0 if r >= 7 else 30.0 if r >= 4 else 0.0
            elif name == "VOLUNTEERS":
                chainers.append((a, 0))
                continue
            elif name == "PLAY":
                eff = d.effect[g]
                if eff == "motorized_column":
                    chainers.append((a, 1))
                    continue
                s = self._event_score(v, eff)
            else:
                s = 0.0
            if s <= 0 and name != "PASS":
                s = -1.0  # nothing gained: passing is better
            scored.append((s, a))
            if s >= 45:
                # R27: one action stands for all interchangeable copies.
                useful += 1 if name == "COMMAND" or name == "PLAY" else v.copies(g)
        if chainers:
            for a, kind in chainers:
                scored.append(((65.0 if kind == 0 else 62.0) if useful >= 2 else -1.0, a))
        return self._pick(scored)

    def _event_score(self, v: _View, eff: str | None) -> float:
        d = v.d
        if eff == "operation_wildhorn":
            forest = v.fr["forest"]
            thieves = [e for e in v.theirs if d.steal[e]]
            near = [e for e in thieves if v.loc[e] == "periphery"]
            if forest >= 1 and near:
                return 95.0 if any(not v.exh[e] for e in near) or forest >= 2 else 85.0
            if thieves and (forest >= 2 or (v.last and forest >= 1)):
                return 60.0
            return 0.0
        if eff == "hidden_fragments":
            theirs = any(d.search[e] and not v.exh[e] for e in v.theirs_at("periphery"))
            ours = any(d.search[g] and not v.exh[g] for g in v.mine_at("periphery"))
            return 80.0 if theirs and not ours and v.P > 0 else 0.0
        if eff == "high_morale":
            r = v.best_refresh()
            return 70.0 if r >= 10 else 45.0 if r >= 7 else 0.0
        return 0.0

    # ---- decisions inside an action ---------------------------------------------------
    def _zone(self, v: _View, legal: list[int]) -> int:
        g = v.f["pending"]["card"]
        dest = v.move_plan(g)[1]
        if dest is not None and _ZONE_ACTION[dest] in legal:
            return _ZONE_ACTION[dest]
        # No plan (only reached through a forced move): prefer the Periphery,
        # then home.
        scored = [(v._move_score(g, v.loc[g], z) + (0.5 if z == v.home else 0.0), _ZONE_ACTION[z])
                  for z in _ZONE_ACTION if _ZONE_ACTION[z] in legal]
        return self._pick(scored)

    def _motorcycle(self, v: _View, legal: list[int]) -> int:
        pend = v.f["pending"]
        if v.can_act_at(pend["card"], pend["zone"]):
            return self._first_play(v, legal)
        return _DECLINE

    def _target(self, v: _View, legal: list[int]) -> int:
        attacker = v.f["pending"]["card"]
        scored = []
        for a in legal:
            e = v.opp * CARDS_PER_SIDE + _DECODE[a][1]
            p = v.attack_odds(attacker, e)
            scored.append((v.threat(e) * 10 + p, a))
        return self._pick(scored)

    def _escort(self, v: _View, legal: list[int]) -> int:
        d = v.d
        target = v.f["pending"]["target"]
        if not v.valuable(target):
            return _DECLINE
        scored = []
        for a in legal:
            if a == _DECLINE:
                continue
            g = v.base + _DECODE[a][1]
            if d.bullets[g] > d.bullets[target]:
                scored.append((d.bullets[g], a))
        return self._pick(scored) if scored else _DECLINE

    def _ambush(self, v: _View, legal: list[int]) -> int:
        d = v.d
        pend = v.f["pending"]
        e = pend["defender"]
        p = win_probability(d.bullets[pend["card"]], d.bullets[e], v.sides)
        if d.search[e] or d.steal[e] or (v.is_unit(e) and d.bullets[e] >= 2) or p < 0.5:
            return self._first_play(v, legal)
        return _DECLINE

    def _witnesses(self, v: _View, legal: list[int]) -> int:
        card = v.f["pending"]["card"]
        if v.d.search[card] >= 4:
            return self._first_play(v, legal)
        return _DECLINE

    def _nurses(self, v: _View, legal: list[int]) -> int:
        d = v.d
        g = v.f["pending"]["defender"]
        if d.bullets[g] >= 2 or d.search[g] or d.steal[g]:
            return self._first_play(v, legal)
        return _DECLINE

    def _refresh(self, v: _View, legal: list[int]) -> int:
        scored = []
        for a in legal:
            g = v.base + _DECODE[a][1]
            scored.append((v.refresh_value(g), a))
        return self._pick(scored)

    def _number(self, v: _View, legal: list[int]) -> int:
        return max(legal)  # hide 2 when possible (R20)

    def _redraw(self, v: _View, legal: list[int]) -> int:
        drawn = v.f["drawn"]
        units = [g for g in v.hand if drawn[g] and v.d.kind[g] == "unit"]
        if not units and not v.last and _REDRAW in legal:
            return _REDRAW
        return _DECLINE

    def _first_play(self, v: _View, legal: list[int]) -> int:
        plays = [a for a in legal if a != _DECLINE]
        return plays[0] if plays else _DECLINE

    # ---- the modifier window (R18) -------------------------------------------------
    def _modifiers(self, v: _View, legal: list[int]) -> int:
        d = v.d
        pend = v.f["pending"]
        kind = pend["kind"]
        actor = pend["actor"]
        card = pend["card"]
        dice = pend["dice"]
        m0, m1 = pend["modifiers"]
        defender = pend["defender"]

        def succeeds(a0: int, a1: int) -> bool:
            if kind == "attack":
                return (dice[0] + d.bullets[card] + a0) > (dice[1] + d.bullets[defender] + a1)
            need = d.search[card] if kind == "search" else d.steal[card]
            return dice[0] + a0 >= need

        acting = v.me == actor
        want = acting  # the actor wants success, the other side failure
        if succeeds(m0, m1) == want:
            return _DECLINE
        own = 0 if acting else 1  # index of my own roll in the modifiers
        # Options: (cost, delta to m0, delta to m1, action).
        options = []
        for a in legal:
            name, i = _DECODE[a]
            if name == "DECLINE":
                continue
            g = v.base + i
            delta = [0, 0]
            if name == "ASSIST":
                delta[own] = 1
                # Spend the card whose own ability matters least.
                cost = 1.0 + (0.2 if d.command[g] else 0.0) + (0.5 if d.kind[g] == "unit" else 0.0)
            elif d.effect[g] == "good_luck":
                delta[own] = 2
                cost = 2.0 if acting else 3.0
            elif d.effect[g] == "bad_luck":
                delta[1 - own] = -2
                cost = 3.0 if acting else 2.0
            else:
                continue
            options.append((cost, delta[0], delta[1], a))
        if not options:
            return _DECLINE
        enough = [o for o in options if succeeds(m0 + o[1], m1 + o[2]) == want]
        if enough:
            return min(enough, key=lambda o: (o[0], o[3]))[3]
        # No single modifier suffices: spend several only when much is at stake.
        involved = defender if kind == "attack" else card
        high = kind == "steal" or (
            kind == "attack" and bool(d.search[involved] or d.steal[involved]))
        if not high:
            return _DECLINE
        t0, t1 = m0, m1
        for g in v.mine:
            if d.assistance[g] and not v.exh[g]:
                if own == 0:
                    t0 += 1
                else:
                    t1 += 1
        for eff in v.hand_effects:
            if eff == "good_luck":
                if own == 0:
                    t0 += 2
                else:
                    t1 += 2
            elif eff == "bad_luck" and (kind == "attack" or not acting):
                if own == 0:
                    t1 -= 2
                else:
                    t0 -= 2
        if succeeds(t0, t1) != want:
            return _DECLINE
        # Biggest step first.
        return max(options, key=lambda o: (abs(o[1]) + abs(o[2]), -o[0], -o[3]))[3]


def play(bots, seed: int, config, results: list | None = None) -> tuple[list[int], int]:
    """One game on the core of ``config`` between ``bots`` (one a seat),
    chance drawn from ``random.Random(seed)``: the bots' moves and the
    winner.  ``results`` (a list) gets every ``analyse`` result, in order."""
    rng = random.Random(seed)
    core = Core(config)
    moves = []
    while not core.is_terminal():
        if core.is_chance():
            outs = core.chance_outcomes()
            a = rng.choices([o for o, _ in outs], [p for _, p in outs])[0]
        else:
            r = bots[core.current_player()].analyse(core)
            if results is not None:
                results.append(r)
            a = r["action"]
            moves.append(a)
        core.apply(a)
    return moves, core.winner

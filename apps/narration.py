"""The game log in words: one narrator for every interface (terminal, browser).

A :class:`Narrator` turns the engine's progress into :class:`Entry` objects
for one viewer::

    narrator = Narrator(config, viewer=0)          # what the Polish player may know
    entries = narrator.start(core)                 # "Turn 1 of 4 begins."
    before = core.copy(); core.apply(action)
    entries += narrator.step(before, action, core)
    [e.to_json() for e in entries]                 # JSON-ready dicts

``step`` replays ``action`` and the automatic moves that followed it (R29,
R30: the single-option nodes ``Core.apply`` skips) one raw transition at a
time, and narrates each one by comparing the position before and after it:
dice with their modifiers, totals and the number needed, success or
failure, cards placed, moved, destroyed, escorted or sent home by Nurses,
fragments found, stolen, hidden and returned, the actions left in a chain
(Volunteers, Motorized Column), the end of every turn with the score, and
the end of the game.  ``after`` may come from ``Core.apply`` or from
``Core.apply_raw``.

Nothing the viewer may not know is narrated (R25, R26, R29): the
opponent's draws and the cards sent back in a redraw are not named, the
Polish redraw decision is told to the German player only once both have
decided (R5), and a declined Immediate card or ability is told to no one
but the player who took it.  A pass of priority in a modifier window is
public (R29): the other side and a spectator are told of every one, forced
or chosen, in the same words; the player who passed, of those it chose.
``viewer=-1`` narrates only what is public (a spectator, a review).  No
engine name reaches the text: kinds of action are named by
:data:`solver.vocabulary.KIND_TITLES`.

Helpers for interfaces: :func:`pending_text` (what is under way, with the
dice, the totals and the number needed), :func:`option_notes` (which legal
actions stand for several identical cards, R27) and :func:`condense` (one
line for a run of draws).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Iterable, Sequence

from solver import CARDS_PER_SIDE, Core, CoreConfig, decode_action
from solver.errors import IllegalActionError
from solver.vocabulary import (HOMES, KIND_TITLES, SEARCH_ZONE, SIDE_TITLES, SIDES, ZONE_PLACES,
                               ZONE_TITLES, ZONES)

__all__ = ["Kind", "Entry", "Narrator", "pending_text", "option_notes", "condense",
           "in_transit", "SIDE_NAMES", "ZONE_TITLES"]

SIDE_NAMES = SIDE_TITLES
"""The sides as the narration names them by default (:data:`solver.vocabulary.SIDE_TITLES`)."""

PUBLIC = frozenset((0, 1, -1))


class Kind(str, Enum):
    """What an entry tells (its ``value`` is the JSON string)."""

    TURN = "turn"            # a turn begins or ends (with the score)
    DRAW = "draw"            # a card drawn (named only for its owner), cards sent back
    REDRAW = "redraw"        # the redraw decisions, once revealed
    ROCKET = "rocket"        # a Rocket card revealed, fragments into the Periphery
    DECISION = "decision"    # a player's choice: an action, a target, a reaction...
    ROLL = "roll"            # a die, what it is for and the totals so far
    OUTCOME = "outcome"      # success or failure of an attack, search, spy, with totals
    CARD = "card"            # a card destroyed, sent home, refreshed
    FRAGMENTS = "fragments"  # fragments moved (found, stolen, hidden, returned)
    CHAIN = "chain"          # actions left in a chain, a pending refresh
    GAME_OVER = "game_over"  # the winner and why


@dataclass
class Entry:
    """One narrated event.  ``who`` is "polish", "german" or "game" (chance
    and the rules); ``details`` holds plain JSON values (card numbers such as
    "PL04", zone names, dice, totals)."""

    who: str
    kind: Kind
    text: str
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"who": self.who, "kind": self.kind.value, "text": self.text,
                "details": dict(self.details)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Entry":
        """The inverse of ``to_json``; entries saved without a kind read as DECISION
        for a side and TURN for the game."""
        who = data["who"]
        kind = data.get("kind") or ("turn" if who not in SIDES else "decision")
        return cls(who, Kind(kind), data["text"], dict(data.get("details") or {}))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


class Narrator:
    """Narration of one game for ``viewer`` (0 Polish, 1 German, -1 public).

    ``names`` are the two sides as the text names them; the viewer's own
    side is "you".  The narrator keeps no state between calls: ``step``
    depends only on its arguments, so it can narrate any two positions of a
    saved game.
    """

    def __init__(self, config: CoreConfig, viewer: int, names: Sequence[str] = SIDE_NAMES):
        if viewer not in (0, 1, -1):
            raise ValueError(f"viewer must be 0, 1 or -1, got {viewer!r}")
        self.config = config
        self.viewer = viewer
        self.names = tuple(names)
        self.cards = {c.global_index: c for c in config.card_set.cards}
        self._keys = {g: config.card_set.class_key(c) for g, c in self.cards.items()}

    # ---- the public API -------------------------------------------------------
    def start(self, core: Core) -> list[Entry]:
        """The opening entry of a game (turn 1 begins)."""
        return [Entry("game", Kind.TURN,
                      f"Turn {core.turn} of {self.config.turns} begins: each player "
                      f"draws {self.config.draw_size} cards.", {"turn": core.turn})]

    def step(self, before: Core, action: int, after: Core) -> list[Entry]:
        """The entries for ``action`` applied at ``before`` (a decision or a
        chance outcome), followed by the single-option moves that lead to
        ``after``.  IllegalActionError if ``after`` is not reached that way."""
        state = before.copy()
        out: list[tuple[frozenset, Entry]] = []
        first = True
        while True:
            nxt = state.copy()
            nxt.apply_raw(action)
            out.extend(self._transition(state, action, nxt, first))
            state = nxt
            if state == after:
                break
            if state.is_terminal():
                raise IllegalActionError("narration: the position given as 'after' does not "
                                         "follow from 'before' and the action")
            options = ([a for a, _ in state.chance_outcomes()] if state.is_chance()
                       else state.legal_actions())
            if len(options) != 1:
                raise IllegalActionError("narration: the position given as 'after' does not "
                                         "follow from 'before' and the action")
            action, first = options[0], False
        return [e for vis, e in out if self.viewer in vis]

    # ---- words ------------------------------------------------------------------
    def _name(self, g: int) -> str:
        if g not in self.cards:
            raise IndexError(f"no card {g}")
        return self.config.card_name(g)

    def _num(self, g: int) -> str:
        return self.cards[g].number

    def _bullets(self, g: int) -> int:
        return self.cards[g].type.bullets

    def _needed(self, g: int, kind: str) -> int:
        return roll_needed(self.cards[g], kind)

    def _subj(self, side: int) -> str:
        return "You" if side == self.viewer else self.names[side]

    def _verb(self, side: int, base: str, third: str | None = None) -> str:
        """'You place' / 'German places'."""
        return f"{self._subj(side)} {base if side == self.viewer else (third or base + 's')}"

    def _your(self, side: int) -> str:
        return "your" if side == self.viewer else f"the {self.names[side]}"

    def _roll_words(self, die: int, bullets: int | None, mod: int) -> str:
        text = f"die {die}"
        if bullets:
            text += f" + {_plural(bullets, 'bullet')}"
        if mod:
            text += f" {'+' if mod > 0 else '-'} {abs(mod)}"
        return text

    def _totals(self, pend: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """'Polish 6 (die 4 + 2 bullets) against German 4 (die 2 + 2 bullets)'
        for the dice rolled so far, and the matching details."""
        dice, mods = pend["dice"], pend["modifiers"]
        actor, kind = pend["actor"], pend["kind"]
        if kind == "attack":
            a, d = pend["card"], pend["defender"]
            att = dice[0] + self._bullets(a) + mods[0]
            words = f"{self.names[actor]} {att} ({self._roll_words(dice[0], self._bullets(a), mods[0])})"
            details: dict[str, Any] = {"attack_total": att, "dice": list(dice),
                                       "modifiers": list(mods)}
            if len(dice) > 1:
                dfn = dice[1] + self._bullets(d) + mods[1]
                words += (f" against {self.names[1 - actor]} {dfn} "
                          f"({self._roll_words(dice[1], self._bullets(d), mods[1])})")
                details["defence_total"] = dfn
            return words, details
        need = self._needed(pend["card"], kind)
        total = dice[0] + mods[0]
        # the die named with the side that rolled it (the searcher's or spy's)
        words = (f"{self.names[actor]} total {total} ({self._roll_words(dice[0], 0, mods[0])})"
                 if mods[0] else f"{self.names[actor]} die {total}")
        return words + f", needs {need}", {"total": total, "needed": need, "dice": list(dice),
                                            "modifiers": list(mods)}

    def _standing(self, pend: dict[str, Any]) -> bool:
        """Would the pending roll succeed as it stands?"""
        dice, mods = pend["dice"], pend["modifiers"]
        if pend["kind"] == "attack":
            return (dice[0] + self._bullets(pend["card"]) + mods[0]
                    > dice[1] + self._bullets(pend["defender"]) + mods[1])
        return dice[0] + mods[0] >= self._needed(pend["card"], pend["kind"])

    # ---- one raw transition --------------------------------------------------
    def _transition(self, s0: Core, a: int, s1: Core, first: bool):
        """(visibility, Entry) pairs for the raw step ``a`` from s0 to s1."""
        out: list[tuple[frozenset, Entry]] = []

        def emit(vis: Iterable[int], who: str, kind: Kind, text: str, **details: Any) -> None:
            out.append((frozenset(vis), Entry(who, kind, text, details)))

        if s0.is_chance():
            self._chance(s0, a, s1, emit)
        else:
            self._decision(s0, a, s1, first, emit)
        self._consequences(s0, s1, emit)
        return out

    def _chance(self, s0: Core, a: int, s1: Core, emit) -> None:
        phase = s0.phase
        if phase == "draw":
            info = s0.draw_info()
            side = info["side"]
            g = side * CARDS_PER_SIDE + a
            again = " (redraw)" if info["redeal"] else ""
            emit({side}, SIDES[side], Kind.DRAW, f"{self._verb(side, 'draw')} {self._name(g)}{again}.",
                 card=self._num(g), side=SIDES[side], redraw=info["redeal"])
            emit(PUBLIC - {side}, SIDES[side], Kind.DRAW,
                 f"{self._verb(side, 'draw')} a card{again}.", side=SIDES[side], redraw=info["redeal"])
        elif phase == "rocket":
            value = self.config.rockets[a]
            f0, f1 = s0.fragments, s1.fragments
            moved = f1["periphery"] - f0["periphery"]
            emit(PUBLIC, "game", Kind.ROCKET,
                 f"Rocket card revealed: {value}. {_plural(moved, 'fragment')} "
                 f"{'lands' if moved == 1 else 'land'} in the Periphery (now {f1['periphery']} "
                 f"there, {f1['pool']} left in the pool).",
                 rocket=value, moved=moved, periphery=f1["periphery"], pool=f1["pool"])
        else:  # a die
            pend = s0.pending
            actor, kind, card = pend["actor"], pend["kind"], pend["card"]
            die = a + 1
            p1 = dict(pend, dice=list(pend["dice"]) + [die])
            if kind == "attack" and len(pend["dice"]) == 0:
                emit(PUBLIC, "game", Kind.ROLL,
                     f"Attack die for {self._name(card)} ({self.names[actor]}): {die}.",
                     die=die, roll="attack", card=self._num(card))
                return
            if kind == "attack":
                d = pend["defender"]
                words, details = self._totals(p1)
                verdict = "the attack succeeds" if self._standing(p1) else "the attack fails"
                emit(PUBLIC, "game", Kind.ROLL,
                     f"Defence die for {self._name(d)} ({self.names[1 - actor]}): {die}. "
                     f"{words}: {verdict} unless modified.",
                     die=die, roll="defence", card=self._num(d), **details)
                return
            what = "Search" if kind == "search" else ("Spy" if actor == 0 else "Sturmwind")
            words, details = self._totals(p1)
            verdict = "succeeds" if self._standing(p1) else "fails"
            emit(PUBLIC, "game", Kind.ROLL,
                 f"{what} die for {self._name(card)} ({self.names[actor]}): {die}, "
                 f"needs {details['needed']}: "
                 f"{verdict} unless modified.",
                 die=die, roll=kind, card=self._num(card), **details)

    def _decision(self, s0: Core, a: int, s1: Core, first: bool, emit) -> None:
        phase = s0.phase
        p = s0.current_player()
        who = SIDES[p]
        me = {p}
        pend = s0.pending
        name, arg = decode_action(a)
        forced = len(s0.legal_actions()) == 1

        def private(text: str, **details: Any) -> None:
            # R29: a decline or a pass of priority is told only to its player,
            # and only when it was a decision the interface showed (``first``).
            if first:
                emit(me, who, Kind.DECISION, text, **details)

        if phase == "redraw":
            redraw = a != 0 and name == "REDRAW"
            text = (f"{self._verb(p, 'redraw')} the {_plural(s0.draw_info()['drawn'][p], 'card')} "
                    f"drawn this turn." if redraw else
                    f"{self._verb(p, 'keep')} {'your' if p == self.viewer else 'its'} hand.")
            if p == 0:  # R5: secret until the German player has decided
                if redraw or not forced:
                    emit(me, who, Kind.DECISION, text, redraw=redraw)
                if not forced:
                    emit(PUBLIC - me, who, Kind.DECISION,
                         f"{self.names[0]} decides in secret whether to redraw.")
                return
            if redraw or not forced:
                emit(PUBLIC, who, Kind.DECISION, text, redraw=redraw)
            polish = bool(s0.draw_info()["choice"][0])
            if not s0.redraw_used[0] or polish:
                emit(PUBLIC - {0}, SIDES[0], Kind.REDRAW,
                     f"Revealed: {self.names[0]} "
                     + (f"redraws the {_plural(s0.draw_info()['drawn'][0], 'card')} drawn this turn."
                        if polish else "keeps its hand."), redraw=polish)
            return
        if phase == "actions":
            self._main(s0, a, s1, p, forced, emit)
            return
        if phase == "zone":
            g = pend["card"]
            dest = ZONES[arg]
            emit(PUBLIC, who, Kind.DECISION,
                 f"{self._verb(p, 'move')} {self._name(g)} from "
                 f"{ZONE_TITLES[s0.location(g)[0]]} to {ZONE_TITLES[dest]}.",
                 card=self._num(g), source=s0.location(g)[0], zone=dest)
            return
        if phase == "motorcycle":
            g = pend["card"]
            if name == "DECLINE":
                private(f"{self._verb(p, 'decline')} Motorcycle.")
            else:
                h = p * CARDS_PER_SIDE + arg
                emit(PUBLIC, who, Kind.DECISION,
                     f"{self._verb(p, 'play')} {self._name(h)}: {self._name(g)} stays fresh.",
                     card=self._num(h), unit=self._num(g))
            return
        if phase == "target":
            t = (1 - p) * CARDS_PER_SIDE + arg
            note = self._same_as(s0, t)
            emit(PUBLIC, who, Kind.DECISION,
                 f"{self._verb(p, 'target')} {self._name(t)} "
                 f"({_plural(self._bullets(t), 'bullet')})"
                 + (f"; {', '.join(note)} {'is' if len(note) == 1 else 'are'} identical "
                    f"(R27)" if note else "") + ".",
                 target=self._num(t), attacker=self._num(pend["card"]))
            return
        if phase == "escort":
            if name == "DECLINE":
                private(f"{self._verb(p, 'decline')} Escort.")
            else:
                g = p * CARDS_PER_SIDE + arg
                emit(PUBLIC, who, Kind.DECISION,
                     f"{self._verb(p, 'escort')} with {self._name(g)} "
                     f"({_plural(self._bullets(g), 'bullet')}): it defends instead of "
                     f"{self._name(pend['target'])} and is exhausted.",
                     card=self._num(g), target=self._num(pend["target"]))
            return
        if phase in ("ambush", "witnesses", "nurses"):
            label = {"ambush": "Ambush!", "witnesses": "Witnesses", "nurses": "Nurses"}[phase]
            if name == "DECLINE":
                private(f"{self._verb(p, 'decline')} {label}.")
                return
            h = p * CARDS_PER_SIDE + arg
            if phase == "ambush":
                effect = "the attack succeeds without dice"
            elif phase == "witnesses":
                effect = "the search succeeds without a die"
            else:
                effect = f"{self._name(pend['defender'])} is saved"

            emit(PUBLIC, who, Kind.DECISION, f"{self._verb(p, 'play')} {self._name(h)}: {effect}.",
                 card=self._num(h))
            return
        if phase == "modifiers":
            if name == "DECLINE":
                # R29: a pass of priority is public, and looks the same whether the
                # player could have played something or not: the other side and a
                # spectator are told of every one; the player, of those it chose
                text = f"{self._verb(p, 'pass', 'passes')} priority."
                if first:
                    emit(me, who, Kind.DECISION, text, action="pass priority")
                emit(PUBLIC - me, who, Kind.DECISION, f"{self.names[p]} passes priority.",
                     action="pass priority")
                return
            k = 0 if p == pend["actor"] else 1
            p1 = s1.pending or pend
            if name == "PLAY":
                h = p * CARDS_PER_SIDE + arg
                if self.cards[h].type.effect == "good_luck":
                    effect = f"+2 to {self._your(p)} roll"
                else:
                    effect = f"-2 to {self._your(1 - p)} roll"
                words = f"{self._verb(p, 'play')} {self._name(h)}: {effect}"
                card = h
            else:
                h = p * CARDS_PER_SIDE + arg
                words = (f"{self._verb(p, 'use')} the Assistance of {self._name(h)} "
                         f"(now exhausted): +1 to {self._your(p)} roll")
                card = h
            totals, details = self._totals(p1)
            emit(PUBLIC, who, Kind.DECISION, f"{words}. Now {totals}.",
                 card=self._num(card), roll=("attack" if k == 0 else "defence"), **details)
            return
        if phase == "refresh":
            g = p * CARDS_PER_SIDE + arg
            why = {"command": f"Command of {self._name(pend['card'])}" if pend["card"] >= 0
                   else "Command",
                   "motorized_refresh": "Motorized Column"
                   }.get(pend["kind"], KIND_TITLES[pend["kind"]])
            emit(PUBLIC, who, Kind.CARD, f"{self._verb(p, 'refresh', 'refreshes')} "
                 f"{self._name(g)} ({why}).", card=self._num(g), cause=pend["kind"])
            return
        if phase == "number":
            n = arg + 1
            f1 = s1.fragments
            emit(PUBLIC, who, Kind.FRAGMENTS,
                 f"{self._verb(p, 'hide')} {_plural(n, 'fragment')} on Hidden Fragments "
                 f"(Periphery now {f1['periphery']}); they return at the end of the turn.",
                 hidden=n, periphery=f1["periphery"])
            return
        emit(PUBLIC, who, Kind.DECISION, f"{self._subj(p)}: {s0.action_string(p, a)}.")

    def _main(self, s0: Core, a: int, s1: Core, p: int, forced: bool, emit) -> None:
        who = SIDES[p]
        name, arg = decode_action(a)
        g = p * CARDS_PER_SIDE + arg
        if name == "PASS":
            left = s0.actions_left
            text = f"{self._verb(p, 'pass', 'passes')}"
            if left > 1:
                text += f" ({_plural(left, 'action')} of the chain left unused)"
            if forced:  # only passing was legal: that says what the hand holds
                emit({p}, who, Kind.DECISION, text + " (nothing else is legal).", action="pass")
                emit(PUBLIC - {p}, who, Kind.DECISION, text + ".", action="pass")
            else:
                emit(PUBLIC, who, Kind.DECISION, text + ".", action="pass")
            return
        if name == "PLACE":
            emit(PUBLIC, who, Kind.DECISION,
                 f"{self._verb(p, 'place')} {self._name(g)} in {ZONE_TITLES[HOMES[p]]}.",
                 action="place", card=self._num(g), zone=HOMES[p])
            return
        if name == "PLAY":
            effect = self.cards[g].type.effect
            f0, f1 = s0.fragments, s1.fragments
            text = f"{self._verb(p, 'play')} {self._name(g)}"
            if effect == "operation_wildhorn":
                n = f1["wildhorn"] - f0["wildhorn"]
                text += (f": {_plural(n, 'fragment')} {'moves' if n == 1 else 'move'} from the "
                         f"Forest onto it, safe from Sturmwind")
            elif effect == "high_morale":
                text += ": one exhausted Unit is refreshed"
            elif effect == "motorized_column":
                text += (f": 3 more actions ({s1.actions_left} left), and after three of them "
                         f"(or when the chain ends) one exhausted Unit is refreshed")
            elif effect == "hidden_fragments":
                text += ": 1 or 2 fragments of the Periphery go onto it until the end of the turn"
            emit(PUBLIC, who, Kind.DECISION, text + ".", action="play", card=self._num(g))
            return
        zone = s0.location(g)[0]
        where = ZONE_TITLES.get(zone, zone)
        if name == "MOVE":
            text = f"{self._verb(p, 'activate')} {self._name(g)} in {where} for Movement"
        elif name == "ATTACK":
            text = (f"{self._verb(p, 'attack')} with {self._name(g)} "
                    f"({_plural(self._bullets(g), 'bullet')}) in {where}")
        elif name == "SEARCH":
            text = (f"{self._verb(p, 'search', 'searches')} the Periphery with {self._name(g)} "
                    f"(needs {self._needed(g, 'search')} or more)")
        elif name == "STEAL":
            what = "Spy" if p == 0 else "Sturmwind"
            text = (f"{self._verb(p, 'use')} {what} with {self._name(g)} in {where} "
                    f"(needs {self._needed(g, 'steal')} or more)")
        elif name == "COMMAND":
            text = f"{self._verb(p, 'activate')} {self._name(g)} for Command"
        elif name == "VOLUNTEERS":
            text = (f"{self._verb(p, 'activate')} {self._name(g)}: Volunteers, 2 more actions")
        else:
            text = f"{self._subj(p)}: {s0.action_string(p, a)}"
        emit(PUBLIC, who, Kind.DECISION, text + ".", action=name.lower(), card=self._num(g),
             zone=zone)

    def _same_as(self, core: Core, g: int) -> list[str]:
        """Numbers of the cards interchangeable with g (R27)."""
        return [self._num(h) for h in _twins(core, self._keys, g)]

    # ---- what the step changed -------------------------------------------------
    def _consequences(self, s0: Core, s1: Core, emit) -> None:
        pend = s0.pending
        # the end of an attack, search or spy: compare the totals (R15f, R16, R17)
        if s0.phase == "modifiers" and s1.phase != "modifiers" and pend:
            kind = pend["kind"]
            ok = self._standing(pend)
            words, details = self._totals(pend)
            if kind == "attack":
                verb = "beats" if ok else "does not beat"
                words = words.replace(" against ", f" {verb} ")
                text = (f"The attack succeeds: {words}." if ok else
                        f"The attack fails: {words}; nothing happens.")
            else:
                what = {"search": "search", "steal": "spy" if pend["actor"] == 0
                        else "Sturmwind"}[kind]
                text = f"The {what} {'succeeds' if ok else 'fails'}: {words}."
            # who rolled each die, so that a table labels the dice without the rolls' entries
            # (which may come before the viewer's last decision)
            rollers = {"actor": SIDES[pend["actor"]], "card": self._num(pend["card"])}
            if kind == "attack" and pend["defender"] >= 0:
                rollers["defender"] = self._num(pend["defender"])
            emit(PUBLIC, "game", Kind.OUTCOME, text, action=kind, success=ok, **details, **rollers)
        # cards: destroyed, sent home by Nurses, sent back in a redraw
        back: dict[int, list[int]] = {0: [], 1: []}
        for g in self.cards:
            l0, x0 = s0.location(g)
            l1, x1 = s1.location(g)
            if l0 in ZONES and l1 == "gone":
                emit(PUBLIC, "game", Kind.CARD, f"{self._name(g)} is destroyed.",
                     card=self._num(g), zone=l0, fate="destroyed")
            elif l0 in ZONES and l1 in ZONES and l0 != l1 and s0.phase == "nurses":
                emit(PUBLIC, "game", Kind.CARD,
                     f"{self._name(g)} is sent home to {ZONE_TITLES[l1]}, exhausted, "
                     f"instead of being destroyed.",
                     card=self._num(g), zone=l1, fate="sent home")
            elif l0 == "hand" and l1 == "deck":
                back[g // CARDS_PER_SIDE].append(g)
        for side, cards in back.items():
            if cards:
                emit({side}, SIDES[side], Kind.DRAW,
                     f"{self._verb(side, 'send')} back {', '.join(self._num(g) for g in cards)}; "
                     f"the deck is shuffled.", cards=[self._num(g) for g in cards])
                emit(PUBLIC - {side}, SIDES[side], Kind.DRAW,
                     f"{self._verb(side, 'send')} back {_plural(len(cards), 'card')}; "
                     f"the deck is shuffled.", count=len(cards))
        # fragments found or stolen by an attack-free success
        f0, f1 = s0.fragments, s1.fragments
        if pend and pend["kind"] in ("search", "steal") and s0.phase in ("modifiers", "witnesses"):
            actor = pend["actor"]
            home = HOMES[actor]
            src = SEARCH_ZONE if pend["kind"] == "search" else HOMES[1 - actor]
            if f1[home] > f0[home]:
                emit(PUBLIC, SIDES[actor], Kind.FRAGMENTS,
                     f"A fragment moves from {ZONE_TITLES[src]} to {ZONE_TITLES[home]} "
                     f"({ZONE_PLACES[src]} {f1[src]}, {ZONE_PLACES[home]} {f1[home]}).",
                     source=src, zone=home, count=1)
        # the chain goes on (Volunteers, Motorized Column: R10)
        if (not s1.is_terminal() and s1.phase == "actions" and s1.actor == s0.actor
                and s1.turn == s0.turn and s0.phase not in ("draw", "redraw", "rocket")
                and self._action_done(s0, s1)):
            p = s1.actor
            emit(PUBLIC, SIDES[p], Kind.CHAIN,
                 f"{self._subj(p)} {'have' if p == self.viewer else 'has'} "
                 f"{_plural(s1.actions_left, 'action')} left in a row.",
                 actions_left=s1.actions_left)
        # the end of the turn (R8) and of the game (R22, R23)
        if s1.turn != s0.turn or (s1.is_terminal() and not s0.is_terminal()):
            hidden = f0["hidden"] if s0.phase != "number" else f1["hidden"]
            text = f"End of turn {s0.turn}: both players passed; every card is refreshed"
            if hidden:
                text += (f"; {_plural(hidden, 'fragment')} {'returns' if hidden == 1 else 'return'}"
                         f" from Hidden Fragments to the Periphery")
            polish, german = s1.scores()
            text += f". Score: {self.names[0]} {polish}, {self.names[1]} {german}."
            emit(PUBLIC, "game", Kind.TURN, text, turn=s0.turn, returned=hidden,
                 score=dict(zip(SIDES, (polish, german))))
            if s1.is_terminal():
                self._game_over(s1, emit)
            else:
                emit(PUBLIC, "game", Kind.TURN,
                     f"Turn {s1.turn} of {self.config.turns} begins: each player draws "
                     f"{self.config.draw_size} cards.", turn=s1.turn)

    def _action_done(self, s0: Core, s1: Core) -> bool:
        """Did the step finish an action of the actor who still has actions?"""
        if s1.pending is not None:
            return False
        if s0.phase == "actions":
            return s0.pending is None  # an instant action (place, play, Volunteers)
        return s0.pending is not None

    def _game_over(self, core: Core, emit) -> None:
        polish, german = core.scores()
        winner = core.winner
        text = f"Game over: {self.names[winner]} wins, {polish} to {german}"
        scored = 0 if polish > german else 1
        if winner != scored:
            loser = 1 - winner
            text += (f": {ZONE_TITLES[HOMES[loser]]} holds no {self.names[loser]} card and "
                     f"a {self.names[winner]} Unit (R23)")
        elif polish == german:
            text += " (a tie goes to the German player, R22)"
        emit(PUBLIC, "game", Kind.GAME_OVER, text + ".", winner=SIDES[winner],
             score=dict(zip(SIDES, (polish, german))))


# ---- helpers for interfaces -----------------------------------------------------

def _twins(core: Core, keys: dict[int, Any], g: int) -> list[int]:
    """The cards interchangeable with g in ``core`` (R27): same owner, same
    data but the number, same place and side up; none while it takes part
    in the action under way."""
    pend = core.pending
    busy = {pend["card"], pend["target"], pend["defender"]} if pend else set()
    if g in busy:
        return []
    where = core.location(g)
    return [h for h in keys if h != g and h // CARDS_PER_SIDE == g // CARDS_PER_SIDE and keys[h] == keys[g]
            and h not in busy and core.location(h) == where]


def option_notes(core: Core) -> dict[int, list[str]]:
    """For each legal action of the player to move that names a card standing
    for identical others (R27: the engine offers one option for all of them),
    the numbers of those others, e.g. ``{263: ["DE07"]}``."""
    keys = {c.global_index: core.config.card_set.class_key(c) for c in core.config.card_set.cards}
    number = {c.global_index: c.number for c in core.config.card_set.cards}
    notes: dict[int, list[str]] = {}
    if core.is_chance() or core.is_terminal():
        return notes
    player = core.current_player()
    for a in core.legal_actions():
        name, arg = decode_action(a)
        if name in ("PASS", "DECLINE", "REDRAW", "ZONE", "NUMBER"):
            continue
        g = ((1 - player) if name == "SELECT_ENEMY" else player) * CARDS_PER_SIDE + arg
        twins = _twins(core, keys, g)
        if twins:
            notes[a] = [number[h] for h in twins]
    return notes


def in_transit(core: Core) -> tuple[int, str] | None:
    """The unit under way to another zone and that zone, while its movement
    waits on a window (the Motorcycle): the log has told the move ("German
    moves DE02 Soldiers from the Rocket Base to the Periphery"), so a table
    draws the unit where it goes; None when no unit is moving."""
    pend = core.pending
    if not pend or pend["kind"] != "movement" or pend["card"] < 0 or not pend["zone"]:
        return None
    if core.location(pend["card"])[0] == pend["zone"]:
        return None
    return pend["card"], pend["zone"]


def roll_needed(card: Any, kind: str) -> int:
    """The die a card's single-die action needs: its Search number for a
    search, its Spy (Polish) or Sturmwind (German) number for a steal (R16, R17)."""
    ab = card.type.abilities
    if kind == "search":
        return int(ab.get("search", 0))
    return int(ab.get("spy", ab.get("sturmwind", 0)))


def pending_figures(core: Core, names: Sequence[str] = SIDE_NAMES) -> dict[str, Any]:
    """The numbers of what is under way, for a page to draw beside
    :func:`pending_text`: ``needed`` (the die a search or spy needs), and
    once dice are rolled ``totals`` (the same words the text uses), the
    dice, modifiers and totals, and whether it succeeds as it stands.
    Empty when nothing with dice is under way."""
    pend = core.pending
    if not pend or pend["kind"] not in ("attack", "search", "steal") or pend["card"] < 0:
        return {}
    n = Narrator(core.config, -1, names)
    out: dict[str, Any] = {}
    if pend["kind"] != "attack":
        out["needed"] = n._needed(pend["card"], pend["kind"])
    if pend["dice"] and (pend["kind"] != "attack" or pend["defender"] >= 0):
        words, details = n._totals(pend)
        out.update(details, totals=words)
        if pend["kind"] != "attack" or len(pend["dice"]) == 2:
            out["succeeds_as_it_stands"] = n._standing(pend)
    return out


def pending_text(core: Core, names: Sequence[str] = SIDE_NAMES) -> str:
    """What is under way, in words, with the dice, modifiers, totals and the
    number needed ("" when nothing is)."""
    pend = core.pending
    if not pend:
        return ""
    n = Narrator(core.config, -1, names)
    actor, kind = pend["actor"], pend["kind"]
    card = pend["card"]
    who = names[actor]
    if kind == "attack":
        text = f"{who} attack by {n._name(card)} ({_plural(n._bullets(card), 'bullet')})"
        if pend["target"] >= 0:
            text += f" on {n._name(pend['target'])}"
            if pend["defender"] != pend["target"]:
                text += f", escorted by {n._name(pend['defender'])}"
            d = pend["defender"]
            text += f" ({_plural(n._bullets(d), 'bullet')})"
        if pend["dice"]:
            words, _ = n._totals(pend)
            text += f": {words}"
            if len(pend["dice"]) == 2:
                text += (": succeeds" if n._standing(pend) else ": fails") + " as it stands"
        else:
            text += ": no dice rolled yet"
        return text
    if kind in ("search", "steal"):
        what = "search" if kind == "search" else ("spy" if actor == 0 else "Sturmwind")
        need = n._needed(card, kind)
        text = f"{who} {what} by {n._name(card)} (needs {need} or more)"
        if pend["dice"]:
            words, _ = n._totals(pend)
            text += f": {words.split(',')[0]}: " \
                    + ("succeeds" if n._standing(pend) else "fails") + " as it stands"
        else:
            text += ": no die rolled yet"
        return text
    if kind == "movement":
        text = f"{who} movement of {n._name(card)}"
        if pend["zone"]:
            text += f" to {ZONE_TITLES[pend['zone']]}"
        return text
    text = f"{who} {KIND_TITLES[kind]}"
    if card >= 0 and kind != "motorized_refresh":
        text += f" ({n._name(card)})"
    if kind == "hidden_fragments":
        text += ": how many fragments of the Periphery to hide"
    elif kind in ("command", "high_morale", "motorized_refresh"):
        text += ": which exhausted Unit to refresh"
    return text


def undone_text(entries: Sequence[dict[str, Any]], bot_decisions: int, human: str) -> str:
    """What an undo took back, in the same words in the terminal and on the
    page: the human's decision as the log told it and the bot's decisions
    after it (``entries``: the log entries taken back; ``human``: "polish"
    or "german")."""
    mine = next((e["text"] for e in entries if e["who"] == human), None)
    what = f'your decision "{mine}"' if mine else "your last decision"
    if bot_decisions:
        what += (f" and the bot's {bot_decisions} decision{'s' if bot_decisions != 1 else ''} "
                 f"after it")
    n = len(entries)
    return f"Undone: {what} ({n} log entr{'y' if n == 1 else 'ies'} taken back)."


def condense(entries: Iterable[Entry | dict[str, Any]]) -> list[str]:
    """The texts of ``entries`` with every run of draws by one side (and its
    redraw, if any) as one line: "You draw PL04 Scouts, PL07 Partisans." or
    "German draws 5 cards."  Accepts entries or their ``to_json`` dicts."""
    lines: list[str] = []
    run: list[dict[str, Any]] = []

    def flush() -> None:
        if not run:
            return
        if len(run) == 1:
            lines.append(run[0]["text"])
        else:
            first = run[0]["text"]
            subject = first.split(" draw")[0]
            verb = "draw" if subject == "You" else "draws"
            again = " (redraw)" if run[0].get("details", {}).get("redraw") else ""
            named = [e["text"].split(f" {verb} ", 1)[1].removesuffix(".")
                     .removesuffix(" (redraw)") for e in run]
            if all(n != "a card" for n in named):
                lines.append(f"{subject} {verb} {', '.join(named)}{again}.")
            else:
                lines.append(f"{subject} {verb} {len(run)} cards{again}.")
        run.clear()

    for e in entries:
        d = e.to_json() if isinstance(e, Entry) else e
        if d.get("kind") == Kind.DRAW.value and " draw" in d["text"] and "back" not in d["text"]:
            if run and (run[0]["who"] != d["who"]
                        or bool(run[0].get("details", {}).get("redraw"))
                        != bool(d.get("details", {}).get("redraw"))):
                flush()
            run.append(d)
            continue
        flush()
        lines.append(d["text"])
    flush()
    return lines

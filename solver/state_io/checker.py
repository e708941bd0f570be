"""The position checker: the rules-level checks of a state object (after
the schema), each naming the JSON path at fault, and the position the object
describes (:class:`PositionCheck`); :func:`check_position` applies the same
checks to a position from both players' views.  The list, for people who own
the game: ``docs/position-invariants.md``."""

from __future__ import annotations

import re
from typing import Any, NoReturn

from solver._core import Core
from solver.errors import ParameterError, WildhornError
from solver.errors import quote as _q
from solver.state_io.fileformat import (ACTOR_DECIDES, ADJACENT, CHANCE_STEPS, DECISION_STEPS,
                                        FRAGMENT_KEYS, HOME, KIND_ABILITY, KIND_EFFECT, SIDES,
                                        STEP_KINDS, STEPS, WHY_DECIDES, WINDOW_EFFECTS, ZONES,
                                        Problems)
from solver.state_io.params import deck_schedule
from solver.state_io.writer import core_of, to_json

__all__ = ["PositionCheck", "check_position", "engine_path"]

# Engine field names (Core.from_fields) -> JSON paths, for the safety net.
_FIELD_PATHS = {
    "turn": "$.turn", "rocket_order": "$.rockets", "fragments": "$.fragments",
    "actions_left": "$.actions.left", "passes": "$.actions.passes",
    "motorized": "$.actions.motorized_refresh.counters",
    "refresh_due": "$.actions.motorized_refresh.due", "redraw_used": "$.redraw_used",
    "redraw_choice": "$.redraw_choice", "drawn_count": "$.drawn_this_turn",
    "drawn": "$.drawn_this_turn", "player": "$.to_move", "actor": "$.actions.actor",
    "phase": "$.step", "exhausted": "$.table", "loc": "$",
}


def check_position(state: Any, source: str = "position") -> None:
    """Raises StateFormatError unless ``state`` (a WildhornState or Core, say
    one read back from a save) passes every check a state file gets, from
    the view of each player: the same invariants, so a corrupt position
    (the German hand empty in turn 2 with a full deck, an exhausted card at
    the redraw) is refused like a file.  Steps with no file form (the draw,
    the end of the game) are not checked.  The decision check of R29/R30 is
    not made, so that the raw single-option positions of ``play --ask-all``
    pass.  The message is ``<source> (<side> view): <JSON path>: ...``."""
    core = core_of(state)
    if core.phase not in STEPS:
        return
    for p in (0, 1):
        r = Problems(f"{source} ({SIDES[p]} view)")
        try:
            data = to_json(core, p)
        except ParameterError as err:
            r.fail("$", str(err))
        r.structure(data)
        PositionCheck(r, data, core.config).check()


class PositionCheck:
    """The rules-level checks of one state object (after the schema), and the
    position it describes.  Each method checks one part of the file and keeps
    what the later parts and the position need; the order matters only for
    which problem is reported first."""

    def __init__(self, r: Problems, data: dict, cfg) -> None:
        self.r = r
        self.data = data
        self.cfg = cfg
        self.cs = cfg.card_set
        self.present = cfg.present
        self.by_number = {c.number: c for c in self.cs.cards}
        self.p = SIDES.index(data["perspective"])
        self.o = 1 - self.p
        self.pname, self.oname = SIDES[self.p], SIDES[self.o]
        self.turn = data["turn"]
        self.step = data["step"]
        self.to_move = data["to_move"]
        self.where: dict[str, str] = {}  # card number -> JSON path where it is listed
        self.deck_after, self.drawn_now = deck_schedule(cfg, self.turn)

    def fail(self, path: str, message: str) -> NoReturn:
        self.r.fail(path, message)

    def position(self, seed: int) -> Core:
        self.check()
        return self.build(seed)

    def check(self) -> None:
        """Every rules-level check of the file (R29/R30 aside, see build)."""
        self.basics()
        self.rockets()
        self.cards()
        self.fragments()
        self.between_turns()
        self.hands()
        self.redraw()
        self.chain()
        self.events_fragments()
        self.engine_pending = None if self.pend is None else self.pending()

    # -- the parts of the file ------------------------------------------------

    def basics(self) -> None:
        cfg, step, to_move = self.cfg, self.step, self.to_move
        if self.turn > cfg.turns:
            self.fail("$.turn", f"expected 1..{cfg.turns} (this game has {cfg.turns} turns), "
                      f"got {self.turn}")
        if step in CHANCE_STEPS and to_move is not None:
            self.fail("$.to_move", f"expected null: step {_q(step)} is a chance event, nobody "
                      "decides")
        if step in DECISION_STEPS and to_move is None:
            self.fail("$.to_move", f'expected "polish" or "german": step {_q(step)} is a decision')

    def rockets(self) -> None:
        """R4, R6: one Rocket card per turn once the V-2 step is done."""
        rockets, turn, step = self.data["rockets"], self.turn, self.step
        need = turn - 1 if step in ("redraw", "rocket") else turn
        if len(rockets) != need:
            self.fail("$.rockets", f"expected {need} Rocket value{'s' * (need != 1)} in the "
                      f"{step} step of turn {turn} (one Rocket card is revealed at the V-2 step "
                      f"of each turn, R6), got {len(rockets)}")
        values = list(self.cfg.rockets)
        taken = [False] * len(values)
        self.order = []
        for i, v in enumerate(rockets):
            for k, w in enumerate(values):
                if not taken[k] and w == v:
                    taken[k] = True
                    self.order.append(k)
                    break
            else:
                self.fail(f"$.rockets[{i}]", f"no Rocket card showing {v} is left (the Rocket "
                          f"cards show {', '.join(map(str, values))}, each revealed once)")
        self.fired_values = rockets

    def card(self, path: str, number: str):
        """The card of this number, which must be in this game."""
        c = self.by_number.get(number)
        if c is None:
            ranges = " and ".join(
                f"{min(n)}..{max(n)}" for n in (
                    [c.number for c in self.cs.cards if c.side_id == s] for s in (0, 1)) if n)
            self.fail(path, f"unknown card number {_q(number)} (the card set has {ranges})")
        if not self.present[c.global_index]:
            self.fail(path, f"{_q(number)} is not in this game (its parameters leave it out)")
        return c

    def place(self, path: str, number: str):
        """A card listed in one of the places: it may be in no other."""
        c = self.card(path, number)
        if number in self.where:
            self.fail(path, f"{_q(number)} is already at {self.where[number]}: a card is in one "
                      "place only")
        self.where[number] = path
        return c

    def cards(self) -> None:
        """Hand, table, gone, events_in_play: each card once, where it can be."""
        data = self.data
        self.hand = []
        for i, number in enumerate(data["hand"]):
            c = self.place(f"$.hand[{i}]", number)
            if c.side_id != self.p:
                self.fail(f"$.hand[{i}]", f"{_title(c)} is a {SIDES[c.side_id]} card; the hand "
                          f"holds the {self.pname} player's own cards")
            self.hand.append(c)
        self.table = []
        for i, entry in enumerate(data["table"]):
            c = self.place(f"$.table[{i}].card", entry["card"])
            if c.type.kind not in ("unit", "support"):
                self.fail(f"$.table[{i}].card", f"{_title(c)} is an {c.type.kind} card: only Unit "
                          "and Support cards stand on the table (R9)")
            if c.type.kind == "support" and entry["zone"] != HOME[c.side_id]:
                self.fail(f"$.table[{i}].zone", f"expected {_q(HOME[c.side_id])}: {_title(c)} is a "
                          "Support card, which stands only in its home zone (R1), got "
                          f"{_q(entry['zone'])}")
            self.table.append((c, entry["zone"], entry["exhausted"]))
        self.gone = []
        for i, number in enumerate(data["gone"]):
            c = self.place(f"$.gone[{i}]", number)
            if c.type.effect == "operation_wildhorn":
                self.fail(f"$.gone[{i}]", f"{_title(c)} stays in play once played (R21): list it "
                          "in events_in_play")
            self.gone.append(c)
        self.events = []
        for i, number in enumerate(data.get("events_in_play", [])):
            c = self.place(f"$.events_in_play[{i}]", number)
            if c.type.effect not in ("operation_wildhorn", "hidden_fragments"):
                self.fail(f"$.events_in_play[{i}]", f"{_title(c)} does not stay in play: only "
                          "Operation Wildhorn III and Hidden Fragments lie beside the zones "
                          "(R20, R21)")
            self.events.append(c)
        self.table_of = {c.number: (zone, exhausted) for c, zone, exhausted in self.table}
        self.effects_in_play = {c.type.effect for c in self.events}

    def fragments(self) -> None:
        """R2: on the cards, exactly what was placed at the start and fired."""
        frag, cfg = self.data["fragments"], self.cfg
        self.on_cards = sum(frag.values())
        if self.on_cards > cfg.fragments:
            self.fail("$.fragments", f"{self.on_cards} fragments on the cards, but the game has "
                      f"only {cfg.fragments} (R2)")
        placed0 = sum(dict(cfg.key[8]).values())
        fired = min(cfg.fragments - placed0, sum(self.fired_values))
        if self.on_cards != placed0 + fired:
            began = f" and {placed0} began on the cards" if placed0 else ""
            self.fail("$.fragments", f"expected {placed0 + fired} fragments on the cards in all: "
                      f"the Rocket cards revealed fired {fired}{began}, and a fragment never goes "
                      f"back to the pool (R2, R6); got {self.on_cards}")
        if frag["hidden"] and "hidden_fragments" not in self.effects_in_play:
            self.fail("$.fragments.hidden", "expected 0: no Hidden Fragments card is in "
                      f"events_in_play (R20), got {frag['hidden']}")
        if frag["wildhorn"] and "operation_wildhorn" not in self.effects_in_play:
            self.fail("$.fragments.wildhorn", "expected 0: Operation Wildhorn III is not in "
                      f"events_in_play (R21), got {frag['wildhorn']}")

    def between_turns(self) -> None:
        """R8 and the setup: the redraw and V-2 steps come before any action of
        the turn, so the table is as the end of the last turn left it (every
        card fresh, Hidden Fragments gone with its fragments, R8), and in
        turn 1 exactly as the game began."""
        if self.step not in ("redraw", "rocket"):
            return
        when = f"in the {self.step} step, before any action of turn {self.turn}"
        for i, (c, zone, exhausted) in enumerate(self.table):
            if exhausted:
                self.fail(f"$.table[{i}].exhausted", f"expected false {when}: every card is "
                          "refreshed at the end of a turn (R8)")
        for i, c in enumerate(self.events):
            if c.type.effect == "hidden_fragments":
                self.fail(f"$.events_in_play[{i}]", f"{_title(c)} leaves play at the end of the "
                          f"turn it is played (R8), so it is not in play {when}")
        if self.turn != 1:
            return
        setup = dict(self.cfg.key[7])
        for i, (c, zone, _) in enumerate(self.table):
            if setup.get(c.number) != zone:
                began = setup.get(c.number) or ("hand" if c.start else "deck")
                self.fail(f"$.table[{i}]", f"{_title(c)} began in the {began}, and {when} "
                          "nothing has moved (the table is as the game set it up, R3)")
        shown = {c.number for c, _, _ in self.table}
        for number, zone in sorted(setup.items()):
            if zone in ZONES and number not in shown:
                self.fail("$.table", f"{number} began in the {zone}, and {when} nothing has "
                          "moved: list it on the table (R3)")
        for key in ("gone", "events_in_play"):
            if self.data.get(key):
                self.fail(f"$.{key}[0]", f"expected no card {when}: nothing has been played "
                          "or destroyed yet")
        start = dict(self.cfg.key[8])
        for key in FRAGMENT_KEYS:
            if self.data["fragments"][key] != start.get(key, 0):
                self.fail(f"$.fragments.{key}", f"expected {start.get(key, 0)} {when}: the "
                          "fragments are where the game placed them (the first Rocket card "
                          "comes at the V-2 step, R6)")

    def events_fragments(self) -> None:
        """R20, R21: the fragments the events in play hold."""
        frag = self.data["fragments"]
        wildhorn = [c for c in self.events if c.type.effect == "operation_wildhorn"]
        if wildhorn and not frag["wildhorn"]:
            self.fail("$.fragments.wildhorn", f"expected at least 1: {_title(wildhorn[0])} "
                      "needs a fragment on the Forest card (R13) and moved every one onto "
                      "itself, where none can be taken (R17, R21)")
        hidden = [c for c in self.events if c.type.effect == "hidden_fragments"]
        choosing = int(self.kind == "hidden_fragments" and self.step == "number")
        lo, hi = len(hidden) - choosing, 2 * (len(hidden) - choosing)
        if hidden and not lo <= frag["hidden"] <= hi:
            now = " (the one being played holds none yet)" if choosing else ""
            self.fail("$.fragments.hidden", f"expected {lo}..{hi}: each Hidden Fragments card "
                      f"in play holds the 1 or 2 fragments it moved until the end of the turn "
                      f"(R8, R20){now}, got {frag['hidden']}")

    def hands(self) -> None:
        """R3, R5, R26: the decks hold what the draws so far left in them."""
        sizes, turn, p, o = self.data["hand_sizes"], self.turn, self.p, self.o
        if sizes[self.pname] != len(self.hand):
            self.fail(f"$.hand_sizes.{self.pname}", f"expected {len(self.hand)}, the number of "
                      f"cards in $.hand, got {sizes[self.pname]}")
        side_cards = {s: [c for c in self.cs.cards if c.side_id == s and self.present[c.global_index]]
                      for s in (0, 1)}
        for s in (0, 1):
            shown = sum(1 for c in side_cards[s] if c.number in self.where
                        and not self.where[c.number].startswith("$.hand"))
            total, deck = len(side_cards[s]), self.deck_after[s]
            path = "$.hand" if s == p else f"$.hand_sizes.{SIDES[s]}"
            expected = total - shown - deck
            got = len(self.hand) if s == p else sizes[SIDES[s]]
            if expected < 0:
                self.fail(path, f"the {SIDES[s]} side shows {shown} cards on the table, gone or in "
                          f"play, but by turn {turn} only {total - deck} of its {total} cards can "
                          "have left its deck (R3, R5)")
            if got != expected:
                self.fail(path, f"expected {expected} card{'s' * (expected != 1)}: the {SIDES[s]} "
                          f"side has {total} cards, {shown} on the table, gone or in play and "
                          f"{deck} still in its deck after the draws of turn {turn} (R3, R5); "
                          f"got {got}")
        for c in side_cards[p]:
            if c.start and c.number not in self.where:
                self.fail("$.hand", f"{_title(c)} is a START card: it begins in hand and never goes "
                          "to the deck (R3), so it is in the hand, on the table or gone")
        self.unseen = [c for c in side_cards[o] if c.number not in self.where]
        unseen_start = sum(1 for c in self.unseen if c.start)
        if unseen_start > sizes[self.oname]:
            self.fail(f"$.hand_sizes.{self.oname}", f"{unseen_start} {self.oname} START cards are "
                      "not on the table or gone, so they are still in hand (R26), but the hand "
                      f"holds only {sizes[self.oname]}")
        if self.step == "redraw" and sizes[self.oname] - unseen_start < self.drawn_now[o]:
            self.fail(f"$.hand_sizes.{self.oname}", f"the {self.oname} hand holds "
                      f"{sizes[self.oname]} cards with {unseen_start} START cards, which leaves "
                      f"no room for the {self.drawn_now[o]} cards drawn this turn")

    def redraw(self) -> None:
        """R5: this turn's drawn cards, the redraws used and decided."""
        data, step, turn = self.data, self.step, self.turn
        drawn_list = data.get("drawn_this_turn")
        hand_numbers = {c.number for c in self.hand}
        if step == "redraw":
            if drawn_list is None:
                self.fail("$.drawn_this_turn", "missing: required in the redraw step (R5: only the "
                          "cards drawn this turn can be sent back)")
            listed: set[str] = set()
            for i, number in enumerate(drawn_list):
                path = f"$.drawn_this_turn[{i}]"
                c = self.card(path, number)
                if number in listed:
                    self.fail(path, f"{_q(number)} is listed twice")
                listed.add(number)
                if number not in hand_numbers:
                    self.fail(path, f"{_q(number)} is not in $.hand: the cards drawn this turn are "
                              "in hand during the redraw step")
                if c.start:
                    self.fail(path, f"{_title(c)} is a START card: it was in hand from the start, "
                              "not drawn (R3)")
            if len(drawn_list) != self.drawn_now[self.p]:
                self.fail("$.drawn_this_turn", f"expected {self.drawn_now[self.p]} cards (the draw "
                          f"of turn {turn}), got {len(drawn_list)}")
        elif drawn_list is not None:
            self.fail("$.drawn_this_turn", "allowed only in the redraw step (the cards drawn this "
                      "turn matter only for the redraw, R5)")
        self.drawn_list = drawn_list or []
        used = self.used = data["redraw_used"]
        redraw_rule = bool(self.cfg.key[6])
        for s in SIDES:
            if used[s] and not redraw_rule:
                self.fail(f"$.redraw_used.{s}", "expected false: this game has no redraw")
            if used[s] and step == "redraw" and turn == 1:
                self.fail(f"$.redraw_used.{s}", "expected false: no redraw step came before this one")
        choice = data.get("redraw_choice", {})
        self.redraw_choice = [False, False]
        if step == "redraw":
            # The Polish player decides first, in secret; the German second.
            decided = "polish" if (self.p == 0 and self.to_move == "german") else None
            for key in choice:
                if key == self.oname:
                    self.fail(f"$.redraw_choice.{key}", "the opponent's redraw decision is secret "
                              "until both players have decided (R5); leave it out")
                if key != decided:
                    self.fail(f"$.redraw_choice.{key}", f"the {key} player has not decided yet (the "
                              "Polish player decides first, then the German, R5); leave it out")
            if decided is not None:
                if decided not in choice:
                    self.fail("$.redraw_choice", "missing: the polish player has already decided "
                              "(the german player is to move); give {\"polish\": true} if you "
                              "redrew, {\"polish\": false} if you kept")
                if choice[decided]:
                    if used["polish"]:
                        self.fail("$.redraw_choice.polish", "the polish redraw was already used "
                                  "(R5: once per game)")
                    if not redraw_rule or self.deck_after[0] == 0 or self.drawn_now[0] == 0:
                        self.fail("$.redraw_choice.polish", "no redraw is possible this turn (R5)")
                self.redraw_choice[0] = bool(choice[decided])
        else:
            for s in (0, 1):
                if choice.get(SIDES[s]):
                    if not used[SIDES[s]]:
                        self.fail(f"$.redraw_choice.{SIDES[s]}", f"the {SIDES[s]} side redrew this "
                                  "turn, so its redraw is used: set redraw_used too")
                    self.redraw_choice[s] = True

    def chain(self) -> None:
        """R7-R12: who acts, the chain count, the passes, Motorized Column."""
        acts, step, to_move = self.data["actions"], self.step, self.to_move
        pend = self.pend = self.data["pending"]
        allowed = STEP_KINDS[step]
        if pend is None and allowed != (None,):
            names = " or ".join(_json_kind(k) for k in allowed)
            self.fail("$.pending", f"expected the action being resolved ({names}): step "
                      f"{_q(step)} is part of an action, got null")
        if pend is not None and allowed == (None,):
            self.fail("$.pending", f"expected null: no action is being resolved in the {step} step")
        if pend is not None:
            actor = SIDES.index(pend["actor"])
        elif "actor" in acts:
            actor = SIDES.index(acts["actor"])
        elif step == "actions":
            actor = SIDES.index(to_move)
        else:
            actor = 0
        self.actor = actor
        if "actor" in acts and SIDES.index(acts["actor"]) != actor:
            self.fail("$.actions.actor", f"expected {_q(SIDES[actor])}, the actor of the pending "
                      f"action, got {_q(acts['actor'])}")
        if step == "actions" and actor != SIDES.index(to_move):
            self.fail("$.actions.actor", f"expected {_q(to_move)}: in the action step the player to "
                      "move is the chain's player (R10)")
        if step in ACTOR_DECIDES and to_move != SIDES[actor]:
            self.fail("$.to_move", f"expected {_q(SIDES[actor])}: {WHY_DECIDES[step]}")
        if step in ("escort", "nurses") and to_move != SIDES[1 - actor]:
            self.fail("$.to_move", f"expected {_q(SIDES[1 - actor])}: {WHY_DECIDES[step]}")

        left, passes = self.left, self.passes = acts["left"], acts["passes"]
        mref = acts.get("motorized_refresh", {"counters": [], "due": 0})
        counters, due = self.counters, self.due = mref["counters"], mref["due"]
        kind = self.kind = None if pend is None else (
            "steal" if pend["kind"] in ("spy", "sturmwind") else pend["kind"])
        if step == "actions":
            if left < 1:
                self.fail("$.actions.left", "expected at least 1: the player to move in the action "
                          "step has an action (R10)")
            if passes > 1:
                self.fail("$.actions.passes", "expected 0 or 1: two passes in a row end the action "
                          "step (R7)")
        elif pend is not None and kind != "motorized_refresh":
            if left < 1:
                self.fail("$.actions.left", "expected at least 1: the action being resolved counts "
                          "until it is over (R10)")
            if passes != 0:
                self.fail("$.actions.passes", "expected 0: taking an action resets the run of "
                          "passes (R11)")
        if step in ("redraw", "rocket") and (counters or due):
            self.fail("$.actions.motorized_refresh", "expected no pending refresh between action "
                      "steps (R12: they happen when the chain ends)")
        if counters and left < 1:
            self.fail("$.actions.motorized_refresh.counters", "expected none: the chain is over "
                      "(left 0), so every pending refresh is due (R12)")
        if step not in ("redraw", "rocket"):
            # R10: the count grows only by Volunteers (+2, a Support card: it
            # stays exhausted for the rest of the turn) and Motorized Column
            # (+3, gone).
            volunteers = sum(1 for c, _, exh in self.table if c.side_id == actor and exh
                             and "volunteers" in c.type.abilities)
            motorized = sum(1 for c in self.gone if c.side_id == actor
                            and c.type.effect == "motorized_column")
            most = 1 + 2 * volunteers + 3 * motorized
            if left > most:
                self.fail("$.actions.left", f"expected at most {most}: the chain count grows only "
                          "by Volunteers (+2, exhausted on the table) and Motorized Column (+3, "
                          f"gone) (R10), got {left}")
            if len(counters) + due > motorized:
                self.fail("$.actions.motorized_refresh", f"{len(counters) + due} pending "
                          f"refreshes, but the {SIDES[actor]} player has played {motorized} "
                          "Motorized Column (R12)")
        if (due > 0) != (kind == "motorized_refresh"):
            self.fail("$.actions.motorized_refresh.due",
                      "expected at least 1: the Motorized Column refresh being chosen is due (R12)"
                      if due == 0 else
                      "expected 0: a refresh is due only while its Unit is being chosen (step "
                      "\"refresh\", pending kind \"motorized_refresh\", R12)")

    def pending(self) -> dict:
        """The action being resolved against the step and the table (R14-R21);
        returns the engine's form of it.  Its parts are checked in turn: the
        kind, the acting card, the target and defender, the destination, the
        dice, the modifiers and the window's passes."""
        pend, kind, step = self.pend, self.kind, self.step
        self.pending_kind()
        number = pend.get("card")
        target = pend.get("target")
        defender = pend.get("defender", target)
        escorted = pend.get("escorted", False)
        self.acting_card(number)
        self.target_and_defender(number, target, defender, escorted)
        self.destination(number, pend.get("zone"))
        dice = pend.get("dice", [])
        mods = pend.get("modifiers", [0, 0])
        self.dice(dice)
        self.modifiers(dice, mods, number, defender if escorted else None)
        passes = self.window_passes()

        def index(num):
            return -1 if num is None else self.by_number[num].global_index

        named = kind == "attack" and step != "target"
        return {"kind": kind, "actor": self.actor, "card": index(number),
                "target": index(target) if named else -1,
                "defender": index(defender) if named else -1,
                "zone": pend.get("zone"), "dice": list(dice), "modifiers": list(mods),
                "window_passes": passes, "escorted": bool(escorted)}

    def pending_kind(self) -> None:
        """The kind fits the step, and a steal is named after its side (R17)."""
        pend, kind, step, actor = self.pend, self.kind, self.step, self.actor
        allowed = STEP_KINDS[step]
        if kind not in allowed:
            names = " or ".join(_q(_json_kind(k)) for k in allowed)
            self.fail("$.pending.kind", f"expected {names} in step {_q(step)}, got "
                      f"{_q(pend['kind'])}")
        if pend["kind"] == "spy" and actor != 0:
            self.fail("$.pending.kind", "spy is the Polish steal; the German one is \"sturmwind\" "
                      "(R17)")
        if pend["kind"] == "sturmwind" and actor != 1:
            self.fail("$.pending.kind", "sturmwind is the German steal; the Polish one is \"spy\" "
                      "(R17)")

    def acting_card(self, number: str | None) -> None:
        """The acting card: none for a Motorized Column refresh; the event card
        played (R19-R21); else an activated, exhausted card of the actor's with
        the ability, where the ability is used (R9, R16, R17)."""
        pend, kind, actor = self.pend, self.kind, self.actor
        if kind == "motorized_refresh":
            if number is not None:
                self.fail("$.pending.card", "expected null: a Motorized Column refresh has no "
                          "acting card (the Motorized Column card is gone)")
            return
        if number is None:
            self.fail("$.pending.card", f"expected the acting card of the {pend['kind']}, "
                      "got null")
        acting = self.card("$.pending.card", number)
        name = _title(acting)
        if acting.side_id != actor:
            self.fail("$.pending.card", f"expected a {SIDES[actor]} card (the actor's), got "
                      f"{name}")
        if kind in KIND_EFFECT:
            if acting.type.effect != KIND_EFFECT[kind]:
                self.fail("$.pending.card", f"expected the {pend['kind'].replace('_', ' ')} "
                          f"card played, got {name}")
            played = {c.number for c in (self.events if kind == "hidden_fragments"
                                         else self.gone)}
            if number not in played:
                listed = "events_in_play" if kind == "hidden_fragments" else "gone"
                self.fail("$.pending.card", f"{name} was played, so it is in {listed}")
            return
        table_of = self.table_of
        ability = "spy" if actor == 0 else "sturmwind"
        ability = ability if kind == "steal" else KIND_ABILITY[kind]
        if ability not in acting.type.abilities:
            self.fail("$.pending.card", f"{name} has no {ability.title()} ability")
        if number not in table_of:
            self.fail("$.pending.card", f"{name} is not on the table: an activated card "
                      "stands there")
        if not table_of[number][1]:
            self.fail("$.pending.card", f"{name} is fresh on the table, but activating it "
                      "exhausted it (R9): mark it exhausted")
        here = table_of[number][0]
        if kind == "search" and here != "periphery":
            self.fail("$.pending.card", f"{name} stands in the {here}: Search is in the "
                      "Periphery only (R16)")
        if kind == "steal" and here != HOME[1 - actor]:
            self.fail("$.pending.card", f"{name} stands in the {here}: a steal is made from "
                      f"the enemy home zone, the {HOME[1 - actor]} (R17)")

    def target_and_defender(self, number, target, defender, escorted) -> None:
        """Once named, the target is an enemy card in the attacker's zone
        (R15a); the defender is the target, or the escort that took its place
        (R15b).  Nothing else has a target."""
        kind, step, actor = self.kind, self.step, self.actor
        table_of = self.table_of
        pend = self.pend
        if kind == "attack" and step != "target":
            if target is None:
                self.fail("$.pending.target", "expected the enemy card attacked: the target is "
                          "named at the target step (R15a)")
            t = self.card("$.pending.target", target)
            if t.side_id == actor or target not in table_of:
                self.fail("$.pending.target", f"expected an enemy card on the table, got "
                          f"{_q(target)}")
            if table_of[target][0] != table_of[number][0]:
                self.fail("$.pending.target", f"{target} is in the {table_of[target][0]}, not in "
                          "the attacker's zone (R15a)")
            if defender is None:
                self.fail("$.pending.defender", "expected the defending card (the target unless "
                          "escorted)")
            d = self.card("$.pending.defender", defender)
            if escorted:
                if step == "escort":
                    self.fail("$.pending.escorted", "expected false: Escort is being decided now")
                if (defender == target or d.side_id != t.side_id or defender not in table_of
                        or table_of[defender][0] != table_of[target][0]):
                    self.fail("$.pending.defender", "expected the escort: a card of the target's "
                              "side in the same zone, other than the target (R15b)")
                if "escort" not in d.type.abilities or not table_of[defender][1]:
                    self.fail("$.pending.defender", f"{defender} escorts, so it has Escort and is "
                              "exhausted (R15b)")
            elif defender != target:
                self.fail("$.pending.defender", f"expected {_q(target)}, the target: no Escort was "
                          "used (set escorted to true if it was)")
        else:
            for key in ("target", "defender"):
                if pend.get(key) is not None:
                    self.fail(f"$.pending.{key}", "expected null: "
                              + ("the target is being chosen now" if kind == "attack"
                                 else "only an attack has a target"))
            if escorted:
                self.fail("$.pending.escorted", "expected false: only an attack can be escorted, "
                          "once its target is named")

    def destination(self, number, zone) -> None:
        """A movement's destination: chosen at the zone step, adjacent to the
        mover's zone (R1, R14); nothing else has one."""
        kind, step, table_of = self.kind, self.step, self.table_of
        if kind == "movement":
            if step == "zone" and zone is not None:
                self.fail("$.pending.zone", "expected null: the destination is being chosen now")
            if step == "motorcycle":
                if zone is None:
                    self.fail("$.pending.zone", "expected the destination chosen (R14: Motorcycle "
                              "is played once it is declared)")
                here = table_of[number][0]
                if zone not in ADJACENT[here]:
                    self.fail("$.pending.zone", f"expected a zone adjacent to the {here} "
                              f"({', '.join(ADJACENT[here])}, R1), got {_q(zone)}")
        elif zone is not None:
            self.fail("$.pending.zone", "expected null: only a movement has a destination")

    def dice(self, dice) -> None:
        """The dice rolled so far fit the step (an attack rolls two, R15c,
        R18), each a face of the game's die."""
        pend, kind, step = self.pend, self.kind, self.step
        full = 2 if kind == "attack" else 1
        if step == "roll":
            fits = len(dice) < full
        elif step == "modifiers":
            fits = len(dice) == full
        elif step == "nurses":
            fits = len(dice) in (0, 2)  # none after Ambush! (R15c)
        else:
            fits = not dice
        if not fits:
            self.fail("$.pending.dice", f"{len(dice)} dice do not fit the {step} step of a "
                      f"{pend['kind']} ({full} die{'s' * (full > 1)} rolled before the modifier "
                      "window)")
        sides = self.cfg.dice_sides
        for i, v in enumerate(dice):
            if v > sides:
                self.fail(f"$.pending.dice[{i}]", f"expected 1..{sides} (the die has {sides} "
                          f"sides), got {v}")

    def modifiers(self, dice, mods, acting, escort) -> None:
        """The modifiers are played in the modifier window (R18), on a second
        roll only for an attack, and explained by the cards played."""
        kind, step = self.kind, self.step
        if any(mods) and step not in ("modifiers", "nurses"):
            self.fail("$.pending.modifiers", "expected [0, 0]: modifiers are played in the "
                      "modifier window, after the dice (R18)")
        if mods[1] and kind != "attack":
            self.fail("$.pending.modifiers[1]", "expected 0: only an attack has a second roll "
                      "(R18)")
        self.modifiers_played(kind, self.actor, acting, escort, dice, mods)

    def window_passes(self) -> int:
        """The priority passes of the modifier window (R18), cleared once it
        closes; returns them."""
        step = self.step
        # Once the modifier window has closed its priority passes are cleared.
        closed = 0
        passes = self.pend.get("window_passes", closed)
        if step == "nurses" and passes != closed:
            self.fail("$.pending.window_passes", "expected 0: the modifier window, if any, "
                      "has closed (R18)")
        if passes and step not in ("modifiers", "nurses"):
            self.fail("$.pending.window_passes", "expected 0: priority passes happen in the "
                      "modifier window (R18)")
        if passes > 1 and step == "modifiers":
            self.fail("$.pending.window_passes", "expected 0 or 1: two passes in a row close the "
                      "window (R18)")
        return passes

    def modifiers_played(self, kind, actor, acting, escort, dice, mods) -> None:
        """R18: each modifier is explained by cards played: Good Luck (+2 to
        your roll) and Bad Luck (-2 to the enemy's) are gone once played,
        Assistance (+1) exhausts a card of yours on the table."""
        if not dice and any(mods):
            self.fail("$.pending.modifiers", "expected [0, 0]: no die was rolled, so no "
                      "modifier window opened (R15c, R18)")
        for k in (0, 1) if kind == "attack" else (0,):
            side = actor if k == 0 else 1 - actor
            good = sum(1 for c in self.gone if c.side_id == side and c.type.effect == "good_luck")
            bad = sum(1 for c in self.gone if c.side_id != side and c.type.effect == "bad_luck")
            assist = sum(1 for c, _, exh in self.table if c.side_id == side and exh
                         and "assistance" in c.type.abilities
                         and c.number not in (acting, escort))
            lo, hi = -2 * bad, 2 * good + assist
            whose = "attacker's" if k == 0 and kind == "attack" else (
                "defender's" if k == 1 else "actor's")
            why = (f"the {SIDES[side]} side has {good} Good Luck gone (+2 each) and {assist} "
                   f"exhausted card{'s' * (assist != 1)} with Assistance (+1 each), the "
                   f"{SIDES[1 - side]} side {bad} Bad Luck gone (-2 each) (R18)")
            if not lo <= mods[k] <= hi:
                self.fail(f"$.pending.modifiers[{k}]", f"expected {lo}..{hi} on the {whose} roll: "
                          f"{why}, got {mods[k]}")
            if not assist and mods[k] % 2:
                self.fail(f"$.pending.modifiers[{k}]", f"expected an even number on the {whose} "
                          f"roll: only Assistance gives an odd one and {why}, got {mods[k]}")

    # -- the position -----------------------------------------------------------

    def build(self, seed: int) -> Core:
        """Core.from_fields of the checked file, the opponent's hidden cards
        resampled (R26), and the R29/R30 check that there is a decision."""
        cfg, step, o = self.cfg, self.step, self.o
        n = len(self.present)
        loc = ["absent"] * n
        exhausted = [False] * n
        drawn = [False] * n
        for c in self.cs.cards:
            if self.present[c.global_index]:
                loc[c.global_index] = "deck"
        for c in self.hand:
            loc[c.global_index] = "hand"
        for c, zone, exh in self.table:
            loc[c.global_index] = zone
            exhausted[c.global_index] = bool(exh)
        for c in self.gone:
            loc[c.global_index] = "gone"
        for c in self.events:
            loc[c.global_index] = "event"
        for number in self.drawn_list:
            drawn[self.by_number[number].global_index] = True
        # The opponent's unseen cards: START cards first (R26), then cards that
        # open the window the opponent may be deciding, then the rest; the
        # split is made uniform by the resampling below.
        wanted = WINDOW_EFFECTS.get(step, ()) if self.to_move == self.oname else ()
        unseen = sorted(self.unseen, key=lambda c: (not c.start, c.type.effect not in wanted,
                                                    c.global_index))
        opp_hand = unseen[:self.data["hand_sizes"][self.oname]]
        for c in opp_hand:
            loc[c.global_index] = "hand"
        if step == "redraw":
            for c in [c for c in opp_hand if not c.start][:self.drawn_now[o]]:
                drawn[c.global_index] = True
        frag = self.data["fragments"]
        fields = {
            "loc": loc, "exhausted": exhausted, "drawn": drawn,
            "fragments": {"pool": cfg.fragments - self.on_cards,
                          **{k: frag[k] for k in FRAGMENT_KEYS}},
            "rocket_order": self.order, "turn": self.turn, "phase": step,
            "player": self.actor if self.to_move is None else SIDES.index(self.to_move),
            "draw_side": 1, "draw_left": 0, "redeal": False,
            "drawn_count": list(self.drawn_now),
            "redraw_used": [self.used["polish"], self.used["german"]],
            "redraw_choice": self.redraw_choice, "actor": self.actor,
            "actions_left": self.left, "passes": self.passes,
            "motorized": [self.counters.count(k) for k in (1, 2, 3)],
            "refresh_due": self.due,
            "wildhorn_played": "operation_wildhorn" in self.effects_in_play, "winner": -1,
            "pending": self.engine_pending,
        }
        try:
            core = Core.from_fields(cfg, fields)
        except WildhornError as err:
            self.fail(*engine_path(str(err), self.where, cfg))
        core = core.resample(self.p, seed)

        # R29, R30: the engine never stops where there is nothing to decide.
        if core.is_chance():
            if len(core.chance_outcomes()) < 2:
                self.fail("$.step", f"the {step} step has a single outcome here, which the engine "
                          "applies at once (R30): write the position after it")
            return core
        legal = core.legal_actions()
        mover = core.current_player()
        if not legal:
            self.fail("$.step", f"the {self.to_move} player has no legal option at the {step} "
                      "step of this position")
        if len(legal) < 2:
            if mover == self.p:
                self.fail("$.step", f"the {self.to_move} player has a single option here "
                          f"({core.action_string(mover, legal[0])}), which the engine takes at "
                          "once (R29, R30): there is nothing to decide")
            self.fail("$.step", f"no hand the {self.to_move} player can hold gives a choice here, "
                      "so the engine would not stop at this step (R29, R30)")
        return core


def _title(card) -> str:
    """'PL04 Scouts'."""
    return f"{card.number} {card.type.name}"


def _json_kind(kind: str | None) -> str:
    return "spy or sturmwind" if kind == "steal" else str(kind)


def engine_path(message: str, where: dict[str, str], cfg) -> tuple[str, str]:
    """Safety net: a JSON path for a message of Core.from_fields."""
    field, _, rest = message.partition(":")
    head = re.match(r"[A-Za-z_]+", field)
    if head and head.group(0) == "pending":
        return "$." + field.strip(), rest.strip() or message
    if head and head.group(0) in _FIELD_PATHS and field != "position":
        path = _FIELD_PATHS[head.group(0)]
        sub = field[len(head.group(0)):]
        if head.group(0) == "fragments" and sub.startswith("."):
            path += sub
        return path, rest.strip() or message
    m = re.search(r"card (\d+)", rest)
    if m:
        g = int(m.group(1))
        for c in cfg.card_set.cards:
            if c.global_index == g and c.number in where:
                return where[c.number], f"{c.number}: {rest.split(':', 2)[-1].strip()}"
    for word, path in (("pending", "$.pending"), ("fragment", "$.fragments"),
                       ("Rocket", "$.rockets"), ("turn", "$.turn"), ("phase", "$.step"),
                       ("player", "$.to_move")):
        if word in rest:
            return path, rest.strip()
    return "$", message

"""JSON views of a game for the human side: what the page draws.

Only what the human may know is in a view: the bot's hand and deck are
counts, its draws are "draws a card"; its cards on the table, in play or
out of the game are public and shown with their full text.
"""

from __future__ import annotations

import time
from typing import Any

from apps.narration import pending_figures, pending_text
from apps.record import GameRecord
from apps.server.games import ServerGame
from bots import BotSpec
from solver import Core, decode_action
from solver.errors import RequestError
from solver.vocabulary import HOMES, SIDES, TABLE_ORDER, ZONE_PLACES
from solver.vocabulary import SIDE_TITLES as TITLES

# the zones as the table shows them, top to bottom: (zone, title, whose home)
ZONES = tuple((z, ZONE_PLACES[z], SIDES[HOMES.index(z)] if z in HOMES else None)
              for z in TABLE_ORDER)
OWN_CARD_ACTIONS = {"PLACE": "place", "PLAY": "play", "MOVE": "move", "ATTACK": "attack",
                    "SEARCH": "search", "STEAL": "spy", "COMMAND": "command",
                    "VOLUNTEERS": "volunteers", "ASSIST": "assistance", "ESCORT": "escort",
                    "SELECT_OWN": "refresh"}
GENERAL_HELP = {
    "PASS": "End your part of this round of actions (when both pass in a row, the turn ends).",
    "DECLINE": "Let the action go on without a reaction.",
    "REDRAW": "Shuffle your hand back and draw a new one (once per game).",
    "NUMBER": "Hide this many fragments (Hidden Fragments).",
}
WINDOW_HELP = {
    "escort": "An attack is declared: you may redirect it onto another of your cards.",
    "ambush": "You may play Ambush!: the attack succeeds without dice.",
    "modifiers": "The dice are rolled: you may change a die with a card.",
    "nurses": "Your unit is destroyed: Nurses may send it home exhausted instead.",
    "witnesses": "You may play Witnesses.",
    "motorcycle": "You may play Motorcycle.",
    "redraw": "Keep your hand or redraw it (once per game).",
    "zone": "Choose the zone to move to.",
    "target": "Choose the enemy card to target.",
    "refresh": "Choose the card to refresh.",
    "number": "Choose how many fragments to hide.",
}


def card_view(record: GameRecord, core: Core, g: int, with_state: bool = True) -> dict[str, Any]:
    card = record.cards[g]
    t = card.type
    place, exhausted = core.location(g)
    out = {"g": g, "number": card.number, "name": t.name, "side": card.side, "kind": t.kind,
           "bullets": t.bullets, "abilities": [k if v is True else f"{k} {v}+"
                                               for k, v in t.abilities.items() if v],
           "text": t.text or t.kind, "place": place}
    if with_state and place in ("forest", "periphery", "base"):
        out["exhausted"] = exhausted
    return out


def _twins(record: GameRecord, core: Core, g: int, action: int, legal: set[int]) -> list[int]:
    """The cards ``action`` on card g also stands for: the engine offers one
    action for interchangeable cards (R27), so a card of the same type in the
    same place and state whose own action of this kind is not offered."""
    cards = record.cards
    loc = core.location(g)
    same = lambda c: (c.side_id, c.type, c.start)  # noqa: E731  (every field but the number)
    key = same(cards[g])
    per_side = len(cards) // 2
    return [h for h, c in cards.items() if h != g and same(c) == key
            and core.location(h) == loc and action - g % per_side + h % per_side not in legal]


def _action_view(record: GameRecord, core: Core, action: int, legal: set[int]) -> dict[str, Any]:
    human = record.human
    cards = record.cards
    name, arg = decode_action(action)
    text = core.action_string(human, action)
    out: dict[str, Any] = {"id": action, "text": text, "kind": name.lower()}
    g = None
    if name in OWN_CARD_ACTIONS:
        g = human * (len(cards) // 2) + arg
        out["card"] = cards[g].number
        out["verb"] = OWN_CARD_ACTIONS[name] if not (name == "STEAL" and human == 1) \
            else "sturmwind"
        out["help"] = cards[g].type.text or ""
    elif name == "SELECT_ENEMY":
        g = (1 - human) * (len(cards) // 2) + arg
        out["target"] = cards[g].number
        out["verb"] = "target"
        out["help"] = f"Target {record.config.card_name(g)}."
    elif name == "ZONE":
        out["zone"] = ("forest", "periphery", "base")[arg]
        out["help"] = f"Move to the {out['zone']}."
    else:
        out["help"] = GENERAL_HELP.get(name, "")
    if g is not None:
        twins = _twins(record, core, g, action, legal)
        if twins:
            numbers = [cards[h].number for h in twins]
            out["same_as"] = numbers
            out["note"] = (f"one choice for {len(twins) + 1} identical cards "
                           f"({', '.join([cards[g].number] + numbers)}): "
                           f"they are interchangeable (R27), so any of them does the same")
    return out


def pending_view(core: Core, record: GameRecord | None = None) -> dict[str, Any] | None:
    pend = core.pending
    if not pend:
        return None
    config = core.config
    out = {"kind": pend["kind"], "actor": SIDES[pend["actor"]], "text": pending_text(core, TITLES),
           "dice": pend["dice"], "modifiers": pend["modifiers"]}
    for key in ("card", "target", "defender"):
        if pend[key] >= 0:
            out[key] = config.card_name(pend[key])
    if record is not None and pend["kind"] in ("attack", "search", "steal"):
        cards = record.cards
        numbers = {key: cards[pend[key]].number for key in ("card", "defender") if pend[key] >= 0}
        rolled = [numbers.get("card")] + ([numbers.get("defender")]
                                          if pend["kind"] == "attack" else [])
        out["rolls"] = [_die(cards, rolled[i] if i < len(rolled) else None,
                             pend["dice"][i] if i < len(pend["dice"]) else None,
                             pend["modifiers"][i],
                             SIDES[pend["actor"] if i == 0 else 1 - pend["actor"]],
                             pend["kind"] == "attack")
                        for i in range(len(rolled))]
    figures = pending_figures(core, TITLES)
    for key in ("totals", "needed", "succeeds_as_it_stands"):
        if key in figures:
            out[key] = figures[key]
    return out


BOT_NAMES = {"default": "the players' bot", "ismcts": "ISMCTS", "oos": "OOS", "heuristic": "Heuristic", "random": "Random",
             "openspiel-ismcts": "OpenSpiel ISMCTS"}


def bot_label(spec: BotSpec | str) -> str:
    """The bot as a person names it: "Bot: ISMCTS, 1 s per move" (the spec
    itself goes in a tooltip)."""
    spec = spec if isinstance(spec, BotSpec) else BotSpec.parse(spec)
    options = dict(spec.options)
    words = [BOT_NAMES.get(spec.name, spec.name)]
    if "time" in options:
        words.append(f"{options['time']:g} s per move")
    elif spec.name == "default" and "iterations" not in options:
        words.append("1 s per move")
    for key, unit in (("iterations", "iterations"), ("sims", "simulations")):
        if key in options:
            words.append(f"{options[key]:,} {unit} per move")
    if spec.name == "random":
        words.append("any legal move at random")
    return "Bot: " + ", ".join(words)


# what a card did in an entry of the log: (kind, detail key present) -> role
ROLES = {"place": "placed", "play": "played", "move": "activated", "attack": "attacker",
         "search": "activated", "steal": "activated", "command": "activated",
         "volunteers": "activated"}


def _die(cards: dict[int, Any], number: str | None, die: int | None, modifier: int, side: str,
         with_bullets: bool) -> dict[str, Any]:
    """One die of a roll as the page draws it: its face, the bullets of the
    card rolling it (attacks), the modifier played on it and the total."""
    bullets = 0
    if with_bullets and number is not None:
        bullets = next(c.type.bullets for c in cards.values() if c.number == number)
    out: dict[str, Any] = {"side": side, "card": number, "die": die, "bullets": bullets,
                           "modifier": modifier}
    out["total"] = None if die is None else die + bullets + modifier
    return out


def last_move(record: GameRecord, events: list[dict[str, Any]], since: int,
              core: Core | None = None) -> dict[str, Any]:
    """What happened since the human's last decision (``events[since:]``):
    the bot's moves in words (chance apart), each card it moved, activated,
    played, attacked with or targeted and each card destroyed, with its
    role, and the dice of every roll settled, as the table marks them.
    Given the position ``core``, a card that changed a roll from the table
    (Assistance) is "activated", one played from the hand "played"."""
    bot, human = SIDES[record.bot_side], SIDES[record.human]
    cards = record.cards
    side_of = {c.number: SIDES[c.side_id] for c in cards.values()}
    numbers = {c.number: g for g, c in cards.items()}
    moves: list[str] = []
    chance: list[str] = []
    marked: dict[str, str] = {}
    dice: list[dict[str, Any]] = []
    rollers: dict[str, str] = {}
    alternatives = None

    def mark(number: Any, role: str) -> None:
        if isinstance(number, str) and number in side_of:
            marked[number] = role  # the last role wins (a moved card: "moved")

    for e in events[since:]:
        who, kind, d = e["who"], e.get("kind"), e.get("details") or {}
        if who == bot and kind in ("decision", "card", "fragments", "chain"):
            moves.append(e["text"])
            if e.get("alternatives"):
                alternatives = e["alternatives"]
            if "source" in d and "zone" in d:
                mark(d.get("card"), "moved")
            elif d.get("action") in ROLES:
                mark(d.get("card"), ROLES[d["action"]])
            elif "target" in d and "attacker" in d:
                mark(d["target"], "targeted")
            elif "unit" in d:
                mark(d.get("card"), "played")
            elif kind == "card" and d.get("cause"):
                mark(d.get("card"), "refreshed")
            elif "roll" in d:
                on_table = core is not None and d.get("card") in numbers and \
                    core.location(numbers[d["card"]])[0] in ZONE_PLACES
                mark(d.get("card"), "activated" if on_table else "played")
            elif "target" in d and "card" in d:  # an Escort: the card defends instead
                mark(d.get("card"), "activated")
        elif who == "game" and kind == "card":
            mark(d.get("card"), "destroyed" if d.get("fate") == "destroyed" else "sent_home")
        elif who == "game" and kind == "roll":
            rollers[d.get("roll", "")] = d.get("card")
        elif who == "game" and kind == "outcome":
            attack = d.get("action") == "attack"
            # the outcome names who rolled (saves before issue 46 do not: then the
            # rolls' entries, when they came after the human's last decision)
            first = d.get("card") or (rollers.get("attack") if attack
                                      else rollers.get(d.get("action", "")))
            side = d.get("actor") or side_of.get(first or "", bot)
            rolls = [_die(cards, first, d["dice"][0], d["modifiers"][0], side, attack)]
            if attack and len(d["dice"]) > 1:
                second = d.get("defender") or rollers.get("defence")
                rolls.append(_die(cards, second, d["dice"][1], d["modifiers"][1],
                                  human if side == bot else bot, True))
            action = d.get("action")
            title = "Attack" if attack else "Search" if action == "search" else \
                "Spy" if side == SIDES[0] else "Sturmwind"
            dice.append({"action": action, "title": title, "success": bool(d.get("success")),
                         "needed": d.get("needed"), "rolls": rolls, "text": e["text"]})
            rollers = {}
        elif who != human and kind in ("draw", "rocket", "turn", "redraw", "roll", "outcome"):
            chance.append(e["text"])
    return {"since": since, "side": bot, "moves": moves, "chance": chance,
            "cards": [{"number": n, "role": r, "side": side_of[n]} for n, r in marked.items()],
            "dice": dice, "alternatives": alternatives}


def _since_last_decision(record: GameRecord, decisions: int) -> int:
    """The log's length before the human's decision number ``decisions - 1``
    (the last one made by then): what happened since begins there."""
    if decisions <= 0:
        return 0
    return record.decision(decisions - 1)[2]


def game_view(game: ServerGame, log_from: int = 0) -> dict[str, Any]:
    """The whole table for the human; ``log_from``: the first log entry sent."""
    record = game.record
    view = table_view(record, record.core, record.events, record.status(), log_from)
    view.update(id=game.id, version=record.version(),
                thinking=None if game.thinking_since is None
                else round(time.monotonic() - game.thinking_since, 2),
                pondering=game.pondering_since is not None,
                save_error=game.save_error)
    return view


def _in_order_gone(record: GameRecord, core: Core, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The cards gone at ``core`` in the order they went, the last one last
    (a pile's top): by the step of the game at which each reached the pile
    (an event card when its action ended, not when it was played); cards
    that went in the same step by the last log entry naming each."""
    went: dict[int, int] = {}
    previous: set[int] = set()
    for i, position in enumerate([*record.before, record.core]):
        now = set(position.cards_at("gone"))
        for g in now - previous:
            went[g] = i
        previous = now
        if position == core:
            break
    named: dict[str, int] = {}
    for i, e in enumerate(events):
        number = (e.get("details") or {}).get("card")
        if isinstance(number, str):
            named[number] = i
    gone = [card_view(record, core, g) for g in core.cards_at("gone")]
    return sorted(gone, key=lambda c: (went.get(c["g"], -1), named.get(c["number"], -1)))


def table_view(record: GameRecord, core: Core, events: list[dict[str, Any]], status: str,
               log_from: int = 0, decisions: int | None = None) -> dict[str, Any]:
    """The table of ``record`` at position ``core`` with the log ``events``
    (``decisions``: the human's decisions made by then, default all)."""
    human, bot = record.human, record.bot_side
    frags = core.fragments
    if status == "chance":  # never shown: chance is played at once
        status = "bot"
    zones = []
    for place, title, home in ZONES:
        cards = {}
        for side in (0, 1):
            cards[SIDES[side]] = [card_view(record, core, g) for g in core.cards_at(place, side)]
        zones.append({"id": place, "title": title, "home": home, "fragments": frags[place],
                      "cards": cards})
    revealed = core.rockets_revealed
    gone = _in_order_gone(record, core, events)
    made = len(record.human_steps()) if decisions is None else decisions
    view: dict[str, Any] = {
        "id": "", "version": "", "status": status,
        "you": SIDES[human], "bot_side": SIDES[bot], "bot": str(record.bot),
        "seed": record.seed, "turn": core.turn, "turns": record.config.turns,
        "phase": core.phase, "zones": zones,
        "fragments": {"pool": frags["pool"], "wildhorn": frags["wildhorn"],
                      "hidden": frags["hidden"]},
        "rockets": {"revealed": revealed,
                    "face_down": len(record.config.rockets) - len(revealed)},
        "hand": [card_view(record, core, g) for g in core.cards_at("hand", human)],
        "bot_hand": core.hand_size(bot),
        "decks": {"you": core.deck_size(human), "bot": core.deck_size(bot)},
        "in_play": [card_view(record, core, g) for g in core.cards_at("event")],
        "gone": gone,
        "piles": {side: [c for c in gone if c["side"] == side] for side in SIDES},
        "score": dict(zip(SIDES, core.scores())),
        "pending": pending_view(core, record),
        "can_undo": made > 0 and status not in ("over", "review"),
        "can_resign": status in ("human", "bot"),
        "bot_label": bot_label(record.bot),
        "last_move": last_move(record, events, _since_last_decision(record, made), core),
        "log_size": len(events),
        "log": events[log_from:],  # {"who", "kind", "text", "details"[, extras]}
        "thinking": None,
    }
    if status == "human":
        legal = core.legal_actions()
        view["actions"] = [_action_view(record, core, a, set(legal)) for a in legal]
        view["prompt"] = WINDOW_HELP.get(core.phase, "Your action: click one of your cards, "
                                         "or pass.")
    else:
        view["actions"] = []
    if status == "over":
        winner = record.winner()
        polish, german = core.scores()
        view["result"] = {"winner": SIDES[winner], "you_win": winner == human,
                          "resigned": record.resigned,
                          "text": ("You win" if winner == human else "The bot wins")
                          + (" (you resigned)" if record.resigned else "")
                          + f": Polish {polish}, German {german}"}
    values = [e["value"] for e in events if e.get("value") is not None]
    view["win_estimates"] = values  # the human side's chance, as the bot saw it, move by move
    view["title"] = f"You play {TITLES[human]}"
    return view


def _marked_action(record: GameRecord, core: Core, action: int) -> dict[str, Any]:
    """An action of the human at ``core`` as the table marks it (its card,
    target or zone), for the review."""
    legal = core.legal_actions()
    view = _action_view(record, core, action, set(legal))
    return {k: view[k] for k in ("id", "text", "kind", "card", "target", "zone", "same_as")
            if k in view}


def past_view(game: ServerGame, k: int) -> dict[str, Any]:
    """The table as it was at the human's decision ``k`` (0: the first), for
    the review; its status is "review" (nothing to act on).  Its
    ``review_step`` names the action chosen and, once the review has rated
    the decision, the better one, both marked on the table."""
    record = game.record
    made = len(record.human_steps())
    if not 0 <= k < made:
        raise RequestError(f"decision {k}: this game has decisions 0 to {made - 1}" if made
                           else f"decision {k}: no decision was made in this game yet")
    core, action, at = record.decision(k)
    view = table_view(record, core, record.events[:at], "review", decisions=k)
    chosen = record.events[at]["text"] if at < len(record.events) else ""
    step: dict[str, Any] = {"index": k, "of": made, "chosen": chosen,
                            "chosen_action": _marked_action(record, core, action)}
    rated = None
    if game.review is not None and game.review.get("version") == record.version():
        rated = next((d for d in game.review["decisions"] if d["index"] == k), None)
    if rated is not None and rated.get("loss") is not None:
        step.update(loss=rated["loss"], chosen_value=rated.get("chosen_value"),
                    best_value=rated.get("best_value"), best=rated.get("best"))
        best = next((a for a in core.legal_actions()
                     if core.action_string(record.human, a) == rated.get("best")), None)
        if best is not None and best != action and rated["loss"] > 0:
            step["best_action"] = _marked_action(record, core, best)
    view.update(id=game.id, actions=[], review_step=step)
    return view

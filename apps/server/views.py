"""JSON views of a game for the human side: what the page draws.

Only what the human may know is in a view: the bot's hand and deck are
counts, its draws are "draws a card"; its cards on the table, in play or
out of the game are public and shown with their full text.
"""

from __future__ import annotations

import base64
import copy
import time
from typing import Any

from apps.narration import pending_figures, pending_text
from apps.play import SIDES, TITLES
from apps.server.games import WebSession
from solver._core import Core, decode_action
from solver.errors import RequestError

ZONES = (("base", "Rocket Base", "german"), ("periphery", "Periphery", None),
         ("forest", "Forest", "polish"))
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


def card_view(session: WebSession, g: int, with_state: bool = True) -> dict[str, Any]:
    card = session.cards[g]
    t = card.type
    place, exhausted = session.core.location(g)
    out = {"g": g, "number": card.number, "name": t.name, "side": card.side, "kind": t.kind,
           "bullets": t.bullets, "abilities": [k if v is True else f"{k} {v}+"
                                               for k, v in t.abilities.items() if v],
           "text": t.text or t.kind, "place": place}
    if with_state and place in ("forest", "periphery", "base"):
        out["exhausted"] = exhausted
    return out


def _twins(session: WebSession, g: int, action: int, legal: set[int]) -> list[int]:
    """The cards ``action`` on card g also stands for: the engine offers one
    action for interchangeable cards (R27), so a card of the same type in the
    same place and state whose own action of this kind is not offered."""
    core = session.core
    loc = core.location(g)
    same = lambda c: (c.side_id, c.type, c.start)  # noqa: E731  (every field but the number)
    key = same(session.cards[g])
    per_side = len(session.cards) // 2
    return [h for h, c in session.cards.items() if h != g and same(c) == key
            and core.location(h) == loc and action - g % per_side + h % per_side not in legal]


def _action_view(session: WebSession, action: int, legal: set[int]) -> dict[str, Any]:
    core = session.core
    human = session.human
    name, arg = decode_action(action)
    text = core.action_string(human, action)
    out: dict[str, Any] = {"id": action, "text": text, "kind": name.lower()}
    g = None
    if name in OWN_CARD_ACTIONS:
        g = human * (len(session.cards) // 2) + arg
        out["card"] = session.cards[g].number
        out["verb"] = OWN_CARD_ACTIONS[name] if not (name == "STEAL" and human == 1) \
            else "sturmwind"
        out["help"] = session.cards[g].type.text or ""
    elif name == "SELECT_ENEMY":
        g = (1 - human) * (len(session.cards) // 2) + arg
        out["target"] = session.cards[g].number
        out["verb"] = "target"
        out["help"] = f"Target {session.config.card_name(g)}."
    elif name == "ZONE":
        out["zone"] = ("forest", "periphery", "base")[arg]
        out["help"] = f"Move to the {out['zone']}."
    else:
        out["help"] = GENERAL_HELP.get(name, "")
    if g is not None:
        twins = _twins(session, g, action, legal)
        if twins:
            numbers = [session.cards[h].number for h in twins]
            out["same_as"] = numbers
            out["note"] = (f"one choice for {len(twins) + 1} identical cards "
                           f"({', '.join([session.cards[g].number] + numbers)}): "
                           f"they are interchangeable (R27), so any of them does the same")
    return out


def pending_view(session: WebSession) -> dict[str, Any] | None:
    pend = session.core.pending
    if not pend:
        return None
    config = session.config
    out = {"kind": pend["kind"], "actor": SIDES[pend["actor"]], "text": pending_text(session.core, TITLES),
           "dice": pend["dice"], "modifiers": pend["modifiers"]}
    for key in ("card", "target", "defender"):
        if pend[key] >= 0:
            out[key] = config.card_name(pend[key])
    figures = pending_figures(session.core, TITLES)
    for key in ("totals", "needed", "succeeds_as_it_stands"):
        if key in figures:
            out[key] = figures[key]
    return out


def game_view(session: WebSession, log_from: int = 0) -> dict[str, Any]:
    """The whole table for the human; ``log_from``: the first log entry sent."""
    core = session.core
    human, bot = session.human, session.bot_side
    frags = core.fragments
    status = session.status()
    zones = []
    for place, title, home in ZONES:
        cards = {}
        for side in (0, 1):
            cards[SIDES[side]] = [card_view(session, g) for g in core.cards_at(place, side)]
        zones.append({"id": place, "title": title, "home": home, "fragments": frags[place],
                      "cards": cards})
    revealed = core.rockets_revealed
    view: dict[str, Any] = {
        "id": session.id, "version": session.version(), "status": status,
        "you": SIDES[human], "bot_side": SIDES[bot], "bot": session.bot_spec,
        "seed": session.seed, "turn": core.turn, "turns": session.config.turns,
        "phase": core.phase, "zones": zones,
        "fragments": {"pool": frags["pool"], "wildhorn": frags["wildhorn"],
                      "hidden": frags["hidden"]},
        "rockets": {"revealed": revealed,
                    "face_down": len(session.config.rockets) - len(revealed)},
        "hand": [card_view(session, g) for g in core.cards_at("hand", human)],
        "bot_hand": core.hand_size(bot),
        "decks": {"you": core.deck_size(human), "bot": core.deck_size(bot)},
        "in_play": [card_view(session, g) for g in core.cards_at("event")],
        "gone": [card_view(session, g) for g in core.cards_at("gone")],
        "score": dict(zip(SIDES, core.scores())),
        "pending": pending_view(session),
        "can_undo": bool(session.undo_stack),
        "log_size": len(session.events),
        "log": session.events[log_from:],  # {"who", "text"[, "value", "alternatives"]}
        "thinking": None if session.thinking_since is None
        else round(time.monotonic() - session.thinking_since, 2),
    }
    if status == "human":
        legal = core.legal_actions()
        view["actions"] = [_action_view(session, a, set(legal)) for a in legal]
        view["prompt"] = WINDOW_HELP.get(core.phase, "Your action: click one of your cards, "
                                         "or pass.")
    else:
        view["actions"] = []
    if status == "over":
        winner = bot if session.resigned else core.winner
        view["result"] = {"winner": SIDES[winner], "you_win": winner == human,
                          "resigned": session.resigned,
                          "text": ("You win" if winner == human else "The bot wins")
                          + (" (you resigned)" if session.resigned else "")
                          + f": Polish {core.scores()[0]}, German {core.scores()[1]}"}
    values = [e["value"] for e in session.events if e.get("value") is not None]
    view["win_estimates"] = values  # the human side's chance, as the bot saw it, move by move
    view["title"] = f"You play {TITLES[human]}"
    return view


def past_view(session: WebSession, k: int) -> dict[str, Any]:
    """The table as it was at the human's decision ``k`` (0: the first), for
    the review; its status is "review" (nothing to act on)."""
    if not 0 <= k < len(session.undo_stack):
        raise RequestError(f"decision {k}: this game has decisions 0 to "
                           f"{len(session.undo_stack) - 1}" if session.undo_stack
                           else f"decision {k}: no decision was made in this game yet")
    snap = session.undo_stack[k]
    past = copy.copy(session)
    past.core = Core.from_bytes(session.config, base64.b64decode(snap["core"]))
    past.events = session.events[:snap["events"]]
    past.undo_stack = session.undo_stack[:k]
    past.resigned = False
    past.thinking_since = None
    view = game_view(past)
    chosen = session.events[snap["events"]]["text"] if snap["events"] < len(session.events) else ""
    view.update(status="review", actions=[], id=session.id,
                review_step={"index": k, "of": len(session.undo_stack), "chosen": chosen})
    return view

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


def _action_view(record: GameRecord, action: int, legal: set[int]) -> dict[str, Any]:
    core = record.core
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


def pending_view(core: Core) -> dict[str, Any] | None:
    pend = core.pending
    if not pend:
        return None
    config = core.config
    out = {"kind": pend["kind"], "actor": SIDES[pend["actor"]], "text": pending_text(core, TITLES),
           "dice": pend["dice"], "modifiers": pend["modifiers"]}
    for key in ("card", "target", "defender"):
        if pend[key] >= 0:
            out[key] = config.card_name(pend[key])
    figures = pending_figures(core, TITLES)
    for key in ("totals", "needed", "succeeds_as_it_stands"):
        if key in figures:
            out[key] = figures[key]
    return out


def game_view(game: ServerGame, log_from: int = 0) -> dict[str, Any]:
    """The whole table for the human; ``log_from``: the first log entry sent."""
    record = game.record
    view = table_view(record, record.core, record.events, record.status(), log_from)
    view.update(id=game.id, version=record.version(),
                thinking=None if game.thinking_since is None
                else round(time.monotonic() - game.thinking_since, 2),
                save_error=game.save_error)
    return view


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
        "gone": [card_view(record, core, g) for g in core.cards_at("gone")],
        "score": dict(zip(SIDES, core.scores())),
        "pending": pending_view(core),
        "can_undo": made > 0,
        "log_size": len(events),
        "log": events[log_from:],  # {"who", "kind", "text", "details"[, extras]}
        "thinking": None,
    }
    if status == "human":
        legal = core.legal_actions()
        view["actions"] = [_action_view(record, a, set(legal)) for a in legal]
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


def past_view(game: ServerGame, k: int) -> dict[str, Any]:
    """The table as it was at the human's decision ``k`` (0: the first), for
    the review; its status is "review" (nothing to act on)."""
    record = game.record
    made = len(record.human_steps())
    if not 0 <= k < made:
        raise RequestError(f"decision {k}: this game has decisions 0 to {made - 1}" if made
                           else f"decision {k}: no decision was made in this game yet")
    core, _, at = record.decision(k)
    view = table_view(record, core, record.events[:at], "review", decisions=k)
    chosen = record.events[at]["text"] if at < len(record.events) else ""
    view.update(id=game.id, actions=[],
                review_step={"index": k, "of": made, "chosen": chosen})
    return view

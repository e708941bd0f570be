"""The web table's interim narrator: what one applied step changed, in words.

``narrate_step(config, before, after, viewer)`` compares the position before
and after one applied action (with the engine's automatic moves) and returns
the outcome lines the action texts of ``apps.play.PlaySession`` lack: the
dice of an action with modifiers, totals and the number needed, success or
failure, cards destroyed, moved, sent home or refreshed, fragments moved or
hidden, actions left in a chain, the end of a turn with the score.  Only
what ``viewer`` may know is said: a card is named only where it is public
(on the table, in play, out of the game) or the viewer's own.

This is the one place the server turns engine events into words; when
``apps/narration.py`` (one narrator for every interface) lands, the lead
swaps the call in :meth:`apps.server.games.WebSession.apply` for it.
"""

from __future__ import annotations

from typing import Any

from solver._core import Core

SIDES = ("Polish", "German")
ZONES = {"forest": "the Forest", "periphery": "the Periphery", "base": "the Rocket Base"}
PUBLIC = ("forest", "periphery", "base", "gone", "event")
FRAGMENT_PLACES = {"pool": "the pool", "periphery": "the Periphery", "hidden": "hiding",
                   "forest": "the Forest", "wildhorn": "Operation Wildhorn III",
                   "base": "the Rocket Base"}


def _name(config: Any, g: int) -> str:
    return config.card_name(g)


def _bullets(config: Any, g: int) -> int:
    return config.card_set.cards[g].type.bullets or 0


def _dice_text(config: Any, pend: dict[str, Any]) -> str:
    """The dice of an action under way, with modifiers, totals and the need."""
    dice, mods = pend["dice"], pend["modifiers"]
    if pend["kind"] == "attack" and len(dice) >= 2:
        attacker = pend["card"]
        defender = pend["defender"] if pend["defender"] >= 0 else pend["target"]
        a = dice[0] + mods[0] + _bullets(config, attacker)
        d = dice[1] + mods[1] + _bullets(config, defender)
        mod_a = f"{mods[0]:+d}" if mods[0] else ""
        mod_d = f"{mods[1]:+d}" if mods[1] else ""
        return (f"attack die {dice[0]}{mod_a} + {_bullets(config, attacker)} bullets = {a}, "
                f"defence die {dice[1]}{mod_d} + {_bullets(config, defender)} bullets = {d}; "
                f"the attack needs more than {d}")
    if dice:
        need = needed(config, pend)
        mod = f"{mods[0]:+d}" if mods[0] else ""
        total = dice[0] + mods[0]
        return f"die {dice[0]}{mod} = {total}" + (f", needs {need} or more" if need else "")
    return ""


def needed(config: Any, pend: dict[str, Any]) -> int | None:
    """The number a single-die action needs (search, spy/sturmwind), if known."""
    if pend["card"] < 0:
        return None
    abilities = config.card_set.cards[pend["card"]].type.abilities
    key = {"search": "search", "steal": "spy" if pend["actor"] == 0 else "sturmwind"}.get(
        pend["kind"])
    value = abilities.get(key) if key else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def narrate_step(config: Any, before: Core, after: Core, viewer: int) -> list[str]:
    """The outcome lines of one step from ``before`` to ``after`` for ``viewer``."""
    lines: list[str] = []
    pend = before.pending
    resolved = pend is not None and (after.pending is None or after.pending["kind"] != pend["kind"]
                                     or after.pending["card"] != pend["card"])
    changes = []  # (g, place before, place after, exhausted before, after)
    for g in range(len(config.card_set.cards)):
        (p0, e0), (p1, e1) = before.location(g), after.location(g)
        if (p0, e0) != (p1, e1):
            changes.append((g, p0, p1, e0, e1))
    destroyed = [g for g, p0, p1, _, _ in changes if p0 in ZONES and p1 == "gone"]
    if resolved and pend["kind"] in ("attack", "search", "steal") and pend["dice"]:
        who = SIDES[pend["actor"]]
        what = {"steal": "spy" if pend["actor"] == 0 else "sturmwind"}.get(pend["kind"],
                                                                          pend["kind"])
        head = f"{who} {what}"
        if pend["card"] >= 0:
            head += f" by {_name(config, pend['card'])}"
        if pend["kind"] == "attack" and pend["target"] >= 0:
            head += f" on {_name(config, pend['defender'] if pend['defender'] >= 0 else pend['target'])}"
        frag_moved = before.fragments != after.fragments
        if pend["kind"] == "attack":
            target = pend["defender"] if pend["defender"] >= 0 else pend["target"]
            hit = target in destroyed or after.location(target)[0] != before.location(target)[0]
        else:
            hit = frag_moved
        lines.append(f"{head}: {_dice_text(config, pend)}: "
                     + ("success" if hit else "failure, nothing happens"))
    elif resolved and pend["kind"] == "attack" and not pend["dice"]:
        target = pend["defender"] if pend["defender"] >= 0 else pend["target"]
        if target >= 0 and after.location(target)[0] != before.location(target)[0]:
            lines.append(f"{SIDES[pend['actor']]} attack on {_name(config, target)} succeeds "
                         f"without dice (Ambush!)")
    for g, p0, p1, e0, e1 in changes:
        own = (g // (len(config.card_set.cards) // 2)) == viewer
        name = _name(config, g)
        if p0 in ZONES and p1 == "gone":
            lines.append(f"{name} is destroyed and leaves the game")
        elif p0 in ZONES and p1 in ZONES and p0 != p1:
            lines.append(f"{name} moves from {ZONES[p0]} to {ZONES[p1]}"
                         + (" (exhausted)" if e1 else ""))
        elif p0 == "event" and p1 == "gone":
            lines.append(f"{name} is used up and leaves the game")
        elif p0 in ZONES and p1 == "hand":
            lines.append(f"{name} goes back to its owner's hand")
        elif p0 == "hand" and p1 == "gone" and (own or p1 in PUBLIC):
            lines.append(f"{name} is played and leaves the game")
    refreshed = [g for g, p0, p1, e0, e1 in changes if p0 == p1 and p0 in ZONES and e0 and not e1]
    if refreshed:
        if len(refreshed) <= 3:
            lines.append("Refreshed: " + ", ".join(_name(config, g) for g in refreshed))
        else:
            lines.append(f"{len(refreshed)} cards are refreshed (turned upright)")
    f0, f1 = before.fragments, after.fragments
    if f0 != f1:
        losses = {k: f0[k] - f1[k] for k in f0 if f0[k] > f1[k]}
        gains = {k: f1[k] - f0[k] for k in f0 if f1[k] > f0[k]}
        if sum(gains.values()) == sum(losses.values()):
            parts = []
            for dst, n in gains.items():
                src = ", ".join(FRAGMENT_PLACES[k] for k in losses)
                parts.append(f"{n} fragment{'s' if n != 1 else ''} from {src} to "
                             f"{FRAGMENT_PLACES[dst]}")
            lines.append("Fragments: " + "; ".join(parts))
        else:
            lines.append("Fragments now: " + ", ".join(f"{FRAGMENT_PLACES[k]} {f1[k]}"
                                                       for k in f1 if f1[k]))
    if not after.is_terminal() and after.phase == "actions" and after.actions_left > 1 \
            and after.actions_left != before.actions_left:
        lines.append(f"{SIDES[after.actor]} has {after.actions_left} actions in a row left")
    if after.turn != before.turn or (after.is_terminal() and not before.is_terminal()):
        polish, german = after.scores()
        lines.append(f"End of turn {before.turn}: score Polish {polish}, German {german}")
    if after.is_terminal() and not before.is_terminal():
        lines.append(f"Game over: {SIDES[after.winner]} wins")
    return lines

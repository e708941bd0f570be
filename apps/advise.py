"""Advice for the player to move: ``wildhorn-solve advise STATE.json``.

The bot searches the position (a state.json file holds one player's view;
``solver.state_io`` turns it into a state whose hidden cards are sampled,
and the searcher resamples them again on every iteration).  The answer
(``docs/advice.md`` explains every field, ``solver/data/advice.schema.json``
is its JSON Schema) is the recommended action, every legal action with its
recommended frequency, visits, value and *loss* (what it costs against the
recommended action), the win probability of each side with a 95% interval,
and the *responses*: a plan two plies deep.

Budgets
=======
``time`` / ``iterations`` (the ``--time`` / ``--iterations`` flags) win over
the spec's own ``time=`` / ``iterations=``; with neither anywhere the main
search runs :data:`DEFAULT_TIME` seconds.  The responses then search, in
all, about as many iterations as the main search ran (each of their
searches at least :data:`MIN_ITERATIONS`, so a small budget is exceeded
several times over), and with a time budget at
most as many seconds again (so an iteration budget is reproducible, for
the same seed and threads, and a
time budget about doubles the answer's time).

Responses
=========
For the recommended action and each other action whose value is within
:data:`NEAR` of it (at most :data:`PLANNED` actions in all), in
:data:`WORLDS` worlds sampled from what the player cannot see (the first
die or Rocket card of each world drawn by systematic sampling, so every face
is represented in proportion), the action is applied and the game is
followed, the player's own choices inside the action's resolution taken
from the main search's tree, up to the opponent's first decision (inside the
resolution, or the opponent's next main action or pass) or the player's next
free decision.  The *opponent model*: in up to ``K`` of the worlds that reach
an opponent decision (sampled systematically from them), the opponent's own
search from that world (it knows its hand there and samples the player's)
gives the probability of each reply; where the main tree already holds the
opponent's information set with enough visits, its visit frequencies are
used instead, and without budget the heuristic bot's choice.  So a reply's
``probability`` is the chance that the opponent can *and* will play it.
After each reply the game is followed again (the opponent's further choices
from its own search tree, chance sampled) to the player's next decision,
where a search gives the answer, its win probability and standard error
(the search's statistics pooled with the main tree's at that decision, the
answer the action with most visits).
Answers are grouped per class of public chance outcomes met on the way:
a roll of an attack, search or spy by its margin as rolled (the attack's
total minus the defence's, the total against the number needed) in bands
that a modifier of 1 or 2 can or cannot turn, a Rocket card or another die
by its value; every class of a listed reply is answered (a search pooled
with what the main tree holds at that decision), in words, and classes
with the same answer merged.

In a player's words
===================
A reply is what the player sees: a card of the opponent's hand is named by
its name only and identical cards (R27: the same name and text) are one
reply, and one answer; a decision the player does not see (a decline in a
private window, R29; the Polish redraw before the German's, R5) is never a
reply of its own, its worlds being keyed by the opponent's next play the
player sees ("plays no Ambush!, then passes priority"); a private decline
followed by nothing the player sees before his decision is, to him, no
reply at all (as where the opponent had nothing to play) and is not
listed.  Each reply and answer comes as words for a sentence (``says``,
``where``, ``then_says``); a class of rolls names the side that rolls and
is split where the roll turns from failing to succeeding, and a reply whose
classes all get one answer has no classes; every win chance of an action
or answer is written "59% ± 1%" (:func:`win_text`), the position's once,
with its 95% interval (:func:`interval_words`, a plain word when it is
wide), and an action within the noise of the recommended one is "about the
same" (:func:`about_the_same`).  ``format_advice`` writes the
text; the web pages draw the same fields (``static/advice_view.js``).
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from math import sqrt
from time import perf_counter
from typing import Any

from apps.narration import roll_needed
from bots import SEARCH_BOTS, make_bot, parse_spec
from bots.registry import INTERACTIVE_DEFAULTS, bot_from_options, search_defaults
from bots.heuristic import HeuristicBot
from bots import Observations, SearchBot, budget_clock
from bots.base import ENDGAME_SHARE
from solver import CARDS_PER_SIDE, Core, decode_action
from solver.errors import ParameterError, StateFormatError, brief
from solver.vocabulary import (PRIVATE_WINDOWS, SIDE_TITLES as TITLES, SIDES, STEAL_KINDS,
                               ZONE_TITLES, ZONES)

DEFAULT_TIME = 0.8       # seconds of main search when no budget is given (--help says so)
NEAR = 0.05              # alternatives within this much win probability get a plan too
PLANNED = 3              # at most this many planned actions (the recommended one first)
WORLDS = 200             # worlds sampled per planned action to find the opponent's decisions
OPPONENT_SEARCHES = 8    # worlds in which the opponent's own search is run (recommended action)
MIN_ITERATIONS = 100     # the smallest search of the responses
MAX_REPLIES = 4          # replies listed per planned action (the likeliest)
MIN_REPLY = 0.05         # replies less likely than this are left out
TREE_VISITS = 50         # main-tree visits at an opponent node that stand for its own search
TREE_ENOUGH = 4          # main-tree visits, in answer budgets, that answer without a search
OPPONENT_SHARE = 0.3     # share of a planned action's budget for the opponent's searches
AFTER_WALKS = 6          # walks after a reply when chance falls before the answer
CONFIRM_SHARE = 0.25     # share of the answers' budget for second searches of close calls
CONFIRMS = 2             # close calls searched again at most
CONFIRM_CLOSE = 0.6      # a close call: the runner-up has this share of the top's visits
OPPONENT_MODEL = (
    f"the opponent's own search (the same searcher, a share of the responses' budget) run "
    f"in up to {OPPONENT_SEARCHES} worlds sampled from what you cannot see among those that "
    f"reach his decision (3 for an alternative action), each world giving him a hand; your "
    f"search tree's visit frequencies where it already holds his position with "
    f"{TREE_VISITS} visits or more; replies less likely than {MIN_REPLY:.0%} are not listed")
_MAX_STEPS = 400         # bound on a walk (a game is far shorter between two decisions)


def budget_options(bot_spec: str, time: float | None = None,
                   iterations: int | None = None) -> tuple[str, dict[str, Any]]:
    """(bot name, options) with the budget advise uses: a flag (``time`` or
    ``iterations``) wins over the spec's own, the spec's own over the
    default of :data:`DEFAULT_TIME` seconds."""
    name, options = parse_spec(bot_spec)
    if time is not None and iterations is not None:
        raise ParameterError("--time and --iterations: give one budget, not both")
    if name not in SEARCH_BOTS:
        if time is not None or iterations is not None:
            flag = "--time" if time is not None else "--iterations"
            raise ParameterError(f"{flag}: the bot {name!r} does not search, it has no budget "
                                 f"(search bots: {', '.join(sorted(SEARCH_BOTS))})")
        return name, options
    if time is not None:
        options["time"] = float(time)
        options.pop("iterations", None)
    elif iterations is not None:
        options["iterations"] = int(iterations)
        options.pop("time", None)
    elif "time" not in options and "iterations" not in options:
        options["time"] = DEFAULT_TIME
    return name, options


def _spec_text(name: str, options: dict[str, Any]) -> str:
    return name + (":" + ",".join(f"{k}={v}" for k, v in options.items()) if options else "")


# ---- the player's words -----------------------------------------------------------

_STEP_WORDS = {"actions": "as {his} next action", "redraw": "at the redraw",
               "modifiers": "in the modifier window", "escort": "at the escort",
               "ambush": "at the Ambush!", "nurses": "at the Nurses", "witnesses":
               "at the Witnesses", "motorcycle": "at the Motorcycle", "zone":
               "choosing where to move", "target": "choosing the target",
               "refresh": "choosing what to refresh", "number": "choosing how many to hide",
               "end": "the game is over"}


def step_words(step: str, whose: str = "his") -> str:
    """Where in the game a decision falls, in words: "in the modifier window",
    "as his next action" (``whose``: "his", "your")."""
    return _STEP_WORDS.get(step, f"at the {step}").format(his=whose)


def decision_words(step: str) -> str:
    """The kind of decision in words: "main action", "modifier window"."""
    return {"actions": "main action", "modifiers": "modifier window"}.get(step, step)


def percent(x: float) -> str:
    """A probability as a player reads it: "59%"."""
    return f"{100 * x:.0f}%"


def win_text(value: float | None, stderr: float | None) -> str:
    """One format for a win chance everywhere: "59% ± 1%" (± one standard
    error of the search; an exact value has none)."""
    if value is None:
        return "forced"
    if not stderr:
        return percent(value)
    if stderr < 0.005:   # a tight estimate: one decimal, not "± 0%"
        return f"{100 * value:.1f}% ± {100 * stderr:.1f}%"
    return f"{percent(value)} ± {percent(stderr)}"


def about_the_same(loss: float | None, loss_stderr: float | None) -> bool:
    """An action is about as good as the recommended one when what it costs
    is within twice its standard error (and below 1% plus one standard
    error): the search cannot tell them apart."""
    if loss is None or loss_stderr is None:
        return False
    return loss <= 2 * loss_stderr and loss < 0.01 + loss_stderr


def no_play(phase: str) -> str:
    """A decision the other side does not see, as he sees it: a private
    decline (R29) "plays no Ambush!", the Polish redraw decision (R5)."""
    if phase == "redraw":
        return "decides in secret whether to redraw"
    label = PRIVATE_WINDOWS[phase]
    return "does not escort" if phase == "escort" else f"plays no {label}"


def _unseen_label(phase: str) -> str:
    """What a decision the viewer does not see is called: "Ambush!", "redraw"."""
    return PRIVATE_WINDOWS.get(phase, phase)


def _unseen_key(phase: str) -> str:
    """The reply text of a decision not seen, with no play seen after it."""
    return "a secret redraw decision" if phase == "redraw" else \
        f"no {PRIVATE_WINDOWS[phase]} played"


def _is_private_decline(s: Core, action: int, viewer: int | None = None) -> bool:
    """Whether the viewer does not see ``action`` at ``s`` when it is taken:
    a decline in a private window (R29), or, for the German viewer, the
    Polish player's redraw decision (R5: secret until the German decides)."""
    if s.phase in PRIVATE_WINDOWS:
        return decode_action(action)[0] == "DECLINE"
    return (s.phase == "redraw" and viewer is not None and s.current_player() == 0
            and viewer == 1)


def _card_words(s: Core, g: int, viewer: int) -> str:
    """A card as the viewer names it: his own or one on the table by number
    and name ("your PL04 Scouts" for his own named by the other side), a card
    of the other side that the viewer cannot see by its name only (any copy
    alike, R27: "Good Luck")."""
    owner = g // CARDS_PER_SIDE
    if owner != viewer and s.location(g)[0] in ("hand", "deck"):
        return s.config.card_set.cards[g].type.name
    return s.config.card_name(g)


def says(s: Core, actor: int, action: int, viewer: int) -> str:
    """``actor``'s ``action`` at ``s`` as part of a sentence: the viewer's
    own as an order ("play PL18 Good Luck"), the other side's in the third
    person ("plays Good Luck on your PL04 Scouts"; a private decline as what
    the viewer sees, R29: "plays no Ambush!")."""
    you = actor == viewer
    name, arg = decode_action(action)
    card = lambda g: _card_words(s, g, viewer)  # noqa: E731
    your = lambda g: ("your " if g // CARDS_PER_SIDE == viewer and not you else "") + card(g)  # noqa: E731,E501
    own = actor * CARDS_PER_SIDE + arg
    pend = s.pending or {}

    def verb(base: str, third: str | None = None) -> str:
        return base if you else (third or base + "s")

    if name == "PASS":
        return verb("pass", "passes")
    if name == "DECLINE":
        if s.phase == "redraw":
            return "keep your hand" if you else "keeps its hand"
        if s.phase == "modifiers":
            return verb("pass", "passes") + " priority"
        if s.phase in PRIVATE_WINDOWS:
            return f"decline {PRIVATE_WINDOWS[s.phase]}" if you else no_play(s.phase)
        return verb("decline")
    if name == "REDRAW":
        return verb("redraw") + " the cards drawn this turn"
    if name == "ZONE":
        unit = pend.get("card")
        what = "" if unit is None else " " + your(unit)
        return f"{verb('move')}{what} to {ZONE_TITLES[ZONES[arg]]}"
    if name == "NUMBER":
        return f"{verb('hide')} {arg + 1} fragment{'s' if arg else ''} on Hidden Fragments"
    if name == "PLACE":
        return f"{verb('place')} {card(own)}"
    if name == "PLAY":
        text = f"{verb('play')} {card(own)}"
        if s.phase == "ambush" and pend.get("defender") is not None:
            text += f" on {your(pend['defender'])}"
        elif s.phase == "nurses" and pend.get("defender") is not None:
            text += f" to save {your(pend['defender'])}"
        return text
    if name == "MOVE":
        return f"{verb('move')} {card(own)}"
    if name == "ATTACK":
        return f"{verb('attack')} with {card(own)}"
    if name == "SEARCH":
        return f"{verb('search', 'searches')} with {card(own)}"
    if name == "STEAL":
        if STEAL_KINDS[actor] == "spy":
            return f"{verb('spy', 'spies')} with {card(own)}"
        return f"{verb('use')} the Sturmwind of {card(own)}"
    if name == "COMMAND":
        return f"{verb('use')} the Command of {card(own)}"
    if name == "VOLUNTEERS":
        return f"{verb('use')} the Volunteers of {card(own)}"
    if name == "ASSIST":
        return f"{verb('give')} Assistance with {card(own)}"
    if name == "ESCORT":
        return f"{verb('escort')} with {card(own)}"
    if name == "SELECT_OWN":
        return f"{verb('refresh', 'refreshes')} {card(own)}"
    if name == "SELECT_ENEMY":
        return f"{verb('target')} {your((1 - actor) * CARDS_PER_SIDE + arg)}"
    return s.action_string(actor, action)


def _order(s: Core, action: int, player: int) -> str:
    """The player's answer at ``s`` as an order, saying when it is played:
    "play PL18 Good Luck", "search with PL01 Scouts as your next action"."""
    text = says(s, player, action, player)
    return text + " as your next action" if s.phase == "actions" else text


def _canonical(s: Core, actor: int, action: int) -> tuple[str, str | None]:
    """The text of ``action`` with a card played or placed from the hand
    named by the lowest-numbered card identical to it (R27: same name and
    text), so that DE16 Good Luck in one sampled world (or answer) and DE17
    Good Luck in another are one reply (one answer); and the number of the
    card it stands for (None: the same)."""
    text = s.action_string(actor, action)
    name, arg = decode_action(action)
    if name not in ("PLACE", "PLAY"):
        return text, None
    g = actor * CARDS_PER_SIDE + arg
    if s.location(g)[0] not in ("hand", "deck"):
        return text, None
    cs = s.config.card_set
    key = cs.class_key(cs.cards[g], with_start=False)   # START only matters at setup
    rep = min(h for h in range(actor * CARDS_PER_SIDE, (actor + 1) * CARDS_PER_SIDE)
              if cs.class_key(cs.cards[h], with_start=False) == key)
    if rep == g:
        return text, None
    return (text.replace(s.config.card_name(g), s.config.card_name(rep), 1),
            cs.cards[g].number)


# Solver nodes per iteration of an iteration budget in advise (the bots
# take 50, bots.base.ENDGAME_NODES_PER_ITERATION): at 4000 iterations half
# of it is 1M nodes, about a second of the solver (``wildhorn-solve bench
# endgame``: ``advise.exact_answers`` counts the suite's positions it
# finishes); a time budget keeps the bots' rule (half the time).
ADVISE_ENDGAME_NODES_PER_ITERATION = 500


def advise(state: Any, bot_spec: str = "ismcts", time: float | None = None,
           iterations: int | None = None, seed: int = 0, responses: bool = True,
           opponent: str = "search", keep_positions: bool = False,
           opponent_plays: list[tuple[Core, int]] | None = None,
           max_seconds: float | None = None) -> dict[str, Any]:
    """Searches ``state`` (a pyspiel WildhornState or a core position at a
    decision) and returns the advice as a JSON-ready dict.

    ``opponent_plays``: the opponent's plays of this turn (position before,
    action), as a state file's ``opponent_plays`` gives them
    (``solver.state_io.opponent_plays``); a search bot with
    ``inference=heuristic`` weighs the opponent's hands by them.
    ``opponent``: "search" (the opponent model of the module docstring) or
    "heuristic" (the heuristic bot's choice in every world, cheaper).
    ``keep_positions``: the answer also holds, under ``"_positions"``, the
    core position behind every answer (for the bench; not JSON).
    ``max_seconds``: a ceiling on the time of any budget, as a host caps a
    bot's move (the web server's board): the main search, the exact
    solver's share included, stops at it whatever its iterations, and the
    responses (searched, or read from an exact solve) at as many seconds
    again; the time is the searches' clock (``bots.budget_clock``), which tests replace."""
    core: Core = state.core if hasattr(state, "core") else state
    if core.is_terminal() or core.is_chance():
        raise StateFormatError("state: the position is not a decision (nothing to advise)")
    if opponent not in ("search", "heuristic"):
        raise ParameterError(f"--opponent: expected search or heuristic, got {brief(opponent)}")
    player = core.current_player()
    name, options = budget_options(bot_spec, time, iterations)
    if name in SEARCH_BOTS:
        # the interactive defaults (threads: every core) written into the
        # options, so stats.spec names the search that was run: an iteration
        # budget gives the same answer for the same seed and threads
        for key, value in search_defaults(name, interactive=True).items():
            if key in INTERACTIVE_DEFAULTS and key not in options:
                options[key] = value
        bot = bot_from_options(name, options, player, seed, interactive=True)
    else:
        bot = make_bot(bot_spec, player, seed, interactive=True)
    if isinstance(bot, SearchBot) and max_seconds is not None:
        # an iteration budget's solver counts nodes (50M at 200,000
        # iterations: most of a minute): the ceiling bounds it in time too
        bot.time = min(bot.time, max_seconds) if bot.time else float(max_seconds)
    if isinstance(bot, SearchBot):
        bot.endgame_every_action = True   # an exact answer gives every action's value
        # a person asking would rather wait a second for an exact answer:
        # an iteration budget gives the solver ADVISE_ENDGAME_NODES_PER_ITERATION
        bot.endgame_nodes_per_iteration = ADVISE_ENDGAME_NODES_PER_ITERATION
    if opponent_plays and isinstance(bot, SearchBot):
        observations = Observations(core.config, player)
        for before, action in opponent_plays:
            observations.record_play(before, action)
        result = bot.analyse(core, observations=observations)
    else:
        result = bot.analyse(core)
    if result.get("exact"):
        deadline = None if max_seconds is None else budget_clock() + max_seconds
        return _exact_advice(core, bot, result, bot_spec, _spec_text(name, options), seed,
                             responses, {k: options[k] for k in ("time", "iterations")
                                         if k in options}, deadline)
    # a mixed-strategy bot plays a sampled action; the advice names its most likely one
    recommended = result.get("best", result["action"])
    name_of = lambda a: core.action_string(player, a)  # noqa: E731
    stats = result.get("stats") or {}
    rows = stats.get("actions") or [{"action": a, "frequency": p, "visits": None,
                                     "value": None, "stderr": None}
                                    for a, p in result["policy"].items()]
    best_row = next((r for r in rows if r["action"] == recommended), None)
    actions = []
    for r in rows:
        row = {"action": name_of(r["action"]), "id": r["action"],
               "frequency": round(r["frequency"], 4), "visits": r["visits"],
               "value": None if r["value"] is None else round(r["value"], 4),
               "stderr": None if r["stderr"] is None else round(r["stderr"], 4),
               "loss": None, "loss_stderr": None}
        if r["value"] is not None and best_row is not None and best_row["value"] is not None:
            if r["action"] == recommended:
                row["loss"], row["loss_stderr"] = 0.0, 0.0
            else:
                row["loss"] = round(best_row["value"] - r["value"], 4)
                row["loss_stderr"] = round(sqrt(best_row["stderr"] ** 2 + r["stderr"] ** 2), 4)
        row["about_the_same"] = r["action"] != recommended and \
            about_the_same(row["loss"], row["loss_stderr"])
        actions.append(row)
    actions.sort(key=lambda r: (r["id"] != recommended, -r["frequency"], r["id"]))
    value = result.get("value")
    ci = result.get("value_ci95")
    budget = {k: options[k] for k in ("time", "iterations") if k in options}
    out: dict[str, Any] = {
        "to_move": SIDES[player],
        "phase": core.phase,
        "recommended": name_of(recommended),
        "recommended_id": recommended,
        "actions": actions,
        "value": None if value is None else {SIDES[p]: round(value[p], 4) for p in (0, 1)},
        "value_ci95": None if ci is None else {SIDES[p]: [round(x, 4) for x in ci[p]]
                                               for p in (0, 1)},
        "uncertainty": None if ci is None else uncertainty(*ci[player]),
        "responses": [],
        "responses_note": None,
        "opponent_model": None,
        "stats": {"bot": bot_spec, "spec": _spec_text(name, options), "seed": seed,
                  "budget": budget,
                  **{k: stats[k] for k in ("iterations", "worlds", "seconds", "nodes",
                                           "memory_bytes", "threads", "belief_worlds")
                     if k in stats}},
    }
    positions: list[dict[str, Any]] = []
    if not responses:
        out["responses_note"] = "responses not asked for"
    elif name not in SEARCH_BOTS:
        out["responses_note"] = (f"the {name} bot does not search: responses need a search "
                                 f"bot (--bot ismcts or oos)")
    elif "iterations" not in stats:
        out["responses_note"] = "a single legal action: nothing to plan"
        out["stats"]["seconds"] = 0.0
    else:
        t0 = perf_counter()
        # a time budget also bounds the responses' searches: as many seconds again
        seconds = options["time"] if "iterations" not in options else 0.0
        if max_seconds is not None:
            seconds = min(seconds, max_seconds) if seconds else float(max_seconds)
        planner = _Planner(bot, core, player, seed, stats["iterations"], opponent, seconds)
        candidates = _candidates(rows, recommended)
        shares = [0.7, 0.15, 0.15] if len(candidates) == 3 else [0.8, 0.2] \
            if len(candidates) == 2 else [1.0]
        by_id = {r["id"]: r for r in actions}
        for k, (a, share) in enumerate(zip(candidates, shares)):
            plan, note = planner.plan(a, share, searches=OPPONENT_SEARCHES if k == 0 else 3,
                                      positions=positions if keep_positions and k == 0
                                      else None)
            by_id[a]["responses"] = plan
            by_id[a]["responses_note"] = note
            if a == recommended:
                out["responses"], out["responses_note"] = plan, note
        out["opponent_model"] = (OPPONENT_MODEL if opponent == "search"
                                 else "the heuristic bot's choice in each sampled world")
        out["stats"]["responses_iterations"] = planner.iterations_used
        out["stats"]["responses_seconds"] = round(perf_counter() - t0, 3)
    if keep_positions:
        out["_positions"] = positions
    return out


def _exact_advice(core: Core, bot: SearchBot, result: dict[str, Any], bot_spec: str,
                  spec: str, seed: int, responses: bool, budget: dict[str, Any],
                  deadline: float | None = None) -> dict[str, Any]:
    """The advice when the bot solved the position exactly (``endgame=exact``
    and the position in the solvable region, exact.endgame): every action's
    exact win probability (no interval: ``stderr`` 0, the interval a point),
    ``"exact": true``, and the responses read from the solved tree: each
    reply the opponent plays under perfect play before the player's next
    decision, with the chance that play reaches it, and the player's exact
    best answer there."""
    player = core.current_player()
    stats = result["stats"]
    best = result["action"]
    by_action = {r["action"]: r["value"] for r in stats["actions"]}
    top = by_action[best]
    actions = [{"action": core.action_string(player, a), "id": a,
                "frequency": 1.0 if a == best else 0.0, "visits": None,
                "value": round(v, 6), "stderr": 0.0, "loss": round(top - v, 6),
                "loss_stderr": 0.0, "about_the_same": a != best and top - v < 1e-9}
               for a, v in by_action.items()]
    actions.sort(key=lambda r: (r["id"] != best, -r["value"], r["id"]))
    value = result["value"]
    out: dict[str, Any] = {
        "to_move": SIDES[player], "phase": core.phase,
        "recommended": core.action_string(player, best), "recommended_id": best,
        "actions": actions, "exact": True,
        "value": {SIDES[p]: round(value[p], 6) for p in (0, 1)},
        "value_ci95": {SIDES[p]: [round(value[p], 6)] * 2 for p in (0, 1)},
        "uncertainty": "exact",
        "responses": [], "responses_note": None,
        "opponent_model": ("exact: the position is solved (both hands known, only dice "
                           "left); the opponent plays its exact best reply"),
        "stats": {"bot": bot_spec, "spec": spec, "seed": seed, "budget": budget,
                  "seconds": round(stats["seconds"], 3), "nodes": stats["nodes"]},
    }
    if not responses:
        out["responses_note"] = "responses not asked for"
        return out
    plan, note = _exact_responses(core, bot, best, deadline)
    out["responses"], out["responses_note"] = plan, note
    by_id = {r["id"]: r for r in actions}
    by_id[best]["responses"], by_id[best]["responses_note"] = plan, note
    return out


def _exact_responses(core: Core, bot: SearchBot, action: int, deadline: float | None = None
                     ) -> tuple[list[dict[str, Any]], str | None]:
    """The opponent's exact best replies before the player's next free
    decision after ``action`` (the player's own choices inside the action's
    resolution taken with their exact best), every chance outcome on the way
    followed with its probability; after each reply, the player's exact
    best answer at the likeliest next decision and the exact value of the
    reply.  Every legal reply is listed (at most ``MAX_REPLIES + 2``): those
    perfect play never chooses with probability 0, so the answer to, say, a
    Bad Luck card the opponent should not play is there too."""
    player = core.current_player()
    opp = 1 - player
    replies: dict[int, dict[str, Any]] = {}

    def best_of(s: Core) -> tuple[int, float] | None:
        if deadline is None:
            solution, _ = bot.solve_exactly(s)
        else:   # each solve within what is left before ``deadline`` (on the bots' clock)
            left = deadline - budget_clock()
            if left <= 0:
                return None
            budget = bot.time
            bot.time = min(budget, left / ENDGAME_SHARE) if budget else left / ENDGAME_SHARE
            try:
                solution, _ = bot.solve_exactly(s)
            finally:
                bot.time = budget
        if solution is None or not solution.complete:
            return None
        return solution.best, solution.value

    def follow(s: Core, p: float, found: list, own: bool, faces: tuple = ()) -> bool:
        """Chance outcomes from ``s`` to the next decision (``own``: the
        player's own decisions inside the action's resolution taken with
        their exact best action, as far as the opponent's first decision
        or the player's next main action), as (position, probability, the
        die faces met); False if a solve ran out."""
        if s.is_chance():
            return all(follow(s.applied(a), p * q, found, own, faces + (a + 1,))
                       for a, q in s.chance_outcomes())
        if own and not s.is_terminal() and s.current_player() == player \
                and s.phase != "actions":
            solved = best_of(s)
            return solved is not None and follow(s.applied(solved[0]), p, found, own, faces)
        found.append((s, p, faces))
        return True

    first: list = []
    if not follow(core.applied(action), 1.0, first, True):
        return [], "the exact solve of your own follow-up ran out of budget"
    for s, p, rolled in first:
        if s.is_terminal() or s.current_player() != opp:
            continue
        solved = best_of(s)
        if solved is None:
            return [], "the exact solve of a reply ran out of budget"
        for reply in s.legal_actions():
            private = _is_private_decline(s, reply, player)
            if private and s.phase in PRIVATE_WINDOWS:
                continue   # a private decline (R29) is never a reply: you do not see it
            if private and reply != solved[0]:
                continue   # a decision you do not see: only his best one is followed
            text = _unseen_key(s.phase) if private else s.action_string(opp, reply)
            entry = replies.setdefault(text, {"p": 0.0, "phase": s.phase, "text": text,
                                              "says": no_play(s.phase) if private else
                                              says(s, opp, reply, player),
                                              "unseen": [_unseen_label(s.phase)]
                                              if private else None, "after": []})
            if reply == solved[0]:
                entry["p"] += p
            follow(s.applied(reply), p, entry["after"], False, rolled)
    if not replies:
        return [], ("the opponent has no decision you see before yours (under perfect play; "
                    "a private decline, R29, is not seen)")
    out = []
    # his best replies first (the likeliest under perfect play), then the
    # others, which perfect play never chooses (probability 0), best for him first
    for reply, entry in replies.items():
        total = sum(q for _, q, _ in entry["after"])
        groups: dict[tuple[str, str], dict[str, Any]] = {}
        for s, q, faces in entry["after"]:
            if s.is_terminal():
                v, then, at = (1.0 if s.returns()[player] > 0 else 0.0), \
                    "nothing: the game is over", "end"
                then_says = "nothing: the game is over"
            else:
                solved = best_of(s)
                if solved is None:
                    return [], "the exact solve of an answer ran out of budget"
                mine = s.current_player() == player
                v = solved[1] if mine else 1.0 - solved[1]
                then = (s.action_string(player, solved[0]) if mine
                        else f"nothing yet: the {TITLES[opp]} decides again "
                             f"({s.action_string(opp, solved[0])})")
                then_says = (_order(s, solved[0], player) if mine
                             else f"nothing yet: the {TITLES[opp]} decides again and "
                                  f"{says(s, opp, solved[0], player)}")
                at = s.phase
            # identical cards are one answer (R27): keyed by the lowest-numbered
            same = _canonical(s, player, solved[0])[0] if not s.is_terminal() and \
                s.current_player() == player else then
            g = groups.setdefault((same, at), {"q": 0.0, "v": 0.0, "faces": [], "then": then,
                                               "then_says": then_says, "texts": set()})
            g["texts"].add(then)
            g["q"] += q
            g["v"] += q * v
            g["faces"].append(faces)
        ranked = sorted(groups.items(), key=lambda kv: -kv[1]["q"])
        for _, g in ranked:
            if len(g["texts"]) > 1:   # the card numbers of the identical cards
                others = sorted(t.split()[0] for t in g["texts"] if t != g["then"])
                g["then_says"] += f" (or {' or '.join(others)}: identical cards, R27)"
        (_, at), top = ranked[0]
        then = top["then"]
        row = {"if": f"{SIDES[opp]} {entry['text']}", "reply": entry["text"],
               "phase": entry["phase"], "says": entry["says"],
               "where": step_words(entry["phase"], "his"),
               "probability": round(entry["p"], 6), "then": then,
               "then_says": top["then_says"], "at": at,
               "value": round(sum(g["v"] for g in groups.values()) / total, 6),
               "stderr": 0.0}
        if entry["unseen"]:
            row["unseen"] = entry["unseen"]
        if len(ranked) > 1:
            row["outcomes"] = [{"when": _exact_when(g["faces"]), "probability":
                                round(g["q"] / total, 6), "then": g["then"],
                                "then_says": g["then_says"], "at": a,
                                "value": round(g["v"] / g["q"], 6), "stderr": 0.0}
                               for (_, a), g in ranked]
            row["outcomes_covered"] = 1.0
        out.append(row)
    out.sort(key=lambda r: (-r["probability"], r["value"]))
    return out[:MAX_REPLIES + 2], None


def _exact_when(faces: list[tuple]) -> str:
    """The dice of an outcome class of an exact answer, in words."""
    shown = ["-".join(str(f) for f in x) for x in sorted(faces) if x]
    if not shown:
        return "always"
    kind = "die shows" if all(len(x) == 1 for x in faces) else "dice show"
    listed = ", ".join(shown[:8]) + (f" and {len(shown) - 8} more" if len(shown) > 8 else "")
    return f"if the {kind} {listed}"


def _candidates(rows: list[dict[str, Any]], recommended: int) -> list[int]:
    """The recommended action, then the others within NEAR of its value (best first)."""
    best = next((r for r in rows if r["action"] == recommended), None)
    out = [recommended]
    if best is None or best["value"] is None:
        return out
    near = sorted((r for r in rows if r["action"] != recommended and r["value"] is not None
                   and r["visits"] and best["value"] - r["value"] <= NEAR),
                  key=lambda r: -r["value"])
    return out + [r["action"] for r in near[:PLANNED - 1]]


def _policy_of(node: dict[str, Any]) -> dict[int, float]:
    """Action probabilities of a node_stats answer (frequencies, else visits)."""
    rows = node["actions"]
    if rows and "frequency" in rows[0]:
        weights = {r["action"]: r["frequency"] for r in rows}
    else:
        weights = {r["action"]: r["visits"] for r in rows}
    total = sum(weights.values())
    if total <= 0:
        return {a: 1 / len(weights) for a in weights}
    return {a: w / total for a, w in weights.items()}


def _likeliest(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The row a search recommends: the highest frequency (ISMCTS: visits), then value."""
    return max(rows, key=lambda e: (e.get("frequency", e.get("visits", 0)), e.get("value", 0.0)))


class _Planner:
    """The responses of one position (see the module docstring)."""

    def __init__(self, bot: Any, core: Core, player: int, seed: int, iterations: int,
                 opponent: str, seconds: float = 0.0):
        self.bot = bot
        self.core = core
        self.player = player
        self.opp = 1 - player
        self.seed = seed
        self.budget = max(0, int(iterations))
        self.seconds = seconds   # > 0: each search also stops at its share of these seconds
        self.deadline = 0.0      # the end of the current planned action's share of them
        self.opponent = opponent
        self.iterations_used = 0
        self.rng = random.Random(seed * 7919 + 17)
        self.heuristic = (HeuristicBot(0, seed), HeuristicBot(1, seed))
        self.dice = core.config.dice_sides
        self.cards = {c.global_index: c for c in core.config.card_set.cards}

    def _time_for(self, iters: int) -> float:
        """The seconds a search of ``iters`` iterations may take (0: no
        bound): its share of the time budget, and no more than what is left
        of the planned action's share (a search past it runs one chunk)."""
        if self.seconds <= 0 or not self.budget:
            return 0.0
        left = self.deadline - perf_counter()
        return max(0.001, min(self.seconds * iters / self.budget, left))

    # ---- walking ------------------------------------------------------------
    def _chance_event(self, s: Core, outcome: int) -> tuple | None:
        """A public chance outcome in a player's words, as the class it falls in.

        A roll of an attack, search or steal (spy, Sturmwind) is classed by
        its margin as rolled (the attack's total minus the defence's, the
        total minus the number needed), in bands that a modifier of 1 or 2
        (Assistance, Good Luck, Bad Luck) can or cannot turn: ``("margin",
        label, need, lo, hi, low, high)`` says the margin is in ``lo..hi``
        (``low..high`` the margins the roll can have; the first die of an
        attack gives no event, its class is known with the defence die).
        Other dice and Rocket cards give ``(label, value)``."""
        if s.phase == "rocket":
            rockets = s.config.rockets
            return ("the Rocket card", rockets[outcome]) if outcome < len(rockets) else None
        if s.phase != "roll":
            return None
        q = s.pending
        if q is None:
            return ("the die", outcome + 1)
        die, kind, mods = outcome + 1, q["kind"], q["modifiers"]
        dice = list(q["dice"]) + [die]
        # the side acting is the owner of the acting card (an attack's
        # attacker, a search's or steal's roller), named "your" for the player
        actor = q["card"] // CARDS_PER_SIDE if q.get("card") is not None else q["actor"]
        whose = lambda side: "your" if side == self.player else f"the {TITLES[side]}"  # noqa: E731
        sides = self.dice
        if kind == "attack":
            if len(dice) < 2:
                return None
            att = self._bullets(q["card"]) + mods[0]
            dfn = self._bullets(q["defender"]) + mods[1]
            margin = dice[0] + att - dice[1] - dfn
            low, high = 1 + att - sides - dfn, sides + att - 1 - dfn
            lo, hi = _band(margin - 1)
            label = f"{whose(actor)} attack total minus {whose(1 - actor)} defence total"
            return ("margin", label, None, max(low, lo + 1), min(high, hi + 1), low, high)
        if kind in ("search", "steal"):
            need = self._needed(q["card"], kind)
            total = dice[0] + mods[0]
            lo, hi = _band(total - need)
            word = "search" if kind == "search" else \
                ("spy" if STEAL_KINDS[actor] == "spy" else "Sturmwind")
            low, high = 1 + mods[0], sides + mods[0]
            return ("margin", f"{whose(actor)} {word} total", need, max(low, need + lo),
                    min(high, need + hi), low, high)
        roller = q["actor"] if len(q["dice"]) == 0 else 1 - q["actor"]
        return (f"{whose(roller)} {kind.replace('_', ' ')} roll", die)

    def _bullets(self, g: int) -> int:
        return self.cards[g].type.bullets

    def _needed(self, g: int, kind: str) -> int:
        return roll_needed(self.cards[g], kind)

    def _chance(self, s: Core, u: float | None, events: list) -> None:
        """Applies one chance outcome: by ``u`` (systematic sampling) or at random."""
        outcomes = s.chance_outcomes()
        x = self.rng.random() if u is None else u
        acc = 0.0
        pick = outcomes[-1][0]
        for a, p in outcomes:
            acc += p
            if x < acc:
                pick = a
                break
        ev = self._chance_event(s, pick)
        if ev is not None and len(outcomes) > 1:
            events.append(ev)
        s.apply(pick)

    def _own_choice(self, s: Core) -> int:
        """The player's own choice inside its action: the main tree's, else the heuristic's."""
        node = self.bot.search_engine.node_stats(s)
        if node is not None and node["visits"] >= 5:
            return _likeliest(node["actions"])["action"]
        return self.heuristic[self.player].analyse(s)["action"]

    def _to_opponent(self, action: int, u: float) -> tuple[str, Core, tuple]:
        """One world: ``action`` applied and followed to the opponent's first
        decision ("opponent"), the player's next free decision ("own") or the
        end ("end"); returns (kind, position, chance events)."""
        s = self.core.resample(self.player, self.rng.randrange(2**62))
        s.apply(action)
        events: list = []
        first = True
        for _ in range(_MAX_STEPS):
            if s.is_terminal():
                return "end", s, tuple(events)
            if s.is_chance():
                self._chance(s, u if first else None, events)
                first = False
                continue
            if s.current_player() == self.opp:
                return "opponent", s, tuple(events)
            q = s.pending
            if q is None or q["actor"] != self.player:
                return "own", s, tuple(events)
            s.apply(self._own_choice(s))
        return "end", s, tuple(events)

    def _to_answer(self, s: Core, engine: Any, events: list, u: float | None = None,
                   seen: list | None = None) -> Core:
        """From after a reply to the player's next decision (or the end); the
        first chance event there drawn by ``u`` (systematic sampling), if given.
        ``seen``: gets the opponent's first play on the way that the player
        sees (not a private decline, R29), as :meth:`_reply_key` gives it."""
        for _ in range(_MAX_STEPS):
            if s.is_terminal():
                return s
            if s.is_chance():
                self._chance(s, u, events)
                u = None
                continue
            if s.current_player() == self.player:
                return s
            node = engine.node_stats(s) if engine is not None else None
            if node is not None and node["visits"] >= 20:
                a = _likeliest(node["actions"])["action"]
            else:
                a = self.heuristic[self.opp].analyse(s)["action"]
            if seen is not None and not seen and not _is_private_decline(s, a, self.player):
                seen.append(self._reply_key(s, a))
            s.apply(a)
        return s

    def _reply_key(self, s: Core, reply: int) -> tuple[tuple[str, str], dict[str, Any]]:
        """A reply of the opponent at ``s`` as the player tells replies apart:
        (step, text) with identical hidden cards as one (R27), and its words."""
        text, stands_for = _canonical(s, self.opp, reply)
        info = {"says": says(s, self.opp, reply, self.player),
                "same_as": {stands_for} if stands_for else set(), "unseen": set()}
        return (s.phase, text), info

    # ---- the opponent model -----------------------------------------------------
    def _replies(self, s: Core, iters: int) -> tuple[dict[int, float], Any]:
        """The opponent's probability of each reply at ``s``, and the tree behind it."""
        if self.opponent == "search":
            node = self.bot.search_engine.node_stats(s)
            if node is not None and node["visits"] >= TREE_VISITS:
                return _policy_of(node), self.bot.search_engine
            if iters > 0:
                engine = self.bot.new_engine(self.rng.randrange(2**62))
                st = engine.search(s, iterations=iters, time_limit=self._time_for(iters))
                self.iterations_used += st["iterations"]
                return {r["action"]: r["frequency"] for r in st["actions"]}, engine
        h = self.heuristic[self.opp].analyse(s)
        tied = h["tied"]
        return {a: 1 / len(tied) for a in tied}, None

    # ---- one planned action -------------------------------------------------------
    def plan(self, action: int, share: float, searches: int,
             positions: list | None = None) -> tuple[list[dict[str, Any]], str | None]:
        budget = int(self.budget * share)
        self.deadline = perf_counter() + self.seconds * share
        walks = [self._to_opponent(action, (i + self.rng.random()) / WORLDS)
                 for i in range(WORLDS)]
        reached = [w for w in walks if w[0] == "opponent"]
        if not reached:
            return [], self._why_not(walks)
        p_reach = len(reached) / len(walks)
        # systematic sample of the worlds reaching the opponent, sorted by what
        # they show, so that every kind of opponent decision is represented
        reached.sort(key=lambda w: (w[2], w[1].phase))
        k = min(searches, len(reached))
        step = len(reached) / k
        picked = [reached[int(i * step)] for i in range(k)]
        opp_iters = max(MIN_ITERATIONS, int(OPPONENT_SHARE * budget / k))
        # (phase, reply text) -> events -> [(weight, position after the reply)];
        # a reply is what the player sees: identical hidden cards are one
        # reply (R27), and a private decline (R29) is not seen: the worlds
        # where he declines are keyed by his next play the player sees (or,
        # with none before the player's decision, by "no Ambush! played")
        classes: dict[tuple, dict[tuple, list]] = defaultdict(lambda: defaultdict(list))
        meta: dict[tuple, dict[str, Any]] = {}
        for _, s, events in picked:
            events = events[:1]   # the classes: the first roll before his reply, ...
            policy, engine = self._replies(s, opp_iters)
            for reply, p in policy.items():
                if p * p_reach < MIN_REPLY / 4:
                    continue
                private = _is_private_decline(s, reply, self.player)
                key, info = self._reply_key(s, reply)
                if private:
                    key = (s.phase, _unseen_key(s.phase))
                    info["says"] = no_play(s.phase)
                    info["unseen"] = {s.phase}
                # chance after the reply (the dice of an attack he starts or
                # lets happen): AFTER_WALKS walks, the first outcome stratified
                shift = self.rng.random()
                for j in range(AFTER_WALKS):
                    t = s.copy()
                    t.apply(reply)
                    ev = list(events)
                    seen: list | None = [] if private else None
                    d = self._to_answer(t, engine, ev, (j + shift) / AFTER_WALKS, seen)
                    ev = ev[:len(events) + 1]   # ... and the first after it
                    k2, info2 = key, info
                    if seen:
                        k2, info2 = seen[0]
                        info2["unseen"] = {s.phase}
                    elif private and s.phase in PRIVATE_WINDOWS:
                        # he declined in private (R29) and plays nothing you see
                        # before your decision: to you, nothing happened (as
                        # where he had nothing to play), so it is no reply
                        if j == 0 and len(ev) == len(events):
                            break
                        continue
                    _note(meta, k2, info2)
                    if j == 0 and len(ev) == len(events):   # no chance event on the way
                        classes[k2][tuple(ev)].append((p * p_reach / k, d))
                        break
                    classes[k2][tuple(ev)].append((p * p_reach / k / AFTER_WALKS, d))
        if not classes:
            return [], (f"the {TITLES[self.opp]} makes no play you see before your next "
                        f"decision in any of {len(walks)} sampled worlds (a private decline, "
                        f"R29, is not seen)")
        weight = lambda cls: sum(w for c in cls.values() for w, _ in c)  # noqa: E731
        ranked = sorted(classes.items(), key=lambda kv: -weight(kv[1]))
        kept = [(key, cls) for key, cls in ranked if weight(cls) >= MIN_REPLY][:MAX_REPLIES]
        ranked = kept or ranked[:1]   # every reply is rare: still name the likeliest one
        # every class of every listed reply is answered; the answers' budget is
        # shared in proportion to the square root of each class's weight
        cells = [(sum(w for w, _ in items), i, ev) for i, (_, cls) in enumerate(ranked)
                 for ev, items in cls.items()]
        roots = sum(sqrt(w) for w, _, _ in cells) or 1.0
        total = (1 - OPPONENT_SHARE) * budget
        answers: dict[tuple, tuple] = {}
        for w, i, ev in cells:
            d = max(ranked[i][1][ev], key=lambda x: x[0])[1]
            n = max(MIN_ITERATIONS, int((1 - CONFIRM_SHARE) * total * sqrt(w) / roots))
            answers[(i, ev)] = (d, self._answer(d, n))
        # a second search for the closest calls (the two likeliest actions'
        # visits nearest each other), pooled with the first
        close = sorted(((a["_close"], c) for c, (d, a) in answers.items()
                        if a.get("_close", 0.0) >= CONFIRM_CLOSE), reverse=True)[:CONFIRMS]
        for _, c in close:
            d, a = answers[c]
            n = max(MIN_ITERATIONS, int(CONFIRM_SHARE * total / len(close)))
            answers[c] = (d, self._answer(d, n, a))
        out = []
        for i, (key, cls) in enumerate(ranked):
            out.append(self._response(key, cls, weight(cls),
                                      {ev: answers[(i, ev)] for ev in cls}, positions,
                                      meta[key]))
        return out, None

    def _answer(self, d: Core, iters: int, first: dict[str, Any] | None = None
                ) -> dict[str, Any]:
        """The player's best action at ``d`` with its value and standard
        error: a search of ``iters`` iterations pooled with what the main
        search's tree holds at that decision (its iterations through it), or
        with the statistics of a ``first`` answer (a confirmation)."""
        if d.is_terminal():
            won = d.returns()[self.player] > 0
            return {"then": f"nothing: the game is over, you {'win' if won else 'lose'}",
                    "then_says": f"nothing: the game is over and you {'win' if won else 'lose'}",
                    "value": 1.0 if won else 0.0, "stderr": 0.0, "iterations": 0,
                    "at": "end"}
        legal = d.legal_actions()
        if len(legal) == 1:
            return {"then": d.action_string(self.player, legal[0]),
                    "then_says": _order(d, legal[0], self.player), "value": None,
                    "stderr": None, "iterations": 0, "at": d.phase}
        node = None if first is not None else self.bot.search_engine.node_stats(d)
        pooled: dict[int, list[float]] = {} if first is None else \
            {a: list(v) for a, v in first["_pooled"].items()}
        done = 0 if first is None else first["iterations"]
        if node is not None and node["player"] == self.player and node["actions"] \
                and "value" in node["actions"][0]:
            for r in node["actions"]:
                pooled[r["action"]] = [r["visits"], r["value"] * r["visits"]]
            done = node["visits"]
        if first is not None or done < TREE_ENOUGH * iters:
            engine = self.bot.new_engine(self.rng.randrange(2**62))
            st = engine.search(d, iterations=iters, time_limit=self._time_for(iters))
            self.iterations_used += st["iterations"]
            done += st["iterations"]
            for r in st["actions"]:
                v = pooled.setdefault(r["action"], [0, 0.0])
                v[0] += r["visits"]
                v[1] += r["value"] * r["visits"]
        order = sorted(pooled.items(), key=lambda kv: (kv[1][0], kv[1][1]), reverse=True)
        action, (n, wins) = order[0]
        value = wins / n if n else 0.0
        return {"then": d.action_string(self.player, action), "id": action,
                "then_says": _order(d, action, self.player), "value": value,
                "card": _canonical(d, self.player, action),
                "stderr": sqrt(value * (1 - value) / n) if n > 1 else 1.0,
                "iterations": done, "at": d.phase, "_pooled": pooled,
                "_close": order[1][1][0] / n if len(order) > 1 and n else 0.0}

    def _response(self, key: tuple, cls: dict[tuple, list], total: float,
                  answers: dict[tuple, tuple], positions: list | None,
                  info: dict[str, Any]) -> dict[str, Any]:
        """One reply (``total`` its probability) with the answer to each of
        its chance classes ``cls`` (events -> [(weight, position)]),
        ``answers[events]`` = (position, answer); ``info`` its words."""
        phase, text = key
        ranked = sorted(cls.items(), key=lambda kv: -sum(w for w, _ in kv[1]))
        answered = []
        for events, items in ranked:
            weight = sum(w for w, _ in items)
            d, ans = answers[events]
            answered.append((events, weight, ans))
            if positions is not None and ans["iterations"]:
                positions.append({"if": f"{SIDES[self.opp]} {text}", "then": ans["then"],
                                  "events": events, "position": d,
                                  "iterations": ans["iterations"]})
        # merge the classes with the same answer
        # (the same answer with identical cards, R27: PL18 Good Luck where
        # PL19 Good Luck was played first, is one answer)
        # (and only where the rolls went the same way: a class of rolls that
        # succeed is never joined with one of rolls that fail)
        merged: dict[tuple, list] = defaultdict(list)
        for events, weight, ans in answered:
            merged[(ans.get("card", (ans["then"], None))[0], _verdicts(events))].append(
                (events, weight, ans))
        # an answer is named once in the reply, by its most likely card (R27)
        named: dict[Any, dict[str, Any]] = {}
        for (card, _), group in sorted(merged.items(), key=lambda kv: -max(x[1] for x in kv[1])):
            named.setdefault(card, max(group, key=lambda x: x[1])[2])
        texts_of: dict[Any, set] = defaultdict(set)
        for (card, _), group in merged.items():
            texts_of[card] |= {a["then"] for _, _, a in group}
        shown = total or 1.0   # outcome probabilities are shares of the whole reply
        outcomes = []
        for (card, _), group in merged.items():
            w = sum(wt for _, wt, _ in group)
            first = named[card]
            then_says = first["then_says"]
            texts = texts_of[card]
            if len(texts) > 1:   # the card numbers of the identical cards
                others = sorted(t.split()[0] for t in texts if t != first["then"])
                then_says += f" (or {' or '.join(others)}: identical cards, R27)"
            outcomes.append({"when": _describe_events([e for e, _, _ in group], self.dice),
                             "probability": round(w / shown, 4), "then": first["then"],
                             "then_says": then_says, "at": first["at"], **_combine(group)})
        outcomes.sort(key=lambda o: -o["probability"])
        head = outcomes[0]
        value = _combine(answered)
        r: dict[str, Any] = {
            "if": f"{SIDES[self.opp]} {text}", "reply": text, "phase": phase,
            "says": _reply_says(info), "where": step_words(phase, "his"),
            "probability": round(total, 4),
            "then": head["then"], "then_says": head["then_says"], "at": head["at"],
            "value": value["value"], "stderr": value["stderr"],
        }
        if info["same_as"]:
            r["same_as"] = sorted(info["same_as"])
        if info["unseen"]:
            r["unseen"] = [_unseen_label(w) for w in sorted(info["unseen"])]
        # a chance event matters only where its outcomes get different answers:
        # one answer for every class met is the reply's answer, whatever the
        # dice or the Rocket card (no "if the Rocket card is 1-5 (100%)")
        if any(events for events, _, _ in answered) and len(outcomes) > 1:
            r["outcomes"] = outcomes
            # each outcome's probability is rounded: their sum may pass 1 by a hair
            r["outcomes_covered"] = min(1.0, round(sum(o["probability"] for o in outcomes), 4))
        return r

    def _why_not(self, walks: list) -> str:
        """Why the opponent has no decision before the player's next free one."""
        opp = TITLES[self.opp]
        ends = Counter(kind for kind, _, _ in walks)
        if ends["end"] == len(walks):
            return f"the {opp} cannot act: the game ends with this action"
        own = [s for kind, s, _ in walks if kind == "own"]
        s = own[0] if own else walks[0][1]
        why = []
        if self.core.hand_size(self.opp) == 0:
            why.append("he holds no cards")
        if own:
            phases = Counter(x.phase for x in own)
            phase = phases.most_common(1)[0][0]
            q = own[0].pending
            if phase == "actions" and own[0].actor == self.player:
                why.append("you act again first (your next main action)")
            elif q is not None and q["actor"] == self.opp:
                why.append(f"your next decision ({phase}) comes inside the {opp}'s action "
                           f"before he decides anything")
            else:
                why.append(f"your next decision ({phase}) comes first")
        del s
        return (f"the {opp} cannot act before your next decision in any of {len(walks)} "
                f"sampled worlds: " + "; ".join(why))


def _note(meta: dict[tuple, dict[str, Any]], key: tuple, info: dict[str, Any]) -> None:
    """Gathers the words of one reply seen in several worlds: the identical
    cards it stood for (R27) and the private windows declined before it (R29)."""
    have = meta.get(key)
    if have is None:
        meta[key] = {"says": info["says"], "same_as": set(info["same_as"]),
                     "unseen": set(info["unseen"])}
    else:
        have["same_as"] |= info["same_as"]
        have["unseen"] |= info["unseen"]


def _reply_says(info: dict[str, Any]) -> str:
    """A reply as the player sees it, for "If the German ...": "plays Good
    Luck", or, where he may have declined a private window first (R29),
    "plays no Ambush!, then passes priority"."""
    before = [no_play(w) for w in sorted(info["unseen"]) if no_play(w) != info["says"]]
    if not before:
        return info["says"]
    return ", ".join(before) + ", then " + info["says"]


def _combine(group: list) -> dict[str, Any]:
    """Weighted mean value and its standard error of answered classes
    ``(events, weight, answer)``; None where an answer has no value."""
    items = [(w, a) for _, w, a in group if a["value"] is not None]
    if not items:
        return {"value": None, "stderr": None}
    total = sum(w for w, _ in items) or 1.0
    value = sum(w * a["value"] for w, a in items) / total
    se = sqrt(sum((w / total) ** 2 * a["stderr"] ** 2 for w, a in items))
    return {"value": round(value, 4), "stderr": round(se, 4)}


def _faces(values: set[int], sides: int) -> str:
    """{4, 5, 6} -> "4 or more"; {1, 2, 3} -> "1-3"; {2, 5} -> "2 or 5"."""
    v = sorted(values)
    if len(v) == 1:
        return str(v[0])
    if v == list(range(v[0], v[-1] + 1)):
        if v[-1] >= sides:
            return f"{v[0]} or more"
        if v[0] <= 1:
            return f"{v[-1]} or less"
        return f"{v[0]}-{v[-1]}"
    return ", ".join(map(str, v[:-1])) + f" or {v[-1]}"


def _listed(values: set[int]) -> str:
    """{1, 2} -> "1 or 2"; {1, 2, 3} -> "1-3"; {1, 3, 5} -> "1, 3 or 5"."""
    v = sorted(values)
    if len(v) >= 3 and v == list(range(v[0], v[-1] + 1)):
        return f"{v[0]}-{v[-1]}"
    return str(v[0]) if len(v) == 1 else ", ".join(map(str, v[:-1])) + f" or {v[-1]}"


def _band(spare: int) -> tuple[int, int]:
    """The band of a roll's spare margin (0: exactly enough to succeed):
    2 or more (a modifier of 2 against it still leaves it succeeding), 0-1,
    -2 to -1 (a modifier of 2 for it turns it), -3 or less."""
    if spare >= 2:
        return 2, 99
    if spare >= 0:
        return 0, 1
    if spare >= -2:
        return -2, -1
    return -99, -3


def _span(lo: int, hi: int, low: int, high: int) -> str:
    """lo..hi among the possible low..high in words: "4 or more", "-2 to 0"."""
    if lo == hi:
        return str(lo)
    if hi >= high:
        return f"{lo} or more"
    if lo <= low:
        return f"{hi} or less"
    return f"{lo}-{hi}" if lo >= 0 else f"{lo} to {hi}"


def _margin_words(label: str, need: int | None, values: set[int], low: int,
                  high: int) -> str:
    """A roll's class (its totals or margins ``values``) in words, split
    where the roll turns from failing to succeeding as rolled, so that no
    span mixes the two: "is -1 to 0 (fails as rolled) or 1-2 (succeeds as
    rolled)"."""
    threshold = 1 if need is None else need
    runs: list[list[int]] = []
    for x in sorted(values):
        if runs and x == runs[-1][-1] + 1 and (x >= threshold) == (runs[-1][-1] >= threshold):
            runs[-1].append(x)
        else:
            runs.append([x])
    parts = []
    for i, r in enumerate(runs):
        verdict = "succeeds as rolled" if r[0] >= threshold else "fails as rolled"
        note = f"needs {need}; {verdict}" if need is not None and i == 0 else verdict
        parts.append(f"{_span(r[0], r[-1], low, high)} ({note})")
    return f"{label} is " + " or ".join(parts)


def _verdicts(events: tuple) -> tuple:
    """Whether each roll of a chance class succeeds as rolled: (label,
    succeeds) for every margin event (a class's band lies on one side of
    the roll's threshold, see :func:`_band`)."""
    out = []
    for ev in events:
        if ev[0] == "margin":
            _, label, need, lo, _hi, _low, _high = ev
            out.append((label, lo >= (1 if need is None else need)))
    return tuple(out)


def _class_sets(events: tuple) -> dict[str, tuple]:
    """One class's events as label -> (values, margin info or None)."""
    out: dict[str, tuple] = {}
    for ev in events:
        if ev[0] == "margin":
            _, label, need, lo, hi, low, high = ev
            out[label] = (frozenset(range(lo, hi + 1)), (need, low, high))
        else:
            out[ev[0]] = (frozenset([ev[1]]), None)
    return out


def _describe_events(classes: list[tuple], sides: int) -> str:
    """The chance outcome classes of a merged answer in a player's words:
    classes that differ in one roll only are joined (its values united),
    the rest listed with "or"; a roll all of whose outcomes are in the
    class is left out (it does not matter)."""
    if not any(classes):
        return "always"
    items = [_class_sets(c) for c in classes]
    merged = True
    while merged:
        merged = False
        for i in range(len(items)):
            for j in range(i + 1, len(items)):
                a, b = items[i], items[j]
                if a.keys() != b.keys():
                    continue
                diff = [k for k in a if a[k][0] != b[k][0]]
                if len(diff) <= 1:
                    c = dict(a)
                    for k in diff:
                        c[k] = (a[k][0] | b[k][0], a[k][1])
                    items[i] = c
                    del items[j]
                    merged = True
                    break
            if merged:
                break
    texts = []
    for item in items:
        parts = []
        for label, (values, margin) in item.items():
            if margin is not None:
                need, low, high = margin
                if values >= set(range(low, high + 1)):
                    continue   # every roll of it leads here: it does not matter
                parts.append(_margin_words(label, need, set(values), low, high))
            elif "roll" in label or "die" in label:
                parts.append(f"{label} is {_faces(set(values), sides)}")
            else:  # a Rocket card: its values listed (the set's highest is not known here)
                parts.append(f"{label} is {_listed(set(values))}")
        if not parts:
            return "whatever the dice"
        texts.append(" and ".join(parts))
    return "if " + "; or if ".join(texts)


def _recommended_line(a: dict[str, Any]) -> str:
    """"Recommended: X", and the actions about as good (within the noise)."""
    same = [r["action"] for r in a["actions"] if r.get("about_the_same")]
    if not same:
        return f"Recommended: {a['recommended']}"
    others = ", ".join(same[:-1]) + (" and " if len(same) > 1 else "") + same[-1]
    verb = "is" if len(same) == 1 else "are"
    return (f"Recommended: {a['recommended']}, but {others} {verb} about the same "
            f"(the difference is within the search's noise)")


def _cost_words(r: dict[str, Any], recommended: int) -> str:
    if r["loss"] is None:
        return ""
    if r["id"] == recommended:
        return "recommended"
    cost = win_text(max(r["loss"], 0.0), r["loss_stderr"])
    if r.get("about_the_same", about_the_same(r["loss"], r["loss_stderr"])):
        return f"about the same ({cost} less)"
    return f"costs {cost} of win chance"


# how wide a 95% interval of the win chance gets a plain word (its width, in
# win probability): up to NARROW_INTERVAL none, up to WIDE_INTERVAL "rough",
# wider "very uncertain" (in the last turn the search's bias makes it 60
# points or more: "4% to 100%")
NARROW_INTERVAL = 0.20
WIDE_INTERVAL = 0.40


def uncertainty(lo: float, hi: float) -> str:
    """How sure a win chance with the 95% interval lo..hi is, in a word:
    "exact", "narrow", "rough" or "very uncertain" (the JSON's
    ``uncertainty``; the text and the web pages say it so)."""
    if hi <= lo:
        return "exact"
    if hi - lo > WIDE_INTERVAL:
        return "very uncertain"
    return "rough" if hi - lo > NARROW_INTERVAL else "narrow"


def interval_words(lo: float, hi: float) -> str:
    """The 95% interval of a win chance in words, with a plain word when it
    is wide: "95% interval 35% to 44%", "95% interval 20% to 45%: rough",
    "95% interval 8% to 100%: very uncertain, the search cannot pin this
    position down"."""
    text = f"95% interval {percent(lo)} to {percent(hi)}"
    word = uncertainty(lo, hi)
    if word == "very uncertain":
        return text + ": very uncertain, the search cannot pin this position down"
    return text + ": rough" if word == "rough" else text


def _win_summary(a: dict[str, Any]) -> str:
    """Each side's win chance, one statement of its uncertainty: the
    player's own with its 95% interval (and a plain word when it is wide),
    the other side's as what is left; an exact value alone."""
    me = a["to_move"]
    parts = []
    for side in [me] + [x for x in SIDES if x != me]:
        title = TITLES[SIDES.index(side)]
        text = f"{title}{' (you)' if side == me else ''} {percent(a['value'][side])}"
        lo, hi = a["value_ci95"][side]
        if side == me:
            text += f" ({interval_words(lo, hi)})" if hi > lo else " (exact)"
        parts.append(text)
    return "Win chance with the recommended action: " + "; ".join(parts) + "."


def format_advice(a: dict[str, Any]) -> str:
    """The advice for people, in a player's words: every win chance as
    "59% ± 1%", the search's frequency labelled as one, the replies as
    sentences."""
    me = a["to_move"]
    opp = TITLES[1 - SIDES.index(me)]
    lines = [f"{TITLES[SIDES.index(me)]} to move ({decision_words(a['phase'])}).",
             _recommended_line(a) + ".", ""]
    if a.get("exact"):
        lines[-1:] = ["Exact: the position is solved (both hands known, only dice left); "
                      "every value is an exact win chance.", ""]
    lines.append(f"{'action':36s} {'you win':>9s}  {'search chose':>12s}  cost")
    for r in a["actions"]:
        value = "-" if r["value"] is None else win_text(r["value"], r["stderr"])
        lines.append(f"{r['action'][:36]:36s} {value:>9s}  {percent(r['frequency']):>12s}  "
                     f"{_cost_words(r, a['recommended_id'])}")
    lines.append("(search chose: how often the search chose the action, a frequency, "
                 "not a win chance.)")
    if a["value"]:
        lines.append("")
        lines.append(_win_summary(a))
    planned = [r for r in a["actions"] if "responses" in r]
    for r in planned:
        lines.append("")
        head = "If you play" if r["id"] == a["recommended_id"] else "If instead you play"
        lines.append(f"{head} {r['action']}:")
        if not r["responses"]:
            lines.append(f"  {r['responses_note']}.")
        for x in r["responses"]:
            lines.extend(_response_lines(x, opp))
    if a.get("opponent_model") and planned:
        lines.append("")
        lines.append(f"(How likely each {opp} reply is comes from {a['opponent_model']}.)")
    elif a.get("responses_note") and not planned:
        lines.append("")
        lines.append(f"Replies: {a['responses_note']}.")
    st = a["stats"]
    if a.get("exact"):
        lines.append("")
        lines.append(f"Exact solve: {st['nodes']} positions, {st['seconds']:.2f} s; "
                     f"bot {st['spec']}")
    if "iterations" in st:
        lines.append("")
        lines.append(f"Search: {st['iterations']} iterations, {st['worlds']} worlds sampled, "
                     f"{st['seconds']:.2f} s, {st['nodes']} nodes "
                     f"({st['memory_bytes'] / 2**20:.1f} MiB); bot {st['spec']}")
        if "responses_seconds" in st:
            lines.append(f"Replies and answers: {st['responses_iterations']} iterations, "
                         f"{st['responses_seconds']:.2f} s")
    return "\n".join(lines)


def _answer_words(x: dict[str, Any]) -> str:
    """The player's answer in a sentence: "play PL18 Good Luck (you win 59% ± 2%)"."""
    then = x.get("then_says") or x["then"]
    if x["at"] == "end":
        return then
    chance = "forced" if x["value"] is None else f"you win {win_text(x['value'], x['stderr'])}"
    return f"{then} ({chance})"


def _response_lines(x: dict[str, Any], opp: str) -> list[str]:
    head = (f"  - If the {opp} {x.get('says') or x['reply']} "
            f"({x.get('where') or step_words(x['phase'], 'his')}, "
            f"{percent(x['probability'])} likely)")
    outcomes = x.get("outcomes")
    if not outcomes:
        return [f"{head}, your answer: {_answer_words(x)}."]
    lines = [f"{head}:"]
    for o in outcomes:
        lines.append(f"      {o['when'][:1].upper()}{o['when'][1:]} "
                     f"({percent(o['probability'])} of these cases), your answer: "
                     f"{_answer_words(o)}.")
    if x["outcomes_covered"] < 0.995:
        lines.append(f"      other outcomes ({percent(1 - x['outcomes_covered'])}): "
                     f"not analysed")
    return lines

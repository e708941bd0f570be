"""Advice for the player to move: ``wildhorn-solve advise STATE.json``.

The bot searches the position (a state.json file holds one player's view;
``solver.state_io`` turns it into a state whose hidden cards are sampled,
and the searcher resamples them again on every iteration).  The answer is
the recommended action, every legal action with its recommended frequency,
visits and value, the win probability of each side with a 95% interval, and
the *responses*: inside the resolution of the recommended action, the
opponent's likely replies and the recommended answer to each.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from typing import Any

from bots.base import ISMCTSBot, make_bot, parse_spec
from solver._core import Core

SIDES = ("polish", "german")


def advise(state: Any, bot_spec: str = "ismcts", time: float | None = None,
           iterations: int | None = None, seed: int = 0) -> dict[str, Any]:
    """Searches ``state`` (a pyspiel WildhornState or a core position at a
    decision) and returns the advice as a JSON-ready dict."""
    core: Core = state.core if hasattr(state, "core") else state
    if core.is_terminal() or core.is_chance():
        from solver.errors import StateFormatError
        raise StateFormatError("state: the position is not a decision (nothing to advise)")
    player = core.current_player()
    name, options = parse_spec(bot_spec)
    if time is not None:
        options["time"] = time
        options.pop("iterations", None)
    if iterations is not None:
        options["iterations"] = iterations
        options.pop("time", None)
    if name == "ismcts":
        bot = ISMCTSBot(player, seed, **options)
    else:
        bot = make_bot(bot_spec, player, seed)
    result = bot.analyse(core)
    name_of = lambda a: core.action_string(player, a)  # noqa: E731
    stats = result.get("stats") or {}
    rows = stats.get("actions") or [{"action": a, "frequency": p, "visits": None,
                                     "value": None, "stderr": None}
                                    for a, p in result["policy"].items()]
    actions = sorted(({"action": name_of(r["action"]), "id": r["action"],
                       "frequency": round(r["frequency"], 4), "visits": r["visits"],
                       "value": None if r["value"] is None else round(r["value"], 4),
                       "stderr": None if r["stderr"] is None else round(r["stderr"], 4)}
                      for r in rows), key=lambda r: (-r["frequency"], r["id"]))
    value = result.get("value")
    ci = result.get("value_ci95")
    out = {
        "to_move": SIDES[player],
        "phase": core.phase,
        "recommended": name_of(result["action"]),
        "recommended_id": result["action"],
        "actions": actions,
        "value": None if value is None else {SIDES[p]: round(value[p], 4) for p in (0, 1)},
        "value_ci95": None if ci is None else {SIDES[p]: [round(x, 4) for x in ci[p]]
                                               for p in (0, 1)},
        "responses": [],
        "stats": {"bot": bot_spec, "seed": seed,
                  **{k: stats[k] for k in ("iterations", "worlds", "seconds", "nodes",
                                           "memory_bytes") if k in stats}},
    }
    if isinstance(bot, ISMCTSBot):
        out["responses"] = _responses(bot, core, player, result["action"], seed)
    return out


def _responses(bot: ISMCTSBot, core: Core, player: int, action: int, seed: int,
               worlds: int = 64, max_steps: int = 40) -> list[dict[str, Any]]:
    """Follows the searched tree through the resolution of ``action`` in
    sampled worlds: at each later decision of the opponent, the replies the
    tree expects (by visits); at each later decision of the player, the
    recommended answer.  Returns the (reply, answer) pairs seen, most
    frequent first."""
    rng = random.Random(seed)
    engine = bot.search_engine
    seen: Counter = Counter()
    answers: dict[tuple, Counter] = defaultdict(Counter)
    start_turn = core.turn
    for w in range(worlds):
        s = core.resample(player, rng.randrange(2**62))
        s.apply(action)
        last_reply = None
        for _ in range(max_steps):
            if s.is_terminal() or s.turn != start_turn:
                break
            if s.pending is None and s.phase == "actions" and last_reply is None \
                    and s.current_player() != player:
                break  # the action is over and the opponent starts a new one
            if s.is_chance():
                outcomes = s.chance_outcomes()
                acts, probs = zip(*outcomes)
                s.apply(rng.choices(acts, probs)[0])
                continue
            stats = engine.node_stats(s)
            mover = s.current_player()
            if stats is None or not stats["actions"] or stats["visits"] < 5:
                break
            ranked = sorted(stats["actions"], key=lambda e: -e["visits"])
            if mover != player:
                weights = [e["visits"] for e in ranked]
                choice = rng.choices(ranked, weights)[0]["action"]
                last_reply = (s.phase, s.action_string(mover, choice))
                seen[last_reply] += 1
            else:
                choice = ranked[0]["action"]
                if last_reply is not None:
                    answers[last_reply][s.action_string(mover, choice)] += 1
                    last_reply = None
            s.apply(choice)
            if s.pending is None and s.phase == "actions" and s.actor != player \
                    and last_reply is None:
                break
    out = []
    for (phase, reply), count in seen.most_common(8):
        if not answers[(phase, reply)]:
            continue
        answer, n = answers[(phase, reply)].most_common(1)[0]
        out.append({"if": f"{SIDES[1 - player]} {reply}", "phase": phase,
                    "then": answer, "share": round(count / worlds, 3),
                    "agreement": round(n / sum(answers[(phase, reply)].values()), 3)})
    return out


def format_advice(a: dict[str, Any]) -> str:
    """The advice for people."""
    lines = [f"{a['to_move'].capitalize()} to move ({a['phase']}).",
             f"Recommended: {a['recommended']}", ""]
    lines.append(f"{'action':40s} {'freq':>6s} {'visits':>8s} {'value':>14s}")
    for r in a["actions"]:
        value = "-" if r["value"] is None else f"{r['value']:.3f} ± {r['stderr']:.3f}"
        visits = "-" if r["visits"] is None else str(r["visits"])
        lines.append(f"{r['action'][:40]:40s} {r['frequency']:6.3f} {visits:>8s} {value:>14s}")
    if a["value"]:
        lines.append("")
        for side in SIDES:
            lo, hi = a["value_ci95"][side]
            lines.append(f"Win probability {side}: {a['value'][side]:.3f} "
                         f"(95% interval {lo:.3f}-{hi:.3f})")
    if a["responses"]:
        lines.append("")
        lines.append("Responses:")
        for r in a["responses"]:
            lines.append(f"  if the {r['if']} ({r['phase']}), answer with {r['then']}"
                         f"  [{r['share']:.0%} of sampled lines]")
    st = a["stats"]
    if "iterations" in st:
        lines.append("")
        lines.append(f"Search: {st['iterations']} iterations, {st['worlds']} worlds sampled, "
                     f"{st['seconds']:.2f} s, {st['nodes']} nodes "
                     f"({st['memory_bytes'] / 2**20:.1f} MiB)")
    return "\n".join(lines)

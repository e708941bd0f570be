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

from bots import SEARCH_BOTS, make_bot, parse_spec
from solver._core import Core
from solver.errors import StateFormatError

SIDES = ("polish", "german")


def advise(state: Any, bot_spec: str = "ismcts", time: float | None = None,
           iterations: int | None = None, seed: int = 0) -> dict[str, Any]:
    """Searches ``state`` (a pyspiel WildhornState or a core position at a
    decision) and returns the advice as a JSON-ready dict."""
    core: Core = state.core if hasattr(state, "core") else state
    if core.is_terminal() or core.is_chance():
        raise StateFormatError("state: the position is not a decision (nothing to advise)")
    player = core.current_player()
    name, options = parse_spec(bot_spec)
    if time is None and iterations is None and "time" not in options \
            and "iterations" not in options:
        time = 0.7  # with the responses, about one second of search in all
        options["time"] = time
        options.pop("iterations", None)
    if iterations is not None:
        options["iterations"] = iterations
        options.pop("time", None)
    if name in SEARCH_BOTS:
        bot = SEARCH_BOTS[name](player, seed, **options)
    else:
        bot = make_bot(bot_spec, player, seed)
    result = bot.analyse(core)
    # a mixed-strategy bot plays a sampled action; the advice names its most likely one
    recommended = result.get("best", result["action"])
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
        "recommended": name_of(recommended),
        "recommended_id": recommended,
        "actions": actions,
        "value": None if value is None else {SIDES[p]: round(value[p], 4) for p in (0, 1)},
        "value_ci95": None if ci is None else {SIDES[p]: [round(x, 4) for x in ci[p]]
                                               for p in (0, 1)},
        "responses": [],
        "stats": {"bot": bot_spec, "seed": seed,
                  **{k: stats[k] for k in ("iterations", "worlds", "seconds", "nodes",
                                           "memory_bytes") if k in stats}},
    }
    if name in SEARCH_BOTS:
        budget = 0.4 * (bot.time or 0.0) or 0.3
        out["responses"] = _responses(bot, core, player, recommended, seed, budget)
    return out


def _likeliest(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The row a search recommends: the highest frequency (ISMCTS: visits)."""
    return max(rows, key=lambda e: e.get("frequency", e["visits"]))


def _responses(bot: Any, core: Core, player: int, action: int, seed: int,
               budget: float, worlds: int = 8) -> list[dict[str, Any]]:
    """The opponent's replies inside the resolution of ``action`` and the
    recommended answer to each.

    In a few sampled worlds the action is applied (chance sampled, the
    player's own intermediate choices taken from the bot's main search)
    up to the opponent's first decision inside its resolution; every reply seen there
    is a candidate, weighted by the number of worlds in which it was legal.
    For each reply (most frequent first, within ``budget`` seconds), a short
    search from the player's next decision gives the answer; the search
    resamples what the player cannot see, so only the public reply matters.
    """
    engine = bot.search_engine
    rng = random.Random(seed)
    start_turn = core.turn

    def finished(s: Core) -> bool:
        return s.is_terminal() or s.turn != start_turn or (
            s.pending is None and s.phase in ("actions", "redraw"))

    def through_chance(s: Core) -> Core:
        while s.is_chance():
            acts, probs = zip(*s.chance_outcomes())
            s.apply(rng.choices(acts, probs)[0])
        return s

    weight: Counter = Counter()
    after: dict[tuple, Core] = {}
    for _ in range(worlds):
        s = core.resample(player, rng.randrange(2**62))
        s.apply(action)
        through_chance(s)
        while not finished(s) and s.current_player() == player:
            ours = engine.node_stats(s)
            if ours is None or ours["visits"] < 5:
                break
            s.apply(_likeliest(ours["actions"])["action"])
            through_chance(s)
        if finished(s) or s.current_player() == player:
            continue
        mover = s.current_player()
        for reply in s.legal_actions():
            t = s.copy()
            t.apply(reply)
            through_chance(t)
            if finished(t) or t.current_player() != player:
                continue
            key = (s.phase, s.action_string(mover, reply))
            weight[key] += 1
            after.setdefault(key, t)
    out = []
    replies = weight.most_common(6)
    for i, (key, w) in enumerate(replies):
        stats = bot.new_engine(seed + 1 + i).search(after[key], time_limit=budget / len(replies))
        best = _likeliest(stats["actions"])
        out.append({"if": f"{SIDES[1 - player]} {key[1]}", "phase": key[0],
                    "then": after[key].action_string(player, best["action"]),
                    "value": round(best["value"], 4), "share": round(w / worlds, 3),
                    "iterations": stats["iterations"]})
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
                         f"  (win {r['value']:.2f}; legal in {r['share']:.0%} of sampled worlds)")
    st = a["stats"]
    if "iterations" in st:
        lines.append("")
        lines.append(f"Search: {st['iterations']} iterations, {st['worlds']} worlds sampled, "
                     f"{st['seconds']:.2f} s, {st['nodes']} nodes "
                     f"({st['memory_bytes'] / 2**20:.1f} MiB)")
    return "\n".join(lines)

"""``wildhorn-solve bench players``: the players' bot on the players' path.

Plays seeded games as ``play`` and ``serve`` play them: a game record
(:mod:`apps.record`) whose bot is the game's :class:`~apps.gamebot.GameBot`,
built at its first decision and kept for the whole game, against the
heuristic bot in the human's seat (it answers at once, so the machine's
cores are the bot's).  Each of the bot's searched decisions (two options
or more) is timed from outside, around ``GameBot.decide_record``: whatever
the move costs (the solver's table at the first solvable decision, the
solve beside the search, the search) is in its wall time.  The figures are
each decision's wall time as a multiple of the budget (median, p90, p99,
max), the same for the last turn's solvable decisions, what the exact
solver did there (attempts, finished, its share of the time) and the
search's iterations.  No figure is typed in: ``results/bench-players.json``
holds what the command measured, with the machine and the command.
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable

import numpy as np

from apps.gamebot import GameBot
from apps.record import new_record
from bots import DEFAULT_SPEC, BotSpec
from bots.heuristic import HeuristicBot
from bots.registry import available_cores

DEFAULT_DECISIONS = 200    # searched decisions of the bot at the least
MAX_GAMES = 200            # games at the most, whatever the decisions


def _quantiles(values: list[float]) -> dict[str, Any]:
    """Count, median, p90, p99 and max of ``values`` (None where empty)."""
    if not values:
        return {"count": 0, "median": None, "p90": None, "p99": None, "max": None}
    a = np.asarray(values, dtype=float)
    return {"count": len(values), "median": round(float(np.median(a)), 4),
            "p90": round(float(np.percentile(a, 90)), 4),
            "p99": round(float(np.percentile(a, 99)), 4), "max": round(float(a.max()), 4)}


def play_one(spec: BotSpec, seed: int, human: int, ponder: float = 0.0,
             clock: Callable[[], float] = time.perf_counter) -> list[dict[str, Any]]:
    """One seeded game on the players' path; a row per searched decision of
    the bot: its wall time, the last turn's solvable region or not, what
    the solver and the search did.  ``ponder``: the seconds the human takes
    at each decision, while the bot thinks on the human's time (0: it does
    not); the row then says what the ponder before it did."""
    record = new_record(human=human, bot=spec, seed=seed)
    opponent = HeuristicBot(human, seed)
    bot: GameBot | None = None
    rows = []
    pondered: dict[str, Any] | None = None
    try:
        while record.status() != "over":
            if record.status() == "human":
                if ponder > 0.0:
                    if bot is None:
                        bot = GameBot.for_record(record)
                    until = clock() + ponder
                    bot.ponder(record.core.copy(), lambda: clock() >= until)
                    pondered = getattr(bot.bot, "ponder_figures", None)
                    while clock() < until:      # the human's time, whatever the bot did
                        time.sleep(min(0.05, max(0.0, until - clock())))
                record.human_act(opponent.analyse(record.core)["action"])
                continue
            forced = record.bot_forced()
            if forced is not None:
                record.bot_act(forced)
                continue
            if bot is None:
                bot = GameBot.for_record(record)
            t0 = clock()
            result = bot.decide_record(record)
            seconds = clock() - t0
            stats = result["stats"]
            rows.append({"seconds": seconds, "turn": record.core.turn,
                         "solvable": "endgame_share" in stats,
                         "exact": bool(stats.get("exact")),
                         "endgame_seconds": stats.get("endgame_seconds"),
                         "iterations": stats.get("search_iterations", stats.get("iterations"))
                         - stats.get("pondered_iterations", 0)
                         if stats.get("search_iterations", stats.get("iterations")) else None,
                         "pondered_visits": stats.get("pondered_visits", 0),
                         "clock": stats.get("clock"),
                         "ponder": pondered})
            pondered = None
            record.bot_act(result["action"], result["value"], result["alternatives"])
    finally:
        if bot is not None:
            bot.close()
    return rows


def _ponder_figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """What thinking on the human's time gave the bot's next decisions:
    outside the solvable region, the root visits its search found in the
    pondered tree against the iterations it searched itself; in it, the
    exact solver's ponders and the decisions solved exactly."""
    searched = [r for r in rows if r["ponder"] and r["ponder"]["kind"] == "search"]
    exact = [r for r in rows if r["ponder"] and r["ponder"]["kind"] == "exact"]
    kept = [r["pondered_visits"] for r in searched]
    own = [r["iterations"] or 0 for r in searched]
    return {
        "decisions_after_a_search_ponder": len(searched),
        "ponder_iterations_median": statistics.median(r["ponder"]["iterations"]
                                                      for r in searched) if searched else None,
        "root_visits_kept_median": statistics.median(kept) if kept else None,
        "root_visits_kept_mean": round(statistics.fmean(kept), 1) if kept else None,
        "own_iterations_median": statistics.median(own) if own else None,
        "decisions_with_visits_kept": sum(1 for v in kept if v > 0),
        "decisions_after_an_exact_ponder": len(exact),
        "exact_ponders_finished": sum(1 for r in exact if r["ponder"]["complete"]),
        "exact_ponder_nodes_median": statistics.median(r["ponder"]["nodes"] for r in exact)
        if exact else None,
        "solved_exactly_after_an_exact_ponder": sum(1 for r in exact if r["exact"]),
    }


def bench_players(spec_text: str = DEFAULT_SPEC, decisions: int = DEFAULT_DECISIONS,
                  seed: int = 1, log: Callable[[str], None] = print,
                  ponder: float = 0.0) -> dict[str, Any]:
    """Seeded games (seeds ``seed``, ``seed + 1``, ...; the bot German in
    the even ones, Polish in the odd) until ``decisions`` searched decisions
    of the bot are timed; the figures (see the module's docstring).
    ``ponder``: the human's seconds a decision, the bot thinking on them
    (the figures then add what that gave)."""
    spec = BotSpec.parse(spec_text)
    if spec.get("time") is None:
        spec = spec.with_time(1.0)
    budget = float(spec.get("time"))
    rows: list[dict[str, Any]] = []
    games = 0
    start = time.perf_counter()
    while len(rows) < decisions and games < MAX_GAMES:
        game_rows = play_one(spec, seed + games, human=games % 2, ponder=ponder)
        games += 1
        rows += game_rows
        log(f"game {games}: {len(game_rows)} searched decisions, "
            f"{sum(r['solvable'] for r in game_rows)} solvable, "
            f"slowest {max((r['seconds'] for r in game_rows), default=0.0) / budget:.3f}x the "
            f"budget ({len(rows)} of {decisions})")
    ratio = [r["seconds"] / budget for r in rows]
    solvable = [r for r in rows if r["solvable"]]
    exact = [r for r in solvable if r["exact"]]
    searched_iterations = [r["iterations"] for r in rows if not r["solvable"] and r["iterations"]]
    solvable_iterations = [r["iterations"] for r in solvable if not r["exact"] and r["iterations"]]
    out = {
        "command": f"wildhorn-solve bench players --bots {spec_text} --decisions {decisions}"
                   f" --seed {seed}" + (f" --ponder {ponder:g}" if ponder else ""),
        "bot": str(spec), "budget_seconds": budget, "cores": available_cores(),
        "games": games, "seeds": [seed, seed + games - 1],
        "wall_over_budget": _quantiles(ratio),
        "wall_over_budget_solvable": _quantiles([r["seconds"] / budget for r in solvable]),
        "wall_over_budget_other": _quantiles([r["seconds"] / budget for r in rows
                                              if not r["solvable"]]),
        "solvable_decisions": len(solvable),
        "solved_exactly": len(exact),
        "endgame_seconds_share": round(
            sum(r["endgame_seconds"] or 0.0 for r in solvable) / max(sum(r["seconds"]
                                                                         for r in rows), 1e-9),
            4),
        "iterations_median_other": statistics.median(searched_iterations)
        if searched_iterations else None,
        "iterations_median_solvable_unsolved": statistics.median(solvable_iterations)
        if solvable_iterations else None,
        "seconds": round(time.perf_counter() - start, 1),
    }
    kinds = sorted({r["clock"] for r in rows if r["clock"]})
    if kinds:       # clock=game: how the decisions were judged, and their time
        out["clock"] = {k: {"decisions": sum(r["clock"] == k for r in rows),
                            "wall_over_budget_median": round(statistics.median(
                                r["seconds"] / budget for r in rows if r["clock"] == k), 4)}
                        for k in kinds}
        out["clock"]["mean_wall_over_budget"] = round(statistics.fmean(ratio), 4)
    if ponder:
        out["ponder_seconds"] = ponder
        out["ponder"] = _ponder_figures(rows)
    return out
